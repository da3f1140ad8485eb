"""The blueprint for three to six players: every round with three or more seats holding dice, solved by
:class:`~ldpomdp.exact.multiplayer.NRoundCFR` and chained over dice states by each seat's probability of winning
the game; once two seats remain, the two-player table takes over. Rules where dice are only lost: today's, Dudo's
(Perudo bids, loss by the difference); the method, its cost and its measurements: the Exact solvers page, "Three to
six players"."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..caches import memo
from ..datafiles import load_npz, write_npz
from ..rules import CHALLENGE, GameConfig, next_opener, seats_in_turn, settle_count
from .equilibrium import GameTable, discard_checkpoint, quantize, rounds_folder, rules_key
from .multiplayer import NRound, NRoundCFR, RoundPayoff, draw_hands, n_round

__all__ = ["BlueprintTable", "blueprint_rounds", "solve_blueprint", "next_round_values", "end_values", "round_payoff",
           "end_probabilities", "check_blueprint_rules", "BLUEPRINT_RECALL", "VALUE_SAMPLES"]

BLUEPRINT_RECALL = 1  # k: the last bid (k = 2 costs ~40x per iteration at 3 x 5 dice: the Exact solvers page)
VALUE_SAMPLES = 8192  # joint hands drawn to value a solved round (its ends' probabilities)


@memo(maxsize=256)
def _round(config: GameConfig, dice: tuple[int, ...], k: int) -> NRound:
    return n_round(config, dice, k)


@dataclass
class BlueprintTable:
    """Solved rounds of the ``config.num_players``-player game: ``strategies[dice]`` per seat (counted from the
    round's opener, ``dice`` in turn order from it, every seat with dice) its average strategy as uint8 (see
    :func:`~ldpomdp.exact.equilibrium.quantize`), ``values[dice]`` each seat's probability of winning the game from
    that round. ``two`` plays the rounds with two seats left. ``k``, ``iterations``, ``samples``, ``seed``: how it
    was solved."""

    config: GameConfig
    two: GameTable
    k: int
    iterations: int
    samples: int
    seed: int
    strategies: dict[tuple[int, ...], tuple[np.ndarray, ...]] = field(default_factory=dict)
    values: dict[tuple[int, ...], np.ndarray] = field(default_factory=dict)
    seconds: dict[tuple[int, ...], float] = field(default_factory=dict)
    _rounds: dict[tuple[int, ...], NRound] = field(default_factory=dict, repr=False, compare=False)

    FORMAT = 1  # files of today's rules; those of other rules are VARIANTS_FORMAT, which readers of 1 refuse
    VARIANTS_FORMAT = 2  # the rules' variant fields saved (wild_bids, loss)

    @property
    def max_dice(self) -> int:
        return int(self.config.starting_dice[0])

    def round(self, dice: tuple[int, ...]) -> NRound:
        """The abstraction the round with ``dice`` (turn order from the opener) was solved on."""
        r = self._rounds.get(dice)
        if r is None:
            r = self._rounds[dice] = _round(_round_rules(self.config, len(dice)), tuple(int(d) for d in dice), self.k)
        return r

    def probabilities(self, dice: tuple[int, ...], seat: int, state: int, rows: np.ndarray) -> np.ndarray:
        """(len(rows), actions of ``state``) probabilities of ``seat``'s hand ``rows`` at information set ``state``."""
        r = self.round(dice)
        e = r.edge_start[state]
        block = self.strategies[dice][seat][np.asarray(rows)[:, None], np.arange(e, e + r.widths[state])]
        block = block.astype(np.float64)
        total = block.sum(axis=1, keepdims=True)
        return np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / block.shape[1])

    def win_probabilities(self, dice: tuple[int, ...]) -> np.ndarray:
        """Each seat's probability of winning from a round with ``dice`` (two seats: from the two-player table; one:
        the game is won)."""
        if len(dice) == 1:
            return np.ones(1)
        if len(dice) == 2:
            v = self.two.value((int(dice[0]), int(dice[1])))
            return np.array([(1.0 + v) / 2.0, (1.0 - v) / 2.0])
        return self.values[tuple(int(d) for d in dice)]

    def seat_win_probabilities(self, dice: tuple[int, ...], opener: int) -> np.ndarray:
        """Each seat's probability of winning from a round with ``dice`` (by seat) opened by ``opener``; 0 for the
        seats out of dice."""
        order = seats_in_turn(dice, opener)
        out = np.zeros(len(dice))
        out[order] = self.win_probabilities(tuple(int(dice[s]) for s in order))
        return out

    def arrays(self, rounds: Iterable[tuple[int, ...]] | None = None) -> dict[str, np.ndarray]:
        """The table's arrays as saved: its settings and the rounds ``rounds`` (default: every one solved)."""
        cfg = self.config
        out = {"format": np.array(self.VARIANTS_FORMAT if cfg.variants else self.FORMAT),
               "players": np.array(cfg.num_players), "faces": np.array(cfg.faces),
               "wild": np.array(-1 if cfg.wild is None else cfg.wild), "opener": np.array(cfg.opener),
               "wild_bids": np.array(cfg.wild_bids), "loss": np.array(cfg.loss),
               "max_dice": np.array(self.max_dice), "k": np.array(self.k), "iterations": np.array(self.iterations),
               "samples": np.array(self.samples), "seed": np.array(self.seed)}
        for dice in self.strategies if rounds is None else rounds:
            name = _label(dice)
            for seat, strategy in enumerate(self.strategies[dice]):  # stored (columns, hands): a fifth smaller
                out[f"round_{name}_seat{seat}"] = np.ascontiguousarray(strategy.T)
            out[f"values_{name}"] = self.values[dice]
            out[f"seconds_{name}"] = np.array(self.seconds[dice])
        return out

    def settings(self) -> tuple[GameConfig, int, int, int, int]:
        """What the table was solved with: its config, k, iterations, samples and seed."""
        return self.config, self.k, self.iterations, self.samples, self.seed

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray], two: GameTable) -> BlueprintTable:
        if "players" not in data:
            raise ValueError("it is a two-player table; 3-6 players play a blueprint from `ldpomdp solve "
                             "equilibrium --players N`")
        if int(data["format"]) not in (cls.FORMAT, cls.VARIANTS_FORMAT):
            raise ValueError(f"blueprint table format {int(data['format'])}, expected {cls.FORMAT} or "
                             f"{cls.VARIANTS_FORMAT}")
        wild = int(data["wild"])
        config = GameConfig(num_players=int(data["players"]), dice=int(data["max_dice"]), faces=int(data["faces"]),
                            wild=None if wild < 0 else wild, opener=str(data["opener"]),
                            wild_bids=str(data.get("wild_bids", "plain")), loss=str(data.get("loss", "one")))
        table = cls(config, two, int(data["k"]), int(data["iterations"]), int(data["samples"]), int(data["seed"]))
        for name in data:
            if name.startswith("values_"):
                label = name[len("values_"):]
                dice = tuple(int(d) for d in label.split("_"))
                table.strategies[dice] = tuple(np.asarray(data[f"round_{label}_seat{s}"]).T for s in range(len(dice)))
                table.values[dice] = np.asarray(data[name], dtype=np.float64)
                table.seconds[dice] = float(data[f"seconds_{label}"])
        return table

    def save(self, path: str | Path) -> Path:
        """Write the table atomically (compressed .npz)."""
        return write_npz(path, self.arrays())

    @classmethod
    def load(cls, path: str | Path, two: GameTable) -> BlueprintTable:
        """The table in the file at ``path`` (``two``: the two-player table of its rules); TableError naming the
        file when it cannot be read."""
        return load_npz(path, "blueprint table", lambda data: cls.from_arrays(data, two))


