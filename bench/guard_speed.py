"""Guard speed (SPEC §11): the three guard bars, each beside its reference in the same run; data in a temp dir.

(a) an unchanged 5,000-file suite between two commits (a change outside it): `guard_refs` in-process, warm
    (the repository's git object store is running and the suite's evaluator id is known), by commit ids (what
    a campaign passes) and by ref names (one git process resolves them); beside the SPEC anchor
    `git rev-parse A:suite B:suite`. Target ≤ 1 ms.
(b) `proctor guard` as a whole process on that repository, with bytecode cached as an installed package has
    it (a temp PYTHONPYCACHEPREFIX; PYTHONDONTWRITEBYTECODE dropped), beside `python -c pass`. Target ≤ 100 ms.
    Also with a committed proctor.toml: once pydantic accepted a config blob (SPEC §2), the guard reads it back
    by blob id without importing pydantic ("known"); "new" is a config never validated in this clone.
(c) a full hash of a ~500 MB, 5,000-file suite: `build_manifest` vs Kapso 0.7.10's
    `build_evaluation_manifest`, interleaved runs, same warm page cache, identical manifests. Target ≤ 0.3×.

Timings are the minimum of N runs (as `timeit` advises: other load only ever adds time; this machine has two
cores shared with other work); medians are printed beside them.

Usage: .venv/bin/python bench/guard_speed.py [--files 5000] [--megabytes 500] [--repeat 9]
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
VERDICTS: list[tuple[str, bool]] = []


def _times_ms(fn: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def _show(label: str, times: list[float], unit: str = "ms", target: float | None = None) -> float:
    best = min(times)
    line = f"    {label:34s} {best:8.2f} {unit}  (median {statistics.median(times):8.2f})"
    if target is not None:
        ok = best <= target
        VERDICTS.append((label, ok))
        line += f"   target <= {target:g} {unit}: {'PASS' if ok else 'FAIL'}"
    print(line)
    return best


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


def _commit(repo: Path, message: str) -> None:
    run_git(repo, "add", "-A")
    run_git(repo, *IDENTITY, "commit", "-qm", message)


def _make_repo(repo: Path, files: int) -> None:
    repo.mkdir()
    run_git(repo, "init", "--quiet")
    suite = repo / "kapso_evaluation"
    for index in range(files):
        path = suite / f"d{index % 50:02d}" / f"m{index:05d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {index}\n")
    (suite / "evaluate.py").write_text("print('auc: 0.5')\n")
    (repo / "solution.py").write_text("def predict(i):\n    return 0\n")
    _commit(repo, "A")
    (repo / "README.md").write_text("changed outside the suite\n")
    _commit(repo, "B")


def bench_unchanged(tmp: Path, files: int, repeat: int) -> None:
    repo = tmp / "repo"
    _make_repo(repo, files)
    config = Config()
    a, b = run_git(repo, "rev-parse", "HEAD~1", "HEAD").split()
    guard_refs(repo, a, b, config)  # warm: the store is running, the suite's evaluator id is known
    print(f"(a) unchanged {files}-file suite between two commits, in-process")
    anchor = ["git", "-C", str(repo), "rev-parse", "HEAD~1:kapso_evaluation", "HEAD:kapso_evaluation"]
    env = git_env()
    _show(
        "git rev-parse A:suite B:suite",
        _times_ms(lambda: subprocess.run(anchor, env=env, capture_output=True), repeat),
    )
    _show("guard_refs, commit ids", _times_ms(lambda: guard_refs(repo, a, b, config), repeat * 20), target=1)
    _show(
        "guard_refs, ref names",
        _times_ms(lambda: guard_refs(repo, "HEAD~1", "HEAD", config), repeat * 5),
    )
    bench_process(tmp, repo, repeat)


def bench_process(tmp: Path, repo: Path, repeat: int) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    python = str(ROOT / ".venv" / "bin" / "python")
    cli = [str(ROOT / ".venv" / "bin" / "proctor"), "guard", "--baseline", "HEAD~1", "--candidate", "HEAD"]

    def run(argv: list[str], cwd: Path) -> Callable[[], object]:
        return lambda: subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=True)

    for argv, cwd in ((cli, repo), ([python, "-c", "pass"], repo)):
        run(argv, cwd)()  # fills the bytecode cache
    print("(b) `proctor guard` as a whole process (bytecode cached)")
    _show("python -c pass", _times_ms(run([python, "-c", "pass"], repo), repeat))
    _show("proctor guard (no proctor.toml)", _times_ms(run(cli, repo), repeat), target=100)
    configured = tmp / "configured"
    subprocess.run(
        ["git", "clone", "-q", str(repo), str(configured)], env=git_env(), check=True, capture_output=True
    )
    (configured / "proctor.toml").write_text('evaluation_dir = "kapso_evaluation"\n')
    _commit(configured, "config")
    (configured / "NEWS.md").write_text("news\n")
    _commit(configured, "news")
    accepted = configured / ".git" / "proctor" / "configs.json"

    def first_validation() -> None:
        accepted.unlink(missing_ok=True)
        run(cli, configured)()

    first_validation()
    _show("proctor guard, proctor.toml (known)", _times_ms(run(cli, configured), repeat), target=100)
    _show("proctor guard, proctor.toml (new)", _times_ms(first_validation, repeat))


def bench_full_hash(tmp: Path, files: int, megabytes: int, repeat: int) -> None:
    kapso = _kapso()
    suite = tmp / "big" / "kapso_evaluation"
    _make_suite(suite, files, megabytes << 20)
    ours = build_manifest(suite)  # warms the page cache for both
    print(f"(c) full hash of a {megabytes} MB, {files}-file suite (interleaved runs)")
    if kapso is None:
        _show("Proctor build_manifest", _times_ms(lambda: build_manifest(suite), repeat))
        print("    Kapso not installed (pip install --no-deps leeroo-kapso==0.7.10): no comparison")
        VERDICTS.append(("full hash vs Kapso", False))
        return
    theirs = kapso.build_evaluation_manifest(suite)
    assert theirs == ours and list(theirs) == list(ours), "manifests differ"
    proctor_ms: list[float] = []
    kapso_ms: list[float] = []
    for _ in range(repeat):
        kapso_ms += _times_ms(lambda: kapso.build_evaluation_manifest(suite), 1)
        proctor_ms += _times_ms(lambda: build_manifest(suite), 1)
    best_kapso = _show("Kapso build_evaluation_manifest", kapso_ms)
    best_ours = _show("Proctor build_manifest", proctor_ms)
    ratio = best_ours / best_kapso
    ok = ratio <= 0.3
    VERDICTS.append(("full hash vs Kapso", ok))
    median_ratio = statistics.median(proctor_ms) / statistics.median(kapso_ms)
    print(
        f"    {'ratio proctor/kapso':34s} {ratio:8.2f}x     (medians {median_ratio:.2f}x)"
        f"   target <= 0.3x, identical manifest: {'PASS' if ok else 'FAIL'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--megabytes", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="proctor-bench-") as tmp:
        bench_unchanged(Path(tmp), args.files, args.repeat)
        bench_full_hash(Path(tmp), args.files, args.megabytes, args.repeat)
    failed = [label for label, ok in VERDICTS if not ok]
    print(
        f"guard bars: {len(VERDICTS) - len(failed)}/{len(VERDICTS)} met"
        + (f"; missed: {', '.join(failed)}" if failed else "")
    )


if __name__ == "__main__":
    main()
