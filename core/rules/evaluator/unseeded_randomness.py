"""## What it does
Flags randomness with no seed set first: the `random` module's functions, `numpy.random`'s global functions,
`numpy.random.default_rng()` / `RandomState()` / `random.Random()` without a seed, torch's RNG, pandas
`.sample()` and sklearn estimators or splitters whose `random_state` is left unset.

## Why is this bad?
An evaluator must give the same score twice for the same candidate. An unseeded split, shuffle or forest
makes the score move between runs, so a campaign ranks noise.

## Example
```python
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
model = RandomForestClassifier(n_estimators=200)
```

Use instead:
```python
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=42)
model = RandomForestClassifier(n_estimators=200, random_state=42)
```

## Fix safety
Unsafe: a seed is a fact about the protocol, and seeding changes which random numbers are drawn. The fix
seeds with `0`: `random.seed(0)`, `np.random.seed(0)` or `torch.manual_seed(0)` after the imports (an
import it needs goes with the other imports), `default_rng(0)`, or `random_state=0`. The score then stays
the same between runs, but may differ from an earlier unseeded run; state the seed in the brief.

## References
- README "The evaluator contract", item 4 (deterministic)
- https://scikit-learn.org/stable/common_pitfalls.html#controlling-randomness
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from typing import NamedTuple

from core.diagnostics import Applicability, Diagnostic, Fix, Position, Range, Severity, TextEdit
from core.rules.evaluator.analysis.ast_utils import has_star_kwargs, keyword
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric import flow_of

CODE = "EV009"
NAME = "unseeded-randomness"
SEVERITY = Severity.ERROR
FIX_TITLE = "Seed the random number generator"
FIX_SAFETY = Applicability.UNSAFE

RANDOM_FUNCS = frozenset(
    [
        "random",
        "randint",
        "randrange",
        "choice",
        "choices",
        "shuffle",
        "sample",
        "uniform",
        "gauss",
        "normalvariate",
        "lognormvariate",
        "expovariate",
        "vonmisesvariate",
        "gammavariate",
        "betavariate",
        "paretovariate",
        "weibullvariate",
        "triangular",
        "getrandbits",
        "randbytes",
        "binomialvariate",
    ]
)
NUMPY_NOT_GLOBAL = frozenset(
    [
        "seed",
        "default_rng",
        "RandomState",
        "Generator",
        "PCG64",
        "PCG64DXSM",
        "MT19937",
        "Philox",
        "SFC64",
        "SeedSequence",
        "BitGenerator",
        "get_state",
        "set_state",
        "bit_generator",
    ]
)
NUMPY_CTORS = frozenset(
    ["default_rng", "RandomState", "PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64", "SeedSequence"]
)
TORCH_FUNCS = frozenset(
    [
        "rand",
        "randn",
        "randint",
        "randperm",
        "rand_like",
        "randn_like",
        "randint_like",
        "normal",
        "bernoulli",
        "multinomial",
        "poisson",
    ]
)
SEEDERS = {
    "random.seed": "random",
    "numpy.random.seed": "numpy",
    "torch.manual_seed": "torch",
    "torch.random.manual_seed": "torch",
}
GLOBAL_SEEDERS = frozenset({"seed_everything", "set_seed", "set_random_seed"})
SKLEARN_ALWAYS = frozenset(
    [
        "RandomForestClassifier",
        "RandomForestRegressor",
        "ExtraTreesClassifier",
        "ExtraTreesRegressor",
        "GradientBoostingClassifier",
        "GradientBoostingRegressor",
        "HistGradientBoostingClassifier",
        "HistGradientBoostingRegressor",
        "AdaBoostClassifier",
        "AdaBoostRegressor",
        "BaggingClassifier",
        "BaggingRegressor",
        "IsolationForest",
        "RandomTreesEmbedding",
        "DecisionTreeClassifier",
        "DecisionTreeRegressor",
        "ExtraTreeClassifier",
        "ExtraTreeRegressor",
        "MLPClassifier",
        "MLPRegressor",
        "SGDClassifier",
        "SGDRegressor",
        "SGDOneClassSVM",
        "Perceptron",
        "PassiveAggressiveClassifier",
        "PassiveAggressiveRegressor",
        "KMeans",
        "MiniBatchKMeans",
        "BisectingKMeans",
        "TSNE",
        "TruncatedSVD",
        "GaussianMixture",
        "BayesianGaussianMixture",
        "LinearSVC",
        "LinearSVR",
        "RandomizedSearchCV",
        "HalvingRandomSearchCV",
        "ShuffleSplit",
        "StratifiedShuffleSplit",
        "GroupShuffleSplit",
        "RepeatedKFold",
        "RepeatedStratifiedKFold",
        "FastICA",
        "SparseRandomProjection",
        "GaussianRandomProjection",
        "LatentDirichletAllocation",
        "RANSACRegressor",
        "TheilSenRegressor",
        "SpectralClustering",
        "MDS",
        "shuffle",
        "resample",
        "permutation_importance",
        "make_classification",
        "make_regression",
        "make_blobs",
        "make_moons",
        "make_circles",
    ]
)
SHUFFLE_SPLITTERS = frozenset({"KFold", "StratifiedKFold", "GroupKFold", "StratifiedGroupKFold"})


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    rule = sys.modules[__name__]
    facts = ctx.facts("random")
    found_calls = [f for f in facts if isinstance(f, RandomCall)] if facts is not None else random_calls(ctx)
    if not found_calls:
        return
    order = _first_step(ctx)
    seeds = _seed_positions(ctx)
    for call, family, label, kind in found_calls:
        if kind in ("global", "keyword") and _seeded(family, call, order, seeds):
            continue
        fix = _fix(ctx, call, family, kind)
        if kind == "unseedable":
            message = f"`{label}` draws from the OS and cannot be seeded; use `random.Random(seed)`"
        elif kind == "ctor":
            message = f"`{label}()` is created without a seed"
        elif kind == "keyword":
            message = f"`{label}` leaves `random_state` unset and no numpy seed is set first"
        else:
            message = f"`{label}()` uses the {family} global RNG with no seed set first"
        yield ctx.diagnostic(rule, call, message, fix)


class RandomCall(NamedTuple):
    call: ast.Call
    family: str
    label: str
    kind: str


class SeedCall(NamedTuple):
    call: ast.Call
    family: str


def random_calls(ctx: EvaluatorContext) -> list[RandomCall]:
    """Random calls in document order (per chunk: no ordering or seeding is decided here)."""
    out: list[RandomCall] = []
    for call, name in zip(ctx.calls, ctx.call_names, strict=True):
        if name is None:
            found = _method_sample(call)
        elif name.startswith(_RANDOM_PREFIXES):
            found = _classify(ctx, call, name)
        else:
            continue
        if found is not None:
            out.append(RandomCall(call, *found))
    return out


def seed_calls(ctx: EvaluatorContext) -> list[SeedCall]:
    """Calls that seed a family's global RNG (`"all"` for `seed_everything()`-style helpers)."""
    out: list[SeedCall] = []
    for call, name in zip(ctx.calls, ctx.call_names, strict=True):
        if name is None:
            continue
        family = SEEDERS.get(name)
        if family is None and name.rsplit(".", 1)[-1] in GLOBAL_SEEDERS:
            family = "all"
        if family is None or (not call.args and not call.keywords):
            continue
        if call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value is None:
            continue
        out.append(SeedCall(call, family))
    return out


