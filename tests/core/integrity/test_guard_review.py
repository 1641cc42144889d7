"""A reviewer's second corpus for the guard (SPEC §4.2): variants of each class not in cases.py.

Written as an outside grader would: every attack must be rejected with the expected codes and every honest
candidate accepted (flags only where the spec says so), identically by `guard_refs` (git objects) and
`guard_trees` (materialized trees).
"""

from __future__ import annotations

import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.config import Config, load_config
from core.integrity.guard import GuardReport, guard_refs, guard_trees
from core.integrity.materialize import materialize
from tests.core.integrity.cases import BASE, Mutation
from tests.core.integrity.helpers import commit_all, git, init_repo, write

PY_M = 'command = "python -m kapso_evaluation.evaluate"\n'


def _edit(rel: str, content: str | bytes) -> Mutation:
    return lambda root: write(root, {rel: content})


def _delete(rel: str) -> Mutation:
    return lambda root: (root / rel).unlink()


def _both(*mutations: Mutation) -> Mutation:
    def apply(root: Path) -> None:
        for mutation in mutations:
            mutation(root)

    return apply


def _executable(rel: str, content: str | bytes) -> Mutation:
    def apply(root: Path) -> None:
        write(root, {rel: content})
        os.chmod(root / rel, 0o755)

    return apply


def _hard_link_executable(root: Path) -> None:
    """An executable helper outside the suite, hard-linked into a new suite subdirectory."""
    outside = root / "tools" / "score"
    write(root, {"tools/score": "print('accuracy: 1.0')\n"})
    os.chmod(outside, 0o755)
    (root / "kapso_evaluation" / "bin").mkdir(parents=True, exist_ok=True)
    os.link(outside, root / "kapso_evaluation" / "bin" / "score")


def _data_symlink(root: Path) -> None:
    (root / "kapso_datasets" / "labels_all.csv").symlink_to("labels.csv")


def _suite_symlink(root: Path) -> None:
    shutil.copytree(root / "kapso_evaluation", root / "my_eval")
    shutil.rmtree(root / "kapso_evaluation")
    (root / "kapso_evaluation").symlink_to("my_eval")


def _rename(src: str, dst: str) -> Mutation:
    return lambda root: (root / src).rename(root / dst)


def _crlf(rel: str) -> Mutation:
    def apply(root: Path) -> None:
        path = root / rel
        path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))

    return apply


def _binary_artifact() -> bytes:
    data = random.Random(4_2).randbytes(1_500_000)
    return b"\x00BIN" + data


@dataclass(frozen=True)
class Variant:
    name: str
    mutate: Mutation
    rejects: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()
    base: Mutation | None = None

    @property
    def attack(self) -> bool:
        return bool(self.rejects)


def _r(*codes: str) -> frozenset[str]:
    return frozenset(codes)


PROTECTED_CONFIG = 'protected_paths = ["scripts/split.txt"]\n'

