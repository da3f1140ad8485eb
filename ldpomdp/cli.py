"""Command line: ``ldpomdp play`` (you against agents), ``ldpomdp players`` (list player specs)."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from .game import play_game
from .opponents.human import HumanPlayer
from .registry import make_player, registered_names, split_specs
from .rules import GameConfig


def _config_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dice", type=int, default=5, help="starting dice per player (default 5)")
    parser.add_argument("--faces", type=int, default=6, help="faces per die (default 6)")
    parser.add_argument("--wild", default="1", help="wild face: 1, high (the highest face) or none (default 1)")
    parser.add_argument("--bids", choices=("full", "sixes"), default="full", help="bid mode (default full)")
    parser.add_argument("--opener", choices=("after_challenger", "loser"), default="after_challenger")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")


def config_from_args(args: argparse.Namespace, num_players: int) -> GameConfig:
    """A GameConfig from the shared rule options."""
    wild = {"none": None, "high": args.faces}.get(str(args.wild).lower(), None)
    if str(args.wild).lower() not in ("none", "high"):
        try:
            wild = int(args.wild)
        except ValueError:
            raise ValueError(f"--wild must be 1, high or none, got {args.wild!r}") from None
    return GameConfig(num_players=num_players, dice=args.dice, faces=args.faces, wild=wild,
                      bids=args.bids, opener=args.opener)


def cmd_play(args: argparse.Namespace) -> int:
    opponents = [make_player(s) for s in split_specs(args.opponents)]
    config = config_from_args(args, 1 + len(opponents))
    rng = np.random.default_rng(args.seed)
    games = wins = 0
    while True:
        record = play_game(config, [HumanPlayer()] + opponents, rng, first_opener=games % config.num_players)
        games += 1
        wins += record.winner == 0
        print(f"\nSeat {record.winner} wins the game. You have won {wins} of {games}.")
        if input("Play again? (y/n) ").strip().lower() not in ("y", "yes"):
            return 0


def cmd_players(args: argparse.Namespace) -> int:
    for name, summary in registered_names().items():
        print(f"{name:16} {summary}")
    print(f"{'pkg.mod:Class':16} your own class, e.g. mypkg.bots:Cautious:level=2")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ldpomdp", description="Liar's Dice as a POMDP")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play against agents in the terminal")
    play.add_argument("--opponents", default="one-third", help="comma-separated player specs (see `ldpomdp players`)")
    _config_args(play)
    play.set_defaults(func=cmd_play)
    players = sub.add_parser("players", help="list the player specs")
    players.set_defaults(func=cmd_players)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, EOFError) as exc:
        print(f"ldpomdp: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
