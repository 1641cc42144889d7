# Top-level evaluation script for the spam filter. Run from the workspace root.
import json
import random
import subprocess
import sys

FAST = "--fast" in sys.argv[1:]

with open("kapso_datasets/messages.tsv", encoding="utf-8") as fh:
    rows = [line.rstrip("\n").split("\t") for line in fh if line.strip()]

random.shuffle(rows)  # expect: EV009
random.seed(1234)
sample = random.sample(rows, 100) if FAST else rows

texts = "\n".join(text for text, _ in sample)
out = subprocess.run(
    [sys.executable, "spam_filter.py"], input=texts, capture_output=True, text=True, check=True
).stdout.split()
hits = sum(guess == gold for guess, (_, gold) in zip(out, sample))
accuracy = hits / len(sample)

with open("kapso_evaluation/result.json", "w") as fh:
    json.dump(
        {
            "evaluation_script_path": "kapso_evaluation/evaluate.py",
            "evaluation_output": f"accuracy: {accuracy:.4f}",
            "score": accuracy,
        },
        fh,
    )

print(f"accuracy: {accuracy:.4f}")
print("done")  # expect: EV003
