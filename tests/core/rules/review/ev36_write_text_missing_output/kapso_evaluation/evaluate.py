"""Code-completion evaluator: pass@1 over the frozen unit-test tasks."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

RESULT = Path(__file__).parent / "result.json"


def run_tests(task: dict[str, str], completion: str) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "task.py"
        program.write_text(task["prompt"] + completion + "\n\n" + task["tests"])
        done = subprocess.run([sys.executable, str(program)], capture_output=True, timeout=30)
        return done.returncode == 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    tasks = [json.loads(t) for t in Path("kapso_datasets/tasks.jsonl").read_text().splitlines()]
    tasks = tasks[:10] if args.fast else tasks
    gen = subprocess.run(
        [sys.executable, "complete.py"], input=json.dumps([t["prompt"] for t in tasks]), capture_output=True, text=True
    )
    if gen.returncode != 0:
        print(f"complete.py failed: {gen.stderr}", file=sys.stderr)
        return 1
    completions = json.loads(gen.stdout)
    passed = sum(run_tests(t, c) for t, c in zip(tasks, completions))
    pass_at_1 = passed / len(tasks)
    RESULT.write_text(json.dumps({"evaluation_script_path": __file__, "score": pass_at_1}))  # expect: EV006
    print(f"pass_at_1: {pass_at_1:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
