"""`proctor campaign` and `proctor demo` (SPEC §5, §6).

Exit codes: 0 the campaign finished (rejections and failures included), 1 no candidate could be scored,
2 the campaign could not start or resume (handled centrally for ProctorError).
"""

from __future__ import annotations

import contextlib
import enum
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from core.campaign.recording import ProgressEvent


class OutputFormat(enum.StrEnum):
    text = "text"
    json = "json"


def register(app: typer.Typer) -> None:
    app.command("campaign")(campaign)
    app.command("demo")(demo)


def campaign(
    refs: Annotated[
        list[str] | None,
        typer.Argument(
            help="Candidate refs or ref globs (also accepted after --candidates).", show_default=False
        ),
    ] = None,
    repo: Annotated[Path, typer.Option("--repo", help="The git repository to measure.")] = Path("."),
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="The trusted commit (default HEAD).")
    ] = None,
    candidates: Annotated[
        list[str] | None,
        typer.Option("--candidates", help="Candidate refs or ref globs (repeat, or list after one flag)."),
    ] = None,
    generator: Annotated[
        str | None,
        typer.Option("--generator", help="A shell command that makes one candidate commit per run."),
    ] = None,
    iterations: Annotated[
        int | None,
        typer.Option("--iterations", help="How many times the generator runs, or rounds of prompt rewrites."),
    ] = None,
    prompt: Annotated[
        str | None,
        typer.Option(
            "--prompt",
            help="Prompt source: a teacher model rewrites this workspace file (needs --iterations; the "
            "evaluator must use the judge, at sandbox 'process').",
        ),
    ] = None,
    rewrites: Annotated[
        int | None, typer.Option("--rewrites", help="Prompt rewrites per iteration (default 2).")
    ] = None,
    task: Annotated[
        str | None,
        typer.Option("--task", help="The task description the teacher reads (default: the brief's Goal)."),
    ] = None,
    parallel: Annotated[
        int | None, typer.Option("--parallel", help="Candidates at once; 0 = number of CPUs.")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the latest (or --campaign-id) campaign.")
    ] = False,
    deliver: Annotated[
        bool, typer.Option("--deliver", help="Create branch proctor/delivered/<id> at the winner.")
    ] = False,
    output: Annotated[
        OutputFormat, typer.Option("--format", help="text or json (schema 1).")
    ] = OutputFormat.text,
    report: Annotated[Path | None, typer.Option("--report", help="Also write the HTML report here.")] = None,
    iteration_evaluator: Annotated[
        str | None,
        typer.Option("--iteration-evaluator", help="External iteration evaluator `module:function`."),
    ] = None,
    iteration_evaluator_failure_policy: Annotated[
        str | None, typer.Option("--iteration-evaluator-failure-policy", help="record (default) or raise.")
    ] = None,
    campaign_id: Annotated[str | None, typer.Option("--campaign-id", help="Name the campaign.")] = None,
    sandbox: Annotated[str | None, typer.Option("--sandbox", help="auto, process or namespace.")] = None,
    state_dir: Annotated[
        Path | None,
        typer.Option(
            "--state-dir",
            help="Where checkpoints, scoreboards and reports go (default <repo>/.proctor; also PROCTOR_STATE_DIR).",
        ),
    ] = None,
    queue: Annotated[
        str | None,
        typer.Option(
            "--queue",
            envvar="PROCTOR_QUEUE",
            help="Measure on `proctor worker`s through this queue (redis://HOST:PORT/DB or sqlite:///PATH); "
            "default: a local process pool.",
        ),
    ] = None,
    queue_repo: Annotated[
        str | None,
        typer.Option(
            "--queue-repo", help="Where workers read the commits: a git URL or shared path (default --repo)."
        ),
    ] = None,
) -> None:
    """Measure candidates against a baseline, reject the tampered, rank the rest, deliver the winner."""
    from core.atomic import atomic_write_text
    from core.campaign.engine import run_campaign
    from core.campaign.report.render import render_html, render_json, render_text
    from core.state_root import use_state_dir

    use_state_dir(state_dir)

    # `--candidates a b c`: typer gives the flag one value; the words after it arrive as positional refs.
    wanted = [*(candidates or []), *(refs or [])] or None
    with _Progress(enabled=sys.stderr.isatty()) as progress, _resume_hint(progress, repo):
        result = run_campaign(
            repo,
            baseline=baseline,
            candidates=wanted,
            generator=generator,
            iterations=iterations,
            parallel=parallel,
            sandbox=sandbox,
            resume=resume,
            deliver=deliver,
            campaign_id=campaign_id,
            iteration_evaluator=iteration_evaluator,
            iteration_evaluator_failure_policy=iteration_evaluator_failure_policy,
            progress=progress.update,
            prompt_file=prompt,
            task=task,
            rewrites=rewrites,
            queue=None
            if queue in (None, "", "sqlite")
            else queue,  # the App's "sqlite": the embedded default
            queue_repo=queue_repo,
        )
    if report is not None:
        atomic_write_text(report, render_html(result))
    if output is OutputFormat.json:
        typer.echo(render_json(result))
    else:
        typer.echo(render_text(result, color=sys.stdout.isatty()), nl=False)
        typer.echo(f"Report: {report or result.report_path}")
    raise typer.Exit(0 if result.scored_candidates > 0 else 1)


