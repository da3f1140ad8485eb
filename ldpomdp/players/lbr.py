"""Local best response (LBR; Lisý & Bowling 2017): a lower bound on the exploitability of a two-player policy in
the whole game, where no exact best response can be computed; at 3-6 players, one informed exploiter's gain.

:class:`LocalBestResponse` keeps the exact range of each other seat's hand and takes the action of highest lookahead
value against them, round outcomes valued by :func:`~ldpomdp.exact.game_values.seat_values` (under rule variants by
the equilibrium table of those rules; at 3-6 players by the blueprint, or by fair rounds), so its win rate against the
policy bounds the policy's exploitability from below. :func:`local_best_response` is the one-round version, exact on
the round's tree. The lookahead, the policies it reads and its cost: the Robustness page."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from ..errors import TableError
from ..exact.best_response import Exploitability, ReplayPolicy, policy_behaviour, reach_probabilities, strategy_value
from ..exact.blueprint import BlueprintTable, end_values
from ..exact.chain import DiceState, RoundOutcome, round_slots, successor
from ..exact.equilibrium import GameTable
from ..exact.game_values import FairRounds, GameValue, seat_values
from ..exact.nash import cached_solution
from ..exact.table_states import TableState
from ..exact.tables import blueprint_for, table_for
from ..exact.tree import RoundTree
from ..game import ActionTaken, Event, PlayerView, PublicView, RoundEnd, RoundStart, player_name
from ..hands import solver_hands
from ..opponent import BaseOpponent, OpponentModel, checked_probabilities
from ..registry import make_player, spec_text
from ..rules import (
    CHALLENGE,
    EXACT,
    Action,
    Bid,
    GameConfig,
    legal_actions,
    match_matrix,
    seats_in_turn,
    settle_count,
)
from ..validation import one_of
from .cfr import CFRPlayer

__all__ = ["LocalBestResponse", "local_best_response", "lbr_behaviour", "lookahead_values", "table_lookahead_values",
           "candidate_raises", "round_payoff", "HandRange", "RAISES", "ENDS"]

RAISES = ("smallest", "all")  # LBR's candidate raises: the smallest legal raise on each face, or every legal raise
ENDS = ("blueprint", "fair")  # how 3-6 players' round ends are valued: the blueprint's values, or fair rounds

TIE = 1e-9  # lookahead values closer than this count as equal
REPLY_MASS = 1e-3  # at 3+ seats the lookahead skips the unlikeliest replies, this much of their mass (valued neutral)


def candidate_raises(actions: Sequence[Action], raises: str) -> list[Bid]:
    """The raises among ``actions`` that LBR considers: all, or the smallest on each face."""
    bids = [a for a in actions if isinstance(a, Bid)]
    if raises == "all":
        return bids
    smallest: dict[int, Bid] = {}
    for bid in bids:  # legal_actions lists raises in rising order
        smallest.setdefault(bid.face, bid)
    return list(smallest.values())


def lookahead_values(policy: OpponentModel, view: PublicView, own_matching: np.ndarray, support_matching: np.ndarray,
                     support: np.ndarray, weights: np.ndarray, ends: RoundOutcome, lookahead: int = 2,
                     raises: str = "smallest") -> tuple[list[Action], np.ndarray]:
    """LBR's candidate actions at ``view`` (LBR to act) and their lookahead values for each own hand:
    ((actions), (M, actions)) with ``own_matching`` (M, faces) matching counts of LBR's hands, the range
    ``support`` (N, faces) with matching counts ``support_matching`` and ``weights`` (N,) (summing to one), and
    ``ends`` LBR's value of each way the round ends, a :class:`~ldpomdp.exact.chain.RoundOutcome` from LBR's side
    (role 0 is LBR, role 1 the policy). The calls are the challenge and, under the exact call, the exact call;
    the policy's are counted after each raise. See the module docstring."""
    config, me = view.config, view.seat
    opp = 1 - me
    table = ends.table_dice
    even = 0.5 * (ends.challenge[0, table] + ends.challenge[0, table + 1])  # LBR challenges: it loses, or wins

    def called(call: Action, caller: int, bid: Bid, reach: np.ndarray) -> np.ndarray:
        """(M,) sum_i reach_i * the value of ``caller``'s ``call`` of ``bid`` for (own hand m, range hand i)."""
        f = bid.face - 1
        missing = bid.quantity - own_matching[:, f][:, None] - support_matching[None, :, f]  # (M, N)
        if call is CHALLENGE:
            return ends.challenge[caller][missing + table] @ reach
        assert ends.exact is not None  # an exact call is legal only under the rules that value it
        return ends.exact[caller][(missing == 0).astype(np.int64)] @ reach  # 1: right

    def asked(at: PublicView, action: Action) -> np.ndarray:
        return checked_probabilities(policy, policy.action_probabilities(support, at, action), len(support))

    legal = view.legal_actions()
    calls = [c for c in (CHALLENGE, EXACT) if c in legal]
    actions: list[Action] = [*calls, *candidate_raises(legal, raises)]
    values = np.empty((len(own_matching), len(actions)))
    for k, action in enumerate(actions):
        if not isinstance(action, Bid):  # a call (legal, so a bid stands)
            assert view.bid is not None
            values[:, k] = called(action, 0, view.bid, weights)
            continue
        after = PublicView(config, opp, view.dice, view.history + ((me, action),), view.round_index)
        replies = legal_actions(config, view.table_dice, action)
        value = called(CHALLENGE, 1, action, weights * asked(after, CHALLENGE))  # a challenge is legal after a raise
        if config.exact_call:
            value += called(EXACT, 1, action, weights * asked(after, EXACT))
        for reply in replies:
            if not isinstance(reply, Bid):  # the calls, counted above
                continue
            reach = weights * asked(after, reply)  # P(range hand i) x P(it raises to reply)
            continuation = np.full(len(own_matching), even * reach.sum())
            if lookahead == 2:
                continuation = np.maximum(continuation, called(CHALLENGE, 0, reply, reach))
                if config.exact_call:
                    continuation = np.maximum(continuation, called(EXACT, 0, reply, reach))
            value += continuation
        values[:, k] = value
    return actions, values


