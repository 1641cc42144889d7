"""Exit statuses a local function returns, and what an `if` test on one decides (for the flow walk).

`code = main()` binds a status when every `return` in `main` is an int constant or None. On the success path
the name holds 0 or None; `truth_of` says what a test such as `code != 0` or `not code` is then, so the flow
can tell the branch that runs only after a failure (see `flow.py`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol

from core.rules.evaluator.analysis.ast_utils import int_constant, walk_no_nested

__all__ = [
    "EXIT_CALLS",
    "Status",
    "StatusNames",
    "StatusSnapshot",
    "head_stores",
    "return_statuses",
    "stored_names",
    "truth_of",
]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
BranchPath = tuple[tuple[int, int], ...]  # a flow step's branch path (see flow_steps.Branch)
EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit"})
Status = int | None  # an exit status a local function can return (None: a bare `return` or the end)
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: bool(a == b),
    ast.NotEq: lambda a, b: bool(a != b),
    ast.Lt: lambda a, b: bool(a < b),
    ast.LtE: lambda a, b: bool(a <= b),
    ast.Gt: lambda a, b: bool(a > b),
    ast.GtE: lambda a, b: bool(a >= b),
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}


def return_statuses(func: FunctionNode) -> frozenset[Status] | None:
    """Every value `func` can return when each is an int constant or None (the end of the body counts as
    None unless it is a `return` or `raise`); None when some return value is anything else."""
    found: set[Status] = set()
    for node in walk_no_nested(func.body):
        if not isinstance(node, ast.Return):
            continue
        if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
            found.add(None)
            continue
        code = int_constant(node.value)
        if code is None:
            return None
        found.add(code)
    if not func.body or not isinstance(func.body[-1], ast.Return | ast.Raise):
        found.add(None)
    return frozenset(found)


def truth_of(test: ast.expr, name: str, value: Status) -> bool | None:
    """The truth of `test` when `name` holds `value`: names, `not`, `and`/`or` and one comparison with an int
    or None constant; None when the test is anything else."""
    if isinstance(test, ast.Name):
        return bool(value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = truth_of(test.operand, name, value)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        parts = [truth_of(v, name, value) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in parts else (None if None in parts else True)
        return True if True in parts else (None if None in parts else False)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _compare(test, name, value)
    return None


def _compare(test: ast.Compare, name: str, value: Status) -> bool | None:
    left, right = test.left, test.comparators[0]
    if isinstance(right, ast.Name) and right.id == name:
        left, right, flipped = right, left, True
    else:
        flipped = False
    compare = _COMPARE.get(type(test.ops[0]))
    if compare is None or not (isinstance(left, ast.Name) and left.id == name):
        return None
    constant: Status
    if isinstance(right, ast.Constant) and right.value is None:
        constant = None
    else:
        constant = int_constant(right)
        if constant is None:
            return None
    try:
        return compare(constant, value) if flipped else compare(value, constant)
    except TypeError:  # `None < 0`: Python would raise; say nothing
        return None


_BODIES = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def head_stores(stmt: ast.stmt) -> Iterator[ast.Name]:
    """Names a compound statement binds outside its bodies (`for x in`, `with ... as x`, a walrus in a test);
    lazy, so a walk that holds no status never looks."""
    for field in stmt._fields:
        if field in _BODIES:
            continue
        value = getattr(stmt, field)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, ast.AST):
                yield from stored_names(item)


def stored_names(node: ast.AST) -> Iterator[ast.Name]:
    """The names `node` binds or deletes, anywhere inside it."""
    return (n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del))


class CallResolver(Protocol):
    """What the status names ask of the document (the flow's source is one)."""

    def call_name(self, call: ast.Call) -> str | None: ...

    def local_function(self, call: ast.Call) -> FunctionNode | None: ...


class _Held(NamedTuple):
    path: BranchPath  # where the name was bound: it decides only tests under that branch path
    success: frozenset[Status]  # what it holds when the function succeeded (0 and/or None)


StatusSnapshot = tuple[dict[tuple[int, str], _Held], dict[int, frozenset[str]]] | None


class StatusNames:
    """Names bound to a local function's exit status as the flow walks, per frame (0: the module body).

    `code = main()` binds one, as does `status = run()` when the frame exits with `status`; a 0/1 answer that
    nothing exits with (`found = has_rows()`) is not a status. Any other store forgets the name."""

    def __init__(self, ctx: CallResolver) -> None:
        self.ctx = ctx
        self._held: dict[tuple[int, str], _Held] = {}
        self._exits: dict[int, frozenset[str]] = {}

    def bind(
        self, stmt: ast.stmt, frame: int, body: Callable[[], Sequence[ast.stmt]], path: BranchPath
    ) -> None:
        """After a simple statement: forget what it stores, then record a `name = local_call()` status."""
        self.forget(stored_names(stmt), frame)
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
        ):
            return
        name = stmt.targets[0].id
        func = self.ctx.local_function(stmt.value)
        if func is None or (func.name != "main" and name not in self._exit_names(frame, body)):
            return
        success = frozenset(s for s in return_statuses(func) or () if s in (0, None))
        if success:
            self._held[(frame, name)] = _Held(path, success)

    def snapshot(self) -> StatusSnapshot:
        """What is known now, for a walk that resumes here (`Flow`'s boundaries); None when nothing is."""
        if not self._held and not self._exits:
            return None
        return dict(self._held), dict(self._exits)

    def restore(self, snapshot: StatusSnapshot) -> None:
        self._held, self._exits = ({}, {}) if snapshot is None else (dict(snapshot[0]), dict(snapshot[1]))

    def module_exits_hold(self, snapshot: StatusSnapshot, body: Sequence[ast.stmt]) -> bool:
        """Whether the module body's exit names in `snapshot` (found from the whole body, the part not yet
        walked included) are those of `body` too: otherwise a binding decided before it may differ."""
        if snapshot is None or 0 not in snapshot[1]:
            return True
        return snapshot[1][0] == frozenset(self._exit_arguments(list(body)))

    def forget(self, names: Iterable[ast.Name], frame: int) -> None:
        if self._held:
            for name in names:
                if isinstance(name.ctx, ast.Store | ast.Del):
                    self._held.pop((frame, name.id), None)

    def on_success(self, test: ast.expr, frame: int, path: BranchPath) -> bool | None:
        """The value of an `if` test when the function behind the one status it reads succeeded (None:
        unknown). The binding must dominate the test: its branch path is a prefix of the test's."""
        if not self._held:
            return None
        names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
        if len(names) != 1:
            return None
        (name,) = names
        held = self._held.get((frame, name))
        if held is None or path[: len(held.path)] != held.path:
            return None
        values = {truth_of(test, name, status) for status in held.success}
        return values.pop() if len(values) == 1 else None

    def _exit_names(self, frame: int, body: Callable[[], Sequence[ast.stmt]]) -> frozenset[str]:
        """Names the frame's body exits with: `sys.exit(code)`, `raise SystemExit(code)`."""
        known = self._exits.get(frame)
        if known is None:
            known = self._exits[frame] = frozenset(self._exit_arguments(list(body())))
        return known

    def _exit_arguments(self, body: list[ast.stmt]) -> Iterator[str]:
        for node in walk_no_nested(body):
            call = node.exc if isinstance(node, ast.Raise) else node
            if not (isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name)):
                continue
            wanted = EXIT_CALLS if node is call else frozenset({"SystemExit"})
            if self.ctx.call_name(call) in wanted:
                yield call.args[0].id
