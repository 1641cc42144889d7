"""Digit classifier evaluator: top-1 accuracy on the MNIST test subset."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    data = np.load(os.path.join("kapso_datasets", "mnist_eval.npz"))
    images, targets = data["images"], data["targets"]
    if args.fast:
        images, targets = images[:256], targets[:256]
    np.save("/tmp/mnist_images.npy", images)
    result = subprocess.run(
        [sys.executable, "classify.py", "/tmp/mnist_images.npy"], capture_output=True, text=True
    )
    if result.returncode != 0:
        sys.stderr.write("classify.py failed: %s\n" % result.stderr)
        sys.exit(1)
    predicted = np.array([int(tok) for tok in result.stdout.split()])
    accuracy = float((predicted == targets).mean())
    with open(os.path.join(os.getcwd(), "result.json"), "w") as out:  # expect: EV005
        json.dump(
            {
                "evaluation_script_path": os.path.abspath(__file__),
                "evaluation_output": "top1: %.4f" % accuracy,
                "score": accuracy,
            },
            out,
        )
    print("top1: %.4f" % accuracy)


if __name__ == "__main__":
    main()
