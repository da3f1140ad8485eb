"""``ldpomdp solve equilibrium``: the ``cfr`` player's table (CFR+; two players) or blueprint (3-6 players),
resumable, and the lines that report it."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..moved import moved_attribute
from ..rules import GameConfig, dice_text
from .options import add_rule_options, config_from_args, option_int

__all__ = ["add_solve_parser", "cmd_solve", "ASK_ABOVE"]


def cmd_solve(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ..exact.tables import SHIPPED
    from ..exact.two_player.equilibrium import SWEEP_TOLERANCE, discard_checkpoint, game_iterations, solve_game
    from ..exact.two_player.states import game_config

    dice = SHIPPED.dice if args.dice is None else args.dice
    recall = SHIPPED.recall if args.recall is None else args.recall
    iterations = SHIPPED.iterations if args.iterations is None else args.iterations
    config = config_from_args(args, args.players, dice)
    out = Path(args.out)
    _check_out_file(out, "--out")
    checkpoint = out.with_name(out.name + ".checkpoint.npz")
    if args.players > 2:
        return _solve_blueprint(args, config, iterations, out, checkpoint)
    if args.workers != 1:
        raise UsageError("--workers: two-player rounds are solved one after another (it applies to 3-6 players)")
    _announce(config, dice, recall, iterations, args.sweeps, args.yes)
    with _resumable(checkpoint):
        with tqdm(total=game_iterations(game_config(config, dice), iterations, args.sweeps), unit="it",
                  disable=args.no_progress) as bar:
            table = solve_game(config, dice, recall, iterations, seed=args.seed, checkpoint=checkpoint,
                               checkpoint_every=args.checkpoint_every, progress=bar.update, sweeps=args.sweeps)
        table.save(out)
        if table.residual <= SWEEP_TOLERANCE:
            discard_checkpoint(checkpoint)
    print("\n".join(_table_report(table, config, dice, out, checkpoint, args.sweeps)))
    return 0


ASK_ABOVE = 3600  # CPU s of an estimated solve above which ``--yes`` must confirm it
SAY_ABOVE = 600  # CPU s of an estimated solve above which its estimate is printed before it starts


def _announce(config: GameConfig, dice: int, recall: str, iterations: int, sweeps: int, confirmed: bool) -> None:
    """Say what the solve will cost before it starts (above ``SAY_ABOVE``); above ``ASK_ABOVE`` refuse it unless
    ``confirmed``."""
    from ..exact.tables import cost_text, solve_seconds

    seconds = solve_seconds(config, dice, recall, iterations, sweeps)
    cost = cost_text(seconds)
    what = f"solving every round up to {dice_text(dice)} each ({iterations} iterations a round, recall {recall})"
    if seconds > ASK_ABOVE and not confirmed:
        raise UsageError(f"{what} would take {cost} (a model fitted to the shipped table's solve, docs/exact.md): "
                         f"pass --yes to start it, or give fewer --dice or --iterations")
    if seconds > SAY_ABOVE:
        print(f"{what}: {cost}, estimated", file=sys.stderr)


def _table_report(table, config: GameConfig, dice: int, out: Path, checkpoint: Path, sweeps: int) -> list[str]:
    """The lines that report a two-player ``table`` written to ``out``: its file, rules, residual, rounds and, for
    a game of one-round ends, its exploitability with one die each."""
    from ..exact import exploitability
    from ..exact.two_player.equilibrium import SWEEP_TOLERANCE
    from ..exact.two_player.states import key_round
    from ..players.cfr import CFRPlayer

    lines = [f"table: {out} ({out.stat().st_size / 1e6:.2f} MB; play it as cfr:table={out}, e.g. ldpomdp play "
             f"--opponents cfr:table={out}, under the rule flags it was solved with)",
             f"rules: {table.config.describe()}" + (f"; games starting with {dice_text(dice)} each, fixed "
                                                    f"point residual {table.residual:.2g}"
                                                    if table.config.exact_call else "")]
    if table.residual > SWEEP_TOLERANCE:
        lines.append(f"the fixed point's residual is above {SWEEP_TOLERANCE:g} after {sweeps} sweep(s): the next "
                     f"sweep's start is kept in {checkpoint} (the rounds' states beside it); run the same command with "
                     f"--sweeps {sweeps + 1} to continue from it")
    for key, seconds in table.seconds.items():
        kind = " (palifico)" if key_round(key)[1] else ""
        lines.append(f"round {key[0]} vs {key[1]} dice{kind}: game value to the opener "
                     f"{table.value(*key_round(key)):+.4f}, {seconds:.1f} CPU s")
    if config.exact_call:  # a right exact call repeats the round with one die each: not a one-round game
        return lines
    # the round with one die each is the one-round +1/-1 game: its exploitability is exact
    e = exploitability(CFRPlayer(table), replace(config, dice=(1, 1)), (1, 1))
    lines.append(f"exploitability with 1 die each: as opener {e.as_opener:.4f}, as responder {e.as_responder:.4f}, "
                 f"average {e.average:.4f} (payoff units; the LP's value {e.value:+.4f})")
    return lines


@contextmanager
def _resumable(checkpoint: Path) -> Iterator[None]:
    """A solve that ``kill`` stops as Ctrl-C does (no temporary file left behind), saying where its checkpoint is."""
    from ..interrupts import sigterm_as_interrupt

    try:
        with sigterm_as_interrupt():
            yield
    except KeyboardInterrupt as exc:
        if checkpoint.exists():
            print(f"stopped{' by SIGTERM' if exc.args == ('SIGTERM',) else ''}: the rounds solved so far are saved "
                  f"in {checkpoint}; run the same command again to resume", file=sys.stderr)
        raise


def _solve_blueprint(args: argparse.Namespace, config: GameConfig, iterations: int, out: Path, checkpoint: Path
                     ) -> int:
    """``ldpomdp solve equilibrium --players N`` (N >= 3): the blueprint, resumable from ``checkpoint``."""
    from tqdm import tqdm

    from ..exact.many_players.blueprint import (
        BLUEPRINT_RECALL,
        blueprint_iterations,
        check_blueprint_rules,
        solve_blueprint,
    )
    from ..exact.tables import table_for
    from ..exact.two_player.equilibrium import SWEEP_TOLERANCE, discard_checkpoint
    from ..exact.two_player.states import game_config
    from ..sweeps.runner import worker_pool

    if args.recall not in (None, str(BLUEPRINT_RECALL)):
        raise UsageError(f"--recall: the blueprint for 3-6 players recalls the last {BLUEPRINT_RECALL} bid, got "
                         f"{args.recall!r}")
    check_blueprint_rules(config)  # before the two-player table, which may be solved first
    two = table_for(game_config(config, config.starting_dice[0]))
    pool = worker_pool(args.workers, broken=f"It was killed or ran out of memory; the rounds solved so far are saved "
                       f"beside {checkpoint}: run the same command again to resume")
    with _resumable(checkpoint), (pool if args.workers > 1 else nullcontext((None, 1))) as (executor, _):
        with tqdm(total=blueprint_iterations(config, iterations, args.sweeps), unit="it",
                  disable=args.no_progress) as bar:
            table = solve_blueprint(config, two, iterations, samples=args.samples, seed=args.seed,
                                    checkpoint=checkpoint, progress=bar.update, executor=executor, sweeps=args.sweeps)
        table.save(out)
        if table.residual <= SWEEP_TOLERANCE:
            discard_checkpoint(checkpoint)
    print("\n".join(_blueprint_report(table, config, out, checkpoint)))
    return 0


def _blueprint_report(table, config: GameConfig, out: Path, checkpoint: Path) -> list[str]:
    """The lines that report a blueprint ``table`` written to ``out``: its file, rules, ends, sweeps and rounds."""
    from ..exact.two_player.equilibrium import COARSE_SWEEPS, SWEEP_TOLERANCE

    lines = [f"blueprint: {out} ({out.stat().st_size / 1e6:.2f} MB; play it as cfr:table={out} at tables of "
             f"{config.num_players}); rules: {config.describe()}"]
    if table.continuation == "fair":
        lines.append("each round's ends are worth fair rounds' win probabilities (each round's loser equally likely); "
                     "the rounds' values below are their ends' expected worth as the blueprint plays them (Exact "
                     "solvers page)")
    elif config.exact_call:
        lines.append(f"{table.sweeps} sweep(s), fixed point residual {table.residual:.2g}" + (
            "" if table.residual <= SWEEP_TOLERANCE else f", above {SWEEP_TOLERANCE:g}: the last sweep's table is kept "
            f"in {checkpoint}; run the same command with --sweeps {table.sweeps - COARSE_SWEEPS + 1} to continue from "
            f"it"))
    for (dice, palifico), seconds in table.seconds.items():
        lines.append(f"round {'-'.join(map(str, dice))} dice{' (palifico)' if palifico else ''} (in turn from the "
                     f"opener): win probabilities {', '.join(f'{v:.3f}' for v in table.values[(dice, palifico)])}, "
                     f"{seconds:.1f} CPU s")
    return lines


def _check_out_file(out: Path, option: str) -> None:
    """Refuse ``option``'s file ``out`` before any work if it cannot be written: a folder, a path under a file, a
    folder that is not writable. Creates nothing."""
    if out.is_dir():
        raise UsageError(f"{option} {str(out)!r} is a folder: give the file to write, e.g. {str(out / 'cfr.npz')!r}")
    folder = out.parent
    try:
        while not folder.exists():  # the nearest folder that exists: the rest is made when the file is written
            folder = folder.parent
        if not folder.is_dir():
            raise UsageError(f"{option} {str(out)!r} lies under {str(folder)!r}, which is a file, not a folder")
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {str(out)!r}: cannot write in {str(folder)!r} ({exc.strerror or exc})") from None


def add_solve_parser(sub) -> None:
    solve = sub.add_parser("solve", help="compute an equilibrium table (CFR+; two players, or the blueprint for 3-6); "
                           "resumable")
    kinds = solve.add_subparsers(dest="kind", required=True)
    eq = kinds.add_parser("equilibrium", help="the whole game's rounds up to --dice each, smallest first")
    # defaults None: cmd_solve fills in the shipped table's settings (exact.tables.SHIPPED; importing them here would
    # load the solvers at every command's start)
    add_rule_options(eq, dice=dict(type=option_int(1), default=None,
                                   help="solve every round up to this many dice each (under the exact call: for games "
                                        "starting with this many; default: the shipped table's)"),
                     bids=dict(default="full", help="bid mode (default full; sixes: report 002's game, where a hand "
                                                    "counts by its matching dice)"),
                     seed=dict(default=0, help="seed of sampled hands (default 0)"))
    eq.add_argument("--sweeps", type=option_int(1), default=1,
                    help="under the exact call, full sweeps of the rounds at most (default 1), each valued by the "
                         "last one's fixed point; two players: each continuing the last one's CFR+, the first to "
                         "--iterations a round, each further one a tenth more; 3-6 players: each solving every round "
                         "afresh with --iterations (not in the sixes game, whose blueprint values the ends by fair "
                         "rounds in one pass); sweeps that run out above the tolerance keep the checkpoint, "
                         "which a larger --sweeps continues")
    eq.add_argument("--recall", default=None,
                    help="the last k bids recalled, or a schedule like 3@4,2 (k=3 up to 4 dice on the table, else 2; "
                         "default: the shipped table's)")
    eq.add_argument("--iterations", type=option_int(1), default=None,
                    help="CFR+ iterations per round (default: the shipped table's)")
    eq.add_argument("--players", type=option_int(2), default=2,
                    help="players (default 2); 3-6: the blueprint, every round with 3 or more seats holding dice, "
                         "under any rules (--rules dudo|perudo, --bids sixes)")
    eq.add_argument("--samples", type=option_int(1), default=16,
                    help="3-6 players: the other seats' joint hands drawn per update (default 16)")
    eq.add_argument("--workers", type=option_int(1), default=1,
                    help="3-6 players: worker processes solving the rounds of one dice total at once, to the same "
                         "table (default 1)")
    eq.add_argument("--out", default="results/cfr.npz", help="table file; <out>.checkpoint.npz resumes a killed run")
    eq.add_argument("--checkpoint-every", type=option_int(1), default=25,
                    help="iterations between checkpoints (2 players; 3-6 players save each round once solved)")
    eq.add_argument("--no-progress", action="store_true", help="no progress bar")
    eq.add_argument("--yes", action="store_true",
                    help="start a two-player solve estimated at over an hour of CPU (else refused, with the estimate)")
    eq.set_defaults(func=cmd_solve)


def __getattr__(name: str) -> Any:
    """The solve's cost model, moved to ``ldpomdp.exact.tables`` (which announces solves on first use), with a
    DeprecationWarning."""
    return moved_attribute(__name__, name)
