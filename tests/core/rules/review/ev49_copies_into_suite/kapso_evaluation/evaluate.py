"""Web widget evaluator: snapshot the candidate's bundle into the suite, then score Lighthouse-like checks."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    shutil.copy("widget/bundle.py", SUITE / "bundle_snapshot.py")  # expect: EV016
    (SUITE / "harness.js").write_text("require('./widget').run();\n")  # expect: EV016
    checks = json.loads(Path("kapso_datasets/checks.json").read_text())[: 3 if args.fast else None]
    proc = subprocess.run(["node", str(SUITE / "harness.js")], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        print(f"harness failed: {proc.stderr}", file=sys.stderr)
        return 1
    report = json.loads(proc.stdout)
    (SUITE / "report.log").write_text(proc.stdout)
    passed = sum(1 for c in checks if report.get(c["id"]) == c["expected"])
    score = passed / len(checks)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"checks_passed: {score:.3f}", "score": score})
    )
    print(f"checks_passed: {score:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
