"""The `prompt` candidate source (SPEC §5.1, §7 Teacher): a teacher model rewrites a prompt file, every rewrite
becomes a candidate commit, and the campaign's evaluator — which uses the judge — scores it.

Each iteration the teacher (`core.judge.teacher.propose_rewrites`) sees the task description (the brief's Goal
or `--task`), the current best prompt (the baseline's, or the best scored candidate's) and the judge's feedback
on that prompt's outputs for the **search split** only. The rewrites are committed on top of that parent with git
plumbing (a new blob, trees rebuilt with `mktree`, `commit-tree -p parent`) into
`refs/proctor/generated/<campaign>/<n>`: no checkout, no worktree, no candidate code runs, and the delivered
branch descends from the baseline. Then the normal per-candidate pipeline measures them.

The evaluator and Proctor talk through four environment variables, the only judge-related ones an evaluator
ever gets (the environment is otherwise an allow-list, SPEC §4.3; `OPENAI_API_KEY` and the like never reach
it):

- `PROCTOR_JUDGE_BASE_URL`: the judge proxy Proctor runs on the loopback interface for the campaign
  (`core/judge/proxy.py`), which forwards to the real endpoint (`PROCTOR_JUDGE_BASE_URL` in Proctor's own
  environment, else `[judge] base_url`) and adds the key;
- `PROCTOR_JUDGE_API_KEY`: the proxy's per-campaign token (never the endpoint's key);
- `PROCTOR_JUDGE_BUDGET_USD`: this run's share of what is left of the campaign's one budget (`[judge]
  budget_usd`, shared by the teacher and every evaluator run; absent for a free endpoint); the proxy holds
  all the runs of an iteration to what is left, whatever they do;
- `PROCTOR_PROMPT_FEEDBACK`: where the evaluator writes its feedback document (`write_feedback`): what it spent
  and its judge run on the search split. Proctor keeps the text the teacher will read in the checkpoint; the
  hold-out scores never enter it.

Evaluators build their judge with `evaluator_settings()` and run a prompt with `run_prompt()`, both below, so
the campaign side and the evaluator side agree on these variables.

Prompt campaigns run at the `namespace` level like any other: the evaluator's sandbox gets the network
(`evaluator_network`) so that it reaches the proxy; the key stays in Proctor.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal, Protocol

from core import secrets
from core.atomic import atomic_write_json
from core.campaign.candidates import generated_ref
from core.campaign.model import CandidateRecord, Direction, compare_rows, pick_winner
from core.campaign.state import CampaignState, PlannedCandidate
from core.errors import CampaignError, GitError, JudgeError
from core.state_root import proctor_dir

if TYPE_CHECKING:
    from core.config import Config, JudgeConfig
    from core.judge import Judge, JudgeRun, JudgeSettings
    from core.judge.proxy import JudgeProxy

ENV_BASE_URL = "PROCTOR_JUDGE_BASE_URL"
ENV_API_KEY = "PROCTOR_JUDGE_API_KEY"
ENV_BUDGET = "PROCTOR_JUDGE_BUDGET_USD"
ENV_FEEDBACK = "PROCTOR_PROMPT_FEEDBACK"
EVALUATOR_ENV = (ENV_BASE_URL, ENV_API_KEY, ENV_BUDGET, ENV_FEEDBACK)

DEFAULT_REWRITES = 2
FEEDBACK_SCHEMA = 1
FEEDBACK_LIMIT_BYTES = 8 * 1024 * 1024
TEXT_EXCERPT = 2000
TASK_TEMPLATE_VERSION = "task-v1"
NOTE_PREFIX = "prompt campaign"
_REGULAR_MODES = (b"100644", b"100755")
_IDENTITY = ("-c", "user.name=Proctor teacher", "-c", "user.email=teacher@proctor.invalid")


# ------------------------------------------------------------------------------------------ the source


def source_spec(
    prompt_file: str, *, iterations: int, rewrites: int, task: str, parent: str
) -> dict[str, Any]:
    """The candidate source as the resume fingerprint records it (SPEC §5.4)."""
    if iterations <= 0:
        raise CampaignError("a prompt campaign needs --iterations N (N > 0): how many rounds of rewrites")
    if rewrites <= 0:
        raise CampaignError(f"--rewrites must be 1 or more (rewrites per iteration), found {rewrites}")
    return {
        "kind": "prompt",
        "prompt_file": prompt_file,
        "iterations": iterations,
        "rewrites": rewrites,
        "task": task,
        "parent": parent,
    }


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


# ------------------------------------------------------------------------------------------ the endpoint


def resolve_base_url(config: JudgeConfig, environ: Mapping[str, str] | None = None) -> str:
    """`PROCTOR_JUDGE_BASE_URL` from the environment, else `[judge] base_url` ('' = the provider default)."""
    env = os.environ if environ is None else environ
    return env.get(ENV_BASE_URL, "").strip() or config.base_url


def check_teacher(config: JudgeConfig) -> None:
    """Fail before anything runs when the judge or teacher model has no known price (SPEC §7 Cost) or the
    teacher's endpoint needs a key Proctor does not have."""
    from core.judge import JudgeSettings
    from core.judge.client import resolve_api_key
    from core.judge.cost import price_for

    for model in dict.fromkeys((config.model, config.teacher_model)):
        price_for(model, {k: tuple(v) for k, v in config.prices.items()}, free=config.free)
    resolve_api_key(JudgeSettings.from_config(config, base_url=resolve_base_url(config) or None))


