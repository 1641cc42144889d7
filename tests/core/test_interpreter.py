"""The evaluator runs on the project's Python: a real second virtualenv holding a package Proctor's environment
lacks (`tinydep`, a wheel built here, installed with no network), under every sandbox level, with the venv
inside /tmp (the namespace sandbox's private /tmp would hide it) and outside it."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.interpreter import find_python
from tests.core.campaign.conftest import git

EVALUATE = """\
import json
import sys
from pathlib import Path

import tinydep  # only in the project's venv

Path("kapso_evaluation/result.json").write_text(json.dumps({"score": tinydep.VALUE}))
print(f"score: {tinydep.VALUE}")
"""
VALUE = 0.8125


def build_wheel(directory: Path) -> Path:
    """tinydep-0.1: a pure-Python wheel written by hand (zip + METADATA/WHEEL/RECORD)."""
    files = {
        "tinydep/__init__.py": f"VALUE = {VALUE}\n",
        "tinydep-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinydep\nVersion: 0.1\n",
        "tinydep-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    record.append("tinydep-0.1.dist-info/RECORD,,")
    files["tinydep-0.1.dist-info/RECORD"] = "\n".join(record) + "\n"
    wheel = directory / "tinydep-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def make_venv(where: Path, wheel: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "--no-deps",
         "--disable-pip-version-check", "--quiet", str(wheel)],
        check=True,
    )  # fmt: skip
    return python


def make_repo(root: Path, extra_config: str = "") -> Path:
    root.mkdir(parents=True)
    git(root, "init", "--quiet", "--initial-branch=main")
    (root / "kapso_evaluation").mkdir()
    (root / "kapso_evaluation" / "evaluate.py").write_text(EVALUATE)
    (root / "kapso_datasets").mkdir()
    (root / "kapso_datasets" / "data.csv").write_text("x\n1\n")
    (root / "brief.md").write_text("# Goal\nScore.\n\nMeasured by score on kapso_datasets/data.csv.\n")
    (root / "proctor.toml").write_text(f'metric = "score"\ntimeout_s = 60\n{extra_config}')
    (root / ".gitignore").write_text(".proctor/\n.venv/\nresult.json\n")
    git(root, "add", "--all")
    git(root, "commit", "--quiet", "-m", "baseline")
    git(root, "branch", "candidate/same")
    return root


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def outside_tmp(wheel: Path) -> Iterator[Path]:
    """A venv outside /tmp (/var/tmp), named by path in the config."""
    base = Path(tempfile.mkdtemp(prefix="proctor-test-venv-", dir="/var/tmp"))
    try:
        yield make_venv(base / "env", wheel)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def proctor(args: list[str], env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
    done = subprocess.run(
        [sys.executable, "-m", "core", *args, "--format", "json"],
        capture_output=True,
        text=True,
        env={**{k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}, **(env or {})},
        check=False,
        timeout=600,
    )
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        doc = {}
    return done.returncode, doc, done.stderr


def test_proctors_own_python_lacks_tinydep(wheel: Path) -> None:
    """The control: run by Proctor's interpreter, the evaluator fails to import its dependency."""
    done = subprocess.run(
        [sys.executable, "-c", "import tinydep"], capture_output=True, text=True, check=False
    )
    assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr


def _require(level: str) -> dict[str, str]:
    """Environment that forces a sandbox backend; skip (fail in CI) when it is missing here."""
    if level == "bwrap" and shutil.which("bwrap") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("bubblewrap is required in CI")
        pytest.skip("bubblewrap (bwrap) is not installed")
    return {"PROCTOR_SANDBOX_BACKEND": "unshare"} if level == "unshare" else {}


@pytest.mark.parametrize("where", ["venv-in-tmp", "venv-outside-tmp"])
@pytest.mark.parametrize("level", ["bwrap", "unshare"])
def test_verify_runs_the_evaluator_on_the_projects_venv(
    where: str, level: str, tmp_path: Path, wheel: Path, outside_tmp: Path
) -> None:
    env = _require(level)
    if where == "venv-in-tmp":
        repo = make_repo(tmp_path / "repo")
        python = make_venv(repo / ".venv", wheel)  # found as .venv/ at the repository root
        source = ".venv/ at the repository root"
    else:
        python = outside_tmp
        repo = make_repo(tmp_path / "repo", f'python = "{python}"\n')
        source = f"python = {str(python)!r} in proctor.toml"
    _code, report, err = proctor(["verify", str(repo), "--runs", "1"], env)
    runs = next(c for c in report["clauses"] if c["id"] == "runs")
    assert runs["status"] == "pass", (runs, err)
    assert report["metric"] == {"name": "score", "value": VALUE}
    sandbox = next(c for c in report["clauses"] if c["id"] == "isolation")
    assert "`process` level" not in sandbox["detail"]  # the namespace sandbox ran it
    info = report["interpreter"]
    assert info["path"] == str(python) and info["source"] == source
    assert info["version"] == ".".join(str(part) for part in sys.version_info[:3])
    assert info["environment_id"] == find_python(str(python), repo).environment_id


