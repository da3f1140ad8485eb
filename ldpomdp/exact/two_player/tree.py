"""The public tree of one two-player round: every bid sequence the rules allow, as flat numpy arrays.

Nodes are bid sequences (the root is the empty one, where the opener must bid); edges are actions
(a legal raise, or a challenge or an exact call, which end the round). Nodes are numbered breadth first and each
node's edges are contiguous, in ``legal_actions`` order, so whole depth levels can be processed with
``np.add.reduceat`` / ``np.maximum.reduceat``. Roles: 0 = the round's opener, 1 = the responder.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from math import comb

import numpy as np

from ...errors import UsageError
from ...hands import hand_rows, hand_support
from ...rules import CHALLENGE, EXACT, Action, Bid, GameConfig, legal_actions, match_matrix
from .states import RoundOutcome

__all__ = ["RoundTree", "build_tree", "check_size", "MAX_SEQUENCES", "MAX_PAYOFF_ENTRIES"]

# Largest LP we agree to build: sequences of both players together (about hands x public bid sequences) and payoff
# entries (opener's hands x responder's x challenges); the solve time at the limit is on docs/performance.md.
MAX_SEQUENCES = 250_000
MAX_PAYOFF_ENTRIES = 10_000_000


@dataclass(frozen=True)
class RoundTree:
    """One round's public tree plus both players' hands (see module docstring for the layout)."""

    config: GameConfig
    dice: tuple[int, int]  # (opener's dice, responder's dice)
    node_depth: np.ndarray  # actor of node n is node_depth[n] % 2
    node_parent_edge: np.ndarray  # -1 at the root
    edge_start: np.ndarray  # edges of node n are edge_start[n] : edge_start[n + 1]
    edge_node: np.ndarray  # the node an edge leaves
    edge_child: np.ndarray  # the node it leads to, -1 for a challenge (terminal)
    edge_bid: np.ndarray  # index into ``bids`` of the raise, -1 for a challenge, -2 for an exact call
    bids: tuple[Bid, ...]  # every bid that occurs, in rising order
    hands: tuple[np.ndarray, np.ndarray]  # per role: (H_r, faces) face counts
    hand_probs: tuple[np.ndarray, np.ndarray]  # per role: (H_r,) multinomial probabilities
    node_index: dict  # tuple of bids (the public sequence) -> node id

    @property
    def num_nodes(self) -> int:
        return len(self.node_depth)

    @property
    def num_edges(self) -> int:
        return len(self.edge_node)

    @cached_property
    def edge_actor(self) -> np.ndarray:
        return self.node_depth[self.edge_node] % 2

    @cached_property
    def role_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Per role, the ids of the edges (actions) it takes, ascending."""
        return np.flatnonzero(self.edge_actor == 0), np.flatnonzero(self.edge_actor == 1)

    @cached_property
    def edge_local(self) -> np.ndarray:
        """Position of every edge among its actor's edges (``role_edges[actor]``)."""
        local = np.empty(self.num_edges, dtype=np.int64)
        for edges in self.role_edges:
            local[edges] = np.arange(len(edges))
        return local

    @cached_property
    def own_parent_edge(self) -> np.ndarray:
        """For each node, the actor's own previous action (the edge into the node's parent), -1 if none."""
        parent_node = np.where(self.node_parent_edge >= 0, self.edge_node[self.node_parent_edge], -1)
        return np.where(parent_node >= 0, self.node_parent_edge[np.maximum(parent_node, 0)], -1)

    def actions(self, node: int) -> list[Action]:
        """The actions of ``node``'s edges, in edge order."""
        edges = self.edge_bid[self.edge_start[node]:self.edge_start[node + 1]]
        return [self.bids[b] if b >= 0 else _CALLS[b] for b in edges]

    def history(self, node: int, opener_seat: int = 0) -> tuple[tuple[int, Bid], ...]:
        """The public history (seat, bid) leading to ``node`` when ``opener_seat`` opened."""
        out: list[tuple[int, Bid]] = []
        while self.node_parent_edge[node] >= 0:
            e = self.node_parent_edge[node]
            node = self.edge_node[e]
            seat = opener_seat if self.node_depth[node] % 2 == 0 else 1 - opener_seat
            out.append((seat, self.bids[self.edge_bid[e]]))
        return tuple(reversed(out))

    def hand_index(self, role: int, hands: np.ndarray) -> np.ndarray:
        """Row of ``self.hands[role]`` for each face-count row of ``hands`` (ValueError on a foreign hand)."""
        return hand_rows(hands, self.dice[role], self.config.faces)

    @cached_property
    def opener_payoff(self) -> np.ndarray:
        """(H_0, H_1, terminals) payoff to the opener (+1 keeps the die, -1 loses it), terminals in edge order.

        Under the variants (``exact_call``, ``loss="difference"``): the opener's dice change minus the responder's, as
        ``settle_round`` settles it (the opener in seat 0)."""
        term = self.terminal_edges
        bid_idx = self.edge_bid[self.node_parent_edge[self.edge_node[term]]]  # the challenged bid
        faces = np.array([b.face for b in self.bids])[bid_idx]
        quantity = np.array([b.quantity for b in self.bids])[bid_idx]
        match = match_matrix(self.config)  # hands @ match: matching dice of every face
        total = (self.hands[0] @ match)[:, None, faces - 1] + (self.hands[1] @ match)[None, :, faces - 1]
        holds = total >= quantity
        challenger_is_responder = self.edge_actor[term] == 1
        if not (self.config.exact_call or self.config.loss != "one"):
            return np.where(holds == challenger_is_responder, 1.0, -1.0)
        return self._variant_payoff(total, quantity, challenger_is_responder, self.edge_bid[term] == -2)

    def outcome_payoff(self, outcome: RoundOutcome) -> np.ndarray:
        """(H_0, H_1, terminals) the opener's value of each terminal when ``outcome`` values the round's ends."""
        term = self.terminal_edges
        bid_idx = self.edge_bid[self.node_parent_edge[self.edge_node[term]]]  # the called bid
        faces = np.array([b.face for b in self.bids])[bid_idx]
        quantity = np.array([b.quantity for b in self.bids])[bid_idx]
        match = match_matrix(self.config)
        total = (self.hands[0] @ match)[:, None, faces - 1] + (self.hands[1] @ match)[None, :, faces - 1]
        caller = np.broadcast_to(self.edge_actor[term], total.shape)
        value = outcome.challenge[caller, quantity - total + outcome.table_dice]
        if outcome.exact is not None:
            value = np.where(self.edge_bid[term] == -2, outcome.exact[caller, (total == quantity).astype(np.int64)],
                             value)
        return value

    def _variant_payoff(self, total: np.ndarray, quantity: np.ndarray, caller_is_responder: np.ndarray,
                        exact: np.ndarray) -> np.ndarray:
        """``opener_payoff`` under the variants, vectorized over hands and terminals."""
        dice, start = np.array(self.dice), np.array(self.config.starting_dice)
        holds = total >= quantity
        opener_loses = holds != caller_is_responder  # a challenge's loser: the caller iff the bid holds
        missed = np.where(holds, total - quantity + 1, quantity - total) if self.config.loss == "difference" else 1
        lost = np.minimum(missed, np.where(opener_loses, dice[0], dice[1]))
        challenge = np.where(opener_loses, -lost, lost)
        caller_dice, caller_start = np.where(caller_is_responder, dice[1], dice[0]), np.where(caller_is_responder,
                                                                                               start[1], start[0])
        right = total == quantity  # a right exact call regains a die below the starting dice; a wrong one costs one
        call = np.where(right, (caller_dice < caller_start).astype(np.float64), -1.0)
        call = np.where(caller_is_responder, -call, call)
        return np.where(exact, call, challenge).astype(np.float64)

    @cached_property
    def terminal_edges(self) -> np.ndarray:
        return np.flatnonzero(self.edge_bid < 0)

    def levels(self) -> list[tuple[int, int]]:
        """Node id ranges [a, b) of each depth, root first."""
        cuts = np.flatnonzero(np.diff(self.node_depth)) + 1
        bounds = np.concatenate([[0], cuts, [self.num_nodes]])
        return [(int(a), int(b)) for a, b in pairwise(bounds)]