def _label(dice: tuple[int, ...]) -> str:
    """A round's name in a table's arrays and in its file beside a checkpoint: the dice joined by ``_``."""
    return "_".join(map(str, dice))


def check_blueprint_rules(config: GameConfig) -> None:
    """ValueError naming what the blueprint does not cover: other than 3-6 players, sixes bids, rules that give dice
    back or change a round's rules (the exact call, palifico)."""
    if not 3 <= config.num_players <= 6:
        raise ValueError(f"the blueprint is for 3-6 players; the game has {config.num_players}")
    if config.exact_call or config.palifico or config.bids != "full":
        raise ValueError(f"the blueprint for 3-6 players covers rules where rounds only take dice away, such as "
                         f"today's and Dudo's (full bids, no exact call, no palifico); the game has "
                         f"{config.describe()}")


def _round_rules(config: GameConfig, seats: int) -> GameConfig:
    """The rules of a round with ``seats`` seats holding dice (the abstraction numbers bids by the table's dice)."""
    return GameConfig(num_players=seats, dice=config.starting_dice[0], faces=config.faces, wild=config.wild,
                      opener=config.opener, wild_bids=config.wild_bids, loss=config.loss)


def blueprint_rounds(config: GameConfig) -> list[tuple[int, ...]]:
    """Every round with three or more seats holding dice that a game of ``config`` reaches, as dice in turn order
    from the opener, in the order they are solved: fewest dice first."""
    top = config.starting_dice[0]
    rounds = [d for m in range(3, config.num_players + 1) for d in itertools.product(range(1, top + 1), repeat=m)]
    return sorted(rounds, key=lambda d: (sum(d), len(d), d))


