"""The ``cfr`` player: plays a solved ``GameTable`` (numpy alone).

By default it plays the table for the game's rules (``table_for``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..datafiles import read_npz
from ..errors import UsageError
from ..exact.many_players.table import BlueprintTable
from ..exact.tables import blueprint_for, table_for
from ..exact.two_player.table import GameTable, rules_key
from ..game import PlayerView, PublicView
from ..opponent import BaseOpponent, ViewMemo, sample_action
from ..round_end import seats_in_turn
from ..rules import Action, GameConfig

__all__ = ["CFRPlayer"]


@dataclass(frozen=True)
class _Decision:
    """A decision located in a table: its actions, and each hand's probabilities of them."""

    actions: tuple[Action, ...]
    rows: Callable[[np.ndarray], np.ndarray]  # hands (face counts) -> rows of the table
    probabilities: Callable[[np.ndarray], np.ndarray]  # rows -> (rows, actions)


class CFRPlayer(BaseOpponent):
    """Plays the abstraction's equilibrium: the average CFR+ strategy of its hand and the last k bids.

    In each round, as opener or responder, k is the round's recall in the table. Two players: ``table`` is a path to
    a table from ``ldpomdp solve equilibrium`` (default: the shipped one for the default rules, else one solved on
    demand and cached) or a ``GameTable``; three to six players: the blueprint (``BlueprintTable``, a path from
    ``ldpomdp solve equilibrium --players N``, else one solved on demand and cached), the two-player table once two
    seats have dice."""

    def __init__(self, table: str | GameTable | None = None, name: str | None = None):
        self.name = name or "cfr"
        self._table = table if isinstance(table, GameTable) else None
        self.table_path = None if isinstance(table, GameTable) else table
        self._found: tuple[GameConfig, GameTable | BlueprintTable] | None = None  # the last rules asked, their table
        self._located: tuple[PublicView, _Decision] | None = None
        self._memo: ViewMemo[np.ndarray] = ViewMemo()
        if self.table_path is not None and not Path(self.table_path).is_file():
            read_npz(self.table_path, "equilibrium table")  # raises TableError naming the file and its fault

    def table(self, config: GameConfig) -> GameTable:
        """The two-player table this player plays ``config`` with (ValueError when it cannot)."""
        table = self._table_of(config)
        if not isinstance(table, GameTable):
            raise UsageError(f"cfr: {config.num_players} players play the blueprint, not a two-player table")
        return table

    def blueprint(self, config: GameConfig) -> BlueprintTable:
        """The blueprint this player plays ``config`` (3-6 players) with (ValueError when it cannot)."""
        table = self._table_of(config)
        if not isinstance(table, BlueprintTable):
            raise UsageError(f"cfr: {config.num_players} players play a two-player table, not a blueprint")
        return table

    def _table_of(self, config: GameConfig) -> GameTable | BlueprintTable:
        """The table for ``config``: the two-player one, or at 3-6 players the blueprint (ValueError if none)."""
        found = self._found
        if found is not None and found[0] is config:  # the same rules object: the same table
            return found[1]
        table: GameTable | BlueprintTable
        if config.num_players > 2 and self._table is None:
            table = blueprint_for(config, self.table_path)
        elif self._table is None:
            table = table_for(config, self.table_path)
        elif config.num_players != 2 or rules_key(self._table.config) != rules_key(config):
            raise UsageError(f"cfr: the table is for 2 players, {self._table.config.describe()}; the game has "
                             f"{config.num_players} players, {config.describe()}")
        else:
            table = self._table
        self._found = (config, table)
        return table

    def reset(self, seat: int, config: GameConfig) -> None:
        table = self._table_of(config)
        if max(config.starting_dice) > table.max_dice:
            raise UsageError(f"cfr: the table covers up to {table.max_dice} dice each; the game starts with "
                             f"{config.starting_dice}")
        self._located = None
        super().reset(seat, config)

    def _locate(self, view: PublicView) -> _Decision:
        """The decision in ``view`` (the last view's kept: a model is asked about several actions at one view)."""
        located = self._located
        if located is not None and located[0] is view:
            return located[1]
        found = self._find(view)
        self._located = (view, found)
        return found

    def _find(self, view: PublicView) -> _Decision:
        palifico = view.config.palifico_round
        if palifico and (self.config is None or self.config.round_rules(True) != view.config):
            raise ValueError(f"{self.name}: a palifico round's view needs the player reset with the game's rules")
        table = self._table_of(self.config if palifico else view.config)  # type: ignore[arg-type]
        opener = view.history[0][0] if view.history else view.seat
        order = seats_in_turn(view.dice, opener)
        dice = tuple(int(view.dice[s]) for s in order)
        seat = order.index(view.seat)
        if isinstance(table, BlueprintTable) and len(order) > 2:
            return self._find_many(table, view, dice, seat, palifico)
        two = table.two if isinstance(table, BlueprintTable) else table
        pair = (dice[0], dice[1])
        if not two.covers(pair, palifico):
            raise UsageError(f"cfr: the table does not cover a{' palifico' if palifico else ''} round with dice "
                             f"{pair} (opener's, responder's)")
        r = two.round(pair, palifico)
        try:
            state = r.state_of(seat, tuple(r.bid_index[b] for _, b in view.history))
        except KeyError:  # no such state, or a bid beyond the round's dice
            raise ValueError(f"{self.name}: history {view.history} is not a legal bid sequence") from None
        return _Decision(tuple(r.actions(state)), lambda hands: r.hand_rows(seat, hands),
                         lambda rows: two.probabilities(pair, seat, state, rows, r.config.palifico_round))

    def _find_many(self, table: BlueprintTable, view: PublicView, dice: tuple[int, ...], seat: int, palifico: bool
                   ) -> _Decision:
        if (dice, palifico) not in table.strategies:
            raise UsageError(f"cfr: the blueprint does not cover a{' palifico' if palifico else ''} round with dice "
                             f"{dice} (in turn from the opener)")
        r = table.round(dice, palifico)
        window = tuple(b for _, b in view.history)[-r.k:]
        state = r.index.get((seat, window))
        if state is None:
            raise ValueError(f"{self.name}: history {view.history} is not a legal bid sequence")
        return _Decision(r.actions(state), lambda hands: r.hand_rows(seat, hands),
                         lambda rows: table.probabilities(dice, seat, state, rows, palifico))

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        decision = self._locate(view)
        if action not in decision.actions:  # illegal here (or an action these rules do not have)
            return np.zeros(len(decision.rows(hands)))
        probabilities = self._memo.get(hands, view, lambda: decision.probabilities(decision.rows(hands)))
        return probabilities[:, decision.actions.index(action)].copy()  # the memo's matrix is shared

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        decision = self._locate(view)
        rows = decision.rows(np.asarray(view.hand)[None, :])
        return sample_action(decision.actions, decision.probabilities(rows)[0], rng)
