"""Approximate equilibrium of the whole two-player game by CFR+ on an imperfect-recall abstraction.

An information set is a player's own hand and role plus the round's last ``k`` bids. :class:`RoundCFR` runs CFR+
full width over the abstract states (one batched matrix product per block of states sharing their children), or
with ``opponent_samples`` opponent hands per update above :data:`MAX_FULL_WIDTH_CELLS`. A challenge is valued by
``outcome[loser, challenger]``, so :func:`solve_game` chains the rounds by the game values of the dice states they
lead to. The algorithm and its measurements: the Exact solvers page.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from ..caches import memo
from ..datafiles import load_npz, read_npz, write_npz
from ..hands import solver_hand_rows, solver_hands
from ..rules import CHALLENGE, EXACT, Action, ActionCoding, Bid, GameConfig, legal_actions, match_matrix
from .chain import (
    DiceState,
    RoundOutcome,
    canonical_state,
    chain_values,
    game_states,
    key_round,
    round_key,
    round_outcome,
    round_slots,
    successor,
)

__all__ = ["AbstractRound", "abstract_round", "RoundCFR", "one_round_outcome", "solve_game", "game_config",
           "game_iterations", "GameTable", "quantize", "QUANTUM", "recall_for", "game_rounds", "MAX_FULL_WIDTH_CELLS",
           "VALUE_DTYPE", "sweep_targets", "discard_checkpoint", "rounds_folder", "rules_key", "file_bids"]

VALUE_DTYPE = np.float32  # the backward pass's values (regrets and strategy sums stay float64)
MAX_FULL_WIDTH_CELLS = 300_000_000  # states x hand pairs kept as values (1.2 GB); above it, sample opponents


def rules_key(config: GameConfig) -> str:
    """The rules a table is solved for, as text: two configs with the same key share a table (under the exact call,
    which wins dice back up to the start, the starting dice too)."""
    key = f"faces={config.faces}|wild={config.wild}|bids={config.bids}|opener={config.opener}"
    variants = {k: v for k, v in config.variants.items() if k != "palifico_round"}
    key += "".join(f"|{name}={value}" for name, value in variants.items())
    return key + (f"|start={config.starting_dice}" if config.exact_call else "")


@dataclass(frozen=True)
class AbstractRound:
    """The abstract states of one round with ``dice`` = (opener's, responder's) and recall ``k``, under the round's
    rules ``config`` (a palifico round's: :meth:`~ldpomdp.rules.GameConfig.round_rules`).

    Bids are numbered so that every raise goes to a higher number (:attr:`bids`). States are numbered in topological
    order (by last bid, then actor, then the bids their children keep, so that states sharing children are
    contiguous: :attr:`blocks`; the root, with no bid, first). State s belongs to ``actor[s]``; its actions are the
    legal raises over ``last[s]`` (:attr:`raises`, ascending), then the calls (:attr:`calls`) when a bid stands.
    """

    config: GameConfig
    dice: tuple[int, int]
    k: int
    bids: tuple[Bid, ...]  # every bid of the round; each legal raise of bid i is a bid j > i
    raises: tuple[np.ndarray, ...]  # raises[last + 1]: the bid numbers legal over bid ``last`` (-1: the opening bids)
    actor: np.ndarray
    last: np.ndarray
    index: dict  # (actor, tuple of bid indices, at most k) -> state

    @cached_property
    def bid_index(self) -> dict[Bid, int]:
        return {b: i for i, b in enumerate(self.bids)}

    @property
    def calls(self) -> tuple[Action, ...]:
        """The calls open when a bid stands: CHALLENGE, then EXACT under ``exact_call``."""
        return (CHALLENGE, EXACT) if self.config.exact_call else (CHALLENGE,)

    @property
    def num_states(self) -> int:
        return len(self.actor)

    def num_actions(self, state: int) -> int:
        """Raises over the state's last bid, plus the calls when a bid stands."""
        last = int(self.last[state])
        return len(self.raises[last + 1]) + len(self.calls) * (last >= 0)

    def actions(self, state: int) -> list[Action]:
        """The state's actions in column order."""
        last = int(self.last[state])
        return [self.bids[j] for j in self.raises[last + 1]] + list(self.calls if last >= 0 else ())

    @cached_property
    def keys(self) -> list[tuple[int, tuple[int, ...]]]:
        out: list = [None] * self.num_states
        for key, s in self.index.items():
            out[s] = key
        return out

    @cached_property
    def groups(self) -> list[tuple[int, int, int, int, np.ndarray]]:
        """The states by (last bid, actor), each a contiguous range: ``(lo, hi, actor, last, children)`` with
        ``children[i, j]`` the state that raise j (:attr:`raises`) of state lo + i leads to."""
        bounds = np.flatnonzero(np.diff(self.last * 2 + self.actor)) + 1
        out = []
        for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, self.num_states], strict=True):
            actor, last = int(self.actor[lo]), int(self.last[lo])
            raises = self.raises[last + 1]
            children = np.array([[self.index[(1 - actor, (window + (int(j),))[-self.k:])] for j in raises]
                                 for _, window in self.keys[lo:hi]], dtype=np.int64).reshape(hi - lo, len(raises))
            out.append((int(lo), int(hi), actor, last, children))
        return out

    @cached_property
    def blocks(self) -> list[tuple[int, int, int, int, np.ndarray]]:
        """The groups (:attr:`groups`, same order) split into contiguous runs of states that share their raises'
        children (they differ only in the oldest bid they recall): ``(lo, hi, actor, last, children)``."""
        out = []
        for lo, hi, actor, last, children in self.groups:
            bounds = np.flatnonzero(np.any(children[1:] != children[:-1], axis=1)) + 1
            for b0, b1 in zip(np.r_[0, bounds], np.r_[bounds, hi - lo], strict=True):
                out.append((lo + int(b0), lo + int(b1), actor, last, children[b0]))
        return out

    @cached_property
    def role_states(self) -> tuple[np.ndarray, np.ndarray]:
        return tuple(np.flatnonzero(self.actor == r) for r in (0, 1))  # type: ignore[return-value]

    @cached_property
    def edge_start(self) -> np.ndarray:
        """(num_states,) offset of each state's first action among its actor's actions."""
        start = np.zeros(self.num_states, dtype=np.int64)
        for states in self.role_states:
            widths = np.array([self.num_actions(s) for s in states], dtype=np.int64)
            start[states] = np.cumsum(widths) - widths
        return start

    @cached_property
    def role_edges(self) -> tuple[int, int]:
        """Number of actions of each role over all its states."""
        return tuple(int(sum(self.num_actions(s) for s in states)) for states in self.role_states)  # type: ignore

    @cached_property
    def hands(self) -> tuple[np.ndarray, np.ndarray]:
        return tuple(solver_hands(d, self.config)[0] for d in self.dice)  # type: ignore[return-value]

    @cached_property
    def hand_probs(self) -> tuple[np.ndarray, np.ndarray]:
        return tuple(solver_hands(d, self.config)[1] for d in self.dice)  # type: ignore[return-value]

    @cached_property
    def matches(self) -> tuple[np.ndarray, np.ndarray]:
        """Per role, (H_r, faces) dice of each hand matching each face (wild dice count)."""
        m = match_matrix(self.config)
        return tuple(h.astype(np.int64) @ m for h in self.hands)

    def state_of(self, role: int, bid_indices: tuple[int, ...]) -> int:
        """The state where ``role`` acts after the round's bids (indices into :attr:`bids`)."""
        return self.index[(role, tuple(bid_indices)[-self.k:] if self.k else ())]

    def hand_rows(self, role: int, hands: np.ndarray) -> np.ndarray:
        """Row of ``self.hands[role]`` for each face-count row of ``hands`` (ValueError on a foreign hand)."""
        return solver_hand_rows(hands, self.dice[role], self.config)


