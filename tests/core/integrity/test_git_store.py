"""The persistent git object store and the tree diff read through it (SPEC §4.1 fast path, §11).

`diff_trees` must say exactly what `git diff-tree -r` says, an unchanged suite must cost no per-file work and
(with commit ids) no git process, and ref names must never be answered from a long-lived process.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from core.config import Config
from core.errors import GitError
from core.integrity import git as gitcmd
from core.integrity import git_view
from core.integrity.git_trees import diff_trees
from core.integrity.guard import guard_refs
from core.integrity.object_store import object_store, resolve_commits
from tests.core.integrity.helpers import commit_all, git, init_repo, write

# ----------------------------------------------------------------------------------------- diff_trees


def _rand_tree(rng: random.Random, root: Path, depth: int = 0) -> None:
    for _ in range(rng.randint(1, 5)):
        path = root / rng.choice(["a", "b", "c", "x.py", "é", "a.b", "a-b", "z"])
        if os.path.lexists(path):
            continue
        roll = rng.random()
        if roll < 0.3 and depth < 3:
            path.mkdir()
            _rand_tree(rng, path, depth + 1)
        elif roll < 0.4:
            path.symlink_to(rng.choice(["a", "../b", "/etc"]))
        else:
            path.write_text(rng.choice(["1", "2", "3"]))
            if rng.random() < 0.2:
                os.chmod(path, 0o755)


def _mutate(rng: random.Random, root: Path) -> None:
    paths = sorted(p for p in root.rglob("*") if ".git" not in p.parts)
    for path in rng.sample(paths, min(len(paths), rng.randint(1, 4))):
        if not os.path.lexists(path):
            continue
        roll = rng.random()
        if path.is_dir() and not path.is_symlink():
            if roll < 0.3:
                shutil.rmtree(path)
                path.write_text("now a file")
            elif roll < 0.5:
                shutil.rmtree(path)
            else:
                (path / "new").write_text("n")
        elif roll < 0.2:
            path.unlink()
            write(path, {"inner": "i"})
        elif roll < 0.4:
            path.unlink()
        elif roll < 0.5:
            path.unlink()
            path.symlink_to("elsewhere")
        elif not path.is_symlink():
            if roll < 0.7:
                os.chmod(path, 0o644 if os.access(path, os.X_OK) else 0o755)
            else:
                path.write_text(f"changed {rng.random()}")


def _by_path(changes: list[gitcmd.RawChange] | None) -> list[gitcmd.RawChange]:
    assert changes is not None
    return sorted(changes, key=lambda change: change.path)


def _trees(repo: Path, *commits: str) -> list[str]:
    infos = object_store(repo).info([f"{c}^{{tree}}" for c in commits])
    return [info.oid or "" for info in infos]


def test_diff_trees_equals_git_diff_tree(tmp_path: Path) -> None:
    """Random trees, then random edits (type changes, dir <-> file, symlinks, exec bits, gitlinks)."""
    rng = random.Random(20240611)
    statuses: set[str] = set()
    for trial in range(14):
        repo = init_repo(tmp_path / f"r{trial}")
        _rand_tree(rng, repo)
        write(repo, {"keep/deep/file.txt": "unchanged subtree"})
        first = commit_all(repo, "a")
        _mutate(rng, repo)
        if trial % 4 == 0:
            git(repo, "update-index", "--add", "--cacheinfo", f"160000,{first},sub")
        second = commit_all(repo, "b")
        old_tree, new_tree = _trees(repo, first, second)
        for a, b, ta, tb in ((first, second, old_tree, new_tree), (second, first, new_tree, old_tree)):
            expected = _by_path(gitcmd.diff_tree(repo, a, b))
            assert _by_path(diff_trees(object_store(repo), ta, tb)) == expected
            statuses.update(change.status for change in expected)
    assert {"A", "D", "M", "T"} <= statuses  # the random edits reached every kind of change


def test_unusual_tree_falls_back_to_git_itself(tmp_path: Path) -> None:
    """A hand-made tree with a duplicate entry (git fsck warns) is left to `git diff-tree`."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"kapso_evaluation/evaluate.py": "print('auc: 1')\n", "solution.py": "x = 1\n"})
    base = commit_all(repo, "base")
    blob = git(repo, "rev-parse", f"{base}:solution.py").strip()
    suite = git(repo, "rev-parse", f"{base}:kapso_evaluation").strip()
    raw = b"".join(
        f"{mode} {name}\0".encode() + bytes.fromhex(oid)
        for mode, name, oid in (("40000", "kapso_evaluation", suite), ("100644", "solution.py", blob))
    )
    doubled = raw + b"100644 solution.py\0" + bytes.fromhex(blob)
    tree = git(repo, "hash-object", "-t", "tree", "--literally", "-w", "--stdin", input=doubled).strip()
    cand = git(repo, "commit-tree", tree, "-p", base, "-m", "odd").strip()
    (base_tree,) = _trees(repo, base)
    assert diff_trees(object_store(repo), base_tree, tree) is None
    report = guard_refs(repo, base, cand, Config())
    assert report.verdict == "accepted"  # what git diff-tree reports: nothing in the suite changed


# ---------------------------------------------------------------------------------- the store itself


