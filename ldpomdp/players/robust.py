"""The ``robust`` player, the package's recommended agent at every table: 2-6 players, any rules, any dice.

It chooses its machinery by table (``machinery_for``). At two players, where an equilibrium table is shipped or
solves on first use within about two CPU minutes, it plays the whole game's approximate equilibrium (``cfr``),
exploiting the opponent only once it has named it as a listed type: each round it plays the local best response to
its ``TypeMixture`` only when both gates agree, *identification* (after at least one round, at least ``confidence``
on the listed types) and *stop-loss* (the exploited rounds have lost at most ``stop_loss`` of its game value).
Elsewhere it plays the bid-reading search (``SEARCH``). Which machinery at which table, why, and what it costs:
the Players page.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import cast

import numpy as np

from ..errors import TableError, UsageError
from ..exact.many_players.table import BlueprintTable
from ..exact.tables import ON_DEMAND, SHIPPED, cached_table_path, on_demand, on_demand_seconds, shipped_path
from ..exact.two_player.table import GameTable
from ..game import Event, PlayerView, RoundEnd, RoundStart
from ..opponent import BaseOpponent
from ..registry import make_player, parse_spec, spec_text
from ..rules import Action, GameConfig
from ..validation import number, one_of
from .cfr import CFRPlayer
from .lbr import LocalBestResponse
from .mixture import DEFAULT_SAFE, DEFAULT_TREMBLE, DEFAULT_TYPES, TypeMixture

__all__ = ["RobustPlayer", "DEFAULT_STOP_LOSS", "MACHINERY", "SEARCH", "SOLVE_ON_USE", "machinery_for",
           "table_source"]

DEFAULT_STOP_LOSS = 0.5  # game value the exploited rounds may lose before the player keeps to the equilibrium
MACHINERY = ("auto", "equilibrium", "search")  # robust's machinery= values; auto: machinery_for the table
SEARCH = "lbr:quantal:reads=true,ends=fair"  # the bid-reading search, with fair round ends (needs no table)
SOLVE_ON_USE = 120  # CPU s: a two-player table estimated to solve within this is solved on first use, else the search


def machinery_for(config: GameConfig, safe: str = DEFAULT_SAFE) -> str:
    """What ``robust`` plays ``config`` with (``machinery=auto``): ``"equilibrium"`` or ``"search"``.

    The equilibrium where ``safe`` names a table, or at two players where a table is shipped for the dice or solves on
    first use within ``SOLVE_ON_USE`` CPU s (``on_demand_seconds``); else the search."""
    if parse_spec(str(safe)).kwargs.get("table") is not None:
        return "equilibrium"
    if config.num_players != 2 or (config.exact_call and len(set(config.starting_dice)) != 1):
        return "search"
    dice = max(config.starting_dice)
    try:
        if shipped_path(config) is not None:
            return "equilibrium" if dice <= SHIPPED.dice else "search"
    except UsageError:  # the rules have shipped tables, not for these dice
        return "search"
    if dice > on_demand(config, ON_DEMAND).dice:
        return "search"
    return "equilibrium" if on_demand_seconds(config) <= SOLVE_ON_USE else "search"


def table_source(config: GameConfig) -> str | None:
    """Where ``robust`` (its defaults) gets its equilibrium table for ``config``, known without building anything.

    ``"shipped"``, ``"cached"`` (solved before, on this machine's disk), ``"solve"`` (solved on first use, about
    ``on_demand_seconds``), or None where it plays the search."""
    if machinery_for(config) != "equilibrium":
        return None
    if shipped_path(config) is not None:
        return "shipped"
    return "cached" if cached_table_path(config).is_file() else "solve"


class RobustPlayer(BaseOpponent):
    """The recommended agent: equilibrium play that exploits a named opponent type within a stop-loss, or the search.

    ``machinery``: ``auto`` (``machinery_for`` the table), ``equilibrium`` or ``search`` (``SEARCH``). The
    equilibrium (``safe``: a ``cfr`` spec) plays the local best response to the opponent-type posterior in the rounds
    where it puts at least ``confidence`` on the listed ``types`` after a round's evidence, until the exploited rounds
    have lost more than ``stop_loss`` game value; at 3-6 players on its blueprint, a type model at each other seat.
    ``floor``, ``tremble`` as in ``TypeMixture``, ``lookahead`` as in LBR (the search's too). ``plays``: the machinery
    the last reset chose (``machinery`` before any); ``exploited`` counts the best responder's decisions,
    ``decisions`` all; ``exploit_result`` is the game value the exploited rounds won, counted at the next round."""

    def __init__(self, types: Sequence[str] | str = DEFAULT_TYPES, safe: str = DEFAULT_SAFE, confidence: float = 0.95,
                 floor: float = 0.01, tremble: float = DEFAULT_TREMBLE, lookahead: int = 2,
                 stop_loss: float = DEFAULT_STOP_LOSS, machinery: str = "auto", name: str | None = None):
        self.machinery = one_of("RobustPlayer", "machinery", machinery, MACHINERY)
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
        self.search = LocalBestResponse(**parse_spec(SEARCH).kwargs, lookahead=lookahead)
        self.plays = self.machinery  # what the last reset chose: "equilibrium" or "search"
        self.name = name or spec_text("robust", {
            key: None if value == default else value for key, value, default in
            (("types", self.model.types, DEFAULT_TYPES), ("safe", self.model.safe, DEFAULT_SAFE),
             ("confidence", confidence, 0.95), ("floor", floor, 0.01), ("tremble", tremble, DEFAULT_TREMBLE),
             ("lookahead", lookahead, 2), ("stop_loss", stop_loss, DEFAULT_STOP_LOSS),
             ("machinery", self.machinery, "auto"))})
        self.decisions = self.exploited = 0
        self.exploit_result, self.exploiting = 0.0, False

    def reset(self, seat: int, config: GameConfig) -> None:
        self.plays = machinery_for(config, str(self.model.safe)) if self.machinery == "auto" else self.machinery
        self.decisions = self.exploited = 0
        self.exploit_result, self.exploiting = 0.0, False
        if self.plays == "search":
            super().reset(seat, config)
            self.search.reset(seat, config)
            return
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

    @property
    def playing(self) -> LocalBestResponse | CFRPlayer:
        """The part that plays now: the search, the best responder (exploiting) or the equilibrium."""
        if self.plays == "search":
            return self.search
        return self.exploiter if self.exploiting else self.safe_player

    def observe(self, event: Event) -> None:
        if self.plays == "search":
            self.search.observe(event)
            return
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
        return self.playing.act(view, rng)
