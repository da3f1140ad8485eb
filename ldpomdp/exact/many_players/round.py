"""One round of two to six seats: its information sets (``NRound``), payoffs, public tree and count convolutions.

A seat's information set is its seat (from the round's opener), its own hand and the round's last ``k`` bids
(``n_round``). ``RoundPayoff`` values every way a round ends for every seat; the public tree of bids
(``public_tree``, up to ``MAX_PUBLIC_NODES`` nodes) and the convolutions of the seats' count distributions
(``call_values``) serve the exact solvers of ``ldpomdp.exact.many_players.round_cfr``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...errors import UsageError
from ...hands import solver_hand_rows, solver_hands
from ...rules import Action, Bid, GameConfig, legal_actions, match_matrix

__all__ = ["RoundPayoff", "loser_values", "NRound", "n_round", "PublicTree", "public_tree", "public_tree_size",
           "count_distribution", "convolve", "call_values", "by_own_count", "draw_hands", "MAX_PUBLIC_NODES"]

MAX_PUBLIC_NODES = 2_000_000  # PublicTreeCFR refuses a round whose public tree of bids is larger


def loser_values(seats: int) -> np.ndarray:
    """The default ``values[loser, seat]``: -1 to the seat that loses a die, +1/(seats - 1) to each other seat."""
    return np.where(np.eye(seats, dtype=bool), -1.0, 1.0 / (seats - 1))


@dataclass(frozen=True)
class RoundPayoff:
    """Each seat's value of every way a round with ``table_dice`` dice ends.

    ``challenge[i, c, m + table_dice]`` to seat i when seat c challenges a bid whose quantity exceeds the matching dice
    by m (m <= 0: the bid holds), and ``exact[i, c, right]`` when seat c calls exact (None: no exact call). Seats count
    from the round's opener."""

    challenge: np.ndarray  # (seats, seats, 2 * table_dice + 1)
    exact: np.ndarray | None  # (seats, seats, 2)
    table_dice: int

    def __post_init__(self) -> None:
        n = len(self.challenge)
        shapes = [(self.challenge, (n, n, 2 * self.table_dice + 1))]
        shapes += [(self.exact, (n, n, 2))] if self.exact is not None else []
        for array, shape in shapes:
            if np.shape(array) != shape or not np.all(np.isfinite(array)):
                raise ValueError(f"payoff arrays must be finite of shape {shape}, got shape {np.shape(array)}")

    @classmethod
    def from_slots(cls, worth: np.ndarray, table_dice: int) -> RoundPayoff:
        """The payoff whose ends, in ``seat_slots``' order, are worth ``worth[slot, seat]`` (the exact call's 2 x seats
        slots last, if it has them)."""
        worth = np.asarray(worth, dtype=np.float64)
        n, width = worth.shape[1], 2 * table_dice + 1
        challenge = worth[:n * width].T.reshape(n, n, width)
        exact = worth[n * width:].T.reshape(n, n, 2) if len(worth) > n * width else None
        return cls(np.ascontiguousarray(challenge), None if exact is None else np.ascontiguousarray(exact), table_dice)

    def by_slot(self) -> np.ndarray:
        """(seats, slots) each seat's value of every end in ``seat_slots``' order."""
        n = len(self.challenge)
        parts = [self.challenge.reshape(n, -1)] + ([self.exact.reshape(n, -1)] if self.exact is not None else [])
        return np.concatenate(parts, axis=1)

    @classmethod
    def by_loser(cls, values: np.ndarray, table_dice: int, exact_call: bool = False) -> RoundPayoff:
        """The payoff when the round's loser loses one die and seat i then gets ``values[loser, i]``.

        The challenged bid is the previous seat's; a wrong exact call costs the caller, a right one is worth 0 to every
        seat."""
        values = np.asarray(values, dtype=np.float64)
        n = len(values)
        missing = np.arange(-table_dice, table_dice + 1)
        caller = np.arange(n)[:, None]
        loser = np.where(missing[None, :] <= 0, caller, (caller - 1) % n)  # (caller, m)
        challenge = values[loser].transpose(2, 0, 1)  # (seat, caller, m)
        exact = None
        if exact_call:
            exact = np.stack([values[np.arange(n)].T, np.zeros((n, n))], axis=2)  # [seat, caller, right]
        return cls(challenge, exact, int(table_dice))


