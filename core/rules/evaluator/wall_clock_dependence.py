"""## What it does
Flags wall-clock time, random UUIDs, `os.urandom` and `secrets` whose values can reach the score: the
printed metric, result.json's score, a seed, a `random_state`, or a time-budget loop that decides how much
is evaluated.

## Why is this bad?
A score that depends on when or how fast the evaluator ran is not a property of the candidate: two runs of
the same commit disagree. Timing a run for a log line on stderr is fine and is not flagged.

## Example
```python
rng = np.random.default_rng(int(time.time()))
```

Use instead:
```python
rng = np.random.default_rng(42)
```

## References
- README "The evaluator contract", item 4 (deterministic)
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Sequence

from core.diagnostics import Diagnostic, Severity
from core.rules.evaluator.analysis.ast_utils import walk_no_nested
from core.rules.evaluator.analysis.scopes import Binding
from core.rules.evaluator.context import EvaluatorContext
from core.rules.evaluator.metric import metric_of
from core.rules.evaluator.results import dict_of, result_writes

CODE = "EV010"
NAME = "wall-clock-dependence"
SEVERITY = Severity.WARNING
FIX_TITLE = None

SOURCES = frozenset(
    {
        "time.time",
        "time.time_ns",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.datetime.today",
        "datetime.date.today",
        "uuid.uuid1",
        "uuid.uuid4",
        "os.urandom",
    }
)
SEED_SINKS = frozenset(
    {
        "random.seed",
        "numpy.random.seed",
        "torch.manual_seed",
        "numpy.random.default_rng",
        "numpy.random.RandomState",
        "random.Random",
    }
)


def sources(ctx: EvaluatorContext) -> list[ast.Call]:
    """Calls to wall-clock, UUID and OS randomness sources, in document order."""
    return [
        call
        for call, name in zip(ctx.calls, ctx.call_names, strict=True)
        if name is not None and (name in SOURCES or name.startswith("secrets."))
    ]


# Calls whose result does not depend on the names they are given: a process run under a unique container or
# job name, a file opened under a unique temporary name. A clock or UUID passed to them does not reach what
# they return.
NAME_ONLY_CALLS = frozenset(
    {
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.Popen",
        "os.system",
        "os.makedirs",
        "os.mkdir",
        "open",
        "pathlib.Path",
        "tempfile.mkdtemp",
        "tempfile.TemporaryDirectory",
        "tempfile.NamedTemporaryFile",
        "shutil.copy",
        "shutil.copytree",
    }
)

# Binding kinds through which a value flows (a `with` target is the resource, not its arguments).
FLOWS = frozenset({"value", "unpack", "iter", "aug"})


class _Taint:
    """Bindings (and local functions) whose value derives from a source call, with the calls they come from.

    A use of a name takes the taint of the bindings that can reach it in its own scope (`ctx.reaching`): the
    same name in another function is another variable."""

    def __init__(self, ctx: EvaluatorContext) -> None:
        self.ctx = ctx
        self.bindings: dict[int, set[int]] = {}  # id(Binding) -> source calls
        self.functions: dict[str, set[int]] = {}
        self._reaching: dict[int, Sequence[Binding]] = {}
        facts = ctx.facts("time_sources")
        found = [c for c in facts if isinstance(c, ast.Call)] if facts is not None else sources(ctx)
        self.calls: dict[int, ast.Call] = {id(c): c for c in found}
        if not self.calls:
            return
        assignments = _flowing_assignments(ctx)
        for _ in range(8):
            changed = self._flow_assignments(assignments)
            changed = self._flow_returns() or changed
            if not changed:
                break

    def _flow_assignments(self, assignments: Sequence[tuple[Binding, ast.expr]]) -> bool:
        """One pass of taint from values into the bindings they are assigned to; True when any grew."""
        changed = False
        for binding, value in assignments:
            origins = self.origins(value)
            if binding.kind == "aug" and isinstance(binding.stmt, ast.AugAssign):
                origins |= self.origins(binding.stmt.target)
            known = self.bindings.setdefault(id(binding), set())
            if origins - known:
                known |= origins
                changed = True
        return changed

    def _flow_returns(self) -> bool:
        """One pass of taint from `return` values into the local functions; True when any grew."""
        changed = False
        for fname, func in self.ctx.functions.items():
            returned: set[int] = set()
            for node in walk_no_nested(func.body):
                if isinstance(node, ast.Return) and node.value is not None:
                    returned |= self.origins(node.value)
            if returned - self.functions.get(fname, set()):
                self.functions.setdefault(fname, set()).update(returned)
                changed = True
        return changed

    def _values(self, expr: ast.AST) -> Iterator[ast.AST]:
        """The nodes of `expr` whose values flow into its value (not the arguments of NAME_ONLY_CALLS)."""
        stack = [expr]
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, ast.Call) and self.ctx.call_name(node) in NAME_ONLY_CALLS:
                continue
            stack.extend(ast.iter_child_nodes(node))

    def origins(self, expr: ast.AST) -> set[int]:
        found: set[int] = set()
        for node in self._values(expr):
            if isinstance(node, ast.Call):
                if id(node) in self.calls:
                    found.add(id(node))
                elif isinstance(node.func, ast.Name) and node.func.id in self.functions:
                    found |= self.functions[node.func.id]
            elif isinstance(node, ast.Name):
                reaching = self._reaching.get(id(node))
                if reaching is None:
                    reaching = self._reaching[id(node)] = self.ctx.reaching(node)
                for binding in reaching:
                    found |= self.bindings.get(id(binding), set())
        return found


def _flowing_assignments(ctx: EvaluatorContext) -> list[tuple[Binding, ast.expr]]:
    """Every binding in the document whose value can carry taint, with that value."""
    assignments: list[tuple[Binding, ast.expr]] = []
    for placed in ctx.placed:
        for scope in placed.chunk.scope_index.scopes.values():
            for bound in scope.bindings.values():
                assignments.extend((b, b.value) for b in bound if b.value is not None and b.kind in FLOWS)
    return assignments


def _sinks(ctx: EvaluatorContext) -> Iterator[tuple[ast.AST, str]]:
    """The expressions a wall-clock value must not reach, each with what it decides."""
    yield from _score_sinks(ctx)
    yield from _seed_sinks(ctx)
    yield from _extent_sinks(ctx)


def _score_sinks(ctx: EvaluatorContext) -> Iterator[tuple[ast.AST, str]]:
    info = metric_of(ctx)
    if info is not None:
        for arg in info.call.args:
            yield arg, "the printed metric"
    for write in result_writes(ctx):
        found = dict_of(ctx, write.payload) if write.payload is not None else None
        if found is not None and isinstance(found[1], ast.Dict):
            for key, value in zip(found[1].keys, found[1].values, strict=True):
                if key is not None and ctx.string_value(key) in ("score", "evaluation_output"):
                    yield value, "the score in result.json"


def _seed_sinks(ctx: EvaluatorContext) -> Iterator[tuple[ast.AST, str]]:
    for call in ctx.calls:
        if ctx.call_name(call) in SEED_SINKS:
            for arg in (*call.args, *(kw.value for kw in call.keywords)):
                yield arg, "a seed"
        for kw in call.keywords:
            if kw.arg in ("random_state", "seed"):
                yield kw.value, "a seed"


def _extent_sinks(ctx: EvaluatorContext) -> Iterator[tuple[ast.AST, str]]:
    for node in ctx.nodes:
        if isinstance(node, ast.While):
            yield node.test, "a loop deciding how much is evaluated"
        elif isinstance(node, ast.If) and any(
            isinstance(n, ast.Break | ast.Continue | ast.Return) for n in walk_no_nested(node.body)
        ):
            yield node.test, "a branch deciding how much is evaluated"


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    taint = _Taint(ctx)
    if not taint.calls:
        return
    reported: set[int] = set()
    for expr, where in _sinks(ctx):
        for origin in sorted(taint.origins(expr) - reported):
            reported.add(origin)
            call = taint.calls[origin]
            label = ctx.call_name(call)
            yield ctx.diagnostic(
                sys.modules[__name__],
                call,
                f"`{label}()` can reach the score ({where}): repeated runs disagree",
            )
