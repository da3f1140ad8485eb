"""CFR+ on one two-player round's abstraction (``RoundCFR``), its calls valued by a ``RoundOutcome``.

``RoundCFR`` runs CFR+ full width over the abstract states (one batched matrix product per block of states sharing their
children), or with ``opponent_samples`` opponent hands per update above ``MAX_FULL_WIDTH_CELLS``. A challenge is valued
by ``outcome[loser, challenger]`` (or a whole ``RoundOutcome``), so ``solve_game`` chains the rounds by the game values
of the dice states they lead to. The algorithm and its measurements: the Exact solvers page.
"""

from __future__ import annotations

import numpy as np

from ...rules import GameConfig
from ..cfr import RoundSolver, regret_matching
from .abstraction import abstract_round
from .states import RoundOutcome

__all__ = ["RoundCFR", "one_round_outcome", "MAX_FULL_WIDTH_CELLS", "VALUE_DTYPE"]

VALUE_DTYPE = np.float32  # the backward pass's values (regrets and strategy sums stay float64)
MAX_FULL_WIDTH_CELLS = 300_000_000  # states x hand pairs kept as values (1.2 GB); above it, sample opponents

def one_round_outcome() -> np.ndarray:
    """``outcome[loser, challenger]`` of the one-round game: +1 to the opener when the responder loses."""
    return np.array([[-1.0, -1.0], [1.0, 1.0]])