@dataclass(frozen=True)
class NRound:
    """The information sets of a round with ``dice`` per seat (in turn order from the opener) and recall ``k``.

    ``keys[s] = (seat, last k bids)``. Seat a's actions at s are the legal raises over the last bid (in
    ``legal_actions``' order), then the calls when a bid stands: columns ``edge_start[s]`` on of seat a's (hands,
    ``edges``) arrays."""

    config: GameConfig
    dice: tuple[int, ...]
    k: int
    keys: tuple[tuple[int, tuple[Bid, ...]], ...]
    index: dict  # key -> information set

    @property
    def seats(self) -> int:
        return len(self.dice)

    @property
    def table_dice(self) -> int:
        return sum(self.dice)

    def actions(self, s: int) -> tuple[Action, ...]:
        """Information set s's actions in column order."""
        window = self.keys[s][1]
        return legal_actions(self.config, self.table_dice, window[-1] if window else None)

    @cached_property
    def widths(self) -> np.ndarray:
        return np.array([len(self.actions(s)) for s in range(len(self.keys))], dtype=np.int64)

    @cached_property
    def seat_sets(self) -> tuple[np.ndarray, ...]:
        """Per seat, its information sets in the order of its columns."""
        actor = np.array([key[0] for key in self.keys], dtype=np.int64)
        return tuple(np.flatnonzero(actor == a) for a in range(self.seats))

    @cached_property
    def edge_start(self) -> np.ndarray:
        """Column of each information set's first action among its seat's columns."""
        start = np.zeros(len(self.keys), dtype=np.int64)
        for sets in self.seat_sets:
            start[sets] = np.cumsum(self.widths[sets]) - self.widths[sets]
        return start

    @property
    def edges(self) -> tuple[int, ...]:
        """Columns (actions over all information sets) of each seat."""
        return tuple(int(self.widths[sets].sum()) for sets in self.seat_sets)

    @cached_property
    def hands(self) -> tuple[np.ndarray, ...]:
        """Per seat, the hands the solver tells apart (``solver_hands``)."""
        return tuple(solver_hands(d, self.config)[0] for d in self.dice)

    @cached_property
    def priors(self) -> tuple[np.ndarray, ...]:
        return tuple(solver_hands(d, self.config)[1] for d in self.dice)

    def hand_rows(self, seat: int, hands: np.ndarray) -> np.ndarray:
        """Row of ``self.hands[seat]`` for each face-count row of ``hands`` (ValueError on a foreign hand)."""
        return solver_hand_rows(hands, self.dice[seat], self.config)

    @cached_property
    def matches(self) -> tuple[np.ndarray, ...]:
        """Per seat, (hands, faces) its dice matching each face (wild dice count)."""
        return tuple(h.astype(np.int64) @ match_matrix(self.config) for h in self.hands)

    def memory_bytes(self) -> int:
        """Bytes of the solver's regrets and strategy sums (float64) over every seat's hands and columns."""
        return 16 * sum(len(h) * e for h, e in zip(self.hands, self.edges, strict=True))


def n_round(config: GameConfig, dice: Sequence[int], k: int) -> NRound:
    """Every information set of a round with ``dice`` per seat (turn order from the opener) and recall ``k`` >= 1
    under the round's rules ``config``."""
    dice = tuple(int(d) for d in dice)
    if not 2 <= len(dice) <= 6 or min(dice) < 1:
        raise ValueError(f"a round needs 2 to 6 seats with at least 1 die each, got dice {dice}")
    if k < 1:
        raise ValueError(f"recall k must be >= 1 bid, got {k!r}")
    table = sum(dice)
    keys: list[tuple[int, tuple[Bid, ...]]] = [(0, ())]
    index = {keys[0]: 0}
    pos = 0
    while pos < len(keys):  # breadth first
        actor, window = keys[pos]
        pos += 1
        for action in legal_actions(config, table, window[-1] if window else None):
            if isinstance(action, Bid):
                child = ((actor + 1) % len(dice), (window + (action,))[-k:])
                if child not in index:
                    index[child] = len(keys)
                    keys.append(child)
    return NRound(config, dice, int(k), tuple(keys), index)

@dataclass(frozen=True)
class PublicTree:
    """Every bid sequence of a round, breadth first (node 0 the root, no bid).

    Per node: ``parent``, the ``infoset`` its actor acts in, the ``edge`` (column of the parent's actor) that led to it,
    the last bid's ``quantity`` and ``face``; ``levels[d]`` the nodes after d bids, where seat d % seats acts."""

    parent: np.ndarray
    infoset: np.ndarray
    edge: np.ndarray
    quantity: np.ndarray
    face: np.ndarray
    levels: tuple[np.ndarray, ...]

    @property
    def size(self) -> int:
        return len(self.parent)


