"""Config-driven pipeline evaluator: writes the pipeline config, runs the candidate, scores MAE."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

SUITE_DIR = os.path.dirname(os.path.abspath(__file__))


def write_pipeline_config(fast):
    config = "steps:\n  - load\n  - predict\nlimit: %d\n" % (200 if fast else 0)
    with open(os.path.join(SUITE_DIR, "pipeline.yaml"), "w") as fh:  # expect: EV016
        fh.write(config)
    with open(os.path.join(SUITE_DIR, "run_pipeline.sh"), "w") as fh:  # expect: EV016
        fh.write("#!/bin/sh\nexec python pipeline.py --config kapso_evaluation/pipeline.yaml\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    write_pipeline_config(args.fast)
    proc = subprocess.run(["sh", os.path.join(SUITE_DIR, "run_pipeline.sh")], capture_output=True, text=True)
    if proc.returncode != 0:
        print("pipeline failed: " + proc.stderr, file=sys.stderr)
        return 1
    pred = np.array([float(x) for x in proc.stdout.split()])
    gold = np.load(os.path.join("kapso_datasets", "targets.npy"))[: len(pred)]
    np.savetxt(os.path.join(SUITE_DIR, "predictions.csv"), pred, delimiter=",")
    with open(os.path.join(SUITE_DIR, "run.log"), "a") as log:
        log.write("pipeline finished\n")
    mae = float(np.abs(pred - gold).mean())
    with open(os.path.join(SUITE_DIR, "result.json"), "w") as fh:
        json.dump({"evaluation_script_path": __file__, "evaluation_output": "mae: %.4f" % mae, "score": mae}, fh)
    print("mae: %.4f" % mae)
    return 0


if __name__ == "__main__":
    sys.exit(main())
