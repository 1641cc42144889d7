"""Ranking metrics shared by the recommender evaluators."""

from __future__ import annotations

import math
import random

import numpy as np


def ndcg_at_k(rankings: dict[str, list[int]], interactions: np.ndarray, k: int = 20) -> float:
    relevant: dict[int, list[int]] = {}
    for user, item in interactions[:, :2].tolist():
        relevant.setdefault(int(user), []).append(int(item))
    total = 0.0
    for user in sorted(rankings):
        gold = relevant.get(int(user), [])
        dcg = sum(1 / math.log2(i + 2) for i, item in enumerate(rankings[user][:k]) if item in gold)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), k)))
        total += dcg / ideal if ideal else 0.0
    return total / max(len(rankings), 1)


def resample_users(rankings: dict[str, list[int]], interactions: np.ndarray, rounds: int = 50) -> float:
    users = sorted(rankings)
    draw = random.Random()  # expect: EV009
    values = []
    for _ in range(rounds):
        picked = {u: rankings[u] for u in draw.choices(users, k=len(users))}
        values.append(ndcg_at_k(picked, interactions))
    return float(np.std(values))
