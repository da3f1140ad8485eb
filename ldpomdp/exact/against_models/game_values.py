"""What a dice state is worth to one seat, P(it wins the game) from there: for planners that search one round.

Exact where the game can be solved against the models the planner assumes (the sixes game against count-based or
hand-independent models, the full game against hand-independent ones, within a work budget): the value of the best
response from that state on. Elsewhere the fair-rounds estimate: the value if every later round costs a die to each
seat still in with equal probability. That is the game between equally strong players, and unlike a reward of one
die it values a die more the fewer a seat has left.
"""

from __future__ import annotations

from typing import Protocol

from ...caches import memo
from ...rules import GameConfig
from .count_rounds import HandDependentModelError
from .solver import solve_work, solved_for

__all__ = ["GameValue", "FairRounds", "seat_values", "affordable", "EXACT_MODEL_CALLS"]

EXACT_MODEL_CALLS = 150_000  # solver work (solve_work's model calls) affordable on the way (see docs/performance.md)


class GameValue(Protocol):
    """P(the seat wins the game) from ``dice`` with ``opener`` to open."""

    def win_probability(self, dice: tuple[int, ...], opener: int) -> float: ...


class FairRounds:
    """The fair-rounds estimate for ``seat`` (the opener does not matter)."""

    def __init__(self, seat: int):
        self.seat = seat

    def win_probability(self, dice: tuple[int, ...], opener: int = 0) -> float:
        return _fair(int(dice[self.seat]), tuple(sorted(int(d) for s, d in enumerate(dice) if s != self.seat and d)))


@memo(maxsize=200_000)
def _fair(own: int, others: tuple[int, ...]) -> float:
    """P(a seat with ``own`` dice wins against seats holding ``others`` (sorted, none empty)) in fair rounds."""
    if own == 0:
        return 0.0
    if not others:
        return 1.0
    after = [_fair(own - 1, others)]
    after += [_fair(own, tuple(sorted(others[:k] + (others[k] - 1,) * (others[k] > 1) + others[k + 1:])))
              for k in range(len(others))]
    return sum(after) / (len(others) + 1)


def affordable(config: GameConfig, seat: int = 0, budget: int = EXACT_MODEL_CALLS) -> bool:
    """Whether solving ``config`` for ``seat`` stays within ``budget`` model calls (never under a rule variant: the
    solver takes today's rules only)."""
    if config.variants:
        return False
    try:
        return solve_work(config, seat).model_calls <= budget
    except ValueError:  # too many dice states even to count the work
        return False


@memo(maxsize=64)
def seat_values(config: GameConfig, seat: int, assume: str) -> tuple[GameValue, str]:
    """The dice states' values for ``seat`` when every other seat plays the spec ``assume``, and their kind.

    (the solution of ``solved_for``, "exact") where it can be had within ``EXACT_MODEL_CALLS``, else (``FairRounds``,
    "fair-rounds"). Cached for the process."""
    if affordable(config, seat):
        try:
            return solved_for(config, seat, assume), "exact"
        except HandDependentModelError:
            pass
    return FairRounds(seat), "fair-rounds"
