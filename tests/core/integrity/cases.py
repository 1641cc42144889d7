"""A corpus of tampering attempts and honest candidates, each a change to one small Kapso workspace.

Every case is committed twice in its own repository (baseline, then candidate), so the same case runs
through `guard_refs` (git objects), `guard_trees` (materialized directories) and Kapso 0.7.10's check.
"""

from __future__ import annotations

import os
import py_compile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.core.integrity.helpers import write

EVALUATE = '''\
"""Scores the candidate's predict() on the labels."""
import json
import sys
from pathlib import Path

import numpy as np

import metrics

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))


def main() -> None:
    from solution import predict

    labels = [int(v) for v in (ROOT / "kapso_datasets" / "labels.csv").read_text().split()]
    preds = [predict(i) for i in range(len(labels))]
    score = metrics.accuracy(np.array(labels), np.array(preds))
    result = {"evaluation_script_path": __file__, "evaluation_output": "", "score": score}
    (Path(__file__).parent / "result.json").write_text(json.dumps(result))
    print(f"accuracy: {score}")


main()
'''

METRICS = """\
def accuracy(labels, preds):
    return float((labels == preds).mean())
"""

BASE: dict[str, str | bytes] = {
    "brief.md": "# Goal\naccuracy above 0.9\n\nMeasured by accuracy on kapso_datasets/labels.csv, seed 1\n",
    "kapso_evaluation/evaluate.py": EVALUATE,
    "kapso_evaluation/metrics.py": METRICS,
    "kapso_evaluation/config.yaml": "threshold: 0.5\n",
    "kapso_evaluation/l\u00e9gende.txt": "accuracy: share of correct predictions\n",
    "kapso_datasets/labels.csv": "1\n0\n1\n1\n",
    "solution.py": "def predict(i):\n    return 1\n",
    "README.md": "# Churn\n",
}

# GitHub's gitattributes template for Python repositories (Python.gitattributes), verbatim.
PYTHON_GITATTRIBUTES = """\
# Basic .gitattributes for a python repo.

# Source files
# ============
*.pxd    text diff=python
*.py     text diff=python
*.py3    text diff=python
*.pyw    text diff=python
*.pyx    text diff=python
*.pyz    text diff=python

# Binary files
# ============
*.db     binary
*.p      binary
*.pkl    binary
*.pickle binary
*.pyc    binary
*.pyd    binary
*.pyo    binary

# Jupyter notebook
*.ipynb  text

# Note: .db, .p, and .pkl files are associated
# with the python modules ``pickle``, ``dbm.*``,
# ``shelve``, ``marshal``, ``anydbm``, & ``bsddb``
# (among others).
"""

Mutation = Callable[[Path], None]


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    mutate: Mutation
    rejects: frozenset[str] = frozenset()  # expected rejecting codes (empty: accepted)
    flags: frozenset[str] = frozenset()  # expected IN011 flags
    base: Mutation | None = None  # a change to the (trusted) baseline, e.g. another command
    issue: bool = False  # one of the routes listed in the issue
    extra_files: dict[str, str] = field(default_factory=dict)  # written with the candidate's change

    @property
    def attack(self) -> bool:
        return bool(self.rejects)


def _edit(rel: str, text: str) -> Mutation:
    return lambda root: write(root, {rel: text})


def _append(rel: str, text: str) -> Mutation:
    def apply(root: Path) -> None:
        with open(root / rel, "a", encoding="utf-8") as handle:
            handle.write(text)

    return apply


def _delete(rel: str) -> Mutation:
    return lambda root: (root / rel).unlink()


def _chmod_x(rel: str) -> Mutation:
    return lambda root: os.chmod(root / rel, 0o755)


def _symlink(rel: str, target: str) -> Mutation:
    def apply(root: Path) -> None:
        path = root / rel
        if path.exists() or path.is_symlink():
            path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)

    return apply


def _replace_by_dir(rel: str) -> Mutation:
    def apply(root: Path) -> None:
        (root / rel).unlink()
        write(root, {f"{rel}/__init__.py": "def accuracy(labels, preds):\n    return 1.0\n"})

    return apply


def _planted_pyc(root: Path) -> None:
    """An unchecked-hash .pyc of a *different* metrics module, where Python looks for metrics' cache."""
    source = root / "_evil_metrics.py"
    source.write_text("def accuracy(labels, preds):\n    return 1.0\n")
    target = root / "kapso_evaluation/__pycache__/metrics.cpython-311.pyc"
    target.parent.mkdir(parents=True, exist_ok=True)
    py_compile.compile(
        str(source), cfile=str(target), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
    )
    source.unlink()


def _sourceless_pyc(root: Path) -> None:
    """A sourceless `json.pyc` next to evaluate.py: sys.path[0] wins over the stdlib's json."""
    source = root / "json_evil.py"
    source.write_text("dumps = lambda obj: '{\"score\": 1.0}'\n")
    py_compile.compile(str(source), cfile=str(root / "kapso_evaluation/json.pyc"))
    source.unlink()


def _both(*mutations: Mutation) -> Mutation:
    def apply(root: Path) -> None:
        for mutation in mutations:
            mutation(root)

    return apply


