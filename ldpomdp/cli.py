"""Command line: ``ldpomdp play`` (you against agents), ``ldpomdp players`` (list player specs),
``ldpomdp sweep`` (benchmark sweeps, see :mod:`ldpomdp.sweeps`), ``ldpomdp tournament`` (agents against each other,
on top of the sweeps), ``ldpomdp train dqn`` (report 004's
learning agent, extra ``rl``), ``ldpomdp solve equilibrium`` (the ``cfr`` player's table), ``ldpomdp serve``
(the browser app, extra ``web``)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path

import numpy as np

try:
    from . import __version__
except ImportError:
    _found = sys.modules.get(__package__ or "")
    if _found is None or _found.__file__ is not None:  # the package itself failed to import: its own error
        raise
    # an editable install's package shadowed by a folder of the same name (a checkout) on the import path
    raise SystemExit(f"ldpomdp: error: the folder {', '.join(dict.fromkeys(_found.__path__))} is imported in place of "
                     f"the package ldpomdp, since its parent is on the import path (PYTHONPATH, or the current "
                     f"folder under python -m): take it off PYTHONPATH, or run from another folder") from None
from .game import play_game, player_name
from .players.human import HumanPlayer
from .registry import make_seat, registered_names, split_specs
from .rules import BID_MODES, LOSS_RULES, OPENER_RULES, PRESETS, WILD_BID_RULES, GameConfig, dice_text


def _option_int(minimum: int) -> Callable[[str], int]:
    """An argparse type for integer options: a value below ``minimum`` is refused with an error naming the option."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {text!r}")
        return value

    return parse


# the rule options and their flags; not given, they stay None and GameConfig's defaults apply
RULE_OPTIONS = {"dice": "--dice", "faces": "--faces", "wild": "--wild", "bids": "--bids", "opener": "--opener"}
VARIANT_OPTIONS = {"rules": "--rules", "wild_bids": "--wild-bids", "exact_call": "--exact-call",
                   "palifico": "--palifico", "loss": "--loss"}


def _config_args(parser: argparse.ArgumentParser, variants: str = "default: none, today's rules") -> None:
    parser.add_argument("--dice", type=int, help="starting dice per player (default 5)")
    parser.add_argument("--faces", type=int, help="faces per die (default 6)")
    parser.add_argument("--wild", help="wild face: 1, high (the highest face) or none (default 1)")
    parser.add_argument("--bids", choices=BID_MODES, help="bid mode (default full)")
    parser.add_argument("--opener", choices=OPENER_RULES, help="who opens the next round (default after_challenger)")
    parser.add_argument("--seed", type=_option_int(0), default=None, help="random seed (default: fresh)")
    _variant_args(parser, variants)


def _variant_args(parser: argparse.ArgumentParser, note: str = "default: none, today's rules") -> None:
    """The rule variants' options (docs/rules.md): a preset and single rules, which override the preset's; ``note``
    follows the group's title in ``--help``."""
    rules = parser.add_argument_group(f"rule variants ({note})")
    rules.add_argument("--rules", choices=tuple(PRESETS), default=None,
                       help="a named rule set: perudo (Perudo bids, exact call, palifico), dudo (Perudo bids, loss "
                            "by the difference)")
    rules.add_argument("--wild-bids", choices=WILD_BID_RULES, default=None, help="perudo: bids on the wild ones "
                                                                                 "count double (needs --wild 1)")
    rules.add_argument("--exact-call", action="store_const", const=True, default=None,
                       help="the exact call (e at the terminal): right, the caller gets a die back; wrong, it loses "
                            "one")
    rules.add_argument("--palifico", action="store_const", const=True, default=None,
                       help="a palifico round after a player first drops to one die")
    rules.add_argument("--loss", choices=LOSS_RULES, default=None, help="difference: the loser loses what the bid "
                                                                       "missed by")


