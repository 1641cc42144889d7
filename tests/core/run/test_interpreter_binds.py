"""The evaluator's interpreter is complete inside both sandboxes wherever it lives: an editable install whose
source checkout sits under /tmp (the sandboxes' private /tmp would hide it), and — only its package
directories, never the checkout around them. Each test runs under bwrap and unshare."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import core
from core.interpreter import ProjectPython, find_python, proctor_python
from core.run.isolation import Isolation
from core.runner import RunResult, SandboxChoice, run_evaluator
from core.sandbox import Interpreter, proctor_interpreter
from tests.core.run.conftest import Workspace

# The layout setuptools (>= 64) writes for `pip install -e`: a .pth that installs a meta-path finder whose
# MAPPING names each top-level package's source directory. Nothing is added to sys.path.
FINDER = """
import os, sys
from importlib.util import spec_from_file_location

MAPPING = {mapping!r}
NAMESPACES = {{}}


class _EditableFinder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        init = MAPPING.get(fullname, "") + "/__init__.py"
        if fullname in MAPPING and os.path.exists(init):
            return spec_from_file_location(fullname, init, submodule_search_locations=[MAPPING[fullname]])
        return None


def install():
    if not any(finder == _EditableFinder for finder in sys.meta_path):
        sys.meta_path.append(_EditableFinder)
"""

EVALUATOR = """
import json, os, subprocess, sys
from pathlib import Path

import evalkit

ROOT = Path(__file__).resolve().parent.parent
done = subprocess.run([sys.executable, str(ROOT / "solution" / "predict.py")], capture_output=True, text=True)
print(json.dumps({"value": evalkit.VALUE, "notes": os.path.exists(evalkit.NOTES), "candidate": done.stdout,
                  "candidate_err": done.stderr[-300:]}))