def _config(text: str) -> Mutation:
    return _edit("proctor.toml", text)


_INSERT_ROOT = _edit(
    "kapso_evaluation/evaluate.py",
    EVALUATE.replace("import metrics\n\nROOT", "ROOT").replace(
        "sys.path.append(str(ROOT))\n", "sys.path.insert(0, str(ROOT))\n\nimport metrics\n"
    ),
)

CASES: list[Case] = [
    # ------------------------------------------------------------------ attacks
    Case(
        "content-changed",
        "evaluator file edited",
        _append("kapso_evaluation/metrics.py", "\n# tuned\n"),
        frozenset({"IN001"}),
    ),
    Case(
        "deleted", "protected config deleted", _delete("kapso_evaluation/config.yaml"), frozenset({"IN002"})
    ),
    Case(
        "symlink-replaces-file",
        "metrics.py replaced by a symlink to the candidate's copy",
        _both(
            _edit("my_metrics.py", "def accuracy(l, p):\n    return 1.0\n"),
            _symlink("kapso_evaluation/metrics.py", "../my_metrics.py"),
        ),
        frozenset({"IN003"}),
    ),
    Case(
        "symlink-into-suite",
        "a symlink outside the suite pointing into it",
        _symlink("tools/suite", "../kapso_evaluation"),
        frozenset({"IN003"}),
    ),
    Case(
        "file-becomes-dir",
        "metrics.py replaced by a package directory",
        _replace_by_dir("kapso_evaluation/metrics.py"),
        frozenset({"IN003"}),
    ),
    Case(
        "exec-bit",
        "executable bit flipped on an evaluator file",
        _chmod_x("kapso_evaluation/metrics.py"),
        frozenset({"IN004"}),
        issue=True,
    ),
    Case(
        "new-py", "new .py in the suite", _edit("kapso_evaluation/helper.py", "X = 1\n"), frozenset({"IN005"})
    ),
    Case(
        "pth-file",
        "a .pth file in the suite",
        _edit("kapso_evaluation/evil.pth", "import os\n"),
        frozenset({"IN005"}),
        issue=True,
    ),
    Case(
        "unchecked-pyc",
        "unchecked-hash .pyc planted in __pycache__ replacing metrics",
        _planted_pyc,
        frozenset({"IN005"}),
        issue=True,
    ),
    Case(
        "sourceless-pyc",
        "sourceless json.pyc shadowing the stdlib module",
        _sourceless_pyc,
        frozenset({"IN005"}),
        issue=True,
    ),
    Case(
        "so-outranks-py",
        "extension module that outranks metrics.py at import",
        _edit("kapso_evaluation/metrics.cpython-311-x86_64-linux-gnu.so", "\x7fELF not really\n"),
        frozenset({"IN005"}),
        issue=True,
    ),
    Case(
        "shebang-no-suffix",
        "a shebang script without a suffix",
        _edit("kapso_evaluation/run_eval", "#!/bin/sh\necho auc: 1\n"),
        frozenset({"IN005"}),
        issue=True,
    ),
    Case(
        "suffix-case-dots",
        "source hidden by case and trailing dots",
        _edit("kapso_evaluation/Evil.PY..", "X = 1\n"),
        frozenset({"IN005"}),
    ),
    Case(
        "stale-result",
        "a result.json committed in the baseline suite",
        lambda root: None,
        frozenset({"IN006"}),
        base=_edit("kapso_evaluation/result.json", '{"score": 1.0}'),
    ),
    Case(
        "sitecustomize-m",
        "sitecustomize.py at the root when the evaluator runs with python -m",
        _edit("sitecustomize.py", "import builtins\n"),
        frozenset({"IN007"}),
        base=_config('command = "python -m kapso_evaluation.evaluate"\n'),
    ),
    Case(
        "shadow-stdlib",
        "root json.py when the evaluator puts the root first on sys.path",
        _edit("json.py", "def dumps(obj):\n    return '{}'\n"),
        frozenset({"IN007"}),
        base=_INSERT_ROOT,
    ),
    Case(
        "shadow-suite-module",
        "root metrics.py replacing the suite's metrics module",
        _edit("metrics.py", "def accuracy(l, p):\n    return 1.0\n"),
        frozenset({"IN007"}),
        base=_INSERT_ROOT,
    ),
    Case(
        "pythonpath-numpy",
        "a numpy package on the command's PYTHONPATH",
        _edit("numpy/__init__.py", "def array(x):\n    return x\n"),
        frozenset({"IN007"}),
        base=_config('command = "PYTHONPATH=. python kapso_evaluation/evaluate.py"\n'),
    ),
    Case(
        "sklearn-package",
        "an sklearn package on sys.path (python -m) replacing the metric library",
        _edit("sklearn/metrics.py", "def roc_auc_score(y, p):\n    return 1.0\n"),
        frozenset({"IN007"}),
        base=_both(
            _config('command = "python -m kapso_evaluation.evaluate"\n'),
            _append("kapso_evaluation/metrics.py", "\nfrom sklearn.metrics import roc_auc_score\n"),
        ),
        extra_files={"sklearn/__init__.py": ""},
    ),
    Case(
        "pytest-conftest",
        "conftest.py when the evaluator runs pytest",
        _edit("conftest.py", "def pytest_collection_modifyitems(items):\n    items.clear()\n"),
        frozenset({"IN007"}),
        base=_config('command = "python -m pytest kapso_evaluation"\n'),
    ),
    Case(
        "auto-crlf-on-suite",
        "`* text=auto eol=crlf`: every LF text file of the suite checked out with CRLF",
        _edit(".gitattributes", "* text=auto eol=crlf\n"),
        frozenset({"IN008"}),
    ),
    Case(
        "eol-on-data",
        ".gitattributes rewriting line endings of protected data",
        _edit(".gitattributes", "*.csv text eol=crlf\n"),
        frozenset({"IN008"}),
    ),
    Case(
        "filter-macro",
        ".gitattributes macro hiding a filter on the suite",
        _edit(".gitattributes", "[attr]innocent filter=x\nkapso_evaluation/** innocent\n"),
        frozenset({"IN008"}),
    ),
    Case(
        "gitmodules",
        ".gitmodules pointing at the suite",
        _edit(
            ".gitmodules",
            '[submodule "eval"]\n\tpath = kapso_evaluation\n\turl = https://example.invalid/x\n',
        ),
        frozenset({"IN008"}),
    ),
    Case(
        "case-collision",
        "a path equal to the suite's but for case",
        _edit("Kapso_Evaluation/metrics.txt", "accuracy = 1\n"),
        frozenset({"IN008"}),
    ),
    Case(
        "nfd-collision",
        "a protected file name in another Unicode normalization",
        _edit("kapso_evaluation/le\u0301gende.txt", "accuracy = 1\n"),
        frozenset({"IN008"}),
    ),
    Case(
        "data-new-file",
        "new file in protected data",
        _edit("kapso_datasets/extra_labels.csv", "1\n"),
        frozenset({"IN010"}),
        issue=True,
    ),
    Case(
        "data-modified",
        "protected labels rewritten",
        _edit("kapso_datasets/labels.csv", "1\n1\n1\n1\n"),
        frozenset({"IN010"}),
    ),
    Case(
        "brief-edited",
        "the brief's protocol weakened",
        _append("brief.md", "\nAny split is fine.\n"),
        frozenset({"IN010"}),
    ),
    Case(
        "patch-metrics",
        "candidate code patching numpy at import (flag only)",
        _edit(
            "solution.py",
            "import numpy as np\nnp.mean = lambda *a, **k: 1.0\n\n\ndef predict(i):\n    return 1\n",
        ),
        flags=frozenset({"IN011"}),
    ),
    Case(
        "unreachable-hook",
        "a sitecustomize.py where it cannot reach the evaluator (flag only)",
        _edit("tools/sitecustomize.py", "import os\n"),
        flags=frozenset({"IN011"}),
    ),
    # ------------------------------------------------------------------ honest candidates
    Case(
        "honest-solution",
        "the candidate's own code changed",
        _edit("solution.py", "def predict(i):\n    return i % 2\n"),
    ),
    Case(
        "honest-modules",
        "new helper module and package outside the suite",
        _edit("features/__init__.py", "from .build import build\n"),
    ),
    Case(
        "honest-result-json",
        "result.json written into the suite",
        _edit("kapso_evaluation/result.json", '{"score": 0.5}'),
    ),
    Case(
        "honest-artifacts",
        "logs, predictions and a profile in the suite",
        _both(
            _edit("kapso_evaluation/logs/run.log", "ok\n"),
            _edit("kapso_evaluation/predictions.txt", "1\n"),
            _edit("kapso_evaluation/profile.prof", "p"),
        ),
    ),
    Case("honest-csv", "a new .csv in the suite", _edit("kapso_evaluation/scores.csv", "i,score\n0,1\n")),
    Case(
        "honest-outside",
        "docs, tests, notebook, requirements and pyproject outside the suite",
        _both(
            _edit("docs/usage.md", "x\n"),
            _edit("tests/test_solution.py", "def test_it():\n    assert True\n"),
            _edit("analysis.ipynb", "{}\n"),
            _edit("requirements.txt", "numpy\n"),
            _edit("pyproject.toml", '[project]\nname = "churn"\n'),
            _delete("README.md"),
        ),
    ),
    Case(
        "honest-stdlib-name",
        "a root module named like an unused stdlib module (root not on sys.path first)",
        _edit("test.py", "print('hi')\n"),
    ),
    Case("honest-symlink", "a symlink that does not touch the suite", _symlink("latest", "docs")),
    Case(
        "honest-export-ignore",
        "`export-ignore` on the suite (Proctor reads git objects, no archive drops it)",
        _edit(".gitattributes", "kapso_evaluation export-ignore\n.gitattributes export-ignore\n"),
    ),
    Case(
        "honest-python-gitattributes",
        "GitHub's Python `.gitattributes` template under `* text=auto eol=lf`",
        _edit(".gitattributes", "* text=auto eol=lf\n" + PYTHON_GITATTRIBUTES),
    ),
]
