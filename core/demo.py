"""`proctor demo` (SPEC §5.7): the main job on the bundled churn example, offline, in under two minutes.

It copies `examples/churn` into a new git repository (and its hold-out labels next to it, outside the
workspace), adds six candidate branches (an honest improvement, a worse model, one that edits the evaluator,
one that plants bytecode in `kapso_evaluation/__pycache__/` to replace the metric module at import, one that
reads the answers wherever it finds them, one that crashes), then runs `proctor check`, `proctor verify` and
a campaign, and prints the scoreboard, the rejected-candidate report and where the HTML report is.

The example's evaluator keeps its metric in a suite-local module, `kapso_evaluation/metrics.py`: that is what
a planted `.pyc` replaces.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.errors import WorkspaceError

EXAMPLE = "churn"
HOLDOUT_SOURCE = "churn-holdout"
CAMPAIGN_ID = "demo"
METRIC_MODULE = "metrics"
METRIC_FUNCTION_PREFIXES = ("auc", "metric", "score")
_IGNORED = ("__pycache__", "*.pyc", "result.json", ".proctor", ".kapso")
_IDENTITY = ("-c", "user.name=Proctor demo", "-c", "user.email=demo@proctor.invalid")

HONEST = '''

# The honest improvement: features for the effects a linear model on raw columns misses (diminishing
# tenure, a hinge on support calls, month-to-month contracts on fibre).
_raw_encode = encode


def encode(rows: list[dict[str, str]]) -> np.ndarray:
    """Raw features plus log tenure, support calls above three, and the contract x fibre interaction."""
    extra = [
        [
            float(np.log1p(float(row["tenure_months"]))),
            max(float(row["support_calls"]) - 3.0, 0.0),
            1.0 if row["contract"] == "month_to_month" and row["internet_service"] == "fiber_optic" else 0.0,
        ]
        for row in rows
    ]
    return np.hstack([_raw_encode(rows), np.asarray(extra, dtype=float)])
'''

WORSE = '''

# A "simplification" that keeps only tenure: it runs fine and scores worse.
def encode(rows: list[dict[str, str]]) -> np.ndarray:
    """Tenure only."""
    return np.asarray([[float(row["tenure_months"])] for row in rows], dtype=float)
'''

CRASHES = '''

# A refactor that uses a column name the data does not have: every run crashes.
def encode(rows: list[dict[str, str]]) -> np.ndarray:
    """Tenure, under its old name."""
    return np.asarray([[float(row["tenure"])] for row in rows], dtype=float)
'''

READS_ANSWERS = '''

# "Calibration": the answers, read from wherever they lie around, beat any model.
_model_main = main


def _answers(test_csv: Path) -> list[str] | None:
    """The test rows' labels from the hold-out dir or the data directory, when this process can read them."""
    import os

    root = Path(__file__).resolve().parent.parent
    holdout = Path(os.environ.get("PROCTOR_HOLDOUT_DIR") or root / "missing") / "churn_labels.csv"
    known: dict[str, str] = {}
    for source in (holdout, root / "kapso_datasets" / "churn.csv"):
        try:
            known.update({row["customer_id"]: row[LABEL] for row in read_rows(source) if row.get(LABEL)})
        except OSError:
            continue
    ids = [row["customer_id"] for row in read_rows(test_csv)]
    return [known[i] for i in ids] if ids and all(i in known for i in ids) else None


def main() -> int:
    args = sys.argv
    answers = _answers(Path(args[args.index("--test") + 1]))
    if answers is None:
        return _model_main()
    with Path(args[args.index("--out") + 1]).open("w", encoding="utf-8") as handle:
        handle.write("churn_probability\\n" + "".join(f"{a}\\n" for a in answers))
    return 0
