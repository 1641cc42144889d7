"""Which print is the metric (config, brief, known metric name, not a count), what EV003 reports after it, and
the EV005 writer that stores the value the metric print shows: run for real, it records the printed number."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.config import Config
from core.diagnostics import Diagnostic
from core.fixes import apply_edits
from core.rules.base import DocumentKind, LintContext
from core.rules.evaluator import lint

ENTRY = "kapso_evaluation/evaluate.py"


def run(text: str, config: Config | None = None, files: dict[str, str] | None = None) -> list[Diagnostic]:
    ctx = LintContext(config=config or Config(), read_file=(files or {}).get)
    return lint(ENTRY, text, DocumentKind.EVALUATOR, ctx)


def test_prints_after_the_known_metric_are_ev003_with_the_metric_print_related() -> None:
    text = 'acc = 0.9\nprint(f"accuracy: {acc:.4f}")\nprint("Samples: 500")\nprint(f"depth: {8}")\n'
    found = [d for d in run(text) if d.code == "EV003"]
    assert [d.range.start.line for d in found] == [2, 3]
    for diagnostic in found:
        (related,) = diagnostic.related
        assert related.range.start.line == 1 and related.message == "the metric line is printed here"
    assert "EV004" not in {d.code for d in run(text)}


def test_the_configured_metric_wins_over_a_later_known_metric() -> None:
    text = 'print(f"auc: {0.8:.4f}")\nprint(f"loss: {0.3:.4f}")\n'
    assert [d.range.start.line for d in run(text) if d.code == "EV003"] == []
    found = [d for d in run(text, Config(metric="auc")) if d.code == "EV003"]
    assert [d.range.start.line for d in found] == [1]


def test_the_brief_names_the_metric_when_the_config_does_not() -> None:
    brief = "# Goal\nAUC above 0.8.\n\nMeasured by AUC (higher is better) on data/x.csv, printed as `auc: <value>`.\n"
    text = 'print(f"auc: {0.8:.4f}")\nprint(f"accuracy: {0.7:.4f}")\n'
    found = [d for d in run(text, files={"brief.md": brief}) if d.code == "EV003"]
    assert [d.range.start.line for d in found] == [1]


def test_a_metric_name_with_a_space_is_ev004_with_the_reason() -> None:
    text = 'mrr = 0.4\nprint(f"MRR @10: {mrr:.4f}")\nprint("queries: 200")\n'
    (malformed,) = [d for d in run(text) if d.code == "EV004"]
    assert malformed.range.start.line == 1
    assert "the name 'MRR @10' is outside the grammar" in malformed.message
    assert [d.range.start.line for d in run(text) if d.code == "EV003"] == [2]


def _fixed(text: str) -> str:
    (writer,) = [d for d in run(text) if d.code == "EV005"]
    assert writer.fix is not None
    return apply_edits(text, writer.fix.edits)


@pytest.mark.parametrize(
    ("body", "line", "score"),
    [
        (
            '    acc = 2 / 3\n    print(f"accuracy: {acc:.4f}")\n    print("Samples: 3")\n',
            "accuracy: 0.6667",
            0.6667,
        ),
        ('    acc = 2 / 3\n    print("accuracy: %.3f" % acc)\n', "accuracy: 0.667", 0.667),
        ('    acc = 2 / 3\n    print("accuracy:", acc)\n', f"accuracy: {2 / 3}", 2 / 3),
        ('    acc = 2 / 3\n    print(f"accuracy: {acc:.1%}")\n', "accuracy: 66.7%", 0.667),
        (
            '    rmse = 1.5\n    print(\n        "rmse: "\n        f"{rmse:.2f}"\n    )\n',
            "rmse: 1.50",
            1.5,
        ),
    ],
)
def test_the_writer_records_the_printed_metric_when_run(
    tmp_path: Path, body: str, line: str, score: float
) -> None:
    text = f"import sys\n\n\ndef main():\n{body}\n\nmain()\n"
    fixed = _fixed(text)
    (tmp_path / "kapso_evaluation").mkdir()
    (tmp_path / ENTRY).write_text(fixed, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, ENTRY], cwd=tmp_path, capture_output=True, text=True, check=True, timeout=60
    )
    assert line in done.stdout.splitlines()
    result = json.loads((tmp_path / "kapso_evaluation" / "result.json").read_text(encoding="utf-8"))
    assert result["evaluation_output"] == line
    assert result["score"] == pytest.approx(score, rel=1e-9)
    assert "EV005" not in {d.code for d in run(fixed)}


@pytest.mark.parametrize(
    "text",
    [
        'print("Samples: 500")\n',  # a count: the metric is not identified
        'for acc in (0.1, 0.2):\n    print(f"accuracy: {acc:.4f}")\n',  # in a loop
        'print(f"accuracy: {compute():.4f}")\n',  # writing it would run compute() twice
        'acc = 0.5\nprint(f"accuracy: {acc:.4f} (n=50)")\n',  # not a bare number
    ],
)
def test_no_writer_is_offered_when_the_printed_value_cannot_be_stored_safely(text: str) -> None:
    found = [d for d in run(text) if d.code == "EV005"]
    assert found and all(d.fix is None for d in found)


def test_no_metric_line_points_at_the_last_print() -> None:
    text = 'import json\nauc = 0.8\nprint({"auc": auc})\n'
    (finding,) = [d for d in run(text) if d.code == "EV002"]
    assert finding.range.start.line == 2 and finding.range.start.character == 0
    assert finding.message.endswith("the last line printed here is not one")
    (silent,) = [d for d in run("auc = 0.8\n") if d.code == "EV002"]
    assert silent.range.start.line == 0


def test_a_long_url_in_a_message_is_cut_at_a_separator() -> None:
    url = "https://example.com/datasets/holdout/" + "labels_" * 12 + "final.csv"
    text = f'import pandas as pd\nframe = pd.read_csv("{url}")\n'
    (finding,) = [d for d in run(text) if d.code == "EV011"]
    shown = finding.message.rsplit(" (", 1)[1].rstrip(")")
    assert shown.endswith("…") and url.startswith(shown[:-1])
    assert url[len(shown) - 1] in "/_"  # cut at a separator, not inside a word
