"""`proctor verify`: check the evaluator contract (SPEC §3.3) by running the evaluator for real.

The workspace is never touched: it is copied into a temp dir and every run happens there, in the same sandbox
campaigns use (§4.3). The clauses are reported in the SPEC's order, each `pass|fail|warn|skip` with a detail
saying why.

- `report`: the clause results, the verdict and the stable JSON document.
- `scratch`: the workspace copy and one evaluator run in it.
- `run_clauses`: runs, metric-line, result-json, deterministic, fast-mode, time-budget.
- `integrity_clauses`: fails-loudly, no-stray-writes, isolation.
- `suite_hashing`: the suite's snapshot before and after, and what counts as a new source file (IN005).
- `verification`: `verify_workspace`, which wires them together.
"""

from __future__ import annotations

from core.verify.report import CLAUSE_IDS, ClauseResult, ClauseStatus, VerifyReport
from core.verify.run_clauses import REQUIRED_RESULT_KEYS
from core.verify.scratch import COPY_EXCLUDES
from core.verify.suite_hashing import is_source_file, suite_hashes
from core.verify.verification import untracked_in_git, verify_workspace

__all__ = [
    "CLAUSE_IDS",
    "COPY_EXCLUDES",
    "REQUIRED_RESULT_KEYS",
    "ClauseResult",
    "ClauseStatus",
    "VerifyReport",
    "is_source_file",
    "suite_hashes",
    "untracked_in_git",
    "verify_workspace",
]