def variant_fields(args: argparse.Namespace) -> dict[str, object]:
    """The GameConfig fields the rule-variant options ask for: the preset's, then the single rules given."""
    fields = dict(PRESETS[args.rules]) if getattr(args, "rules", None) else {}
    fields.update({name: getattr(args, name) for name in VARIANT_OPTIONS
                   if name != "rules" and getattr(args, name, None) is not None})
    return fields


def variant_flags(args: argparse.Namespace) -> list[str]:
    """The rule-variant options given, as their flags (e.g. ``["--rules", "--loss"]``)."""
    return [flag for name, flag in VARIANT_OPTIONS.items() if getattr(args, name, None) is not None]


def _wild_face(text: str, faces: int) -> int | None:
    """The wild face that ``--wild`` names: a number, "high" (``faces``) or "none" (None)."""
    named = str(text).lower()
    if named in ("none", "high"):
        return None if named == "none" else faces
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--wild must be 1, high or none, got {text!r}") from None


def config_from_args(args: argparse.Namespace, num_players: int, dice: int | None = None) -> GameConfig:
    """A GameConfig from the rule options given (``dice``, when given, in place of ``--dice``) and the rule variants'
    options, GameConfig's defaults for the others."""
    rules = {**variant_fields(args), **{name: getattr(args, name) for name in RULE_OPTIONS
                                         if getattr(args, name) is not None}}
    if dice is not None:
        rules["dice"] = dice
    if "wild" in rules:
        rules["wild"] = _wild_face(rules["wild"], rules.get("faces", GameConfig.faces))
    return GameConfig(num_players=num_players, **rules)


def cmd_play(args: argparse.Namespace) -> int:
    specs = split_specs(args.opponents)
    opponents = [make_seat(s) for s in specs]
    config = config_from_args(args, 1 + len(opponents))
    for warning in config.warnings:
        print(f"ldpomdp: warning: {warning}", file=sys.stderr)
    for seat, (spec, opponent) in enumerate(zip(specs, opponents, strict=True), start=1):
        try:
            opponent.reset(seat, config)  # a player that cannot play these rules says so before the game starts
        except ValueError as exc:
            raise ValueError(f"player {spec!r}: {exc}") from None
    rng = np.random.default_rng(args.seed)
    players = [HumanPlayer()] + opponents
    seats = ", ".join(f"{seat} {player_name(p)}" for seat, p in enumerate(players))
    games = wins = 0
    while True:
        print(f"\nGame {games + 1}: {config.describe()}, {dice_text(config.starting_dice[0])} each. Seats: {seats}.")
        record = play_game(config, players, rng, first_opener=games % config.num_players)
        games += 1
        wins += record.winner == 0
        winner = f"Seat {record.winner} ({player_name(players[record.winner])}) wins" if record.winner else "You win"
        print(f"\n{winner} the game. You have won {wins} of {games}.")
        if not _yes("Play again? (y/n) "):
            return 0


def _yes(prompt: str) -> bool:
    """Ask until the answer is yes or no (y/yes/n/no); the end of the input counts as no."""
    while True:
        try:
            answer = input(prompt).strip().lower()
        except EOFError:
            return False
        if answer in ("y", "yes", "n", "no"):
            return answer.startswith("y")
        print("  ! type y or n")


