"""Single-output scoring of many items (`proctor judge`, and what a prompt campaign's evaluator calls).

An item is judged when every one of its samples got an answer (parsed, or failed to parse twice and counted).
When the budget stops new calls, or the endpoint keeps failing, the item stays unjudged: its finished samples
are in the cache, so a re-run with a larger budget pays only for the rest.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import JudgeError
from core.judge.client import JudgeSettings
from core.judge.engine import Judge, Outcome, Question
from core.judge.metrics import DeterministicScores, blend, deterministic_scores
from core.judge.parse import Verdict, parse_verdict
from core.judge.prompts import TEMPLATE_VERSION, Rotation, Scale, rotations, single_messages, verdict_schema
from core.judge.stats import MeanSE, clustered_mean_se, quadratic_weighted_kappa, spearman


@dataclass(frozen=True)
class Item:
    id: str
    input: str
    output: str
    reference: str | None = None


@dataclass(frozen=True)
class SampleResult:
    index: int
    rotation: str
    score: float | None  # [0, 1]; None when the answer could not be parsed (twice)
    criteria: Mapping[str, float]  # criterion → [0, 1]
    reasoning: str
    cached: bool
    cost_usd: float


@dataclass(frozen=True)
class ItemResult:
    item: Item
    judged: bool
    samples: tuple[SampleResult, ...]
    llm_score: float | None
    deterministic: DeterministicScores | None
    score: float | None  # the blend with the deterministic metric when there is a reference
    parse_failures: int
    cost_usd: float
    cached: bool
    unjudged_reason: str | None = None  # "budget" or the endpoint's last error

    def observations(self, weight: float, metric: str) -> list[float]:
        """Per-sample scores (blended like the item score) for the clustered mean."""
        parsed = [s.score for s in self.samples if s.score is not None]
        if self.deterministic is None:
            return parsed
        det = self.deterministic.pick(metric)
        return [blend(score, det, weight) for score in parsed]


@dataclass(frozen=True)
class Agreement:
    n: int
    spearman: float | None
    kappa: float | None


@dataclass
class JudgeRun:
    settings: JudgeSettings
    items: list[ItemResult]
    summary: MeanSE
    spent_usd: float
    budget_exhausted: bool
    retries: int
    rate_limited: int
    server_errors: int
    no_answer: int
    cache_hits: int
    calls: int
    last_problem: str | None
    agreement: Agreement | None = None
    endpoint_failures: int = 0
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def judged(self) -> int:
        return sum(1 for r in self.items if r.judged)

    @property
    def unjudged(self) -> int:
        return len(self.items) - self.judged

    @property
    def parse_failures(self) -> int:
        return sum(r.parse_failures for r in self.items)

    @property
    def budget_usd(self) -> float | None:
        return None if self.settings.free else self.settings.budget_usd

    def to_json(self) -> dict[str, Any]:
        """The `proctor judge --format json` document (SPEC §6); `agreement` only when labels were given."""
        doc: dict[str, Any] = {
            "schema": 1,
            "model": self.settings.model,
            "criteria": list(self.settings.criteria),
            "scale": self.settings.scale,
            "samples": self.settings.samples,
            "items": [
                {
                    "id": r.item.id,
                    "score": _round(r.score),
                    "samples": [_round(s.score) for s in r.samples],
                    "parse_failures": r.parse_failures,
                    "cost_usd": round(r.cost_usd, 8),
                    "cached": r.cached,
                }
                for r in self.items
                if r.judged
            ],
            "mean": _round(self.summary.mean),
            "stderr": _round(self.summary.stderr),
            "judged": self.judged,
            "unjudged": self.unjudged,
            "parse_failures": self.parse_failures,
            "spent_usd": round(self.spent_usd, 8),
            "budget_usd": self.budget_usd,
            "budget_exhausted": self.budget_exhausted,
        }
        if self.agreement is not None:
            doc["agreement"] = {
                "n": self.agreement.n,
                "spearman": _round(self.agreement.spearman),
                "kappa": _round(self.agreement.kappa),
            }
        return doc


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _mean(values: Sequence[float]) -> float | None:
    # fsum is exactly rounded, so the mean does not depend on the order the samples finished in.
    return math.fsum(values) / len(values) if values else None


def _single_question(settings: JudgeSettings, item: Item, rotation: Rotation, sample: int) -> Question:
    messages = single_messages(
        input_text=item.input,
        output=item.output,
        reference=item.reference,
        criteria=settings.criteria,
        scale=settings.scale_spec,
        rotation=rotation,
    )
    return Question(
        messages=messages,
        template_version=f"{TEMPLATE_VERSION}:{settings.scale}",
        rotation=rotation.id,
        sample=sample,
        schema_name="judge_verdict",
        schema=verdict_schema(settings.criteria),
    )


def _item_result(
    settings: JudgeSettings, item: Item, plan: list[Rotation], outcomes: list[Outcome[Any]]
) -> ItemResult:
    samples = []
    for index, (rotation, outcome) in enumerate(zip(plan, outcomes, strict=True)):
        verdict = outcome.value if isinstance(outcome.value, Verdict) else None
        samples.append(
            SampleResult(
                index=index,
                rotation=rotation.id,
                score=verdict.score if verdict is not None else None,
                criteria=dict(verdict.scores) if verdict is not None else {},
                reasoning=verdict.reasoning if verdict is not None else "",
                cached=outcome.cached,
                cost_usd=outcome.cost_usd,
            )
        )
    cost = math.fsum(o.cost_usd for o in outcomes)
    judged = all(o.done for o in outcomes)
    reason = None
    if not judged:
        pending = [o for o in outcomes if not o.done]
        reason = (
            "budget"
            if any(o.status == "budget" for o in pending)
            else (pending[0].problem or pending[0].status)
        )
    llm = _mean([s.score for s in samples if s.score is not None]) if judged else None
    det = deterministic_scores(item.output, item.reference) if item.reference is not None else None
    score = llm
    if llm is not None and det is not None:
        score = blend(llm, det.pick(settings.metric), settings.weight)
    return ItemResult(
        item=item,
        judged=judged,
        samples=tuple(samples),
        llm_score=llm,
        deterministic=det,
        score=score,
        parse_failures=sum(1 for o in outcomes if o.status == "parse_failed"),
        cost_usd=cost,
        cached=judged and all(o.cached for o in outcomes),
        unjudged_reason=reason,
    )


def score_items(
    judge: Judge, items: Sequence[Item], *, progress: Callable[[int, int], None] | None = None
) -> JudgeRun:
    """Judge every item with `settings.samples` balanced samples each; items are started in order."""
    settings = judge.settings
    plans = [
        rotations(len(settings.criteria), item.reference is not None, settings.samples) for item in items
    ]
    questions = []
    owner: list[int] = []
    for item_index, (item, plan) in enumerate(zip(items, plans, strict=True)):
        for sample, rotation in enumerate(plan):
            questions.append(
                (
                    _single_question(settings, item, rotation, sample),
                    lambda text: parse_verdict(text, settings.criteria, settings.scale_spec),
                )
            )
            owner.append(item_index)
    remaining = [len(plan) for plan in plans]
    finished = 0
    before = judge.snapshot()

    def on_done(index: int, outcome: Outcome[Any]) -> None:
        nonlocal finished
        remaining[owner[index]] -= 1
        if remaining[owner[index]] == 0:
            finished += 1
            if progress is not None:
                progress(finished, len(items))

    outcomes = judge.ask_many(questions, on_done=on_done)
    results = []
    start = 0
    for item, plan in zip(items, plans, strict=True):
        results.append(_item_result(settings, item, plan, outcomes[start : start + len(plan)]))
        start += len(plan)
    values: list[float] = []
    clusters: list[int] = []
    for index, result in enumerate(results):
        if result.judged:
            observed = result.observations(settings.weight, settings.metric)
            values += observed
            clusters += [index] * len(observed)
    after = judge.snapshot()
    return JudgeRun(
        settings=settings,
        items=results,
        summary=clustered_mean_se(values, clusters),
        spent_usd=after.spent_usd - before.spent_usd,
        budget_exhausted=judge.budget.exhausted,
        retries=after.retries - before.retries,
        rate_limited=after.rate_limited - before.rate_limited,
        server_errors=after.server_errors - before.server_errors,
        no_answer=after.no_answer - before.no_answer,
        cache_hits=after.cache_hits - before.cache_hits,
        calls=after.calls - before.calls,
        last_problem=judge.counters.last_problem,
        endpoint_failures=sum(1 for r in results if not r.judged and r.unjudged_reason != "budget"),
    )


def judge_outputs(
    items: Iterable[Item | Mapping[str, Any]],
    settings: JudgeSettings | Judge,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> JudgeRun:
    """Score outputs; pass a `Judge` to share its budget and cache across calls (a campaign does)."""
    parsed = [
        entry if isinstance(entry, Item) else item_from_mapping(entry, str(n))
        for n, entry in enumerate(items, 1)
    ]
    if isinstance(settings, Judge):
        return score_items(settings, parsed, progress=progress)
    with Judge.open(settings) as judge:
        return score_items(judge, parsed, progress=progress)


# -- input files -----------------------------------------------------------------------------------------------


def item_from_mapping(obj: Mapping[str, Any], default_id: str) -> Item:
    """An Item from `{input, output, reference?, id?}`; ValueError says what is wrong."""
    for key in ("input", "output"):
        if key not in obj:
            raise ValueError(f"missing key {key!r}")
        if not isinstance(obj[key], str):
            raise ValueError(f"{key!r} must be a string, found {type(obj[key]).__name__}")
    reference = obj.get("reference")
    if reference is not None and not isinstance(reference, str):
        raise ValueError(f"'reference' must be a string or null, found {type(reference).__name__}")
    raw_id = obj.get("id", default_id)
    if (
        isinstance(raw_id, bool)
        or not isinstance(raw_id, str | int)
        or (isinstance(raw_id, str) and not raw_id)
    ):
        raise ValueError(f"'id' must be a non-empty string or an integer, found {raw_id!r}")
    unknown = sorted(set(obj) - {"input", "output", "reference", "id"})
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r} (expected input, output, reference, id)")
    return Item(id=str(raw_id), input=obj["input"], output=obj["output"], reference=reference)


def _bad_line(path: Path, line: int, problem: str) -> JudgeError:
    """The error for one bad line of an items or labels file: `path:line: problem`, with both as fields."""
    return JudgeError(f"{path}:{line}: {problem}", path=path, line=line)


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise JudgeError(f"{path}: {what} file not found", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgeError(f"{path}: cannot read the {what} file: {exc}", path=path) from None


def load_items(path: Path) -> list[Item]:
    """JSONL items; the first malformed line is a JudgeError naming the file and line."""
    items: list[Item] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(_read_text(path, "input").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise _bad_line(path, number, f"not valid JSON ({exc.args[0].split(':')[0]})") from None
        if not isinstance(obj, dict):
            raise _bad_line(path, number, f"expected a JSON object, found {type(obj).__name__}")
        try:
            item = item_from_mapping(obj, f"line-{number}")
        except ValueError as exc:
            raise _bad_line(path, number, str(exc)) from None
        if item.id in seen:
            raise _bad_line(path, number, f"duplicate id {item.id!r} (first on line {seen[item.id]})")
        seen[item.id] = number
        items.append(item)
    if not items:
        raise JudgeError(f"{path}: no items (expected JSON lines with `input` and `output`)", path=path)
    return items


_LabelRow = tuple[int, Any, Any]  # (line number, raw id, raw score)


def load_labels(path: Path) -> dict[str, float]:
    """Human scores by id, from JSONL `{id, score}` lines or a CSV with `id` and `score` columns."""
    text = _read_text(path, "labels")
    rows = _csv_label_rows(text, path) if path.suffix.lower() == ".csv" else _jsonl_label_rows(text, path)
    labels: dict[str, float] = {}
    for number, raw_id, raw_score in rows:
        if raw_id is None or isinstance(raw_id, bool) or str(raw_id).strip() == "":
            raise _bad_line(path, number, "missing `id`")
        score = _label_score(raw_score, path, number)
        key = str(raw_id).strip()
        if key in labels:
            raise _bad_line(path, number, f"duplicate id {key!r}")
        labels[key] = score
    if not labels:
        raise JudgeError(f"{path}: no labels", path=path)
    return labels


def _csv_label_rows(text: str, path: Path) -> list[_LabelRow]:
    reader = csv.DictReader(text.splitlines())
    if reader.fieldnames is None or not {"id", "score"} <= {f.strip() for f in reader.fieldnames}:
        raise _bad_line(path, 1, "the CSV header must have `id` and `score` columns")
    rows: list[_LabelRow] = []
    for number, row in enumerate(reader, start=2):
        clean = {str(k).strip(): v for k, v in row.items() if k is not None}
        rows.append((number, clean.get("id"), clean.get("score")))
    return rows


def _jsonl_label_rows(text: str, path: Path) -> list[_LabelRow]:
    rows: list[_LabelRow] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            raise _bad_line(path, number, "not valid JSON") from None
        if not isinstance(obj, dict) or "id" not in obj or "score" not in obj:
            raise _bad_line(path, number, "expected an object with `id` and `score`")
        rows.append((number, obj["id"], obj["score"]))
    return rows


def _label_score(raw: Any, path: Path, number: int) -> float:
    """A finite number; a bool is not one (JSON `true` would otherwise read as 1.0)."""
    try:
        if isinstance(raw, bool):
            raise ValueError
        score = float(raw)
    except (TypeError, ValueError):
        raise _bad_line(path, number, f"`score` must be a number, found {raw!r}") from None
    if not math.isfinite(score):
        raise _bad_line(path, number, f"`score` must be finite, found {raw!r}")
    return score


def check_labels(labels: Mapping[str, float], scale: Scale, *, source: str = "labels") -> None:
    """Labels are human scores on the judge's own scale; anything outside it is a mistake worth stopping for."""
    for key, value in labels.items():
        if not scale.contains(value):
            raise JudgeError(f"{source}: label {value:g} for id {key!r} is outside the scale {scale.name}")


