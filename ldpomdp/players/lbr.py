"""The ``lbr`` player: local best response (LBR; Lisý & Bowling 2017) seated for a whole game.

Its win rate is a lower bound on the exploitability of a two-player policy where no exact best response can be
computed; at 3-6 players, one informed exploiter's gain.

``LocalBestResponse`` keeps the exact range of each other seat's hand and takes the action of highest lookahead
value against them (``ldpomdp.players.lbr_search``, the algorithm and its one-round version), round outcomes valued
by ``seat_values`` (under rule variants by the equilibrium table of those rules; at 3-6 players by the blueprint, or
by fair rounds), so its win rate against the policy bounds the policy's exploitability from below. The lookahead,
the policies it reads and its cost: the Robustness page."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ..caches import BoundedCache
from ..errors import TableError, UsageError
from ..exact.against_models.game_values import FairRounds, GameValue, seat_values
from ..exact.many_players.blueprint import end_values
from ..exact.many_players.states import SeatsState
from ..exact.many_players.table import BlueprintTable
from ..exact.tables import blueprint_for, table_for
from ..exact.two_player.exploitability import ReplayPolicy
from ..exact.two_player.states import DiceState, RoundOutcome, round_slots, successor
from ..exact.two_player.table import GameTable
from ..game import ActionTaken, Event, History, PlayerView, PublicView, RoundEnd, RoundStart, player_name
from ..hands import solver_hands
from ..moved import moved_attribute
from ..opponent import BaseOpponent, OpponentModel, ViewMemo, checked_probabilities
from ..registry import make_player, spec_text
from ..round_end import next_active_seat, seats_in_turn, settle_count
from ..rules import CHALLENGE, EXACT, Action, Bid, GameConfig, match_matrix
from ..validation import one_of
from . import lbr_search
from .cfr import CFRPlayer

__all__ = ["LocalBestResponse", "Observing", "ENDS"]

ENDS = ("blueprint", "fair")  # how 3-6 players' round ends are valued: the blueprint's values, or fair rounds
RANGES_MEMO = 4096  # the ranges kept after each round's bids (cleared at each round's start)


def _policy(policy: object) -> tuple[OpponentModel, str | None]:
    """(a model with action_probabilities, its spec or None) from a spec or a player object."""
    spec = policy if isinstance(policy, str) else None
    model: object = make_player(spec) if spec is not None else policy
    if not callable(getattr(model, "act", None)) and not callable(getattr(model, "action_probabilities", None)):
        raise UsageError(f"LocalBestResponse.policy: {player_name(model)} is neither a player nor a policy")
    if callable(getattr(model, "observed_probabilities", None)) and not callable(
            getattr(model, "action_probabilities", None)):  # a player that keeps public events: watched
        model = Observing(model)
    elif not callable(getattr(model, "action_probabilities", None)):  # a planner: read its act
        factory: Callable[[], object] = (lambda: make_player(spec)) if spec is not None else (lambda: model)
        model = ReplayPolicy(factory, name=spec)
    return cast(OpponentModel, model), spec  # action_probabilities checked above, or read off act


class Observing:
    """A player's ``observed_probabilities`` as a model's ``action_probabilities``: it sees every event of the game,
    so it is asked in the round it observes (as LBR asks its models)."""

    def __init__(self, player: Any):
        self.player, self.name = player, player_name(player)

    def reset(self, seat: int, config: GameConfig) -> None:
        self.player.reset(seat, config)

    def observe(self, event: Event) -> None:
        self.player.observe(event)

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        return self.player.observed_probabilities(hands, view, action)


class LocalBestResponse(BaseOpponent):
    """Local best response to ``policy`` (a player spec, or a player object) at every other seat.

    Two players: ``lookahead_values``, round ends valued as ``_round_ends`` says (under rule variants by ``tables``,
    the rules' equilibrium table). Three to six: ``table_lookahead_values`` with a copy of the policy at each other
    seat (``copy_model``; default: the spec made again, or a deep copy), round ends valued by the blueprint
    (``blueprints``; default: the file ``table``'s, a cfr policy's, or the shipped or solved one) or, with
    ``ends="fair"``, by ``FairRounds``. Deterministic: it never draws from ``rng``; the models see every event.
    """

    def __init__(self, policy: object | str = "one-third", lookahead: int = 2, raises: str = "smallest",
                 table: str | None = None, ends: str = "blueprint", name: str | None = None, *,
                 tables: Callable[[GameConfig], GameTable] | None = None,
                 blueprints: Callable[[GameConfig], BlueprintTable] | None = None,
                 copy_model: Callable[[], OpponentModel] | None = None):
        if lookahead not in (1, 2) or isinstance(lookahead, bool):
            raise UsageError(f"LocalBestResponse.lookahead must be 1 or 2, got {lookahead!r}")
        self.lookahead, self.raises = int(lookahead), one_of("LocalBestResponse", "raises", raises, lbr_search.RAISES)
        self.ends = one_of("LocalBestResponse", "ends", ends, ENDS)
        if self.ends == "fair" and table is not None:
            raise UsageError("LocalBestResponse: table= names the blueprint valuing round ends; ends=fair values "
                             "them without one (give one or the other)")
        if table is not None and blueprints is not None:
            raise UsageError("LocalBestResponse: table= and blueprints= both name the blueprint valuing round ends "
                             "(give one or the other)")
        for key, given in (("tables", tables), ("blueprints", blueprints), ("copy_model", copy_model)):
            if given is not None and not callable(given):
                raise UsageError(f"LocalBestResponse.{key} must be callable, got {given!r}")
        self.model, self.spec = _policy(policy)
        params = {"policy": self.spec, "table": table, "ends": None if self.ends == "blueprint" else self.ends}
        self.name = name or (spec_text("lbr", params) if self.spec else f"lbr:{player_name(self.model)}")
        self._ends: RoundOutcome | None = None
        self.tables: Callable[[GameConfig], GameTable] = tables or table_for  # the variant rules' table
        self.table_path = table
        self.blueprints: Callable[[GameConfig], BlueprintTable] = blueprints or (  # 3-6 players: round ends' values
            CFRPlayer(table).blueprint if table is not None
            else self.model.blueprint if isinstance(self.model, CFRPlayer) else blueprint_for)
        self.copy_model: Callable[[], OpponentModel] = copy_model or (  # the policy for each other seat at 3-6 players
            (lambda: _policy(self.spec)[0]) if self.spec else (lambda: copy.deepcopy(self.model)))
        self.models: dict[int, OpponentModel] = {}  # the policy at each other seat (two players: ``model``)
        self._priors: dict[int, lbr_search.HandRange] = {}  # each other seat's range with dice at the round's start
        self._after: BoundedCache[History, dict[int, lbr_search.HandRange]] = BoundedCache(RANGES_MEMO)  # by bids
        self._memo: ViewMemo[tuple[list[Action], np.ndarray]] = ViewMemo()  # its policy at the last view asked
        self._opened: PublicView | None = None  # the round observed, at its start (None: between rounds)
        self._seen: History = ()  # the round's bids observed

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        if config.num_players == 2 and self.table_path is not None:
            raise UsageError(f"{self.name}: table= names a blueprint for 3-6 players; two players value round ends "
                             f"by the game's values")
        if config.num_players == 2:
            self.models = {1 - seat: self.model}
            self._table = None if self.ends == "fair" else _variant_table(config, self.tables)
            self.values: GameValue = (seat_values(config, seat, self.spec)[0]
                                      if self.spec and self._table is None and self.ends == "blueprint"
                                      else FairRounds(seat))
        else:
            if self.learns_across_games:
                raise UsageError(f"{self.name}: at {config.num_players} players its copy of the player at each seat "
                                 f"is built afresh each game, so it cannot follow that player's match; respond to "
                                 f"it without match play")
            if self.ends == "blueprint":
                self._blueprint = self._blueprint_for(config)
            self.models = {s: self.copy_model() for s in range(config.num_players) if s != seat}
        for other, model in self.models.items():
            model.reset(other, config)
        self._had_palifico: set[int] = set()  # the seats whose palifico round has been played
        self._between_rounds()
        self._loser: int | None = None  # the last round's loser (None: nobody lost it)

    @property
    def learns_across_games(self) -> bool:
        """Whether the player it responds to carries what it learnt from game to game (sweeps refuse it).

        At two players its one model of that player carries it too; at 3-6 players ``reset`` refuses it."""
        watched = self.model.player if isinstance(self.model, Observing) else self.model
        return bool(getattr(watched, "learns_across_games", False))

    def _blueprint_for(self, config: GameConfig) -> BlueprintTable:
        """The blueprint valuing round ends at this table (3-6 players), or a UsageError naming what is missing."""
        try:
            blueprint = self.blueprints(config)
        except TableError:
            raise
        except UsageError as exc:
            raise UsageError(f"{self.name}: at {config.num_players} players it values a round's ends by the "
                             f"blueprint (or by fair rounds: ends=fair), and {exc}") from None
        if max(config.starting_dice) > blueprint.max_dice:
            raise UsageError(f"{self.name}: the blueprint valuing its round's ends covers up to "
                             f"{blueprint.max_dice} dice each; the game starts with {config.starting_dice}")
        return blueprint

    def observe(self, event: Event) -> None:
        self._memo = ViewMemo()
        for model in self.models.values():
            if callable(getattr(model, "observe", None)):
                model.observe(event)
        if isinstance(event, RoundStart):
            if event.palifico and self._loser is not None:  # the palifico round of the seat just dropped to one die
                self._had_palifico.add(self._loser)
            self._start(event)
        elif isinstance(event, RoundEnd):
            self._loser = event.loser
            self._between_rounds()
        elif isinstance(event, ActionTaken) and isinstance(event.action, Bid):  # a call ends the round
            self._seen = event.view.history + ((event.seat, event.action),)
            self._ranges_at(self._seen)  # Bayes on each bid as it comes (memoised)

    def _between_rounds(self) -> None:
        """No round is observed: forget the last one's ranges and bids."""
        self._opened, self._seen, self._priors, self._after = None, (), {}, BoundedCache(RANGES_MEMO)

    @property
    def ranges(self) -> dict[int, lbr_search.HandRange]:
        """Each other seat's range with dice after the round's bids observed (empty between rounds; read-only)."""
        return self._ranges_at(self._seen)

    def _ranges_at(self, history: History) -> dict[int, lbr_search.HandRange]:
        """Each other seat's range after the bids ``history`` of the round observed, memoised.

        Bayes on its model's probability of each of its bids (one its model could not make leaves its range)."""
        found = self._after.lookup(history) if history else self._priors
        if found is not None:
            return found
        before = self._ranges_at(history[:-1])
        seat, bid = history[-1]
        if seat not in before:
            found = before
        else:
            opened = self._opened
            assert opened is not None  # bids come within a round
            r, model = before[seat], self.models[seat]
            at = PublicView(opened.config, seat, opened.dice, history[:-1], opened.round_index)
            weights = r.weights * checked_probabilities(model, model.action_probabilities(r.support, at, bid),
                                                        len(r.support))
            total = weights.sum()
            found = before if total <= 0.0 else before | {seat: lbr_search.HandRange(r.support, r.matching,
                                                                                      weights / total)}
        self._after[history] = found
        return found

    def _start(self, event: RoundStart) -> None:
        """A new round: each range is the prior, and each way the round can end gets its game value."""
        config = self.config
        assert config is not None  # reset sets it before any round starts
        rules = config.round_rules(event.palifico)
        match = match_matrix(rules)
        self._between_rounds()
        self._opened = PublicView(rules, event.opener, tuple(event.dice), (), event.round_index)
        for seat in self.models:
            if event.dice[seat] > 0:  # in the sixes game a hand is its matching count, as the solvers tell hands apart
                support, prior = solver_hands(event.dice[seat], rules)
                self._priors[seat] = lbr_search.HandRange(support, support @ match, prior.copy())
        if config.num_players == 2:
            self._ends = self._round_ends(event)
        elif event.dice[self.seat] > 0:
            self._ends = self._table_ends(event)

    def _table_ends(self, event: RoundStart) -> RoundOutcome:
        """LBR's P(winning the game) after each way a round at 3-6 players can end (a ``RoundOutcome``).

        A role per seat, 0 for seats without dice: by the blueprint (``end_values``), or by fair rounds from the dice
        after it (``settle_count``)."""
        config = self.config
        assert config is not None  # reset sets it before any round starts
        dice = tuple(int(d) for d in event.dice)
        n, table = len(dice), sum(dice)
        challenge = np.zeros((n, 2 * table + 1))
        exact = np.zeros((n, 2)) if config.exact_call else None
        if self.ends == "blueprint":
            order = seats_in_turn(dice, event.opener)
            state = SeatsState(tuple(dice[s] for s in order), event.palifico,
                               tuple(s in self._had_palifico for s in order))
            payoff = end_values(self._blueprint, state)
            challenge[order] = payoff.challenge[order.index(self.seat)]
            if exact is not None and payoff.exact is not None:
                exact[order] = payoff.exact[order.index(self.seat)]
            return RoundOutcome(challenge, exact, table)
        fair = FairRounds(self.seat)
        turn = seats_in_turn(dice, 0)
        for k, caller in enumerate(turn):
            for m in range(-table, table + 1):  # the bid (the seat before's) missed by m
                challenge[caller, m + table] = fair.win_probability(settle_count(config, dice, m, turn[k - 1],
                                                                                 caller, CHALLENGE)[1])
            if exact is not None:
                for right in (0, 1):
                    exact[caller, right] = fair.win_probability(settle_count(config, dice, 1 - right, turn[k - 1],
                                                                             caller, EXACT)[1])
        return RoundOutcome(challenge, exact, table)

    def _round_ends(self, event: RoundStart) -> RoundOutcome:
        """LBR's P(winning the game) after each way a two-player round can end (``round_slots``), from LBR's side.

        Each end is worth 1 or 0 when the game is over there; else the next state is worth the variant rules'
        equilibrium value (the ``cfr`` table), or under today's rules ``values``."""
        config, opener = self.config, event.opener
        assert config is not None
        dice = (event.dice[opener], event.dice[1 - opener])
        state = DiceState(dice, event.palifico, (opener in self._had_palifico, 1 - opener in self._had_palifico))
        role = int(self.seat != opener)
        values = []
        for slot in round_slots(config, dice):
            end, following, sign = successor(config, state, slot)
            if following is None:
                values.append(float((end > 0) == (role == 0)))
            elif self._table is not None:
                value = sign * self._table.value(following.dice, following.palifico)  # to this round's opener
                values.append((1.0 + (value if role == 0 else -value)) / 2.0)
            else:
                first = opener if sign > 0 else 1 - opener  # the next round's opener
                after = (following.dice[0], following.dice[1]) if first == 0 else (following.dice[1], following.dice[0])
                values.append(self.values.win_probability(after, first))
        return lbr_search.from_side(RoundOutcome.from_slots(values, sum(dice)), role, 1.0)

    def _values(self, hands: np.ndarray, view: PublicView) -> tuple[list[Action], np.ndarray]:
        """Its candidate actions at ``view`` (its seat to act) and their lookahead values, (N, actions), for each of
        ``hands``."""
        assert self._ends is not None  # a round has started
        own = np.atleast_2d(np.asarray(hands, dtype=np.int64)) @ match_matrix(view.config)
        ranges = self._ranges_at(view.history)
        if view.config.num_players == 2:
            r = ranges[1 - self.seat]
            return lbr_search.lookahead_values(self.model, view, own, r.matching, r.support, r.weights, self._ends,
                                               self.lookahead, self.raises)
        return lbr_search.table_lookahead_values(self.models, view, own, ranges, self._ends, self.lookahead,
                                                 self.raises)

    def observed_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        """(N,) 1 for each of ``hands`` with which it plays ``action`` at ``view``, else 0.

        ``view``: its seat's, in the round it observes (it is deterministic, and keeps only public events)."""
        reason = self._outside_round(view)
        if reason is not None:
            raise UsageError(f"{self.name}.observed_probabilities: the view (seat {view.seat}, round "
                             f"{view.round_index}, dice {view.dice}, {len(view.history)} bids) is not one of seat "
                             f"{self.seat}'s in the round it observes: {reason}")
        actions, best = self._memo.get(hands, view, lambda: self._best(hands, view))
        if action not in actions:
            return np.zeros(len(best))
        return (best == actions.index(action)).astype(float)

    def _outside_round(self, view: PublicView) -> str | None:
        """Why ``view`` is not one of this seat's turns in the round observed (its rules, dice and bids so far, before
        or after those seen), or None where it is."""
        opened = self._opened
        if opened is None:
            return "no round is under way"
        if view.config != opened.config:
            return "its rules are not the round's (a palifico round's views carry the palifico rules)"
        if (view.round_index, view.dice) != (opened.round_index, opened.dice):
            return f"the round observed is round {opened.round_index} with dice {opened.dice}"
        common = min(len(view.history), len(self._seen))
        if view.history[:common] != self._seen[:common]:
            return "its bids are not those seen"
        to_act = next_active_seat(view.dice, view.history[-1][0]) if view.history else opened.seat
        if view.seat != to_act or to_act != self.seat:
            return f"seat {to_act} is to act there"
        return None

    def _best(self, hands: np.ndarray, view: PublicView) -> tuple[list[Action], np.ndarray]:
        """Its candidate actions at ``view`` and the index of the one it plays with each of ``hands``."""
        actions, values = self._values(hands, view)
        return actions, lbr_search.best_actions(values)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        actions, best = self._best(np.asarray(view.hand)[None, :], view.public())
        return actions[int(best[0])]


def _variant_table(config: GameConfig, tables: Callable[[GameConfig], GameTable]) -> GameTable | None:
    """The equilibrium table (from ``tables``) whose game values LBR gives the next states under rule variants.

    None under today's rules, or where no table plays these rules (``tables`` raises ValueError): LBR then values
    them as ``FairRounds`` does. A table that cannot be read (TableError) raises."""
    if not config.variants:
        return None
    try:
        return tables(config)
    except TableError:  # a damaged table is not a game without one
        raise
    except ValueError:
        return None


def __getattr__(name: str) -> Any:
    """The names that moved to ``ldpomdp.players.lbr_search``, read here with a DeprecationWarning."""
    return moved_attribute(__name__, name)
