"""`proctor init` (SPEC §3.4): the evaluator written from the brief passes check and verify."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import main

PREDICT = """\
import argparse
import csv

parser = argparse.ArgumentParser()
parser.add_argument("--train")
parser.add_argument("--test")
parser.add_argument("--out")
args = parser.parse_args()
with open(args.test, newline="") as handle:
    rows = list(csv.DictReader(handle))
with open(args.out, "w", newline="") as handle:
    handle.write("prediction\\n")
    for row in rows:
        handle.write(f"{float(row['x']) > 0.5:d}\\n" if {binary} else f"{2 * float(row['x']):.6f}\\n")
"""


def make_workspace(root: Path, brief: str, *, binary: bool = True) -> Path:
    rng = random.Random(3)
    (root / "kapso_datasets").mkdir(parents=True)
    lines = ["id,x,y"]
    for i in range(300):
        x = rng.random()
        y = int(x + rng.gauss(0, 0.2) > 0.5) if binary else 2 * x + rng.gauss(0, 0.1)
        lines.append(f"{i},{x:.5f},{y}")
    (root / "kapso_datasets" / "points.csv").write_text("\n".join(lines) + "\n")
    (root / "solution").mkdir()
    (root / "solution" / "predict.py").write_text(PREDICT.replace("{binary}", str(binary)))
    (root / "proctor.toml").write_text('entry_point = "solution/predict.py"\ntimeout_s = 60\n')
    (root / "brief.md").write_text(brief)
    return root


HOLD_OUT = (
    "# Goal\nClassify points: accuracy above 0.8.\n\n"
    "Measured by accuracy (higher is better) on `kapso_datasets/points.csv`, a 70/30 split with seed 5, "
    "printed as `accuracy: <value>`.\n"
)


def test_init_writes_an_evaluator_that_passes_check_and_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", HOLD_OUT)
    assert main(["init", str(ws)]) == 0
    assert "label column: `y`" in capsys.readouterr().out
    evaluator = ws / "kapso_evaluation" / "evaluate.py"
    assert "SEED = 5" in evaluator.read_text()
    assert main(["check", str(ws), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [d for d in report["diagnostics"] if d["severity"] == "error"] == []
    assert main(["verify", str(ws), "--format", "json"]) == 0
    verify = json.loads(capsys.readouterr().out)
    assert verify["verdict"] == "pass"
    assert verify["metric"]["name"] == "accuracy"
    assert {c["id"]: c["status"] for c in verify["clauses"]}["fails-loudly"] == "pass"


def test_k_fold_regression_metric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    brief = (
        "Measured by RMSE (lower is better) on kapso_datasets/points.csv with 5-fold cross-validation, "
        "seed=11, printed as `rmse: <value>`.\n"
    )
    ws = make_workspace(tmp_path / "ws", brief, binary=False)
    assert main(["init", str(ws), "--label", "y"]) == 0
    text = (ws / "kapso_evaluation" / "evaluate.py").read_text()
    assert "FOLDS = 5" in text
    assert "DIRECTION = 'minimize'" in text
    capsys.readouterr()
    assert main(["verify", str(ws), "--format", "json"]) == 0
    verify = json.loads(capsys.readouterr().out)
    assert verify["metric"]["name"] == "rmse"
    assert 0 < verify["metric"]["value"] < 0.5


def test_incomplete_protocol_prints_the_brief_findings_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", "Measured by accuracy on kapso_datasets/points.csv.\n")
    assert main(["init", str(ws)]) == 1
    err = capsys.readouterr().err
    assert "BR003" in err and "BR004" in err
    assert "does not state: split, seed" in err
    assert not (ws / "kapso_evaluation").exists()


def test_existing_evaluator_needs_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_workspace(tmp_path / "ws", HOLD_OUT)
    (ws / "kapso_evaluation").mkdir()
    (ws / "kapso_evaluation" / "evaluate.py").write_text("# mine\n")
    assert main(["init", str(ws)]) == 2
    assert "already exists (use --force" in capsys.readouterr().err
    assert (ws / "kapso_evaluation" / "evaluate.py").read_text() == "# mine\n"
    assert main(["init", str(ws), "--force"]) == 0


def test_unsupported_metric_and_missing_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    brief = HOLD_OUT.replace("accuracy (higher", "BLEU (higher").replace("`accuracy:", "`bleu:")
    ws = make_workspace(tmp_path / "ws", brief)
    assert main(["init", str(ws)]) == 2
    assert "cannot write an evaluator for metric 'BLEU'" in capsys.readouterr().err
    shutil.rmtree(ws)
    assert main(["init", str(ws)]) == 2
    assert "no such workspace" in capsys.readouterr().err


def test_a_label_that_is_not_a_column_is_an_error_naming_the_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", HOLD_OUT)
    assert main(["init", str(ws), "--label", "target"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "no column 'target' for --label; the columns are: id, x, y" in err
    assert not (ws / "kapso_evaluation" / "evaluate.py").exists()


def test_a_backticked_data_path_with_spaces_is_kept_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", HOLD_OUT.replace("points.csv", "my points.csv"))
    (ws / "kapso_datasets" / "points.csv").rename(ws / "kapso_datasets" / "my points.csv")
    assert main(["init", str(ws)]) == 0
    assert (
        "DATA = ROOT / 'kapso_datasets/my points.csv'"
        in (ws / "kapso_evaluation" / "evaluate.py").read_text()
    )
    capsys.readouterr()
    assert main(["check", str(ws), "--format", "json"]) == 0, capsys.readouterr().out


def test_init_records_the_entry_point_in_proctor_toml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", HOLD_OUT)
    (ws / "proctor.toml").write_text("timeout_s = 60\n\n[campaign]\niterations = 2\n")
    assert main(["init", str(ws)]) == 0
    assert "entry_point = 'solution/predict.py' written to proctor.toml" in capsys.readouterr().out
    toml = (ws / "proctor.toml").read_text()
    assert toml == 'timeout_s = 60\nentry_point = "solution/predict.py"\n\n[campaign]\niterations = 2\n'
    assert main(["verify", str(ws), "--format", "json"]) == 0
    clauses = {c["id"]: c["status"] for c in json.loads(capsys.readouterr().out)["clauses"]}
    assert clauses["fails-loudly"] == "pass"  # every clause runs on the first verify


def test_init_without_a_config_creates_proctor_toml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", HOLD_OUT)
    (ws / "proctor.toml").unlink()
    assert main(["init", str(ws)]) == 0
    assert (ws / "proctor.toml").read_text() == 'entry_point = "solution/predict.py"\n'


def test_with_a_holdout_dir_the_evaluator_reads_the_labels_from_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = make_workspace(tmp_path / "ws", HOLD_OUT)
    holdout = tmp_path / "holdout"
    holdout.mkdir()
    (ws / "kapso_datasets" / "points.csv").rename(holdout / "points.csv")
    (ws / "proctor.toml").write_text(f'entry_point = "solution/predict.py"\nholdout_dir = "{holdout}"\n')
    assert main(["init", str(ws)]) == 0
    assert "$PROCTOR_HOLDOUT_DIR/points.csv" in capsys.readouterr().out
    evaluator = ws / "kapso_evaluation" / "evaluate.py"
    assert "HOLDOUT_FILE = 'points.csv'" in evaluator.read_text()
    monkeypatch.delenv("PROCTOR_HOLDOUT_DIR", raising=False)
    bare = subprocess.run(
        [sys.executable, str(evaluator)], cwd=ws, capture_output=True, text=True, check=False
    )
    assert bare.returncode == 1 and "PROCTOR_HOLDOUT_DIR is not set" in bare.stderr
    env = {**os.environ, "PROCTOR_HOLDOUT_DIR": str(holdout)}
    done = subprocess.run(
        [sys.executable, str(evaluator), "--fast"],
        cwd=ws,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("accuracy: ")


FIXED = (
    "# Goal\nClassify points: accuracy above 0.8.\n\n"
    "Measured by accuracy (higher is better) on `kapso_datasets/train.csv`, scored on the fixed test file "
    "`kapso_datasets/test.csv`, printed as `accuracy: <value>`.\n"
)


def test_a_fixed_split_needs_no_seed_and_scores_the_named_test_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", FIXED)
    lines = (ws / "kapso_datasets" / "points.csv").read_text().splitlines()
    (ws / "kapso_datasets" / "train.csv").write_text("\n".join(lines[:201]) + "\n")
    (ws / "kapso_datasets" / "test.csv").write_text("\n".join(lines[:1] + lines[201:]) + "\n")
    assert main(["init", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "fixed split: the test rows are kapso_datasets/test.csv" in out
    text = (ws / "kapso_evaluation" / "evaluate.py").read_text()
    assert "SEED = None" in text and "FIXED_SPLIT = True" in text  # no seed invented
    assert "TRAIN_DATA = 'kapso_datasets/train.csv'" in text
    assert main(["check", str(ws), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [d for d in report["diagnostics"] if d["severity"] == "error"] == []
    assert main(["verify", str(ws), "--format", "json"]) == 0
    verify = json.loads(capsys.readouterr().out)
    assert verify["verdict"] == "pass"
    # Scored on exactly the 100 rows of test.csv: recompute the accuracy the candidate gets there.
    rows = [line.split(",") for line in lines[201:]]
    expected = sum(int(float(x) > 0.5) == int(y) for _, x, y in rows) / len(rows)
    assert verify["metric"]["value"] == pytest.approx(round(expected, 4))


def test_a_fixed_split_that_names_no_file_is_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    brief = FIXED.replace(
        ", scored on the fixed test file `kapso_datasets/test.csv`", " on the official dev set"
    )
    ws = make_workspace(tmp_path / "ws", brief)
    assert main(["init", str(ws)]) == 1
    err = capsys.readouterr().err
    assert "does not state: the file that holds the test rows of the fixed split" in err
    assert "seed" not in err
    assert not (ws / "kapso_evaluation").exists()
