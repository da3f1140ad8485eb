"""The ``cfr`` player: plays a solved :class:`~ldpomdp.exact.equilibrium.GameTable` (numpy alone), by default
the table for the game's rules (:func:`~ldpomdp.exact.tables.table_for`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..datafiles import read_npz
from ..exact.equilibrium import AbstractRound, GameTable
from ..exact.tables import rules_key, table_for
from ..game import PlayerView, PublicView
from ..opponent import BaseOpponent, sample_action
from ..rules import Action, GameConfig

__all__ = ["CFRPlayer"]


class CFRPlayer(BaseOpponent):
    """Plays the abstraction's equilibrium: in each round, as opener or responder, the average CFR+ strategy of
    its hand and the last k bids (k per round: the table's recall). Two players, full bids; ``table`` is a path
    to a table from ``ldpomdp solve equilibrium`` (default: the shipped one for the default rules, else one
    solved on demand and cached) or a :class:`~ldpomdp.exact.equilibrium.GameTable`."""

    def __init__(self, table: str | GameTable | None = None, name: str | None = None):
        self.name = name or "cfr"
        self._table = table if isinstance(table, GameTable) else None
        self.table_path = None if isinstance(table, GameTable) else table
        self._found: tuple[GameConfig, GameTable] | None = None  # the last rules asked for and their table
        self._located: tuple[PublicView, tuple[GameTable, AbstractRound, tuple[int, int], int, int]] | None = None
        if self.table_path is not None and not Path(self.table_path).is_file():
            read_npz(self.table_path, "equilibrium table")  # raises TableError naming the file and its fault

    def table(self, config: GameConfig) -> GameTable:
        """The table this player plays ``config`` with (ValueError when it cannot)."""
        found = self._found
        if found is not None and found[0] is config:  # the same rules object: the same table
            return found[1]
        if self._table is None:
            table = table_for(config, self.table_path)
        elif config.num_players != 2 or rules_key(self._table.config) != rules_key(config):
            raise ValueError(f"cfr: the table is for 2 players, {self._table.config.describe()}; the game has "
                             f"{config.num_players} players, {config.describe()}")
        else:
            table = self._table
        self._found = (config, table)
        return table

    def reset(self, seat: int, config: GameConfig) -> None:
        table = self.table(config)
        if max(config.starting_dice) > table.max_dice:
            raise ValueError(f"cfr: the table covers up to {table.max_dice} dice each; the game starts with "
                             f"{config.starting_dice}")
        self._located = None
        super().reset(seat, config)

    def _locate(self, view: PublicView) -> tuple[GameTable, AbstractRound, tuple[int, int], int, int]:
        """(table, round, round dice, role, abstract state) of the decision in ``view`` (the last view's kept: a
        model is asked about several actions at one view)."""
        located = self._located
        if located is not None and located[0] is view:
            return located[1]
        found = self._find(view)
        self._located = (view, found)
        return found

    def _find(self, view: PublicView) -> tuple[GameTable, AbstractRound, tuple[int, int], int, int]:
        palifico = view.config.palifico_round
        if palifico and (self.config is None or self.config.round_rules(True) != view.config):
            raise ValueError(f"{self.name}: a palifico round's view needs the player reset with the game's rules")
        table = self.table(self.config if palifico else view.config)  # type: ignore[arg-type]
        opener = view.history[0][0] if view.history else view.seat
        dice = (int(view.dice[opener]), int(view.dice[1 - opener]))
        if not table.covers(dice, palifico):
            raise ValueError(f"cfr: the table does not cover a{' palifico' if palifico else ''} round with dice "
                             f"{dice} (opener's, responder's)")
        role = int(view.seat != opener)
        r = table.round(dice, palifico)
        try:
            state = r.state_of(role, tuple(r.bid_index[b] for _, b in view.history))
        except KeyError:  # no such state, or a bid beyond the round's dice
            raise ValueError(f"{self.name}: history {view.history} is not a legal bid sequence") from None
        return table, r, dice, role, state

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        table, r, dice, role, state = self._locate(view)
        rows = r.hand_rows(role, hands)
        actions = r.actions(state)
        if action not in actions:  # illegal here (or an action these rules do not have)
            return np.zeros(len(rows))
        return table.probabilities(dice, role, state, rows, r.config.palifico_round)[:, actions.index(action)]

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        table, r, dice, role, state = self._locate(view)
        rows = r.hand_rows(role, np.asarray(view.hand)[None, :])
        return sample_action(r.actions(state), table.probabilities(dice, role, state, rows, r.config.palifico_round)[0],
                             rng)