def cmd_players(args: argparse.Namespace) -> int:
    from .registry import RECOMMENDED, player_parameters

    for name, summary in registered_names().items():
        print(f"{name:16} {summary}")
        try:
            parameters = player_parameters(name)
        except ValueError as exc:  # a module that needs an extra
            print(f"{'':16}   parameters: not listed ({exc})")
            continue
        if parameters:
            print(f"{'':16}   parameters: " + ", ".join(p.name if p.default is None else f"{p.name}={p.default}"
                                                       for p in parameters))
    print(f"{'pkg.mod:Class':16} your own class, e.g. mypkg.bots:Cautious:level=2")
    print(f"\nAgainst an opponent you do not know (two players, up to 5 dice each, today's rules), play "
          f"`{RECOMMENDED[0]}`; under Perudo or Dudo, `cfr`.")
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from .sweeps import Cell, get_experiment, parse_dice_range, report, run_experiment, run_sweep

    options = dict(workers=args.workers, scheduler=args.scheduler, progress=not args.no_progress,
                   exact=not args.no_exact)
    if args.experiment:
        experiment = get_experiment(args.experiment)
        fixed = [flag for name, flag in {"players": "--players", **RULE_OPTIONS, **VARIANT_OPTIONS}.items()
                 if getattr(args, name, None) is not None]
        if fixed:
            raise ValueError(f"--experiment {experiment.name} fixes its players, dice and rules: leave out "
                             f"{', '.join(fixed)}, or give --players in place of --experiment")
        run_experiment(experiment, quick=args.quick, out=args.out, games=args.games, seed=args.seed,
                       plot=not args.no_plot, **options)
        return 0
    if not args.players:
        raise ValueError("give --players SPEC,SPEC[,...] or --experiment NAME")
    if args.quick:
        raise ValueError("--quick picks a named experiment's small version: give it with --experiment NAME")
    players = split_specs(args.players)
    if len(players) < 2:
        raise ValueError(f"--players {args.players!r} names {len(players)} player; a game needs at least two, "
                         f"separated by commas")
    try:
        dice = parse_dice_range(SWEEP_DICE if args.dice is None else args.dice, len(players))
    except ValueError as exc:
        if args.dice is not None:
            raise
        raise ValueError(f"the default dice range {SWEEP_DICE} is too large for {len(players)} players: give "
                         f"--dice ({exc})") from None
    config = config_from_args(args, len(players), dice=dice[0])
    cells = [Cell(tuple(players), replace(config, dice=(d,) * len(players))) for d in dice]
    out = args.out or "results/sweep"
    rows = run_sweep(cells, 1000 if args.games is None else args.games, out, args.seed, **options)
    report(rows, cells, out, title=" vs ".join(players), plot=not args.no_plot)
    return 0


SWEEP_DICE = "1-35"  # a sweep's dice per player when --dice is not given


def _sweep_parser(sub) -> None:
    from .sweeps.experiments import EXPERIMENTS

    sweep = sub.add_parser("sweep", help="play many games per setting; resumable; CSV summary and plots",
                           conflict_handler="resolve")
    sweep.add_argument("--players", help="comma-separated player specs, e.g. expected-count,one-third")
    sweep.add_argument("--experiment", help=f"a named experiment of report 002 (fixes players, dice and rules): "
                                            f"{', '.join(EXPERIMENTS)}")
    sweep.add_argument("--quick", action="store_true", help="the experiment's small version (minutes)")
    sweep.add_argument("--games", type=_option_int(1), default=None,
                       help="games per cell (default 1000, or the experiment's)")
    sweep.add_argument("--out", default=None, help="output folder (default results/<experiment> or results/sweep)")
    sweep.add_argument("--workers", type=_option_int(1), default=None,
                       help="local worker processes (default: all cores)")
    sweep.add_argument("--scheduler", default=None, help="dask.distributed scheduler address (extra: dask)")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar")
    sweep.add_argument("--no-plot", action="store_true", help="CSV only, no PNG")
    sweep.add_argument("--no-exact", action="store_true",
                       help="skip the exact best-response and own win rates (computed where the models allow)")
    _config_args(sweep)
    sweep.add_argument("--dice", help=f"dice per player: 5, 1-35, 1-35:2 or a comma list (default {SWEEP_DICE})")
    sweep.add_argument("--seed", type=_option_int(0), default=0, help="sweep seed (default 0; resuming needs the same)")
    sweep.set_defaults(func=cmd_sweep)