def _merge(children: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How to add a group's rows (state, raise) into their children: sorting order, children, starts.

    The children repeat when the recall drops the oldest bid. Returned as (row order sorting them by child, the distinct
    children, the start of each child's rows)."""
    flat = children.ravel()
    order = np.argsort(flat, kind="stable")
    targets, starts = np.unique(flat[order], return_index=True)
    return order, targets, starts


class RoundCFR(RoundSolver):
    """CFR+ on one abstract round: ``outcome`` (a ``RoundOutcome``, or today's rules' ``outcome[loser,
    challenger]``) values the calls that end it.

    ``regrets[r]`` (kept >= 0, as CFR+ does) and ``strategy_sums[r]`` are (H_r, role r's actions) arrays;
    ``iteration`` counts completed iterations. Full width over hand pairs when ``states x H_0 x H_1 <=
    MAX_FULL_WIDTH_CELLS``, else each update draws ``opponent_samples`` (default 16) opponent hands from the prior,
    seeded by ``seed``, dice and iteration.
    """

    def __init__(self, config: GameConfig, dice: tuple[int, int], k: int, outcome: RoundOutcome | np.ndarray,
                 opponent_samples: int | None = None, seed: int = 0):
        self.round = abstract_round(config, (int(dice[0]), int(dice[1])), k)
        r = self.round
        self.outcome = RoundOutcome.of(outcome, sum(r.dice))
        if self.outcome.table_dice != sum(r.dice) or (self.outcome.exact is None) == r.config.exact_call:
            raise ValueError(f"the outcome is for {self.outcome.table_dice} dice "
                             f"{'with' if self.outcome.exact is not None else 'without'} the exact call; the round has "
                             f"{sum(r.dice)} dice {'with' if r.config.exact_call else 'without'} it")
        cells = r.num_states * len(r.hands[0]) * len(r.hands[1])
        self.opponent_samples = None if cells <= MAX_FULL_WIDTH_CELLS else opponent_samples or 16
        self.regrets = [np.zeros((len(r.hands[p]), r.role_edges[p])) for p in (0, 1)]
        self.strategy_sums = [np.zeros_like(x) for x in self.regrets]
        self.iteration = 0
        self.seed = int(seed)  # iteration t draws from default_rng((seed, opener's dice, responder's dice, t))
        self._widths = [np.array([r.num_actions(s) for s in r.role_states[p]], dtype=np.int64) for p in (0, 1)]
        self._columns = [np.repeat(np.arange(len(w)), w) for w in self._widths]  # each action column's state
        self._merges = [_merge(children) for *_, children in r.groups]
        self._values_buffer: np.ndarray | None = None

    def current_strategy(self) -> list[np.ndarray]:
        return [regret_matching(self.regrets[p], self._widths[p]) for p in (0, 1)]  # kept >= 0 by run

    def average_strategy(self) -> list[np.ndarray]:
        """The average strategies (the equilibrium approximation), per role (H_r, actions)."""
        return [regret_matching(self.strategy_sums[p], self._widths[p]) for p in (0, 1)]

    def _reaches(self, strategy: list[np.ndarray]) -> list[np.ndarray]:
        """Per role, (states, H_r) own reach: the sum over bid paths of the role's own action probabilities."""
        r = self.round
        reach = [np.zeros((r.num_states, len(r.hands[p]))) for p in (0, 1)]
        reach[0][0] = reach[1][0] = 1.0
        for (lo, hi, a, last, children), (order, targets, starts) in zip(r.groups, self._merges, strict=True):
            if not children.size:
                continue
            e, g, raises = r.edge_start[lo], hi - lo, children.shape[1]
            width = raises + len(r.calls) * (last >= 0)
            sigma = strategy[a][:, e:e + g * width].reshape(-1, g, width)
            own = (reach[a][lo:hi].T[:, :, None] * sigma[:, :, :raises]).reshape(-1, g * raises).T
            other = np.repeat(reach[1 - a][lo:hi], raises, axis=0)
            reach[a][targets] += np.add.reduceat(own[order], starts, axis=0)
            reach[1 - a][targets] += np.add.reduceat(other[order], starts, axis=0)
        return reach

    def _terminals(self, last: int, caller: int, updater: int, opp: np.ndarray) -> list[np.ndarray]:
        """Per call (``AbstractRound.calls``), (H_updater, len(opp)) updater's value of that call of bid ``last``
        by role ``caller``."""
        r = self.round
        bid = r.bids[last]
        total = r.matches[updater][:, bid.face - 1][:, None] + r.matches[1 - updater][opp, bid.face - 1][None, :]
        values = [self.outcome.challenge[caller][bid.quantity - total + self.outcome.table_dice]]
        if self.outcome.exact is not None:
            values.append(self.outcome.exact[caller][(total == bid.quantity).astype(np.int64)])
        return [(v if updater == 0 else -v).astype(VALUE_DTYPE) for v in values]

    def _values(self, strategy: list[np.ndarray], updater: int, opp: np.ndarray, opp_weight: np.ndarray,
                reach_opp: np.ndarray | None, regrets: np.ndarray | None) -> np.ndarray:
        """Backward pass: (H_updater, states, len(opp)) updater's values, in a buffer the next pass overwrites.

        When ``regrets`` is given, add the updater's instantaneous counterfactual regrets (opponent reach ``reach_opp``
        x ``opp_weight``).

        The states of a block share their actions' values (the raises' children, then the calls' terminals), so
        each block is one batched matrix product (BLAS, ``VALUE_DTYPE``): over the updater's hands where the
        updater acts, over the opponent's where it does not.
        """
        r = self.round
        hands = len(r.hands[updater])
        values = self._buffer((hands, r.num_states, len(opp)))
        for lo, hi, actor, last, children in reversed(r.blocks):
            raises, width, e = len(children), len(children) + len(r.calls) * (last >= 0), r.edge_start[lo]
            sigma64 = strategy[actor][:, e:e + (hi - lo) * width].reshape(-1, hi - lo, width)  # (H_a, states, actions)
            terminals = self._terminals(last, actor, updater, opp) if last >= 0 else []
            if actor != updater:
                below = np.empty((len(opp), width, hands), dtype=VALUE_DTYPE)  # (opp, actions, H_u)
                below[:, :raises, :] = values[:, children, :].transpose(2, 1, 0)
                for i, terminal in enumerate(terminals):
                    below[:, raises + i, :] = terminal.T
                values[:, lo:hi, :] = np.matmul(sigma64[opp].astype(VALUE_DTYPE), below).transpose(2, 1, 0)
                continue
            below = np.empty((hands, width, len(opp)), dtype=VALUE_DTYPE)  # (H_u, actions, opp)
            below[:, :raises, :] = values[:, children, :]
            for i, terminal in enumerate(terminals):
                below[:, raises + i, :] = terminal
            np.matmul(sigma64.astype(VALUE_DTYPE), below, out=values[:, lo:hi, :])
            if regrets is None or reach_opp is None:
                continue
            w = (reach_opp[lo:hi][:, opp] * opp_weight[None, :]).astype(VALUE_DTYPE)  # (states, opp)
            q = (below.reshape(-1, len(opp)) @ w.T).reshape(hands, width, hi - lo).transpose(0, 2, 1).astype(np.float64)
            regrets[:, e:e + (hi - lo) * width] += (q - (sigma64 * q).sum(axis=2, keepdims=True)).reshape(hands, -1)
        return values

    def _buffer(self, shape: tuple[int, int, int]) -> np.ndarray:
        """A values array of ``shape`` over one flat buffer kept between passes.

        Every cell is written before it is read; the buffer grows to the largest shape asked for and is not reallocated
        when the two roles' shapes alternate."""
        size = shape[0] * shape[1] * shape[2]
        if self._values_buffer is None or self._values_buffer.size < size:
            self._values_buffer = None  # free the old one first
            self._values_buffer = np.empty(size, dtype=VALUE_DTYPE)
        return self._values_buffer[:size].reshape(shape)

    def _opponents(self, updater: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        probs = self.round.hand_probs[1 - updater]
        if self.opponent_samples is None:
            return np.arange(len(probs)), probs
        drawn = rng.choice(len(probs), size=self.opponent_samples, p=probs)
        return drawn, np.full(self.opponent_samples, 1.0 / self.opponent_samples)

    def run(self, iterations: int) -> None:
        """``iterations`` more CFR+ iterations (each updates the opener, then the responder); the round's largest
        arrays (the current strategies, t x reach x strategy) live in buffers kept across the iterations."""
        strategy = self.current_strategy()  # each iteration leaves the next one's current strategies here
        weighted_buffer = np.empty(max(x.size for x in self.regrets))
        for _ in range(iterations):
            t = self.iteration + 1
            rng = np.random.default_rng((self.seed, *self.round.dice, t))
            for updater in (0, 1):
                reach = self._reaches(strategy)
                opp, weight = self._opponents(updater, rng)
                self._values(strategy, updater, opp, weight, reach[1 - updater], self.regrets[updater])
                np.maximum(self.regrets[updater], 0.0, out=self.regrets[updater])
                own = reach[updater][self.round.role_states[updater]]  # (states of updater, H)
                weighted = weighted_buffer[:self.regrets[updater].size].reshape(self.regrets[updater].shape)
                np.take(own.T, self._columns[updater], axis=1, out=weighted, mode="clip")  # reach per action
                weighted *= t  # t x reach x strategy, in place
                weighted *= strategy[updater]
                self.strategy_sums[updater] += weighted
                regret_matching(self.regrets[updater], self._widths[updater], out=strategy[updater])
            self.iteration = t

    def value(self, strategy: list[np.ndarray] | None = None, outcome: RoundOutcome | None = None) -> float:
        """The opener's expected value under ``strategy`` (default the average strategies).

        The round's ends are valued by ``outcome`` (default the solver's); computed full width (in chunks of responder
        hands when the pairs do not fit)."""
        strategy = self.average_strategy() if strategy is None else strategy
        if outcome is not None:
            solved, self.outcome = self.outcome, outcome
            try:
                return self.value(strategy)
            finally:
                self.outcome = solved
        r = self.round
        chunk = max(1, MAX_FULL_WIDTH_CELLS // (r.num_states * len(r.hands[0])))  # responder hands per pass
        total = 0.0
        for first in range(0, len(r.hands[1]), chunk):
            opp = np.arange(first, min(first + chunk, len(r.hands[1])))
            values = self._values(strategy, 0, opp, r.hand_probs[1][opp], None, None)
            total += float(r.hand_probs[0] @ values[:, 0, :].astype(np.float64) @ r.hand_probs[1][opp])
        return total

    def state_dict(self) -> dict[str, np.ndarray]:
        return {"regrets0": self.regrets[0], "regrets1": self.regrets[1], "sums0": self.strategy_sums[0],
                "sums1": self.strategy_sums[1], "iteration": np.array(self.iteration)}

    def load_state(self, data: dict) -> None:
        self.regrets = [np.array(data["regrets0"]), np.array(data["regrets1"])]
        self.strategy_sums = [np.array(data["sums0"]), np.array(data["sums1"])]
        self.iteration = int(data["iteration"])