def demo(
    directory: Annotated[
        Path | None, typer.Argument(help="Where to build the demo (default: a new temp dir).")
    ] = None,
) -> None:
    """Build the example workspace with candidate branches and run check, verify and a campaign on it."""
    from core.demo import run_demo

    raise typer.Exit(run_demo(directory))


@contextlib.contextmanager
def _resume_hint(progress: _Progress, repo: Path) -> Iterator[None]:
    """On Ctrl-C, say how to continue: finished candidates are in the checkpoint (the work dirs are gone)."""
    try:
        yield
    except KeyboardInterrupt:
        cid = progress.campaign_id
        where = "" if repo == Path(".") else f" --repo {shlex.quote(str(repo))}"
        if cid is None:
            print("proctor: interrupted before the campaign started; nothing to resume", file=sys.stderr)
        else:
            print(
                f"proctor: interrupted: campaign {cid} stopped, finished candidates are saved; continue with: "
                f"proctor campaign{where} --resume --campaign-id {cid}",
                file=sys.stderr,
            )
        raise typer.Exit(130) from None


class _Progress:
    """A rich progress bar on a terminal; plain lines on stderr otherwise (logs, CI)."""

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.campaign_id: str | None = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            bar = Progress(
                TextColumn("[bold]campaign"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("running {task.fields[running]}"),
                TextColumn("[red]rejected {task.fields[rejected]}"),
                TextColumn("[yellow]failed {task.fields[failed]}"),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(file=sys.stderr),
                transient=True,
            )
            bar.start()
            self.bar = bar
            self.task = bar.add_task("campaign", total=None, running=0, rejected=0, failed=0)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def update(self, event: ProgressEvent) -> None:
        self.campaign_id = event.campaign_id
        if event.kind == "start":
            self._say(_start_line(event))
            for warning in event.warnings:
                self._say(f"warning: {warning}")
        if self.bar is not None and self.task is not None:
            self.bar.update(
                self.task,
                total=event.total,
                completed=event.done,
                running=event.running,
                rejected=event.rejected,
                failed=event.failed,
            )
            if event.kind == "finished" and event.record is not None:
                self.bar.console.print(_line(event), markup=False, highlight=False)
            return
        if event.kind == "generating":
            print(f"proctor: {event.message}", file=sys.stderr, flush=True)
        elif event.record is not None:
            print(f"proctor: {_line(event)}", file=sys.stderr, flush=True)

    def _say(self, text: str) -> None:
        if self.bar is not None:
            self.bar.console.print(f"proctor: {text}", markup=False, highlight=False)
        else:
            print(f"proctor: {text}", file=sys.stderr, flush=True)


def _start_line(event: ProgressEvent) -> str:
    """The first line a campaign prints: which config it measures with, then how many candidates."""
    where = f"{event.message}; " if event.message else ""
    return f"campaign {event.campaign_id}: {where}{event.total} candidate(s)"


def _line(event: ProgressEvent) -> str:
    from core.campaign.scoreboard import fmt_score, note_for, short

    record = event.record
    assert record is not None
    where = "baseline" if record.index == 0 else f"[{event.done}/{event.total}]"
    text = f"{where} {record.ref} {short(record.commit)} {record.status}"
    if record.status == "scored":
        text += f" {record.metric_name}: {fmt_score(record.score)}"
    else:
        text += f": {note_for(record)}"
    return f"{text} ({record.duration_s:.1f}s)"
