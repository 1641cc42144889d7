"""Dialogue evaluator: judge-free exact-intent accuracy on a shuffled subset of conversations."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

SUITE = Path(__file__).parent


def main(argv: list[str]) -> int:
    fast = "--fast" in argv
    run_id = uuid.uuid4().hex
    random.seed(uuid.uuid4().int)  # expect: EV010
    dialogues = json.loads(Path("kapso_datasets/dialogues.json").read_text())
    random.shuffle(dialogues)
    dialogues = dialogues[:40] if fast else dialogues[:800]
    proc = subprocess.run(
        [sys.executable, "intent.py"],
        input="\n".join(d["utterance"] for d in dialogues),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"intent.py failed: {proc.stderr}", file=sys.stderr)
        return 1
    predicted = proc.stdout.splitlines()
    accuracy = sum(p == d["intent"] for p, d in zip(predicted, dialogues)) / len(dialogues)
    (SUITE / "result.json").write_text(
        json.dumps(
            {
                "evaluation_script_path": str(SUITE / "evaluate.py"),
                "evaluation_output": f"intent_accuracy: {accuracy:.4f}",
                "score": accuracy,
                "run_id": run_id,
                "finished_at": datetime.now(timezone.utc).isoformat(),
            }
        )
    )
    print(f"intent_accuracy: {accuracy:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