def evaluator_settings(
    workspace: Path | str = ".", environ: Mapping[str, str] | None = None
) -> JudgeSettings:
    """The judge settings an evaluator should use: `[judge]` from the workspace's config, the endpoint, key and
    budget share Proctor passed (when run by a campaign), and no answer cache (runs must be independent)."""
    from core.config import load_config
    from core.judge import JudgeSettings

    env = os.environ if environ is None else environ
    judge = load_config(Path(workspace)).config.judge
    budget = judge.budget_usd
    raw = env.get(ENV_BUDGET, "").strip()
    if raw:
        try:
            share = float(raw)
        except ValueError:
            share = math.nan
        if not math.isfinite(share) or share < 0:
            raise JudgeError(f"{ENV_BUDGET} must be a non-negative number of USD, found {raw!r}")
        budget = min(budget, share)
    settings = JudgeSettings.from_config(
        judge,
        base_url=resolve_base_url(judge, env) or None,
        api_key_env=ENV_API_KEY if env.get(ENV_API_KEY) else None,
        budget_usd=budget,
    )
    return replace(settings, cache_path=None)


# ------------------------------------------------------------------------------------------ running a prompt


@dataclass(frozen=True)
class TaskAnswer:
    """The task model's answer to one input: `output` is None when no answer came (budget, endpoint)."""

    output: str | None
    status: Literal["ok", "parse_failed", "budget", "error", "stopped"]
    problem: str | None = None


def task_messages(prompt: str, input_text: str) -> list[dict[str, str]]:
    """The prompt as the system message and the input as the user's; a prompt with `{input}` is filled in."""
    if "{input}" in prompt:
        return [{"role": "user", "content": prompt.replace("{input}", input_text)}]
    return [{"role": "system", "content": prompt}, {"role": "user", "content": input_text}]


def task_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"output": {"type": "string"}},
        "required": ["output"],
        "additionalProperties": False,
    }


def parse_task_output(text: str) -> str:
    """`{"output": "..."}` (structured output) or, from endpoints without it, the plain text."""
    from core.errors import AnswerError

    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except ValueError:
            value = None
        if isinstance(value, dict):
            output = value.get("output")
            if isinstance(output, str):
                return output.strip()
            raise AnswerError('the answer is a JSON object without a string "output"')
    if not stripped:
        raise AnswerError("the answer is empty")
    return stripped


def run_prompt(judge: Judge, prompt: str, inputs: Sequence[str]) -> list[TaskAnswer]:
    """Run `prompt` over `inputs` with the judge's model, its budget, concurrency and retries."""
    from core.judge.engine import Question

    questions = [
        (
            Question(
                messages=task_messages(prompt, text),
                template_version=TASK_TEMPLATE_VERSION,
                rotation="task",
                sample=0,
                schema_name="task_output",
                schema=task_schema(),
            ),
            parse_task_output,
        )
        for text in inputs
    ]
    answers = []
    for outcome in judge.ask_many(questions):
        value = outcome.value if isinstance(outcome.value, str) else None
        answers.append(TaskAnswer(value, outcome.status, outcome.problem))
    return answers


