"""Deterministic metrics, the blend, prices, the budget, and the statistics against hand-computed values."""

from __future__ import annotations

import math
import threading

import pytest

from core.errors import JudgeError
from core.judge.cost import Budget, Price, Reservation, lookup_price, price_for
from core.judge.metrics import (
    blend,
    deterministic_scores,
    edit_similarity,
    exact_match,
    exact_match_normalized,
    normalize,
    rouge1_recall,
    tokens,
)
from core.judge.stats import clustered_mean_se, quadratic_weighted_kappa, spearman


def test_exact_match_raw_and_normalized() -> None:
    assert exact_match("Paris", "Paris") == 1.0
    assert exact_match("paris", "Paris") == 0.0
    assert exact_match_normalized("  The   PARIS! ", "paris") == 1.0
    assert exact_match_normalized("an Éclair.", "ÉCLAIR") == 1.0
    assert exact_match_normalized("¿Qué?", "qué") == 1.0  # Unicode punctuation, not just ASCII
    assert normalize("Ｆｕｌｌ　ｗｉｄｔｈ") == "full width"  # NFKC folds full-width forms


def test_rouge1_recall_uses_unicode_tokens_with_multiplicity() -> None:
    assert tokens("naïve café, 東京!") == ["naïve", "café", "東京"]
    assert rouge1_recall("the cat sat", "the cat sat on the mat") == pytest.approx(3 / 6)
    assert rouge1_recall("the the cat", "the the the") == pytest.approx(2 / 3)
    assert rouge1_recall("Café naïve", "naïve café") == 1.0
    assert rouge1_recall("", "") == 1.0
    assert rouge1_recall("something", "") == 0.0


def test_edit_similarity_is_one_minus_normalized_levenshtein() -> None:
    assert edit_similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)
    assert edit_similarity("Same.", "same") == 1.0


def test_deterministic_scores_and_blend() -> None:
    scores = deterministic_scores("The answer is 4", "answer is 4")
    assert scores.exact == 0.0 and scores.exact_normalized == 1.0 and scores.rouge1 == 1.0
    assert scores.mean == pytest.approx((0 + 1 + 1 + 1) / 4)
    assert blend(0.8, 0.4) == pytest.approx(0.6)
    assert blend(0.8, 0.4, 1.0) == pytest.approx(0.8)
    assert blend(0.8, 0.4, 0.25) == pytest.approx(0.8 * 0.25 + 0.4 * 0.75)
    with pytest.raises(JudgeError, match="outside"):
        blend(1.5, 0.0)
    with pytest.raises(JudgeError, match="unknown deterministic metric"):
        scores.pick("bleu")


def test_clustered_standard_error_against_hand_computation() -> None:
    # Clusters A = {0.2, 0.4}, B = {0.9}, C = {0.6, 0.8, 1.0}; N = 6, mean 3.9 / 6 = 0.65.
    # Residual sums: A = -0.45 - 0.25 = -0.70, B = 0.25, C = -0.05 + 0.15 + 0.35 = 0.45.
    # se² = G/(G-1) · Σ sums² / N² = 1.5 · (0.49 + 0.0625 + 0.2025) / 36 = 0.0314583…
    result = clustered_mean_se([0.2, 0.4, 0.9, 0.6, 0.8, 1.0], ["A", "A", "B", "C", "C", "C"])
    assert result.mean == pytest.approx(0.65)
    assert result.stderr == pytest.approx(math.sqrt(1.5 * 0.755 / 36))
    assert result.stderr == pytest.approx(0.177365, abs=1e-6)
    assert (result.n, result.clusters) == (6, 3)


def test_clustered_se_equals_item_mean_se_for_equal_clusters() -> None:
    values = [0.1, 0.3, 0.5, 0.5, 0.9, 0.7]
    clusters = [0, 0, 1, 1, 2, 2]
    item_means = [0.2, 0.5, 0.8]
    mean = sum(item_means) / 3
    plain = math.sqrt(sum((m - mean) ** 2 for m in item_means) / 2 / 3)
    assert clustered_mean_se(values, clusters).stderr == pytest.approx(plain)


def test_clustered_se_edge_cases() -> None:
    assert clustered_mean_se([], []).mean is None
    one = clustered_mean_se([0.5, 0.7], ["x", "x"])
    assert one.mean == pytest.approx(0.6) and one.stderr is None