def _numbered_bids(config: GameConfig, dice: tuple[int, int]) -> tuple[tuple[Bid, ...], tuple[np.ndarray, ...]]:
    """The round's bids numbered so that raises go up (fewest raises over a bid first; plain order among equals:
    today's rules keep :class:`~ldpomdp.rules.ActionCoding`'s order), and the raises over each (``raises[i + 1]``
    over bid i, ``raises[0]`` the opening bids)."""
    table_dice = sum(dice)
    over = {bid: [a for a in legal_actions(config, table_dice, bid) if isinstance(a, Bid)]
            for bid in ActionCoding(replace(config, dice=dice)).bids}
    bids = tuple(sorted(over, key=lambda b: (-len(over[b]), b.quantity, b.face)))
    number = {b: i for i, b in enumerate(bids)}
    raises = [np.array(sorted(number[a] for a in legal_actions(config, table_dice, None) if isinstance(a, Bid)),
                       dtype=np.int64)]
    for i, bid in enumerate(bids):
        after = np.array(sorted(number[a] for a in over[bid]), dtype=np.int64)
        if len(after) and after[0] <= i:
            raise AssertionError(f"the bids of {config.describe()} have no order where raises go up ({bid})")
        raises.append(after)
    return bids, tuple(raises)


@memo(maxsize=64)
def abstract_round(config: GameConfig, dice: tuple[int, int], k: int) -> AbstractRound:
    """Every abstract state reachable in a round with ``dice`` = (opener's, responder's) and recall ``k`` >= 1, under
    the round's rules ``config`` (variants included)."""
    if config.num_players != 2:
        raise ValueError(f"the CFR solver handles two players; got {config.num_players}")
    if k < 1:
        raise ValueError(f"recall k must be >= 1 bid, got {k!r}")
    bids, raises = _numbered_bids(config, (int(dice[0]), int(dice[1])))
    keys: list[tuple[int, tuple[int, ...]]] = [(0, ())]
    seen = {keys[0]}
    pos = 0
    while pos < len(keys):  # breadth first over the DAG
        actor, window = keys[pos]
        pos += 1
        for j in raises[window[-1] + 1 if window else 0]:
            child = (1 - actor, (window + (int(j),))[-k:])
            if child not in seen:
                seen.add(child)
                keys.append(child)
    # topological (last bid first); then actor; then the bids the children keep, so the states sharing children
    # are contiguous (the blocks)
    keys.sort(key=lambda key: (key[1][-1] if key[1] else -1, key[0], key[1][len(key[1]) - k + 1:], key[1]))
    return AbstractRound(
        config=config, dice=(int(dice[0]), int(dice[1])), k=int(k), bids=bids, raises=raises,
        actor=np.array([a for a, _ in keys], dtype=np.int64),
        last=np.array([w[-1] if w else -1 for _, w in keys], dtype=np.int64),
        index={key: s for s, key in enumerate(keys)},
    )