print(f"score: {evalkit.VALUE}")
"""

CANDIDATE = """
import json, os
import evalkit
print(json.dumps({"value": evalkit.VALUE, "notes": os.path.exists(evalkit.NOTES)}))
"""


def _editable_checkout(base: Path) -> Path:
    """A checkout of `evalkit` with its own venv, both under `base`, installed editable; returns the python."""
    checkout = base / "evalkit-checkout"
    package = checkout / "evalkit"
    package.mkdir(parents=True)
    notes = checkout / "NOTES.txt"  # beside the package: part of the checkout, not of what is installed
    notes.write_text("not for the sandbox\n", encoding="utf-8")
    (package / "__init__.py").write_text(f"VALUE = 0.625\nNOTES = {str(notes)!r}\n", encoding="utf-8")
    venv = checkout / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    finder = "__editable___evalkit_0_1_finder"
    Path(site, f"{finder}.py").write_text(FINDER.format(mapping={"evalkit": str(package)}), encoding="utf-8")
    Path(site, "__editable__.evalkit-0.1.pth").write_text(f"import {finder}; {finder}.install()\n")
    return python


def _run(workspace: Workspace, choice: SandboxChoice, python: ProjectPython) -> RunResult:
    from core.config import load_config

    config = load_config(workspace.root).config
    return run_evaluator(
        config.command,
        workspace.root,
        timeout_s=60,
        sandbox=choice,
        isolation=Isolation.from_config(config, workspace=workspace.root),
        interpreter=python.sandbox_interpreter(),
    )


def test_an_editable_install_under_tmp_is_importable_in_both_sandboxes_and_only_its_package_is_shown(
    workspace: Workspace, backend: SandboxChoice, tmp_path: Path
) -> None:
    assert str(tmp_path.resolve()).startswith("/tmp/"), "the case needs a checkout under /tmp"
    python = find_python(str(_editable_checkout(tmp_path)), workspace.root)
    workspace.write("kapso_evaluation/evaluate.py", EVALUATOR)
    workspace.write("solution/predict.py", CANDIDATE)
    by_hand = subprocess.run([str(python.executable), "-c", "import evalkit; print(evalkit.VALUE)"],
                             capture_output=True, text=True, check=True)  # fmt: skip
    assert by_hand.stdout.strip() == "0.625"

    result = _run(workspace, backend, python)
    assert result.ok, result.stderr
    report = json.loads(result.stdout.splitlines()[0])
    assert report["value"] == 0.625 and report["notes"] is False  # E: the package, not the checkout
    assert json.loads(report["candidate"]) == {"value": 0.625, "notes": False}, report["candidate_err"]

    # The control: without the editable finder's directories (as before), the evaluator cannot import it.
    package = os.path.realpath(tmp_path / "evalkit-checkout" / "evalkit")
    without = dataclasses.replace(python, import_dirs=tuple(d for d in python.import_dirs if d != package))
    assert without != python
    failed = _run(workspace, backend, without)
    assert not failed.ok and "No module named 'evalkit'" in failed.stderr


def test_proctors_own_interpreter_shows_the_core_package_wherever_it_is_installed() -> None:
    """`python = "proctor"` (the prompt example, the demo): `core` must be importable in E even when Proctor
    is an editable install from a checkout under /tmp."""
    package = os.path.realpath(Path(core.__file__).parent)
    for interpreter in (proctor_interpreter(), proctor_python().sandbox_interpreter()):
        assert isinstance(interpreter, Interpreter)
        assert any(package == d or package.startswith(d + os.sep) for d in interpreter.read_only_dirs), (
            interpreter.read_only_dirs
        )
        assert os.path.dirname(package) not in interpreter.read_only_dirs  # never the whole checkout


BYTECODE_EVALUATOR = """
import importlib.util, json, os, sys
cached = importlib.util.cache_from_source(json.__file__)
print(json.dumps({"prefix": sys.pycache_prefix, "json": os.path.exists(cached)}))
print("score: 1")
"""


def test_the_evaluator_loads_its_own_interpreters_bytecode_in_every_run(
    workspace: Workspace, backend: SandboxChoice, tmp_path: Path
) -> None:
    """The bytecode prefix of a plain run and of E links to the mirror of the interpreter that runs the
    evaluator (a project venv here, not Proctor's): the stdlib's bytecode is there, nothing is compiled."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "env")], check=True)
    python = find_python(str(tmp_path / "env" / "bin" / "python"), workspace.root)
    workspace.write("kapso_evaluation/evaluate.py", BYTECODE_EVALUATOR)
    workspace.write("solution/predict.py", "print(1)\n")
    isolated = _run(workspace, backend, python)
    plain = run_evaluator(
        "python kapso_evaluation/evaluate.py",
        workspace.root,
        timeout_s=60,
        sandbox=backend,
        interpreter=python.sandbox_interpreter(),
    )
    for result in (isolated, plain):
        assert result.ok, result.stderr
        assert json.loads(result.stdout.splitlines()[0])["json"] is True, result.stdout


def test_the_bytecode_mirror_is_keyed_by_the_interpreters_cache_tag(tmp_path: Path) -> None:
    from core.sandbox import bytecode_mirror

    source = tmp_path / "lib"
    (source / "__pycache__").mkdir(parents=True)
    (source / "mod.py").write_text("X = 1\n")
    for tag in ("cpython-398", "cpython-399"):
        (source / "__pycache__" / f"mod.{tag}.pyc").write_bytes(b"")
    found = {}
    for tag in ("cpython-398", "cpython-399"):
        interpreter = Interpreter(f"/nowhere/{tag}/python", (str(source),), tag, (str(source),))
        mirror = bytecode_mirror(interpreter)
        assert mirror is not None
        found[tag] = sorted(p.name for p in (mirror / str(source).lstrip("/")).iterdir())
    assert found == {"cpython-398": ["mod.cpython-398.pyc"], "cpython-399": ["mod.cpython-399.pyc"]}
