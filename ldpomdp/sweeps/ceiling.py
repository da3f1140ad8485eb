"""The best possible play beside a sweep: per cell and player, the exact ceiling and own win rate.

Per cell and player: the exact win rate of the best response to the other players' models (the ceiling) and the
player's own exact win rate, where they can be computed.

Player i's figure is one solution with i at seat 0 and the others in their cyclic order after it, averaged over
the openers with the weights of the cell's game schedule; one solution at the largest dice of a group of cells
that differ only in their dice serves every smaller cell (the design notes, "Sweeps", say why).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..exact.against_models.count_rounds import HandDependentModelError, evaluated_through
from ..exact.against_models.game_values import EXACT_MODEL_CALLS, affordable
from ..exact.against_models.solver import FixedOpponentsSolution
from ..game import Player
from ..registry import make_player
from ..rules import GameConfig

__all__ = ["ExactFigures", "exact_figures", "ACT_EVALUATION_MAX_DICE"]

ACT_EVALUATION_MAX_DICE = 15  # players evaluated through ``act`` rebuild their belief every round: up to this
_HAND_DEPENDENT = {  # why a player gets no exact figures when an opponent acts on its hand (docs/sweeps.md)
    "full": "the full game's solver needs opponents that ignore their hands",
    "sixes": "the solver needs opponents that ignore their hands or decide by their count of the bid face",
}


class ExactFigures(dict):
    """(cell id, player index) -> (best response win rate, the player's exact win rate); NaN where not
    computed. ``notes`` says what was left out and why."""

    def __init__(self):
        super().__init__()
        self.notes: list[str] = []


def _models(specs: Sequence[str]) -> dict[int, Player] | None:
    """Seat j -> the model of ``specs[j - 1]`` (j = 1 ..), or None when one of them is no model."""
    models = {j: make_player(spec) for j, spec in enumerate(specs, start=1)}
    return models if all(callable(getattr(m, "action_probabilities", None)) for m in models.values()) else None


def _largest(config: GameConfig, dice: Iterable[int], budget: int) -> int | None:
    """The largest of ``dice`` whose solution at seat 0 stays within ``budget`` model calls."""
    return next((d for d in sorted(dice, reverse=True) if affordable(_config(config, d), 0, budget)), None)


def _config(config: GameConfig, dice: int) -> GameConfig:
    """``config`` with ``dice`` for every player."""
    return replace(config, dice=(dice,) * config.num_players)


def _averaged(solution: FixedOpponentsSolution, dice: int, n: int, i: int, schedule: Sequence[float]) -> float:
    """Player i's win rate over the cell's rotations from ``dice`` each, ``solution`` seating it at 0: rotation k
    seats it at (i - k) mod n with seat 0 opening, which is opener (k - i) mod n seen from i."""
    return sum(w * solution.win_probability((dice,) * n, (k - i) % n) for k, w in enumerate(schedule))


def exact_figures(cells: Sequence, games: int, budget: int = EXACT_MODEL_CALLS) -> ExactFigures:
    """The exact figures of every (cell, player) of a sweep playing ``games`` games per cell (see the module)."""
    figures = ExactFigures()
    groups: dict[tuple, list] = defaultdict(list)
    for cell in cells:
        groups[(cell.players, _config(cell.config, 1))].append(cell)  # the same players and rules
    for (players, _), group in groups.items():
        n = len(players)
        config = group[0].config
        schedule = [sum(1 for g in range(games) if g % n == k) / games for k in range(n)]  # rotation k's share
        top = _largest(config, (c.dice for c in group), budget)
        hand_dependent: list[str] = []  # players with an opponent that acts on its hand beyond what is solved
        for i, spec in enumerate(players):
            specs = [players[(i + j) % n] for j in range(1, n)]
            for c in group:
                figures[(c.id, i)] = (math.nan, math.nan)
            models = _models(specs)
            if models is None or top is None:
                continue
            best = FixedOpponentsSolution(_config(config, top), models, 0)
            try:
                ceilings = {c.id: _averaged(best, c.dice, n, i, schedule) for c in group if c.dice <= top}
            except HandDependentModelError:  # said once for the group below: its message is long
                hand_dependent.append(spec)
                continue
            values: dict[str, float] = {}
            player = make_player(spec)
            through = evaluated_through(player)
            if config.bids == "sixes" and through is not None:
                limit = min(top, ACT_EVALUATION_MAX_DICE) if through == "act" else top
                own = FixedOpponentsSolution(_config(config, limit), models, 0, policy=player)
                try:
                    values = {c.id: _averaged(own, c.dice, n, i, schedule) for c in group if c.dice <= limit}
                except ValueError as exc:
                    figures.notes.append(f"no exact value of {spec!r}: {exc}")
            for c in group:
                figures[(c.id, i)] = (ceilings.get(c.id, math.nan), values.get(c.id, math.nan))
            left = sorted(c.dice for c in group if c.dice > top)
            if left:
                figures.notes.append(f"no exact figures for {spec!r} above {top} dice ({left}): the solver's work "
                                     f"exceeds the sweep's budget of {budget:,} model calls")
        if hand_dependent:
            figures.notes.append(f"no exact figures for {', '.join(dict.fromkeys(hand_dependent))}: an opponent acts "
                                 f"on its hand, and {_HAND_DEPENDENT[config.bids]}")
    return figures
