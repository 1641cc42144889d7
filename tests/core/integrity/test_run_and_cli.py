"""IN009 after a run, the IN006 launch refusal, and the `fingerprint` / `guard` commands end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from core.cli import main
from core.config import Config
from core.errors import IntegrityError
from core.integrity.guard import check_stale_result, refuse_stale_result, rehash_findings
from core.integrity.manifest import snapshot
from core.integrity.materialize import materialize, overlay_trusted_suite
from tests.core.integrity.cases import BASE
from tests.core.integrity.helpers import commit_all, init_repo, write


def _run_candidate(tmp_path: Path, code: str, *, config: Config | None = None) -> list[str]:
    """Materialize base + a candidate whose solution.py runs `code`, overlay, run it, re-hash: finding codes."""
    config = config or Config()
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    base = commit_all(repo, "base")
    write(repo, {"solution.py": code})
    cand = commit_all(repo, "cand")
    base_dir, cand_dir = tmp_path / "b", tmp_path / "c"
    materialize(repo, base, base_dir)
    materialize(repo, cand, cand_dir)
    overlay_trusted_suite(base_dir, cand_dir, config)
    before = snapshot(cand_dir / "kapso_evaluation", config)
    subprocess.run([sys.executable, "solution.py"], cwd=cand_dir, check=True)
    return sorted(
        f"{f.code} {f.path}" for f in rehash_findings(before, cand_dir / "kapso_evaluation", config)
    )


RUNTIME = {
    "rewrite": (
        "open('kapso_evaluation/metrics.py', 'a').write('\\n')",
        ["IN009 kapso_evaluation/metrics.py"],
    ),
    "chmod": (
        "import os; os.chmod('kapso_evaluation/metrics.py', 0o755)",
        ["IN009 kapso_evaluation/metrics.py"],
    ),
    "delete": (
        "import os; os.remove('kapso_evaluation/config.yaml')",
        ["IN009 kapso_evaluation/config.yaml"],
    ),
    "new-source": (
        "open('kapso_evaluation/patch.py', 'w').write('x = 1')",
        ["IN009 kapso_evaluation/patch.py"],
    ),
    "pyc": (
        "import os; os.makedirs('kapso_evaluation/__pycache__'); "
        "open('kapso_evaluation/__pycache__/metrics.cpython-311.pyc', 'wb').write(b'x')",
        ["IN009 kapso_evaluation/__pycache__/metrics.cpython-311.pyc"],
    ),
    "symlink": (
        "import os; os.symlink('/etc/passwd', 'kapso_evaluation/labels')",
        ["IN009 kapso_evaluation/labels"],
    ),
    "data": (
        "open('kapso_datasets/labels.csv', 'w').write('1\\n1\\n1\\n1\\n')",
        ["IN009 kapso_datasets/labels.csv"],
    ),
    "benign": (
        "import os, json; json.dump({'score': 1}, open('kapso_evaluation/result.json', 'w')); "
        "os.makedirs('kapso_evaluation/logs'); open('kapso_evaluation/logs/run.log', 'w').write('ok'); "
        "open('kapso_evaluation/predictions.csv', 'w').write('1'); open('outside.py', 'w').write('x')",
        [],
    ),
}


@pytest.mark.parametrize("name", sorted(RUNTIME))
def test_rehash_after_the_run(name: str, tmp_path: Path) -> None:
    code, expected = RUNTIME[name]
    assert _run_candidate(tmp_path, code) == expected


def test_rehash_when_the_suite_directory_is_gone(tmp_path: Path) -> None:
    assert _run_candidate(tmp_path, "import shutil; shutil.rmtree('kapso_evaluation')") == [
        "IN009 kapso_evaluation"
    ]


def test_stale_result_is_refused_at_launch_with_what_to_do(tmp_path: Path) -> None:
    write(tmp_path, {**BASE, "kapso_evaluation/result.json": "{}"})
    finding = check_stale_result(tmp_path, Config())
    assert finding is not None and finding.code == "IN006" and finding.path == "kapso_evaluation/result.json"
    with pytest.raises(IntegrityError) as refused:
        refuse_stale_result(tmp_path, Config())
    assert "delete kapso_evaluation/result.json from the baseline commit and commit again" in str(
        refused.value
    )
    (tmp_path / "kapso_evaluation/result.json").unlink()
    assert check_stale_result(tmp_path, Config()) is None


# ----------------------------------------------------------------------------------------------- CLI


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "ws")
    write(repo, BASE)
    commit_all(repo, "base")
    return repo


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_fingerprint_command(
    repo: Path, capsys: pytest.CaptureFixture[str], kapso: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    code, out, _ = _cli(["fingerprint", "--format", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    expected = kapso.build_evaluation_manifest(repo / "kapso_evaluation")
    assert data["manifest"] == expected and data["evaluator_id"] == kapso.manifest_fingerprint(expected)
    assert data["modes"]["metrics.py"] == {"type": "file", "executable": False}
    code, out, _ = _cli(["fingerprint", str(repo / "kapso_evaluation")], capsys)
    assert code == 0 and data["evaluator_id"] in out
    code, _, err = _cli(["fingerprint", str(repo / "nope")], capsys)
    assert code == 2 and err.count("\n") == 1 and "does not exist" in err


def test_guard_command_refs_dirs_and_errors(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chmod(repo / "kapso_evaluation/metrics.py", 0o755)
    commit_all(repo, "exec bit")
    args = ["guard", "--baseline", "main~1", "--candidate", "main", "--repo", str(repo)]
    code, out, _ = _cli([*args, "--format", "json"], capsys)
    assert code == 1
    report = json.loads(out)
    assert report["verdict"] == "rejected" and [f["code"] for f in report["findings"]] == ["IN004"]
    code, out, _ = _cli(args, capsys)
    assert code == 1 and "IN004 reject kapso_evaluation/metrics.py" in out
    code, out, _ = _cli(
        ["guard", "--baseline", "main~1", "--candidate", "main~1", "--repo", str(repo)], capsys
    )
    assert code == 0 and out.startswith("accepted")
    base_dir = tmp_path / "base-dir"
    materialize(repo, "main~1", base_dir)
    code, out, _ = _cli(
        ["guard", "--baseline", str(base_dir), "--candidate", "main", "--repo", str(repo)], capsys
    )
    assert code == 1 and "IN004" in out
    code, out, _ = _cli(["guard", "--baseline", str(base_dir), "--candidate", str(base_dir)], capsys)
    assert code == 0
    code, out, err = _cli(["guard", "--baseline", "main", "--candidate", "nope", "--repo", str(repo)], capsys)
    assert code == 2 and err == f"proctor: error: ref 'nope' does not exist in {repo}\n" and out == ""


def test_guard_reports_a_stale_baseline_result(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(repo, {"kapso_evaluation/result.json": '{"score": 1}'})
    commit_all(repo, "stale")
    code, out, _ = _cli(
        ["guard", "--baseline", "main", "--candidate", "main", "--repo", str(repo), "--format", "json"],
        capsys,
    )
    assert code == 1
    (finding,) = json.loads(out)["findings"]
    assert finding["code"] == "IN006" and "commit again" in finding["detail"]


def test_guard_reads_the_config_from_the_baseline(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        repo,
        {
            "proctor.toml": 'evaluation_dir = "kapso_evaluation"\ncommand = "python -m kapso_evaluation.evaluate"\n'
        },
    )
    commit_all(repo, "python -m")
    write(repo, {"sitecustomize.py": "import os\n", "proctor.toml": 'evaluation_dir = "elsewhere"\n'})
    commit_all(repo, "candidate moves the suite in its own config")
    code, out, _ = _cli(["guard", "--baseline", "main~1", "--candidate", "main", "--repo", str(repo)], capsys)
    assert code == 1 and "IN007 reject sitecustomize.py" in out
