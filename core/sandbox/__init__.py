"""Sandbox levels, the scrubbed environment and resource limits for evaluator runs (SPEC §4.3).

`process`: own session/process group, rlimits, wall-clock kill of every descendant, capped output (the last
two in core/runner.py). `namespace`: the same inside private user, network, pid and IPC namespaces, with the
whole filesystem read-only except the run's working directory, its scratch dir (HOME, TMPDIR) and a private
/tmp — so a hostile candidate can neither reach the network nor leave anything behind for the next run.
What each of the two sandboxes of a run sees (SPEC §4.5) is a core.run.mounts plan built in
core/run/isolation.py.

- `probe`: which level and mechanism (bubblewrap, `unshare`) really works here, probed once per process;
- `model`: the records the others share: a run's `SandboxChoice` and the `Interpreter` every sandbox binds
  read-only;
- `argv`: the command line under a choice, and Proctor's own interpreter;
- `environment`: the allow-listed environment;
- `bytecode`: the interpreter's read-only bytecode mirror behind each run's fresh PYTHONPYCACHEPREFIX;
- `limits`: the rlimits every run gets.
"""

from core.sandbox.argv import interpreter_mounts, namespace_prefix, proctor_interpreter, sandbox_argv
from core.sandbox.bytecode import bytecode_mirror
from core.sandbox.environment import scrubbed_env
from core.sandbox.limits import rlimits_preexec
from core.sandbox.model import Interpreter, SandboxChoice, SandboxLevel
from core.sandbox.probe import BACKEND_ENV, READ_ONLY_REASON, choose_sandbox, reset_probe_cache

__all__ = [
    "BACKEND_ENV",
    "READ_ONLY_REASON",
    "Interpreter",
    "SandboxChoice",
    "SandboxLevel",
    "bytecode_mirror",
    "choose_sandbox",
    "interpreter_mounts",
    "namespace_prefix",
    "proctor_interpreter",
    "reset_probe_cache",
    "rlimits_preexec",
    "sandbox_argv",
    "scrubbed_env",
]