def cmd_tournament(args: argparse.Namespace) -> int:
    from .sweeps.tournament import Tournament, run_tournament

    if args.tables is not None and args.players_per_table == 2:
        raise ValueError("--tables draws tables of 3+ players; a two-player tournament plays every pair")
    agents = split_specs(args.players)
    config = config_from_args(args, args.players_per_table, dice=args.dice)
    tournament = Tournament(tuple(agents), config, args.games, args.seed,
                            **({} if args.tables is None else {"tables": args.tables}))
    run_tournament(tournament, args.out, plot=not args.no_plot, workers=args.workers, scheduler=args.scheduler,
                   progress=not args.no_progress)
    return 0


def _tournament_parser(sub) -> None:
    tour = sub.add_parser("tournament", help="many agents against each other: cross table and ratings; resumable",
                          conflict_handler="resolve")
    tour.add_argument("--players", required=True, help="the agents: comma-separated player specs, at least two")
    tour.add_argument("--players-per-table", type=_option_int(2), default=2,
                      help="2 (default): every pair, seats alternating; 3+: tables drawn from the agents")
    tour.add_argument("--tables", type=_option_int(1), default=None,
                      help="tables of 3+ players: every combination of the agents if at most this many, else a "
                           "sample of this many drawn from --seed (default 50)")
    tour.add_argument("--games", type=_option_int(1), default=100, help="games per table (default 100)")
    tour.add_argument("--out", default="results/tournament", help="output folder (default results/tournament)")
    tour.add_argument("--workers", type=_option_int(1), default=None, help="local worker processes (default: all "
                                                                            "cores)")
    tour.add_argument("--scheduler", default=None, help="dask.distributed scheduler address (extra: dask)")
    tour.add_argument("--no-progress", action="store_true", help="no progress bar")
    tour.add_argument("--no-plot", action="store_true", help="no ratings.png")
    _config_args(tour)
    tour.add_argument("--dice", type=_option_int(1), default=5, help="starting dice per player (default 5)")
    tour.add_argument("--seed", type=_option_int(0), default=0, help="seed (default 0; resuming needs the same)")
    tour.set_defaults(func=cmd_tournament)


def cmd_train(args: argparse.Namespace) -> int:
    from ldpomdp.planners.dqn import Frame
    from ldpomdp.planners.dqn_train import TrainSettings, train_dqn

    try:
        games = tuple(int(g) for g in args.games.split(","))
    except ValueError:
        games = ()
    if len(games) != 3 or min(games) < 0:
        raise ValueError(f"--games must be three integers >= 0 like 20000,20000,20000, got {args.games!r}")
    if variant_flags(args):
        raise ValueError("the DQN learns today's rules only (its action coding and features have no exact call, "
                         f"palifico round or Perudo bid order): drop {', '.join(variant_flags(args))}")
    frame = Frame(args.players, args.dice, args.faces, _wild_face(args.wild, args.faces), args.bids)
    frame.check(frame.config)  # the rules' own checks, with their messages
    settings = TrainSettings(seed=args.seed, frame=frame, games=games, learning_rate=args.lr,
                             final_learning_rate=args.final_lr, buffer=args.buffer,
                             eval_every=args.eval_every, eval_games=args.eval_games,
                             checkpoint_every=args.checkpoint_every)
    path = train_dqn(settings, args.out, progress=not args.no_progress)
    print(f"weights: {path} (play them with --players dqn:weights={path})")
    return 0


