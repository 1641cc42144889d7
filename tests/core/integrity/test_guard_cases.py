"""The guard on a corpus of attacks and honest candidates (SPEC §4.2), in both modes, beside Kapso 0.7.10.

Each case is a real repository (baseline commit, candidate commit). `guard_refs` reads git objects,
`guard_trees` compares the two materialized trees; they must agree. Kapso's own check
(`verify_evaluation_tree` + `verify_data_manifest`) runs on the candidate's checkout, and the table of what it
misses is written to docs/kapso-comparison.md, which must equal the committed file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from core.config import Config, load_config
from core.integrity.guard import GuardReport, guard_refs, guard_trees, rehash_findings
from core.integrity.manifest import snapshot
from core.integrity.materialize import materialize, overlay_trusted_suite
from tests.core.integrity.cases import BASE, CASES, Case
from tests.core.integrity.helpers import KAPSO_INTEGRITY, commit_all, init_repo, need, write

DOC = Path(__file__).resolve().parents[3] / "docs" / "kapso-comparison.md"
README = DOC.parents[1] / "README.md"
README_START, README_END = "<!-- kapso-comparison:start -->\n", "<!-- kapso-comparison:end -->"


@dataclass(frozen=True)
class Built:
    case: Case
    repo: Path
    base: str
    cand: str
    base_dir: Path
    cand_dir: Path
    config: Config


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    result = {}
    for case in CASES:
        root = tmp_path_factory.mktemp(case.name)
        repo = init_repo(root / "repo")
        write(repo, BASE)
        if case.base:
            case.base(repo)
        base = commit_all(repo, "baseline")
        case.mutate(repo)
        write(repo, case.extra_files)
        cand = commit_all(repo, "candidate")
        base_dir, cand_dir = root / "baseline", root / "candidate"
        materialize(repo, base, base_dir)
        materialize(repo, cand, cand_dir)
        result[case.name] = Built(case, repo, base, cand, base_dir, cand_dir, load_config(base_dir).config)
    return result


def _codes(report: GuardReport, severity: str) -> set[str]:
    return {f.code for f in report.findings if f.severity == severity}


def _signature(report: GuardReport) -> tuple[str, set[tuple[str, str, str]]]:
    return report.verdict, {(f.code, f.severity, f.path) for f in report.findings}


@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_verdict(name: str, built: dict[str, Built]) -> None:
    item = built[name]
    report = guard_refs(item.repo, item.base, item.cand, item.config)
    details = "\n".join(f"{f.code} {f.severity} {f.path}: {f.detail}" for f in report.findings)
    if item.case.attack:
        assert report.verdict == "rejected", details
        assert item.case.rejects <= _codes(report, "reject"), details
    else:
        assert report.verdict == "accepted", details
        assert not _codes(report, "reject"), details
    assert item.case.flags <= _codes(report, "flag"), details
    if not item.case.flags and not item.case.attack:
        assert not report.findings, details  # an honest candidate gets no noise either


@pytest.mark.parametrize("name", [c.name for c in CASES])
def test_refs_and_trees_agree(name: str, built: dict[str, Built]) -> None:
    item = built[name]
    by_refs = guard_refs(item.repo, item.base, item.cand, item.config)
    by_trees = guard_trees(item.base_dir, item.cand_dir, item.config)
    # Materialized from objects, the trees hold exactly the committed bytes: both modes see the same thing.
    assert _signature(by_refs) == _signature(by_trees)
    assert (
        by_refs.evaluator_id
        == by_trees.evaluator_id
        == snapshot(item.base_dir / "kapso_evaluation").evaluator_id
    )


def test_unchanged_candidate_is_accepted_in_both_modes(built: dict[str, Built]) -> None:
    item = built["content-changed"]
    assert guard_refs(item.repo, item.base, item.base, item.config).findings == ()
    assert guard_trees(item.base_dir, item.base_dir, item.config).verdict == "accepted"


def test_guard_json_shape(built: dict[str, Built]) -> None:
    report = guard_refs(built["exec-bit"].repo, built["exec-bit"].base, built["exec-bit"].cand, Config())
    data = report.to_json()
    assert list(data) == ["schema", "verdict", "evaluator_id", "findings"]
    assert data["schema"] == 1 and data["verdict"] == "rejected"
    assert data["findings"] == [
        {
            "code": "IN004",
            "severity": "reject",
            "path": "kapso_evaluation/metrics.py",
            "detail": "the executable bit was set on a protected file",
            "url": "https://github.com/proctor-dev/proctor/blob/main/docs/rules.md#in004",
        }
    ]


# ----------------------------------------------------------------------------- Kapso side by side


def _kapso_catches(kapso: ModuleType, base_dir: Path, cand_dir: Path) -> bool:
    """Kapso 0.7.10's enforce_evaluation_integrity: the suite manifest check plus the data manifest check."""
    manifest = kapso.build_evaluation_manifest(base_dir / "kapso_evaluation")
    data_manifest = kapso.build_data_manifest(base_dir, ["kapso_datasets"])
    report = kapso.verify_evaluation_tree(cand_dir / "kapso_evaluation", manifest)
    return not report.valid or bool(kapso.verify_data_manifest(cand_dir, data_manifest))