@dataclass
class HandRange:
    """One seat's hand range: every hand ``support`` (N, faces; in the sixes game one per matching count), its
    matching counts ``matching`` (N, faces) and their probabilities ``weights`` (N,), summing to one."""

    support: np.ndarray
    matching: np.ndarray
    weights: np.ndarray

    def counts(self, face: int, reach: np.ndarray | None = None) -> np.ndarray:
        """(dice + 1,) the weight (or ``reach``) of each count of dice matching ``face`` (1-based)."""
        column = self.matching[:, face - 1]
        return np.bincount(column, self.weights if reach is None else reach, minlength=int(column.max()) + 1)


def table_lookahead_values(models: Mapping[int, OpponentModel], view: PublicView, own_matching: np.ndarray,
                           ranges: Mapping[int, HandRange], ends: RoundOutcome, lookahead: int = 2,
                           raises: str = "smallest") -> tuple[list[Action], np.ndarray]:
    """LBR's candidate actions at ``view`` (LBR to act; any number of seats) and their lookahead values:
    ``own_matching`` (faces,) LBR's matching counts, ``ranges`` and ``models`` every other seat with dice, ``ends``
    LBR's value of each way the round ends, a :class:`~ldpomdp.exact.chain.RoundOutcome` with a role per seat. After
    LBR's raise the next seat calls or raises as its model says; with ``lookahead`` 2 the seat after it calls that
    raise as its model says (LBR, if it is LBR's turn again, when that is worth more); a round that goes on is worth
    the mean of each seat's losing a die as challenger and as bidder."""
    if len(ends.challenge) != len(view.dice) or ends.table_dice != view.table_dice:
        raise ValueError(f"table_lookahead_values: ends must have a role per seat ({len(view.dice)}) and the round's "
                         f"{view.table_dice} dice, got {len(ends.challenge)} roles and {ends.table_dice} dice")
    config, me = view.config, view.seat
    turn = seats_in_turn(view.dice, me)[1:]  # the others with dice, in turn
    later = {s: turn[turn.index(s) + 1] if s != turn[-1] else me for s in turn} | {me: turn[0]}
    table = ends.table_dice
    neutral = float(np.mean([ends.challenge[s, table] + ends.challenge[later[s], table + 1] for s in later])) / 2.0
    calls = (CHALLENGE, EXACT) if config.exact_call else (CHALLENGE,)
    if config.exact_call and ends.exact is None:
        raise ValueError("table_lookahead_values: under the exact call, ends.exact values the exact calls")

    def asked(seat: int, at: PublicView, action: Action) -> np.ndarray:
        support = ranges[seat].support
        return checked_probabilities(models[seat], models[seat].action_probabilities(support, at, action),
                                     len(support))

    def called(call: Action, caller: int, bid: Bid, held: Mapping[int, np.ndarray]) -> float:
        """The value of ``caller``'s ``call`` of ``bid``, each seat in ``held`` weighted by that reach (else by its
        range): the others' total count convolved seat by seat, then each count's end (by what the bid missed by)."""
        total = np.ones(1)  # the weight of each total count of the others' dice matching the bid's face
        for seat in turn:
            total = np.convolve(total, ranges[seat].counts(bid.face, held.get(seat)))
        need = bid.quantity - int(own_matching[bid.face - 1])
        if call is EXACT:
            assert ends.exact is not None  # checked above: the exact call is legal only under its rules
            right = float(total[need]) if 0 <= need < len(total) else 0.0
            return right * ends.exact[caller, 1] + (float(total.sum()) - right) * ends.exact[caller, 0]
        return float(total @ ends.challenge[caller, need + table - np.arange(len(total))])

    legal = view.legal_actions()
    actions: list[Action] = [c for c in calls if c in legal]
    actions += candidate_raises(legal, raises)
    values = np.empty((1, len(actions)))
    nxt = turn[0]
    third = later[nxt]
    for k, action in enumerate(actions):
        if not isinstance(action, Bid):
            assert view.bid is not None
            values[0, k] = called(action, me, view.bid, {})
            continue
        history = view.history + ((me, action),)
        after = PublicView(config, nxt, view.dice, history, view.round_index)
        value = sum(called(c, nxt, action, {nxt: ranges[nxt].weights * asked(nxt, after, c)}) for c in calls)
        replies = [r for r in legal_actions(config, view.table_dice, action) if isinstance(r, Bid)]
        reaches = [ranges[nxt].weights * asked(nxt, after, reply) for reply in replies]  # P(hand) x P(reply)
        masses = np.array([float(reach.sum()) for reach in reaches])
        value += float(masses.sum()) * neutral  # the round goes on; the lookahead's replies corrected below
        if lookahead == 2 and third == me:
            for reply, reach, mass in zip(replies, reaches, masses, strict=True):
                value += max(0.0, *(called(c, me, reply, {nxt: reach}) - mass * neutral for c in calls))
        elif lookahead == 2:
            order = np.argsort(-masses, kind="stable")
            covered = np.searchsorted(np.cumsum(masses[order]), (1.0 - REPLY_MASS) * masses.sum()) + 1
            for j in order[:covered]:  # the likeliest replies, all but REPLY_MASS of their mass
                again = PublicView(config, third, view.dice, history + ((nxt, replies[j]),), view.round_index)
                for c in calls:
                    reach = ranges[third].weights * asked(third, again, c)
                    value += called(c, third, replies[j], {nxt: reaches[j], third: reach}) - float(
                        reach.sum()) * masses[j] * neutral
        values[0, k] = value
    return actions, values