_CALLS: dict[int, Action] = {-1: CHALLENGE, -2: EXACT}  # the calls' edge_bid codes


def round_dice(config: GameConfig, dice: tuple[int, int] | None) -> tuple[int, int]:
    """Validate ``(opener's dice, responder's dice)``; default: the config's starting dice."""
    if config.num_players != 2:
        raise UsageError(f"exact solvers handle two players; GameConfig.num_players is {config.num_players}")
    if config.exact_call and len(set(config.starting_dice)) != 1:
        raise UsageError("exact solvers take exact_call=True only with equal starting dice (a right exact call "
                         f"regains a die up to them); GameConfig.dice is {config.starting_dice}")
    given = tuple(config.starting_dice) if dice is None else tuple(dice)
    if len(given) != 2 or any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1 for d in given):
        raise UsageError(f"dice must be (opener's dice, responder's dice), two integers >= 1; got {given!r}")
    return int(given[0]), int(given[1])


def check_size(config: GameConfig, dice: tuple[int, int] | None = None) -> tuple[int, int]:
    """Validated ``(opener's dice, responder's dice)``; UsageError when the round's LP would exceed
    ``MAX_SEQUENCES`` (hands x public bid sequences of both players)."""
    dice = round_dice(config, dice)
    table = sum(dice)
    num_bids = table * len(config.bid_faces) if config.bids == "full" else table  # every bid (Perudo: ones too)
    nodes = 2**num_bids if config.bids == "full" else num_bids + 1
    hands = [comb(d + config.faces - 1, config.faces - 1) for d in dice]
    where = f"one round with dice {dice}, {config.faces} faces and {config.bids!r} bids has about"
    if nodes * sum(hands) > MAX_SEQUENCES:
        raise UsageError(
            f"{where} {nodes * sum(hands):,} sequences ({nodes:,} public bid sequences x {sum(hands)} hands); "
            f"the exact solver's limit is MAX_SEQUENCES = {MAX_SEQUENCES:,}"
        )
    if nodes * hands[0] * hands[1] > MAX_PAYOFF_ENTRIES:
        raise UsageError(
            f"{where} {nodes * hands[0] * hands[1]:,} payoff entries ({hands[0]} x {hands[1]} hands x "
            f"{nodes:,} challenges); the exact solver's limit is MAX_PAYOFF_ENTRIES = {MAX_PAYOFF_ENTRIES:,}"
        )
    return dice


