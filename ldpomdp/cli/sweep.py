"""``ldpomdp sweep`` (benchmark sweeps, see ``ldpomdp.sweeps``), ``ldpomdp tournament`` (agents against each
other) and ``ldpomdp evaluate`` (one agent against a ladder of the package's)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from ..errors import UsageError, echo
from ..registry import split_specs
from .options import RULE_OPTIONS, VARIANT_OPTIONS, add_rule_options, config_from_args, deprecated_alias, option_int

__all__ = ["add_sweep_parser", "add_tournament_parser", "add_evaluate_parser", "cmd_sweep", "cmd_tournament",
           "cmd_evaluate", "SWEEP_DICE"]

SWEEP_DICE = "1-35"  # a sweep's dice per player when --dice is not given


def cmd_sweep(args: argparse.Namespace) -> int:
    options = dict(workers=args.workers, scheduler=args.scheduler, progress=not args.no_progress,
                   exact=not args.no_exact)
    if args.experiment:
        return _run_experiment(args, options)
    from ..sweeps import Cell, report, run_sweep
    from ..sweeps.tournament import check_folder_kind

    if not args.players:
        raise UsageError("give --players SPEC,SPEC[,...] or --experiment NAME")
    if args.quick:
        raise UsageError("--quick picks a named experiment's small version: give it with --experiment NAME")
    players = split_specs(args.players)
    if len(players) < 2:
        raise UsageError(f"--players {echo(args.players)} names {len(players)} player; a game needs at least two, "
                         f"separated by commas")
    dice = _sweep_dice(args, len(players))
    config = config_from_args(args, len(players), dice=dice[0])
    cells = [Cell(tuple(players), replace(config, dice=(d,) * len(players))) for d in dice]
    out = args.out or "results/sweep"
    check_folder_kind(Path(out), "sweep")
    rows = run_sweep(cells, 1000 if args.games is None else args.games, out, args.seed, **options)
    report(rows, cells, out, title=" vs ".join(players), plot=not args.no_plot)
    return 0


def _run_experiment(args: argparse.Namespace, options: dict) -> int:
    """``ldpomdp sweep --experiment NAME``: refusing the flags the experiment fixes."""
    from ..sweeps import get_experiment, run_experiment

    experiment = get_experiment(args.experiment)
    fixed = [flag for name, flag in {"players": "--players", **RULE_OPTIONS, **VARIANT_OPTIONS}.items()
             if getattr(args, name, None) is not None]
    if fixed:
        raise UsageError(f"--experiment {experiment.name} fixes its players, dice and rules: leave out "
                         f"{', '.join(fixed)}, or give --players in place of --experiment")
    run_experiment(experiment, quick=args.quick, out=args.out, games=args.games, seed=args.seed,
                   plot=not args.no_plot, **options)
    return 0


def _sweep_dice(args: argparse.Namespace, players: int) -> list[int]:
    """The dice counts ``--dice`` names (default ``SWEEP_DICE``) for ``players`` players."""
    from ..sweeps import parse_dice_range

    try:
        return parse_dice_range(SWEEP_DICE if args.dice is None else args.dice, players)
    except UsageError as exc:
        if args.dice is not None:
            raise
        raise UsageError(f"the default dice range {SWEEP_DICE} is too large for {players} players: give "
                         f"--dice ({exc})") from None


def _run_options(parser: argparse.ArgumentParser, plot: str) -> None:
    """The options of how a sweep or tournament runs: workers, scheduler, progress bar, plots (``plot``: its help)."""
    parser.add_argument("--workers", type=option_int(1), default=None,
                        help="local worker processes (default: all cores)")
    parser.add_argument("--scheduler", default=None, help="dask.distributed scheduler address (extra: dask)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-plot", action="store_true", help=plot)


def add_sweep_parser(sub) -> None:
    from ..sweeps.experiments import EXPERIMENTS

    sweep = sub.add_parser("sweep", help="play many games per setting; resumable; CSV summary and plots")
    sweep.add_argument("--players", help="comma-separated player specs, e.g. expected-count,one-third")
    sweep.add_argument("--experiment", help=f"a named experiment of report 002 (fixes players, dice and rules): "
                                            f"{', '.join(EXPERIMENTS)}")
    sweep.add_argument("--quick", action="store_true", help="the experiment's small version (minutes)")
    sweep.add_argument("--games", type=option_int(1), default=None,
                       help="games per cell (default 1000, or the experiment's)")
    sweep.add_argument("--out", default=None, help="output folder (default results/<experiment> or results/sweep)")
    _run_options(sweep, "CSV only, no PNG")
    sweep.add_argument("--no-exact", action="store_true",
                       help="skip the exact best-response and own win rates (computed where the models allow)")
    add_rule_options(sweep, dice=dict(type=str, help=f"dice per player: 5, 1-35, 1-35:2 or a comma list (default "
                                                     f"{SWEEP_DICE})"),
                     seed=dict(default=0, help="sweep seed (default 0; resuming needs the same)"))
    sweep.set_defaults(func=cmd_sweep)


def cmd_tournament(args: argparse.Namespace) -> int:
    from ..sweeps.tournament import Tournament, run_tournament

    if args.groups is not None and args.seats == 2:
        raise UsageError("--groups draws groups of 3+ players; a two-player tournament plays every pair")
    agents = split_specs(args.players)
    config = config_from_args(args, args.seats, dice=args.dice)
    tournament = Tournament(tuple(agents), config, args.games, args.seed,
                            **({} if args.groups is None else {"groups": args.groups}))
    run_tournament(tournament, args.out, plot=not args.no_plot, workers=args.workers, scheduler=args.scheduler,
                   progress=not args.no_progress)
    return 0


def add_tournament_parser(sub) -> None:
    tour = sub.add_parser("tournament", help="many agents against each other: cross table and ratings; resumable")
    tour.add_argument("--players", required=True, help="the agents: comma-separated player specs, at least two")
    seats = tour.add_argument("--seats", type=option_int(2), default=2,
                              help="players per game: 2 (default): every pair, seats alternating; 3+: groups drawn "
                                   "from the agents")
    groups = tour.add_argument("--groups", type=option_int(1), default=None,
                               help="groups of 3+ players: every combination of the agents if at most this many, "
                                    "else a sample of this many drawn from --seed (default 50)")
    deprecated_alias(tour, "--players-per-table", seats)  # "table" names a solved strategy only
    deprecated_alias(tour, "--tables", groups)
    tour.add_argument("--games", type=option_int(1), default=100, help="games per pair or group (default 100)")
    tour.add_argument("--out", default="results/tournament", help="output folder (default results/tournament)")
    _run_options(tour, "no ratings.png")
    add_rule_options(tour, dice=dict(type=option_int(1), default=5, help="starting dice per player (default 5)"),
                     seed=dict(default=0, help="seed (default 0; resuming needs the same)"))
    tour.set_defaults(func=cmd_tournament)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from ..sweeps.evaluate import evaluate

    try:
        seats = [int(n) for n in args.seats.split(",")]
    except ValueError:
        raise UsageError(f"--seats {echo(args.seats)}: give player counts separated by commas, e.g. 2,3") from None
    config = config_from_args(args, 2, dice=args.dice)
    evaluate(args.agent, args.out, config, args.games, ladder=split_specs(args.ladder), seats=seats,
             probe_games=args.probe_games, probe_dice=args.probe_dice, seed=args.seed, plot=not args.no_plot,
             workers=args.workers, scheduler=args.scheduler, progress=not args.no_progress)
    return 0


def add_evaluate_parser(sub) -> None:
    from ..sweeps.evaluate import LADDER

    evaluate = sub.add_parser("evaluate", help="one agent against a ladder of the package's agents at 2 and 3 "
                                               "players: win rates, ratings, an exploitation probe; resumable")
    evaluate.add_argument("agent", help="the agent's player spec, e.g. text:agent=mypkg.llm:ask")
    evaluate.add_argument("--ladder", default=",".join(LADDER),
                          help=f"the package's agents it meets, comma-separated (default {','.join(LADDER)})")
    evaluate.add_argument("--seats", default="2,3", help="players a game, each a tournament (default 2,3)")
    evaluate.add_argument("--games", type=option_int(1), default=100, help="games per pair or group (default 100)")
    evaluate.add_argument("--probe-games", type=option_int(0), default=200,
                          help="games of the local best response against the agent at 2 players (default 200; 0: "
                               "no probe)")
    evaluate.add_argument("--probe-dice", type=option_int(1), default=2,
                          help="dice each in the probe's games (default 2: the probe reads the agent's every "
                               "possible hand through its moves, which costs more with more dice)")
    evaluate.add_argument("--out", default="results/evaluate", help="output folder (default results/evaluate)")
    _run_options(evaluate, "no evaluation.png")
    add_rule_options(evaluate, dice=dict(type=option_int(1), default=5, help="starting dice per player (default 5)"),
                     seed=dict(default=0, help="seed (default 0; resuming needs the same)"))
    evaluate.set_defaults(func=cmd_evaluate)