def _train_parser(sub) -> None:
    train = sub.add_parser("train", help="train a learning agent (extra: rl)")
    algorithms = train.add_subparsers(dest="algorithm", required=True)
    dqn = algorithms.add_parser("dqn", help="report 004's Deep Q-Network: dummies, then self-play; resumable")
    dqn.add_argument("--out", default="results/dqn", help="folder for checkpoint.npz, dqn.npz and log.jsonl; "
                                                          "a run there resumes (default results/dqn)")
    dqn.add_argument("--seed", type=_option_int(0), default=0, help="run seed (default 0; resuming needs the same)")
    dqn.add_argument("--games", default="20000,20000,20000",
                     help="training games of the stages agent1 (1 vs 1), agent2 (1 vs 2), final (self-play)")
    dqn.add_argument("--players", type=_option_int(2), default=3, help="largest table the network plays (default 3)")
    dqn.add_argument("--dice", type=_option_int(1), default=5, help="dice per player (default 5)")
    dqn.add_argument("--faces", type=_option_int(2), default=6)
    dqn.add_argument("--wild", default="1", help="1, high or none (default 1)")
    dqn.add_argument("--bids", choices=("full", "sixes"), default="full")
    dqn.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate at the start (default 0.001)")
    dqn.add_argument("--final-lr", type=float, default=1e-4,
                     help="Adam learning rate at the last update; it falls linearly (default 0.0001)")
    dqn.add_argument("--buffer", type=_option_int(1), default=100_000, help="replay buffer size (default 100000)")
    dqn.add_argument("--eval-every", type=_option_int(1), default=5_000, help="games between evaluations")
    dqn.add_argument("--eval-games", type=_option_int(1), default=200, help="games per evaluation opponent")
    dqn.add_argument("--checkpoint-every", type=_option_int(1), default=1_000, help="games between checkpoints")
    dqn.add_argument("--no-progress", action="store_true", help="no progress bar")
    _variant_args(dqn, "refused for now: the training takes today's rules only")
    dqn.set_defaults(func=cmd_train)


# -- serve: the browser app (extra: web) -------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    from .web import serve

    serve(args.host, args.port, args.results, args.allow_plugins)
    return 0


def _serve_parser(sub) -> None:
    serve = sub.add_parser("serve", help="play the agents in a browser; see their beliefs; replay a sweep (extra: web)")
    serve.add_argument("--port", type=_option_int(1), default=8000, help="port (default 8000)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--results", default=None, help="a sweep's folder to show and replay (summary.csv, games.jsonl)")
    serve.add_argument("--allow-plugins", action="store_true",
                       help="let the page name package.module:Class specs (imports that code) and files")
    serve.set_defaults(func=cmd_serve)


