"""Best responses and exploitability of any policy that can state its action probabilities.

The policy's behaviour strategy is read off ``action_probabilities`` at every public node where it
acts, for all of its hands at once; the best responder then maximises, by backward induction over
its information sets (own hand, public node), the chance- and policy-weighted payoff below each node.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..caches import memo
from ..game import ActionTaken, PlayerView, PublicView, RoundStart, player_name
from ..opponent import OpponentModel, checked_probabilities
from ..rules import Action, GameConfig
from ..validation import int_at_least
from .chain import DiceState, RoundOutcome, canonical_state, game_states, round_outcome, round_slots, successor
from .nash import cached_solution
from .sequence_form import solve_round
from .tree import RoundTree, build_tree, round_dice

__all__ = [
    "policy_behaviour", "reach_probabilities", "strategy_value", "best_response_value", "Exploitability",
    "exploitability", "game_exploitability", "game_value", "ReplayPolicy",
]


def policy_behaviour(policy: OpponentModel, tree: RoundTree, role: int, opener_seat: int = 0) -> np.ndarray:
    """(H_role, role's edges) probabilities that ``policy`` (playing ``role``) takes each edge."""
    if not callable(getattr(policy, "action_probabilities", None)):
        raise ValueError(f"policy {player_name(policy)} has no action_probabilities(hands, view, action)")
    seat = opener_seat if role == 0 else 1 - opener_seat
    dice = [0, 0]
    dice[opener_seat], dice[1 - opener_seat] = tree.dice
    hands = tree.hands[role]
    edges = tree.role_edges[role]
    out = np.empty((len(hands), len(edges)))
    nodes = np.unique(tree.edge_node[edges])
    for node in nodes:
        view = PublicView(tree.config, seat, tuple(dice), tree.history(int(node), opener_seat))
        a, b = tree.edge_start[node], tree.edge_start[node + 1]
        probs = np.stack(
            [checked_probabilities(policy, policy.action_probabilities(hands, view, act), len(hands))
             for act in tree.actions(int(node))],
            axis=1,
        )
        total = probs.sum(axis=1)
        if not np.allclose(total, 1.0, atol=1e-6):
            raise ValueError(
                f"policy {player_name(policy)}: probabilities of the legal actions sum to {total.min():.6g}"
                f"..{total.max():.6g}, not 1, after {view.history}"
            )
        out[:, tree.edge_local[a:b]] = probs
    return out


def reach_probabilities(tree: RoundTree, role: int, behaviour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nodes, H_role) P(hand) x P(``role`` playing ``behaviour`` takes its actions on the way to the node), and
    (edges, H_role) its probability of taking each edge (1 on the other role's edges)."""
    factor = np.ones((tree.num_edges, len(tree.hands[role])))
    factor[tree.role_edges[role]] = behaviour.T
    reach = np.empty((tree.num_nodes, len(tree.hands[role])))
    reach[0] = tree.hand_probs[role]
    for a, b in tree.levels()[:-1]:  # top-down: reach of each child = parent's reach x the action's probability
        edges = np.arange(tree.edge_start[a], tree.edge_start[b])
        inner = edges[tree.edge_child[edges] >= 0]
        reach[tree.edge_child[inner]] = reach[tree.edge_node[inner]] * factor[inner]
    return reach, factor


def strategy_value(tree: RoundTree, behaviours: tuple[np.ndarray, np.ndarray], payoff: np.ndarray | None = None
                   ) -> float:
    """Expected payoff (+1 win / -1 loss) to the opener when each role r plays ``behaviours[r]``
    ((H_r, role r's edges) action probabilities); ``payoff``: (H_0, H_1, terminals) the opener's value of each end
    in place of the tree's ``opener_payoff`` (e.g. its ``outcome_payoff(outcome)``)."""
    term = tree.terminal_edges
    weights = [reach[tree.edge_node[term]] * factor[term] for reach, factor in
               (reach_probabilities(tree, r, behaviours[r]) for r in (0, 1))]  # (terminals, H_r)
    return float(np.einsum("ijt,ti,tj->", tree.opener_payoff if payoff is None else payoff, weights[0], weights[1]))


def best_response_value(tree: RoundTree, role: int, behaviour: np.ndarray, payoff: np.ndarray | None = None
                        ) -> float:
    """Expected payoff (+1 win / -1 loss) a best responder earns against ``role`` playing ``behaviour``
    (``payoff`` as in :func:`strategy_value`)."""
    br = 1 - role
    actor = tree.edge_actor
    reach, factor = reach_probabilities(tree, role, behaviour)
    levels = tree.levels()
    term = tree.terminal_edges
    opener = tree.opener_payoff if payoff is None else payoff
    payoff = opener if role == 1 else -opener.transpose(1, 0, 2)  # (H_br, H_pol, T)
    weight = reach[tree.edge_node[term]] * factor[term]  # (T, H_pol)
    edge_value = np.zeros((tree.num_edges, len(tree.hands[br])))
    edge_value[term] = np.einsum("ipt,tp->ti", payoff, weight) * tree.hand_probs[br][None, :]
    node_value = np.zeros((tree.num_nodes, len(tree.hands[br])))
    for a, b in reversed(levels):  # bottom-up: the responder maximises per (own hand, node)
        e0, e1 = tree.edge_start[a], tree.edge_start[b]
        inner = np.arange(e0, e1)[tree.edge_child[e0:e1] >= 0]
        edge_value[inner] = node_value[tree.edge_child[inner]]
        offsets = tree.edge_start[a:b] - e0
        block = edge_value[e0:e1]
        reduce = np.maximum.reduceat if actor[e0] == br else np.add.reduceat
        node_value[a:b] = reduce(block, offsets, axis=0)
    return float(node_value[0].sum())


class ReplayPolicy:
    """``action_probabilities`` for any player, read off its ``act``: per hand and sample, a fresh player from
    ``factory()`` (no arguments) is reset, sees the round's public events up to the view and acts once, drawing from
    ``numpy.random.default_rng((seed, sample))``.

    Exact for players deterministic given what they observed (``samples=1``); for a randomised player the frequencies
    over ``samples`` (>= 1) fresh players, each seeded differently by the factory, estimate its distribution, and their
    noise is exploitable too (estimates err upwards). ``name`` defaults to ``replay(<the player's name>)``.
    """

    def __init__(self, factory, samples: int = 1, seed: int = 0, name: str | None = None):
        samples = int_at_least("ReplayPolicy", "samples", samples, 1)
        self.factory, self.samples, self.seed = factory, samples, seed
        self.name = name or f"replay({player_name(factory())})"
        self._last: tuple[tuple, dict] | None = None

    def reset(self, seat: int, config: GameConfig) -> None:
        self._last = None

    def _distributions(self, hands: np.ndarray, view: PublicView) -> dict:
        key = (view.config, view.seat, view.dice, view.history, hands.tobytes())
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        counts: dict = {}
        opener = view.history[0][0] if view.history else view.seat
        for i, hand in enumerate(hands):
            me = PlayerView(view.config, view.seat, view.dice, view.history, view.round_index,
                            hand=tuple(int(c) for c in hand))
            for sample in range(self.samples):
                player = self.factory()
                player.reset(view.seat, view.config)
                player.observe(RoundStart(view.round_index, view.dice, opener))
                for k, (seat, action) in enumerate(view.history):
                    before = PublicView(view.config, seat, view.dice, view.history[:k], view.round_index)
                    player.observe(ActionTaken(seat, action, before))
                action = player.act(me, np.random.default_rng((self.seed, sample)))
                counts.setdefault(action, np.zeros(len(hands)))[i] += 1.0 / self.samples
        self._last = (key, counts)
        return counts

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        hands = np.asarray(hands)
        return self._distributions(hands, view).get(action, np.zeros(len(hands)))


@dataclass(frozen=True)
class Exploitability:
    """How much a best responder gains against a policy, in payoff units (+1 win / -1 loss).

    ``as_opener`` = game value - what the policy guarantees as the round's opener; ``as_responder``
    likewise in the other seat; both are >= 0 and zero exactly for an equilibrium strategy.
    Halve a figure to read it as lost win probability.
    """

    value: float  # equilibrium payoff to the opener
    best_response_to_opener: float  # payoff of the best responder when the policy opens
    best_response_to_responder: float  # payoff of the best responder (the opener) against the policy

    @property
    def as_opener(self) -> float:
        return self.best_response_to_opener + self.value

    @property
    def as_responder(self) -> float:
        return self.best_response_to_responder - self.value

    @property
    def average(self) -> float:
        return (self.as_opener + self.as_responder) / 2.0


def exploitability(policy: OpponentModel, config: GameConfig, dice: tuple[int, int] | None = None) -> Exploitability:
    """Exploitability of ``policy`` in one round of ``config`` (seat 0 opens; ``dice`` = (opener's,
    responder's), default the starting dice), for both seats. Solves the round (cached) for the value."""
    solution = cached_solution(config, dice)
    tree = solution.tree
    values = []
    for role in (0, 1):
        policy.reset(role, config)
        values.append(best_response_value(tree, role, policy_behaviour(policy, tree, role)))
    return Exploitability(solution.value, values[0], values[1])


FIXED_POINT_TOLERANCE = 1e-12  # game_exploitability's value iteration stops when no value moves by more
MAX_SWEEPS = 2000


def game_exploitability(policy: OpponentModel, config: GameConfig, rounds: int | None = None) -> Exploitability:
    """Exploitability of ``policy`` in the whole two-player game of ``config`` (seat 0 opens the first round), where
    every round's tree can be built (1 die each; more with fewer faces): the best responses and the game's value
    chained over the dice states (:func:`~ldpomdp.exact.chain.successor`) by value iteration from a draw, to their
    fixed point (a right exact call can repeat a state), or over ``rounds`` rounds, a game the cap stops being a
    draw (the OpenSpiel bridge's ``max_rounds``). The policy plays each round as it would the game's first."""
    start = canonical_state(config, round_dice(config, None))  # two players; equal dice under the exact call
    states = game_states(config, [start])
    trees = {s.key: build_tree(config.round_rules(s.palifico), s.dice) for s in states}
    behaviours = {}
    for role in (0, 1):
        policy.reset(role, config)
        for key, tree in trees.items():
            behaviours[key, role] = policy_behaviour(policy, tree, role)
    ends = {s: [successor(config, s, slot) for slot in round_slots(config, s.dice)] for s in states}

    def outcome(state: DiceState, worth: Callable[[DiceState, bool], float]) -> RoundOutcome:
        """The round's outcome when a next state is ``worth(next, same opener)`` to its opener."""
        return RoundOutcome.from_slots([end if following is None else sign * worth(following, sign > 0)
                                        for end, following, sign in ends[state]], sum(state.dice))

    def responses(values: dict) -> dict:  # (state, the policy's role) -> the best responder's value
        out = {}
        for (s, role) in values:
            def worth(following: DiceState, same: bool, role: int = role) -> float:
                then = role if same else 1 - role  # the policy's role in the next round
                return -values[following, then] if then == 0 else values[following, then]
            tree = trees[s.key]
            out[s, role] = best_response_value(tree, role, behaviours[s.key, role],
                                               tree.outcome_payoff(outcome(s, worth)))
        return out

    response = _value_iteration("game_exploitability", responses,
                                {(s, role): 0.0 for s in states for role in (0, 1)}, rounds)
    return Exploitability(game_value(config, rounds)[start], response[start, 0], response[start, 1])


@memo(maxsize=16)
def game_value(config: GameConfig, rounds: int | None = None) -> dict[DiceState, float]:
    """Every dice state's value to its opener in the whole two-player game of ``config``: the exact LP of each round
    (:func:`~ldpomdp.exact.solve_round`), chained as in :func:`game_exploitability`. Cached for the process."""
    states = game_states(config, [canonical_state(config, round_dice(config, None))])
    rules = {s: config.round_rules(s.palifico) for s in states}

    def sweep(values: dict) -> dict:
        return {s: solve_round(rules[s], s.dice, round_outcome(config, s, values.__getitem__)).value for s in states}

    return _value_iteration("game_value", sweep, dict.fromkeys(states, 0.0), rounds)


def _value_iteration(owner: str, step: Callable[[dict], dict], values: dict, rounds: int | None) -> dict:
    """``step`` applied ``rounds`` times to ``values``, or (None) until no value moves by more than
    :data:`FIXED_POINT_TOLERANCE` (a RuntimeError after :data:`MAX_SWEEPS`); ``owner`` names the caller in errors."""
    if rounds is not None:
        for _ in range(int_at_least(owner, "rounds", rounds, 1)):
            values = step(values)
        return values
    for _ in range(MAX_SWEEPS):
        following = step(values)
        if max(abs(following[k] - values[k]) for k in values) <= FIXED_POINT_TOLERANCE:
            return following
        values = following
    raise RuntimeError(f"{owner}: no fixed point within {FIXED_POINT_TOLERANCE} after {MAX_SWEEPS} sweeps")
