"""CFR+ on one round of two to six seats on the last-bids abstraction.

A seat's information set is its seat (from the round's opener), its own hand and the round's last ``k`` bids.
:class:`NRoundCFR` runs CFR+ over the information sets (a DAG), the other seats' hands as joint tuples, sampled when
many: the blueprint's solver. :class:`PublicTreeCFR`, the reference, runs vector CFR+ over the round's public tree of
bids, each seat's reach a vector over its own hands, a call valued by convolving the other seats' count
distributions (:func:`call_values`): exact, but the tree has up to 2 ** bids nodes, so tiny rounds only. The
method and its measurements: the Exact solvers page, "Three to six players: the blueprint"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..hands import solver_hand_rows, solver_hands
from ..rules import CHALLENGE, EXACT, Action, Bid, GameConfig, legal_actions, match_matrix
from .equilibrium import _regret_matching

__all__ = ["RoundPayoff", "loser_values", "NRound", "n_round", "PublicTree", "PublicTreeCFR", "NRoundCFR",
           "LineRoundCFR", "count_distribution",
           "convolve", "call_values", "public_tree_size", "draw_hands", "MAX_PUBLIC_NODES"]

MAX_PUBLIC_NODES = 2_000_000  # PublicTreeCFR refuses a round whose public tree of bids is larger


def loser_values(seats: int) -> np.ndarray:
    """The default ``values[loser, seat]``: -1 to the seat that loses a die, +1/(seats - 1) to each other seat."""
    return np.where(np.eye(seats, dtype=bool), -1.0, 1.0 / (seats - 1))


@dataclass(frozen=True)
class RoundPayoff:
    """Each seat's value of every way a round with ``table_dice`` dice ends: ``challenge[i, c, m + table_dice]`` to
    seat i when seat c challenges a bid whose quantity exceeds the matching dice by m (m <= 0: the bid holds), and
    ``exact[i, c, right]`` when seat c calls exact (None: no exact call). Seats count from the round's opener."""

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
        """The payoff whose ends, in :func:`~ldpomdp.exact.table_states.table_slots`' order, are worth ``worth[slot,
        seat]`` (the exact call's 2 x seats slots last, if it has them)."""
        worth = np.asarray(worth, dtype=np.float64)
        n, width = worth.shape[1], 2 * table_dice + 1
        challenge = worth[:n * width].T.reshape(n, n, width)
        exact = worth[n * width:].T.reshape(n, n, 2) if len(worth) > n * width else None
        return cls(np.ascontiguousarray(challenge), None if exact is None else np.ascontiguousarray(exact), table_dice)

    def by_slot(self) -> np.ndarray:
        """(seats, slots) each seat's value of every end in :func:`~ldpomdp.exact.table_states.table_slots`' order."""
        n = len(self.challenge)
        parts = [self.challenge.reshape(n, -1)] + ([self.exact.reshape(n, -1)] if self.exact is not None else [])
        return np.concatenate(parts, axis=1)

    @classmethod
    def by_loser(cls, values: np.ndarray, table_dice: int, exact_call: bool = False) -> RoundPayoff:
        """The payoff when the round's loser loses one die and seat i then gets ``values[loser, i]``; the challenged
        bid is the previous seat's; a wrong exact call costs the caller, a right one is worth 0 to every seat."""
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
    """The information sets of a round with ``dice`` per seat (in turn order from the opener) and recall ``k``:
    ``keys[s] = (seat, last k bids)``. Seat a's actions at s are the legal raises over the last bid (in
    :func:`~ldpomdp.rules.legal_actions`' order), then the calls when a bid stands: columns ``edge_start[s]`` on of
    seat a's (hands, :attr:`edges`) arrays."""

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
        """Per seat, the hands the solver tells apart (:func:`~ldpomdp.hands.solver_hands`)."""
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