def public_tree_size(config: GameConfig, table_dice: int) -> int:
    """Nodes of the public tree of bids of a round with ``table_dice`` dice (the bid sequences, the empty one too)."""
    below: dict[Bid | None, int] = {}

    def size(bid: Bid | None) -> int:  # the nodes of the subtree after ``bid``, which depends on nothing else
        if bid not in below:
            below[bid] = 1 + sum(size(a) for a in legal_actions(config, table_dice, bid) if isinstance(a, Bid))
        return below[bid]

    return size(None)


def public_tree(r: NRound) -> PublicTree:
    """The public tree of the round ``r``; UsageError above ``MAX_PUBLIC_NODES`` nodes."""
    nodes = public_tree_size(r.config, r.table_dice)
    if nodes > MAX_PUBLIC_NODES:
        raise UsageError(f"the round with dice {r.dice} has {nodes:,} bid sequences, more than {MAX_PUBLIC_NODES:,}; "
                         f"the full-width round solver takes tiny rounds only")
    parent, infoset, edge, quantity, face, depth = [-1], [0], [-1], [0], [0], [0]
    windows: list[tuple[Bid, ...]] = [()]
    pos = 0
    while pos < len(parent):
        s, window = infoset[pos], windows[pos]
        for j, action in enumerate(r.actions(s)):
            if not isinstance(action, Bid):
                continue
            child = (window + (action,))[-r.k:]
            parent.append(pos)
            infoset.append(r.index[((depth[pos] + 1) % r.seats, child)])
            edge.append(int(r.edge_start[s]) + j)
            quantity.append(action.quantity)
            face.append(action.face)
            depth.append(depth[pos] + 1)
            windows.append(child)
        pos += 1
    d = np.array(depth)
    levels = tuple(np.flatnonzero(d == level) for level in range(int(d.max()) + 1))
    return PublicTree(np.array(parent, dtype=np.int64), np.array(infoset, dtype=np.int64),
                      np.array(edge, dtype=np.int64), np.array(quantity), np.array(face), levels)


def count_distribution(weights: np.ndarray, counts: np.ndarray, most: int) -> np.ndarray:
    """(nodes, most + 1): per row of ``weights`` (nodes, hands), the total weight of the hands with c matching dice,
    c = 0..most; ``counts`` (nodes, hands) each hand's matching dice at that node."""
    return np.stack([np.where(counts == c, weights, 0.0).sum(axis=1) for c in range(most + 1)], axis=1)


def convolve(distributions: Sequence[np.ndarray]) -> np.ndarray:
    """Row by row, the distribution of the sum of independent counts given as (nodes, values) arrays."""
    out = distributions[0]
    for d in distributions[1:]:
        wide = np.zeros((len(out), out.shape[1] + d.shape[1] - 1))
        for c in range(d.shape[1]):
            wide[:, c:c + out.shape[1]] += out * d[:, c:c + 1]
        out = wide
    return out


def call_values(own_counts: np.ndarray, others: Sequence[tuple[np.ndarray, np.ndarray]],
                pay_total: np.ndarray) -> np.ndarray:
    """(nodes, hands) a seat's counterfactual value of a call per own hand.

    ``own_counts`` (nodes, hands) its matching dice; ``others``, per other seat, (reach x prior, matching dice), each
    (nodes, that seat's hands); ``pay_total`` (nodes, table dice + 1) the seat's value when t dice match. The others
    enter only by the convolution of their count distributions."""
    total = convolve([count_distribution(w, c, int(c.max(initial=0))) for w, c in others])
    most = int(own_counts.max(initial=0))
    if pay_total.shape[1] < most + total.shape[1]:
        raise ValueError(f"pay_total has {pay_total.shape[1]} totals; the hands can match up to "
                         f"{most + total.shape[1] - 1}")
    return np.take_along_axis(by_own_count(total, pay_total, most), own_counts, axis=1)


def by_own_count(total: np.ndarray, pay_total: np.ndarray, most: int) -> np.ndarray:
    """(nodes, most + 1) a seat's value of a call with m matching dice, m = 0..most.

    The others' count distribution ``total`` (nodes, S) against ``pay_total`` (nodes, >= most + S), sum_s total[:, s]
    pay_total[:, m + s]."""
    windows = np.lib.stride_tricks.sliding_window_view(pay_total, total.shape[1], axis=1)[:, :most + 1]
    return np.einsum("qs,qms->qm", total, windows)

def draw_hands(r: NRound, seats: Sequence[int], samples: int, rng: np.random.Generator) -> np.ndarray:
    """(all seats, samples) hands (rows of ``r.hands``) drawn from each of ``seats``' prior, seat by seat; the
    other seats' rows are 0."""
    rows = np.zeros((r.seats, samples), dtype=np.int64)
    for j in seats:
        rows[j] = rng.choice(len(r.hands[j]), size=samples, p=r.priors[j])
    return rows