def end_values(table: BlueprintTable, dice: tuple[int, ...]) -> np.ndarray:
    """(caller, m + table dice, seat) :func:`next_round_values` when ``caller`` challenges a bid (the seat before's)
    whose quantity exceeds the matching dice by m (m <= 0: the bid holds)."""
    n, total = len(dice), sum(dice)
    out = np.zeros((n, 2 * total + 1, n))
    for caller in range(n):
        for m in range(-total, total + 1):
            out[caller, m + total] = next_round_values(table, dice, caller, m)
    return out


def next_round_values(table: BlueprintTable, dice: tuple[int, ...], caller: int, missing: int) -> np.ndarray:
    """Each seat's probability of winning after the round with ``dice`` ends by ``caller``'s challenge of a bid that
    missed by ``missing`` (seats counted from this round's opener; the loser and its loss by the rules'
    :func:`~ldpomdp.rules.settle_count`); a seat out of dice wins with probability 0."""
    rules = _round_rules(table.config, len(dice))
    loser, after = settle_count(rules, dice, missing, (caller - 1) % len(dice), caller, CHALLENGE)
    return table.seat_win_probabilities(after, next_opener(rules, after, caller, loser))


def round_payoff(dice: tuple[int, ...], ends: np.ndarray) -> RoundPayoff:
    """The :class:`~ldpomdp.exact.multiplayer.RoundPayoff` of the round with ``dice`` whose ends are worth ``ends``
    (:func:`end_values`): each seat's probability of winning the game after each challenge."""
    return RoundPayoff(np.ascontiguousarray(ends.transpose(2, 0, 1)), None, sum(dice))


def end_probabilities(solver: NRoundCFR, strategy: list[np.ndarray], rows: np.ndarray, weight: np.ndarray
                      ) -> np.ndarray:
    """(caller, m + table dice) the probability that a round played by ``strategy`` ends with that seat's challenge
    of a bid that missed by m, over the joint hands ``rows`` (seats, T) weighted by ``weight`` (T,): every seat's
    reach along the abstraction's chain of states, exact for each joint hand."""
    r = solver.round
    total = sum(r.dice)
    reach = solver.reach(strategy, rows, range(r.seats)) * weight[None, :]
    matches = np.stack([r.matches[j][rows[j]] for j in range(r.seats)]).sum(axis=0)  # (T, faces)
    out = np.zeros((r.seats, 2 * total + 1))
    for x, (actor, window) in enumerate(r.keys):
        if not window:
            continue
        bid = window[-1]
        call = r.edge_start[x] + r.widths[x] - 1  # no exact call: the challenge is the last column
        p = reach[x] * strategy[actor][rows[actor], call]
        out[actor] += np.bincount(bid.quantity - matches[:, bid.face - 1] + total, p, minlength=2 * total + 1)
    return out


