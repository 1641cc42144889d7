"""Scene listing and loading for the depth evaluator."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def list_scenes(root: Path) -> list[Path]:
    return sorted(root.glob("scene_*.npz"))


def load_scene(path: Path) -> tuple[np.ndarray, np.ndarray]:
    with np.load(path) as scene:
        return scene["image"], scene["depth"]