_Kind = tuple[str, str, str]  # (family, label, kind)


# Every qualified name `_classify` can find random starts with one of these.
_RANDOM_PREFIXES = ("random.", "numpy.random.", "torch.", "sklearn.")


def _classify(ctx: EvaluatorContext, call: ast.Call, name: str) -> _Kind | None:
    """(family, label, kind) for a call to `name`; kind is global, ctor, keyword or unseedable."""
    parts = name.split(".")
    last = parts[-1]
    if name.startswith("random.") and len(parts) == 2:
        return _stdlib_random(call, name, last)
    if name.startswith("numpy.random.") and len(parts) == 3:
        return _numpy_random(call, name, last)
    if name.startswith("torch.") and len(parts) == 2 and last in TORCH_FUNCS:
        return None if keyword(call, "generator") is not None else ("torch", name, "global")
    if name == "torch.utils.data.random_split" and keyword(call, "generator") is None:
        return "torch", name, "global"
    if name.startswith("sklearn.") and _sklearn_random(ctx, call, last):
        return "sklearn", last, "keyword"
    return None


def _method_sample(call: ast.Call) -> _Kind | None:
    """`df.sample(n=...)` on something the names do not resolve (a pandas frame) without `random_state`."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "sample" and _pandas_sample(call):
        return None if _random_state_set(call) else ("numpy", ".sample()", "keyword")
    return None


def _stdlib_random(call: ast.Call, name: str, last: str) -> _Kind | None:
    if last in RANDOM_FUNCS:
        return "random", name, "global"
    if last == "Random" and _no_seed_arg(call, "x"):
        return "random", name, "ctor"
    if last == "SystemRandom":
        return "random", name, "unseedable"
    return None


def _numpy_random(call: ast.Call, name: str, last: str) -> _Kind | None:
    if last in NUMPY_CTORS:
        return ("numpy", name, "ctor") if _no_seed_arg(call, "seed") else None
    if last not in NUMPY_NOT_GLOBAL:
        return "numpy", name, "global"
    return None


def _pandas_sample(call: ast.Call) -> bool:
    kws = {kw.arg for kw in call.keywords}
    if kws & {"n", "frac"}:
        return True
    return (
        len(call.args) == 1 and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, int)
    )


def _kw_is_none(call: ast.Call, name: str) -> bool:
    kw = keyword(call, name)
    return kw is not None and isinstance(kw.value, ast.Constant) and kw.value.value is None


def _random_state_set(call: ast.Call) -> bool:
    if has_star_kwargs(call):
        return True
    kw = keyword(call, "random_state")
    return kw is not None and not _kw_is_none(call, "random_state")


def _no_seed_arg(call: ast.Call, kw_name: str) -> bool:
    if has_star_kwargs(call) or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    if call.args:
        first = call.args[0]
        return isinstance(first, ast.Constant) and first.value is None
    kw = keyword(call, kw_name)
    if kw is None:
        return True
    return isinstance(kw.value, ast.Constant) and kw.value.value is None


def _const(call: ast.Call, name: str) -> object:
    kw = keyword(call, name)
    return kw.value.value if kw is not None and isinstance(kw.value, ast.Constant) else None


def _sklearn_random(ctx: EvaluatorContext, call: ast.Call, last: str) -> bool:
    if _random_state_set(call):
        return False
    if last == "train_test_split":
        return _const(call, "shuffle") is not False
    if last in SKLEARN_ALWAYS:
        return True
    if last in SHUFFLE_SPLITTERS:
        return _const(call, "shuffle") is True
    if last in ("LogisticRegression", "Ridge", "RidgeClassifier"):
        return _const(call, "solver") in ("sag", "saga", "liblinear")
    if last in ("SVC", "NuSVC"):
        return _const(call, "probability") is True
    if last in ("Lasso", "ElasticNet"):
        return _const(call, "selection") == "random"
    if last in ("PCA", "IncrementalPCA"):
        return last == "PCA" and _const(call, "svd_solver") not in ("full", "covariance_eigh")
    return False


# -- ordering ----------------------------------------------------------------------------------------------


def _first_step(ctx: EvaluatorContext) -> dict[int, int]:
    order: dict[int, int] = {}
    for step in flow_of(ctx).steps:
        order.setdefault(id(step.call), step.order)
    return order


def _seed_positions(ctx: EvaluatorContext) -> dict[str, list[int | None]]:
    """Per family, the flow index of each seed call (None for a seed the flow never reaches)."""
    order = _first_step(ctx)
    seeds: dict[str, list[int | None]] = {"random": [], "numpy": [], "torch": [], "all": []}
    facts = ctx.facts("seeds")
    found = [f for f in facts if isinstance(f, SeedCall)] if facts is not None else seed_calls(ctx)
    for call, family in found:
        seeds[family].append(order.get(id(call)))
    return seeds


def _seeded(family: str, call: ast.Call, order: dict[int, int], seeds: dict[str, list[int | None]]) -> bool:
    families = [family, "all"] + (["numpy"] if family == "sklearn" else [])
    at = order.get(id(call))
    for fam in families:
        for index in seeds.get(fam, []):
            if at is None or index is None or index < at:
                return True
    return False


# -- fixes -------------------------------------------------------------------------------------------------


def _fix(ctx: EvaluatorContext, call: ast.Call, family: str, kind: str) -> Fix | None:
    """The fix, marked unsafe here (as the lint would mark it: `FIX_SAFETY`)."""
    if kind == "unseedable":
        return None
    if kind == "ctor":
        return _unsafe((_seed_argument(ctx, call),))
    if kind == "keyword":
        return _unsafe((_random_state(ctx, call),))
    line = ctx.import_insert_line(call)
    # A global seed depends only on the family and the line it goes on: every unseeded call of the family
    # above the same imports gets the same fix (an evaluator may have dozens of them on every lint).
    memo = ctx.memo.setdefault("EV009 global seeds", {})
    assert isinstance(memo, dict)
    known = memo.get((family, line))
    if known is None:
        known = memo[(family, line)] = _unsafe(_global_seed(ctx, call, family, line))
    assert isinstance(known, Fix)
    return known


def _unsafe(edits: tuple[TextEdit, ...]) -> Fix:
    return Fix(FIX_TITLE, edits, applicability=FIX_SAFETY)


def _global_seed(ctx: EvaluatorContext, call: ast.Call, family: str, line: int) -> tuple[TextEdit, ...]:
    """The edits seeding `family`'s global RNG at zero-based `line` (after the imports above `call`)."""
    if family == "random":
        name, edits = ctx.ensure_import("random", call)
        return (*edits, ctx.insert_lines(line, f"{name}.seed(0)\n"))
    if family == "numpy":
        np_name = ctx.bound_to("numpy")
        if np_name is not None:
            return (ctx.insert_lines(line, f"{np_name}.random.seed(0)\n"),)
        rnd = ctx.bound_to("numpy.random")
        if rnd is not None:
            return (ctx.insert_lines(line, f"{rnd}.seed(0)\n"),)
        name, edits = ctx.ensure_import("numpy", call)
        return (*edits, ctx.insert_lines(line, f"{name}.random.seed(0)\n"))
    name, edits = ctx.ensure_import("torch", call)
    return (*edits, ctx.insert_lines(line, f"{name}.manual_seed(0)\n"))