def recall_for(recall: str | int, dice: tuple[int, int]) -> int:
    """The recall k of the round with ``dice`` under a schedule like ``"3@4,2"`` (k = 3 for rounds with at most
    4 dice on the table, else 2; the last item without ``@`` applies beyond) or a plain ``k``."""
    table = sum(dice)
    try:
        for item in str(recall).split(","):
            k, at, most = item.strip().partition("@")
            if not at or table <= int(most):
                if int(k) < 1:
                    break
                return int(k)
    except ValueError:
        pass
    raise ValueError(f"recall must be k >= 1 or a schedule like '3@4,2' ending in a plain k, got {recall!r}")


def one_round_outcome() -> np.ndarray:
    """``outcome[loser, challenger]`` of the one-round game: +1 to the opener when the responder loses."""
    return np.array([[-1.0, -1.0], [1.0, 1.0]])


def _regret_matching(positive: np.ndarray, widths: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Per state segment of columns (``widths``), the positive parts normalised (uniform when all are 0); written
    into ``out`` when given (a float64 array shaped like ``positive``, not ``positive`` itself), else a new array."""
    if positive.shape[1] == 0:
        return positive.copy() if out is None else out
    totals = np.add.reduceat(positive, np.cumsum(widths) - widths, axis=1)  # each segment's total
    out = np.empty_like(positive) if out is None else out
    np.take(totals, np.repeat(np.arange(len(widths)), widths), axis=1, out=out, mode="clip")  # clip: no temporary
    empty = ~(out > 0)
    out[empty] = 1.0
    np.divide(positive, out, out=out)  # in place: these arrays are the round's largest
    np.copyto(out, np.broadcast_to(np.repeat(1.0 / widths, widths), out.shape), where=empty)
    return out


def _merge(children: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How to add rows (state, raise) of a group into their children, which repeat when the recall drops the
    oldest bid: (row order sorting them by child, the distinct children, the start of each child's rows)."""
    flat = children.ravel()
    order = np.argsort(flat, kind="stable")
    targets, starts = np.unique(flat[order], return_index=True)
    return order, targets, starts


class RoundCFR:
    """CFR+ on one abstract round: ``outcome`` (a :class:`RoundOutcome`, or today's rules' ``outcome[loser,
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
        return [_regret_matching(self.regrets[p], self._widths[p]) for p in (0, 1)]  # kept >= 0 by run

    def average_strategy(self) -> list[np.ndarray]:
        """The average strategies (the equilibrium approximation), per role (H_r, actions)."""
        return [_regret_matching(self.strategy_sums[p], self._widths[p]) for p in (0, 1)]

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
        """Per call (:attr:`AbstractRound.calls`), (H_updater, len(opp)) updater's value of that call of bid ``last``
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
        """Backward pass: (H_updater, states, len(opp)) updater's values, in a buffer the next pass overwrites; when
        ``regrets`` is given, add the updater's instantaneous counterfactual regrets (opponent reach ``reach_opp`` x
        ``opp_weight``).

        The states of a block share their actions' values (the raises' children, then the calls' terminals), so
        each block is one batched matrix product (BLAS, :data:`VALUE_DTYPE`): over the updater's hands where the
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
        """A values array of ``shape`` over one flat buffer kept between passes (every cell is written before it is
        read); it grows to the largest shape asked for and is not reallocated when the two roles' shapes alternate."""
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
                _regret_matching(self.regrets[updater], self._widths[updater], out=strategy[updater])
            self.iteration = t

    def value(self, strategy: list[np.ndarray] | None = None, outcome: RoundOutcome | None = None) -> float:
        """The opener's expected value under ``strategy`` (default the average strategies) with the round's ends
        valued by ``outcome`` (default the solver's), full width (in chunks of responder hands when the pairs do not
        fit)."""
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


QUANTUM = 63  # stored probabilities are multiples of 1/63 (6 bits; 255 levels made the 1-5 dice table 24 MB)


def quantize(strategy: np.ndarray) -> np.ndarray:
    """Probabilities in [0, 1] as uint8 (p * :data:`QUANTUM` rounded); a state's row is renormalised when it is read,
    and a row rounded to all zeros is read as uniform."""
    return np.rint(np.clip(strategy, 0.0, 1.0) * QUANTUM).astype(np.uint8)


@dataclass
class GameTable:
    """Solved rounds of the whole game: ``strategies[key]`` = per role the average strategy (float, or uint8 as
    stored, see :func:`quantize`) of the round ``key`` (:func:`~ldpomdp.exact.chain.round_key`: the opener's dice,
    the responder's, and a 1 for a palifico round), and ``values[a, b]`` (``palifico_values``) the ordinary (palifico)
    round's game value to its opener in its usual state (:func:`~ldpomdp.exact.chain.canonical_state`). ``recall``,
    ``iterations``, ``seed`` and the rules say how it was solved (under the exact call each full sweep after the
    first adds a tenth of ``iterations``: :func:`sweep_targets`), ``ends`` each round's end probabilities and
    ``residual`` the fixed point's (:func:`solve_game`)."""

    config: GameConfig  # rules; its dice are the largest dice per player covered (under exact_call: the start)
    recall: str  # k per round, see recall_for
    iterations: int
    seed: int
    values: np.ndarray
    strategies: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]
    seconds: dict[tuple[int, ...], float]
    palifico_values: np.ndarray | None = None
    ends: dict[tuple[int, ...], np.ndarray] = field(default_factory=dict)
    residual: float = 0.0

    FORMAT = 2  # 2: states sharing children are contiguous, probabilities in 1/63 (format 1: other order, 1/255)
    VARIANT_FORMAT = 3  # format 2 plus the variant rules, palifico rounds, the ends and the residual
    SIXES_FORMAT = 4  # the sixes game (its bid mode saved; a hand's row is its matching count), variants as format 3

    def __post_init__(self) -> None:
        if self.palifico_values is None:
            self.palifico_values = np.zeros_like(self.values)

    @property
    def max_dice(self) -> int:
        return int(self.config.starting_dice[0])

    def covers(self, dice: tuple[int, int], palifico: bool = False) -> bool:
        return round_key(dice, palifico) in self.strategies

    def round(self, dice: tuple[int, int], palifico: bool = False) -> AbstractRound:
        """The abstraction the round with ``dice`` = (opener's, responder's) was solved on."""
        pair, palifico = (int(dice[0]), int(dice[1])), bool(palifico)
        rules = self._round_rules.get(palifico)
        if rules is None:  # built once: a player asks for a round at every decision
            rules = self._round_rules[palifico] = self.config.round_rules(palifico)
        return abstract_round(rules, pair, recall_for(self.recall, pair))

    @cached_property
    def _round_rules(self) -> dict[bool, GameConfig]:
        return {}

    def value(self, dice: tuple[int, int], palifico: bool = False) -> float:
        """The round's game value to its opener (:attr:`values`, :attr:`palifico_values`)."""
        return float(self._values(palifico)[dice[0], dice[1]])

    def set_value(self, key: tuple[int, ...], value: float) -> None:
        """Store the game value of the round ``key`` (:func:`~ldpomdp.exact.chain.round_key`)."""
        (a, b), palifico = key_round(key)
        self._values(palifico)[a, b] = value

    def _values(self, palifico: bool) -> np.ndarray:
        assert self.palifico_values is not None  # __post_init__ fills it
        return self.palifico_values if palifico else self.values

    def probabilities(self, dice: tuple[int, int], role: int, state: int, rows: np.ndarray,
                      palifico: bool = False) -> np.ndarray:
        """(len(rows), actions of ``state``) probabilities of ``role``'s hand ``rows`` at abstract ``state``."""
        r = self.round(dice, palifico)
        e = r.edge_start[state]
        columns = np.arange(e, e + r.num_actions(state))
        block = self.strategies[round_key(dice, palifico)][role][np.asarray(rows)[:, None], columns]
        block = block.astype(np.float64)
        total = block.sum(axis=1, keepdims=True)
        return np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / block.shape[1])

    def arrays(self) -> dict[str, np.ndarray]:
        cfg = self.config
        variants = bool(cfg.variants)
        form = self.SIXES_FORMAT if cfg.bids != "full" else self.VARIANT_FORMAT if variants else self.FORMAT
        out = {"format": np.array(form), "faces": np.array(cfg.faces),
               "wild": np.array(-1 if cfg.wild is None else cfg.wild), "opener": np.array(cfg.opener),
               "max_dice": np.array(self.max_dice), "recall": np.array(self.recall),
               "iterations": np.array(self.iterations),
               "seed": np.array(self.seed),
               "values": self.values}
        if cfg.bids != "full":
            out["bids"] = np.array(cfg.bids)
        if variants:
            out.update({name: np.array(getattr(cfg, name)) for name in _VARIANT_FIELDS})
            out.update(palifico_values=self._values(True), residual=np.array(self.residual))
        for key, pair in self.strategies.items():
            name = _round_name(key)
            out[f"round_{name}_opener"], out[f"round_{name}_responder"] = (
                p if p.dtype == np.uint8 else quantize(p) for p in pair)
            out[f"seconds_{name}"] = np.array(self.seconds[key])
            if key in self.ends:
                out[f"ends_{name}"] = self.ends[key]
        return out

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> GameTable:
        if "players" in data:
            raise ValueError(f"it is a blueprint for {int(data['players'])} players; two players play a table from "
                             f"`ldpomdp solve equilibrium`")
        if int(data["format"]) not in (cls.FORMAT, cls.VARIANT_FORMAT, cls.SIXES_FORMAT):
            raise ValueError(f"equilibrium table format {int(data['format'])}, expected {cls.FORMAT}, "
                             f"{cls.VARIANT_FORMAT} or {cls.SIXES_FORMAT}")
        wild = int(data["wild"])
        dice = int(data["max_dice"])
        variants = {name: data[name].item() for name in _VARIANT_FIELDS if name in data}
        rules = {k: v if isinstance(v, bool) else str(v) for k, v in variants.items()}
        config = GameConfig(num_players=2, dice=dice, faces=int(data["faces"]), wild=None if wild < 0 else wild,
                            bids=file_bids(data, cls.SIXES_FORMAT), opener=str(data["opener"]), **rules)  # type: ignore
        strategies, seconds, ends = {}, {}, {}
        for name in data:
            if name.startswith("round_") and name.endswith("_opener"):
                label = name[len("round_"):-len("_opener")]
                parts = label.split("_")
                key = round_key((int(parts[0]), int(parts[1])), parts[2:] == ["palifico"])
                strategies[key] = (data[name], data[f"round_{label}_responder"])
                seconds[key] = float(data[f"seconds_{label}"])
                if f"ends_{label}" in data:
                    ends[key] = np.array(data[f"ends_{label}"])
        palifico_values = np.array(data["palifico_values"]) if "palifico_values" in data else None
        return cls(config, str(data["recall"]), int(data["iterations"]), int(data["seed"]), np.array(data["values"]),
                   strategies, seconds, palifico_values, ends, float(data["residual"]) if "residual" in data else 0.0)

    def save(self, path: str | Path) -> Path:
        """Write the table atomically (compressed .npz)."""
        return write_npz(path, self.arrays())

    @classmethod
    def load(cls, path: str | Path) -> GameTable:
        """The table in the file at ``path``; TableError naming the file when it cannot be read."""
        return load_npz(path, "equilibrium table", cls.from_arrays)


