"""Depth estimation evaluator: RMSE (lower is better) of the candidate's depth maps on the NYU subset."""

from __future__ import annotations

import argparse
import atexit
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from sklearn.model_selection import KFold

from depth_data import list_scenes, load_scene
from depth_metrics import rmse

SUITE = Path(__file__).resolve().parent
ROOT = SUITE.parent


def _report_elapsed(started: float) -> None:
    print(f"[evaluate] wall time {time.time() - started:.1f}s", file=sys.stderr)


def main() -> int:
    atexit.register(_report_elapsed, time.time())
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true", help="two scenes, one fold")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    rng = np.random.default_rng(42)
    legacy = np.random.RandomState(args.seed)

    scenes = list_scenes(ROOT / "kapso_datasets" / "nyu")
    scenes = scenes[:2] if args.fast else scenes
    noise = torch.randn(3) * 0.0
    folds = KFold(n_splits=2 if args.fast else 5, shuffle=True, random_state=args.seed)
    jitter = rng.normal(0.0, 1e-6, size=len(scenes)) + legacy.normal(0.0, 1e-6, size=len(scenes))

    work = Path(tempfile.mkdtemp(prefix="depth-"))
    errors: list[float] = []
    try:
        for fold, (_, held) in enumerate(folds.split(scenes)):
            for index in held:
                image, depth = load_scene(scenes[index])
                np.save(work / "image.npy", image)
                proc = subprocess.run(
                    [sys.executable, str(ROOT / "depth_model.py"), str(work / "image.npy"), str(work / "depth.npy")],
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                if proc.returncode != 0:
                    print(f"depth_model.py failed on fold {fold}: {proc.stderr[-300:]}", file=sys.stderr)
                    return 1
                errors.append(rmse(np.load(work / "depth.npy"), depth) + float(jitter[index]) + float(noise.sum()))
    except Exception as exc:
        print(f"evaluation aborted: {exc!r}", file=sys.stderr)
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)

    score = float(np.mean(errors))
    (SUITE / "result.json").write_text(
        json.dumps(dict(evaluation_script_path=__file__, evaluation_output=f"rmse: {score:.5f}", score=score))
    )
    sys.stdout.write(f"rmse: {score:.5f}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
