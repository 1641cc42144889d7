"""What a run's sandbox is made of, as plain records: the isolation a run got (`SandboxChoice`, chosen by
probe.py) and the interpreter every sandbox binds read-only (`Interpreter`, found by argv.py).

The command line (argv.py), the bytecode mirror (bytecode.py) and the probe all read these, so they sit
below all three.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Interpreter", "SandboxChoice", "SandboxLevel"]

SandboxLevel = Literal["auto", "process", "namespace"]


@dataclass(frozen=True)
class SandboxChoice:
    """The isolation a run actually got: level `process|namespace`, mechanism `none|unshare|bwrap`, and why.

    `read_only_fs` (namespace only) says whether everything outside the workspace, the scratch dir and a
    private /tmp is read-only; it is False only where the probe found that just the network part works.
    """

    level: str
    mechanism: str
    reason: str
    read_only_fs: bool = True

    def describe(self) -> str:
        if self.mechanism == "none":
            return f"{self.level} ({self.reason})"
        return f"{self.level} via {self.mechanism} ({self.reason})"


@dataclass(frozen=True)
class Interpreter:
    """The Python that runs the evaluator (and, through the stub, the candidate): the one place the sandbox
    learns which program `python` is and which directories it needs, bound read-only wherever it runs."""

    executable: str
    read_only_dirs: tuple[str, ...]
    cache_tag: str = ""
    """`sys.implementation.cache_tag` (`cpython-311`): which `.pyc` files are its own."""
    bytecode_dirs: tuple[str, ...] = ()
    """Its import directories as it spells them, whose bytecode core/sandbox/bytecode.py mirrors."""