_VARIANT_FIELDS = ("wild_bids", "exact_call", "palifico", "loss")  # the rules a format-3 table stores beyond format 2


def file_bids(data: Mapping[str, np.ndarray], sixes_format: int) -> str:
    """A table file's bid mode: ``"full"`` in formats before ``sixes_format``, whose files name theirs (KeyError,
    which the readers report as a missing array, if not)."""
    return str(data["bids"]) if int(data["format"]) == sixes_format else "full"


def _round_name(key: tuple[int, ...]) -> str:
    """``"a_b"``, or ``"a_b_palifico"``: a round's name in a table's arrays."""
    return f"{key[0]}_{key[1]}" + ("_palifico" if len(key) > 2 else "")


def game_config(config: GameConfig, max_dice: int) -> GameConfig:
    """The two-player rules of a table of ``config``'s rules up to ``max_dice`` each (its variants included)."""
    if config.palifico_round:
        raise ValueError("give the game's rules, not a palifico round's (GameConfig.round_rules)")
    return GameConfig(num_players=2, dice=max_dice, faces=config.faces, wild=config.wild, bids=config.bids,
                      opener=config.opener, **config.variants)  # type: ignore[arg-type]


def game_rounds(config: GameConfig) -> list[tuple[int, ...]]:
    """The keys of every round a table of the two-player ``config`` solves (its dice: the largest covered, or under
    the exact call the start), in the order they are solved: fewest dice first, ordinary rounds before palifico
    ones."""
    states = game_states(config, _starts(config))
    return list(dict.fromkeys(s.key for s in states))