def best_actions(values: np.ndarray) -> np.ndarray:
    """(M,) per row of ``values`` (M, actions) the first action within :data:`TIE` of the row's best: exact ties
    (symmetric faces) break the same way whatever affine scale the outcome values are on."""
    return np.argmax(values >= values.max(axis=1, keepdims=True) - TIE, axis=1)


def _policy(policy: object) -> tuple[OpponentModel, str | None]:
    """(a model with action_probabilities, its spec or None) from a spec or a player object."""
    spec = policy if isinstance(policy, str) else None
    model: object = make_player(spec) if spec is not None else policy
    if not callable(getattr(model, "act", None)) and not callable(getattr(model, "action_probabilities", None)):
        raise ValueError(f"LocalBestResponse.policy: {player_name(model)} is neither a player nor a policy")
    if not callable(getattr(model, "action_probabilities", None)):  # a planner: read its act
        factory: Callable[[], object] = (lambda: make_player(spec)) if spec is not None else (lambda: model)
        model = ReplayPolicy(factory, name=spec)
    return cast(OpponentModel, model), spec  # action_probabilities checked above, or read off act


class LocalBestResponse(BaseOpponent):
    """Local best response to ``policy`` (a player spec, or a player object) at every other seat.

    Two players, any rules: :func:`lookahead_values`, round ends valued as :meth:`_round_ends` says. Three to six
    players: :func:`table_lookahead_values`, a copy of the policy at each other seat, round ends valued by the
    blueprint (:attr:`blueprints`: the file ``table``, else a cfr policy's, else the shipped one or one solved on
    first use), or with ``ends="fair"`` by :class:`FairRounds` (each seat as likely to lose each later round).
    ``lookahead`` and ``raises`` as there. Deterministic: it never draws from ``rng``. The models see every event.
    """

    def __init__(self, policy: object | str = "one-third", lookahead: int = 2, raises: str = "smallest",
                 table: str | None = None, ends: str = "blueprint", name: str | None = None):
        if lookahead not in (1, 2) or isinstance(lookahead, bool):
            raise ValueError(f"LocalBestResponse.lookahead must be 1 or 2, got {lookahead!r}")
        self.lookahead, self.raises = int(lookahead), one_of("LocalBestResponse", "raises", raises, RAISES)
        self.ends = one_of("LocalBestResponse", "ends", ends, ENDS)
        if self.ends == "fair" and table is not None:
            raise ValueError("LocalBestResponse: table= names the blueprint valuing round ends; ends=fair values "
                             "them without one (give one or the other)")
        self.model, self.spec = _policy(policy)
        params = {"policy": self.spec, "table": table, "ends": None if self.ends == "blueprint" else self.ends}
        self.name = name or (spec_text("lbr", params) if self.spec else f"lbr:{player_name(self.model)}")
        self._ends: RoundOutcome | None = None
        self.tables: Callable[[GameConfig], GameTable] = table_for  # the variant rules' table (robust: its safe one)
        self.table_path = table
        self.blueprints: Callable[[GameConfig], BlueprintTable] = (  # 3-6 players: the round ends' values
            CFRPlayer(table).blueprint if table is not None
            else self.model.blueprint if isinstance(self.model, CFRPlayer) else blueprint_for)
        self.copy_model: Callable[[], OpponentModel] = (  # the policy for each other seat at 3-6 players
            (lambda: _policy(self.spec)[0]) if self.spec else (lambda: copy.deepcopy(self.model)))
        self.models: dict[int, OpponentModel] = {}  # the policy at each other seat (two players: ``model``)
        self._ranges: dict[int, HandRange] = {}  # the range of each other seat with dice, this round

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        if config.num_players == 2 and self.table_path is not None:
            raise ValueError(f"{self.name}: table= names a blueprint for 3-6 players; two players value round ends "
                             f"by the game's values")
        if config.num_players == 2:
            self.models = {1 - seat: self.model}
            self._table = None if self.ends == "fair" else _variant_table(config, self.tables)
            self.values: GameValue = (seat_values(config, seat, self.spec)[0]
                                      if self.spec and self._table is None and self.ends == "blueprint"
                                      else FairRounds(seat))
        else:
            if self.ends == "blueprint":
                self._blueprint = self._blueprint_for(config)
            self.models = {s: self.copy_model() for s in range(config.num_players) if s != seat}
        for other, model in self.models.items():
            model.reset(other, config)
        self._had_palifico: set[int] = set()  # the seats whose palifico round has been played
        self._loser: int | None = None  # the last round's loser (None: nobody lost it)

    def _blueprint_for(self, config: GameConfig) -> BlueprintTable:
        """The blueprint valuing round ends at this table (3-6 players), or a ValueError naming what is missing."""
        try:
            blueprint = self.blueprints(config)
        except TableError:
            raise
        except ValueError as exc:
            raise ValueError(f"{self.name}: at {config.num_players} players it values a round's ends by the "
                             f"blueprint (or by fair rounds: ends=fair), and {exc}") from None
        if max(config.starting_dice) > blueprint.max_dice:
            raise ValueError(f"{self.name}: the blueprint valuing its round's ends covers up to "
                             f"{blueprint.max_dice} dice each; the game starts with {config.starting_dice}")
        return blueprint

    def observe(self, event: Event) -> None:
        for model in self.models.values():
            if callable(getattr(model, "observe", None)):
                model.observe(event)
        if isinstance(event, RoundStart):
            if event.palifico and self._loser is not None:  # the palifico round of the seat just dropped to one die
                self._had_palifico.add(self._loser)
            self._start(event)
        elif isinstance(event, RoundEnd):
            self._loser = event.loser
        elif isinstance(event, ActionTaken) and event.seat in self._ranges and isinstance(event.action, Bid):
            r, model = self._ranges[event.seat], self.models[event.seat]
            likelihood = checked_probabilities(model, model.action_probabilities(r.support, event.view, event.action),
                                               len(r.support))
            weights = r.weights * likelihood
            total = weights.sum()  # zero: the policy could not have played this; keep the range it had
            r.weights = weights / total if total > 0.0 else r.weights

    def _start(self, event: RoundStart) -> None:
        """A new round: each range is the prior, and each way the round can end gets its game value."""
        config = self.config
        assert config is not None  # reset sets it before any round starts
        rules = config.round_rules(event.palifico)
        match = match_matrix(rules)
        self._ranges = {}
        for seat in self.models:
            if event.dice[seat] > 0:  # in the sixes game a hand is its matching count, as the solvers tell hands apart
                support, prior = solver_hands(event.dice[seat], rules)
                self._ranges[seat] = HandRange(support, support @ match, prior.copy())
        if config.num_players == 2:
            self._ends = self._round_ends(event)
        elif event.dice[self.seat] > 0:
            self._ends = self._table_ends(event)

    def _table_ends(self, event: RoundStart) -> RoundOutcome:
        """LBR's P(winning the game) after each way a round at 3-6 players can end (a role per seat, 0 for seats
        without dice): by the blueprint (:func:`~ldpomdp.exact.blueprint.end_values`), or by fair rounds from the
        dice after it (:func:`~ldpomdp.rules.settle_count`)."""
        config = self.config
        assert config is not None  # reset sets it before any round starts
        dice = tuple(int(d) for d in event.dice)
        n, table = len(dice), sum(dice)
        challenge = np.zeros((n, 2 * table + 1))
        exact = np.zeros((n, 2)) if config.exact_call else None
        if self.ends == "blueprint":
            order = seats_in_turn(dice, event.opener)
            state = TableState(tuple(dice[s] for s in order), event.palifico,
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
        """LBR's P(winning the game) after each way a two-player round can end
        (:func:`~ldpomdp.exact.chain.round_slots`), from LBR's side: the game is over, or the next state is worth the
        variant rules' equilibrium value (the ``cfr`` table), or under today's rules :attr:`values`."""
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
        return _from_side(RoundOutcome.from_slots(values, sum(dice)), role, 1.0)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        own = np.asarray(view.hand, dtype=np.int64)[None, :] @ match_matrix(view.config)
        assert self._ends is not None  # a round has started
        if view.config.num_players == 2:
            r = self._ranges[1 - self.seat]
            actions, values = lookahead_values(self.model, view.public(), own, r.matching, r.support, r.weights,
                                               self._ends, self.lookahead, self.raises)
        else:
            actions, values = table_lookahead_values(self.models, view.public(), own[0], self._ranges, self._ends,
                                                     self.lookahead, self.raises)
        return actions[int(best_actions(values)[0])]


def _variant_table(config: GameConfig, tables: Callable[[GameConfig], GameTable]) -> GameTable | None:
    """The equilibrium table (from ``tables``) whose game values LBR gives the next states under rule variants (None
    under today's rules, or where no table plays these rules: LBR then values them as :class:`FairRounds` does)."""
    if not config.variants:
        return None
    try:
        return tables(config)
    except TableError:  # a damaged table is not a game without one
        raise
    except ValueError:
        return None


def _from_side(outcome: RoundOutcome, role: int, sign: float) -> RoundOutcome:
    """``outcome`` (role 0's) from the side of ``role``: its rows in that role's order (0: that role), times
    ``sign``."""
    order = [0, 1] if role == 0 else [1, 0]
    exact = None if outcome.exact is None else sign * outcome.exact[order]
    return RoundOutcome(sign * outcome.challenge[order], exact, outcome.table_dice)


def round_payoff(config: GameConfig, dice: tuple[int, int]) -> RoundOutcome:
    """The one-round payoff of each way a round with ``dice`` (opener's, responder's) ends, as
    :attr:`~ldpomdp.exact.tree.RoundTree.opener_payoff` pays it (the opener's dice change minus the responder's:
    +1/-1 under today's rules), divided by the largest so that it lies in [-1, 1]."""
    changes = []
    for call, caller, missing in round_slots(config, dice):
        _, after = settle_count(config, dice, missing, 1 - caller, caller, call)
        changes.append(float((after[0] - dice[0]) - (after[1] - dice[1])))
    return RoundOutcome.from_slots(np.array(changes) / max(max(abs(c) for c in changes), 1.0), sum(dice))


def lbr_behaviour(policy: OpponentModel, tree: RoundTree, role: int, behaviour: np.ndarray, lookahead: int = 2,
                  raises: str = "smallest", outcome: RoundOutcome | None = None) -> np.ndarray:
    """(H_lbr, LBR's edges) the pure strategy of LBR (playing 1 - ``role``) against ``policy`` playing ``role`` with
    ``behaviour`` (:func:`~ldpomdp.exact.policy_behaviour`) in the round of ``tree`` (seat 0 opens), the round's
    ends worth ``outcome`` to the opener (default :func:`round_payoff`)."""
    reach, _ = reach_probabilities(tree, role, behaviour)
    lbr, config = 1 - role, tree.config
    dice = (tree.dice[0], tree.dice[1])
    match = match_matrix(config)
    own, support = tree.hands[lbr] @ match, tree.hands[role]
    outcome = round_payoff(config, dice) if outcome is None else outcome
    ends = _from_side(outcome, lbr, 1.0 if lbr == 0 else -1.0)
    out = np.zeros((len(tree.hands[lbr]), len(tree.role_edges[lbr])))
    for node in np.flatnonzero(tree.node_depth % 2 == lbr):
        total = reach[node].sum()
        weights = reach[node] / total if total > 0.0 else tree.hand_probs[role]  # unreachable: any range will do
        view = PublicView(config, lbr, dice, tree.history(int(node)))
        actions, values = lookahead_values(policy, view, own, support @ match, support, weights, ends,
                                           lookahead, raises)
        edges = np.arange(tree.edge_start[node], tree.edge_start[node + 1])
        chosen = np.array([tree.actions(int(node)).index(a) for a in actions])[best_actions(values)]
        out[np.arange(len(own)), tree.edge_local[edges[chosen]]] = 1.0
    return out


def local_best_response(policy: OpponentModel, config: GameConfig, dice: tuple[int, int] | None = None,
                        lookahead: int = 2, raises: str = "smallest") -> Exploitability:
    """LBR's exact payoffs against ``policy`` in one round of ``config`` (seat 0 opens; ``dice`` as in
    :func:`~ldpomdp.exact.exploitability`), as an :class:`~ldpomdp.exact.Exploitability` whose figures are
    lower bounds on the policy's exploitability (LBR plays the policy's opponent: a best responder earns at least
    as much)."""
    solution = cached_solution(config, dice)
    tree = solution.tree
    payoffs = []
    for role in (0, 1):
        policy.reset(role, config)
        behaviour = policy_behaviour(policy, tree, role)
        pair = [behaviour, lbr_behaviour(policy, tree, role, behaviour, lookahead, raises)]
        to_opener = strategy_value(tree, (pair[0], pair[1]) if role == 0 else (pair[1], pair[0]))
        payoffs.append(-to_opener if role == 0 else to_opener)
    return Exploitability(solution.value, payoffs[0], payoffs[1])
