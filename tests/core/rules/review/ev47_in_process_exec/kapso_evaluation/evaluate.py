"""Heuristic solver evaluator: loads the candidate's solver file and times nothing, just checks answers."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent
ROOT = SUITE.parent


def load_solver():
    spec = importlib.util.spec_from_file_location("solver", ROOT / "solver.py")  # expect: EV014
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.solve


def load_constants() -> dict[str, float]:
    namespace: dict[str, float] = {}
    exec(open(ROOT / "constants.py").read(), namespace)  # expect: EV014
    return namespace


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    solve = load_solver()
    constants = load_constants()
    puzzles = json.loads(Path("kapso_datasets/puzzles.json").read_text())[: 5 if args.fast else None]
    solved = 0
    for puzzle in puzzles:
        try:
            answer = solve(puzzle["grid"], constants)
        except Exception as exc:
            print(f"solver crashed on {puzzle['id']}: {exc}", file=sys.stderr)
            return 1
        solved += answer == puzzle["solution"]
    rate = solved / len(puzzles)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"solved: {rate:.3f}", "score": rate})
    )
    print(f"solved: {rate:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
