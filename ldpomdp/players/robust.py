"""The ``robust`` player, the package's recommended agent at every table: 2-6 players, any rules, any dice.

It chooses its machinery by table (``machinery_for``). At two players, where an equilibrium table is shipped or
solves on first use within about two CPU minutes, it plays the whole game's approximate equilibrium (``cfr``),
exploiting the opponent only once it has named it as a listed type: each round it plays the local best response to
its ``TypeMixture`` only when both gates agree, *identification* (after at least one round, at least ``confidence``
on the listed types) and *stop-loss* (the exploited rounds have lost at most ``stop_loss`` of its game value), or
with ``learn`` a fitted family and a safety budget. Elsewhere it plays the bid-reading search (``SEARCH``). Which
machinery at which table, why, and what it costs: the Players page; ``learn`` and ``match``: the Robustness page.
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
from ..game import Event, PlayerView, PublicView, RoundEnd, RoundStart
from ..opponent import BaseOpponent
from ..registry import make_player, parse_spec, spec_text
from ..rules import Action, GameConfig
from ..validation import number, one_of
from .cfr import CFRPlayer
from .lbr import LocalBestResponse
from .mixture import DEFAULT_SAFE, DEFAULT_TREMBLE, DEFAULT_TYPES, TypeMixture
from .quantal import QuantalEstimate

__all__ = ["RobustPlayer", "DEFAULT_STOP_LOSS", "DEFAULT_ALLOWANCE", "MACHINERY", "SEARCH", "SOLVE_ON_USE",
           "machinery_for", "table_source"]

DEFAULT_STOP_LOSS = 0.5  # game value the exploited rounds may lose before the player keeps to the equilibrium
DEFAULT_ALLOWANCE = 0.5  # with learn: game value it may risk before it has won any (a match's, or a game's)
MACHINERY = ("auto", "equilibrium", "search")  # robust's machinery= values; auto: machinery_for the table
SEARCH = "lbr:[quantal:fit=true,reads=true],ends=fair"  # the bid-reading search, fair round ends (needs no table)
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

    ``machinery``: ``auto`` (``machinery_for``), ``equilibrium`` or ``search``. The equilibrium (``safe``: a ``cfr``
    spec) plays the local best response to the type posterior in rounds where it puts at least ``confidence`` on the
    ``types`` (with ``learn``, on them and ``QuantalFamily``'s points) after a round's evidence, while the exploited
    rounds have lost at most ``stop_loss`` (with ``learn``: while the round's ``risk`` is within the ``budget``,
    ``allowance`` plus the value ``won``); ``match``: the posterior and ``won`` (the search: each other seat's
    fitted evidence, by its place after this one) carry to the next game of the same rules, until ``forget``.
    ``floor``, ``tremble`` as in ``TypeMixture``, ``lookahead`` as in LBR. ``plays``: the machinery chosen;
    ``exploited``/``decisions`` count moves; ``exploit_result``: value the exploited rounds won."""

    def __init__(self, types: Sequence[str] | str = DEFAULT_TYPES, safe: str = DEFAULT_SAFE,
                 confidence: float = 0.95, floor: float = 0.01, tremble: float = DEFAULT_TREMBLE,
                 lookahead: int = 2, stop_loss: float = DEFAULT_STOP_LOSS, machinery: str = "auto",
                 learn: bool = False, allowance: float = DEFAULT_ALLOWANCE, match: bool = False,
                 name: str | None = None):
        self.machinery = one_of("RobustPlayer", "machinery", machinery, MACHINERY)
        for key, flag in (("learn", learn), ("match", match)):
            if not isinstance(flag, bool):
                raise UsageError(f"RobustPlayer.{key} must be true or false, got {flag!r}")
        if learn and stop_loss != DEFAULT_STOP_LOSS:
            raise UsageError("RobustPlayer: with learn=true its safety budget (allowance=) replaces stop_loss")
        if not learn and allowance != DEFAULT_ALLOWANCE:
            raise UsageError("RobustPlayer: allowance= is the safety budget of learn=true; without it, stop_loss=")
        self.learn, self.match = learn, match
        self.confidence = number("RobustPlayer", "confidence", confidence, 0.0, 1.0)
        floor = number("RobustPlayer", "floor", floor, 0.0, 1.0)
        self.stop_loss = number("RobustPlayer", "stop_loss", stop_loss, 0.0)
        self.allowance = number("RobustPlayer", "allowance", allowance, 0.0)
        if 1.0 - self.confidence <= floor:
            raise UsageError(f"RobustPlayer: confidence {confidence} can never be reached: the safe type keeps at "
                             f"least the floor {floor} of the posterior (need confidence < 1 - floor)")
        if safe in (None, "", "none"):
            raise UsageError("RobustPlayer.safe: the robust player needs a safe (equilibrium) type, e.g. safe=cfr")
        type_model = partial(TypeMixture, types, floor=floor, safe=safe, tremble=tremble,
                             family="quantal" if learn else "none")
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
             ("machinery", self.machinery, "auto"), ("learn", learn, False),
             ("allowance", allowance, DEFAULT_ALLOWANCE), ("match", match, False))})
        self.decisions = self.exploited = 0
        self.exploit_result, self.exploiting = 0.0, False
        self.won = self.risk = 0.0  # game value won since the game (match) began; this round's risk (learn)
        self._rounds_seen = 0
        self._match_config: GameConfig | None = None  # the rules of the match being played (match)

    @property
    def learns_across_games(self) -> bool:
        """Whether what it learnt in a game changes its next one (``match``; sweeps refuse it)."""
        return self.match

    @property
    def budget(self) -> float:
        """What it may risk in a round with ``learn``: ``allowance`` plus the game value won since the game (with
        ``match``: the match) began."""
        return self.allowance + self.won

    def forget(self) -> None:
        """Start a new match: the next game starts from the prior, with nothing won (``match``)."""
        self._match_config = None

    def reset(self, seat: int, config: GameConfig) -> None:
        self.plays = machinery_for(config, str(self.model.safe)) if self.machinery == "auto" else self.machinery
        self.decisions = self.exploited = 0
        self.exploit_result, self.exploiting = 0.0, False
        if self.plays == "search":
            evidence = self._search_evidence() if self.match and self._match_config == config else {}
            super().reset(seat, config)
            self.search.reset(seat, config)
            for other, model in self.search.models.items():
                place = (other - seat) % config.num_players
                if place in evidence:
                    cast(QuantalEstimate, model).add_evidence(evidence[place])
            self._match_config = config
            return
        if self.match and config.num_players != 2:
            raise UsageError(f"{self.name}: match play with the equilibrium is for two players (at "
                             f"{config.num_players} players the search plays matches: machinery=auto)")
        try:  # refuses the games the equilibrium cannot play
            self.safe_player.reset(seat, config)
        except TableError:
            raise
        except UsageError as exc:
            raise UsageError(f"{self.name}: {exc}") from None
        super().reset(seat, config)
        carried = (self.model.posterior.copy(), self.won, self._rounds_seen) if (
            self.match and self._match_config == config) else None
        self.exploiter.reset(seat, config)  # resets a type model on each other seat
        if not all(cast(TypeMixture, model).safe_active for model in self.exploiter.models.values()):
            raise UsageError(f"{self.name}: its safe type {self.model.safe!r} cannot model the opponents here")
        self._table: GameTable | BlueprintTable = (self.safe_player.table(config) if config.num_players == 2
                                                   else self.safe_player.blueprint(config))
        self._round_value: float | None = None
        self.won, self.risk, self._rounds_seen = 0.0, 0.0, 0
        if carried is not None:
            self.model.posterior, self.won, self._rounds_seen = carried
        self._match_config = config

    def _search_evidence(self) -> dict[int, np.ndarray]:
        """The search's fitted evidence of each other seat, by its place after this seat (empty before any game)."""
        if self.config is None or self.plays != "search":
            return {}
        n = self.config.num_players
        return {(other - self.seat) % n: cast(QuantalEstimate, model).evidence()
                for other, model in self.search.models.items()}

    def _value(self, dice: tuple[int, ...], opener: int, palifico: bool) -> float:
        """This seat's game value (in [-1, 1]: P(win) - P(lose)) at the start of a round with ``dice`` opened by
        ``opener``."""
        if dice[self.seat] == 0:
            return -1.0
        if sum(d > 0 for d in dice) == 1:
            return 1.0
        if isinstance(self._table, BlueprintTable):
            return 2.0 * float(self._table.seat_win_probabilities(dice, opener, palifico)[self.seat]) - 1.0
        value = self._table.value((dice[opener], dice[1 - opener]), palifico)
        return value if opener == self.seat else -value

    @property
    def playing(self) -> LocalBestResponse | CFRPlayer:
        """The part that plays now: the search, the best responder (exploiting) or the equilibrium."""
        if self.plays == "search":
            return self.search
        return self.exploiter if self.exploiting else self.safe_player

    def _risk(self, dice: tuple[int, ...], opener: int, palifico: bool) -> float:
        """The most game value the round starting at ``dice`` can lose.

        Its value less the lowest value of any dice its end can leave (any seat losing dice, or regaining one under
        the exact call; any opener; palifico or not)."""
        config = self.config
        assert config is not None
        now, ends = self._value(dice, opener, palifico), []
        for seat, held in enumerate(dice):
            losses = range(1, held + 1) if config.loss == "difference" else range(1, min(held, 1) + 1)
            ends += [dice[:seat] + (held - k,) + dice[seat + 1:] for k in losses]
            if config.exact_call and 0 < held < config.starting_dice[seat]:
                ends.append(dice[:seat] + (held + 1,) + dice[seat + 1:])
        worst = min(self._value(end, first, flag) for end in ends for first, left in enumerate(end) if left > 0
                    for flag in ((False, True) if config.palifico else (False,)))
        return max(now - worst, 0.0)

    def _settle(self, value: float) -> None:
        """The round that started at ``_round_value`` led to ``value``: count it as won (and exploited)."""
        assert self._round_value is not None
        change = value - self._round_value
        self.won += change
        if self.exploiting:
            self.exploit_result += change
        self._round_value = None

    def observe(self, event: Event) -> None:
        if self.plays == "search":
            self.search.observe(event)
            return
        self.safe_player.observe(event)
        self.exploiter.observe(event)  # and through it the type model (its posterior moves at each round's end)
        if isinstance(event, RoundEnd):
            self._rounds_seen += 1
            after = event.dice_after
            if self._round_value is not None and (after[self.seat] == 0 or sum(d > 0 for d in after) == 1):
                self._settle(self._value(after, self.seat, False))  # its game is over: -1 or 1
        elif isinstance(event, RoundStart):
            value = self._value(event.dice, event.opener, event.palifico)
            if self._round_value is not None:
                self._settle(value)
            self._round_value = value
            identified = self._rounds_seen > 0 and all(
                1.0 - float(cast(TypeMixture, model).posterior[-1]) >= self.confidence
                for seat, model in self.exploiter.models.items() if event.dice[seat] > 0)
            if self.learn:
                self.risk = self._risk(event.dice, event.opener, event.palifico)
                self.exploiting = identified and self.risk <= self.budget
            else:
                self.exploiting = identified and self.exploit_result >= -self.stop_loss

    def observed_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        """(N,) the probability of ``action`` at ``view`` with each of ``hands``: that of the part that plays now.

        The search and the exploiter answer only their seat's views in the round they observe (they keep only public
        events); the equilibrium's probabilities depend on the view alone."""
        playing = self.playing
        if isinstance(playing, LocalBestResponse):
            return playing.observed_probabilities(hands, view, action)
        return playing.action_probabilities(hands, view, action)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        self.decisions += 1
        self.exploited += self.exploiting
        return self.playing.act(view, rng)