def _seed_argument(ctx: EvaluatorContext, call: ast.Call) -> TextEdit:
    if call.args:
        return TextEdit(ctx.relpath, ctx.range_of(call.args[0]), "0")
    for kw in call.keywords:
        if kw.arg in ("seed", "x"):
            return TextEdit(ctx.relpath, ctx.range_of(kw.value), "0")
    if call.keywords:
        at = ctx.start_of(call.keywords[0])
        return TextEdit(ctx.relpath, Range(at, at), "0, ")
    end = ctx.end_of(call)
    at = Position(end.line, end.character - 1)
    return TextEdit(ctx.relpath, Range(at, at), "0")


def _random_state(ctx: EvaluatorContext, call: ast.Call) -> TextEdit:
    kw = keyword(call, "random_state")
    if kw is not None:
        return TextEdit(ctx.relpath, ctx.range_of(kw.value), "0")
    items: list[ast.AST] = [*call.args, *call.keywords]
    if items:
        last = max(items, key=lambda n: (ctx.end_of(n).line, ctx.end_of(n).character))
        at = ctx.end_of(last)
        return TextEdit(ctx.relpath, Range(at, at), ", random_state=0")
    end = ctx.end_of(call)
    at = Position(end.line, end.character - 1)
    return TextEdit(ctx.relpath, Range(at, at), "random_state=0")
