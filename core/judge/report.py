"""Rendering a judge run for people (`--format text`) and the one-line transport summary for logs."""

from __future__ import annotations

from core.judge.run import JudgeRun


def _num(value: float | None, digits: int = 3) -> str:
    return "null" if value is None else f"{value:.{digits}f}"


def transport_summary(run: JudgeRun) -> str:
    """Calls, cache hits and what the SDK retried: the counts that show a 429 storm was absorbed, not hidden."""
    return (
        f"calls {run.calls}, cache hits {run.cache_hits}, retries {run.retries} "
        f"(429 x{run.rate_limited}, 5xx x{run.server_errors}, no answer x{run.no_answer}), "
        f"parse failures {run.parse_failures}"
    )


def render_text(run: JudgeRun) -> str:
    settings = run.settings
    lines = [
        f"judge {settings.model} | criteria {', '.join(settings.criteria)} | scale {settings.scale} | "
        f"{settings.samples} samples per item",
        "",
    ]
    width = max([len(r.item.id) for r in run.items] + [2])
    lines.append(
        f"{'id':<{width}}  {'score':>6}  {'llm':>6}  {'det':>6}  samples{'':<14}  parse  {'cost':>10}"
    )
    for result in run.items:
        if not result.judged:
            reason = "budget exhausted" if result.unjudged_reason == "budget" else result.unjudged_reason
            lines.append(f"{result.item.id:<{width}}  unjudged ({reason})")
            continue
        det = None if result.deterministic is None else result.deterministic.pick(settings.metric)
        samples = " ".join(_num(s.score, 2) for s in result.samples)
        cost = "cached $0" if result.cached else f"${result.cost_usd:.6f}"
        lines.append(
            f"{result.item.id:<{width}}  {_num(result.score):>6}  {_num(result.llm_score):>6}  {_num(det):>6}  "
            f"{samples:<21}  {result.parse_failures:>5}  {cost:>10}"
        )
    lines.append("")
    summary = run.summary
    if summary.mean is None:
        lines.append("mean: no parsed sample")
    else:
        se = "n/a" if summary.stderr is None else f"{summary.stderr:.3f}"
        lines.append(
            f"mean {summary.mean:.3f} +/- {se} (standard error clustered by item; "
            f"{summary.clusters} items, {summary.n} samples)"
        )
    if any(r.deterministic is not None for r in run.items):
        lines.append(
            f"score = llm x {settings.weight:g} + {settings.metric} x {1 - settings.weight:g} for items with a reference"
        )
    lines.append(f"judged {run.judged}, unjudged {run.unjudged}, parse failures {run.parse_failures}")
    budget = "free endpoint" if run.budget_usd is None else f"budget ${run.budget_usd:.4f}"
    lines.append(f"spent ${run.spent_usd:.6f} ({budget}); {transport_summary(run)}")
    if run.budget_exhausted and run.unjudged:
        lines.append(
            f"budget exhausted: {run.unjudged} items left unjudged; re-run with a larger --budget "
            "(judged samples come from the cache at $0)"
        )
    if run.agreement is not None:
        agreement = run.agreement
        lines.append(
            f"agreement with labels (n={agreement.n}): Spearman {_num(agreement.spearman)}, "
            f"quadratic-weighted kappa {_num(agreement.kappa)}"
        )
    return "\n".join(lines)
