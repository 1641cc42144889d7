"""SPEC §4.3: materialization is a plain directory read from git objects, and git runs hardened."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from core.config import Config
from core.errors import GitError, IntegrityError
from core.integrity.git import git_argv, git_env, ls_tree, resolve_commit, run_git, run_git_bytes
from core.integrity.materialize import materialize, overlay_trusted_suite
from tests.core.integrity.cases import BASE
from tests.core.integrity.helpers import commit_all, git, init_repo, write


def git_bytes(repo: Path, *args: str) -> bytes:
    return run_git_bytes(repo, *args)


def _commit_tree_with(repo: Path, extra: str) -> str:
    """A commit of HEAD's tree plus hand-made entries (`git mktree`), e.g. paths git would never check out."""
    listing = git(repo, "ls-tree", "HEAD")
    tree = git(repo, "mktree", input=(listing + extra).encode()).strip()
    return git(repo, "commit-tree", tree, "-p", "HEAD", "-m", "hostile").strip()


def _dotgit_tree(repo: Path, name: str) -> str:
    config = git(repo, "hash-object", "-w", "--stdin", input=b"[core]\n\tfsmonitor = touch PWNED\n").strip()
    inner = git(repo, "mktree", input=f"100644 blob {config}\tconfig\n".encode()).strip()
    return git(repo, "mktree", input=f"040000 tree {inner}\t{name}\n".encode()).strip()


def test_materialize_keeps_modes_and_symlinks_and_returns_the_sha(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, {**BASE, "run.sh": "#!/bin/sh\necho hi\n"})
    os.chmod(repo / "run.sh", 0o755)
    (repo / "link").symlink_to("README.md")
    sha = commit_all(repo, "base")
    dest = tmp_path / "out"
    assert materialize(repo, "main", dest) == sha
    assert os.stat(dest / "run.sh").st_mode & 0o111
    assert not os.stat(dest / "kapso_evaluation/metrics.py").st_mode & 0o111
    assert os.readlink(dest / "link") == "README.md"
    assert (dest / "kapso_evaluation/metrics.py").read_text() == BASE["kapso_evaluation/metrics.py"]
    assert not (dest / ".git").exists()
    with pytest.raises(IntegrityError, match="not empty"):
        materialize(repo, "main", dest)


