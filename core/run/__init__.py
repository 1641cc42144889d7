"""Running untrusted code: the two sandboxes of one evaluator run (SPEC §4.5).

`mounts` describes what a sandbox sees and turns that into a bubblewrap or `unshare` command line;
`mount_init` is the init `unshare` runs inside the new namespaces; `isolation` builds the evaluator's
sandbox E and the candidate's sandbox C for one run; `session` sets them up around one launch (core/runner.py);
`service` is the candidate service Proctor runs outside both, which starts each C; `stub` is the stdlib-only
program that stands in for the entry point in E; `process` starts a sandboxed command and collects its
output; `reaper` kills every descendant at the `process` level; `python_probe` asks an interpreter what it
is and where it imports from.
"""