def _runtime_rewrite(tmp: Path) -> tuple[bool, bool]:
    """A candidate that rewrites the suite while the evaluator runs: (Proctor caught it, Kapso caught it)."""
    kapso = need(KAPSO_INTEGRITY, "kapso.execution.evaluation_integrity")
    repo = init_repo(tmp / "runtime")
    write(repo, BASE)
    base = commit_all(repo, "baseline")
    write(
        repo,
        {"solution.py": "from pathlib import Path\nPath('kapso_evaluation/metrics.py').write_text('x')\n"},
    )
    cand = commit_all(repo, "candidate")
    base_dir, cand_dir = tmp / "rt-base", tmp / "rt-cand"
    materialize(repo, base, base_dir)
    materialize(repo, cand, cand_dir)
    before_run = guard_refs(repo, base, cand, Config())
    kapso_caught = _kapso_catches(kapso, base_dir, cand_dir)
    overlay_trusted_suite(base_dir, cand_dir, Config())
    before = snapshot(base_dir / "kapso_evaluation")
    subprocess.run([sys.executable, "solution.py"], cwd=cand_dir, check=True)
    during = rehash_findings(before, cand_dir / "kapso_evaluation", Config())
    assert before_run.verdict == "accepted"  # nothing in the commit itself is wrong
    return any(f.code == "IN009" for f in during), kapso_caught


def _render(rows: list[tuple[Case, GuardReport, bool]], runtime: tuple[bool, bool]) -> str:
    attacks = [row for row in rows if row[0].attack]
    honest = [row for row in rows if not row[0].attack]
    missed = [row for row in attacks if not row[2]]
    lines = [
        "# What Proctor catches that Kapso misses",
        "",
        "<!-- Generated by tests/core/integrity/test_guard_cases.py from a test run; do not edit by hand. -->",
        "",
        "Each row is a real candidate commit against a small Kapso workspace (`tests/core/integrity/cases.py`).",
        "**Proctor** is `proctor guard` (the same verdict from git objects and from materialized trees).",
        "**Kapso 0.7.10** is what its `enforce_evaluation_integrity` runs: `verify_evaluation_tree` on the",
        "candidate's `kapso_evaluation/` and `verify_data_manifest` on `kapso_datasets/`.",
        "Rows marked ★ are the routes named in the integrity issue.",
        "",
        "## Tampering attempts",
        "",
        "| case | what the candidate does | Proctor | Kapso 0.7.10 |",
        "| --- | --- | --- | --- |",
    ]
    for case, report, kapso in attacks:
        codes = ", ".join(sorted(_codes(report, "reject")))
        star = " ★" if case.issue else ""
        kapso_cell = "rejected" if kapso else "**missed**"
        lines.append(f"| `{case.name}`{star} | {case.description} | rejected ({codes}) | {kapso_cell} |")
    proctor_rt = "rejected (IN009)" if runtime[0] else "**missed**"
    kapso_rt = "rejected" if runtime[1] else "**missed**"
    lines.append(
        f"| `runtime-rewrite` ★ | rewrites `kapso_evaluation/metrics.py` while the evaluator runs | {proctor_rt} | {kapso_rt} |"
    )
    lines += [
        "",
        "## Honest candidates",
        "",
        "| case | what the candidate does | Proctor | Kapso 0.7.10 |",
        "| --- | --- | --- | --- |",
    ]
    for case, report, kapso in honest:
        flags = ", ".join(sorted(_codes(report, "flag")))
        proctor = f"accepted, flagged ({flags})" if flags else "accepted"
        lines.append(
            f"| `{case.name}` | {case.description} | {proctor} | {'rejected' if kapso else 'accepted'} |"
        )
    total = len(attacks) + 1
    kapso_total = sum(1 for row in attacks if row[2]) + int(runtime[1])
    lines += [
        "",
        f"Proctor rejects {total} of {total} tampering attempts and accepts all {len(honest)} honest candidates; "
        f"Kapso 0.7.10 rejects {kapso_total} of {total}.",
        "Kapso misses: "
        + ", ".join(f"`{row[0].name}`" for row in missed)
        + (", `runtime-rewrite`" if not runtime[1] else "")
        + ".",
        "",
    ]
    return "\n".join(lines)


