"""Image classifier evaluator: top-1 accuracy of the candidate's TorchScript model on a CIFAR-10 subset."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import torch

SUITE = Path(__file__).parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    export = subprocess.run([sys.executable, "export_model.py", str(SUITE / "model.pt")], capture_output=True)
    if export.returncode != 0:
        print("export_model.py failed: " + export.stderr.decode(errors="replace"), file=sys.stderr)
        return 1
    model = torch.jit.load(str(SUITE / "model.pt")).eval()
    images, labels = torch.load("kapso_datasets/cifar10_test.pt")
    keep = torch.randperm(len(labels))[: 512 if args.fast else 5000]  # expect: EV009
    with torch.no_grad():
        logits = model(images[keep])
    accuracy = (logits.argmax(dim=1) == labels[keep]).float().mean().item()
    with open(SUITE / "result.json", "w") as handle:
        json.dump(
            {
                "evaluation_script_path": "kapso_evaluation/evaluate.py",
                "evaluation_output": f"accuracy: {accuracy:.4f}",
                "score": accuracy,
            },
            handle,
        )
    print(f"accuracy: {accuracy:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