def game_iterations(config: GameConfig, iterations: int, sweeps: int = 1) -> int:
    """The most CFR+ iterations :func:`solve_game` runs for the two-player ``config``, as its ``progress`` counts
    them."""
    return len(game_rounds(config)) * sweep_targets(config, iterations, sweeps)[-1]


def sweep_targets(config: GameConfig, iterations: int, sweeps: int = 1) -> list[int]:
    """Each sweep's CFR+ iterations a round has had in all at its end (:func:`solve_game`): ``[iterations]`` without
    the exact call; under it :data:`COARSE_SWEEPS` coarse sweeps of a tenth of ``iterations`` each, the first full
    sweep up to ``iterations``, and each further one (``sweeps`` full ones in all) a tenth of ``iterations`` more."""
    if not config.exact_call:
        return [iterations]
    tenth = max(1, iterations // 10)
    coarse = [min(tenth * (i + 1), iterations) for i in range(COARSE_SWEEPS)]
    return coarse + [iterations + tenth * i for i in range(sweeps)]


def _starts(config: GameConfig) -> list[DiceState]:
    """The states a table's games start at: every dice pair up to the largest (under the exact call, which can win
    a die back up to the starting dice, only the start)."""
    top = config.starting_dice[0]
    pairs = [(top, top)] if config.exact_call else [(a, b) for a in range(1, top + 1) for b in range(1, top + 1)]
    return [canonical_state(config, pair) for pair in pairs]


def solve_game(config: GameConfig, max_dice: int, recall: str | int, iterations: int, seed: int = 0,
               checkpoint: str | Path | None = None, checkpoint_every: int = 50,
               progress: Callable[[int], None] | None = None, sweeps: int = 1) -> GameTable:
    """Solve every round of ``config``'s rules up to ``max_dice`` each (:func:`game_rounds`) by CFR+ with the recall
    ``recall`` gives it, its ends valued by the game values of the states they lead to. Under the exact call each
    sweep (:func:`sweep_targets`, ``sweeps`` full ones at most) continues every round's CFR+ valued by the last one's
    fixed point, until the :attr:`GameTable.residual` is below :data:`SWEEP_TOLERANCE` (the Exact solvers page).
    With ``checkpoint``, progress goes there every ``checkpoint_every`` iterations (rounds' states beside it:
    :func:`discard_checkpoint`) and a run finding it continues to the same result; sweeps that run out above the
    tolerance leave their table there, which the same run returns and more ``sweeps`` continue. ``progress(n)``."""
    cfg = game_config(config, max_dice)
    if cfg.exact_call and len(set(config.starting_dice)) != 1:
        raise ValueError(f"under the exact call the solver takes equal starting dice (a right call wins a die back up "
                         f"to them); got {config.starting_dice}")
    if sweeps < 1:
        raise ValueError(f"sweeps must be >= 1, got {sweeps!r}")
    recall_for(recall, (max_dice, max_dice))  # a bad schedule fails now, not after the small rounds
    table = GameTable(cfg, str(recall), int(iterations), int(seed), np.zeros((max_dice + 1, max_dice + 1)), {}, {})
    states = game_states(cfg, _starts(cfg))
    keys = list(dict.fromkeys(s.key for s in states))
    targets = sweep_targets(cfg, iterations, sweeps)
    state: dict | None = None
    estimate, sweep, spent = np.zeros(len(states)), 0, {}
    if checkpoint is not None and Path(checkpoint).exists():
        table, state = _resume(Path(checkpoint), table)
        if state is not None and "estimate" in state:
            if cfg.exact_call and not np.array_equal(state.get("schedule", ()), targets[:COARSE_SWEEPS + 1]):
                raise ValueError(f"checkpoint {checkpoint} was written by an older solver (its sweeps solved every "
                                 f"round afresh); delete it to start afresh")
            estimate, sweep = np.array(state["estimate"]), int(state["sweep"])
            spent = dict(zip(keys, np.array(state["spent"]).tolist(), strict=True))
            if "finished" in state:  # a finished sweep's table: done, or the next sweep's start
                if sweep >= len(targets):
                    return table
                table, state = _without_rounds(table), None
            elif sweep >= len(targets):  # stopped inside a sweep beyond ``sweeps``: that sweep is finished
                targets = sweep_targets(cfg, iterations, sweep + 1 - COARSE_SWEEPS)
            if progress and sweep:
                progress(len(keys) * targets[sweep - 1])
    elif checkpoint is not None:
        discard_checkpoint(checkpoint)  # clear round states whose checkpoint was deleted
    rounds = _RoundStates(None if checkpoint is None else rounds_folder(checkpoint))
    if sweep and cfg.exact_call:
        rounds.check([key for key in keys if not table.covers(*key_round(key))], (targets[sweep - 1], targets[sweep]))
    while True:
        extra = {"estimate": estimate, "sweep": np.array(sweep), "spent": np.array([spent.get(k, 0.0) for k in keys])}
        if cfg.exact_call:
            extra["schedule"] = np.array(targets[:COARSE_SWEEPS + 1])
        guess = dict(zip(states, estimate.tolist(), strict=True))
        done = targets[sweep - 1] if sweep else 0
        _sweep(table, states, keys, guess, state, extra, checkpoint, checkpoint_every, progress,
               rounds if cfg.exact_call else None, (done, targets[sweep]))
        state = None
        for key in keys:
            table.seconds[key] += spent.get(key, 0.0)
        if not cfg.exact_call:
            return table
        values = _fix_values(table, states, keys, guess)
        sweep += 1
        if table.residual <= SWEEP_TOLERANCE and sweep > COARSE_SWEEPS:
            return table
        estimate, spent = np.array([values[s] for s in states]), dict(table.seconds)
        if checkpoint is not None:  # kept when the sweeps run out: the same run returns the table, more continue
            write_npz(checkpoint, {**table.arrays(), **extra, "estimate": estimate, "sweep": np.array(sweep),
                                   "spent": np.array([spent[k] for k in keys]), "finished": np.array(True)})
        if sweep >= len(targets):
            return table
        table = _without_rounds(table)


def discard_checkpoint(checkpoint: str | Path) -> None:
    """Delete a solve's checkpoint and the rounds' CFR+ states kept beside it (:func:`solve_game`)."""
    Path(checkpoint).unlink(missing_ok=True)
    shutil.rmtree(rounds_folder(checkpoint), ignore_errors=True)


def rounds_folder(checkpoint: str | Path) -> Path:
    """The folder beside a solve's ``checkpoint`` that holds a file per round."""
    return Path(checkpoint).with_name(Path(checkpoint).name + ".rounds")


class _RoundStates:
    """Each round's CFR+ state (:meth:`RoundCFR.state_dict` and its ``seconds``) after the last sweep that ran it:
    in memory, or in ``folder`` (uncompressed, a file per round: 1.3 GB from 5 dice each) with a checkpoint."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.memory: dict[tuple[int, ...], dict] = {}

    def _path(self, key: tuple[int, ...]) -> Path:
        assert self.folder is not None
        return self.folder / f"{_round_name(key)}.npz"

    def check(self, keys: list[tuple[int, ...]], span: tuple[int, int]) -> None:
        """ValueError naming the folder and the rounds unless each round of ``keys`` has a state of ``span[0]`` to
        ``span[1]`` iterations (a resumed sweep's)."""
        def fits(key: tuple[int, ...]) -> bool:
            if self.folder is None or not self._path(key).exists():
                return False
            state = read_npz(self._path(key), "round state", "delete the checkpoint to start afresh", ("iteration",))
            return span[0] <= int(state["iteration"]) <= span[1]

        wrong = [_round_name(k) for k in keys if not fits(k)]
        if wrong:
            raise ValueError(f"the checkpoint's round states in {self.folder} lack round(s) {', '.join(wrong)} or "
                             f"are from another sweep; delete the checkpoint to start afresh")

    def take(self, key: tuple[int, ...]) -> dict:
        """The round's state (removed from memory: the solver holds it now)."""
        if self.folder is None:
            return self.memory.pop(key)
        return read_npz(self._path(key), "round state", hint="delete the checkpoint to start afresh")

    def put(self, key: tuple[int, ...], state: dict) -> None:
        if self.folder is None:
            self.memory[key] = state
        else:
            write_npz(self._path(key), state, compress=False)


def _without_rounds(table: GameTable) -> GameTable:
    """A copy of ``table`` with its values and residual but no solved rounds: the next fixed-point sweep's start."""
    return replace(table, values=table.values.copy(), strategies={}, seconds={},
                   palifico_values=table._values(True).copy(), ends={})


SWEEP_TOLERANCE = 1e-3  # solve_game stops its sweeps when the residual is below it
COARSE_SWEEPS = 2  # the exact call's coarse sweeps before the full ones (sweep_targets)


def _sweep(table: GameTable, states: list[DiceState], keys: list[tuple[int, ...]], guess: dict[DiceState, float],
           state: dict | None, extra: dict[str, np.ndarray], checkpoint: str | Path | None, checkpoint_every: int,
           progress: Callable[[int], None] | None, rounds: _RoundStates | None, span: tuple[int, int]) -> None:
    """Solve the rounds ``keys`` the table does not cover yet, in order, each valued by the rounds solved before it
    and ``guess`` for the states not solved yet (:func:`solve_game`), from ``span[0]`` CFR+ iterations (continuing
    its state in ``rounds``) to ``span[1]``; ``state``: the running round to resume."""
    cfg = table.config
    done, target = span
    solved = {canonical_state(cfg, k): table.value(*key_round(k)) for k in table.strategies}
    for key in keys:
        if table.covers(*key_round(key)):
            if progress:
                progress(target - done)
            continue
        usual = canonical_state(cfg, key)
        outcome = round_outcome(cfg, usual, lambda s: solved[s] if s in solved else guess[s])
        solver = _round_solver(table, key, outcome)
        spent = 0.0
        if state is not None and "dice" in state and tuple(int(x) for x in state["dice"]) == key:
            solver.load_state(state)
            spent = float(state["seconds"])
        elif done and rounds is not None:
            previous = rounds.take(key)
            solver.load_state(previous)
            if solver.iteration == target > done:  # this sweep's state, stopped before the checkpoint had the round
                spent = float(previous["seconds"])
            del previous
        if progress and solver.iteration > done:
            progress(solver.iteration - done)
        state = None
        while solver.iteration < target:
            start = time.process_time()
            step = min(checkpoint_every, target - solver.iteration)
            solver.run(step)
            spent += time.process_time() - start
            if checkpoint is not None and solver.iteration < target:
                write_npz(checkpoint, {**table.arrays(), **solver.state_dict(), "dice": np.array(key),
                                       "running_seconds": np.array(spent), **extra})
            if progress:
                progress(step)
        start = time.process_time()
        average = solver.average_strategy()
        solved[usual] = solver.value(average)
        table.set_value(key, solved[usual])
        table.strategies[key] = (average[0], average[1])
        if cfg.exact_call:
            table.ends[key] = _end_probabilities(solver, average, cfg, [s for s in states if s.key == key])
        table.seconds[key] = spent + time.process_time() - start
        if rounds is not None:  # before the checkpoint records the round as solved
            rounds.put(key, {**solver.state_dict(), "seconds": np.array(spent)})
        if checkpoint is not None:
            write_npz(checkpoint, {**table.arrays(), **extra})


def _round_solver(table: GameTable, key: tuple[int, ...], outcome: RoundOutcome) -> RoundCFR:
    """A fresh CFR+ solver of the table's round ``key`` with its ends valued by ``outcome``."""
    dice, palifico = key_round(key)
    return RoundCFR(table.config.round_rules(palifico), dice, recall_for(table.recall, dice), outcome, seed=table.seed)


def _end_probabilities(solver: RoundCFR, strategy: list[np.ndarray], config: GameConfig,
                       states: list[DiceState]) -> np.ndarray:
    """P(the round ends by each slot, :func:`~ldpomdp.exact.chain.round_slots`) under ``strategy``; slots leading
    to the same place from every state in ``states`` share their mass (it sits on the first of them)."""
    slots = round_slots(config, solver.round.dice)
    classes: dict[tuple, list[int]] = {}
    for i, slot in enumerate(slots):
        classes.setdefault(tuple(successor(config, s, slot) for s in states), []).append(i)
    out = np.zeros(len(slots))
    table = sum(solver.round.dice)
    for members in classes.values():
        indicator = np.zeros(len(slots))
        indicator[members] = 1.0
        exact = indicator[2 * (2 * table + 1):].reshape(2, 2) if config.exact_call else None
        out[members[0]] = solver.value(strategy, RoundOutcome(indicator[:2 * (2 * table + 1)].reshape(2, -1), exact,
                                                              table))
    return out


def _fix_values(table: GameTable, states: list[DiceState], keys: list[tuple[int, ...]],
                guess: dict[DiceState, float]) -> dict[DiceState, float]:
    """Set the table's values to the chain's fixed point under its strategies (returned, for every state), and its
    residual: the largest gap between a next state's value there and the one its round was solved against (solved
    before it in the sweep, else ``guess``)."""
    config = table.config
    values = chain_values(config, states, table.ends)
    solved: dict[DiceState, float] = {}
    residual = 0.0
    for key in keys:  # the values each round was solved against, as solve_game gave them
        usual = canonical_state(config, key)
        for slot in round_slots(config, usual.dice):
            following = successor(config, usual, slot)[1]
            if following is not None:
                used = solved[following] if following in solved else guess[following]
                residual = max(residual, abs(values[following] - used))
        solved[usual] = table.value(*key_round(key))
    for key in keys:
        table.set_value(key, values[canonical_state(config, key)])
    table.residual = residual
    return values


def _resume(path: Path, fresh: GameTable) -> tuple[GameTable, dict | None]:
    """The table and running round stored at ``path``; TableError when it cannot be read, ValueError when it was
    solved with other settings."""
    table, state = load_npz(path, "checkpoint", _checkpoint, hint="delete it to start afresh")
    settings = (table.config, table.recall, table.iterations, table.seed)
    if settings != (fresh.config, fresh.recall, fresh.iterations, fresh.seed):
        raise ValueError(f"checkpoint {path} was solved with other settings (rules {table.config.describe()}, "
                         f"{table.max_dice} dice, recall {table.recall}, {table.iterations} iterations, "
                         f"seed {table.seed}); "
                         f"remove it or give the same settings")
    return table, state


def _checkpoint(data: Mapping[str, np.ndarray]) -> tuple[GameTable, dict | None]:
    """The solved rounds of a checkpoint's arrays, and the running round's state with the sweep's place (the last
    sweep's values ``estimate``, the sweep's number, the seconds spent before it), or None."""
    state: dict | None = None
    if "dice" in data:
        state = {name: data[name] for name in ("regrets0", "regrets1", "sums0", "sums1", "iteration", "dice")}
        state["seconds"] = data["running_seconds"]
    if "estimate" in data:
        names = ("estimate", "sweep", "spent", "finished", "schedule")
        state = {**(state or {}), **{name: data[name] for name in names if name in data}}
    return GameTable.from_arrays(data), state
