"""Approximate equilibrium of the whole two-player full-bid game by CFR+ on an imperfect-recall abstraction.

An information set is a player's own hand and role plus the round's last ``k`` bids. :class:`RoundCFR` runs CFR+
full width over the abstract states (one batched matrix product per block of states sharing their children), or
with ``opponent_samples`` opponent hands per update above :data:`MAX_FULL_WIDTH_CELLS`. A challenge is valued by
``outcome[loser, challenger]``, so :func:`solve_game` chains the rounds by the game values of the dice states they
lead to. The algorithm and its measurements: the Exact solvers page.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from ..caches import memo
from ..datafiles import load_npz, write_npz
from ..hands import hand_rows, hand_support
from ..rules import ActionCoding, Bid, GameConfig, match_matrix, next_opener

__all__ = ["AbstractRound", "abstract_round", "RoundCFR", "one_round_outcome", "round_outcome", "solve_game",
           "GameTable", "quantize", "QUANTUM", "recall_for", "game_rounds", "MAX_FULL_WIDTH_CELLS", "VALUE_DTYPE"]

VALUE_DTYPE = np.float32  # the backward pass's values (regrets and strategy sums stay float64)
MAX_FULL_WIDTH_CELLS = 300_000_000  # states x hand pairs kept as values (1.2 GB); above it, sample opponents


@dataclass(frozen=True)
class AbstractRound:
    """The abstract states of one round with ``dice`` = (opener's, responder's) and recall ``k``.

    States are numbered in topological order (by last bid, then actor, then the bids their children keep, so that
    states sharing children are contiguous: :attr:`blocks`; the root, with no bid, first). State s
    belongs to ``actor[s]``; its actions are the raises to every bid above ``last[s]`` (ascending), then a
    challenge when a bid stands: :attr:`groups` gives the raises' states, ``edge_start`` the offsets of each
    state's actions among its actor's actions (``role_states[r]`` in order).
    """

    config: GameConfig
    dice: tuple[int, int]
    k: int
    coding: ActionCoding  # numbers the round's bids
    actor: np.ndarray
    last: np.ndarray
    index: dict  # (actor, tuple of bid indices, at most k) -> state

    @property
    def bids(self) -> tuple[Bid, ...]:
        """Every bid of the round, ascending: bid ``i`` is numbered ``i`` (:attr:`coding`)."""
        return self.coding.bids

    @property
    def num_states(self) -> int:
        return len(self.actor)

    def num_actions(self, state: int) -> int:
        """Raises above the state's last bid, plus a challenge when a bid stands."""
        last = int(self.last[state])
        return len(self.bids) - 1 - last + (last >= 0)

    @cached_property
    def keys(self) -> list[tuple[int, tuple[int, ...]]]:
        out: list = [None] * self.num_states
        for key, s in self.index.items():
            out[s] = key
        return out

    @cached_property
    def groups(self) -> list[tuple[int, int, int, int, np.ndarray]]:
        """The states by (last bid, actor), each a contiguous range: ``(lo, hi, actor, last, children)`` with
        ``children[i, j]`` the state that raise j (ascending bid) of state lo + i leads to."""
        n = len(self.bids)
        bounds = np.flatnonzero(np.diff(self.last * 2 + self.actor)) + 1
        out = []
        for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, self.num_states], strict=True):
            actor, last = int(self.actor[lo]), int(self.last[lo])
            children = np.array([[self.index[(1 - actor, (window + (j,))[-self.k:])] for j in range(last + 1, n)]
                                 for _, window in self.keys[lo:hi]], dtype=np.int64).reshape(hi - lo, n - 1 - last)
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
        return tuple(hand_support(d, self.config.faces)[0] for d in self.dice)  # type: ignore[return-value]

    @cached_property
    def hand_probs(self) -> tuple[np.ndarray, np.ndarray]:
        return tuple(hand_support(d, self.config.faces)[1] for d in self.dice)  # type: ignore[return-value]

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
        return hand_rows(self.hands[role], hands, self.dice[role])