def test_a_candidate_cannot_change_the_repository_git_config(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    (repo / "escape").symlink_to("../.git")
    commit_all(repo, "candidate with a symlink to ../.git")
    before = (repo / ".git/config").read_bytes()
    # Trees holding a `.git/config` path (any case, any depth) are refused outright, never half-written.
    for name, where in ((".git", ""), (".GIT", "sub")):
        inner = _dotgit_tree(repo, name)
        extra = f"040000 tree {inner}\t{where}\n" if where else git(repo, "ls-tree", inner)
        hostile = _commit_tree_with(repo, extra)
        with pytest.raises(GitError, match="invalid path"):
            materialize(repo, hostile, tmp_path / f"refused-{name}")
    dest = tmp_path / "cand"
    materialize(repo, "main", dest)
    assert os.readlink(dest / "escape") == "../.git"  # kept as archived: it points beside the tree, not home
    # The candidate's code runs in its tree and tries the ways a linked worktree would offer back into .git.
    script = (
        "import subprocess, pathlib\n"
        "try:\n"
        "    pathlib.Path('escape/config').write_text('[core]\\n\\tfsmonitor = touch PWNED\\n')\n"
        "except OSError:\n"
        "    pass\n"
        "for args in (['config', 'core.hooksPath', '/tmp/evil'], ['config', 'core.fsmonitor', 'touch PWNED']):\n"
        "    subprocess.run(['git', *args], capture_output=True)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run([sys.executable, "-c", script], cwd=dest, env=env, check=True)
    assert (repo / ".git/config").read_bytes() == before
    assert "hooksPath" not in run_git(repo, "config", "--list", "--local")
    run_git(repo, "status")  # Proctor's next git command runs nothing of the candidate's
    assert not list(tmp_path.rglob("PWNED"))


def test_git_runs_hardened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    commit_all(repo, "base")
    hooks = repo / ".git/hooks"
    (hooks / "post-checkout").write_text("#!/bin/sh\ntouch HOOK_RAN\n")
    os.chmod(hooks / "post-checkout", 0o755)
    run_git(repo, "config", "core.hooksPath", str(hooks))
    monkeypatch.setenv("GIT_DIR", "/nonexistent")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='touch FSMON'")
    env = git_env()
    assert (
        "GIT_DIR" not in env and env["GIT_CONFIG_GLOBAL"] == "/dev/null" and env["GIT_CONFIG_NOSYSTEM"] == "1"
    )
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    run_git(repo, "checkout", "--quiet", "-b", "other")
    run_git(repo, "status")
    assert not (repo / "HOOK_RAN").exists() and not (repo / "FSMON").exists()


def test_missing_refs_and_repos_are_one_clear_line(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    commit_all(repo, "base")
    with pytest.raises(GitError) as missing:
        resolve_commit(repo, "x")
    assert str(missing.value) == f"ref 'x' does not exist in {repo}"
    with pytest.raises(GitError, match="does not exist"):
        resolve_commit(repo, "--output=/tmp/x")
    with pytest.raises(GitError, match="not a git repository"):
        resolve_commit(tmp_path, "main")
    with pytest.raises(GitError, match="does not exist"):
        materialize(tmp_path / "nowhere", "main", tmp_path / "d")


def test_submodules_are_never_initialised(tmp_path: Path) -> None:
    inner = init_repo(tmp_path / "inner")
    write(inner, {"payload.py": "print('pwned')\n"})
    commit_all(inner, "inner")
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", str(inner), "vendor/inner")
    commit_all(repo, "with a submodule")
    dest = tmp_path / "out"
    materialize(repo, "main", dest)
    assert (dest / "vendor/inner").is_dir() and not any((dest / "vendor/inner").iterdir())


def test_overlay_restores_the_baseline_suite(tmp_path: Path) -> None:
    base, cand = tmp_path / "base", tmp_path / "cand"
    write(base, BASE)
    os.chmod(base / "kapso_evaluation/evaluate.py", 0o755)
    write(cand, {**BASE, "kapso_evaluation/metrics.py": "def accuracy(l, p):\n    return 1.0\n"})
    write(
        cand, {"kapso_evaluation/extra.py": "x", "kapso_evaluation/__pycache__/metrics.cpython-311.pyc": b"x"}
    )
    write(cand, {"kapso_evaluation/sub/__pycache__/y.pyc": b"y"})
    overlay_trusted_suite(base, cand, Config())
    suite = cand / "kapso_evaluation"
    assert sorted(p.relative_to(suite).as_posix() for p in suite.rglob("*")) == sorted(
        p.relative_to(base / "kapso_evaluation").as_posix() for p in (base / "kapso_evaluation").rglob("*")
    )
    assert (suite / "metrics.py").read_text() == BASE["kapso_evaluation/metrics.py"]
    assert os.stat(suite / "evaluate.py").st_mode & 0o111
    # a suite replaced by a symlink is removed, not followed
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    cand2 = tmp_path / "cand2"
    cand2.mkdir()
    (cand2 / "kapso_evaluation").symlink_to(outside)
    overlay_trusted_suite(base, cand2, Config())
    assert (outside / "keep.txt").read_text() == "keep"
    assert not (cand2 / "kapso_evaluation").is_symlink()
    assert (cand2 / "kapso_evaluation/evaluate.py").is_file()


def _archived(repo: Path, rev: str, dest: Path) -> None:
    """What `git archive` (the old materializer, hardened the same way) writes for `rev`."""
    dest.mkdir()
    archive = subprocess.run(git_argv(repo, ("archive", rev)), env=git_env(), capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(dest, filter="data")


def test_attributes_drivers_and_repository_config_change_no_byte_and_run_nothing(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    write(
        repo,
        {".gitattributes": "* filter=evil diff=evil text eol=crlf ident\nkapso_evaluation export-ignore\n"},
    )
    write(repo, {"kapso_evaluation/version.txt": "$Id$\n"})
    sha = commit_all(repo, "attributes that would rewrite every checked-out file")
    marker = tmp_path / "MARKER"
    git(repo, "config", "filter.evil.smudge", f"touch {marker}; sed s/0/1/")
    git(repo, "config", "filter.evil.clean", f"touch {marker}; cat")
    git(repo, "config", "diff.evil.textconv", f"touch {marker}; cat")
    (repo / ".git/info/attributes").write_text("* filter=evil eol=crlf\n")
    # Without Proctor's object reader the attack works: git archive runs the driver and converts the bytes.
    _archived(repo, sha, tmp_path / "archived")
    assert marker.exists() and not (tmp_path / "archived/kapso_evaluation").exists()
    assert (tmp_path / "archived/README.md").read_bytes() == b"# Churn\r\n"
    marker.unlink()
    dest = tmp_path / "out"
    assert materialize(repo, sha, dest) == sha
    committed = {e.path: e.oid for e in ls_tree(repo, sha)}
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == sorted(committed)
    for rel, oid in committed.items():
        assert (dest / rel).read_bytes() == git_bytes(repo, "cat-file", "blob", oid), rel
    assert (dest / "kapso_datasets/labels.csv").read_bytes() == b"1\n0\n1\n1\n"
    assert (dest / "kapso_evaluation/version.txt").read_bytes() == b"$Id$\n"
    assert not marker.exists()


def test_materialize_refuses_hostile_names_before_writing(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    commit_all(repo, "base")
    blob = git(repo, "hash-object", "-w", "--stdin", input=b"x").strip()
    for name in ("..", "git~1", ".g\u200cit"):
        hostile = _commit_tree_with(repo, f"100644 blob {blob}\t{name}\n")
        dest = tmp_path / f"refused-{len(name)}"
        with pytest.raises(GitError, match="invalid path"):
            materialize(repo, hostile, dest)
        assert not any(dest.iterdir())
