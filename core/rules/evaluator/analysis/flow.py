"""An approximate execution order of the calls an evaluator makes, for the rules that care about "after".

Starting at the module body, statements are walked in order and calls to functions defined in the file are
followed (inlined) where they are called, so `main()` under `if __name__ == "__main__":` contributes its calls
at that point. Each call carries where it sits: in a loop, an `except` handler, a branch that ends in an
error exit, a `finally`. The branch path lets rules tell `if ...: A else: B` apart from `A; B`.

Return values are followed as far as exit statuses go: after `code = main()` (or any local call whose result
the same function or module body hands to `sys.exit`/`SystemExit`), where every `return` in the callee is an
int constant or None, a branch the test sends only non-success statuses into (`if code != 0:`,
`if code:`, the `else` of `if code == 0:`) is an error branch, like one that ends in `sys.exit(1)`: it runs
only when `main` took an error path, so what it prints is not printed after the metric line.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from core.rules.evaluator.analysis.ast_utils import children
from core.rules.evaluator.analysis.block_ends import ends_abnormally
from core.rules.evaluator.analysis.chunks import Chunk
from core.rules.evaluator.analysis.exit_status import (
    EXIT_CALLS,
    StatusNames,
    StatusSnapshot,
    head_stores,
    stored_names,
)
from core.rules.evaluator.analysis.flow_steps import Boundary, Flags, Step, post_order

__all__ = ["EXIT_CALLS", "Flow", "FlowSource", "Rejoin"]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

MAX_STEPS = 20_000
MAX_INLINE_PER_FUNCTION = 25


class FlowSource(Protocol):
    """What the walk asks of the document (the evaluator context and its recording views are one)."""

    @property
    def aliases(self) -> Mapping[str, str]: ...

    @property
    def functions(self) -> Mapping[str, FunctionNode]: ...

    @property
    def classes(self) -> Mapping[str, ast.ClassDef]: ...

    @property
    def methods(self) -> Mapping[str, Sequence[FunctionNode]]: ...

    @property
    def name_loads(self) -> Mapping[str, Sequence[ast.Name]]: ...

    @property
    def kids(self) -> Mapping[int, list[ast.AST]]: ...

    @property
    def memo(self) -> dict[str, object]: ...

    def flow_body(self) -> Sequence[ast.stmt]: ...

    def qualname(self, expr: ast.AST) -> str | None: ...

    def call_name(self, call: ast.Call) -> str | None: ...

    def local_function(self, call: ast.Call) -> FunctionNode | None: ...

    def chunk_of(self, node: ast.AST) -> Chunk | None: ...


class _Terminated(Exception):
    """The program exits here (a top-level `sys.exit`); nothing after it runs."""


class Rejoin:
    """An earlier walk of the document that a new walk may take the rest of (`Flow`'s `rejoin`).

    The walk from a top-level statement on depends only on the walk's state there (steps and frames so far,
    the functions entered, the exit statuses known), the statements from there on and the lookups it
    makes; and on the module body as a whole only through the names the body exits with, which the
    statuses then hold. So a new walk that reaches one of the earlier walk's statements in the same state,
    with the same statements after it, can take the earlier walk's steps from there when `holds()` says
    every lookup the earlier walk recorded still holds (it then records them in the new walk's view too and
    gives the view's mark after them, the mark of every boundary taken; else None).
    """

    def __init__(self, flow: Flow, holds: Callable[[], int | None]) -> None:
        self.flow = flow
        self.holds = holds
        self.starts: dict[int, int] = {}  # id(statement) -> its boundary in `flow`, where a walk may rejoin
        boundaries = flow.boundaries
        if not boundaries or boundaries[-1].stmt is not None:
            return  # the earlier walk stopped early (an exit, too many steps): nothing to take
        learned = _module_exits_known(boundaries[-1].statuses)
        for at, boundary in enumerate(boundaries[:-1]):
            # The earlier walk must not have worked out the module body's exit names after this point.
            if learned and not _module_exits_known(boundary.statuses):
                continue
            assert boundary.stmt is not None
            self.starts[id(boundary.stmt)] = at


def _module_exits_known(statuses: StatusSnapshot) -> bool:
    return statuses is not None and 0 in statuses[1]


class Flow:
    """The ordered steps of one document (see module docstring).

    `resume=(earlier, keep)` starts from `earlier`'s state before its top-level statement `keep`; the caller
    checked that the statements before it are the same objects and that every lookup recorded up to that
    boundary (`mark`) still holds. Appending a line after `main()` then walks that line, not `main()` again.
    """

    def __init__(
        self,
        ctx: FlowSource,
        *,
        mark: Callable[[], int] = lambda: 0,
        resume: tuple[Flow, int] | None = None,
        rejoin: Rejoin | None = None,
    ) -> None:
        self.ctx = ctx
        self.steps: list[Step] = []
        self.reached: set[ast.AST] = set()
        self._inlined: dict[ast.AST, int] = {}
        self._entered: list[FunctionNode] = []  # every inlined function in order (`_restore` replays it)
        self._stack: list[ast.AST] = []
        self._frames = 0
        self._calls_in: dict[int, list[ast.Call]] = {}
        self._statuses = StatusNames(ctx)
        self.boundaries: list[Boundary] = []
        self._mark = mark
        body = list(ctx.flow_body())
        start = self._restore(*resume) if resume is not None else 0
        self._rejoin = rejoin
        with contextlib.suppress(_Terminated):
            self._top_level(body, start)
        self._rejoin = None  # the earlier walk is not kept alive by this one

    def _top_level(self, body: list[ast.stmt], start: int) -> None:
        """`_block` of the module body from statement `start`, with a `Boundary` before each statement and
        after the last one (when the walk gets there)."""
        for index in range(start, len(body)):
            stmt = body[index]
            if len(self.steps) >= MAX_STEPS:
                return
            if self._rejoin is not None and self._rejoined(body, index):
                return
            self.boundaries.append(self._boundary(stmt))
            if self._stmt(stmt, Flags()):
                return
        self.boundaries.append(self._boundary(None))

    def _rejoined(self, body: list[ast.stmt], index: int) -> bool:
        """Take the rest of the walk from the earlier one (`Rejoin`) when it reached `body[index]` in the
        state this walk is in now and walked the same statements from there, with lookups that still hold."""
        rejoin = self._rejoin
        assert rejoin is not None
        at = rejoin.starts.get(id(body[index]))
        if at is None:
            return False
        earlier = rejoin.flow
        state = earlier.boundaries[at]
        tail = earlier.boundaries[at:]
        if (
            state.steps != len(self.steps)
            or state.frames != self._frames
            or state.entered != len(self._entered)
            or state.statuses != self._statuses.snapshot()
            or earlier._entered[: state.entered] != self._entered
            or [b.stmt for b in tail[:-1]] != body[index:]
        ):
            return False
        mark = rejoin.holds()
        if mark is None:
            self._rejoin = None  # the earlier lookups do not hold: no later statement can rejoin either
            return False
        for func in earlier._entered[state.entered :]:
            self.reached.add(func)
            self._inlined[func] = self._inlined.get(func, 0) + 1
        self._entered.extend(earlier._entered[state.entered :])
        self.steps.extend(earlier.steps[state.steps :])
        self._frames = earlier._frames
        self.boundaries.extend(b._replace(mark=mark) for b in tail)
        return True

    def _boundary(self, stmt: ast.stmt | None) -> Boundary:
        statuses = self._statuses.snapshot()
        return Boundary(stmt, len(self.steps), len(self._entered), self._frames, statuses, self._mark())

    def _restore(self, earlier: Flow, keep: int) -> int:
        state = earlier.boundaries[keep]
        self.steps = earlier.steps[: state.steps]
        self._entered = earlier._entered[: state.entered]
        for func in self._entered:
            self.reached.add(func)
            self._inlined[func] = self._inlined.get(func, 0) + 1
        self._frames = state.frames
        self._statuses.restore(state.statuses)
        self.boundaries = earlier.boundaries[:keep]
        return keep

    def resumable_at(self, body: Sequence[ast.stmt]) -> int:
        """How many leading top-level statements of `body` are the ones this walk started with (the same
        objects), up to its last boundary: where a `resume` may start (0: nowhere)."""
        limit = min(len(self.boundaries) - 1, len(body))
        keep = 0
        while keep < limit and self.boundaries[keep].stmt is body[keep]:
            keep += 1
        return keep

    def copy_for(self, ctx: FlowSource) -> Flow:
        """This walk for another context of the same document (its lookups checked by the caller)."""
        flow = Flow.__new__(Flow)
        flow.ctx = ctx
        flow.steps = list(self.steps)
        flow.reached = set(self.reached)
        flow._inlined = dict(self._inlined)
        flow._entered = list(self._entered)
        flow._stack = []
        flow._frames = self._frames
        flow._calls_in = {}
        flow._statuses = StatusNames(ctx)
        flow.boundaries = list(self.boundaries)
        flow._mark = self._mark
        return flow

    def walk_unreached(self) -> None:
        """Also walk functions nothing visibly calls but something references (decorated commands, callbacks)."""
        for name, func in self.ctx.functions.items():
            if func in self.reached:
                continue
            if func.decorator_list or name in self.ctx.name_loads:
                with contextlib.suppress(_Terminated):
                    self._function(func, Flags(path=((id(func), -1),)))

    # -- statements ----------------------------------------------------------------------------------------

    def _block(self, stmts: list[ast.stmt], flags: Flags) -> bool:
        """Walk statements in order; True when the block always leaves early (return/raise/exit)."""
        for stmt in stmts:
            if len(self.steps) >= MAX_STEPS:
                return False
            if self._stmt(stmt, flags):
                return True
        return False

    def _stmt(self, stmt: ast.stmt, flags: Flags) -> bool:
        """Walk one statement; True when it always leaves early. Compound statements by `_STATEMENTS`."""
        walker = _STATEMENTS.get(type(stmt))
        if walker is not None:
            self._statuses.forget(head_stores(stmt), self._frame())
            return walker(self, stmt, flags)
        for child in children(stmt):
            self._expr(child, flags)
        self._statuses.bind(stmt, self._frame(), self._frame_body, flags.path)
        if isinstance(stmt, ast.Return | ast.Raise):
            return True
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            name = self.ctx.call_name(stmt.value)
            if name in EXIT_CALLS:
                if not flags.path and not self._stack:
                    raise _Terminated
                return True
        return False

    def _function_def(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef, flags: Flags) -> bool:
        """Only the decorators and defaults run where a function is defined."""
        for dec in stmt.decorator_list:
            self._expr(dec, flags)
        for default in (*stmt.args.defaults, *stmt.args.kw_defaults):
            if default is not None:
                self._expr(default, flags)
        return False

    def _class_def(self, stmt: ast.ClassDef, flags: Flags) -> bool:
        for dec in stmt.decorator_list:
            self._expr(dec, flags)
        body = [s for s in stmt.body if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)]
        self._block(body, flags)
        return False

    def _if(self, stmt: ast.If, flags: Flags) -> bool:
        self._expr(stmt.test, flags)
        on_success = self._statuses.on_success(stmt.test, self._frame(), flags.path)
        body_done = self._branch(stmt, 0, stmt.body, flags, failure=on_success is False)
        else_done = (
            self._branch(stmt, 1, stmt.orelse, flags, failure=on_success is True) if stmt.orelse else False
        )
        return body_done and else_done

    def _loop(self, stmt: ast.For | ast.AsyncFor | ast.While, flags: Flags) -> bool:
        # A later pass sees what the body binds: nothing bound in the loop holds a known status at its top.
        self._statuses.forget(stored_names(stmt), self._frame())
        self._expr(stmt.iter if isinstance(stmt, ast.For | ast.AsyncFor) else stmt.test, flags)
        loop = Flags(True, flags.in_handler, flags.error_branch, flags.in_finally, flags.path)
        self._block(stmt.body, loop)
        if stmt.orelse:
            self._block(stmt.orelse, flags)
        return False

    def _try(self, stmt: ast.Try | ast.TryStar, flags: Flags) -> bool:
        done = self._block(stmt.body, flags)
        for number, handler in enumerate(stmt.handlers):
            if handler.type is not None:
                self._expr(handler.type, flags)
            inner = Flags(flags.in_loop, True, True, flags.in_finally, (*flags.path, (id(stmt), number + 1)))
            self._block(handler.body, inner)
        if stmt.orelse and not done:
            done = self._block(stmt.orelse, flags)
        if stmt.finalbody:
            fin = Flags(flags.in_loop, flags.in_handler, flags.error_branch, True, flags.path)
            done = self._block(stmt.finalbody, fin) or done
        return done

    def _with(self, stmt: ast.With | ast.AsyncWith, flags: Flags) -> bool:
        for item in stmt.items:
            self._expr(item.context_expr, flags)
        return self._block(stmt.body, flags)

    def _match(self, stmt: ast.Match, flags: Flags) -> bool:
        self._expr(stmt.subject, flags)
        for number, case in enumerate(stmt.cases):
            self._branch(stmt, number, case.body, flags)
        return False

    def _branch(
        self, node: ast.AST, number: int, body: list[ast.stmt], flags: Flags, *, failure: bool = False
    ) -> bool:
        error = flags.error_branch or failure or self.ends_abnormally(body)
        inner = Flags(
            flags.in_loop, flags.in_handler, error, flags.in_finally, (*flags.path, (id(node), number))
        )
        return self._block(body, inner)

    def ends_abnormally(self, body: list[ast.stmt]) -> bool:
        return ends_abnormally(self.ctx, body)

    # -- exit statuses held in names -----------------------------------------------------------------------

    def _frame(self) -> int:
        """The function being walked (0: the module body): names are per frame."""
        return id(self._stack[-1]) if self._stack else 0

    def _frame_body(self) -> list[ast.stmt]:
        top = self._stack[-1] if self._stack else None
        return top.body if isinstance(top, FunctionNode) else list(self.ctx.flow_body())

    # -- expressions ---------------------------------------------------------------------------------------

    def _expr(self, expr: ast.AST, flags: Flags) -> None:
        key = id(expr)
        calls = self._calls_in.get(key)
        if calls is None:
            # The calls under an expression depend on its subtree only: the chunk keeps them for every
            # later walk (an edit elsewhere walks the file again, not this expression).
            chunk = self.ctx.chunk_of(expr)
            if chunk is None:
                calls = [n for n in post_order(expr, self.ctx.kids) if isinstance(n, ast.Call)]
            else:
                calls = chunk.post_order_calls.get(key)
                if calls is None:
                    calls = [n for n in post_order(expr, chunk.kids) if isinstance(n, ast.Call)]
                    chunk.post_order_calls[key] = calls
            self._calls_in[key] = calls
        for call in calls:
            self._call(call, flags)

    def _call(self, call: ast.Call, flags: Flags) -> None:
        name = self.ctx.call_name(call)
        self.steps.append(
            Step(
                call,
                name,
                flags.in_loop,
                flags.in_handler,
                flags.error_branch,
                flags.in_finally,
                flags.path,
                len(self.steps),
            )
        )
        targets: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        local = self.ctx.local_function(call)
        if local is not None:
            targets.append(local)
        elif isinstance(call.func, ast.Name) and call.func.id in self.ctx.classes:
            init = [
                s
                for s in self.ctx.classes[call.func.id].body
                if isinstance(s, ast.FunctionDef) and s.name == "__init__"
            ]
            targets.extend(init)
        elif isinstance(call.func, ast.Attribute) and name is None:
            candidates = self.ctx.methods.get(call.func.attr, [])
            if len(candidates) == 1:
                targets.append(candidates[0])
        if name not in ("atexit.register", "signal.signal"):
            for arg in (*call.args, *(kw.value for kw in call.keywords)):
                if (
                    isinstance(arg, ast.Name)
                    and arg.id in self.ctx.functions
                    and arg.id not in self.ctx.aliases
                ):
                    targets.append(self.ctx.functions[arg.id])
        for func in targets:
            self._function(func, flags, call)

    def _function(
        self, func: ast.FunctionDef | ast.AsyncFunctionDef, flags: Flags, site: ast.AST | None = None
    ) -> None:
        if func in self._stack or self._inlined.get(func, 0) >= MAX_INLINE_PER_FUNCTION:
            return
        self._inlined[func] = self._inlined.get(func, 0) + 1
        self.reached.add(func)
        self._entered.append(func)
        self._frames += 1
        inner = Flags(
            flags.in_loop,
            flags.in_handler,
            flags.error_branch,
            flags.in_finally,
            (*flags.path, (id(site) if site is not None else id(func), -1 - self._frames)),
        )
        self._stack.append(func)
        try:
            self._block(func.body, inner)
        finally:
            self._stack.pop()


_StatementWalker = Callable[[Flow, Any, Flags], bool]
_STATEMENTS: dict[type[ast.stmt], _StatementWalker] = {
    ast.FunctionDef: Flow._function_def,
    ast.AsyncFunctionDef: Flow._function_def,
    ast.ClassDef: Flow._class_def,
    ast.If: Flow._if,
    ast.For: Flow._loop,
    ast.AsyncFor: Flow._loop,
    ast.While: Flow._loop,
    ast.Try: Flow._try,
    ast.TryStar: Flow._try,
    ast.With: Flow._with,
    ast.AsyncWith: Flow._with,
    ast.Match: Flow._match,
}
"""How each compound statement is walked (simple statements: their expressions, then whether they leave)."""