# ------------------------------------------------------------------------------------------ feedback document


@dataclass(frozen=True)
class PromptFeedback:
    """What an evaluator run reported: its spend, whether its budget ran out, and its search-split judge run."""

    spent_usd: float
    budget_exhausted: bool
    run: JudgeRun | None

    def text(self) -> str:
        from core.judge import feedback_from_run

        return feedback_from_run(self.run) if self.run is not None else ""


def write_feedback(
    path: Path | str, run: JudgeRun | None, *, spent_usd: float, budget_exhausted: bool
) -> None:
    """The evaluator's report to the campaign. `run` must be the search split's: it is what the teacher reads."""
    items = []
    if run is not None:
        for result in run.items:
            if not result.judged:
                continue
            items.append(
                {
                    "id": result.item.id,
                    "input": result.item.input[:TEXT_EXCERPT],
                    "output": result.item.output[:TEXT_EXCERPT],
                    "reference": (result.item.reference or "")[:TEXT_EXCERPT] or None,
                    "score": result.score,
                    "parse_failures": result.parse_failures,
                    "samples": [
                        {
                            "score": s.score,
                            "criteria": dict(s.criteria),
                            "reasoning": s.reasoning[:TEXT_EXCERPT],
                        }
                        for s in result.samples
                    ],
                }
            )
    document = {
        "schema": FEEDBACK_SCHEMA,
        "split": "search",
        "spent_usd": spent_usd,
        "budget_exhausted": budget_exhausted,
        "run": None
        if run is None
        else {"mean": run.summary.mean, "stderr": run.summary.stderr, "items": items},
    }
    target = str(path)
    if target.startswith(
        "http://"
    ):  # a campaign's judge proxy: the evaluator's sandbox shares no dir with it
        _post_feedback(target, document)
    else:
        atomic_write_json(Path(path), document)


def _post_feedback(url: str, document: dict[str, Any]) -> None:
    import urllib.request

    body = json.dumps(document, allow_nan=False).encode("utf-8")
    token = os.environ.get(ENV_API_KEY, "")
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            reply.read()
    except OSError as exc:
        raise JudgeError(f"could not hand the feedback to the campaign ({url}): {exc}") from None


def parse_feedback(raw: bytes) -> PromptFeedback | None:
    """A feedback document from its bytes (a file's, or what a run posted to the judge proxy); None if bad."""
    try:
        if len(raw) > FEEDBACK_LIMIT_BYTES:
            return None
        data = json.loads(raw.decode("utf-8"), parse_constant=lambda _c: None)
        return _feedback_from_json(data)
    except (UnicodeDecodeError, ValueError, TypeError, KeyError, RecursionError):
        return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _feedback_from_json(data: Any) -> PromptFeedback | None:
    from core.judge import JudgeRun, JudgeSettings
    from core.judge.run import Item, ItemResult, SampleResult
    from core.judge.stats import MeanSE

    if not isinstance(data, dict) or data.get("schema") != FEEDBACK_SCHEMA:
        return None
    spent = _number(data.get("spent_usd"))
    exhausted = data.get("budget_exhausted") is True
    raw = data.get("run")
    if not isinstance(raw, dict):
        return PromptFeedback(max(spent or 0.0, 0.0), exhausted, None)
    results = []
    for index, entry in enumerate(raw.get("items") or []):
        if not isinstance(entry, dict):
            continue
        samples = tuple(
            SampleResult(
                index=n,
                rotation="",
                score=_number(s.get("score")),
                criteria={str(k): v for k, v in (s.get("criteria") or {}).items() if _number(v) is not None},
                reasoning=str(s.get("reasoning") or "")[:TEXT_EXCERPT],
                cached=False,
                cost_usd=0.0,
            )
            for n, s in enumerate(entry.get("samples") or [])
            if isinstance(s, dict)
        )
        reference = entry.get("reference")
        item = Item(
            id=str(entry.get("id", index)),
            input=str(entry.get("input", ""))[:TEXT_EXCERPT],
            output=str(entry.get("output", ""))[:TEXT_EXCERPT],
            reference=str(reference)[:TEXT_EXCERPT] if reference is not None else None,
        )
        score = _number(entry.get("score"))
        failures = entry.get("parse_failures")
        results.append(
            ItemResult(
                item=item,
                judged=True,
                samples=samples,
                llm_score=score,
                deterministic=None,
                score=score,
                parse_failures=failures if isinstance(failures, int) and failures >= 0 else 0,
                cost_usd=0.0,
                cached=False,
            )
        )
    run = JudgeRun(
        settings=JudgeSettings(cache_path=None),
        items=results,
        summary=MeanSE(_number(raw.get("mean")), _number(raw.get("stderr")), len(results), len(results)),
        spent_usd=0.0,
        budget_exhausted=exhausted,
        retries=0,
        rate_limited=0,
        server_errors=0,
        no_answer=0,
        cache_hits=0,
        calls=0,
        last_problem=None,
    )
    return PromptFeedback(max(spent or 0.0, 0.0), exhausted, run)


