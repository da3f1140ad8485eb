"""The blueprint's solve for 3-6 players: every round of 3 or more seats by CFR+, chained by win probabilities.

Each round with three or more seats holding dice is solved by ``NRoundCFR`` (the sixes game's bid lines by
``LineRoundCFR``) and chained over dice states by each seat's probability of winning the game (``states``); once two
seats remain, the two-player table takes over. Where dice are only lost (today's rules, Dudo's) one pass, fewest dice
first; under the exact call, which gives dice back (Perudo's), sweeps to the chain's fixed point. In the sixes game the
ends are worth fair rounds' win probabilities instead (``blueprint_continuation``). The method, its cost and its
measurements: the Exact solvers page, "Three to six players".
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, as_completed
from pathlib import Path

import numpy as np

from ...caches import memo
from ...datafiles import load_npz, write_npz
from ...errors import UsageError
from ...rules import GameConfig
from ..against_models.game_values import FairRounds
from ..cfr import run_until
from ..two_player.equilibrium import COARSE_SWEEPS, SWEEP_TOLERANCE, discard_checkpoint, rounds_folder
from ..two_player.states import game_config
from ..two_player.table import GameTable, quantize, rules_key
from .round import RoundPayoff
from .round_cfr import LineRoundCFR, NRoundCFR
from .states import (
    RoundKey,
    SeatsState,
    chain_win_probabilities,
    follow,
    round_rules,
    seat_slots,
    seat_states,
    usual_state,
)
from .table import BlueprintTable, round_label

__all__ = ["blueprint_rounds", "blueprint_sweeps", "blueprint_iterations", "blueprint_continuation",
           "solve_blueprint", "end_values", "end_probabilities", "check_blueprint_rules", "BLUEPRINT_RECALL",
           "VALUE_SAMPLES"]

BLUEPRINT_RECALL = 1  # k: the last bid (k = 2 costs ~40x per iteration at 3 x 5 dice: the Exact solvers page)
VALUE_SAMPLES = 8192  # joint hands drawn to value a solved round (its ends' probabilities)
SIXES_TUPLES = 1_000_000  # the sixes game's joint hands (matching counts) are few: up to this many, all of them

def check_blueprint_rules(config: GameConfig) -> None:
    """UsageError naming what the blueprint does not cover: other than 3-6 players, or under the exact call unequal
    starting dice."""
    if not 3 <= config.num_players <= 6:
        raise UsageError(f"the blueprint is for 3-6 players; the game has {config.num_players}")
    if config.exact_call and len(set(config.starting_dice)) != 1:
        raise UsageError(f"under the exact call the blueprint takes equal starting dice (a right call wins a die "
                         f"back up to them); got {config.starting_dice}")


def blueprint_rounds(config: GameConfig) -> list[RoundKey]:
    """Every round with three or more seats holding dice that a game of ``config`` reaches, in solve order.

    Fewest dice first (then fewer seats, ordinary rounds before palifico ones). Where dice are only lost, every round up
    to the starting dice (a table of games starting with fewer too); under the exact call, those of games from the
    start."""
    if config.exact_call:
        return list(dict.fromkeys(s.key for s in _states(config)))
    top = config.starting_dice[0]
    rounds = [(d, palifico) for m in range(3, config.num_players + 1)
              for d in itertools.product(range(1, top + 1), repeat=m)
              for palifico in ((False, True) if config.palifico and top > 1 and 1 in d else (False,))]
    return sorted(rounds, key=lambda key: (sum(key[0]), len(key[0]), key[0], key[1]))


@memo(maxsize=16)
def _states(config: GameConfig) -> tuple[SeatsState, ...]:
    """The states the blueprint values: under the exact call every one a game from the start reaches, else each
    round's usual state (cached: the rounds and the solve both ask)."""
    if config.exact_call:
        start = SeatsState((config.starting_dice[0],) * config.num_players)
        return tuple(seat_states(config, [start]))
    return tuple(usual_state(config, key) for key in blueprint_rounds(config))


def blueprint_continuation(config: GameConfig) -> str:
    """What a round's ends are worth to the blueprint of ``config``: ``"chain"`` or ``"fair"``.

    ``"chain"``, the win probabilities of the rounds they lead to as the blueprint plays them; in the sixes game
    ``"fair"``, those of fair rounds (each round's loser equally likely), as the chain stops telling a die's worth there
    at many dice (the Exact solvers page)."""
    return "fair" if config.bids == "sixes" else "chain"