def kappa_categories(scale_name: str) -> list[float]:
    """The rating points kappa compares: the scale's whole numbers, or tenths on the 0-1 scale."""
    if scale_name == "0-1":
        return [i / 10 for i in range(11)]
    low, high = (1, 5) if scale_name == "1-5" else (0, 10)
    return [float(i) for i in range(low, high + 1)]


def agreement(run: JudgeRun, labels: Mapping[str, float], *, source: str = "labels") -> Agreement:
    """Spearman and quadratic-weighted kappa between judged item scores and human labels on the judge's scale."""
    scale = run.settings.scale_spec
    check_labels(labels, scale, source=source)
    pairs = [(r.score, labels[r.item.id]) for r in run.items if r.score is not None and r.item.id in labels]
    judge_scores = [scale.from_unit(s) for s, _ in pairs]
    human = [h for _, h in pairs]
    points = kappa_categories(scale.name)
    step = points[1] - points[0]

    def category(value: float) -> int:
        return math.floor((value - points[0]) / step + 0.5 + 1e-9)

    kappa = quadratic_weighted_kappa(
        [category(v) for v in judge_scores], [category(v) for v in human], list(range(len(points)))
    )
    return Agreement(n=len(pairs), spearman=spearman(judge_scores, human), kappa=kappa)
