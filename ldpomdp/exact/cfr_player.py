"""The ``cfr`` player: plays a solved :class:`~ldpomdp.exact.equilibrium.GameTable` (numpy alone).

The default rules' table (2 players, 6 faces, ones wild, ``after_challenger``, full bids) ships with the package;
other rules are solved on first use and cached on disk (``cache_dir()/cfr``), like ``nash``'s rounds.
"""

from __future__ import annotations

import hashlib
from dataclasses import astuple, dataclass
from pathlib import Path

import numpy as np

from ..caches import BoundedCache, bounded_cache
from ..game import PlayerView, PublicView
from ..opponents.base import BaseOpponent, sample_action
from ..rules import CHALLENGE, Action, GameConfig
from .equilibrium import GameTable, solve_game
from .nash import cache_dir

__all__ = ["CFRPlayer", "SHIPPED_TABLE", "SolveSettings", "SHIPPED", "ON_DEMAND", "table_for"]

SHIPPED_TABLE = Path(__file__).parent / "data" / "cfr_default.npz"


@dataclass(frozen=True)
class SolveSettings:
    """How a table is solved (:func:`~ldpomdp.exact.equilibrium.solve_game`): every round up to ``dice`` each, the
    ``recall`` (k, or a schedule like ``"3@4,2"``), CFR+ ``iterations`` per round."""

    dice: int
    recall: str
    iterations: int


SHIPPED = SolveSettings(dice=5, recall="3@4,2", iterations=150)  # the shipped table's (`ldpomdp solve equilibrium`)
ON_DEMAND = SolveSettings(dice=3, recall="3@4,2", iterations=150)  # the tables solved on demand for other rules
CACHED_TABLES = 8  # tables kept in memory (the shipped one is 10 MB)
_MEMORY: BoundedCache[str, GameTable] = bounded_cache(f"{__name__}._MEMORY", CACHED_TABLES)


def _rules_key(config: GameConfig) -> str:
    return f"faces={config.faces}|wild={config.wild}|bids={config.bids}|opener={config.opener}"


def table_for(config: GameConfig, path: str | Path | None = None) -> GameTable:
    """The table for ``config``'s rules: ``path`` if given, else the shipped one (default rules), else one solved
    now with :data:`ON_DEMAND` settings and cached on disk."""
    if config.num_players != 2:
        raise ValueError(f"cfr plays two-player games only (no equilibrium table for {config.num_players} players)")
    if config.bids != "full":
        raise ValueError(f"cfr plays the full-bid game only, got bids={config.bids!r}")
    if path is not None:
        key = f"path={Path(path).resolve()}"
    elif _rules_key(config) == _rules_key(GameConfig()):
        key, path = "shipped", SHIPPED_TABLE
    else:
        key = _rules_key(config)
    table = _MEMORY.lookup(key)
    if table is None:
        if path is None and max(config.starting_dice) > ON_DEMAND.dice:  # refuse before solving
            raise ValueError(f"cfr: tables solved on demand cover up to {ON_DEMAND.dice} dice each; the game starts "
                             f"with {config.starting_dice} (solve a larger one with `ldpomdp solve equilibrium`)")
        if path is None:
            # the settings as the tuple they were: the digests of tables already cached on disk stay the same
            digest = hashlib.sha256(f"v{GameTable.FORMAT}|{key}|{astuple(ON_DEMAND)}".encode()).hexdigest()[:20]
            cached = cache_dir() / "cfr" / f"table-{digest}.npz"
            if cached.exists():
                table = GameTable.load(cached)
            else:
                table = solve_game(config, ON_DEMAND.dice, ON_DEMAND.recall, ON_DEMAND.iterations)
                table.save(cached)
        else:
            table = GameTable.load(path)
        _MEMORY[key] = table
    if _rules_key(table.config) != _rules_key(config):
        raise ValueError(f"cfr table {path} is for {table.config.describe()}, the game is {config.describe()}")
    return table


class CFRPlayer(BaseOpponent):
    """Plays the abstraction's equilibrium: in each round, as opener or responder, the average CFR+ strategy of
    its hand and the last k bids (k per round: the table's recall). Two players, full bids; ``table`` is a path
    to a table from ``ldpomdp solve equilibrium`` (default: the shipped one for the default rules, else one
    solved on demand and cached) or a :class:`~ldpomdp.exact.equilibrium.GameTable`."""

    def __init__(self, table: str | GameTable | None = None, name: str | None = None):
        self.name = name or "cfr"
        self._table = table if isinstance(table, GameTable) else None
        self.table_path = None if isinstance(table, GameTable) else table
        if self.table_path is not None and not Path(self.table_path).exists():
            raise ValueError(f"cfr: no table at {table}")

    def table(self, config: GameConfig) -> GameTable:
        """The table this player plays ``config`` with (ValueError when it cannot)."""
        if self._table is None:
            return table_for(config, self.table_path)
        if config.num_players != 2 or _rules_key(self._table.config) != _rules_key(config):
            raise ValueError(f"cfr: the table is for 2 players, {self._table.config.describe()}; the game has "
                             f"{config.num_players} players, {config.describe()}")
        return self._table

    def reset(self, seat: int, config: GameConfig) -> None:
        if config.variants:
            raise ValueError(f"cfr: the equilibrium solver takes today's rules only, not the variants "
                             f"{config.variants}")
        table = self.table(config)
        if max(config.starting_dice) > table.max_dice:
            raise ValueError(f"cfr: the table covers up to {table.max_dice} dice each; the game starts with "
                             f"{config.starting_dice}")
        super().reset(seat, config)

    def _locate(self, view: PublicView) -> tuple[GameTable, tuple[int, int], int, int]:
        """(table, round dice, role, abstract state) of the decision in ``view``."""
        config = view.config
        table = self.table(config)
        opener = view.history[0][0] if view.history else view.seat
        dice = (int(view.dice[opener]), int(view.dice[1 - opener]))
        if not table.covers(dice):
            raise ValueError(f"cfr: the table does not cover a round with dice {dice} (opener's, responder's)")
        role = int(view.seat != opener)
        r = table.round(dice)
        try:
            state = r.state_of(role, tuple(r.coding.index(b) for _, b in view.history))
        except (KeyError, ValueError):  # no such state, or a bid beyond the round's dice
            raise ValueError(f"{self.name}: history {view.history} is not a legal bid sequence") from None
        return table, dice, role, state

    def _actions(self, dice: tuple[int, int], table: GameTable, state: int) -> list[Action]:
        r = table.round(dice)
        last = int(r.last[state])
        actions: list[Action] = list(r.bids[last + 1:])
        return actions + ([CHALLENGE] if last >= 0 else [])

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        table, dice, role, state = self._locate(view)
        rows = table.round(dice).hand_rows(role, hands)
        actions = self._actions(dice, table, state)
        if action not in actions:  # illegal here (or an action these rules do not have)
            return np.zeros(len(rows))
        return table.probabilities(dice, role, state, rows)[:, actions.index(action)]

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        table, dice, role, state = self._locate(view)
        rows = table.round(dice).hand_rows(role, np.asarray(view.hand)[None, :])
        return sample_action(self._actions(dice, table, state), table.probabilities(dice, role, state, rows)[0], rng)
