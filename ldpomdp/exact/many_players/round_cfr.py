"""CFR+ on one round of two to six seats on the last-bids abstraction: three solvers of one interface.

``NRoundCFR`` runs CFR+ over the information sets (a DAG), the other seats' hands as joint tuples, sampled when
many: the blueprint's solver. ``PublicTreeCFR``, the reference, runs vector CFR+ over the round's public tree of
bids, each seat's reach a vector over its own hands, a call valued by convolving the other seats' count
distributions: exact, but the tree has up to 2 ** bids nodes, so tiny rounds only. ``LineRoundCFR``: the sixes
game's rounds whose bids are a line, exactly and fast. The method and its measurements: the Exact solvers page,
"Three to six players: the blueprint".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...rules import CHALLENGE, EXACT, Bid, GameConfig
from ..cfr import RoundSolver, regret_matching
from .round import (
    NRound,
    RoundPayoff,
    by_own_count,
    call_values,
    convolve,
    draw_hands,
    loser_values,
    n_round,
    public_tree,
)

__all__ = ["PublicTreeCFR", "NRoundCFR", "LineRoundCFR"]

def _round_payoff(r: NRound, payoff: RoundPayoff | None) -> RoundPayoff:
    """``payoff``, or the default ``loser_values`` payoff, checked against the round ``r``."""
    payoff = payoff or RoundPayoff.by_loser(loser_values(r.seats), r.table_dice, r.config.exact_call)
    if len(payoff.challenge) != r.seats or payoff.table_dice != r.table_dice or (
            (payoff.exact is None) == r.config.exact_call):
        raise ValueError(f"the payoff is for {len(payoff.challenge)} seats and {payoff.table_dice} dice "
                         f"{'with' if payoff.exact is not None else 'without'} the exact call; the round has "
                         f"{r.seats} seats, {r.table_dice} dice, exact call {r.config.exact_call}")
    return payoff

class _RoundSolver(RoundSolver):
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
        return [regret_matching(np.maximum(x, 0.0), w) for x, w in zip(self.regrets, self._widths, strict=True)]

    def average_strategy(self) -> list[np.ndarray]:
        """The average strategies, per seat (hands, columns)."""
        return [regret_matching(x, w) for x, w in zip(self.strategy_sums, self._widths, strict=True)]

    def _step(self, seat: int, delta: np.ndarray, t: int, reach: np.ndarray, strategy: np.ndarray) -> np.ndarray:
        """CFR+ for one seat: add its regrets ``delta`` (then clip at 0) and t x its ``reach`` (its information
        sets, hands) x ``strategy`` to its sums; its next strategy."""
        self.regrets[seat] = np.maximum(self.regrets[seat] + delta, 0.0)
        self.strategy_sums[seat] += t * np.repeat(reach.T, self._widths[seat], axis=1) * strategy
        return regret_matching(self.regrets[seat], self._widths[seat])


class PublicTreeCFR(_RoundSolver):
    """CFR+ on one abstract round, full width over the public tree of bids: the exact reference solver.

    Regret matching+, linear averaging; each seat's ends valued by ``payoff`` (default ``RoundPayoff.by_loser`` of
    ``loser_values``).

    ``regrets[i]`` and ``strategy_sums[i]`` are (seat i's hands, seat i's columns); ``alternating``: each
    iteration updates the seats one after another, each against the others' updated strategies (as
    ``RoundCFR``), else all at once against the same profile."""

    def __init__(self, config: GameConfig, dice: Sequence[int], k: int, payoff: RoundPayoff | None = None,
                 alternating: bool = True):
        super().__init__(config, dice, k, payoff)
        r = self.round
        self.tree = public_tree(r)
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
        """Per seat, what a best response (own hand and every bid so far) gains over ``strategy``.

        ``strategy`` defaults to the average; the best response plays against the others' ``strategy``. Their sum is the
        profile's NashConv in the unabstracted round."""
        strategy = self.average_strategy() if strategy is None else strategy
        reach = self._reaches(strategy)
        best = np.array([self.round.priors[i] @ self._values(strategy, reach, i, best=True)[0][0]
                         for i in range(self.round.seats)])
        return best - self.values(strategy)


class NRoundCFR(_RoundSolver):
    """CFR+ on one abstract round over its information sets (a DAG): the blueprint's round solver.

    Regret matching+, linear averaging, alternating updates. Strategies that see only the last k bids make play a chain
    over them, so one pass over that DAG per update replaces the public tree. The other seats' hands enter as joint
    tuples: all of them when there are at most ``max_tuples`` (default ``MAX_TUPLES``), else ``samples`` tuples drawn
    from the prior per update (seeded by ``seed``, the dice, the iteration and the seat). ``regrets[i]``,
    ``strategy_sums[i]``: (seat i's hands, its columns), as ``PublicTreeCFR``'s."""

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
        """(all seats, T) joint hands of ``seats`` (the other seats' rows 0) and (T,) their weights.

        Every one, by prior, when there are at most ``most``, else ``samples`` drawn from the prior, each weighing 1 /
        ``samples``."""
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
    """CFR+ on a round of the sixes game without the exact call, whose bids are a line: exact and fast.

    Each raise adds one, so the last bid is the whole history. The iterates of ``PublicTreeCFR`` (alternating updates),
    vectorised along the line. Hands are matching counts (``solver_hands``); the other seats enter by the convolution of
    their count distributions. ``regrets[i]``, ``strategy_sums[i]``: as ``NRoundCFR``'s."""

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
        return by_own_count(total, pay, len(self.round.hands[seat]) - 1)

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
        """(slots,) the probability that the round played by ``strategy`` ends by each of ``seat_slots`` (a seat's
        challenge of a bid that missed by m): exact."""
        r = self.round
        width = 2 * r.table_dice + 1
        total = convolve(self._weights(self._raises(strategy)))  # (T, totals) every seat's counts, the call weighed
        slots = self._actor[1:, None] * width + self._missing
        return np.bincount(slots.ravel(), total.ravel(), minlength=r.seats * width)


def _line_reach(raises: np.ndarray) -> np.ndarray:
    """(nodes, hands) a seat's reach of each node of a line of bids: the product of its raises before it."""
    return np.vstack([np.ones((1, raises.shape[1])), np.cumprod(raises[:-1], axis=0)])

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