@memo(maxsize=64)
def abstract_round(config: GameConfig, dice: tuple[int, int], k: int) -> AbstractRound:
    """Every abstract state reachable in a round with ``dice`` = (opener's, responder's) and recall ``k`` >= 1."""
    if config.num_players != 2 or config.bids != "full":
        raise ValueError(f"the CFR solver handles two players and full bids; got {config.num_players} players, "
                         f"bids={config.bids!r}")
    if k < 1:
        raise ValueError(f"recall k must be >= 1 bid, got {k!r}")
    coding = ActionCoding(replace(config, dice=(int(dice[0]), int(dice[1]))))  # the bids within the round's dice
    n = len(coding.bids)
    keys: list[tuple[int, tuple[int, ...]]] = [(0, ())]
    seen = {keys[0]}
    pos = 0
    while pos < len(keys):  # breadth first over the DAG
        actor, window = keys[pos]
        pos += 1
        first = window[-1] + 1 if window else 0
        for j in range(first, n):
            child = (1 - actor, (window + (j,))[-k:])
            if child not in seen:
                seen.add(child)
                keys.append(child)
    # topological (last bid first); then actor; then the bids the children keep, so the states sharing children
    # are contiguous (the blocks)
    keys.sort(key=lambda key: (key[1][-1] if key[1] else -1, key[0], key[1][len(key[1]) - k + 1:], key[1]))
    return AbstractRound(
        config=config, dice=(int(dice[0]), int(dice[1])), k=int(k), coding=coding,
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


def _regret_matching(positive: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """Per state segment of columns (``widths``), the positive parts normalised (uniform when all are 0)."""
    if positive.shape[1] == 0:
        return positive.copy()
    starts = np.cumsum(widths) - widths
    total = np.repeat(np.add.reduceat(positive, starts, axis=1), widths, axis=1)
    uniform = np.repeat(1.0 / widths, widths)[None, :]
    return np.where(total > 0, positive / np.where(total > 0, total, 1.0), uniform)


def _merge(children: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How to add rows (state, raise) of a group into their children, which repeat when the recall drops the
    oldest bid: (row order sorting them by child, the distinct children, the start of each child's rows)."""
    flat = children.ravel()
    order = np.argsort(flat, kind="stable")
    targets, starts = np.unique(flat[order], return_index=True)
    return order, targets, starts


class RoundCFR:
    """CFR+ on one abstract round. ``outcome[loser, challenger]`` is the opener's value after a challenge.

    ``regrets[r]`` and ``strategy_sums[r]`` are (H_r, role r's actions) arrays; ``iteration`` counts completed
    iterations. Full width over hand pairs when ``states x H_0 x H_1 <= MAX_FULL_WIDTH_CELLS``, else each update
    draws ``opponent_samples`` (default 16) opponent hands from the prior, seeded by ``seed``, dice and iteration.
    """

    def __init__(self, config: GameConfig, dice: tuple[int, int], k: int, outcome: np.ndarray,
                 opponent_samples: int | None = None, seed: int = 0):
        self.round = abstract_round(config, (int(dice[0]), int(dice[1])), k)
        self.outcome = np.asarray(outcome, dtype=np.float64)
        if self.outcome.shape != (2, 2) or np.abs(self.outcome).max() > 1.0 + 1e-12:
            raise ValueError(f"outcome must be a 2x2 array of values in [-1, 1], got {outcome!r}")
        r = self.round
        cells = r.num_states * len(r.hands[0]) * len(r.hands[1])
        self.opponent_samples = None if cells <= MAX_FULL_WIDTH_CELLS else opponent_samples or 16
        self.regrets = [np.zeros((len(r.hands[p]), r.role_edges[p])) for p in (0, 1)]
        self.strategy_sums = [np.zeros_like(x) for x in self.regrets]
        self.iteration = 0
        self.seed = int(seed)  # iteration t draws from default_rng((seed, opener's dice, responder's dice, t))
        self._widths = [np.array([r.num_actions(s) for s in r.role_states[p]], dtype=np.int64) for p in (0, 1)]
        self._merges = [_merge(children) for *_, children in r.groups]
        self._values_buffer: np.ndarray | None = None

    def current_strategy(self) -> list[np.ndarray]:
        return [_regret_matching(np.maximum(self.regrets[p], 0.0), self._widths[p]) for p in (0, 1)]

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
            sigma = strategy[a][:, e:e + g * (raises + (last >= 0))].reshape(-1, g, raises + (last >= 0))
            own = (reach[a][lo:hi].T[:, :, None] * sigma[:, :, :raises]).reshape(-1, g * raises).T
            other = np.repeat(reach[1 - a][lo:hi], raises, axis=0)
            reach[a][targets] += np.add.reduceat(own[order], starts, axis=0)
            reach[1 - a][targets] += np.add.reduceat(other[order], starts, axis=0)
        return reach

    def _terminal(self, last: int, challenger: int, updater: int, opp: np.ndarray) -> np.ndarray:
        """(H_updater, len(opp)) updater's value of a challenge of bid ``last`` by role ``challenger``."""
        r = self.round
        bid = r.bids[last]
        total = r.matches[updater][:, bid.face - 1][:, None] + r.matches[1 - updater][opp, bid.face - 1][None, :]
        value = np.where(total >= bid.quantity, self.outcome[challenger, challenger],
                         self.outcome[1 - challenger, challenger]).astype(VALUE_DTYPE)
        return value if updater == 0 else -value

    def _values(self, strategy: list[np.ndarray], updater: int, opp: np.ndarray, opp_weight: np.ndarray,
                reach_opp: np.ndarray | None, regrets: np.ndarray | None) -> np.ndarray:
        """Backward pass: (H_updater, states, len(opp)) updater's values, in a buffer the next pass overwrites; when
        ``regrets`` is given, add the updater's instantaneous counterfactual regrets (opponent reach ``reach_opp`` x
        ``opp_weight``).

        The states of a block share their raises' children, so each block is one batched matrix product (BLAS,
        :data:`VALUE_DTYPE`): over the updater's hands where the updater acts, over the opponent's where it does not.
        """
        r = self.round
        hands = len(r.hands[updater])
        values = self._buffer((hands, r.num_states, len(opp)))
        for lo, hi, actor, last, children in reversed(r.blocks):
            raises, width, e = len(children), len(children) + (last >= 0), r.edge_start[lo]
            sigma64 = strategy[actor][:, e:e + (hi - lo) * width].reshape(-1, hi - lo, width)  # (H_a, states, actions)
            terminal = self._terminal(last, actor, updater, opp) if last >= 0 else None
            below = values[:, children, :]  # (H_u, raises, opp)
            if actor != updater:
                sigma = sigma64[opp].astype(VALUE_DTYPE)
                out = np.matmul(sigma[:, :, :raises], np.ascontiguousarray(below.transpose(2, 1, 0)))  # (opp, g, H_u)
                if terminal is not None:
                    out += sigma[:, :, raises][:, :, None] * terminal.T[:, None, :]
                values[:, lo:hi, :] = out.transpose(2, 1, 0)
                continue
            sigma = sigma64.astype(VALUE_DTYPE)
            block = values[:, lo:hi, :]
            np.matmul(sigma[:, :, :raises], below, out=block)
            if terminal is not None:
                block += sigma[:, :, raises][:, :, None] * terminal[:, None, :]
            if regrets is None or reach_opp is None:
                continue
            w = (reach_opp[lo:hi][:, opp] * opp_weight[None, :]).astype(VALUE_DTYPE)  # (states, opp)
            q = (below.reshape(-1, len(opp)) @ w.T).reshape(hands, raises, hi - lo).transpose(0, 2, 1)
            if terminal is not None:
                q = np.concatenate([q, (terminal @ w.T)[:, :, None]], axis=2)
            q = q.astype(np.float64)
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
        """``iterations`` more CFR+ iterations (each updates the opener, then the responder)."""
        for _ in range(iterations):
            t = self.iteration + 1
            rng = np.random.default_rng((self.seed, *self.round.dice, t))
            strategy = self.current_strategy()
            for updater in (0, 1):
                reach = self._reaches(strategy)
                opp, weight = self._opponents(updater, rng)
                self._values(strategy, updater, opp, weight, reach[1 - updater], self.regrets[updater])
                np.maximum(self.regrets[updater], 0.0, out=self.regrets[updater])
                own = reach[updater][self.round.role_states[updater]]  # (states of updater, H)
                reach_edges = np.repeat(own.T, self._widths[updater], axis=1)
                self.strategy_sums[updater] += t * reach_edges * strategy[updater]
                strategy[updater] = _regret_matching(self.regrets[updater], self._widths[updater])
            self.iteration = t

    def value(self, strategy: list[np.ndarray] | None = None) -> float:
        """The opener's expected value under ``strategy`` (default the average strategies), full width (in chunks
        of responder hands when the pairs do not fit)."""
        strategy = self.average_strategy() if strategy is None else strategy
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


def round_outcome(config: GameConfig, dice: tuple[int, int], values: np.ndarray) -> np.ndarray:
    """``outcome[loser, challenger]`` of the round with ``dice`` = (opener's, responder's) in the whole game:
    +1/-1 when the loser is out, else the game value ``values[opener's dice, responder's dice]`` of the next
    round seen from this round's opener (``next_opener`` decides who opens it)."""
    out = np.empty((2, 2))
    for loser in (0, 1):
        after = (dice[0] - (loser == 0), dice[1] - (loser == 1))
        for challenger in (0, 1):
            if min(after) == 0:
                out[loser, challenger] = 1.0 if after[0] > 0 else -1.0
                continue
            opens = next_opener(config, after, challenger, loser)
            value = values[after[opens], after[1 - opens]]
            out[loser, challenger] = value if opens == 0 else -value
    return out


QUANTUM = 63  # stored probabilities are multiples of 1/63 (6 bits; 255 levels made the 1-5 dice table 24 MB)


def quantize(strategy: np.ndarray) -> np.ndarray:
    """Probabilities in [0, 1] as uint8 (p * :data:`QUANTUM` rounded); a state's row is renormalised when it is read,
    and a row rounded to all zeros is read as uniform."""
    return np.rint(np.clip(strategy, 0.0, 1.0) * QUANTUM).astype(np.uint8)


@dataclass
class GameTable:
    """Solved rounds of the whole game: ``strategies[(a, b)]`` = per role the average strategy (float, or uint8
    as stored, see :func:`quantize`) of the round where the opener holds a dice and the responder b, and
    ``values[a, b]`` that round's game value to its opener (in [-1, 1]). ``recall``, ``iterations``, ``seed``
    and the rules say how it was solved."""

    config: GameConfig  # rules; its dice are the largest dice per player covered
    recall: str  # k per round, see recall_for
    iterations: int
    seed: int
    values: np.ndarray
    strategies: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]
    seconds: dict[tuple[int, int], float]

    FORMAT = 2  # 2: states sharing children are contiguous, probabilities in 1/63 (format 1: other order, 1/255)

    @property
    def max_dice(self) -> int:
        return int(self.config.starting_dice[0])

    def covers(self, dice: tuple[int, int]) -> bool:
        return tuple(dice) in self.strategies

    def round(self, dice: tuple[int, int]) -> AbstractRound:
        """The abstraction the round with ``dice`` = (opener's, responder's) was solved on."""
        return abstract_round(self.config, (int(dice[0]), int(dice[1])), recall_for(self.recall, dice))

    def probabilities(self, dice: tuple[int, int], role: int, state: int, rows: np.ndarray) -> np.ndarray:
        """(len(rows), actions of ``state``) probabilities of ``role``'s hand ``rows`` at abstract ``state``."""
        r = self.round(dice)
        e = r.edge_start[state]
        columns = np.arange(e, e + r.num_actions(state))
        block = self.strategies[(int(dice[0]), int(dice[1]))][role][np.asarray(rows)[:, None], columns]
        block = block.astype(np.float64)
        total = block.sum(axis=1, keepdims=True)
        return np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / block.shape[1])

    def arrays(self) -> dict[str, np.ndarray]:
        cfg = self.config
        out = {"format": np.array(self.FORMAT), "faces": np.array(cfg.faces),
               "wild": np.array(-1 if cfg.wild is None else cfg.wild), "opener": np.array(cfg.opener),
               "max_dice": np.array(self.max_dice), "recall": np.array(self.recall),
               "iterations": np.array(self.iterations),
               "seed": np.array(self.seed),
               "values": self.values}
        for (a, b), pair in self.strategies.items():
            out[f"round_{a}_{b}_opener"], out[f"round_{a}_{b}_responder"] = (
                p if p.dtype == np.uint8 else quantize(p) for p in pair)
            out[f"seconds_{a}_{b}"] = np.array(self.seconds[(a, b)])
        return out

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> GameTable:
        if int(data["format"]) != cls.FORMAT:
            raise ValueError(f"equilibrium table format {int(data['format'])}, expected {cls.FORMAT}")
        wild = int(data["wild"])
        dice = int(data["max_dice"])
        config = GameConfig(num_players=2, dice=dice, faces=int(data["faces"]), wild=None if wild < 0 else wild,
                            opener=str(data["opener"]))
        strategies, seconds = {}, {}
        for name in data:
            if name.startswith("round_") and name.endswith("_opener"):
                a, b = (int(x) for x in name.split("_")[1:3])
                strategies[(a, b)] = (data[name], data[f"round_{a}_{b}_responder"])
                seconds[(a, b)] = float(data[f"seconds_{a}_{b}"])
        return cls(config, str(data["recall"]), int(data["iterations"]), int(data["seed"]), np.array(data["values"]),
                   strategies, seconds)

    def save(self, path: str | Path) -> Path:
        """Write the table atomically (compressed .npz)."""
        return write_npz(path, self.arrays())

    @classmethod
    def load(cls, path: str | Path) -> GameTable:
        """The table in the file at ``path``; TableError naming the file when it cannot be read."""
        return load_npz(path, "equilibrium table", cls.from_arrays)


def game_rounds(max_dice: int) -> list[tuple[int, int]]:
    """Every round (opener's dice, responder's dice) up to ``max_dice`` each, fewest dice first."""
    return sorted(((a, b) for a in range(1, max_dice + 1) for b in range(1, max_dice + 1)), key=lambda d: (sum(d), d))


def solve_game(config: GameConfig, max_dice: int, recall: str | int, iterations: int, seed: int = 0,
               checkpoint: str | Path | None = None, checkpoint_every: int = 50,
               progress: Callable[[int], None] | None = None) -> GameTable:
    """Solve every round up to ``max_dice`` each, fewest dice first, each with ``iterations`` CFR+ iterations, the
    recall k that ``recall`` gives it (:func:`recall_for`), and its challenges valued by the game values of the
    smaller rounds (:func:`round_outcome`).

    With ``checkpoint``, the solved rounds and the running round's regrets are written there (atomically) every
    ``checkpoint_every`` iterations and after each round, and a run finding that file continues from it: the
    result is the same as an uninterrupted run's. ``progress(n)`` is told of every n iterations done. Today's rules
    only: ``config`` with rule variants is refused."""
    if config.variants:
        raise ValueError(f"the equilibrium solver takes today's rules only, not the variants {config.variants}")
    cfg = GameConfig(num_players=2, dice=max_dice, faces=config.faces, wild=config.wild, bids=config.bids,
                     opener=config.opener)
    recall_for(recall, (max_dice, max_dice))  # a bad schedule fails now, not after the small rounds
    table = GameTable(cfg, str(recall), int(iterations), int(seed), np.zeros((max_dice + 1, max_dice + 1)), {}, {})
    state: dict | None = None
    if checkpoint is not None and Path(checkpoint).exists():
        table, state = _resume(Path(checkpoint), table)
    for dice in game_rounds(max_dice):
        if table.covers(dice):
            if progress:
                progress(iterations)
            continue
        solver = RoundCFR(cfg, dice, recall_for(recall, dice), round_outcome(cfg, dice, table.values), seed=seed)
        spent = 0.0
        if state is not None and tuple(state["dice"]) == dice:
            solver.load_state(state)
            spent = float(state["seconds"])
            if progress:
                progress(solver.iteration)
        state = None
        while solver.iteration < iterations:
            start = time.process_time()
            step = min(checkpoint_every, iterations - solver.iteration)
            solver.run(step)
            spent += time.process_time() - start
            if checkpoint is not None and solver.iteration < iterations:
                write_npz(checkpoint, {**table.arrays(), **solver.state_dict(), "dice": np.array(dice),
                                       "running_seconds": np.array(spent)})
            if progress:
                progress(step)
        start = time.process_time()
        average = solver.average_strategy()
        table.values[dice] = solver.value(average)
        table.strategies[dice] = (average[0], average[1])
        table.seconds[dice] = spent + time.process_time() - start
        if checkpoint is not None:
            table.save(checkpoint)
    return table


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
    """The solved rounds and the running round's state (None between rounds) of a checkpoint's arrays."""
    state = None
    if "dice" in data:
        state = {name: data[name] for name in ("regrets0", "regrets1", "sums0", "sums1", "iteration", "dice")}
        state["seconds"] = data["running_seconds"]
    return GameTable.from_arrays(data), state