def build_tree(config: GameConfig, dice: tuple[int, int] | None = None) -> RoundTree:
    """Enumerate the public tree of one round (``dice`` = (opener's, responder's), default the starting dice);
    UsageError when it is too large (see ``check_size``)."""
    dice = check_size(config, dice)
    table = sum(dice)
    hands = tuple(hand_support(d, config.faces) for d in dice)
    raises_after: dict[Bid | None, tuple[Action, ...]] = {}
    all_bids: dict[Bid, int] = {}
    depth, parent_edge, edge_start = [0], [-1], []
    edge_node: list[int] = []
    edge_child: list[int] = []
    edge_bid_obj: list[Action] = []
    node_index: dict[tuple[Bid, ...], int] = {(): 0}
    chains: list[tuple[Bid, ...]] = [()]
    n = 0
    while n < len(chains):  # breadth first: children are appended after every node of this depth
        chain = chains[n]
        last = chain[-1] if chain else None
        if last not in raises_after:
            raises_after[last] = legal_actions(config, table, last)
        edge_start.append(len(edge_node))
        for action in raises_after[last]:
            edge_node.append(n)
            if not isinstance(action, Bid):  # a call (challenge or exact call) ends the round
                edge_child.append(-1)
                edge_bid_obj.append(action)
                continue
            all_bids.setdefault(action, 0)
            child = chain + (action,)
            node_index[child] = len(chains)
            edge_child.append(len(chains))
            edge_bid_obj.append(action)
            chains.append(child)
            depth.append(len(child))
            parent_edge.append(len(edge_node) - 1)
        n += 1
    edge_start.append(len(edge_node))
    bids = tuple(sorted(all_bids))
    bid_pos = {b: i for i, b in enumerate(bids)}
    return RoundTree(
        config=config,
        dice=dice,
        node_depth=np.array(depth, dtype=np.int64),
        node_parent_edge=np.array(parent_edge, dtype=np.int64),
        edge_start=np.array(edge_start, dtype=np.int64),
        edge_node=np.array(edge_node, dtype=np.int64),
        edge_child=np.array(edge_child, dtype=np.int64),
        edge_bid=np.array([bid_pos[b] if isinstance(b, Bid) else -1 if b is CHALLENGE else -2 for b in edge_bid_obj],
                          dtype=np.int64),
        bids=bids,
        hands=(hands[0][0].astype(np.int64), hands[1][0].astype(np.int64)),
        hand_probs=(hands[0][1], hands[1][1]),
        node_index=node_index,
    )