def _fair_win_probabilities(state: SeatsState) -> np.ndarray:
    """Each seat's probability of winning from ``state`` if each round's loser were equally likely (fair rounds)."""
    return np.array([FairRounds(j).win_probability(state.dice) for j in range(len(state.dice))])


def blueprint_sweeps(config: GameConfig, iterations: int, sweeps: int = 1) -> list[int]:
    """The CFR+ iterations of each sweep's fresh solve of every round, one entry per sweep.

    One sweep where dice are only lost or the ends are worth fair rounds (``blueprint_continuation``); under the exact
    call ``COARSE_SWEEPS`` of a tenth of ``iterations``, then ``sweeps`` of ``iterations`` (``solve_blueprint`` stops
    after one whose residual is below the tolerance)."""
    if not config.exact_call or blueprint_continuation(config) == "fair":
        return [iterations]
    return [max(1, iterations // 10)] * COARSE_SWEEPS + [iterations] * sweeps


def blueprint_iterations(config: GameConfig, iterations: int, sweeps: int = 1) -> int:
    """The most CFR+ iterations ``solve_blueprint`` runs for ``config``, as its ``progress`` counts them."""
    return len(blueprint_rounds(config)) * sum(blueprint_sweeps(config, iterations, sweeps))


def end_values(table: BlueprintTable, state: SeatsState,
               value: Callable[[SeatsState], np.ndarray] | None = None) -> RoundPayoff:
    """Each seat's value of every way the round at ``state`` ends, as a ``RoundPayoff``.

    A seat's value is its probability of winning the game from where the end leads (``follow``; 0 when out of dice), a
    state worth ``value(state)`` (default the table's ``BlueprintTable.state_win_probabilities``; one or two seats:
    always the table's)."""
    n, total = len(state.dice), sum(state.dice)
    slots = seat_slots(table.config, n, total)
    worth = np.zeros((len(slots), n))
    for i, slot in enumerate(slots):
        following, place = follow(table.config, state, slot)
        v = (value if value is not None and len(following.dice) > 2 else table.state_win_probabilities)(following)
        worth[i] = [v[k] if k >= 0 else 0.0 for k in place]
    return RoundPayoff.from_slots(worth, total)


def end_probabilities(solver: NRoundCFR, strategy: list[np.ndarray], rows: np.ndarray, weight: np.ndarray
                      ) -> np.ndarray:
    """(slots,) the probability that a round played by ``strategy`` ends by each slot.

    The slots are ``seat_slots``'s (a seat's challenge of a bid that missed by m, a seat's wrong or right exact call).
    Over the joint hands ``rows`` (seats, T) weighted by ``weight`` (T,): every seat's reach along the abstraction's
    chain of states, exact for each joint hand."""
    r = solver.round
    total, width, calls = sum(r.dice), 2 * sum(r.dice) + 1, 2 if r.config.exact_call else 1
    reach = solver.reach(strategy, rows, range(r.seats)) * weight[None, :]
    matches = np.stack([r.matches[j][rows[j]] for j in range(r.seats)]).sum(axis=0)  # (T, faces)
    out = np.zeros(r.seats * (width + 2 * (calls - 1)))
    for x, (actor, window) in enumerate(r.keys):
        if not window:
            continue
        bid = window[-1]
        first = r.edge_start[x] + r.widths[x] - calls  # the challenge, then the exact call
        missing = bid.quantity - matches[:, bid.face - 1]
        p = reach[x] * strategy[actor][rows[actor], first]
        out[actor * width:(actor + 1) * width] += np.bincount(missing + total, p, minlength=width)
        if calls == 2:
            p = reach[x] * strategy[actor][rows[actor], first + 1]
            right = float(p[missing == 0].sum())
            out[r.seats * width + 2 * actor:r.seats * width + 2 * actor + 2] += [p.sum() - right, right]
    return out


def solve_blueprint(config: GameConfig, two: GameTable, iterations: int, samples: int = 16, seed: int = 0,
                    checkpoint: str | Path | None = None, progress: Callable[[int], None] | None = None,
                    executor: Executor | None = None, sweeps: int = 1) -> BlueprintTable:
    """Solve every round of ``config`` (``blueprint_rounds``) into a ``BlueprintTable``, fewest dice first.

    Each round is solved against the win probabilities of the states it leads to: the sweep's rounds of fewer dice, else
    the last sweep's fixed point (first: fair rounds; always fair rounds, in one pass, where ``blueprint_continuation``
    says so); otherwise under the exact call each sweep (``blueprint_sweeps``) ends with the chain's fixed point and its
    ``residual``, stopping below the tolerance. ``two``: the two-player table of the rules. With ``checkpoint`` each
    round saved beside it, resumed from, left for the caller to discard; ``progress(n)``: n more CFR+ iterations;
    ``executor`` solves a dice total's rounds at once, to the same table. The Exact solvers page.

    Args:
        config: the game's rules and starting dice (3-6 players; under the exact call, equal starting dice).
        two: the two-player table of the rules, covering the starting dice: it plays the rounds with two seats left.
        iterations: CFR+ iterations per round in a full sweep (``blueprint_sweeps``).
        samples: the other seats' joint hands drawn per update when they are many (``NRoundCFR``).
        seed: seeds the drawn joint hands.
        checkpoint: a file to save the sweeps to, each round saved beside it, and to resume from (None: none).
        progress: called with n after n more CFR+ iterations (None: not called).
        executor: solves a dice total's rounds at once (None: one after another in this process).
        sweeps: full sweeps at most under the exact call, after the coarse ones (>= 1).

    Returns:
        The ``BlueprintTable``, its rounds in solve order.

    Raises:
        UsageError: rules the blueprint does not cover (``check_blueprint_rules``), ``sweeps`` below 1, a two-player
            table for other rules or fewer dice, or a checkpoint solved with other settings.
    """
    check_blueprint_rules(config)
    if sweeps < 1:
        raise UsageError(f"sweeps must be >= 1, got {sweeps!r}")
    if rules_key(two.config) != rules_key(game_config(config, config.starting_dice[0])):
        raise UsageError(f"the two-player table is for {two.config.describe()}; the blueprint's game is "
                         f"{config.describe()}")
    if two.max_dice < config.starting_dice[0]:
        raise UsageError(f"the two-player table covers up to {two.max_dice} dice each; the game starts with "
                         f"{config.starting_dice[0]}")
    table = BlueprintTable(config, two, BLUEPRINT_RECALL, int(iterations), int(samples), int(seed),
                           continuation=blueprint_continuation(config))
    keys, states = blueprint_rounds(config), _states(config)
    schedule = blueprint_sweeps(config, iterations, sweeps)
    guess = {s: _fair_win_probabilities(s) for s in states}
    folder = None if checkpoint is None else rounds_folder(checkpoint)
    finished = 0
    if checkpoint is not None:
        finished, last = _resume(table, Path(checkpoint), states, guess)
        if last is not None and _finished(last, schedule):
            return _in_order(last, keys)
        if progress is not None:
            progress(sum(schedule[:finished]) * len(keys) + schedule[finished] * len(table.strategies))
    for sweep in range(finished, len(schedule)):
        used = _sweep(table, keys, guess, schedule[sweep], sweep, folder, progress, executor)
        if len(schedule) == 1:
            break
        guess = _fix_values(table, states, keys, used)
        table.sweeps = sweep + 1
        if checkpoint is not None:
            write_npz(checkpoint, {**table.arrays(), "estimate": np.concatenate([guess[s] for s in states])})
        if _finished(table, schedule):
            break
        table = BlueprintTable(config, two, table.k, table.iterations, table.samples, table.seed, sweeps=table.sweeps,
                               residual=table.residual, continuation=table.continuation)
    return _in_order(table, keys)


def _finished(table: BlueprintTable, schedule: list[int]) -> bool:
    """Whether the sweeps ``table`` has done end the solve: all of ``schedule``, or a full one within the
    tolerance."""
    return table.sweeps >= len(schedule) or table.sweeps > COARSE_SWEEPS and table.residual <= SWEEP_TOLERANCE


def _in_order(table: BlueprintTable, keys: list[RoundKey]) -> BlueprintTable:
    """``table`` with its rounds listed in solve order ``keys``, however they were solved and resumed."""
    table.strategies, table.values = {k: table.strategies[k] for k in keys}, {k: table.values[k] for k in keys}
    table.ends, table.seconds = {k: table.ends[k] for k in keys}, {k: table.seconds[k] for k in keys}
    return table


def _sweep(table: BlueprintTable, keys: list[RoundKey], guess: Mapping[SeatsState, np.ndarray], iterations: int,
           sweep: int, folder: Path | None, progress: Callable[[int], None] | None, executor: Executor | None
           ) -> dict[RoundKey, np.ndarray]:
    """Solve the rounds ``keys`` the table lacks; return what each round's ends were worth.

    Each is solved with ``iterations`` CFR+ iterations, the rounds of one dice total at once, each against its usual
    state's ends (``end_values``) worth the win probabilities of the sweep's rounds of fewer dice, else ``guess`` (fair
    rounds' where the continuation is fair); each round saved in ``folder`` marked with ``sweep``. Returns what each
    round's ends were worth (``RoundPayoff.by_slot``)."""
    config = table.config
    solved: dict[SeatsState, np.ndarray] = {}  # the usual states of the levels solved so far

    def value(state: SeatsState) -> np.ndarray:
        return solved[state] if state in solved else guess[state]

    worth = _fair_win_probabilities if table.continuation == "fair" else value
    used = {}
    for _, level in itertools.groupby(keys, key=lambda k: sum(k[0])):
        payoffs = {key: end_values(table, usual_state(config, key), worth) for key in level}
        jobs = {key: (config, table.k, iterations, table.samples, table.seed, key, payoff)
                for key, payoff in payoffs.items() if key not in table.strategies}
        if executor is None:
            done = ((key, _solve_round(*job, progress=progress)) for key, job in jobs.items())
        else:
            futures = {executor.submit(_solve_round, *job): key for key, job in jobs.items()}
            done = ((futures[future], future.result()) for future in as_completed(futures))
        for key, (strategies, ends, seconds) in done:
            table.strategies[key], table.ends[key], table.seconds[key] = strategies, ends, seconds
            table.values[key] = _expected(payoffs[key], ends)
            if executor is not None and progress is not None:
                progress(iterations)
            if folder is not None:
                write_npz(folder / f"round_{round_label(key)}.npz", {**table.arrays([key]), "sweep": np.array(sweep)})
        for key, payoff in payoffs.items():
            solved[usual_state(config, key)] = table.values[key]
            used[key] = payoff.by_slot()
    return used


def _expected(payoff: RoundPayoff, ends: np.ndarray) -> np.ndarray:
    """Each seat's expected value of a round whose ends are worth ``payoff`` and have probabilities ``ends``
    (``end_probabilities``)."""
    n, width = payoff.challenge.shape[1:]
    value = np.einsum("cm,cms->s", ends[:n * width].reshape(n, width),
                      np.ascontiguousarray(payoff.challenge.transpose(1, 2, 0)))
    if payoff.exact is not None:
        value = value + np.einsum("cr,scr->s", ends[n * width:].reshape(n, 2), payoff.exact)
    return value


def _fix_values(table: BlueprintTable, states: Sequence[SeatsState], keys: list[RoundKey],
                used: Mapping[RoundKey, np.ndarray]) -> dict[SeatsState, np.ndarray]:
    """Set the table's values to the chain's fixed point under its rounds' ends, and its residual.

    The fixed point is returned, for every state. The residual: the largest gap between what an end of a round is worth
    there and what it was worth when the round was solved (``used``)."""
    config = table.config
    fixed = chain_win_probabilities(config, states, table.ends, table.state_win_probabilities)
    table.residual = max(float(np.abs(end_values(table, usual_state(config, key), fixed.__getitem__).by_slot()
                                      - used[key]).max()) for key in keys)
    for key in keys:
        table.values[key] = fixed[usual_state(config, key)]
    return fixed


def _resume(table: BlueprintTable, checkpoint: Path, states: Sequence[SeatsState],
            guess: dict[SeatsState, np.ndarray]) -> tuple[int, BlueprintTable | None]:
    """Resume from ``checkpoint``: the sweeps it says are finished, and the last one's table.

    The table is None before the first sweep ends; its fixed point is put in ``guess``. Returned after adding to
    ``table`` the rounds of the next sweep saved beside it (the checkpoint written first when there is none, after
    clearing round files left without it). UsageError if one was solved otherwise, TableError if one cannot be read."""
    if not checkpoint.is_file():
        discard_checkpoint(checkpoint)
        write_npz(checkpoint, table.arrays())
        return 0, None
    found = _load_checked(table, checkpoint, "delete the checkpoint to start afresh")
    last: BlueprintTable | None = found["table"] if "estimate" in found else None
    if last is not None:
        estimate, start = found["estimate"], 0
        if len(estimate) != sum(len(s.dice) for s in states):
            raise UsageError(f"checkpoint {checkpoint} values {len(estimate)} seats of states, the game's states have "
                             f"{sum(len(s.dice) for s in states)}: delete it to start afresh")
        for s in states:
            guess[s] = estimate[start:start + len(s.dice)]
            start += len(s.dice)
        table.sweeps, table.residual = last.sweeps, last.residual
    finished = 0 if last is None else last.sweeps
    # a kill may leave a write's temporary file beside the rounds' files: not a round's, not read
    rounds = sorted(p for p in rounds_folder(checkpoint).glob("round_*.npz")
                    if re.fullmatch(r"round_\d+(_\d+)+(_palifico)?\.npz", p.name))
    for path in rounds:
        data = _load_checked(table, path, "delete this file to solve its round again")
        if int(data.get("sweep", 0)) == finished:  # an earlier sweep's round is solved again
            solved: BlueprintTable = data["table"]
            table.strategies.update(solved.strategies)
            table.values.update(solved.values)
            table.ends.update(solved.ends)
            table.seconds.update(solved.seconds)
    return finished, last


def _load_checked(table: BlueprintTable, path: Path, hint: str) -> dict:
    """A checkpoint file's table (``"table"``) and its sweep arrays; UsageError when it was solved otherwise."""
    def read(data: Mapping[str, np.ndarray]) -> dict:
        return {**{name: data[name] for name in ("estimate", "sweep") if name in data},
                "table": BlueprintTable.from_arrays(data, table.two)}

    found = load_npz(path, "blueprint checkpoint", read, hint)
    done: BlueprintTable = found["table"]
    if done.settings() != table.settings():
        raise UsageError(f"checkpoint {path} was solved with other settings ({done.config.num_players} players, "
                         f"{done.max_dice} dice, {done.config.describe()}, {done.iterations} iterations, "
                         f"{done.samples} samples, seed {done.seed}, {done.continuation} ends); remove it or give the "
                         f"same settings")
    return found


def _solve_round(config: GameConfig, k: int, iterations: int, samples: int, seed: int, key: RoundKey,
                 payoff: RoundPayoff, progress: Callable[[int], None] | None = None
                 ) -> tuple[tuple[np.ndarray, ...], np.ndarray, float]:
    """One blueprint round with ends worth ``payoff`` (``end_values``), solved: its quantized average strategies,
    the probability of each way it ends (``end_probabilities``), CPU seconds."""
    start = time.process_time()
    dice, palifico = key
    rules = round_rules(config, len(dice), palifico)
    sixes = config.bids == "sixes"  # a hand is its matching count: the joint hands are few, every one enumerated
    solver: NRoundCFR | LineRoundCFR
    if sixes and not rules.exact_call:  # a line of bids: the exact CFR, vectorised
        solver = LineRoundCFR(rules, dice, k, payoff)
    else:
        solver = NRoundCFR(rules, dice, k, payoff, samples=samples, seed=seed,
                           max_tuples=SIXES_TUPLES if sixes else None)
    for step, _ in run_until(solver, iterations):
        if progress is not None:
            progress(step)
    average = solver.average_strategy()
    if isinstance(solver, LineRoundCFR):
        played = solver.end_probabilities(average)
    else:
        most = SIXES_TUPLES if sixes else 0  # the full game's ends are valued by drawn joint hands
        rows, weight = solver.joint_hands(range(len(dice)), VALUE_SAMPLES, np.random.default_rng((seed, *dice)), most)
        played = end_probabilities(solver, average, rows, weight)
    return tuple(quantize(s) for s in average), played, time.process_time() - start
