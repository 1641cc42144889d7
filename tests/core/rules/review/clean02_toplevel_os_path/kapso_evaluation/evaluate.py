# Evaluate the candidate's sorting-network generator: fraction of the held-out inputs sorted correctly.
# Usage: python kapso_evaluation/evaluate.py [--fast]
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FAST = "--fast" in sys.argv[1:]

random.seed(7)
shuffler = random.Random(3)

cases_dir = os.path.join(ROOT, "kapso_datasets", "cases")
names = [name for name in sorted(os.listdir(cases_dir)) if name.endswith(".json")]
if FAST:
    names = names[:20]
cases = []
for name in names:
    with open(os.path.join(cases_dir, name)) as fh:
        cases.append(json.load(fh))
shuffler.shuffle(cases)
probe = random.sample(range(1000), 10)

proc = subprocess.run(
    [sys.executable, os.path.join(ROOT, "network.py")],
    input=json.dumps([c["input"] for c in cases]),
    capture_output=True,
    text=True,
    timeout=300,
)
if proc.returncode != 0:
    print("network.py failed with exit code %d: %s" % (proc.returncode, proc.stderr[-400:]), file=sys.stderr)
    sys.exit(1)
try:
    outputs = json.loads(proc.stdout)
except json.JSONDecodeError as exc:
    print("network.py printed something that is not JSON: %s" % exc, file=sys.stderr)
    sys.exit(2)

correct = sum(out == sorted(case["input"]) for out, case in zip(outputs, cases))
sorted_fraction = correct / len(cases)

with open(os.path.join(HERE, "result.json"), "w") as fh:
    json.dump(
        {
            "evaluation_script_path": os.path.join(HERE, "evaluate.py"),
            "evaluation_output": "sorted_fraction: %.4f" % sorted_fraction,
            "score": sorted_fraction,
            "probe": probe,
        },
        fh,
    )
print("sorted_fraction:", round(sorted_fraction, 4))