@pytest.mark.parametrize("where", ["venv-in-tmp", "venv-outside-tmp", "venv-symlink-in-tmp", "venv-symlink"])
@pytest.mark.parametrize("level", ["process", "bwrap", "unshare"])
def test_a_campaign_runs_on_the_projects_venv(
    where: str, level: str, tmp_path: Path, wheel: Path, outside_tmp: Path
) -> None:
    env = _require(level)
    sandbox = "process" if level == "process" else "namespace"
    if where == "venv-in-tmp":
        repo = make_repo(tmp_path / "repo")
        python = make_venv(repo / ".venv", wheel)
    elif where.startswith("venv-symlink"):
        # `.venv` a symlink to a venv elsewhere (under /tmp, or outside it): found through the link.
        target = make_venv(tmp_path / "elsewhere", wheel).parent.parent if where.endswith("in-tmp") else None
        repo = make_repo(tmp_path / "repo")
        (repo / ".venv").symlink_to(target or outside_tmp.parent.parent)
        python = repo / ".venv" / "bin" / "python"
    else:
        python = outside_tmp
        repo = make_repo(tmp_path / "repo", f'python = "{python}"\n')
    code, board, err = proctor(
        ["campaign", "--repo", str(repo), "--sandbox", sandbox, "--campaign-id", "v1"], env
    )
    assert code == 0, err
    assert board["baseline"]["score"] == VALUE, err
    assert board["interpreter"]["path"] == str(python)
    start = next(line for line in err.splitlines() if line.startswith("proctor: campaign v1:"))
    assert f"python {python} (Python " in start
    again = subprocess.run(
        [sys.executable, "-m", "core", "campaign", "--repo", str(repo), "--resume", "--campaign-id", "v1"],
        capture_output=True, text=True, check=False, env={**os.environ, **env},
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert f"Python: {python} (Python " in again.stdout  # the text scoreboard names it
    assert str(python) in (repo / ".proctor/campaigns/v1/report.html").read_text()


def test_resume_warns_when_the_environment_changed(tmp_path: Path, wheel: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    python = make_venv(repo / ".venv", wheel)
    code, board, err = proctor(
        ["campaign", "--repo", str(repo), "--sandbox", "process", "--campaign-id", "e1"]
    )
    assert code == 0, err
    before = board["interpreter"]["environment_id"]
    site = next((repo / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "extra-1.0.dist-info").mkdir()
    (site / "extra-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: extra\nVersion: 1.0\n"
    )
    code, board, err = proctor(["campaign", "--repo", str(repo), "--resume", "--campaign-id", "e1"])
    assert code == 0, err
    assert "warning: the evaluator's Python environment changed since this campaign started" in err
    assert board["interpreter"]["environment_id"] != before and board["interpreter"]["path"] == str(python)


def test_a_pyenv_style_shim_is_resolved_to_the_real_interpreter(tmp_path: Path) -> None:
    shim = tmp_path / "shims" / "python3"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    found = find_python("", tmp_path, {"PATH": str(shim.parent)})
    assert found.executable == sys.executable and found.source == "python3 on PATH"
    assert found.sandbox_interpreter().executable == sys.executable


def test_discovery_order(tmp_path: Path) -> None:
    fake = tmp_path / "active"
    (fake / "bin").mkdir(parents=True)
    (fake / "bin" / "python").symlink_to(sys.executable)
    assert find_python("", tmp_path, {"VIRTUAL_ENV": str(fake), "PATH": ""}).source == "$VIRTUAL_ENV"
    assert find_python("", tmp_path, {"CONDA_PREFIX": str(fake), "PATH": ""}).source == "$CONDA_PREFIX"
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "python").symlink_to(sys.executable)
    assert find_python("", tmp_path, {"VIRTUAL_ENV": str(fake)}).source == "venv/ at the repository root"
    assert find_python("proctor", tmp_path).executable == sys.executable