def test_kapso_comparison_table_is_current(
    built: dict[str, Built], kapso: ModuleType, tmp_path: Path
) -> None:
    rows = []
    for case in CASES:
        item = built[case.name]
        report = guard_refs(item.repo, item.base, item.cand, item.config)
        assert (report.verdict == "rejected") == case.attack, case.name
        rows.append((case, report, _kapso_catches(kapso, item.base_dir, item.repo)))
    for case, _report, kapso_caught in rows:
        if not case.attack:
            assert not kapso_caught, f"Kapso rejected the honest case {case.name}"
    runtime = _runtime_rewrite(tmp_path)
    assert runtime[0], "IN009 did not catch the run-time rewrite"
    issue_rows = [row for row in rows if row[0].issue]
    assert issue_rows and not any(kapso for _, _, kapso in issue_rows), (
        "the issue's routes are all Kapso misses"
    )
    text = _render(rows, runtime)
    current = DOC.read_text("utf-8") if DOC.is_file() else ""
    readme = README.read_text("utf-8")
    wanted_readme = _with_readme_section(readme, text)
    if current != text or readme != wanted_readme:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(text, "utf-8")
        README.write_text(wanted_readme, "utf-8")
        pytest.fail(f"{DOC} or README.md was stale and has been regenerated from this run; review and commit")


def _with_readme_section(readme: str, table: str) -> str:
    """README.md with the generated tables (headings one level down) between its markers."""
    start, end = readme.index(README_START) + len(README_START), readme.index(README_END)
    body = table[table.index("## Tampering attempts") :].replace("\n## ", "\n#### ")
    return readme[:start] + body.replace("## Tampering", "#### Tampering", 1) + readme[end:]


def test_planted_unchecked_pyc_really_replaces_the_module(built: dict[str, Built], tmp_path: Path) -> None:
    """The unchecked-hash .pyc in __pycache__ is imported instead of metrics.py: the attack changes the score."""
    cand = built["unchecked-pyc"].cand_dir / "kapso_evaluation"
    code = "import metrics, numpy as np; print(metrics.accuracy(np.array([1, 0]), np.array([0, 1])))"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    planted = subprocess.run([sys.executable, "-c", code], cwd=cand, env=env, capture_output=True, text=True)
    assert planted.stdout.strip() == "1.0", planted.stderr
    copy = tmp_path / "overlaid"
    materialize(built["unchecked-pyc"].repo, built["unchecked-pyc"].cand, copy)
    overlay_trusted_suite(built["unchecked-pyc"].base_dir, copy, Config())  # deletes __pycache__
    honest = subprocess.run(
        [sys.executable, "-c", code], cwd=copy / "kapso_evaluation", env=env, capture_output=True, text=True
    )
    assert honest.stdout.strip() == "0.0", honest.stderr
