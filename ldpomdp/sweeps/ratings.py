"""Ratings from finishing orders: a Plackett-Luce fit (Bradley-Terry at two players), 95% intervals.

The Plackett-Luce model is fitted by maximum a posteriori with scipy's optimizer, the 95% intervals come from the
curvature at the optimum; with two players at every table it is the Bradley-Terry model.

Why scipy and not ``choix`` or ``openskill``, the measured behaviour and the formulas: docs/tournaments.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .statistics import Z95

__all__ = ["Rating", "Outcome", "plackett_luce", "rate", "ELO", "PRIOR_SD", "GTOL"]

ELO = 400 / math.log(10)  # Elo points per natural unit of log-strength: 400 points are odds of 10 to 1
PRIOR_SD = 10.0  # the log-strengths' Gaussian prior, in natural units: weak, it only keeps a perfect record finite
GTOL = 1e-7  # the fit's largest gradient entry per choice at the optimum: a rating within ~1e-6 nats of it

Outcome = tuple[Sequence[int], Sequence[int]]  # (agents from first place on, the rest of the table behind them)


@dataclass(frozen=True)
class Rating:
    """One agent's rating in Elo points (the field's mean is 0) with its 95% interval, and its games."""

    agent: str
    rating: float
    low: float
    high: float
    games: int


def _choices(outcomes: Iterable[Outcome]) -> dict[tuple[int, ...], np.ndarray]:
    """Each choice set (sorted agent indices) -> how often each of its members was picked first among them: a
    finishing order is a run of choices, first place out of the table, second out of the rest, ..."""
    counts: dict[tuple[int, ...], np.ndarray] = {}
    for placed, rest in outcomes:
        table = [*placed, *rest]
        if len(set(table)) != len(table):
            raise ValueError(f"an outcome names an agent twice: {list(placed)} then {list(rest)}")
        for stage, chosen in enumerate(placed):
            members = tuple(sorted(table[stage:]))
            if len(members) < 2:
                break
            counts.setdefault(members, np.zeros(len(members)))[members.index(chosen)] += 1
    return counts


def plackett_luce(outcomes: Iterable[Outcome], n: int, prior_sd: float = PRIOR_SD) -> tuple[np.ndarray, np.ndarray]:
    """Fit the log-strengths of agents ``0 .. n-1`` to ``outcomes``; return them and their covariance.

    The log-strengths (natural units, mean 0) best explain ``outcomes`` under a N(0, ``prior_sd``²) prior; the
    covariance is the inverse curvature, taken about the field's mean."""
    groups = [(np.array(members), picked) for members, picked in _choices(outcomes).items()]
    scale = 1 / max(1, sum(picked.sum() for _, picked in groups))  # per choice: the fit's tolerance fits any size
    alpha = 1 / prior_sd**2

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = alpha * theta @ theta / 2, alpha * theta
        for members, picked in groups:
            total, top = picked.sum(), theta[members].max()
            weights = np.exp(theta[members] - top)
            value += total * (top + math.log(weights.sum())) - picked @ theta[members]
            grad[members] += total * weights / weights.sum() - picked
        return value * scale, grad * scale

    def curvature(theta: np.ndarray) -> np.ndarray:
        hess = alpha * np.eye(n)
        for members, picked in groups:
            p = np.exp(theta[members] - theta[members].max())
            p /= p.sum()
            hess[np.ix_(members, members)] += picked.sum() * (np.diag(p) - np.outer(p, p))
        return hess * scale

    from scipy.optimize import minimize  # slow to import: only a tournament's own process needs it

    found = minimize(objective, np.zeros(n), jac=True, hess=curvature, method="trust-exact", options={"gtol": GTOL})
    # it may stop on rounding right at the optimum ("failure to predict improvement"): the gradient is the test
    if np.abs(found.jac).max() > GTOL:  # a strictly convex objective: not expected, never a silent wrong answer
        raise RuntimeError(f"the rating fit did not converge: {found.message}")
    centre = np.eye(n) - 1 / n
    return found.x - found.x.mean(), centre @ np.linalg.inv(curvature(found.x) / scale) @ centre


def rate(agents: Sequence[str], outcomes: Sequence[Outcome], prior_sd: float = PRIOR_SD) -> list[Rating]:
    """The agents' ratings from ``outcomes`` (agent indices), best first: ``plackett_luce`` in Elo points, each
    with its 95% interval and the number of outcomes it is in."""
    theta, cov = plackett_luce(outcomes, len(agents), prior_sd)
    half = Z95 * np.sqrt(np.clip(np.diag(cov), 0, None))
    games = np.zeros(len(agents), dtype=int)
    for placed, rest in outcomes:
        games[[*placed, *rest]] += 1
    order = sorted(range(len(agents)), key=lambda i: -theta[i])
    return [Rating(agents[i], ELO * theta[i], ELO * (theta[i] - half[i]), ELO * (theta[i] + half[i]), int(games[i]))
            for i in order]