def _round_payoff(r: NRound, payoff: RoundPayoff | None) -> RoundPayoff:
    """``payoff``, or the default :func:`loser_values` payoff, checked against the round ``r``."""
    payoff = payoff or RoundPayoff.by_loser(loser_values(r.seats), r.table_dice, r.config.exact_call)
    if len(payoff.challenge) != r.seats or payoff.table_dice != r.table_dice or (
            (payoff.exact is None) == r.config.exact_call):
        raise ValueError(f"the payoff is for {len(payoff.challenge)} seats and {payoff.table_dice} dice "
                         f"{'with' if payoff.exact is not None else 'without'} the exact call; the round has "
                         f"{r.seats} seats, {r.table_dice} dice, exact call {r.config.exact_call}")
    return payoff


@dataclass(frozen=True)
class PublicTree:
    """Every bid sequence of a round, breadth first (node 0 the root, no bid): ``parent``, the ``infoset`` its actor
    acts in, the ``edge`` (column of the parent's actor) that led to it, the last bid's ``quantity`` and ``face``;
    ``levels[d]`` the nodes after d bids, where seat d % seats acts."""

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


def _public_tree(r: NRound) -> PublicTree:
    """The public tree of the round ``r``; ValueError above :data:`MAX_PUBLIC_NODES` nodes."""
    nodes = public_tree_size(r.config, r.table_dice)
    if nodes > MAX_PUBLIC_NODES:
        raise ValueError(f"the round with dice {r.dice} has {nodes:,} bid sequences, more than {MAX_PUBLIC_NODES:,}; "
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
    """(nodes, hands) a seat's counterfactual value of a call per own hand: ``own_counts`` (nodes, hands) its
    matching dice; ``others``, per other seat, (reach x prior, matching dice), each (nodes, that seat's hands);
    ``pay_total`` (nodes, table dice + 1) the seat's value when t dice match. The others enter only by the
    convolution of their count distributions."""
    total = convolve([count_distribution(w, c, int(c.max(initial=0))) for w, c in others])
    most = int(own_counts.max(initial=0))
    if pay_total.shape[1] < most + total.shape[1]:
        raise ValueError(f"pay_total has {pay_total.shape[1]} totals; the hands can match up to "
                         f"{most + total.shape[1] - 1}")
    return np.take_along_axis(_by_own_count(total, pay_total, most), own_counts, axis=1)


def _by_own_count(total: np.ndarray, pay_total: np.ndarray, most: int) -> np.ndarray:
    """(nodes, most + 1) a seat's value of a call with m matching dice, m = 0..most: the others' count distribution
    ``total`` (nodes, S) against ``pay_total`` (nodes, >= most + S), sum_s total[:, s] pay_total[:, m + s]."""
    windows = np.lib.stride_tricks.sliding_window_view(pay_total, total.shape[1], axis=1)[:, :most + 1]
    return np.einsum("qs,qms->qm", total, windows)


class _RoundSolver:
    """What the round solvers share: the round ``n_round(config, dice, k)``, its checked ``payoff``, and per seat
    ``regrets[i]`` (kept >= 0) and ``strategy_sums[i]``, (seat i's hands, seat i's columns)."""

    def __init__(self, config: GameConfig, dice: Sequence[int], k: int, payoff: RoundPayoff | None):
        self.round = n_round(config, dice, k)
        r = self.round
        self.payoff = _round_payoff(r, payoff)
        self.regrets = [np.zeros((len(h), e)) for h, e in zip(r.hands, r.edges, strict=True)]
        self.strategy_sums = [np.zeros_like(x) for x in self.regrets]
        self.iteration = 0
        self._widths = [r.widths[sets] for sets in r.seat_sets]

    def current_strategy(self) -> list[np.ndarray]:
        return [_regret_matching(np.maximum(x, 0.0), w) for x, w in zip(self.regrets, self._widths, strict=True)]

    def average_strategy(self) -> list[np.ndarray]:
        """The average strategies, per seat (hands, columns)."""
        return [_regret_matching(x, w) for x, w in zip(self.strategy_sums, self._widths, strict=True)]

    def _step(self, seat: int, delta: np.ndarray, t: int, reach: np.ndarray, strategy: np.ndarray) -> np.ndarray:
        """CFR+ for one seat: add its regrets ``delta`` (then clip at 0) and t x its ``reach`` (its information
        sets, hands) x ``strategy`` to its sums; its next strategy."""
        self.regrets[seat] = np.maximum(self.regrets[seat] + delta, 0.0)
        self.strategy_sums[seat] += t * np.repeat(reach.T, self._widths[seat], axis=1) * strategy
        return _regret_matching(self.regrets[seat], self._widths[seat])


class PublicTreeCFR(_RoundSolver):
    """CFR+ (regret matching+, linear averaging) on one abstract round, full width over the public tree of bids,
    each seat's ends valued by ``payoff`` (default :meth:`RoundPayoff.by_loser` of :func:`loser_values`).

    ``regrets[i]`` and ``strategy_sums[i]`` are (seat i's hands, seat i's columns); ``alternating``: each
    iteration updates the seats one after another, each against the others' updated strategies (as
    :class:`~ldpomdp.exact.equilibrium.RoundCFR`), else all at once against the same profile."""

    def __init__(self, config: GameConfig, dice: Sequence[int], k: int, payoff: RoundPayoff | None = None,
                 alternating: bool = True):
        super().__init__(config, dice, k, payoff)
        r = self.round
        self.tree = _public_tree(r)
        self.alternating = alternating
        self._calls = (CHALLENGE, EXACT) if config.exact_call else (CHALLENGE,)
        t = self.tree
        self._call_edge = r.edge_start[t.infoset] + r.widths[t.infoset] - len(self._calls)  # first call's column
        self._actor = np.zeros(t.size, dtype=np.int64)  # the seat acting at each node
        for d, level in enumerate(t.levels):
            self._actor[level] = d % r.seats
        self._local = np.zeros(len(r.keys), dtype=np.int64)  # information set -> its place among its seat's
        for sets in r.seat_sets:
            self._local[sets] = np.arange(len(sets))

    def _reaches(self, strategy: list[np.ndarray]) -> list[np.ndarray]:
        """Per seat, (nodes, hands) its own reach: the product of its action probabilities on the way."""
        t, n = self.tree, self.round.seats
        reach = [np.ones((t.size, len(h))) for h in self.round.hands]
        for d, level in enumerate(t.levels[1:], start=1):
            for j in range(n):
                reach[j][level] = reach[j][t.parent[level]]
            reach[(d - 1) % n][level] *= strategy[(d - 1) % n][:, t.edge[level]].T
        return reach

    def _leaves(self, strategy: list[np.ndarray], reach: list[np.ndarray], seat: int) -> list[np.ndarray]:
        """Per call, (nodes, seat's hands) the seat's counterfactual value of that call at every node with a bid."""
        r, t, p = self.round, self.tree, self.payoff
        out = [np.zeros((t.size, len(r.hands[seat]))) for _ in self._calls]
        totals = np.arange(r.table_dice + 1)
        for a in range(r.seats):
            g = np.flatnonzero((self._actor == a) & (t.parent >= 0))
            if not len(g):
                continue
            counts = [m[:, t.face[g] - 1].T for m in r.matches]
            q = t.quantity[g][:, None]
            for ci, call in enumerate(self._calls):
                others = [(reach[j][g] * r.priors[j], counts[j]) for j in range(r.seats) if j not in (seat, a)]
                if a != seat:
                    caller = strategy[a][:, self._call_edge[g] + ci].T
                    others.append((reach[a][g] * r.priors[a] * caller, counts[a]))
                if call is CHALLENGE:
                    pay = p.challenge[seat, a][q + r.table_dice - totals[None, :]]
                else:
                    assert p.exact is not None
                    pay = p.exact[seat, a][(totals[None, :] == q).astype(np.int64)]
                out[ci][g] = call_values(counts[seat], others, pay)
        return out

    def _values(self, strategy: list[np.ndarray], reach: list[np.ndarray], seat: int, best: bool = False
                ) -> tuple[np.ndarray, np.ndarray]:
        """(nodes, seat's hands) the seat's counterfactual values under ``strategy`` (``best``: its best response's,
        perfect recall), and (hands, columns) its instantaneous counterfactual regrets."""
        r, t = self.round, self.tree
        leaves = self._leaves(strategy, reach, seat)
        sigma = strategy[seat]
        v = np.zeros((t.size, len(r.hands[seat])))
        own = np.flatnonzero((self._actor == seat) & (t.parent >= 0))  # the seat's nodes with a bid standing
        others = np.flatnonzero((self._actor != seat) & (t.parent >= 0))
        calls = [self._call_edge[own] + ci for ci in range(len(self._calls))]
        for leaf in leaves:
            v[others] += leaf[others]
        if best:
            v[own] = np.max([leaf[own] for leaf in leaves], axis=0)
            if seat == 0:
                v[0] = -np.inf  # the root: the opener's best of its opening bids
        else:
            for leaf, col in zip(leaves, calls, strict=True):
                v[own] += sigma[:, col].T * leaf[own]
        for d in range(len(t.levels) - 1, 0, -1):
            level = t.levels[d]
            parents, starts = np.unique(t.parent[level], return_index=True)
            if (d - 1) % r.seats != seat:
                v[parents] += np.add.reduceat(v[level], starts, axis=0)
            elif best:
                v[parents] = np.maximum(v[parents], np.maximum.reduceat(v[level], starts, axis=0))
            else:
                v[parents] += np.add.reduceat(v[level] * sigma[:, t.edge[level]].T, starts, axis=0)
        delta = np.zeros((sigma.shape[1], sigma.shape[0]))
        if not best:
            mine = np.flatnonzero((t.parent >= 0) & (self._actor[t.parent] == seat))  # children of the seat's nodes
            np.add.at(delta, t.edge[mine], v[mine] - v[t.parent[mine]])
            for leaf, col in zip(leaves, calls, strict=True):
                np.add.at(delta, col, leaf[own] - v[own])
        return v, delta.T

    def _per_set(self, seat: int, reach: np.ndarray) -> np.ndarray:
        """(the seat's information sets, hands) its reach (nodes, hands) summed over each set's nodes."""
        r, t = self.round, self.tree
        nodes = np.flatnonzero(self._actor == seat)
        per_set = np.zeros((len(r.seat_sets[seat]), reach.shape[1]))
        np.add.at(per_set, self._local[t.infoset[nodes]], reach[nodes])
        return per_set

    def run(self, iterations: int) -> None:
        """``iterations`` more CFR+ iterations, iteration t weighing the average by t."""
        n = self.round.seats
        for _ in range(iterations):
            t = self.iteration + 1
            strategy = self.current_strategy()
            for group in ([[i] for i in range(n)] if self.alternating else [list(range(n))]):
                reach = self._reaches(strategy)
                deltas = [self._values(strategy, reach, i)[1] for i in group]
                for i, delta in zip(group, deltas, strict=True):
                    strategy[i] = self._step(i, delta, t, self._per_set(i, reach[i]), strategy[i])
            self.iteration = t

    def values(self, strategy: list[np.ndarray] | None = None) -> np.ndarray:
        """Each seat's expected value of the round under ``strategy`` (default the average strategies)."""
        strategy = self.average_strategy() if strategy is None else strategy
        reach = self._reaches(strategy)
        return np.array([self.round.priors[i] @ self._values(strategy, reach, i)[0][0]
                         for i in range(self.round.seats)])

    def gains(self, strategy: list[np.ndarray] | None = None) -> np.ndarray:
        """Per seat, what a best response (own hand and every bid so far) gains over ``strategy`` (default the
        average) against the others' ``strategy``: their sum is the profile's NashConv in the unabstracted round."""
        strategy = self.average_strategy() if strategy is None else strategy
        reach = self._reaches(strategy)
        best = np.array([self.round.priors[i] @ self._values(strategy, reach, i, best=True)[0][0]
                         for i in range(self.round.seats)])
        return best - self.values(strategy)


class NRoundCFR(_RoundSolver):
    """CFR+ (regret matching+, linear averaging, alternating updates) on one abstract round over its information
    sets: strategies that see only the last k bids make play a chain over them, so one pass over that DAG per update
    replaces the public tree. The other seats' hands enter as joint tuples: all of them when there are at most
    ``max_tuples`` (default :attr:`MAX_TUPLES`), else ``samples`` tuples drawn from the prior per update (seeded by
    ``seed``, the dice, the iteration and the seat). ``regrets[i]``, ``strategy_sums[i]``: (seat i's hands, its
    columns), as :class:`PublicTreeCFR`'s."""

    MAX_TUPLES = 64

    def __init__(self, config: GameConfig, dice: Sequence[int], k: int, payoff: RoundPayoff | None = None,
                 samples: int = 16, max_tuples: int | None = None, seed: int = 0):
        super().__init__(config, dice, k, payoff)
        self.samples, self.seed = int(samples), int(seed)
        self.max_tuples = self.MAX_TUPLES if max_tuples is None else int(max_tuples)
        self._actor = np.array([key[0] for key in self.round.keys], dtype=np.int64)
        self._children, self._order = _dag(self.round)

    def joint_hands(self, seats: Sequence[int], samples: int, rng: np.random.Generator, most: int
                    ) -> tuple[np.ndarray, np.ndarray]:
        """(all seats, T) joint hands of ``seats`` (the other seats' rows 0) and (T,) their weights: every one, by
        prior, when there are at most ``most``, else ``samples`` drawn from the prior, each weighing 1 / ``samples``."""
        r = self.round
        sizes = [len(r.hands[j]) for j in seats]
        if np.prod(sizes) <= most:
            rows = np.zeros((r.seats, int(np.prod(sizes))), dtype=np.int64)
            rows[list(seats)] = np.indices(sizes).reshape(len(sizes), -1)
            return rows, np.prod([r.priors[j][rows[j]] for j in seats], axis=0)
        return draw_hands(r, seats, samples, rng), np.full(samples, 1.0 / samples)

    def reach(self, strategy: list[np.ndarray], rows: np.ndarray, weighted: Sequence[int]) -> np.ndarray:
        """(states, columns) the sum over bid paths of the product of the ``weighted`` seats' action probabilities,
        seat j holding hand ``rows[j, c]`` in column c (the other seats' actions weigh 1)."""
        r = self.round
        reach = np.zeros((len(r.keys), rows.shape[1]))
        reach[0] = 1.0
        for x in self._order:
            kids, a = self._children[x], self._actor[x]
            if not len(kids):
                continue
            if a in weighted:
                cols = r.edge_start[x] + np.arange(len(kids))
                reach[kids] += reach[x][None, :] * strategy[a][rows[a][:, None], cols[None, :]].T
            else:
                reach[kids] += reach[x][None, :]
        return reach

    def _update(self, strategy: list[np.ndarray], seat: int, rows: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """(hands, columns) the seat's instantaneous counterfactual regrets against the joint tuples ``rows`` of the
        other seats' hands weighted by ``weight`` (backward over the DAG)."""
        r, p = self.round, self.payoff
        others = [j for j in range(r.seats) if j != seat]
        reach = self.reach(strategy, rows, others) * weight[None, :]  # (states, T) the others' reach x weight
        counts = sum(r.matches[j][rows[j]] for j in others)  # (T, faces) the other seats' matching dice
        own = r.matches[seat]  # (H, faces)
        hands = len(r.hands[seat])
        values = np.zeros((len(r.keys), hands, rows.shape[1]))
        delta = np.zeros_like(self.regrets[seat])
        for x in self._order[::-1]:
            a, kids, window = self._actor[x], self._children[x], r.keys[x][1]
            q = [values[kids]]  # (actions, H, T) the seat's value of each action
            if window:
                bid = window[-1]
                total = own[:, bid.face - 1][:, None] + counts[:, bid.face - 1][None, :]
                q.append(p.challenge[seat, a][bid.quantity - total + r.table_dice][None])
                if p.exact is not None:
                    q.append(p.exact[seat, a][(total == bid.quantity).astype(np.int64)][None])
            q_all = np.concatenate(q) if len(q) > 1 else q[0]
            cols = r.edge_start[x] + np.arange(len(q_all))
            if a == seat:
                sigma = strategy[seat][:, cols]  # (H, actions)
                values[x] = np.einsum("ha,aht->ht", sigma, q_all)
                delta[:, cols] += np.einsum("aht,t->ha", q_all - values[x][None], reach[x])
            else:
                sigma = strategy[a][rows[a][:, None], cols[None, :]]  # (T, actions)
                values[x] = np.einsum("ta,aht->ht", sigma, q_all)
        return delta

    def run(self, iterations: int) -> None:
        """``iterations`` more CFR+ iterations (the seats updated in turn), iteration t weighing the average by t."""
        r = self.round
        for _ in range(iterations):
            t = self.iteration + 1
            strategy = self.current_strategy()
            for seat in range(r.seats):
                rng = np.random.default_rng((self.seed, *r.dice, t, seat))
                others = [j for j in range(r.seats) if j != seat]
                rows, weight = self.joint_hands(others, self.samples, rng, self.max_tuples)
                delta = self._update(strategy, seat, rows, weight)
                own = np.zeros((r.seats, len(r.hands[seat])), dtype=np.int64)
                own[seat] = np.arange(len(r.hands[seat]))
                reach = self.reach(strategy, own, [seat])[r.seat_sets[seat]]  # (seat's states, H)
                strategy[seat] = self._step(seat, delta, t, reach, strategy[seat])
            self.iteration = t


class LineRoundCFR(_RoundSolver):
    """CFR+ on a round of the sixes game without the exact call, whose bids are a line (each raise adds one, so the
    last bid is the whole history): the iterates of :class:`PublicTreeCFR` (alternating updates), vectorised along
    the line. Hands are matching counts (:func:`~ldpomdp.hands.solver_hands`); the other seats enter by the
    convolution of their count distributions. ``regrets[i]``, ``strategy_sums[i]``: as :class:`NRoundCFR`'s."""

    def __init__(self, config: GameConfig, dice: Sequence[int], k: int, payoff: RoundPayoff | None = None):
        if config.bids != "sixes" or config.exact_call:
            raise ValueError(f"LineRoundCFR solves the sixes game without the exact call; got {config.describe()}")
        super().__init__(config, dice, k, payoff)
        r = self.round
        self._actor = np.array([a for a, _ in r.keys], dtype=np.int64)  # node q (q bids made) is information set q
        if [w[-1].quantity if w else 0 for _, w in r.keys] != list(range(len(r.keys))):
            raise AssertionError(f"the information sets of the sixes round {r.dice} are not its line of bids in order")
        bids = r.table_dice
        self._raise = [np.array([q for q in sets if q < bids], dtype=np.int64) for sets in r.seat_sets]
        self._call = [np.array([q for q in sets if q >= 1], dtype=np.int64) for sets in r.seat_sets]
        q, t = np.arange(1, bids + 1), np.arange(bids + 1)
        self._missing = q[:, None] - t[None, :] + bids  # (calls at q = 1..T, totals) index of what the bid missed by

    def _raises(self, strategy: list[np.ndarray]) -> list[np.ndarray]:
        """Per seat, (nodes, hands) its probability of raising at each node (1 where another seat acts)."""
        r = self.round
        out = []
        for j, sigma in enumerate(strategy):
            p = np.ones((r.table_dice + 1, len(r.hands[j])))
            p[self._call[j]] = 0.0
            p[self._raise[j]] = sigma[:, r.edge_start[self._raise[j]]].T
            out.append(p)
        return out

    def _weights(self, raises: list[np.ndarray]) -> list[np.ndarray]:
        """Per seat, (calls at q = 1..T, hands) prior x reach to node q x (the call, if it is the seat's)."""
        r, out = self.round, []
        for j, p in enumerate(raises):
            own = self._actor[1:] == j
            out.append(r.priors[j] * _line_reach(p)[1:] * np.where(own[:, None], 1.0 - p[1:], 1.0))
        return out

    def _call_values(self, seat: int, weights: list[np.ndarray]) -> np.ndarray:
        """(calls at q = 1..T, seat's hands) the seat's counterfactual value of the call at each node."""
        total = convolve([w for j, w in enumerate(weights) if j != seat])  # (T, others' dice + 1)
        pay = self.payoff.challenge[seat][self._actor[1:, None], self._missing]  # (T, totals)
        return _by_own_count(total, pay, len(self.round.hands[seat]) - 1)

    def _update(self, strategy: list[np.ndarray], seat: int) -> tuple[np.ndarray, np.ndarray]:
        """The seat's instantaneous counterfactual regrets (hands, columns) and its reach per information set."""
        r = self.round
        raises = self._raises(strategy)
        weights = self._weights(raises)
        others_call = self._call_values(seat, weights)
        own = self._actor == seat
        p = raises[seat]
        value = np.zeros_like(p)  # (nodes, hands) value of node q onwards, own actions weighed, others' in the calls
        after = np.zeros(p.shape[1])
        for q in range(r.table_dice, 0, -1):
            call = others_call[q - 1]
            after = ((1.0 - p[q]) * call + p[q] * after) if own[q] else call + after
            value[q] = after
        delta = np.zeros_like(self.regrets[seat])
        up = self._raise[seat][self._raise[seat] >= 1]
        delta[:, r.edge_start[up]] = (value[up + 1] - value[up]).T
        calls = self._call[seat]
        delta[:, r.edge_start[calls] + r.widths[calls] - 1] = (others_call[calls - 1] - value[calls]).T
        return delta, _line_reach(p)[r.seat_sets[seat]]

    def run(self, iterations: int) -> None:
        """``iterations`` more CFR+ iterations (the seats updated in turn), iteration t weighing the average by t."""
        for _ in range(iterations):
            t = self.iteration + 1
            strategy = self.current_strategy()
            for seat in range(self.round.seats):
                delta, reach = self._update(strategy, seat)
                strategy[seat] = self._step(seat, delta, t, reach, strategy[seat])
            self.iteration = t

    def end_probabilities(self, strategy: list[np.ndarray]) -> np.ndarray:
        """(slots,) the probability that the round played by ``strategy`` ends by each of
        :func:`~ldpomdp.exact.table_states.table_slots` (a seat's challenge of a bid that missed by m): exact."""
        r = self.round
        width = 2 * r.table_dice + 1
        total = convolve(self._weights(self._raises(strategy)))  # (T, totals) every seat's counts, the call weighed
        slots = self._actor[1:, None] * width + self._missing
        return np.bincount(slots.ravel(), total.ravel(), minlength=r.seats * width)


def _line_reach(raises: np.ndarray) -> np.ndarray:
    """(nodes, hands) a seat's reach of each node of a line of bids: the product of its raises before it."""
    return np.vstack([np.ones((1, raises.shape[1])), np.cumprod(raises[:-1], axis=0)])


def draw_hands(r: NRound, seats: Sequence[int], samples: int, rng: np.random.Generator) -> np.ndarray:
    """(all seats, samples) hands (rows of ``r.hands``) drawn from each of ``seats``' prior, seat by seat; the
    other seats' rows are 0."""
    rows = np.zeros((r.seats, samples), dtype=np.int64)
    for j in seats:
        rows[j] = rng.choice(len(r.hands[j]), size=samples, p=r.priors[j])
    return rows


def _dag(r: NRound) -> tuple[list[np.ndarray], np.ndarray]:
    """Per information set, the information sets its raises lead to (in column order), and a topological order."""
    children = []
    for s, (actor, window) in enumerate(r.keys):
        bids = [a for a in r.actions(s) if isinstance(a, Bid)]
        children.append(np.array([r.index[((actor + 1) % r.seats, (window + (b,))[-r.k:])] for b in bids],
                                 dtype=np.int64))
    parents = np.zeros(len(r.keys), dtype=np.int64)
    for kids in children:
        parents[kids] += 1
    order, ready = [], [0]
    while ready:  # Kahn's algorithm from the root
        x = ready.pop()
        order.append(x)
        for y in children[x]:
            parents[y] -= 1
            if parents[y] == 0:
                ready.append(int(y))
    return children, np.array(order, dtype=np.int64)
