"""``ldpomdp train dqn``: report 004's learning agent (extra ``rl``)."""

from __future__ import annotations

import argparse

from ..errors import UsageError
from .options import add_rule_options, option_int, variant_flags, wild_face

__all__ = ["add_train_parser", "cmd_train"]


def cmd_train(args: argparse.Namespace) -> int:
    from ldpomdp.planners.dqn import Frame
    from ldpomdp.planners.dqn_train import TrainSettings, train_dqn

    games = _stage_games(args.games)
    _check_todays_rules(args)
    frame = Frame(args.players, args.dice, args.faces, wild_face(args.wild, args.faces), args.bids)
    frame.check(frame.config)  # the rules' own checks, with their messages
    settings = TrainSettings(seed=args.seed, frame=frame, games=games, learning_rate=args.lr,
                             final_learning_rate=args.final_lr, buffer=args.buffer,
                             eval_every=args.eval_every, eval_games=args.eval_games,
                             checkpoint_every=args.checkpoint_every)
    path = train_dqn(settings, args.out, progress=not args.no_progress)
    print(f"weights: {path} (play them with --players dqn:weights={path})")
    return 0


def _stage_games(text: str) -> tuple[int, int, int]:
    """The training games of the three stages that ``--games`` gives."""
    try:
        games = tuple(int(g) for g in text.split(","))
    except ValueError:
        games = ()
    if len(games) != 3 or min(games) < 0:
        raise UsageError(f"--games must be three integers >= 0 like 20000,20000,20000, got {text!r}")
    return games[0], games[1], games[2]


def _check_todays_rules(args: argparse.Namespace) -> None:
    """Refuse the rules the DQN cannot learn: the variants, and the loser opening the next round."""
    if variant_flags(args):
        raise UsageError("the DQN learns today's rules only (its action coding and features have no exact call, "
                         f"palifico round or Perudo bid order): drop {', '.join(variant_flags(args))}")
    if args.opener not in (None, "after_challenger"):
        raise UsageError(f"the DQN learns today's rules only (the next round opened as by --opener "
                         f"after_challenger): drop --opener {args.opener}")


def add_train_parser(sub) -> None:
    train = sub.add_parser("train", help="train a learning agent (extra: rl)")
    algorithms = train.add_subparsers(dest="algorithm", required=True)
    dqn = algorithms.add_parser("dqn", help="report 004's Deep Q-Network: dummies, then self-play; resumable")
    dqn.add_argument("--out", default="results/dqn", help="folder for checkpoint.npz, dqn.npz and log.jsonl; "
                                                          "a run there resumes (default results/dqn)")
    dqn.add_argument("--games", default="20000,20000,20000",
                     help="training games of the stages agent1 (1 vs 1), agent2 (1 vs 2), final (self-play)")
    dqn.add_argument("--players", type=option_int(2), default=3, help="largest table the network plays (default 3)")
    add_rule_options(dqn, "refused for now: the training takes today's rules only",
                     dice=dict(type=option_int(1), default=5, help="dice per player (default 5)"),
                     faces=dict(type=option_int(2), default=6, help=None),
                     wild=dict(default="1", help="1, high or none (default 1)"),
                     bids=dict(default="full", help=None),
                     opener=dict(help="who opens the next round: after_challenger (the default) only, for now"),
                     seed=dict(default=0, help="run seed (default 0; resuming needs the same)"))
    dqn.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate at the start (default 0.001)")
    dqn.add_argument("--final-lr", type=float, default=1e-4,
                     help="Adam learning rate at the last update; it falls linearly (default 0.0001)")
    dqn.add_argument("--buffer", type=option_int(1), default=100_000, help="replay buffer size (default 100000)")
    dqn.add_argument("--eval-every", type=option_int(1), default=5_000, help="games between evaluations")
    dqn.add_argument("--eval-games", type=option_int(1), default=200, help="games per evaluation opponent")
    dqn.add_argument("--checkpoint-every", type=option_int(1), default=1_000, help="games between checkpoints")
    dqn.add_argument("--no-progress", action="store_true", help="no progress bar")
    dqn.set_defaults(func=cmd_train)