def cmd_solve(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .exact import exploitability
    from .exact.tables import SHIPPED
    from .exact.two_player.equilibrium import SWEEP_TOLERANCE, discard_checkpoint, game_iterations, solve_game
    from .exact.two_player.states import game_config, key_round
    from .players.cfr import CFRPlayer

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
        raise ValueError("--workers: two-player rounds are solved one after another (it applies to 3-6 players)")
    with _resumable(checkpoint):
        with tqdm(total=game_iterations(game_config(config, dice), iterations, args.sweeps), unit="it",
                  disable=args.no_progress) as bar:
            table = solve_game(config, dice, recall, iterations, seed=args.seed, checkpoint=checkpoint,
                               checkpoint_every=args.checkpoint_every, progress=bar.update, sweeps=args.sweeps)
        table.save(out)
        if table.residual <= SWEEP_TOLERANCE:
            discard_checkpoint(checkpoint)
    print(f"table: {out} ({out.stat().st_size / 1e6:.2f} MB; play it as cfr:table={out}, e.g. ldpomdp play "
          f"--opponents cfr:table={out}, under the rule flags it was solved with)")
    print(f"rules: {table.config.describe()}" + (f"; games starting with {dice_text(dice)} each, fixed point "
                                                 f"residual {table.residual:.2g}" if table.config.exact_call else ""))
    if table.residual > SWEEP_TOLERANCE:
        print(f"the fixed point's residual is above {SWEEP_TOLERANCE:g} after {args.sweeps} sweep(s): the next "
              f"sweep's start is kept in {checkpoint} (the rounds' states beside it); run the same command with "
              f"--sweeps {args.sweeps + 1} to continue from it")
    for key, seconds in table.seconds.items():
        kind = " (palifico)" if key_round(key)[1] else ""
        print(f"round {key[0]} vs {key[1]} dice{kind}: game value to the opener "
              f"{table.value(*key_round(key)):+.4f}, {seconds:.1f} CPU s")
    if config.exact_call:  # a right exact call repeats the round with one die each: not a one-round game
        return 0
    # the round with one die each is the one-round +1/-1 game: its exploitability is exact
    e = exploitability(CFRPlayer(table), replace(config, dice=(1, 1)), (1, 1))
    print(f"exploitability with 1 die each: as opener {e.as_opener:.4f}, as responder {e.as_responder:.4f}, "
          f"average {e.average:.4f} (payoff units; the LP's value {e.value:+.4f})")
    return 0


@contextmanager
def _resumable(checkpoint: Path) -> Iterator[None]:
    """A solve that ``kill`` stops as Ctrl-C does (no temporary file left behind), saying where its checkpoint is."""
    from .interrupts import sigterm_as_interrupt

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

    from .exact.many_players.blueprint import (
        BLUEPRINT_RECALL,
        blueprint_rounds,
        blueprint_sweeps,
        check_blueprint_rules,
        solve_blueprint,
    )
    from .exact.tables import table_for
    from .exact.two_player.equilibrium import COARSE_SWEEPS, SWEEP_TOLERANCE, discard_checkpoint
    from .exact.two_player.states import game_config
    from .sweeps.runner import worker_pool

    if args.recall not in (None, str(BLUEPRINT_RECALL)):
        raise ValueError(f"--recall: the blueprint for 3-6 players recalls the last {BLUEPRINT_RECALL} bid, got "
                         f"{args.recall!r}")
    check_blueprint_rules(config)  # before the two-player table, which may be solved first
    two = table_for(game_config(config, config.starting_dice[0]))
    pool = worker_pool(args.workers, broken=f"It was killed or ran out of memory; the rounds solved so far are saved "
                       f"beside {checkpoint}: run the same command again to resume")
    with _resumable(checkpoint), (pool if args.workers > 1 else nullcontext((None, 1))) as (executor, _):
        total = len(blueprint_rounds(config)) * sum(blueprint_sweeps(config, iterations, args.sweeps))
        with tqdm(total=total, unit="it", disable=args.no_progress) as bar:
            table = solve_blueprint(config, two, iterations, samples=args.samples, seed=args.seed,
                                    checkpoint=checkpoint, progress=bar.update, executor=executor, sweeps=args.sweeps)
        table.save(out)
        if table.residual <= SWEEP_TOLERANCE:
            discard_checkpoint(checkpoint)
    print(f"blueprint: {out} ({out.stat().st_size / 1e6:.2f} MB; play it as cfr:table={out} at tables of "
          f"{config.num_players}); rules: {config.describe()}")
    if table.continuation == "fair":
        print("each round's ends are worth fair rounds' win probabilities (each round's loser equally likely); the "
              "rounds' values below are their ends' expected worth as the blueprint plays them (Exact solvers page)")
    elif config.exact_call:
        print(f"{table.sweeps} sweep(s), fixed point residual {table.residual:.2g}" + (
            "" if table.residual <= SWEEP_TOLERANCE else f", above {SWEEP_TOLERANCE:g}: the last sweep's table is kept "
            f"in {checkpoint}; run the same command with --sweeps {table.sweeps - COARSE_SWEEPS + 1} to continue from "
            f"it"))
    for (dice, palifico), seconds in table.seconds.items():
        print(f"round {'-'.join(map(str, dice))} dice{' (palifico)' if palifico else ''} (in turn from the opener): "
              f"win probabilities {', '.join(f'{v:.3f}' for v in table.values[(dice, palifico)])}, "
              f"{seconds:.1f} CPU s")
    return 0


def _check_out_file(out: Path, option: str) -> None:
    """Refuse ``option``'s file ``out`` before any work if it cannot be written: a folder, a path under a file, a
    folder that is not writable. Creates nothing."""
    if out.is_dir():
        raise ValueError(f"{option} {str(out)!r} is a folder: give the file to write, e.g. {str(out / 'cfr.npz')!r}")
    folder = out.parent
    try:
        while not folder.exists():  # the nearest folder that exists: the rest is made when the file is written
            folder = folder.parent
        if not folder.is_dir():
            raise ValueError(f"{option} {str(out)!r} lies under {str(folder)!r}, which is a file, not a folder")
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ValueError(f"{option} {str(out)!r}: cannot write in {str(folder)!r} ({exc.strerror or exc})") from None


def _solve_parser(sub) -> None:
    solve = sub.add_parser("solve", help="compute an equilibrium table (CFR+; two players, or the blueprint for 3-6); "
                           "resumable")
    kinds = solve.add_subparsers(dest="kind", required=True)
    eq = kinds.add_parser("equilibrium", help="the whole game's rounds up to --dice each, smallest first",
                          conflict_handler="resolve")
    _config_args(eq)
    # defaults None: cmd_solve fills in the shipped table's settings (exact.tables.SHIPPED; importing them here would
    # load the solvers at every command's start)
    eq.add_argument("--dice", type=_option_int(1), default=None,
                    help="solve every round up to this many dice each (under the exact call: for games starting with "
                         "this many; default: the shipped table's)")
    eq.add_argument("--sweeps", type=_option_int(1), default=1,
                    help="under the exact call, full sweeps of the rounds at most (default 1), each valued by the "
                         "last one's fixed point; two players: each continuing the last one's CFR+, the first to "
                         "--iterations a round, each further one a tenth more; 3-6 players: each solving every round "
                         "afresh with --iterations (not in the sixes game, whose blueprint values the ends by fair "
                         "rounds in one pass); sweeps that run out above the tolerance keep the checkpoint, "
                         "which a larger --sweeps continues")
    eq.add_argument("--bids", choices=("full", "sixes"), default="full",
                    help="bid mode (default full; sixes: report 002's game, where a hand counts by its matching dice)")
    eq.add_argument("--recall", default=None,
                    help="the last k bids recalled, or a schedule like 3@4,2 (k=3 up to 4 dice on the table, else 2; "
                         "default: the shipped table's)")
    eq.add_argument("--iterations", type=_option_int(1), default=None,
                    help="CFR+ iterations per round (default: the shipped table's)")
    eq.add_argument("--players", type=_option_int(2), default=2,
                    help="players (default 2); 3-6: the blueprint, every round with 3 or more seats holding dice, "
                         "under any rules (--rules dudo|perudo, --bids sixes)")
    eq.add_argument("--samples", type=_option_int(1), default=16,
                    help="3-6 players: the other seats' joint hands drawn per update (default 16)")
    eq.add_argument("--workers", type=_option_int(1), default=1,
                    help="3-6 players: worker processes solving the rounds of one dice total at once, to the same "
                         "table (default 1)")
    eq.add_argument("--seed", type=_option_int(0), default=0, help="seed of sampled hands (default 0)")
    eq.add_argument("--out", default="results/cfr.npz", help="table file; <out>.checkpoint.npz resumes a killed run")
    eq.add_argument("--checkpoint-every", type=_option_int(1), default=25,
                    help="iterations between checkpoints (2 players; 3-6 players save each round once solved)")
    eq.add_argument("--no-progress", action="store_true", help="no progress bar")
    eq.set_defaults(func=cmd_solve)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ldpomdp", description="Liar's Dice as a POMDP")
    parser.add_argument("--version", action="version", version=f"ldpomdp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play against agents in the terminal")
    play.add_argument("--opponents", default="one-third", help="comma-separated player specs (see `ldpomdp players`)")
    _config_args(play)
    play.set_defaults(func=cmd_play)
    players = sub.add_parser("players", help="list the player specs")
    players.set_defaults(func=cmd_players)
    _sweep_parser(sub)
    _tournament_parser(sub)
    _train_parser(sub)
    _serve_parser(sub)
    _solve_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, EOFError) as exc:
        print(f"ldpomdp: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the machine's fault, not the user's input: a full disk, a file that vanished
        print(f"ldpomdp: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
