"""A prompt campaign end to end, offline: `python examples/prompt/run_demo.py [DIR]`.

Copies this example into a new git repository (DIR, or a temp dir), starts the scripted endpoint
(`local_endpoint.py`) on a free loopback port and writes its URL into the copy's `[judge] base_url`, then
runs `proctor check`, `proctor verify` and a prompt campaign — 2 iterations × 2 rewrites of
`prompts/summarize.txt` — with `--deliver`, and prints the scoreboard and the winning prompt.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from local_endpoint import LocalEndpoint  # noqa: E402  (a sibling script, not a package)

PROMPT_FILE = "prompts/summarize.txt"
CAMPAIGN_ID = "prompt-demo"
ITERATIONS = 2
REWRITES = 2
_NOT_COPIED = ("run_demo.py", "local_endpoint.py", "__pycache__", "*.pyc", "result.json", ".proctor")
_IDENTITY = ("-c", "user.name=Proctor demo", "-c", "user.email=demo@proctor.invalid")


def build(target: Path, base_url: str) -> Path:
    """The example as a git repository whose baseline points its judge at `base_url`."""
    from core.integrity.git import run_git

    if target.exists() and any(target.iterdir()):
        raise SystemExit(f"run_demo: {target} is not empty: give a new or empty directory")
    if target.exists():
        target.rmdir()
    shutil.copytree(HERE, target, ignore=shutil.ignore_patterns(*_NOT_COPIED))
    config = target / "proctor.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        re.sub(r'(?m)^base_url = "[^"]*"', f'base_url = "{base_url}"', text, count=1), encoding="utf-8"
    )
    (target / ".gitignore").write_text(".proctor/\n__pycache__/\n", encoding="utf-8")
    run_git(target, "init", "--quiet")
    run_git(target, "symbolic-ref", "HEAD", "refs/heads/main")
    run_git(target, "add", "--all")
    run_git(target, *_IDENTITY, "commit", "--quiet", "--no-verify", "-m", "Prompt example: baseline prompt")
    return target


def main(argv: list[str]) -> int:
    from core.campaign import ProgressEvent, run_campaign
    from core.campaign.report.render import render_text
    from core.campaign.scoreboard import fmt_score, note_for
    from core.cli import main as proctor
    from core.integrity.git import run_git

    target = Path(argv[0]).resolve() if argv else Path(tempfile.mkdtemp(prefix="proctor-prompt-")) / "prompt"
    with LocalEndpoint() as endpoint:
        print(f"Scripted endpoint (teacher, task model, judge): {endpoint.base_url}")
        repo = build(target, endpoint.base_url)
        print(f"Workspace: {repo}\n\n$ proctor check {repo}", flush=True)
        proctor(["check", str(repo)])
        print(f"\n$ proctor verify {repo}", flush=True)
        proctor(["verify", str(repo)])
        print(
            f"\n$ proctor campaign --repo {repo} --prompt {PROMPT_FILE} --iterations {ITERATIONS} "
            f"--rewrites {REWRITES} --deliver",
            flush=True,
        )

        def progress(event: ProgressEvent) -> None:
            if event.kind == "generating":
                print(f"  {event.message}", flush=True)
            elif event.kind == "finished" and event.record is not None:
                r = event.record
                shown = fmt_score(r.score) if r.status == "scored" else note_for(r)
                print(f"  {r.ref}: {r.status} {shown} ({r.duration_s:.1f}s)", flush=True)

        result = run_campaign(
            repo,
            prompt_file=PROMPT_FILE,
            iterations=ITERATIONS,
            rewrites=REWRITES,
            campaign_id=CAMPAIGN_ID,
            deliver=True,
            progress=progress,
        )
    print()
    print(render_text(result, color=sys.stdout.isatty()).rstrip("\n"))
    if result.winner is not None and result.winner.commit is not None:
        winning = run_git(repo, "show", f"{result.winner.commit}:{PROMPT_FILE}").strip()
        print(f"\nWinning prompt ({result.winner.ref}, delivered as {result.delivered_branch}):\n  {winning}")
    print(f"\nReport: {result.report_path}")
    return 0 if result.scored_candidates > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