@pytest.fixture
def two_commits(tmp_path: Path) -> tuple[Path, str, str]:
    repo = init_repo(tmp_path / "repo")
    files = {f"kapso_evaluation/d{i % 5}/m{i}.py": f"V = {i}\n" for i in range(60)}
    write(repo, {**files, "kapso_evaluation/evaluate.py": "print('auc: 1')\n", "solution.py": "x = 1\n"})
    base = commit_all(repo, "base")
    write(repo, {"README.md": "outside the suite\n"})
    return repo, base, commit_all(repo, "cand")


def test_unchanged_suite_costs_no_git_process_and_no_listing(
    two_commits: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base, cand = two_commits
    first = guard_refs(repo, base, cand, Config())  # starts the store, learns the suite's evaluator id

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged suite must not start git or list the suite")

    monkeypatch.setattr(subprocess, "run", forbidden)
    monkeypatch.setattr(subprocess, "Popen", forbidden)
    monkeypatch.setattr(gitcmd, "ls_tree", forbidden)
    monkeypatch.setattr(git_view, "_SUITE_CACHE", {})
    again = guard_refs(repo, base, cand, Config())
    assert again == first and again.verdict == "accepted" and not again.findings


def test_ref_names_are_resolved_afresh_after_refs_are_repacked(tmp_path: Path) -> None:
    """A long-lived git can miss a packed-refs file rewritten within the same second; names never go there."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"kapso_evaluation/evaluate.py": "print('auc: 1')\n"})
    base = commit_all(repo, "base")
    write(repo, {"README.md": "honest\n"})
    honest = commit_all(repo, "honest")
    write(repo, {"kapso_evaluation/metrics.py": "def accuracy(*a):\n    return 1.0\n"})
    tampered = commit_all(repo, "tampered")
    for index in range(4):
        target = tampered if index % 2 == 0 else honest
        git(repo, "update-ref", "refs/heads/main", target)
        git(repo, "pack-refs", "--all")
        assert resolve_commits(repo, ["main"]) == [target]
        verdict = guard_refs(repo, base, "main", Config()).verdict
        assert verdict == ("rejected" if target == tampered else "accepted")


def test_store_answers_only_object_ids(two_commits: tuple[Path, str, str]) -> None:
    repo, base, _ = two_commits
    store = object_store(repo)
    with pytest.raises(ValueError, match="object ids"):
        store.info(["HEAD"])
    (info,) = store.info([f"{base}:solution.py"])
    assert info.type == "blob" and store.blobs([info.oid or ""]) == {info.oid: b"x = 1\n"}
    assert store.info([f"{base}:missing.py"])[0].oid is None


def test_store_survives_its_process_dying(two_commits: tuple[Path, str, str]) -> None:
    repo, base, cand = two_commits
    store = object_store(repo)
    store.info([base])
    for proc in list(store._procs.values()):
        proc.kill()
        proc.wait()
    assert guard_refs(repo, base, cand, Config()).verdict == "accepted"


def test_a_new_repository_at_the_same_path_is_read_afresh(tmp_path: Path) -> None:
    """A re-clone at the same path (its directory may even get the old inode back) is never read stale."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"kapso_evaluation/evaluate.py": "print('auc: 1')\n"})
    old = commit_all(repo, "one")
    write(repo, {"README.md": "x\n"})
    guard_refs(repo, old, commit_all(repo, "two"), Config())
    shutil.rmtree(repo)
    init_repo(repo)
    write(repo, {"kapso_evaluation/evaluate.py": "print('auc: 2')\n", "proctor.toml": 'data_dir = "d"\n'})
    base = commit_all(repo, "new one")
    write(repo, {"d/labels.csv": "1\n"})
    cand = commit_all(repo, "new two")
    report = guard_refs(repo, base, cand, Config(data_dir="d"))
    assert {f.code for f in report.findings} == {"IN010"}
    assert object_store(repo).info([old])[0].oid is None


def test_store_errors_are_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GitError, match="not a git repository"):
        guard_refs(plain, "a" * 40, "b" * 40, Config())
    with pytest.raises(GitError, match="does not exist"):
        guard_refs(tmp_path / "missing", "a" * 40, "b" * 40, Config())
    repo = init_repo(tmp_path / "repo")
    write(repo, {"kapso_evaluation/evaluate.py": "print('auc: 1')\n"})
    base = commit_all(repo, "base")
    with pytest.raises(GitError, match=f"ref '{'c' * 40}' does not exist"):
        guard_refs(repo, base, "c" * 40, Config())
    with pytest.raises(GitError, match="ref 'nope' does not exist"):
        guard_refs(repo, "nope", base, Config())


def _verdict_in_child(repo: Path, base: str, cand: str) -> str:
    return guard_refs(repo, base, cand, Config()).verdict


def test_forked_workers_start_their_own_store(two_commits: tuple[Path, str, str]) -> None:
    """Campaign workers are forked: each uses its own git processes, and the parent's keep working."""
    import multiprocessing

    repo, base, cand = two_commits
    parent_store = object_store(repo)
    assert guard_refs(repo, base, cand, Config()).verdict == "accepted"
    with multiprocessing.get_context("fork").Pool(2) as pool:
        verdicts = pool.starmap(_verdict_in_child, [(repo, base, cand)] * 4)
    assert verdicts == ["accepted"] * 4
    assert object_store(repo) is parent_store
    assert guard_refs(repo, base, cand, Config()).verdict == "accepted"
