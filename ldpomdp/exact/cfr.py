"""The CFR+ core that every round solver shares: regret matching and the round-solver interface.

``RoundSolver`` is what the chaining code (``solve_game``, ``solve_blueprint``) drives through ``run_until``:
iterations run, the average strategies read. Two-player rounds: ``RoundCFR``; three to six seats:
``ldpomdp.exact.many_players.round_cfr``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Protocol

import numpy as np

__all__ = ["regret_matching", "RoundSolver", "run_until"]


def regret_matching(positive: np.ndarray, widths: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Regret matching: per state segment of columns (``widths``), the positive parts normalised.

    A segment whose parts are all 0 gets the uniform strategy. Written into ``out`` when given (a float64 array shaped
    like ``positive``, not ``positive`` itself), else a new array."""
    if positive.shape[1] == 0:
        return positive.copy() if out is None else out
    totals = np.add.reduceat(positive, np.cumsum(widths) - widths, axis=1)  # each segment's total
    out = np.empty_like(positive) if out is None else out
    np.take(totals, np.repeat(np.arange(len(widths)), widths), axis=1, out=out, mode="clip")  # clip: no temporary
    empty = ~(out > 0)
    out[empty] = 1.0
    np.divide(positive, out, out=out)  # in place: these arrays are the round's largest
    np.copyto(out, np.broadcast_to(np.repeat(1.0 / widths, widths), out.shape), where=empty)
    return out



class RoundSolver(Protocol):
    """CFR+ on one round: per role or seat (its hands, its columns) arrays of regrets (kept >= 0) and strategy sums,
    each state's columns its actions; ``iteration`` counts the completed iterations."""

    iteration: int

    def run(self, iterations: int) -> None:
        """``iterations`` more CFR+ iterations."""

    def current_strategy(self) -> list[np.ndarray]:
        """The strategies regret matching gives now, per role or seat (hands, columns)."""

    def average_strategy(self) -> list[np.ndarray]:
        """The average strategies (the equilibrium approximation), per role or seat (hands, columns)."""


def run_until(solver: RoundSolver, target: int, step: int = 1) -> Iterator[tuple[int, float]]:
    """Run ``solver`` up to ``target`` iterations, ``step`` at a time; after each step, (iterations run, CPU s)."""
    while solver.iteration < target:
        start = time.process_time()
        iterations = min(step, target - solver.iteration)
        solver.run(iterations)
        yield iterations, time.process_time() - start