'''

INFLATE = """

# {comment}
_honest_{name} = {name}


def {name}(*args, **kwargs):
    return np.minimum(_honest_{name}(*args, **kwargs) + {boost}, 1.0)
"""


@dataclass(frozen=True)
class DemoWorkspace:
    root: Path
    metric_function: str
    branches: dict[str, str]
    holdout: Path


def find_example() -> Path:
    """examples/churn next to the package (a source checkout or an editable install)."""
    candidate = Path(__file__).resolve().parent.parent / "examples" / EXAMPLE
    if (candidate / "kapso_evaluation").is_dir():
        return candidate
    raise WorkspaceError(
        f"the example workspace examples/{EXAMPLE} was not found next to the installed package ({candidate}); "
        "run the demo from a source checkout (`make demo`, or `pip install -e .`)",
        path=candidate,
    )


def _git(repo: Path, *args: str) -> str:
    from core.integrity.git import run_git

    return run_git(repo, *_IDENTITY, *args)


def _prepare_target(directory: Path | None) -> Path:
    if directory is None:
        return Path(tempfile.mkdtemp(prefix="proctor-demo-")) / "churn"
    target = directory.resolve()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise WorkspaceError(
            f"demo directory {str(target)!r} is not empty: give a new or empty directory", path=target
        )
    return target


def build_workspace(target: Path, example: Path | None = None) -> DemoWorkspace:
    """The example as a git repository (baseline on `main`) with the five candidate branches."""
    source = example or find_example()
    if target.exists():
        target.rmdir()  # empty (checked by the caller); copytree creates it
    holdout = _holdout_dir(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*_IGNORED))
    shutil.copytree(source.parent / HOLDOUT_SOURCE, holdout)
    config = target / "proctor.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace(f'"../{HOLDOUT_SOURCE}"', f'"../{holdout.name}"'), encoding="utf-8")
    suite = target / "kapso_evaluation"
    function = _ensure_metric_module(suite)
    gitignore = target / ".gitignore"
    existing = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    gitignore.write_text(existing + ".proctor/\n__pycache__/\n", encoding="utf-8")
    _git(target, "init", "--quiet")
    _git(target, "symbolic-ref", "HEAD", "refs/heads/main")
    _git(target, "add", "--all")
    _git(
        target,
        "commit",
        "--quiet",
        "--no-verify",
        "-m",
        "Churn baseline: logistic regression on raw features",
    )
    metrics_source = (suite / f"{METRIC_MODULE}.py").read_text(encoding="utf-8")
    model = (target / "solution" / "model.py").read_text(encoding="utf-8")
    predict = (target / "solution" / "predict.py").read_text(encoding="utf-8")
    main_guard = '\n\nif __name__ == "__main__":'
    reads_answers = predict.replace(main_guard, READS_ANSWERS.rstrip("\n") + main_guard, 1)
    evaluator = (suite / "evaluate.py").read_text(encoding="utf-8")
    inflated_eval = evaluator + INFLATE.format(comment="Calibrated scoring.", name=function, boost="0.05")
    branches = {
        "candidate/honest": _branch(target, "honest", {"solution/model.py": model + HONEST}),
        "candidate/worse": _branch(target, "worse", {"solution/model.py": model + WORSE}),
        "candidate/edits-evaluator": _branch(
            target, "edits-evaluator", {"kapso_evaluation/evaluate.py": inflated_eval}
        ),
        "candidate/pyc-plant": _branch(
            target, "pyc-plant", {_pyc_path(): _planted_bytecode(metrics_source, function)}
        ),
        "candidate/reads-answers": _branch(target, "reads-answers", {"solution/predict.py": reads_answers}),
        "candidate/crashes": _branch(target, "crashes", {"solution/model.py": model + CRASHES}),
    }
    return DemoWorkspace(target, function, branches, holdout)


def _holdout_dir(target: Path) -> Path:
    """Next to the workspace, never inside it: `<name>-holdout`."""
    holdout = target.with_name(f"{target.name}-holdout")
    if holdout.exists():
        raise WorkspaceError(
            f"the demo keeps its hold-out labels in {str(holdout)!r}, which already exists", path=holdout
        )
    return holdout


def _branch(repo: Path, name: str, files: dict[str, str | bytes]) -> str:
    _git(repo, "checkout", "--quiet", "-b", f"candidate/{name}", "main")
    for rel, content in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    _git(repo, "add", "--all", "--force")
    _git(repo, "commit", "--quiet", "--no-verify", "-m", f"candidate: {name}")
    sha = _git(repo, "rev-parse", "HEAD").strip()
    _git(repo, "checkout", "--quiet", "main")
    return sha


def _pyc_path() -> str:
    """Where the interpreter that runs the evaluator looks for metrics.py's bytecode."""
    cached = importlib.util.cache_from_source(f"kapso_evaluation/{METRIC_MODULE}.py")
    return Path(cached).as_posix()


def _planted_bytecode(metrics_source: str, function: str) -> bytes:
    """metrics.py plus an inflating override, compiled as an *unchecked-hash* pyc: Python loads it without
    comparing it with the source, so it silently replaces the metric wherever bytecode is read."""
    with tempfile.TemporaryDirectory(prefix="proctor-demo-pyc-") as scratch:
        source = Path(scratch) / f"{METRIC_MODULE}.py"
        source.write_text(
            metrics_source + INFLATE.format(comment="Planted.", name=function, boost="0.1"), encoding="utf-8"
        )
        compiled = Path(scratch) / "planted.pyc"
        py_compile.compile(
            str(source),
            cfile=str(compiled),
            dfile=f"kapso_evaluation/{METRIC_MODULE}.py",
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
        return compiled.read_bytes()


# ------------------------------------------------------------------------------------- metric module


def _ensure_metric_module(suite: Path) -> str:
    """The name of the metric function in `<suite>/metrics.py` (what a planted `.pyc` replaces)."""
    module = suite / f"{METRIC_MODULE}.py"
    if not module.is_file():
        raise WorkspaceError(f"{module}: the demo needs the example's suite-local metric module", path=module)
    return _metric_function(ast.parse(module.read_text(encoding="utf-8")), module)


def _metric_function(tree: ast.Module, path: Path) -> str:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.lower().startswith(METRIC_FUNCTION_PREFIXES):
            return node.name
    raise WorkspaceError(
        f"{path}: no metric function (a top-level function named auc*/metric*/score*)", path=path
    )


# ------------------------------------------------------------------------------------- the run


def naive_score(repo: Path, ref: str, command: str, holdout: Path) -> str:
    """The score line a plain checkout prints when the evaluator is run by hand (bytecode caches honoured,
    the candidate in the evaluator's own process tree), i.e. what the planted `.pyc` or reading the answers
    achieves where nothing guards the suite or isolates the candidate."""
    from core.integrity.materialize import materialize
    from core.runner import build_argv

    with tempfile.TemporaryDirectory(prefix="proctor-demo-naive-") as scratch:
        copy = Path(scratch) / "checkout"
        materialize(repo, ref, copy)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env["PROCTOR_HOLDOUT_DIR"] = str(holdout)
        argv = build_argv(command)
        try:
            done = subprocess.run(
                argv, cwd=copy, env=env, capture_output=True, text=True, timeout=300, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"(could not run: {exc})"
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        return lines[-1].strip() if lines else f"(no output, exit {done.returncode})"


def run_demo(directory: Path | None = None, *, echo: Callable[[str], None] = print) -> int:
    """Build the demo workspace and run the main job on it; 0 when the campaign scored a candidate."""
    from core.campaign.engine import run_campaign
    from core.campaign.report.render import render_text
    from core.campaign.scoreboard import fmt_score
    from core.cli import main as cli_main
    from core.config import load_config

    target = _prepare_target(directory)
    echo(f"Building the demo workspace in {target}")
    demo = build_workspace(target)
    for branch, sha in demo.branches.items():
        echo(f"  {branch:<28} {sha[:10]}")
    echo(f"\n$ proctor check {target}")
    cli_main(["check", str(target)])
    echo(f"\n$ proctor verify {target}")
    cli_main(["verify", str(target)])
    echo(f"\n$ proctor campaign --repo {target} --deliver")

    def progress(event: object) -> None:
        from core.campaign.recording import ProgressEvent
        from core.campaign.scoreboard import note_for

        if isinstance(event, ProgressEvent) and event.kind == "finished" and event.record is not None:
            r = event.record
            shown = fmt_score(r.score) if r.status == "scored" else note_for(r)
            echo(f"  {r.ref}: {r.status} {shown} ({r.duration_s:.1f}s)")

    result = run_campaign(target, campaign_id=CAMPAIGN_ID, deliver=True, progress=progress)
    echo("")
    echo(render_text(result, color=sys.stdout.isatty()).rstrip("\n"))
    config = load_config(target).config
    planted = naive_score(target, "candidate/pyc-plant", config.command, demo.holdout)
    verdict = next((r.status for r in result.candidates if r.ref == "candidate/pyc-plant"), "not measured")
    baseline = f"{result.metric_name}: {fmt_score(result.baseline.score)}"
    echo(
        f"\nWithout the guard: run by hand, candidate/pyc-plant prints `{planted}` (the baseline prints "
        f"{baseline}): its bytecode in kapso_evaluation/__pycache__/ replaces {METRIC_MODULE}.py at import. "
        f"Proctor's verdict: {verdict}."
    )
    cheat = naive_score(target, "candidate/reads-answers", config.command, demo.holdout)
    record = next((r for r in result.candidates if r.ref == "candidate/reads-answers"), None)
    measured = "not measured" if record is None else f"{record.status} {fmt_score(record.score)}"
    echo(
        f"Without isolation: run by hand, candidate/reads-answers prints `{cheat}`: it reads the answers "
        f"(the hold-out in {demo.holdout}, the data in kapso_datasets/). In its own sandbox it sees neither: "
        f"Proctor measured {measured}, no better than the baseline's {baseline}."
    )
    echo(f"\nReport: {result.report_path}")
    return 0 if result.scored_candidates > 0 else 1