def test_spearman_against_hand_computation() -> None:
    # d = [0, -1, 1, 0], Σd² = 2, rho = 1 - 6·2 / (4·15) = 0.8
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_quadratic_weighted_kappa_against_hand_computation() -> None:
    # O has ones at (0,0), (1,2), (2,2), (2,1); w = (i-j)²/4; Σ w·O = 0.5.
    # Row and column sums [1, 1, 2] over N = 4 give Σ w·E = 1.375, so kappa = 1 - 0.5/1.375.
    assert quadratic_weighted_kappa([0, 1, 2, 2], [0, 2, 2, 1], [0, 1, 2]) == pytest.approx(1 - 0.5 / 1.375)
    assert quadratic_weighted_kappa([1, 2, 3], [1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert quadratic_weighted_kappa([2, 2], [2, 2], [1, 2, 3]) is None
    with pytest.raises(JudgeError, match="not one of the categories"):
        quadratic_weighted_kappa([7], [1], [1, 2, 3])


def test_prices_builtin_snapshots_overrides_and_fail_closed() -> None:
    assert lookup_price("gpt-4o") == Price(2.50, 10.00)
    assert lookup_price("gpt-4o-mini-2024-07-18") == Price(0.15, 0.60)
    assert lookup_price("openai/gpt-4.1-mini") == Price(0.40, 1.60)
    assert lookup_price("o3-pro") is None  # never priced by a loose prefix
    assert lookup_price("gpt-4o", {"gpt-4o": [1.0, 2.0]}) == Price(1.0, 2.0)
    assert lookup_price("llama-3-8b", {"llama-3-8b": [0.0, 0.0]}) == Price(0.0, 0.0)
    with pytest.raises(JudgeError, match="no price known for model 'llama-3-8b'"):
        price_for("llama-3-8b", {}, free=False)
    assert price_for("llama-3-8b", {}, free=True) == Price(0.0, 0.0)
    assert Price(2.5, 10.0).cost(1_000_000, 100_000) == pytest.approx(3.5)


def test_budget_waits_for_calls_in_flight_then_exhausts() -> None:
    budget = Budget(0.10)
    probe = budget.reserve(0.04)  # the first call is priced alone, before any other starts
    assert probe is not None
    budget.reconcile(probe, 0.0)
    first, second = budget.reserve(0.04), budget.reserve(0.04)
    assert first is not None and second is not None
    granted: list[object] = []
    waiter = threading.Thread(target=lambda: granted.append(budget.reserve(0.04)))
    waiter.start()
    waiter.join(timeout=0.2)
    assert waiter.is_alive() and not granted  # 0.08 held + 0.04 would pass 0.10: it waits, no call starts
    budget.reconcile(first, 0.01)  # the real cost was lower: now 0.01 + 0.04 + 0.04 fits
    waiter.join(timeout=5)
    assert granted and granted[0] is not None
    budget.reconcile(second, 0.03)
    third = granted[0]
    assert isinstance(third, Reservation)
    budget.reconcile(third, 0.03)
    assert budget.reserve(0.04) is None  # 0.07 spent, nothing in flight, 0.04 can never fit
    assert budget.exhausted and budget.reserve(0.0001) is None  # once exhausted, no new call starts
    assert budget.spent_usd == pytest.approx(0.07) and budget.reserved_usd == 0.0


def test_budget_prices_the_first_call_alone_then_scales_reservations_by_the_billing_ratio() -> None:
    budget = Budget(0.10)
    first = budget.reserve(0.01)
    assert first is not None
    granted: list[Reservation | None] = []
    waiter = threading.Thread(target=lambda: granted.append(budget.reserve(0.01)))
    waiter.start()
    waiter.join(timeout=0.2)
    assert waiter.is_alive() and not granted  # nothing else starts before the first call is priced
    budget.reconcile(first, 0.03)  # billed 3x the estimate
    waiter.join(timeout=5)
    second = granted[0]
    assert second is not None and second.amount == pytest.approx(0.03) and budget.ratio == pytest.approx(3.0)
    budget.reconcile(second, 0.03)  # billed what it held: concurrency may resume
    third, fourth = budget.reserve(0.01), budget.reserve(0.002)  # 0.06 spent + 0.03 + 0.006 held
    assert third is not None and fourth is not None and fourth.amount == pytest.approx(0.006)
    budget.reconcile(third, 0.03)
    budget.reconcile(fourth, 0.0)
    assert budget.reserve(0.01) is None  # 0.09 spent + 0.03 would pass the cap
    assert budget.spent_usd == pytest.approx(0.09)


def test_budget_is_thread_safe() -> None:
    budget = Budget(1.0)
    granted: list[int] = []

    def worker() -> None:
        for _ in range(200):
            reservation = budget.reserve(0.003)
            if reservation is None:
                return
            budget.reconcile(reservation, 0.003)
            granted.append(1)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert budget.spent_usd <= 1.0 + 1e-12
    assert len(granted) == 333
