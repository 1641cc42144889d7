"""The feedback document: what an evaluator run reports to its prompt campaign (its spend, whether its budget
ran out, and its judge run on the **search split** only), and how the campaign reads it back.

The evaluator writes it to `PROCTOR_PROMPT_FEEDBACK`: a file path, or the judge proxy's feedback URL when the
evaluator's sandbox shares no directory with Proctor. Proctor keeps the text the teacher will read in the
checkpoint; the hold-out scores never enter it. Everything read back is bounded (`FEEDBACK_LIMIT_BYTES`,
`TEXT_EXCERPT`) and a document that is not one is ignored: the evaluator is candidate-influenced code.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.atomic import atomic_write_json
from core.campaign.prompt_source.task_model import ENV_API_KEY
from core.errors import JudgeError, redact_url

if TYPE_CHECKING:
    from core.judge import JudgeRun
    from core.judge.run import ItemResult, SampleResult

FEEDBACK_SCHEMA = 1
FEEDBACK_LIMIT_BYTES = 8 * 1024 * 1024
TEXT_EXCERPT = 2000


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
    items = [_item_json(result) for result in run.items if result.judged] if run is not None else []
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


def _item_json(result: ItemResult) -> dict[str, Any]:
    return {
        "id": result.item.id,
        "input": result.item.input[:TEXT_EXCERPT],
        "output": result.item.output[:TEXT_EXCERPT],
        "reference": (result.item.reference or "")[:TEXT_EXCERPT] or None,
        "score": result.score,
        "parse_failures": result.parse_failures,
        "samples": [
            {"score": s.score, "criteria": dict(s.criteria), "reasoning": s.reasoning[:TEXT_EXCERPT]}
            for s in result.samples
        ],
    }


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
        status = getattr(exc, "code", None)  # urllib's HTTPError: the proxy answered with this status
        raise JudgeError(
            f"could not hand the feedback to the campaign ({redact_url(url)}): {exc}",
            url=url,
            status=status if isinstance(status, int) else None,
        ) from None


def parse_feedback(raw: bytes) -> PromptFeedback | None:
    """A feedback document from its bytes (a file's, or what a run posted to the judge proxy); None if bad."""
    try:
        if len(raw) > FEEDBACK_LIMIT_BYTES:
            return None
        data = json.loads(raw.decode("utf-8"), parse_constant=lambda _c: None)
        return _feedback_from_json(data)
    except (UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _feedback_from_json(data: Any) -> PromptFeedback | None:
    from core.judge import JudgeRun, JudgeSettings
    from core.judge.stats import MeanSE

    if not isinstance(data, dict) or data.get("schema") != FEEDBACK_SCHEMA:
        return None
    spent = _number(data.get("spent_usd"))
    exhausted = data.get("budget_exhausted") is True
    raw = data.get("run")
    if not isinstance(raw, dict):
        return PromptFeedback(max(spent or 0.0, 0.0), exhausted, None)
    results = [
        _result_from_json(index, entry)
        for index, entry in enumerate(raw.get("items") or [])
        if isinstance(entry, dict)
    ]
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


def _result_from_json(index: int, entry: dict[str, Any]) -> ItemResult:
    """One judged item as the teacher will read it, every text cut to `TEXT_EXCERPT`."""
    from core.judge.run import Item, ItemResult

    samples = tuple(
        _sample_from_json(n, s) for n, s in enumerate(entry.get("samples") or []) if isinstance(s, dict)
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
    return ItemResult(
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


def _sample_from_json(n: int, sample: dict[str, Any]) -> SampleResult:
    from core.judge.run import SampleResult

    return SampleResult(
        index=n,
        rotation="",
        score=_number(sample.get("score")),
        criteria={str(k): v for k, v in (sample.get("criteria") or {}).items() if _number(v) is not None},
        reasoning=str(sample.get("reasoning") or "")[:TEXT_EXCERPT],
        cached=False,
        cost_usd=0.0,
    )
