"""LBR's win rate against a policy, read as a lower bound on the policy's exploitability."""

from __future__ import annotations

from dataclasses import dataclass

from ..registry import spec_text
from ..rules import GameConfig
from ..validation import int_at_least
from .cell import Cell
from .runner import play_batch
from .statistics import wilson_interval

__all__ = ["LowerBound", "exploitability_lower_bound"]


@dataclass(frozen=True)
class LowerBound:
    """A lower bound on a policy's exploitability, from LBR's ``wins`` in ``games`` against it, seats rotated.

    Read per role in payoff units (+1 win / -1 loss), like ``Exploitability``'s ``average``: 2w - 1, with the 95%
    Wilson interval of w mapped the same way."""

    wins: int
    games: int
    cpu_seconds: float = float("nan")

    @property
    def value(self) -> float:
        return 2.0 * self.wins / self.games - 1.0

    @property
    def interval(self) -> tuple[float, float]:
        low, high = wilson_interval(self.wins, self.games)
        return 2.0 * low - 1.0, 2.0 * high - 1.0


def exploitability_lower_bound(policy: str, config: GameConfig, games: int, seed: int = 0, lookahead: int = 2,
                               raises: str = "smallest") -> LowerBound:
    """Play ``games`` games of ``lbr:POLICY`` against the spec ``policy``, and return the bound.

    The games are played in this process, with the sweep's seeds and seat rotation (``play_batch``; a sweep of the
    same cell plays the same games). For many games use ``run_sweep`` (parallel, resumable).

    Args:
        policy: the player spec whose exploitability is bounded (LBR's model of it, and the player it faces).
        config: the rules; ``num_players`` must be 2.
        games: the number of games, >= 1.
        seed: the sweep seed the games' seeds derive from; default 0.
        lookahead: LBR's lookahead, 1 or 2 (see ``LocalBestResponse``); default 2.
        raises: LBR's candidate raises, "smallest" (the smallest on each face) or "all"; default "smallest".

    Returns:
        The ``LowerBound`` of LBR's wins in the games, with the CPU seconds they took.

    Raises:
        ValueError: ``games`` is not an integer >= 1, or a spec or the rules are refused.
    """
    games = int_at_least("exploitability_lower_bound", "games", games, 1)
    lbr = spec_text("lbr", {"policy": policy, "lookahead": lookahead, "raises": raises})
    records, seconds = play_batch(Cell((lbr, policy), config), seed, range(games))
    wins = sum(r["seats"][r["winner"]] == 0 for r in records)
    return LowerBound(wins, games, seconds)
