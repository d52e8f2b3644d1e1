"""pass^k and pass@k: does the agent succeed every time, or at least once?

Pack §2.9 ("How pass^k is computed"). Run each task n times and count c successes. The
unbiased estimate that k random tries out of the n all succeed is C(c, k) / C(n, k); that at
least one succeeds is 1 − C(n−c, k) / C(n, k). Both are averaged over tasks. τ-bench [5]
reports pass^k because a support agent must work for every customer, not for one in k.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from .data import load_json

__all__ = ["pass_hat_k", "pass_at_k", "load_taubench"]


def _check(successes: Sequence[int], n: int, k: int) -> list[int]:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n (trials per task) must be a positive integer, got {n!r}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if k > n:
        raise ValueError(f"k={k} is larger than n={n}: you cannot draw {k} of {n} trials; run more trials")
    counts = list(successes)
    if not counts:
        raise ValueError("need the success count of at least one task")
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= n:
            raise ValueError(f"each success count must be an integer from 0 to n={n}, got {c!r}")
    return counts


def pass_hat_k(successes_per_task: Sequence[int], n: int, k: int) -> float:
    """pass^k: the mean over tasks of C(c, k) / C(n, k). Raises ValueError when k > n.

    Notebook 10.
    """
    counts = _check(successes_per_task, n, k)
    return sum(comb(c, k) for c in counts) / (comb(n, k) * len(counts))


def pass_at_k(successes_per_task: Sequence[int], n: int, k: int) -> float:
    """pass@k: the mean over tasks of 1 − C(n − c, k) / C(n, k). Raises ValueError when k > n.

    Notebook 10.
    """
    counts = _check(successes_per_task, n, k)
    total = comb(n, k)
    return sum(1 - comb(n - c, k) / total for c in counts) / len(counts)


def load_taubench() -> dict:
    """τ-bench's per-task results for gpt-4o on airline (4 trials × 50 tasks, MIT licence).

    ``successes`` lists each task's success count and ``leaderboard_row`` the published
    pass^1…pass^4, which :func:`pass_hat_k` reproduces from the counts.

    Notebook 10.
    """
    return load_json("taubench/gpt-4o-airline.json")
