"""The guard's decisions over fakes: a tree view and a module provider, no directory walk, git or subprocess.

The end-to-end cases (test_guard_cases.py) prove the same decisions through real trees and commits; these
pin each fact the decisions read to where it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from core.config import Config
from core.integrity.checks import CHECK_MODULES, GUARD_CHECKS
from core.integrity.context import Change, Entry
from core.integrity.evaluator_command import analyse_command
from core.integrity.guard import judge_view
from core.integrity.hooks import hook_findings
from core.integrity.suite_diff import suite_diff
from core.integrity.sys_path import build_model

SUITE = "kapso_evaluation"
EVALUATE = f"{SUITE}/evaluate.py"


@dataclass
class FakeModules:
    """What a `ModuleProvider` would answer for some other interpreter; records the closures asked for."""

    stdlib_names: frozenset[str] = frozenset({"json", "os"})
    installed: frozenset[str] = frozenset()
    closure: frozenset[str] = frozenset()
    asked: list[frozenset[str]] = field(default_factory=list)

    def stdlib(self, name: str) -> bool:
        return name in self.stdlib_names

    def third_party(self, name: str) -> bool:
        return name in self.installed

    def import_closure(self, names: frozenset[str]) -> frozenset[str]:
        self.asked.append(names)
        return names | self.closure


@dataclass
class FakeView:
    """A baseline/candidate pair held in dictionaries: {path: (Entry, bytes)} per side."""

    old: dict[str, tuple[Entry, bytes]]
    new: dict[str, tuple[Entry, bytes]]
    changes: dict[str, Change] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for path in sorted(self.old.keys() | self.new.keys()):
            before, after = self.old.get(path), self.new.get(path)
            if before != after:
                content = before is None or after is None or before[1] != after[1]
                self.changes[path] = Change(path, before and before[0], after and after[0], content)

    def validate(self) -> None:
        pass

    def evaluator_id(self) -> str:
        return "fake-id"

    def baseline_suite(self) -> dict[str, Entry]:
        return {p: entry for p, (entry, _) in self.old.items() if p.startswith(f"{SUITE}/")}

    def baseline_has(self, path: str) -> bool:
        return path in self.old

    def baseline_under(self, root: str) -> dict[str, bool]:
        return {p: False for p in self.old if p.startswith(f"{root}/")}

    def suite_sources(self) -> dict[str, str]:
        return {
            p: data.decode() for p, (_, data) in self.old.items() if p.startswith(SUITE) and p.endswith(".py")
        }

    def read_old(self, path: str) -> bytes | None:
        return self.old[path][1] if path in self.old else None

    def read_new(self, path: str) -> bytes | None:
        return self.new[path][1] if path in self.new else None

    def new_kind(self, path: str) -> str | None:
        return self.new[path][0].kind if path in self.new else None

    def prefetch(self, paths: list[str]) -> None:
        pass


FILE = Entry("file")
BASELINE = {EVALUATE: (FILE, b"import json\nimport numpy\nprint('auc: 1')\n")}


def _codes(view: FakeView, modules: FakeModules, command: str = f"python -m {SUITE}.evaluate") -> list[str]:
    return [f.code for f in judge_view(view, Config(), command, modules)]


def test_every_rule_but_the_after_run_one_is_a_guard_check() -> None:
    assert sorted(m.CODE for m in GUARD_CHECKS) == sorted(m.CODE for m in CHECK_MODULES if m.CODE != "IN009")


def test_a_module_shadows_what_the_provider_says_is_installed() -> None:
    view = FakeView(BASELINE, {**BASELINE, "numpy.py": (FILE, b"x = 1\n")})
    assert _codes(view, FakeModules(installed=frozenset({"numpy"}))) == ["IN007"]
    # numpy is a known scoring library: a copy is a substitute even where the provider has none installed
    assert _codes(view, FakeModules()) == ["IN007"]


def test_a_module_reached_only_through_the_import_closure_is_asked_for_once() -> None:
    view = FakeView(BASELINE, {**BASELINE, "decimal.py": (FILE, b"x = 1\n")})
    modules = FakeModules(stdlib_names=frozenset({"json", "decimal"}), closure=frozenset({"decimal"}))
    findings = judge_view(view, Config(), f"python -m {SUITE}.evaluate", modules)
    assert [(f.code, f.path) for f in findings] == [("IN007", "decimal.py")]
    assert "standard-library module `decimal`" in findings[0].detail
    assert modules.asked == [frozenset({"json", "numpy"})]  # the suite's imports, not the candidate's
    assert _codes(view, FakeModules(stdlib_names=frozenset({"json", "decimal"}))) == []


def test_the_same_file_out_of_reach_of_the_evaluator_is_only_a_flag() -> None:
    view = FakeView(BASELINE, {**BASELINE, "json.py": (FILE, b"x = 1\n")})
    assert _codes(view, FakeModules(), command=f"python {EVALUATE}") == ["IN011"]
    assert _codes(view, FakeModules()) == ["IN007"]


def test_suite_checks_read_only_the_view() -> None:
    changed = {EVALUATE: (Entry("file", True), b"print('auc: 2')\n"), f"{SUITE}/new.sh": (FILE, b"echo\n")}
    assert _codes(FakeView(BASELINE, changed), FakeModules()) == ["IN001", "IN004", "IN005"]
    assert _codes(FakeView(BASELINE, {}), FakeModules()) == ["IN002"]


def test_hook_findings_take_module_facts_from_the_provider() -> None:
    model = build_model(f"python -m {SUITE}.evaluate", SUITE, {EVALUATE: "import yaml\n"}, [EVALUATE])
    findings = hook_findings(
        model,
        {"yaml/__init__.py": "file"},
        lambda _p: None,
        lambda _p: b"",
        lambda p: "file" if p == "yaml/__init__.py" else None,
        FakeModules(installed=frozenset({"yaml"})),
    )
    assert [(f.code, f.path) for f in findings] == [("IN007", "yaml/__init__.py")]
    assert "installed module `yaml`" in findings[0].detail


@pytest.mark.parametrize(
    ("command", "path0", "pythonpath", "pytest_run"),
    [
        ("python -m kapso_evaluation.evaluate", "", [], False),
        ("python -I -m kapso_evaluation.evaluate", None, [], False),
        ("python kapso_evaluation/evaluate.py", "kapso_evaluation", [], False),
        ("PYTHONPATH=src:/opt python -W ignore x/run.py", "x", ["src"], False),
        ("PYTHONPATH=src python -E -c 'pass'", "", [], False),
        ("uv run --with numpy python -m pytest -q", "", [], True),
        ("env -u HOME timeout 30 pytest", "", [], True),
        ("python -- x.py", None, [], False),
        ("./run.sh", "", [], False),
    ],
)
def test_the_command_line_decides_the_first_path_entries(
    command: str, path0: str | None, pythonpath: list[str], pytest_run: bool
) -> None:
    parsed = analyse_command(command)
    assert (parsed.path0, parsed.pythonpath, parsed.pytest) == (path0, pythonpath, pytest_run)


def test_one_suite_diff_for_verify_and_the_rehash() -> None:
    before = {"a.py": "1", "b.py": "2", "result.json": "r", "gone.txt": "g"}
    after = {"a.py": "1", "b.py": "3", "result.json": "s", "new.py": "n"}
    diff = suite_diff(before, after, ignored={"result.json"})
    assert (diff.changed, diff.deleted, diff.added) == (("b.py",), ("gone.txt",), ("new.py",))
