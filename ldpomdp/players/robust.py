"""The ``robust`` player, the package's recommended agent against an opponent it does not know.

It plays the whole game's approximate equilibrium (``cfr``), exploiting the opponent only once it has named it as a
listed type.

Each round it plays the local best response to its ``TypeMixture`` only when both gates agree: *identification*
(after at least one round, at least ``confidence`` on the listed types) and *stop-loss* (the exploited rounds have
lost at most ``stop_loss`` of its game value); see the Robustness page.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import cast

import numpy as np

from ..errors import TableError, UsageError
from ..exact.many_players.table import BlueprintTable
from ..exact.two_player.table import GameTable
from ..game import Event, PlayerView, RoundEnd, RoundStart
from ..opponent import BaseOpponent
from ..registry import make_player, spec_text
from ..rules import Action, GameConfig
from ..validation import number
from .cfr import CFRPlayer
from .lbr import LocalBestResponse
from .mixture import DEFAULT_SAFE, DEFAULT_TREMBLE, DEFAULT_TYPES, TypeMixture

__all__ = ["RobustPlayer", "DEFAULT_STOP_LOSS"]

DEFAULT_STOP_LOSS = 0.5  # game value the exploited rounds may lose before the player keeps to the equilibrium


class RobustPlayer(BaseOpponent):
    """Equilibrium play (``safe``: a ``cfr`` spec) that exploits a named opponent type within a stop-loss.

    It plays the local best response to the opponent-type posterior in the rounds where that posterior, after at
    least one round's evidence, puts at least ``confidence`` on the listed ``types``, until the exploited rounds have
    lost more than ``stop_loss`` game value. At 3-6 players ``cfr`` plays its blueprint and a type model sits at each
    other seat (``exploiter.models``; ``model`` serves two players), every one with dice to be named. ``floor``,
    ``tremble`` as in ``TypeMixture``, ``lookahead`` as in LBR.

    ``exploited`` counts the best responder's decisions, ``decisions`` all; ``exploit_result`` is the game value the
    exploited rounds won (negative: lost), counted when the next round starts (the game's last round is not)."""

    def __init__(self, types: Sequence[str] | str = DEFAULT_TYPES, safe: str = DEFAULT_SAFE, confidence: float = 0.95,
                 floor: float = 0.01, tremble: float = DEFAULT_TREMBLE, lookahead: int = 2,
                 stop_loss: float = DEFAULT_STOP_LOSS, name: str | None = None):
        self.confidence = number("RobustPlayer", "confidence", confidence, 0.0, 1.0)
        floor = number("RobustPlayer", "floor", floor, 0.0, 1.0)
        self.stop_loss = number("RobustPlayer", "stop_loss", stop_loss, 0.0)
        if 1.0 - self.confidence <= floor:
            raise UsageError(f"RobustPlayer: confidence {confidence} can never be reached: the safe type keeps at "
                             f"least the floor {floor} of the posterior (need confidence < 1 - floor)")
        if safe in (None, "", "none"):
            raise UsageError("RobustPlayer.safe: the robust player needs a safe (equilibrium) type, e.g. safe=cfr")
        type_model = partial(TypeMixture, types, floor=floor, safe=safe, tremble=tremble)
        self.model = type_model()
        safe_player = make_player(str(safe))
        if not isinstance(safe_player, CFRPlayer):
            raise UsageError(f"RobustPlayer.safe: {safe!r} is not a cfr player (its table gives the game values "
                             f"the stop-loss needs), e.g. safe=cfr")
        self.safe_player = safe_player
        # the best response values the variant rules' next states by the safe player's own table, and at 3-6
        # players the round ends by its blueprint, with a type model at each other seat
        self.exploiter = LocalBestResponse(self.model, lookahead=lookahead, tables=self.safe_player.table,
                                           blueprints=self.safe_player.blueprint, copy_model=type_model)
        self.name = name or spec_text("robust", {
            key: None if value == default else value for key, value, default in
            (("types", self.model.types, DEFAULT_TYPES), ("safe", self.model.safe, DEFAULT_SAFE),
             ("confidence", confidence, 0.95), ("floor", floor, 0.01), ("tremble", tremble, DEFAULT_TREMBLE),
             ("lookahead", lookahead, 2), ("stop_loss", stop_loss, DEFAULT_STOP_LOSS))})
        self.decisions = self.exploited = 0
        self.exploit_result, self.exploiting = 0.0, False

    def reset(self, seat: int, config: GameConfig) -> None:
        try:  # refuses the games the equilibrium cannot play
            self.safe_player.reset(seat, config)
        except TableError:
            raise
        except UsageError as exc:
            raise UsageError(f"{self.name}: {exc}") from None
        super().reset(seat, config)
        self.exploiter.reset(seat, config)  # resets a type model on each other seat
        if not all(cast(TypeMixture, model).safe_active for model in self.exploiter.models.values()):
            raise UsageError(f"{self.name}: its safe type {self.model.safe!r} cannot model the opponents here")
        self._table: GameTable | BlueprintTable = (self.safe_player.table(config) if config.num_players == 2
                                                   else self.safe_player.blueprint(config))
        self.decisions = self.exploited = 0
        self.exploit_result, self.exploiting = 0.0, False
        self._round_value: float | None = None
        self._rounds_seen = 0

    def _value(self, dice: tuple[int, ...], opener: int, palifico: bool) -> float:
        """This seat's game value (in [-1, 1]: P(win) - P(lose)) at the start of a round with ``dice`` opened by
        ``opener``."""
        if dice[self.seat] == 0:
            return -1.0
        if isinstance(self._table, BlueprintTable):
            return 2.0 * float(self._table.seat_win_probabilities(dice, opener, palifico)[self.seat]) - 1.0
        if min(dice) == 0:
            return 1.0
        value = self._table.value((dice[opener], dice[1 - opener]), palifico)
        return value if opener == self.seat else -value

    def observe(self, event: Event) -> None:
        self.safe_player.observe(event)
        self.exploiter.observe(event)  # and through it the type model (its posterior moves at each round's end)
        if isinstance(event, RoundEnd):
            self._rounds_seen += 1
        elif isinstance(event, RoundStart):
            value = self._value(event.dice, event.opener, event.palifico)
            if self.exploiting and self._round_value is not None:  # the last round was exploited: its result
                self.exploit_result += value - self._round_value
            self._round_value = value
            identified = self._rounds_seen > 0 and all(
                1.0 - float(cast(TypeMixture, model).posterior[-1]) >= self.confidence
                for seat, model in self.exploiter.models.items() if event.dice[seat] > 0)
            self.exploiting = identified and self.exploit_result >= -self.stop_loss

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        self.decisions += 1
        self.exploited += self.exploiting
        return (self.exploiter if self.exploiting else self.safe_player).act(view, rng)