def solve_blueprint(config: GameConfig, two: GameTable, iterations: int, samples: int = 16, seed: int = 0,
                    checkpoint: str | Path | None = None, progress: Callable[[int], None] | None = None,
                    executor: Executor | None = None) -> BlueprintTable:
    """Solve every round of ``config`` (3-6 players, rules as :func:`check_blueprint_rules` says) with three or more
    seats holding dice, fewest dice first, each against the win probabilities of the rounds it leads to; ``two``:
    the two-player table of the same rules (up to the same dice). ``checkpoint``: a file naming the settings, each
    solved round saved in the folder beside it (:func:`~ldpomdp.exact.equilibrium.rounds_folder`), resumed from, left
    for the caller to discard. ``progress(n)``: n more CFR+ iterations done. ``executor``: solves the rounds of one
    dice total at once, to the same table."""
    check_blueprint_rules(config)
    if rules_key(two.config) != rules_key(config):
        raise ValueError(f"the two-player table is for {two.config.describe()}; the blueprint's game is "
                         f"{config.describe()}")
    if two.max_dice < config.starting_dice[0]:
        raise ValueError(f"the two-player table covers up to {two.max_dice} dice each; the game starts with "
                         f"{config.starting_dice[0]}")
    table = BlueprintTable(config, two, BLUEPRINT_RECALL, int(iterations), int(samples), int(seed))
    folder = None if checkpoint is None else rounds_folder(checkpoint)
    if checkpoint is not None:
        _resume(table, Path(checkpoint))
        if progress is not None:
            progress(iterations * len(table.strategies))
    # these rules only take dice away: a round leads to rounds of fewer dice, all solved at the totals before
    for _, level in itertools.groupby(blueprint_rounds(config), key=sum):
        jobs = {dice: (config, table.k, iterations, samples, seed, dice, end_values(table, dice)) for dice in level
                if dice not in table.strategies}
        if executor is None:
            solved = ((dice, _solve_round(*job, progress=progress)) for dice, job in jobs.items())
        else:
            futures = {executor.submit(_solve_round, *job): dice for dice, job in jobs.items()}
            solved = ((futures[future], future.result()) for future in as_completed(futures))
        for dice, (strategies, values, seconds) in solved:
            table.strategies[dice], table.values[dice], table.seconds[dice] = strategies, values, seconds
            if executor is not None and progress is not None:
                progress(iterations)
            if folder is not None:
                write_npz(folder / f"round_{_label(dice)}.npz", table.arrays([dice]))
    order = blueprint_rounds(config)  # however solved and resumed, the table lists its rounds in solve order
    table.strategies, table.values = {d: table.strategies[d] for d in order}, {d: table.values[d] for d in order}
    table.seconds = {d: table.seconds[d] for d in order}
    return table


def _resume(table: BlueprintTable, checkpoint: Path) -> None:
    """Add to ``table`` the rounds ``checkpoint`` and the round files beside it hold (the checkpoint written first
    when there is none, after clearing round files left without it). ValueError if one was solved otherwise,
    TableError if one cannot be read."""
    if not checkpoint.is_file():
        discard_checkpoint(checkpoint)
        write_npz(checkpoint, table.arrays())
        return
    # a kill may leave a write's temporary file beside the rounds' files: not a round's, not read
    rounds = sorted(p for p in rounds_folder(checkpoint).glob("round_*.npz")
                    if re.fullmatch(r"round_\d+(_\d+)+\.npz", p.name))
    for path in [checkpoint, *rounds]:
        hint = ("delete the checkpoint to start afresh" if path == checkpoint else
                "delete this file to solve its round again")
        done = load_npz(path, "blueprint checkpoint", lambda data: BlueprintTable.from_arrays(data, table.two), hint)
        if done.settings() != table.settings():
            raise ValueError(f"checkpoint {path} was solved with other settings ({done.config.num_players} players, "
                             f"{done.max_dice} dice, {done.config.describe()}, {done.iterations} iterations, "
                             f"{done.samples} samples, seed {done.seed}); remove it or give the same settings")
        table.strategies.update(done.strategies)
        table.values.update(done.values)
        table.seconds.update(done.seconds)


def _solve_round(config: GameConfig, k: int, iterations: int, samples: int, seed: int, dice: tuple[int, ...],
                 ends: np.ndarray, progress: Callable[[int], None] | None = None
                 ) -> tuple[tuple[np.ndarray, ...], np.ndarray, float]:
    """One blueprint round with ends worth ``ends`` (:func:`end_values`), solved: its quantized average strategies,
    each seat's win probability, CPU seconds."""
    start = time.process_time()
    solver = NRoundCFR(_round_rules(config, len(dice)), dice, k, round_payoff(dice, ends), samples=samples, seed=seed)
    for _ in range(iterations):
        solver.run(1)
        if progress is not None:
            progress(1)
    average = solver.average_strategy()
    rows = draw_hands(solver.round, range(len(dice)), VALUE_SAMPLES, np.random.default_rng((seed, *dice)))
    played = end_probabilities(solver, average, rows, np.full(VALUE_SAMPLES, 1.0 / VALUE_SAMPLES))
    return tuple(quantize(s) for s in average), np.einsum("cm,cms->s", played, ends), time.process_time() - start
