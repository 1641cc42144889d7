"""Agent benchmark evaluator: fraction of tasks the candidate agent solves."""

from __future__ import annotations

import argparse
import importlib
import json
import runpy
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent
sys.path.insert(0, str(SUITE.parent))


def load_agent(name: str):
    module = importlib.import_module(name)  # expect: EV014
    return module.Agent()


def warm_up() -> None:
    runpy.run_path(str(SUITE.parent / "agent" / "setup_cache.py"), run_name="__main__")  # expect: EV014


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    parser.add_argument("--agent", default="agent.core")
    args = parser.parse_args()
    warm_up()
    agent = load_agent(args.agent)
    tasks = json.loads(Path("kapso_datasets/tasks.json").read_text())
    tasks = tasks[:5] if args.fast else tasks
    solved = 0
    for task in tasks:
        answer = agent.solve(task["prompt"])
        solved += answer.strip() == task["expected"].strip()
    rate = solved / len(tasks)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"solve_rate: {rate:.3f}", "score": rate})
    )
    print(f"solve_rate: {rate:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