# ------------------------------------------------------------------------------------------ the campaign side


class PromptHost(Protocol):
    """What the campaign scheduler offers the driver: its checkpointed state and the measuring pipeline."""

    state: CampaignState

    def measure_planned(
        self, plans: Sequence[PlannedCandidate], env: Mapping[int, Mapping[str, str]]
    ) -> None:
        """Measure `plans` (the normal per-candidate pipeline), each with its extra environment."""

    def finish_record(self, record: CandidateRecord) -> None:
        """Record a candidate that was never measured (history, checkpoint, progress)."""

    def save(self) -> None:
        """Checkpoint the current state."""

    def announce(self, message: str) -> None:
        """Tell the progress display what is happening."""


class PromptDriver:
    """Runs the iterations of a prompt campaign: propose → commit → measure, checkpointing as it goes.

    The checkpoint's `prompt` ledger holds the spend so far, each iteration's outcome, and the feedback text of
    every measured prompt, so a resumed campaign neither asks the teacher again for a planned iteration nor
    re-runs a finished candidate, and it still knows what to tell the teacher next.
    """

    def __init__(
        self,
        host: PromptHost,
        *,
        repo: Path,
        campaign_id: str,
        config: Config,
        source: Mapping[str, Any],
        baseline_ref: str,
        baseline_commit: str,
    ) -> None:
        self.host = host
        self.repo = repo
        self.campaign_id = campaign_id
        self.config = config
        self.file = str(source["prompt_file"])
        self.iterations = int(source["iterations"])
        self.rewrites = int(source["rewrites"])
        self.task = (
            str(source.get("task") or "")
            or host.state.goal.strip()
            or (
                f"Improve the prompt in {self.file} so that the evaluator scores the outputs it produces higher."
            )
        )
        self.baseline_ref = baseline_ref
        self.baseline_commit = baseline_commit
        self.cap: float | None = None if config.judge.free else config.judge.budget_usd
        self.proxy: JudgeProxy | None = None  # started by `run`; evaluators reach the judge only through it
        self.expecting: set[int] = set()
        self.stop_reason = ""

    # -- ledger (part of the checkpoint)

    def _ledger(self) -> dict[str, Any]:
        return dict(self.host.state.prompt)

    def _update(self, **changes: Any) -> None:
        self.host.state = replace(self.host.state, prompt={**self._ledger(), **changes})

    @property
    def spent_usd(self) -> float:
        return float(self._ledger().get("spent_usd", 0.0))

    def remaining_usd(self) -> float | None:
        return None if self.cap is None else max(0.0, self.cap - self.spent_usd)

    # -- the loop

    def run(self) -> None:
        """The campaign's iterations, with the judge proxy running for their evaluator runs."""
        from core.judge.proxy import JudgeProxy

        judge = self.config.judge
        self.proxy = JudgeProxy(
            resolve_base_url(judge),
            secrets.get(judge.api_key_env),
            cap_usd=self.remaining_usd(),
            prices=judge.prices,
            free=judge.free,
        )
        try:
            self._iterate()
        finally:
            self.proxy.close()
            self.proxy = None

    def evaluator_env(self) -> dict[str, str]:
        """The judge as the evaluator sees it: the proxy's URL and token, never the endpoint's key."""
        assert self.proxy is not None
        return {ENV_BASE_URL: self.proxy.base_url, ENV_API_KEY: self.proxy.token}

    def _iterate(self) -> None:
        if self.host.state.baseline is None:
            self._measure([PlannedCandidate(0, self.baseline_ref, self.baseline_commit, "")])
        for iteration in range(1, self.iterations + 1):
            if self.stop_reason:
                break
            slots = list(range((iteration - 1) * self.rewrites + 1, iteration * self.rewrites + 1))
            planned = {p.index: p for p in self.host.state.planned}
            if all(slot in planned for slot in slots):
                self._settle(iteration, [planned[slot] for slot in slots])
                continue
            plans = self._propose(iteration, slots)
            if plans is None:
                break
            self._settle(iteration, plans)
        self._write_notes()

    def _settle(self, iteration: int, plans: Sequence[PlannedCandidate]) -> None:
        """Record the slots the teacher left empty and measure the rest; finished ones are skipped."""
        finished = self.host.state.finished_indexes()
        problem = self._ledger().get("iterations", {}).get(str(iteration), {}).get("problem") or "no rewrite"
        for plan in plans:
            if plan.commit is None and plan.index not in finished:
                self.host.finish_record(
                    CandidateRecord(
                        index=plan.index,
                        ref=plan.ref,
                        commit=None,
                        parent_ref=plan.parent_ref,
                        status="failed",
                        reason=f"iteration {iteration}: no rewrite from the teacher ({problem})",
                    )
                )
        todo = [p for p in plans if p.commit is not None and p.index not in finished]
        if todo:
            self._measure(todo)

    def _parent(self) -> CandidateRecord | None:
        """The current best scored candidate that beats the baseline, else the baseline (None if unmeasured)."""
        state = self.host.state
        baseline = state.baseline
        if baseline is None:
            return None
        base_score = baseline.score if baseline.status == "scored" else None
        direction: Direction = "minimize" if state.direction == "minimize" else "maximize"
        rows = compare_rows(baseline, state.records)
        return pick_winner(base_score, rows, direction, state.noise).winner or baseline

    def _propose(self, iteration: int, slots: list[int]) -> list[PlannedCandidate] | None:
        """Ask the teacher, commit its rewrites and plan every slot; None when nothing could be asked."""
        from core.judge import Judge, propose_rewrites

        parent = self._parent()
        parent_commit = parent.commit if parent is not None and parent.commit else self.baseline_commit
        parent_ref = parent.ref if parent is not None and parent.index > 0 else self.baseline_ref
        parent_index = parent.index if parent is not None else 0
        prompt = read_prompt(self.repo, parent_commit, self.file)
        feedback = str(self._ledger().get("feedback", {}).get(str(parent_index), ""))
        self.host.announce(
            f"iteration {iteration}/{self.iterations}: asking the teacher for {len(slots)} rewrite(s) of "
            f"{self.file} (parent {parent_ref})"
        )
        try:
            with Judge.open(self._teacher_settings()) as judge:
                proposals = propose_rewrites(
                    prompt, task=self.task, feedback=feedback, count=len(slots), judge=judge
                )
        except JudgeError as exc:
            self.stop_reason = f"the teacher could not be asked in iteration {iteration}: {exc}"
            return None
        spent = self.spent_usd + proposals.cost_usd
        if not proposals.rewrites and proposals.budget_exhausted:
            self._update(spent_usd=spent)
            self.host.save()
            self.stop_reason = self._budget_reason(f"before the teacher could answer iteration {iteration}")
            return None
        plans = []
        for n, slot in enumerate(slots):
            ref = generated_ref(self.campaign_id, slot)
            commit: str | None = None
            if n < len(proposals.rewrites):
                rewrite = proposals.rewrites[n]
                message = (
                    f"prompt rewrite {slot}: {self.file}\n\nProctor campaign {self.campaign_id}, iteration "
                    f"{iteration}, parent {parent_commit}.\n\nTeacher's rationale: {rewrite.rationale or '-'}\n"
                )
                try:
                    commit = commit_rewrite(
                        self.repo,
                        parent=parent_commit,
                        rel=self.file,
                        text=_like(prompt, rewrite.prompt),
                        ref=ref,
                        message=message,
                    )
                except GitError as exc:
                    raise CampaignError(f"could not commit prompt rewrite {slot}: {exc}") from None
            plans.append(PlannedCandidate(slot, ref, commit, parent_ref))
        iterations = dict(self._ledger().get("iterations", {}))
        iterations[str(iteration)] = {
            "parent_index": parent_index,
            "parent_ref": parent_ref,
            "proposed": len(proposals.rewrites),
            "teacher_cost_usd": proposals.cost_usd,
            "parse_failures": proposals.parse_failures,
            "problem": _teacher_problem(proposals.problem),
        }
        self._update(spent_usd=spent, iterations=iterations)
        state = self.host.state
        for plan in plans:
            state = state.with_planned(plan)
        self.host.state = state
        self.host.save()
        if proposals.budget_exhausted:
            self.stop_reason = self._budget_reason(f"while the teacher answered iteration {iteration}")
        return plans

    def _teacher_settings(self) -> JudgeSettings:
        from core.judge import JudgeSettings

        settings = JudgeSettings.from_config(
            self.config.judge,
            base_url=resolve_base_url(self.config.judge) or None,
            budget_usd=self.remaining_usd(),
        )
        return replace(settings, cache_path=proctor_dir(self.repo) / "judge-cache.sqlite")

    # -- measuring

    def _measure(self, plans: Sequence[PlannedCandidate]) -> None:
        remaining = self.remaining_usd()
        share = remaining / len(plans) if remaining is not None else None
        assert self.proxy is not None
        self.proxy.set_cap(remaining)  # the hard cap on everything these runs send, whatever they report
        env: dict[int, dict[str, str]] = {}
        for plan in plans:
            self.proxy.feedback.pop(plan.index, None)
            extra = {**self.evaluator_env(), ENV_FEEDBACK: self.proxy.feedback_url(plan.index)}
            if share is not None:
                extra[ENV_BUDGET] = repr(share)
            env[plan.index] = extra
            self.expecting.add(plan.index)
        self.host.measure_planned(plans, env)

    def before_record(self, record: CandidateRecord) -> None:
        """Called by the scheduler just before it checkpoints `record`: fold the evaluator's report into the
        ledger, so the spend and the feedback land in the same atomic write as the record."""
        if record.index not in self.expecting:
            return
        self.expecting.discard(record.index)
        raw = self.proxy.feedback.pop(record.index, None) if self.proxy is not None else None
        report = parse_feedback(raw) if raw is not None else None
        ledger = self._ledger()
        if report is None:
            self._update(unreported=int(ledger.get("unreported", 0)) + 1)
            return
        feedback = dict(ledger.get("feedback", {}))
        feedback[str(record.index)] = report.text()
        self._update(spent_usd=self.spent_usd + report.spent_usd, feedback=feedback)
        if report.budget_exhausted and not self.stop_reason:
            self.stop_reason = self._budget_reason(f"while measuring {record.ref}")

    # -- reporting

    def _budget_reason(self, when: str) -> str:
        return f"the judge budget ran out {when}; no new proposals"

    def _write_notes(self) -> None:
        state = self.host.state
        ledger = self._ledger()
        spend = f"${self.spent_usd:.4f}" + (
            f" of the ${self.cap:.2f} budget" if self.cap is not None else ", endpoint declared free"
        )
        notes = [n for n in state.notes if not n.startswith(NOTE_PREFIX)]
        done = len(ledger.get("iterations", {}))
        notes.append(
            f"{NOTE_PREFIX}: {done} of {self.iterations} iteration(s) proposed, {self.rewrites} rewrite(s) each "
            f"of {self.file}; judge spend (teacher and evaluators) {spend}"
        )
        if self.stop_reason:
            notes.append(f"{NOTE_PREFIX} stopped: {self.stop_reason}")
        unreported = int(ledger.get("unreported", 0))
        if unreported:
            notes.append(
                f"{NOTE_PREFIX}: {unreported} evaluator run(s) wrote no feedback document "
                f"(${ENV_FEEDBACK}): their spend is not counted and the teacher got no feedback on them"
            )
        self.host.state = replace(state, notes=tuple(notes))
        self.host.save()


def _teacher_problem(problem: str | None) -> str | None:
    if problem is None:
        return None
    if "the teacher proposed" in problem:
        return problem
    return f"the teacher's answer could not be used: {problem}"


def _like(original: str, rewrite: str) -> str:
    """The rewrite with the original's trailing-newline convention (diffs stay about the words)."""
    text = rewrite.strip("\n")
    return text + "\n" if original.endswith("\n") else text
