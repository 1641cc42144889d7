"""SPEC §4.4: the registry in Kapso's format, atomic under kill -9, and scores that never cross versions."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from core.cli import main
from core.errors import RegistryError
from core.registry import (
    EvaluatorRef,
    Timing,
    head,
    load_registry,
    register,
    registry_path,
    require_same_version,
)
from tests.core.integrity.helpers import KAPSO_REGISTRY, need, write

SUITE = {"kapso_evaluation/evaluate.py": "print('auc: 0.5')\n", "kapso_datasets/train.csv": "a\n1\n"}


@pytest.fixture
def kapso_registry() -> ModuleType:
    return need(KAPSO_REGISTRY, "kapso.execution.evaluation_maintainer.registry")


def test_register_appends_versions_and_keeps_an_unchanged_head(tmp_path: Path) -> None:
    write(tmp_path, SUITE)
    suite = tmp_path / "kapso_evaluation"
    first = register(tmp_path, suite, "provided", "setup", data_paths=["kapso_datasets"])
    assert first.version == 1 and first.parent_evaluator is None
    assert first.data_manifest == {"kapso_datasets/train.csv": hashlib.sha256(b"a\n1\n").hexdigest()}
    assert register(tmp_path, suite, "provided", "again") == first  # unchanged suite: the head
    write(tmp_path, {"kapso_evaluation/evaluate.py": "print('auc: 0.6')\n"})
    second = register(tmp_path, suite, "maintainer_built", "fixed a bug")
    assert second.version == 2 and second.parent_evaluator == first.evaluator_id
    assert head(tmp_path) == second and [e.version for e in load_registry(tmp_path)] == [1, 2]
    write(tmp_path, SUITE)
    with pytest.raises(RegistryError, match="already registered as v1"):
        register(tmp_path, suite, "provided", "back to v1")
    with pytest.raises(RegistryError, match="provenance must be one of"):
        register(tmp_path, suite, "mine", "x")
    with pytest.raises(RegistryError, match="reason"):
        register(tmp_path, suite, "provided", "  ")


def test_file_is_kapsos_format_both_ways(tmp_path: Path, kapso_registry: ModuleType) -> None:
    write(tmp_path, SUITE)
    ours = register(
        tmp_path, tmp_path / "kapso_evaluation", "provided", "setup", data_paths=["kapso_datasets"]
    )
    text = registry_path(tmp_path).read_text()
    assert text.endswith("\n") and json.loads(text)[0] == ours.to_json()
    theirs = kapso_registry.EvaluationRegistry(str(tmp_path))
    (version,) = theirs.versions()
    assert version.to_dict() == ours.to_json()
    # Kapso appends a version with its own writer; we read it back unchanged.
    timing = kapso_registry.TimingModel(per_item_seconds=0.5, startup_seconds=1.0, total_items=10)
    theirs.register(
        kapso_registry.EvaluatorVersion(
            evaluator_id="f" * 64,
            version=2,
            provenance="derived_fast",
            parent_evaluator=ours.evaluator_id,
            fidelity_support={"fast_fraction": 0.15, "seed": 1337},
            timing=timing.with_sample(0.15, 2.5),
            created_at_iteration=3,
            reason="CR@iteration 3: fast mode",
        )
    )
    entries = load_registry(tmp_path)
    assert entries[1].to_json() == theirs.versions()[1].to_dict()
    assert entries[1].timing == Timing(0.5, 1.0, 10, [{"fraction": 0.15, "duration_seconds": 2.5}])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not valid JSON"),
        ("{}", "must be a JSON list"),
        (
            '[{"evaluator_id": "a", "version": 2, "provenance": "provided", "reason": "r",'
            ' "timing": {"total_items": 1}}]',
            "versions must run",
        ),
        ('[{"evaluator_id": "a", "version": 1, "provenance": "nope", "reason": "r"}]', "provenance"),
        (
            '[{"evaluator_id": "a", "version": 1, "provenance": "provided", "reason": "r", "timing": {"total_items": 0}}]',
            "total_items",
        ),
    ],
)
def test_malformed_registries_are_one_clear_error(
    tmp_path: Path, content: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    registry_path(tmp_path).parent.mkdir()
    registry_path(tmp_path).write_text(content)
    with pytest.raises(RegistryError, match=message):
        load_registry(tmp_path)
    assert main(["registry", "list", "--repo", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("proctor: error: ") and err.count("\n") == 1 and message in err


def test_scores_never_cross_a_version_boundary() -> None:
    v1 = EvaluatorRef(1, "a" * 64, "provided")
    v2 = EvaluatorRef(2, "b" * 64, "maintainer_built")
    require_same_version(v1, EvaluatorRef(1, "a" * 64, "provided"))
    with pytest.raises(RegistryError) as crossed:
        require_same_version(v1, v2)
    assert "v1 (aaaaaaaaaaaa, provided)" in str(crossed.value) and "v2 (bbbbbbbbbbbb" in str(crossed.value)


def test_registry_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, SUITE)
    repo = ["--repo", str(tmp_path)]
    assert main(["registry", "list", *repo]) == 0
    assert "no evaluator is registered" in capsys.readouterr().out
    assert main(["registry", "show", *repo]) == 2
    capsys.readouterr()
    assert main(["registry", "register", "--provenance", "provided", "--reason", "setup", *repo]) == 0
    assert capsys.readouterr().out.startswith("registered v1 (")
    assert main(["registry", "register", "--provenance", "provided", "--reason", "setup", *repo]) == 0
    assert capsys.readouterr().out.startswith("unchanged: the suite is already v1")
    assert main(["registry", "list", *repo, "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["schema"] == 1 and list(listed["versions"][0]["data_manifest"]) == [
        "kapso_datasets/train.csv"
    ]
    assert main(["registry", "show", "1", *repo, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["reason"] == "setup"
    assert main(["registry", "show", "7", *repo]) == 2
    assert "version 7 is not registered" in capsys.readouterr().err
    assert main(["registry", "register", "--provenance", "bogus", "--reason", "x", *repo]) == 2
    capsys.readouterr()
    write(tmp_path, {"kapso_evaluation/result.json": "{}"})
    assert main(["registry", "register", "--provenance", "provided", "--reason", "x", *repo]) == 2
    assert (
        "delete kapso_evaluation/result.json from the baseline commit and commit again"
        in capsys.readouterr().err
    )


CHILD = """
import sys
import time
from pathlib import Path
from core.cli import main
root = Path(sys.argv[1])
n = 0
while True:
    n += 1
    (root / "kapso_evaluation" / "evaluate.py").write_text(f"print('auc: {time.time_ns()}')\\n")
    if main(["registry", "register", "--provenance", "provided", "--reason", f"round {n}", "--repo", str(root)]):
        sys.exit(3)
"""


def test_kill_9_during_register_leaves_the_old_or_the_new_file(tmp_path: Path) -> None:
    write(tmp_path, SUITE)
    path = registry_path(tmp_path)
    rng = random.Random(4)
    seen_versions: list[int] = []
    for _ in range(8):
        count = len(load_registry(tmp_path))
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(tmp_path)],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        deadline = time.monotonic() + 120
        while len(load_registry(tmp_path)) <= count and time.monotonic() < deadline:  # it is registering now
            assert child.poll() is None, "the register loop stopped by itself"
            time.sleep(0.02)
        time.sleep(rng.random() * 0.3)
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert child.returncode == -signal.SIGKILL
        entries = load_registry(tmp_path)  # raises on a torn or invalid file
        json.loads(path.read_text())
        assert [e.version for e in entries] == list(range(1, len(entries) + 1))
        seen_versions.append(len(entries))
    assert seen_versions == sorted(seen_versions) and seen_versions[-1] > 0
