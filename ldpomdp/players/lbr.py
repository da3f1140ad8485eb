"""Local best response (LBR; Lisý & Bowling 2017): a lower bound on the exploitability of a two-player policy in
the whole game, where no exact best response can be computed.

:class:`LocalBestResponse` keeps the exact range of the opponent's hand and takes the action of highest lookahead
value against it, round outcomes valued by :func:`~ldpomdp.exact.game_values.seat_values`, so its win rate against
the policy bounds the policy's exploitability from below. :func:`local_best_response` is the one-round version,
exact on the round's tree. The lookahead, the policies it reads and its cost: the Robustness page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from ..exact.best_response import Exploitability, ReplayPolicy, policy_behaviour, reach_probabilities, strategy_value
from ..exact.game_values import FairRounds, GameValue, seat_values
from ..exact.nash import cached_solution
from ..exact.tree import RoundTree
from ..game import ActionTaken, Event, PlayerView, PublicView, RoundStart, player_name
from ..hands import hand_support
from ..opponent import BaseOpponent, OpponentModel, checked_probabilities
from ..registry import make_player, spec_text
from ..rules import CHALLENGE, Action, Bid, GameConfig, legal_actions, match_matrix, next_opener
from ..validation import one_of

__all__ = ["LocalBestResponse", "local_best_response", "lbr_behaviour", "lookahead_values", "candidate_raises",
           "RAISES"]

RAISES = ("smallest", "all")  # LBR's candidate raises: the smallest legal raise on each face, or every legal raise

TIE = 1e-9  # lookahead values closer than this count as equal

# Outcome values of a round, for LBR: keyed by (challenger is LBR, loser is LBR)
Outcomes = dict[tuple[bool, bool], float]


def candidate_raises(actions: Sequence[Action], raises: str) -> list[Bid]:
    """The raises among ``actions`` that LBR considers: all, or the smallest on each face."""
    bids = [a for a in actions if isinstance(a, Bid)]
    if raises == "all":
        return bids
    smallest: dict[int, Bid] = {}
    for bid in bids:  # legal_actions lists raises in rising order
        smallest.setdefault(bid.face, bid)
    return list(smallest.values())


def _challenge_value(holds: np.ndarray, weights: np.ndarray, true_value: float, false_value: float) -> np.ndarray:
    """(M,) sum_i weights_i * (true_value if the bid holds for (own hand m, range hand i) else false_value)."""
    return np.where(holds, true_value, false_value) @ weights


def lookahead_values(policy: OpponentModel, view: PublicView, own_matching: np.ndarray, support_matching: np.ndarray,
                     support: np.ndarray, weights: np.ndarray, outcomes: Outcomes, lookahead: int = 2,
                     raises: str = "smallest") -> tuple[list[Action], np.ndarray]:
    """LBR's candidate actions at ``view`` (LBR to act) and their lookahead values for each own hand:
    ((actions), (M, actions)) with ``own_matching`` (M, faces) matching counts of LBR's hands, the range
    ``support`` (N, faces) with matching counts ``support_matching`` and ``weights`` (N,) (summing to one), and
    ``outcomes`` the value of each (LBR challenged, LBR lost) round end. See the module docstring."""
    config, me = view.config, view.seat
    opp = 1 - me
    even = 0.5 * (outcomes[True, True] + outcomes[True, False])

    def holds(bid: Bid) -> np.ndarray:  # (M, N): the bid is true for own hand m and range hand i
        f = bid.face - 1
        return own_matching[:, f][:, None] + support_matching[None, :, f] >= bid.quantity

    def asked(at: PublicView, action: Action) -> np.ndarray:
        return checked_probabilities(policy, policy.action_probabilities(support, at, action), len(support))

    legal = view.legal_actions()
    actions: list[Action] = [CHALLENGE] if CHALLENGE in legal else []
    actions += candidate_raises(legal, raises)
    values = np.empty((len(own_matching), len(actions)))
    for k, action in enumerate(actions):
        if not isinstance(action, Bid):  # a challenge (legal, so a bid stands): LBR loses when that bid holds
            assert view.bid is not None
            values[:, k] = _challenge_value(holds(view.bid), weights, outcomes[True, True], outcomes[True, False])
            continue
        after = PublicView(config, opp, view.dice, view.history + ((me, action),), view.round_index)
        replies = legal_actions(config, view.table_dice, action)
        challenged = asked(after, CHALLENGE)  # a challenge is legal after every raise
        value = _challenge_value(holds(action), weights * challenged, outcomes[False, False], outcomes[False, True])
        for reply in replies:
            if not isinstance(reply, Bid):  # the challenge, counted above
                continue
            reach = weights * asked(after, reply)  # P(range hand i) x P(it raises to reply)
            continuation = np.full(len(own_matching), even * reach.sum())
            if lookahead == 2:
                continuation = np.maximum(continuation, _challenge_value(
                    holds(reply), reach, outcomes[True, True], outcomes[True, False]))
            value += continuation
        values[:, k] = value
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
    """Local best response to ``policy`` (a player spec, or a player object) in two-player games of any size.

    ``lookahead`` 1 or 2 and ``raises`` ("smallest" on each face, or "all") as in :func:`lookahead_values`.
    Deterministic: it never draws from ``rng``. The policy's model sees every event, as a real player would.
    """

    def __init__(self, policy: object | str = "one-third", lookahead: int = 2, raises: str = "smallest",
                 name: str | None = None):
        if lookahead not in (1, 2) or isinstance(lookahead, bool):
            raise ValueError(f"LocalBestResponse.lookahead must be 1 or 2, got {lookahead!r}")
        self.lookahead, self.raises = int(lookahead), one_of("LocalBestResponse", "raises", raises, RAISES)
        self.model, self.spec = _policy(policy)
        self.name = name or (spec_text("lbr", {"policy": self.spec}) if self.spec else f"lbr:{player_name(self.model)}")
        self._outcomes: Outcomes = {}
        self._weights = np.ones(1)

    def reset(self, seat: int, config: GameConfig) -> None:
        if config.num_players != 2:
            raise ValueError(f"{self.name}: local best response plays two-player games; num_players is "
                             f"{config.num_players}")
        super().reset(seat, config)
        self.model.reset(1 - seat, config)
        self.values: GameValue = seat_values(config, seat, self.spec)[0] if self.spec else FairRounds(seat)

    def observe(self, event: Event) -> None:
        if callable(getattr(self.model, "observe", None)):
            self.model.observe(event)
        if isinstance(event, RoundStart):
            self._start(event)
        elif isinstance(event, ActionTaken) and event.seat != self.seat and event.action is not CHALLENGE:
            likelihood = checked_probabilities(
                self.model, self.model.action_probabilities(self._support, event.view, event.action),
                len(self._support))
            weights = self._weights * likelihood
            total = weights.sum()  # zero: the policy could not have played this; keep the range it had
            self._weights = weights / total if total > 0.0 else self._weights

    def _start(self, event: RoundStart) -> None:
        """A new round: the range is the prior, and each way the round can end gets its game value."""
        config, me = self.config, self.seat
        assert config is not None  # reset sets it before any round starts
        self._support, prior = hand_support(event.dice[1 - me], config.faces)
        self._weights = prior.copy()
        self._support_matching = self._support @ match_matrix(config)
        self._outcomes = {}
        for lbr_challenged in (True, False):
            for lbr_lost in (True, False):
                loser = me if lbr_lost else 1 - me
                after = tuple(d - (s == loser) for s, d in enumerate(event.dice))
                if min(after) == 0:
                    value = 0.0 if lbr_lost else 1.0
                else:
                    opener = next_opener(config, after, me if lbr_challenged else 1 - me, loser)
                    value = self.values.win_probability(after, opener)
                self._outcomes[lbr_challenged, lbr_lost] = value

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        own = np.asarray(view.hand, dtype=np.int64)[None, :] @ match_matrix(view.config)
        actions, values = lookahead_values(self.model, view.public(), own, self._support_matching, self._support,
                                           self._weights, self._outcomes, self.lookahead, self.raises)
        return actions[int(best_actions(values)[0])]


def lbr_behaviour(policy: OpponentModel, tree: RoundTree, role: int, behaviour: np.ndarray, lookahead: int = 2,
                  raises: str = "smallest") -> np.ndarray:
    """(H_lbr, LBR's edges) the pure strategy of LBR (playing 1 - ``role``, +1/-1 outcomes) against ``policy``
    playing ``role`` with ``behaviour`` (:func:`~ldpomdp.exact.policy_behaviour`) in the round of ``tree``
    (seat 0 opens)."""
    reach, _ = reach_probabilities(tree, role, behaviour)
    lbr, config = 1 - role, tree.config
    dice = (tree.dice[0], tree.dice[1])
    match = match_matrix(config)
    own, support = tree.hands[lbr] @ match, tree.hands[role]
    outcomes: Outcomes = {(c, lost): -1.0 if lost else 1.0 for c in (True, False) for lost in (True, False)}
    out = np.zeros((len(tree.hands[lbr]), len(tree.role_edges[lbr])))
    for node in np.flatnonzero(tree.node_depth % 2 == lbr):
        total = reach[node].sum()
        weights = reach[node] / total if total > 0.0 else tree.hand_probs[role]  # unreachable: any range will do
        view = PublicView(config, lbr, dice, tree.history(int(node)))
        actions, values = lookahead_values(policy, view, own, support @ match, support, weights, outcomes,
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
