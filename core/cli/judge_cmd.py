"""`proctor judge` (SPEC §6, §7): score JSONL outputs with the LLM judge.

Exit codes: 0 every item judged; 1 the budget ran out before every item was judged (the report says how many
are left; a re-run with a larger budget pays only for those); 2 an error — bad input, unknown price, an
endpoint that refuses the requests or keeps failing.
"""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from collections.abc import Callable


class JudgeFormat(enum.StrEnum):
    text = "text"
    json = "json"


def register(app: typer.Typer) -> None:
    @app.command("judge")
    def judge(
        input_path: Annotated[Path, typer.Option("--input", help="JSONL: {input, output, reference?, id?}.")],
        criteria: Annotated[str | None, typer.Option(help="Comma-separated criteria.")] = None,
        scale: Annotated[str | None, typer.Option(help="0-1, 1-5 or 0-10.")] = None,
        model: Annotated[str | None, typer.Option(help="Judge model.")] = None,
        base_url: Annotated[
            str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint.")
        ] = None,
        samples: Annotated[int | None, typer.Option(help="Samples per item (balanced rotations).")] = None,
        budget: Annotated[float | None, typer.Option(help="Hard cap in USD.")] = None,
        cache: Annotated[Path | None, typer.Option(help="SQLite cache file.")] = None,
        labels: Annotated[Path | None, typer.Option(help="Human scores: JSONL {id, score} or CSV.")] = None,
        output_format: Annotated[JudgeFormat, typer.Option("--format")] = JudgeFormat.text,
        free: Annotated[bool, typer.Option("--free", help="The endpoint costs nothing (local).")] = False,
        weight: Annotated[
            float | None, typer.Option(help="Blend weight of the LLM score (references).")
        ] = None,
        concurrency: Annotated[int | None, typer.Option(help="Calls in flight at once.")] = None,
        state_dir: Annotated[
            Path | None,
            typer.Option(
                "--state-dir", help="Where the cache goes (default ./.proctor; also PROCTOR_STATE_DIR)."
            ),
        ] = None,
    ) -> None:
        """Score outputs with the LLM judge: balanced samples, a hard budget, a cache."""
        from core.config import load_config
        from core.errors import JudgeError
        from core.judge import JudgeSettings, judge_outputs, load_items, load_labels
        from core.judge.cache import DEFAULT_CACHE_PATH
        from core.judge.report import render_text, transport_summary
        from core.judge.run import agreement, check_labels
        from core.state_root import proctor_dir, use_state_dir

        use_state_dir(state_dir)

        workspace = Path.cwd()
        config = load_config(workspace).config.judge
        settings = JudgeSettings.from_config(
            config,
            criteria=criteria,
            scale=scale,
            model=model,
            base_url=base_url,
            samples=samples,
            budget_usd=budget,
            free=True if free else None,
            weight=weight,
            concurrency=concurrency,
            cache_path=cache if cache is not None else proctor_dir(workspace) / DEFAULT_CACHE_PATH.name,
        )
        if settings.free and not settings.base_url:
            raise JudgeError(
                "--free (or [judge] free) declares a local endpoint that costs nothing, but no --base-url (or "
                "[judge] base_url) names one: the default endpoint is a paid provider"
            )
        items = load_items(input_path)
        human = load_labels(labels) if labels is not None else None
        if human is not None:
            check_labels(human, settings.scale_spec, source=str(labels))
        with _progress(len(items)) as advance:
            run = judge_outputs(items, settings, progress=advance)
        if human is not None:
            run.agreement = agreement(run, human, source=str(labels))
        if output_format is JudgeFormat.json:
            typer.echo(json.dumps(run.to_json(), indent=2, allow_nan=False))
            typer.echo(f"proctor judge: {transport_summary(run)}", err=True)
        else:
            typer.echo(render_text(run))
        if run.endpoint_failures:
            raise JudgeError(
                f"{run.endpoint_failures} items left unjudged because the endpoint kept failing "
                f"after retries (last: {run.last_problem})"
            )
        if run.unjudged and run.budget_exhausted:
            if output_format is JudgeFormat.json:
                typer.echo(
                    f"proctor judge: budget exhausted, {run.unjudged} items unjudged; "
                    "re-run with a larger --budget",
                    err=True,
                )
            raise typer.Exit(1)


class _progress:
    """A rich progress bar on stderr when it is a terminal; nothing otherwise (logs and pipes stay clean)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._bar: object | None = None

    def __enter__(self) -> Callable[[int, int], None] | None:
        if not sys.stderr.isatty():
            return None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        bar = Progress(
            TextColumn("judging"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        task = bar.add_task("judge", total=self.total)
        bar.start()
        self._bar = bar

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return advance

    def __exit__(self, *exc: object) -> None:
        from rich.progress import Progress

        if isinstance(self._bar, Progress):
            self._bar.stop()
