"""The algorithm of local best response (LBR; Lisý & Bowling 2017), apart from the seated player.

It gives the lookahead values of LBR's candidate actions against a policy's hand ranges, at two players and at 3-6,
and the one-round LBR exact on a round's tree.

``lookahead_values`` (two players) and ``table_lookahead_values`` (any number of seats) value each candidate action
against the ranges; ``local_best_response`` plays LBR against a policy in one round, exactly, a lower bound on the
policy's exploitability. The seated player ``LocalBestResponse`` asks them at every decision of a whole game. The
lookahead, the policies it reads and its cost: the Robustness page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..exact.two_player.exploitability import Exploitability, policy_behaviour, reach_probabilities, strategy_value
from ..exact.two_player.solved_rounds import cached_solution
from ..exact.two_player.states import RoundOutcome, round_slots
from ..exact.two_player.tree import RoundTree
from ..game import PublicView
from ..opponent import OpponentModel, checked_probabilities
from ..round_end import seats_in_turn, settle_count
from ..rules import CHALLENGE, EXACT, Action, Bid, GameConfig, legal_actions, match_matrix

__all__ = ["local_best_response", "lbr_behaviour", "lookahead_values", "table_lookahead_values", "candidate_raises",
           "round_payoff", "best_actions", "from_side", "HandRange", "RAISES"]

RAISES = ("smallest", "all")  # LBR's candidate raises: the smallest legal raise on each face, or every legal raise

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
    """LBR's candidate actions at ``view`` (two players) and their lookahead values, by own hand.

    The calls are the challenge and, under the exact call, the exact call; the policy's are counted after each
    raise. See the module docstring.

    Args:
        policy: the policy at the other seat; its ``action_probabilities`` weigh the range's replies.
        view: the public view at LBR's decision (LBR to act).
        own_matching: (M, faces) matching counts of LBR's hands.
        support_matching: (N, faces) matching counts of the range's hands.
        support: (N, faces) the range: the other seat's hands.
        weights: (N,) the range's probabilities, summing to one.
        ends: LBR's value of each way the round ends, a ``RoundOutcome`` from LBR's side (role 0 is LBR, role 1 the
            policy).
        lookahead: 2: LBR may call each raise the policy replies with, where that is worth more than the round
            going on (valued as a challenge lost or won at even odds); any other value: the round going on only.
        raises: LBR's candidate raises (``RAISES``): ``"smallest"`` on each face, or ``"all"``.

    Returns:
        ``(actions, values)``: LBR's candidate actions (the legal calls, then the candidate raises) and their
        values, (M, actions).

    Raises:
        ValueError: ``policy``'s ``action_probabilities`` returned the wrong shape or values outside [0, 1].
    """
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
    """One seat's hand range: its hands, their matching counts and their probabilities.

    Every hand ``support`` (N, faces; in the sixes game one per matching count), its matching counts ``matching``
    (N, faces) and their probabilities ``weights`` (N,), summing to one."""

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
    """LBR's candidate actions at ``view`` (LBR to act; any number of seats) and their lookahead values, by own hand.

    After LBR's raise the next seat calls or raises as its model says; with ``lookahead`` 2 the seat after it calls
    that raise as its model says (LBR, if it is LBR's turn again, when that is worth more); a round that goes on is
    worth the mean of each seat's losing a die as challenger and as bidder.

    Args:
        models: the policy's model at every other seat with dice.
        view: the public view at LBR's decision.
        own_matching: (M, faces) matching counts of LBR's hands, or (faces,) of one.
        ranges: the hand range of every other seat with dice.
        ends: LBR's value of each way the round ends, a ``RoundOutcome`` with a role per seat.
        lookahead: 2: the seat after the next one calls too, as above; any other value: the next seat alone.
        raises: LBR's candidate raises (``RAISES``): ``"smallest"`` on each face, or ``"all"``.

    Returns:
        ``(actions, values)``: LBR's candidate actions (the legal calls, then the candidate raises) and their
        values, (M, actions) (one row for one hand).

    Raises:
        ValueError: ``ends`` has not a role per seat or not the round's dice, or under the exact call no
            ``ends.exact``; or a model's ``action_probabilities`` returned the wrong shape or values outside [0, 1].
    """
    if len(ends.challenge) != len(view.dice) or ends.table_dice != view.table_dice:
        raise ValueError(f"table_lookahead_values: ends must have a role per seat ({len(view.dice)}) and the round's "
                         f"{view.table_dice} dice, got {len(ends.challenge)} roles and {ends.table_dice} dice")
    config, me = view.config, view.seat
    own_matching = np.atleast_2d(own_matching)
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

    def called(call: Action, caller: int, bid: Bid, held: Mapping[int, np.ndarray]) -> np.ndarray:
        """(M,) the value of ``caller``'s ``call`` of ``bid`` for each own hand, each seat in ``held`` weighted by that
        reach.

        Seats not in ``held`` are weighted by their range: the others' total count convolved seat by seat, then each
        count's end (by what the bid missed by)."""
        total = np.ones(1)  # the weight of each total count of the others' dice matching the bid's face
        for seat in turn:
            total = np.convolve(total, ranges[seat].counts(bid.face, held.get(seat)))
        need = bid.quantity - own_matching[:, bid.face - 1]  # (M,) the others' dice the bid needs
        if call is EXACT:
            assert ends.exact is not None  # checked above: the exact call is legal only under its rules
            right = np.where((need >= 0) & (need < len(total)), total[np.clip(need, 0, len(total) - 1)], 0.0)
            return right * ends.exact[caller, 1] + (float(total.sum()) - right) * ends.exact[caller, 0]
        return ends.challenge[caller][need[:, None] + table - np.arange(len(total))] @ total

    legal = view.legal_actions()
    actions: list[Action] = [c for c in calls if c in legal]
    actions += candidate_raises(legal, raises)
    values = np.empty((len(own_matching), len(actions)))
    nxt = turn[0]
    third = later[nxt]
    for k, action in enumerate(actions):
        if not isinstance(action, Bid):
            assert view.bid is not None
            values[:, k] = called(action, me, view.bid, {})
            continue
        history = view.history + ((me, action),)
        after = PublicView(config, nxt, view.dice, history, view.round_index)
        value = np.sum([called(c, nxt, action, {nxt: ranges[nxt].weights * asked(nxt, after, c)}) for c in calls],
                       axis=0)
        replies = [r for r in legal_actions(config, view.table_dice, action) if isinstance(r, Bid)]
        reaches = [ranges[nxt].weights * asked(nxt, after, reply) for reply in replies]  # P(hand) x P(reply)
        masses = np.array([float(reach.sum()) for reach in reaches])
        value += float(masses.sum()) * neutral  # the round goes on; the lookahead's replies corrected below
        if lookahead == 2 and third == me:
            for reply, reach, mass in zip(replies, reaches, masses, strict=True):
                value += np.maximum.reduce([np.zeros(len(own_matching)),
                                            *(called(c, me, reply, {nxt: reach}) - mass * neutral for c in calls)])
        elif lookahead == 2:
            order = np.argsort(-masses, kind="stable")
            covered = np.searchsorted(np.cumsum(masses[order]), (1.0 - REPLY_MASS) * masses.sum()) + 1
            for j in order[:covered]:  # the likeliest replies, all but REPLY_MASS of their mass
                again = PublicView(config, third, view.dice, history + ((nxt, replies[j]),), view.round_index)
                for c in calls:
                    reach = ranges[third].weights * asked(third, again, c)
                    value += called(c, third, replies[j], {nxt: reaches[j], third: reach}) - float(
                        reach.sum()) * masses[j] * neutral
        values[:, k] = value
    return actions, values


def best_actions(values: np.ndarray) -> np.ndarray:
    """(M,) per row of ``values`` (M, actions) the first action within ``TIE`` of the row's best: exact ties
    (symmetric faces) break the same way whatever affine scale the outcome values are on."""
    return np.argmax(values >= values.max(axis=1, keepdims=True) - TIE, axis=1)


def from_side(outcome: RoundOutcome, role: int, sign: float) -> RoundOutcome:
    """``outcome`` (role 0's) from the side of ``role``: its rows in that role's order (0: that role), times
    ``sign``."""
    order = [0, 1] if role == 0 else [1, 0]
    exact = None if outcome.exact is None else sign * outcome.exact[order]
    return RoundOutcome(sign * outcome.challenge[order], exact, outcome.table_dice)


def round_payoff(config: GameConfig, dice: tuple[int, int]) -> RoundOutcome:
    """The one-round payoff of each way a round with ``dice`` (opener's, responder's) ends, scaled into [-1, 1].

    The payoff is as ``RoundTree.opener_payoff`` pays it (the opener's dice change minus the responder's: +1/-1 under
    today's rules), divided by the largest so that it lies in [-1, 1]."""
    changes = []
    for call, caller, missing in round_slots(config, dice):
        _, after = settle_count(config, dice, missing, 1 - caller, caller, call)
        changes.append(float((after[0] - dice[0]) - (after[1] - dice[1])))
    return RoundOutcome.from_slots(np.array(changes) / max(max(abs(c) for c in changes), 1.0), sum(dice))


def lbr_behaviour(policy: OpponentModel, tree: RoundTree, role: int, behaviour: np.ndarray, lookahead: int = 2,
                  raises: str = "smallest", outcome: RoundOutcome | None = None) -> np.ndarray:
    """LBR's pure strategy (playing 1 - ``role``) against ``policy`` in the round of ``tree`` (seat 0 opens).

    Args:
        policy: the policy LBR plays against.
        tree: the round's tree (seat 0 opens).
        role: the policy's role (0: the opener); LBR plays the other.
        behaviour: the policy's behaviour in ``tree`` (``policy_behaviour``).
        lookahead: as in ``lookahead_values``.
        raises: LBR's candidate raises, as in ``lookahead_values``.
        outcome: what each way the round ends is worth to the opener (default ``round_payoff``).

    Returns:
        (H_lbr, LBR's edges): 1 on the edge LBR takes with each of its hands at each of its decisions, else 0.

    Raises:
        ValueError: ``policy``'s ``action_probabilities`` returned the wrong shape or values outside [0, 1].
    """
    reach, _ = reach_probabilities(tree, role, behaviour)
    lbr, config = 1 - role, tree.config
    dice = (tree.dice[0], tree.dice[1])
    match = match_matrix(config)
    own, support = tree.hands[lbr] @ match, tree.hands[role]
    outcome = round_payoff(config, dice) if outcome is None else outcome
    ends = from_side(outcome, lbr, 1.0 if lbr == 0 else -1.0)
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
    """LBR's exact payoffs against ``policy`` in one round of ``config``: lower bounds on its exploitability.

    LBR plays the policy's opponent: a best responder earns at least as much.

    Args:
        policy: the policy LBR plays against, reset for each role in turn.
        config: the round's rules (seat 0 opens).
        dice: (opener's, responder's) dice, as in ``exploitability`` (default the starting dice).
        lookahead: as in ``lookahead_values``.
        raises: LBR's candidate raises, as in ``lookahead_values``.

    Returns:
        An ``Exploitability`` whose figures are LBR's payoffs, lower bounds on the policy's exploitability.

    Raises:
        UsageError: ``policy`` has no ``action_probabilities``, or the round is too large to solve exactly.
        ValueError: ``policy``'s ``action_probabilities`` returned the wrong shape or values outside [0, 1].
    """
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
