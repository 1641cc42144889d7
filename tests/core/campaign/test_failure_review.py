"""A campaign over candidates written by someone else: hostile or sloppy output never crashes, each gets
the right status (SPEC §4.3 failed vs rejected, §5.2, §5.3), through the CLI's JSON.

The trusted evaluator here hands the whole run to the candidate (`exec`), so the candidate controls the
evaluator process's output, exit status, children and result.json exactly as a broken evaluator would.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.cli import main
from tests.core.campaign.conftest import Workspace, build_workspace

EXEC_EVALUATOR = '''\
"""Trusted test evaluator: the candidate's program runs as the evaluator process itself."""
import os
import sys

os.execv(sys.executable, [sys.executable, "solution/predict.py", *sys.argv[1:]])
'''

WRITE_RESULT = """\
import json
from pathlib import Path


def write_result(score):
    Path("kapso_evaluation/result.json").write_text(json.dumps({
        "evaluation_script_path": "kapso_evaluation/evaluate.py",
        "evaluation_output": "",
        "score": score,
    }))
"""

CONFIG = """\
timeout_s = 2
metric = "score"

[campaign]
sandbox = "process"
parallel = 2
"""


def program(body: str) -> str:
    return WRITE_RESULT + "\n" + body


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting for its reaper counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[tuple[Workspace, Path]]:
    ws = build_workspace(tmp_path / "repo", config=CONFIG)
    ws.write("kapso_evaluation/evaluate.py", EXEC_EVALUATOR)
    ws.write("solution/predict.py", program("write_result(0.5)\nprint('score: 0.5')\n"))
    ws.commit_all("baseline: the candidate is the evaluator")
    pids = tmp_path / "pids"
    pids.mkdir()
    yield ws, pids
    for path in pids.iterdir():  # processes our candidates started that escaped on purpose
        pid = int(path.read_text())
        if _alive(pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _campaign(
    capsys: pytest.CaptureFixture[str], ws: Workspace, campaign_id: str, *, exit_code: int = 0
) -> dict[str, Any]:
    """Run the campaign; exit 1 means no candidate could be scored (SPEC §6), never a crash."""
    code = main(["campaign", "--format", "json", "--repo", str(ws.root), "--campaign-id", campaign_id])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert code == exit_code, captured.err
    board: dict[str, Any] = json.loads(captured.out)
    return board


def _records(ws: Workspace, campaign_id: str) -> dict[str, dict[str, Any]]:
    state = json.loads((ws.root / ".proctor" / "campaigns" / campaign_id / "state.json").read_text())
    return {r["ref"]: r for r in state["records"]}


def test_every_hostile_output_gets_the_right_status(
    hostile: tuple[Workspace, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ws, pids = hostile
    ws.branch(
        "candidate/hang",
        {"solution/predict.py": "import time\nprint('working', flush=True)\ntime.sleep(60)\n"},
    )
    # 5 MB of multi-byte text: the 1 MiB tail cut lands inside a character and must not look like bad UTF-8.
    ws.branch(
        "candidate/flood",
        {
            "solution/predict.py": program(
                "import sys\nfor i in range(100_000):\n    sys.stdout.write('€' * 16 + f' {i}\\n')\n"
                "write_result(0.6)\nprint('score: 0.6')\n"
            )
        },
    )
    ws.branch("candidate/nan", {"solution/predict.py": program("write_result(0.7)\nprint('score: nan')\n")})
    ws.branch(
        "candidate/bad-utf8",
        {
            "solution/predict.py": program(
                "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\x80 junk\\n')\nsys.stdout.flush()\n"
                "write_result(0.7)\nprint('score: 0.7')\n"
            )
        },
    )
    ws.branch(
        "candidate/bad-utf8-stderr",
        {
            "solution/predict.py": program(
                "import sys\nsys.stderr.buffer.write(b'\\xff\\xfe warning\\n')\nsys.stderr.flush()\n"
                "write_result(0.55)\nprint('score: 0.55')\n"
            )
        },
    )
    ws.branch("candidate/silent", {"solution/predict.py": "raise SystemExit(0)\n"})
    ws.branch(
        "candidate/no-result-json",
        {
            "solution/predict.py": (
                "from pathlib import Path\nPath('kapso_evaluation/result.json').unlink(missing_ok=True)\n"
                "print('score: 0.65')\n"
            )
        },
    )
    ws.branch(
        "candidate/grandchild",
        {
            "solution/predict.py": program(
                "import os, sys, time\nwrite_result(0.8)\nsys.stdout.flush()\n"
                "if os.fork() == 0:\n"
                f"    open({str(pids / 'grandchild')!r}, 'w').write(str(os.getpid()))\n"
                "    time.sleep(60)\n    os._exit(0)\n"
                "print('score: 0.8')\n"
            )
        },
    )
    ws.branch(
        "candidate/daemon",
        {
            "solution/predict.py": program(
                "import os, sys, time\nwrite_result(0.45)\nsys.stdout.flush()\n"
                "if os.fork() == 0:\n    os.setsid()\n"
                f"    open({str(pids / 'daemon')!r}, 'w').write(str(os.getpid()))\n"
                "    time.sleep(60)\n    os._exit(0)\n"
                "print('score: 0.45')\n"
            )
        },
    )

    board = _campaign(capsys, ws, "review")
    rows = {c["ref"]: c for c in board["candidates"]}
    assert {ref: row["status"] for ref, row in rows.items()} == {
        "candidate/bad-utf8": "failed",
        "candidate/bad-utf8-stderr": "scored",
        "candidate/daemon": "scored",
        "candidate/flood": "scored",
        "candidate/grandchild": "scored",
        "candidate/hang": "failed",
        "candidate/nan": "failed",
        "candidate/no-result-json": "scored",
        "candidate/silent": "failed",
    }
    assert board["failed_candidates"] == 4 and board["rejected_candidates"] == 0
    assert board["baseline"]["score"] == 0.5
    scores = {ref: row["score"] for ref, row in rows.items() if row["status"] == "scored"}
    assert scores == {
        "candidate/bad-utf8-stderr": 0.55,
        "candidate/daemon": 0.45,
        "candidate/flood": 0.6,
        "candidate/grandchild": 0.8,
        "candidate/no-result-json": 0.65,
    }
    for ref, row in rows.items():
        if row["status"] == "failed":
            assert row["score"] is None and row["delta"] is None and row["findings"] == [], ref
    # result.json is the evaluator's report; the score is the metric line (SPEC §3.1). Without result.json
    # there are no per-item scores, so no stderr, but the candidate is still scored.
    assert rows["candidate/no-result-json"]["stderr"] is None
    assert board["winner"]["ref"] == "candidate/grandchild"

    records = _records(ws, "review")
    assert "timed out after" in records["candidate/hang"]["reason"]
    assert "working" in records["candidate/hang"]["stdout_tail"]
    assert (
        "no score" in records["candidate/nan"]["reason"]
        and "score: nan" in records["candidate/nan"]["reason"]
    )
    assert "UTF-8" in records["candidate/bad-utf8"]["reason"]
    assert "printed nothing" in records["candidate/silent"]["reason"]
    assert records["candidate/flood"]["stdout_tail"].endswith("score: 0.6\n")

    # The grandchild in the evaluator's process group died with the run; nothing waited for it.
    grandchild = int((pids / "grandchild").read_text())
    assert not _alive(grandchild)


def test_invalid_utf8_is_classified_the_same_every_time(
    hostile: tuple[Workspace, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ws, _pids = hostile
    body = "import sys\nsys.stdout.buffer.write(b'caf\\xe9\\n')\nsys.stdout.flush()\nprint('score: 0.7')\n"
    for name in ("candidate/latin1-a", "candidate/latin1-b"):
        ws.branch(name, {"solution/predict.py": program(body + f"# {name}\n")})
    board = _campaign(capsys, ws, "utf8", exit_code=1)
    assert [c["status"] for c in board["candidates"]] == ["failed", "failed"]
    reasons = {r["reason"] for r in _records(ws, "utf8").values() if r["ref"].startswith("candidate/")}
    assert len(reasons) == 1 and "UTF-8" in reasons.pop()


def test_a_printed_replacement_character_is_valid_utf8(
    hostile: tuple[Workspace, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """U+FFFD encoded properly is valid UTF-8: only undecodable bytes make a run fail."""
    ws, _pids = hostile
    ws.branch(
        "candidate/replacement-char",
        {"solution/predict.py": program("print('note: \\ufffd is a fine character')\nprint('score: 0.7')\n")},
    )
    board = _campaign(capsys, ws, "fffd")
    assert [(c["status"], c["score"]) for c in board["candidates"]] == [("scored", 0.7)]
