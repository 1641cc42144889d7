"""Integrity (SPEC §4): Kapso-compatible fingerprints, the guard, safe materialization.

Submodules, by concern:
- `guard`: the entry points (`guard_trees`, `guard_refs`, `rehash_findings`); `sides` decides refs or
  directories for `proctor guard`.
- `checks/`: one module per rule IN001–IN011 (identity, doc, and the check the guard loops over).
- `context`: what a check reads (`TreeView`, `GuardContext`); `tree_view` and `git_view` build it from two
  directories or two commits; `suite_diff` compares a suite before and after a run (IN009 and verify).
- `evaluator_command`, `sys_path`, `modules`, `hooks`, `patches`: the IN007/IN011 analysis (the command
  line, the static sys.path model, the module facts behind a Protocol, the hook and patch decisions);
  `gitattr`: IN008's attribute maths.
- `git`, `object_store`, `git_trees`: hardened git, the persistent object store, tree parsing and diffing.
- `manifest` (manifest, fingerprint, snapshot), `materialize` (trees from git objects, trusted-suite
  overlay), `classify` (the path rules they share), `findings`, `render`, `settings`, `merge_base`.

Nothing is imported here, so `proctor guard` only pays for what it uses.
"""
