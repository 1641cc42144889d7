"""External iteration evaluators and a killable CLI entry point used by the campaign tests."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from core.campaign import IterationEvaluationContext, IterationEvaluationResult


def observe(context: IterationEvaluationContext) -> IterationEvaluationResult:
    """Deterministic metrics from the candidate's files; logs each call when PROCTOR_TEST_CALLS is set."""
    calls = os.environ.get("PROCTOR_TEST_CALLS")
    if calls:
        with open(calls, "a", encoding="utf-8") as handle:
            handle.write(f"{context.node.node_id}\n")
    predict = context.workspace_dir / "solution" / "predict.py"
    size = len(predict.read_bytes()) if predict.exists() else 0
    return IterationEvaluationResult(
        metrics={"predict_bytes": float(size), "iteration": float(context.iteration)},
        primary_metric="predict_bytes",
        metadata={"ref": context.git_ref, "parent": context.parent_ref, "goal": context.goal[:20]},
        baseline_metrics={"predict_bytes": 13.0},
        metric_directions={"predict_bytes": "minimize"},
    )


def mutate(context: IterationEvaluationContext) -> IterationEvaluationResult:
    """Tries to change the candidate it measures: the change must not reach anything."""
    (context.workspace_dir / "solution" / "predict.py").write_text("print(99)\n")
    return IterationEvaluationResult(metrics={"ok": 1.0})


def broken(context: IterationEvaluationContext) -> IterationEvaluationResult:
    raise ValueError(f"holdout unavailable for {context.git_ref}")


def main() -> int:
    """`python -m tests.core.campaign.helpers ARGS`: the CLI, with checkpoint writes slowed on request so a
    test can SIGKILL the process in the middle of one."""
    delay = float(os.environ.get("PROCTOR_TEST_SLOW_CHECKPOINT", "0") or 0)
    if delay:
        real_fsync = os.fsync

        def slow_fsync(fd: int) -> None:
            real_fsync(fd)
            try:
                name = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                return
            if Path(name).name.startswith(".state.json."):
                time.sleep(delay)

        os.fsync = slow_fsync
    from core.cli import main as cli_main

    return cli_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
