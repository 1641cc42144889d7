"""Guard speed (SPEC §11), both measurements side by side in one run; data generated in a temp dir.

(a) an unchanged 5,000-file suite between two commits: `guard_refs` in-process (warm: the evaluator id of
    the suite tree is cached) vs `git diff --quiet A B -- kapso_evaluation` as a process; target ≤ 5 ms.
    Also the whole `proctor guard` process (target ≤ 250 ms).
(b) a full hash of a ~500 MB, 5,000-file suite: Proctor's `build_manifest` (2-thread chunked hasher) vs
    Kapso 0.7.10's `build_evaluation_manifest`, same warm page cache, identical manifests; target ≤ 0.55×.

Usage: .venv/bin/python bench/guard_speed.py [--files 5000] [--megabytes 500] [--repeat 7]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.config import Config  # noqa: E402
from core.integrity.git import git_env, run_git  # noqa: E402
from core.integrity.guard import guard_refs  # noqa: E402
from core.integrity.manifest import build_manifest  # noqa: E402

IDENTITY = ("-c", "user.name=bench", "-c", "user.email=bench@proctor.invalid")


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _kapso() -> ModuleType | None:
    for entry in sys.path:
        path = Path(entry) / "kapso" / "execution" / "evaluation_integrity.py"
        if path.is_file():
            spec = importlib.util.spec_from_file_location("_kapso_integrity", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            return module
    return None


def _make_suite(root: Path, files: int, total_bytes: int) -> None:
    size = max(1, total_bytes // files)
    block = os.urandom(1 << 20)
    for index in range(files):
        path = root / f"d{index % 50:02d}" / f"f{index:05d}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        offset = (index * 7919) % (len(block) - min(size, len(block) - 1))
        data = (
            (block[offset:] + block)[:size]
            if size < len(block)
            else (block * (size // len(block) + 1))[:size]
        )
        path.write_bytes(index.to_bytes(4, "big") + data[4:])


def bench_unchanged(tmp: Path, files: int, repeat: int) -> None:
    repo = tmp / "repo"
    repo.mkdir()
    run_git(repo, "init", "--quiet")
    suite = repo / "kapso_evaluation"
    for index in range(files):
        path = suite / f"d{index % 50:02d}" / f"m{index:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {index}\n")
    (suite / "evaluate.py").write_text("print('auc: 0.5')\n")
    (repo / "solution.py").write_text("def predict(i):\n    return 0\n")
    run_git(repo, "add", "-A")
    run_git(repo, *IDENTITY, "commit", "-qm", "A")
    (repo / "README.md").write_text("changed outside the suite\n")
    run_git(repo, "add", "-A")
    run_git(repo, *IDENTITY, "commit", "-qm", "B")
    config = Config()
    guard_refs(repo, "HEAD~1", "HEAD", config)  # warm: evaluator id of the suite tree is computed once
    proctor = _median_ms(lambda: guard_refs(repo, "HEAD~1", "HEAD", config), repeat)
    argv = ["git", "-C", str(repo), "diff", "--quiet", "HEAD~1", "HEAD", "--", "kapso_evaluation"]
    git_ms = _median_ms(lambda: subprocess.run(argv, env=git_env(), check=True), repeat)
    cli = [str(ROOT / ".venv" / "bin" / "proctor"), "guard", "--baseline", "HEAD~1", "--candidate", "HEAD"]
    cli_ms = _median_ms(
        lambda: subprocess.run(cli, cwd=repo, capture_output=True, check=True), max(3, repeat // 2)
    )
    print(f"(a) unchanged {files}-file suite between two commits")
    print(f"    guard_refs in-process     {proctor:8.2f} ms   (target <= 5 ms)")
    print(f"    git diff --quiet A B      {git_ms:8.2f} ms")
    print(f"    ratio proctor/git         {proctor / git_ms:8.2f}x")
    print(f"    `proctor guard` process   {cli_ms:8.1f} ms   (target <= 250 ms)")


def bench_full_hash(tmp: Path, files: int, megabytes: int, repeat: int) -> None:
    kapso = _kapso()
    suite = tmp / "big" / "kapso_evaluation"
    _make_suite(suite, files, megabytes << 20)
    ours = build_manifest(suite)  # warms the page cache for both
    print(f"(b) full hash of a {megabytes} MB, {files}-file suite")
    proctor = _median_ms(lambda: build_manifest(suite), repeat)
    print(f"    Proctor build_manifest    {proctor:8.1f} ms")
    if kapso is None:
        print("    Kapso not installed (pip install --no-deps leeroo-kapso==0.7.10): no comparison")
        return
    theirs = kapso.build_evaluation_manifest(suite)
    assert theirs == ours and list(theirs) == list(ours), "manifests differ"
    kapso_ms = _median_ms(lambda: kapso.build_evaluation_manifest(suite), repeat)
    print(f"    Kapso build_evaluation_manifest {kapso_ms:8.1f} ms")
    print(f"    ratio proctor/kapso       {proctor / kapso_ms:8.2f}x   (target <= 0.55x; identical manifest)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--megabytes", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="proctor-bench-") as tmp:
        bench_unchanged(Path(tmp), args.files, args.repeat)
        bench_full_hash(Path(tmp), args.files, args.megabytes, max(3, args.repeat // 2))


if __name__ == "__main__":
    main()