VARIANTS: list[Variant] = [
    # ------------------------------------------------------------------ IN005 source in the suite
    Variant("nested-upper-py", _edit("kapso_evaluation/sub/helper.PY", "X = 1\n"), _r("IN005")),
    Variant("nested-trailing-dot", _edit("kapso_evaluation/sub/metrics.py.", "X = 1\n"), _r("IN005")),
    Variant("nested-trailing-space", _edit("kapso_evaluation/sub/metrics.py ", "X = 1\n"), _r("IN005")),
    Variant("nested-dot-space-mix", _edit("kapso_evaluation/a/b/Run.Sh. .", "echo\n"), _r("IN005")),
    Variant("nested-pyc-upper", _edit("kapso_evaluation/sub/metrics.PYC", b"\x00\x00\x00\x00"), _r("IN005")),
    Variant("toplevel-pyc", _edit("kapso_evaluation/metrics.pyc", b"\xa7\r\r\n\x00\x00"), _r("IN005")),
    Variant("pyi-stub", _edit("kapso_evaluation/metrics.pyi", "def accuracy(l, p): ...\n"), _r("IN005")),
    Variant("mjs-file", _edit("kapso_evaluation/web/x.mjs", "export {}\n"), _r("IN005")),
    Variant("executable-new-subdir", _executable("kapso_evaluation/bin/tool", b"\x00bin\x00"), _r("IN005")),
    Variant("hard-link-executable", _hard_link_executable, _r("IN005")),
    Variant(
        "shebang-in-txt", _edit("kapso_evaluation/sub/notes.txt", "#!/usr/bin/env python\n"), _r("IN005")
    ),
    # ------------------------------------------------------------------ IN001-IN004 protected files
    Variant("crlf-rewrite", _crlf("kapso_evaluation/metrics.py"), _r("IN001")),
    Variant(
        "renamed-protected",
        _rename("kapso_evaluation/l\u00e9gende.txt", "kapso_evaluation/legend.txt"),
        _r("IN002"),
    ),
    Variant(
        "config-exec-bit", lambda root: os.chmod(root / "kapso_evaluation/config.yaml", 0o755), _r("IN004")
    ),
    Variant(
        "symlink-in-nested-suite-dir",
        lambda root: (
            (root / "kapso_evaluation/sub").mkdir(),
            (root / "kapso_evaluation/sub/data.csv").symlink_to("../../kapso_datasets/labels.csv"),
        ),
        _r("IN003"),
    ),
    # ------------------------------------------------------------------ IN010 protected inputs
    Variant("data-symlink", _data_symlink, _r("IN010")),
    Variant("data-nested-new-file", _edit("kapso_datasets/extra/more.csv", "1\n"), _r("IN010")),
    Variant("data-deleted", _delete("kapso_datasets/labels.csv"), _r("IN010")),
    Variant("brief-deleted", _delete("brief.md"), _r("IN010")),
    Variant(
        "protected-path-modified",
        _edit("scripts/split.txt", "seed 2\n"),
        _r("IN010"),
        base=_both(_edit("proctor.toml", PROTECTED_CONFIG), _edit("scripts/split.txt", "seed 1\n")),
    ),
    Variant(
        "protected-path-deleted",
        _delete("scripts/split.txt"),
        _r("IN010"),
        base=_both(_edit("proctor.toml", PROTECTED_CONFIG), _edit("scripts/split.txt", "seed 1\n")),
    ),
    # ------------------------------------------------------------------ IN007 interpreter hooks
    Variant("pth-root-m", _edit("evil.pth", "import os\n"), _r("IN007"), base=_edit("proctor.toml", PY_M)),
    Variant(
        "sitecustomize-package-m",
        _edit("sitecustomize/__init__.py", "import builtins\n"),
        _r("IN007"),
        base=_edit("proctor.toml", PY_M),
    ),
    Variant(
        "usercustomize-m",
        _edit("usercustomize.py", "import os\n"),
        _r("IN007"),
        base=_edit("proctor.toml", PY_M),
    ),
    Variant(
        "numpy-package-m",
        _edit("numpy/__init__.py", "def array(x):\n    return x\n"),
        _r("IN007"),
        base=_edit("proctor.toml", PY_M),
    ),
    Variant(
        "nested-conftest-pytest",
        _edit("kapso_tests/conftest.py", "def pytest_configure(config):\n    pass\n"),
        _r("IN007"),
        base=_edit("proctor.toml", 'command = "python -m pytest"\n'),
    ),
    # ------------------------------------------------------------------ IN008 git-level
    Variant(
        "gitattributes-in-suite-subdir",
        _edit("kapso_evaluation/lib/.gitattributes", "*.txt filter=x\n"),
        _r("IN008"),
        base=_edit("kapso_evaluation/lib/weights.txt", "0.5\n"),
    ),
    Variant(
        "gitattributes-nested-eol",
        _edit("kapso_evaluation/lib/.gitattributes", "weights.txt text eol=crlf\n"),
        _r("IN008"),
        base=_edit("kapso_evaluation/lib/weights.txt", "0.5\n"),
    ),
    Variant(
        "gitattributes-in-suite-ident", _edit("kapso_evaluation/.gitattributes", "*.py ident\n"), _r("IN008")
    ),
    Variant("gitattributes-text-on-suite", _edit(".gitattributes", "*.py text eol=crlf\n"), _r("IN008")),
    Variant("case-collision-file", _edit("kapso_evaluation/L\u00c9GENDE.txt", "1\n"), _r("IN008")),
    # IN008 is computed from the protected files' content: only attributes that change their bytes count.
    Variant("honest-text-auto-eol-lf", _edit(".gitattributes", "* text=auto eol=lf\n")),
    Variant(
        "honest-diff-merge-linguist",
        _edit(
            ".gitattributes",
            "kapso_evaluation/** diff=python merge=union linguist-generated export-ignore\n"
            "kapso_datasets/** linguist-vendored -diff\n",
        ),
    ),
    Variant("honest-text-alone", _edit("kapso_evaluation/.gitattributes", "*.py text\n*.txt text\n")),
    Variant(
        "honest-auto-crlf-on-binary-data",
        _edit(".gitattributes", "kapso_datasets/*.bin text=auto eol=crlf\n"),
        base=_edit("kapso_datasets/weights.bin", b"\x00\x01\n\x02\n"),
    ),
    Variant(
        "honest-baseline-filter-kept",
        _edit(".gitattributes", "*.csv filter=lfs diff=lfs merge=lfs -text\n*.md text\n"),
        base=_edit(".gitattributes", "*.csv filter=lfs diff=lfs merge=lfs -text\n"),
    ),
    Variant("auto-crlf-on-data", _edit(".gitattributes", "*.csv text=auto eol=crlf\n"), _r("IN008")),
    Variant("legacy-crlf-eol", _edit(".gitattributes", "*.py crlf eol=crlf\n"), _r("IN008")),
    Variant(
        "eol-crlf-without-text",
        _edit("kapso_evaluation/.gitattributes", "metrics.py eol=crlf\n"),
        _r("IN008"),
    ),
    Variant("filter-on-the-brief", _edit(".gitattributes", "brief.md filter=lfs\n"), _r("IN008")),
    Variant(
        "binary-then-text-crlf",
        _edit(".gitattributes", "*.py binary\n*.py text eol=crlf\n"),
        _r("IN008"),
    ),
    # ------------------------------------------------------------------ more structural variants
    Variant("suite-deleted", lambda root: shutil.rmtree(root / "kapso_evaluation"), _r("IN002")),
    Variant("suite-becomes-symlink", _suite_symlink, _r("IN003")),
    Variant("pth-upper-m", _edit("EVIL.PTH", "import os\n"), _r("IN007"), base=_edit("proctor.toml", PY_M)),
    Variant(
        "pythonpath-sitecustomize",
        _edit("lib/sitecustomize.py", "import os\n"),
        _r("IN007"),
        base=_edit("proctor.toml", 'command = "PYTHONPATH=lib python kapso_evaluation/evaluate.py"\n'),
    ),
    Variant(
        "protected-dir-new-file",
        _edit("scripts/extra.txt", "seed 3\n"),
        _r("IN010"),
        base=_both(
            _edit("proctor.toml", 'protected_paths = ["scripts"]\n'), _edit("scripts/split.txt", "seed 1\n")
        ),
    ),
    Variant(
        "pyproject-pytest-addopts",
        _edit("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-k nothing"\n'),
        _r("IN007"),
        base=_both(
            _edit("proctor.toml", 'command = "python -m pytest kapso_evaluation"\n'),
            _edit("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-q"\n'),
        ),
    ),
    # ------------------------------------------------------------------ honest candidates
    Variant("honest-suite-readme", _edit("kapso_evaluation/README.md", "# Notes\n")),
    Variant(
        "honest-suite-artifacts",
        _both(
            _edit("kapso_evaluation/out/summary.json", '{"auc": 0.5}\n'),
            _edit("kapso_evaluation/out/preds.parquet", b"PAR1\x00\x00PAR1"),
            _edit("kapso_evaluation/run.log", "done\n"),
        ),
    ),
    Variant(
        "honest-solution-dir",
        _both(
            _edit("solution/__init__.py", "from .model import predict\n"),
            _edit("solution/model.py", "def predict(i):\n    return i % 2\n"),
        ),
        base=_both(_delete("solution.py"), _edit("solution/__init__.py", "def predict(i):\n    return 1\n")),
    ),
    Variant(
        "honest-tests-conftest",
        _both(
            _edit("tests/conftest.py", "import pytest\n"),
            _edit("tests/test_model.py", "def test_x():\n    assert True\n"),
        ),
        flags=_r("IN011"),
    ),
    Variant("honest-binary-artifact", _edit("kapso_evaluation/model.bin", _binary_artifact())),
    Variant(
        "honest-unreachable-hook-package",
        _edit("tools/sitecustomize/__init__.py", "import os\n"),
        flags=_r("IN011"),
    ),
    Variant("honest-root-pycache", _edit("__pycache__/solution.cpython-311.pyc", b"\xa7\r\r\n\x00")),
    Variant("honest-unprotected-data", _edit("data/extra/train.csv", "a,b\n1,2\n")),
    Variant("honest-readme-edit", _edit("README.md", "# Churn\n\nNow with a model.\n")),
]


@dataclass(frozen=True)
class Built:
    variant: Variant
    repo: Path
    base: str
    cand: str
    base_dir: Path
    cand_dir: Path
    config: Config


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    result = {}
    for variant in VARIANTS:
        root = tmp_path_factory.mktemp(variant.name)
        repo = init_repo(root / "repo")
        write(repo, BASE)
        if variant.base:
            variant.base(repo)
        base = commit_all(repo, "baseline")
        variant.mutate(repo)
        cand = commit_all(repo, "candidate")
        base_dir, cand_dir = root / "baseline", root / "candidate"
        materialize(repo, base, base_dir)
        materialize(repo, cand, cand_dir)
        result[variant.name] = Built(
            variant, repo, base, cand, base_dir, cand_dir, load_config(base_dir).config
        )
    return result


def _codes(report: GuardReport, severity: str) -> set[str]:
    return {f.code for f in report.findings if f.severity == severity}


def _check(variant: Variant, report: GuardReport) -> None:
    details = "\n".join(f"{f.code} {f.severity} {f.path}: {f.detail}" for f in report.findings)
    if variant.attack:
        assert report.verdict == "rejected", details
        assert variant.rejects <= _codes(report, "reject"), details
    else:
        assert report.verdict == "accepted", details
        assert not _codes(report, "reject"), details
        assert _codes(report, "flag") == set(variant.flags), details
    assert variant.flags <= _codes(report, "flag"), details


@pytest.mark.parametrize("name", [v.name for v in VARIANTS])
def test_refs_verdict(name: str, built: dict[str, Built]) -> None:
    item = built[name]
    _check(item.variant, guard_refs(item.repo, item.base, item.cand, item.config))


@pytest.mark.parametrize("name", [v.name for v in VARIANTS])
def test_trees_verdict(name: str, built: dict[str, Built]) -> None:
    item = built[name]
    _check(item.variant, guard_trees(item.base_dir, item.cand_dir, item.config))


@pytest.mark.parametrize("name", ["hard-link-executable", "executable-new-subdir", "data-symlink"])
def test_working_tree_verdict(name: str, built: dict[str, Built]) -> None:
    """The candidate's own checkout (hard links, real modes and symlinks intact), not an archive copy."""
    item = built[name]
    _check(item.variant, guard_trees(item.base_dir, item.repo, item.config))


def test_working_tree_encoding_on_the_suite_is_in008_and_really_converts(tmp_path: Path) -> None:
    """A `.gitattributes` committed with plumbing (so `git add` never re-encodes the suite on the way in)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    base = commit_all(repo, "baseline")
    text = b"kapso_evaluation/*.py working-tree-encoding=UTF-16\n"
    blob = git(repo, "hash-object", "-w", "--no-filters", "--stdin", input=text).strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},.gitattributes")
    git(repo, "commit", "--quiet", "--no-verify", "-m", "candidate")
    cand = git(repo, "rev-parse", "HEAD").strip()
    # Proved without Proctor: a checkout of the candidate writes the suite's sources as UTF-16.
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "--quiet", "--no-hardlinks", str(repo), str(checkout))
    assert (checkout / "kapso_evaluation/metrics.py").read_bytes()[:2] in (b"\xff\xfe", b"\xfe\xff")
    report = guard_refs(repo, base, cand, Config())
    assert report.verdict == "rejected"
    (finding,) = [f for f in report.findings if f.code == "IN008"]
    assert finding.path == ".gitattributes" and "re-encodes to UTF-16" in finding.detail
    base_dir, cand_dir = tmp_path / "b", tmp_path / "c"
    materialize(repo, base, base_dir)
    materialize(repo, cand, cand_dir)
    assert (cand_dir / "kapso_evaluation/metrics.py").read_text("utf-8") == BASE[
        "kapso_evaluation/metrics.py"
    ]
    assert guard_trees(base_dir, cand_dir, Config()).findings == report.findings
