"""The whole two-player game's approximate equilibrium: every round solved by CFR+ and chained over dice states.

``solve_game`` solves the rounds fewest dice first (``game_rounds``), each (``RoundCFR``) with its ends valued by the
game values of the dice states they lead to; under the exact call, which gives dice back, sweeps to the chain's fixed
point (``sweep_targets``). Checkpoints keep a solve resumable (``discard_checkpoint``). The algorithm and its
measurements: the Exact solvers page.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...datafiles import load_npz, read_npz, write_npz
from ...errors import UsageError
from ...rules import GameConfig
from ..cfr import run_until
from .abstraction import recall_for
from .round_cfr import RoundCFR
from .states import (
    DiceState,
    RoundOutcome,
    canonical_state,
    chain_values,
    game_config,
    game_states,
    key_round,
    round_name,
    round_outcome,
    round_slots,
    successor,
)
from .table import GameTable

__all__ = ["solve_game", "game_iterations", "game_rounds", "sweep_targets", "discard_checkpoint", "rounds_folder",
           "SWEEP_TOLERANCE", "COARSE_SWEEPS"]

def game_rounds(config: GameConfig) -> list[tuple[int, ...]]:
    """The keys of every round a table of the two-player ``config`` solves, in the order they are solved.

    The table's dice: the largest covered, or under the exact call the start. Fewest dice first, ordinary rounds before
    palifico ones."""
    states = game_states(config, _starts(config))
    return list(dict.fromkeys(s.key for s in states))


def game_iterations(config: GameConfig, iterations: int, sweeps: int = 1) -> int:
    """The most CFR+ iterations ``solve_game`` runs for the two-player ``config``, as its ``progress`` counts
    them."""
    return len(game_rounds(config)) * sweep_targets(config, iterations, sweeps)[-1]


def sweep_targets(config: GameConfig, iterations: int, sweeps: int = 1) -> list[int]:
    """Each sweep's CFR+ iterations a round has had in all at its end (``solve_game``).

    ``[iterations]`` without the exact call; under it ``COARSE_SWEEPS`` coarse sweeps of a tenth of ``iterations`` each,
    the first full sweep up to ``iterations``, and each further one (``sweeps`` full ones in all) a tenth of
    ``iterations`` more."""
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
    """Solve every round of ``config``'s rules up to ``max_dice`` each (``game_rounds``) by CFR+: a ``GameTable``.

    Each round is solved with the recall ``recall`` gives it, its ends valued by the game values of the states they lead
    to. Under the exact call each sweep (``sweep_targets``, ``sweeps`` full ones at most) continues every round's CFR+
    valued by the last one's fixed point, until the ``GameTable.residual`` is below ``SWEEP_TOLERANCE`` (the Exact
    solvers page). With ``checkpoint``, progress goes there every ``checkpoint_every`` iterations (rounds' states beside
    it: ``discard_checkpoint``) and a run finding it continues to the same result; sweeps that run out above the
    tolerance leave their table there, which the same run returns and more ``sweeps`` continue. ``progress(n)``.

    Args:
        config: the game's rules (two players; under the exact call, equal starting dice).
        max_dice: the most dice each seat holds in the rounds solved.
        recall: the recall k, or a schedule like ``"3@4,2"`` (``recall_for``).
        iterations: CFR+ iterations per round (a full sweep's, under the exact call: ``sweep_targets``).
        seed: seeds the rounds' sampled opponent hands (``RoundCFR``).
        checkpoint: a file to save progress to and resume from (None: none).
        checkpoint_every: CFR+ iterations between checkpoint writes.
        progress: called with n after n more CFR+ iterations (None: not called).
        sweeps: full sweeps at most under the exact call, after the coarse ones (>= 1).

    Returns:
        The ``GameTable`` of every round solved.

    Raises:
        UsageError: unequal starting dice under the exact call, ``sweeps`` below 1, a bad ``recall``, or a checkpoint
            written with other settings or by an older solver.
    """
    cfg = game_config(config, max_dice)
    if cfg.exact_call and len(set(config.starting_dice)) != 1:
        raise UsageError(f"under the exact call the solver takes equal starting dice (a right call wins a die back up "
                         f"to them); got {config.starting_dice}")
    if sweeps < 1:
        raise UsageError(f"sweeps must be >= 1, got {sweeps!r}")
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
                raise UsageError(f"checkpoint {checkpoint} was written by an older solver (its sweeps solved every "
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
    """Delete a solve's checkpoint and the rounds' CFR+ states kept beside it (``solve_game``)."""
    Path(checkpoint).unlink(missing_ok=True)
    shutil.rmtree(rounds_folder(checkpoint), ignore_errors=True)


def rounds_folder(checkpoint: str | Path) -> Path:
    """The folder beside a solve's ``checkpoint`` that holds a file per round."""
    return Path(checkpoint).with_name(Path(checkpoint).name + ".rounds")


class _RoundStates:
    """Each round's CFR+ state (``RoundCFR.state_dict`` and its ``seconds``) after the last sweep that ran it.

    Kept in memory, or in ``folder`` (uncompressed, a file per round: 1.3 GB from 5 dice each) with a checkpoint."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.memory: dict[tuple[int, ...], dict] = {}

    def _path(self, key: tuple[int, ...]) -> Path:
        assert self.folder is not None
        return self.folder / f"{round_name(key)}.npz"

    def check(self, keys: list[tuple[int, ...]], span: tuple[int, int]) -> None:
        """UsageError naming the folder and the rounds unless each round of ``keys`` has a state of ``span[0]`` to
        ``span[1]`` iterations (a resumed sweep's)."""
        def fits(key: tuple[int, ...]) -> bool:
            if self.folder is None or not self._path(key).exists():
                return False
            state = read_npz(self._path(key), "round state", "delete the checkpoint to start afresh", ("iteration",))
            return span[0] <= int(state["iteration"]) <= span[1]

        wrong = [round_name(k) for k in keys if not fits(k)]
        if wrong:
            raise UsageError(f"the checkpoint's round states in {self.folder} lack round(s) {', '.join(wrong)} or "
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
    """Solve the rounds ``keys`` the table does not cover yet, in order.

    Each is valued by the rounds solved before it and ``guess`` for the states not solved yet (``solve_game``), from
    ``span[0]`` CFR+ iterations (continuing its state in ``rounds``) to ``span[1]``; ``state``: the running round to
    resume."""
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
        for step, seconds in run_until(solver, target, checkpoint_every):
            spent += seconds
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
    """P(the round ends by each slot, ``round_slots``) under ``strategy``.

    Slots leading to the same place from every state in ``states`` share their mass (it sits on the first of them)."""
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
    """Set the table's values to the chain's fixed point under its strategies, and its residual.

    The fixed point is returned, for every state. The residual: the largest gap between a next state's value there and
    the one its round was solved against (solved before it in the sweep, else ``guess``)."""
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
    """The table and running round stored at ``path``; TableError when it cannot be read, UsageError when it was
    solved with other settings."""
    table, state = load_npz(path, "checkpoint", _checkpoint, hint="delete it to start afresh")
    settings = (table.config, table.recall, table.iterations, table.seed)
    if settings != (fresh.config, fresh.recall, fresh.iterations, fresh.seed):
        raise UsageError(f"checkpoint {path} was solved with other settings (rules {table.config.describe()}, "
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
