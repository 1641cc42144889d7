"""The prompt file in git: checked once in the baseline, read at any commit, and each rewrite committed on top
of its parent with plumbing only (a new blob, trees rebuilt with `mktree`, `commit-tree -p parent`).

No checkout, no worktree, no index and no hook: the measured repository's object database is the only thing
touched, and the delivered branch descends from the baseline. The App's feedback optimization commits its
winner the same way.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from core.errors import CampaignError

if TYPE_CHECKING:
    from core.config import Config

_REGULAR_MODES = (b"100644", b"100755")
_IDENTITY = ("-c", "user.name=Proctor teacher", "-c", "user.email=teacher@proctor.invalid")


def check_prompt_file(repo: Path, commit: str, raw: str, config: Config) -> str:
    """The prompt file as a clean workspace-relative path, after checking the baseline has it as a UTF-8 text
    file outside every protected path (a rewrite there would be rejected every time)."""
    from core.integrity.git import run_git_bytes
    from core.integrity.manifest import protected_inputs

    text = raw.strip().replace("\\", "/")
    parts = [p for p in PurePosixPath(text).parts if p not in ("", ".")]
    if not text or text.startswith("/") or ".." in parts or not parts:
        raise CampaignError(f"--prompt must be a path inside the workspace, found {raw!r}")
    rel = "/".join(parts)
    for root in [PurePosixPath(config.evaluation_dir).as_posix().strip("/"), *protected_inputs(config)]:
        if root and (rel == root or rel.startswith(root + "/")):
            raise CampaignError(
                f"the prompt file {rel!r} is protected (under {root!r}): every rewrite would be rejected; "
                "keep the prompt outside the suite, the data dir, the brief and protected_paths"
            )
    if rel.endswith(".brief.md"):
        raise CampaignError(f"the prompt file {rel!r} is a brief, which is protected")
    listing = run_git_bytes(repo, "ls-tree", "-z", commit, "--", rel)
    entry = next((e for e in listing.split(b"\0") if e.endswith(b"\t" + rel.encode())), None)
    if entry is None:
        raise CampaignError(f"the prompt file {rel!r} is not in the baseline commit {commit[:12]}")
    mode, kind = entry.split(b" ", 2)[:2]
    if kind != b"blob" or mode not in _REGULAR_MODES:
        raise CampaignError(
            f"the prompt file {rel!r} must be a regular file in the baseline, found {kind.decode()}"
        )
    read_prompt(repo, commit, rel)
    return rel


def read_prompt(repo: Path, commit: str, rel: str) -> str:
    from core.integrity.git import run_git_bytes

    data = run_git_bytes(repo, "cat-file", "blob", f"{commit}:{rel}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CampaignError(f"the prompt file {rel!r} at {commit[:12]} is not UTF-8 text") from None


def commit_rewrite(repo: Path, *, parent: str, rel: str, text: str, ref: str, message: str) -> str:
    """Commit `text` as `rel` on top of `parent` and point `ref` at it; the commit sha.

    Pure object-database plumbing in the measured repository (hardened git): nothing is checked out and no
    index or hook is involved. A ref left by an interrupted run is reused when it already holds this tree.
    """
    from core.integrity.git import run_git

    blob = run_git(repo, "hash-object", "-w", "--no-filters", "--stdin", input=text.encode("utf-8")).strip()
    root = run_git(repo, "rev-parse", "--verify", f"{parent}^{{tree}}").strip()
    tree = _tree_with_blob(repo, root, rel.split("/"), blob)
    existing = run_git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip()
    if existing:
        old = run_git(repo, "rev-parse", f"{existing}^{{tree}}", f"{existing}^@").split()
        if old == [tree, parent]:
            return existing
    commit = run_git(
        repo, *_IDENTITY, "commit-tree", "--no-gpg-sign", tree, "-p", parent, "-m", message
    ).strip()
    run_git(repo, "update-ref", "-m", "proctor: prompt rewrite", ref, commit)
    return commit


def _tree_with_blob(repo: Path, tree: str, parts: list[str], blob: str) -> str:
    from core.integrity.git import run_git, run_git_bytes

    name = parts[0].encode("utf-8")
    entries = [e for e in run_git_bytes(repo, "ls-tree", "-z", tree).split(b"\0") if e]
    rebuilt = []
    found = False
    for entry in entries:
        meta, entry_name = entry.split(b"\t", 1)
        if entry_name != name:
            rebuilt.append(entry)
            continue
        found = True
        mode, kind, oid = meta.split(b" ")
        if len(parts) == 1:
            if kind != b"blob" or mode not in _REGULAR_MODES:
                raise CampaignError(f"{'/'.join(parts)} is not a regular file in tree {tree[:12]}")
            rebuilt.append(mode + b" blob " + blob.encode() + b"\t" + name)
        else:
            if kind != b"tree":
                raise CampaignError(f"{parts[0]!r} is not a directory in tree {tree[:12]}")
            sub = _tree_with_blob(repo, oid.decode(), parts[1:], blob)
            rebuilt.append(b"040000 tree " + sub.encode() + b"\t" + name)
    if not found:
        raise CampaignError(f"{'/'.join(parts)!r} is not in tree {tree[:12]}")
    return run_git(repo, "mktree", "-z", input=b"".join(e + b"\0" for e in rebuilt)).strip()


def like_original(original: str, rewrite: str) -> str:
    """The rewrite with the original's trailing-newline convention (diffs stay about the words)."""
    text = rewrite.strip("\n")
    return text + "\n" if original.endswith("\n") else text
