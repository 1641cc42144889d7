"""The integrity findings IN001–IN011 as rules of the one table: `proctor rule`, docs/rules.md, guard URLs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest

from core.cli import main
from core.diagnostics import rule_url
from core.integrity import findings
from core.integrity.checks import CHECK_MODULES, rule_title
from core.rules.registry import RULES
from tests.core.integrity.cases import BASE, CASES
from tests.core.integrity.helpers import commit_all, init_repo, write

REPO = Path(__file__).resolve().parents[3]
IN_CODES = [f"IN{n:03d}" for n in range(1, 12)]
HEADINGS = (
    "## What it does",
    "## Why is this bad?",
    "## Example",
    "Use instead:",
    "## What a reviewer should do",
    "## References",
)
NAMES = {
    "IN001": "protected-file-changed",
    "IN002": "protected-file-deleted",
    "IN003": "protected-path-type-changed",
    "IN004": "executable-bit-changed",
    "IN005": "new-source-in-suite",
    "IN006": "stale-result-json-at-launch",
    "IN007": "interpreter-hook",
    "IN008": "git-level-attack",
    "IN009": "changed-during-run",
    "IN010": "protected-input-changed",
    "IN011": "runtime-scoring-patch",
}


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("code", IN_CODES)
def test_proctor_rule_prints_the_integrity_doc(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    exit_code, out, err = _cli(capsys, "rule", code.lower())
    assert exit_code == 0, err
    severity = "flag" if code == "IN011" else "reject"
    assert out.startswith(f"# {code} {NAMES[code]} ({severity}, no autofix)\n\n## What it does\n")
    positions = [out.find(heading) for heading in HEADINGS]
    assert all(p >= 0 for p in positions), [h for h, p in zip(HEADINGS, positions, strict=True) if p < 0]
    assert positions == sorted(positions), f"{code}: headings out of order"
    bad, good = out[positions[2] : positions[3]], out[positions[3] : positions[4]]
    assert bad.count("```") >= 2 and good.count("```") >= 2, f"{code}: a bad and a good example"


def test_rule_all_lists_every_family_with_the_integrity_rules(capsys: pytest.CaptureFixture[str]) -> None:
    exit_code, out, _err = _cli(capsys, "rule", "--all", "--format", "json")
    assert exit_code == 0
    rules = {r["code"]: r for r in json.loads(out)}
    assert {code[:2] for code in rules} == {"EV", "BR", "CF", "IN"}
    assert list(rules) == sorted(rules)
    for code in IN_CODES:
        rule = rules[code]
        assert rule["name"] == NAMES[code]
        assert rule["severity"] == ("flag" if code == "IN011" else "reject")
        assert rule["fix"] is None and rule["fix_safety"] is None
        assert rule["url"] == rule_url(code) and rule["url"].endswith(f"#{code.lower()}")
        assert "## What a reviewer should do" in rule["doc"]
    exit_code, out, _err = _cli(capsys, "rule", "--all")
    assert exit_code == 0 and "IN005  new-source-in-suite" in out and "IN011  runtime-scoring-patch" in out


def test_titles_and_severities_come_from_the_check_modules() -> None:
    assert [m.CODE for m in CHECK_MODULES] == IN_CODES
    assert all(rule_title(m.CODE) == m.TITLE != "" for m in CHECK_MODULES)
    assert rule_title("EV001") == ""
    assert {str(m.SEVERITY) for m in CHECK_MODULES} == set(get_args(findings.Severity))
    for case in CASES:  # what the guard is known to report agrees with the table
        assert all(str(RULES[code].severity) == "reject" for code in case.rejects), case.name
        assert all(str(RULES[code].severity) == "flag" for code in case.flags), case.name


def test_guard_json_findings_link_to_their_rule_doc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init_repo(tmp_path / "ws")
    write(repo, BASE)
    commit_all(repo, "base")
    evaluate = repo / "kapso_evaluation" / "evaluate.py"
    evaluate.write_text(evaluate.read_text(encoding="utf-8") + "# tuned\n", encoding="utf-8")
    (repo / "kapso_evaluation" / "config.yaml").unlink()
    commit_all(repo, "candidate edits the suite")
    exit_code, out, _err = _cli(
        capsys,
        "guard",
        "--baseline",
        "main~1",
        "--candidate",
        "main",
        "--repo",
        str(repo),
        "--format",
        "json",
    )
    assert exit_code == 1
    found = json.loads(out)["findings"]
    assert {f["code"] for f in found} == {"IN001", "IN002"}
    docs = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    for finding in found:
        assert set(finding) == {"code", "severity", "path", "detail", "url"}
        assert finding["url"] == rule_url(finding["code"])
        assert f"\n## {finding['code']}\n" in docs  # the anchor the URL points at


def test_check_refuses_to_select_integrity_rules(capsys: pytest.CaptureFixture[str]) -> None:
    exit_code, out, err = _cli(capsys, "check", "--select", "IN001")
    assert exit_code == 2 and out == ""
    assert err == (
        "proctor: error: --select: 'IN001' names integrity rules, which `proctor guard` reports on a "
        "candidate's change, not `proctor check`\n"
    )
