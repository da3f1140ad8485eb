"""``ldpomdp play`` (you against agents in the terminal) and ``ldpomdp players`` (the player specs)."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..errors import UsageError, echo
from ..game import play_game, player_name
from ..players.human import HumanPlayer
from ..registry import make_seat, registered_names, split_specs
from ..rules import dice_text
from .options import add_rule_options, config_from_args

__all__ = ["add_play_parser", "add_players_parser", "cmd_play", "cmd_players"]


def cmd_play(args: argparse.Namespace) -> int:
    specs = split_specs(args.opponents)
    opponents = [make_seat(s) for s in specs]
    config = config_from_args(args, 1 + len(opponents))
    for warning in config.warnings:
        print(f"ldpomdp: warning: {warning}", file=sys.stderr)
    for seat, (spec, opponent) in enumerate(zip(specs, opponents, strict=True), start=1):
        try:
            opponent.reset(seat, config)  # a player that cannot play these rules says so before the game starts
        except UsageError as exc:
            raise UsageError(f"player {echo(spec)}: {exc}") from None
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
    from ..registry import RECOMMENDED, player_parameters

    for name, summary in registered_names().items():
        print(f"{name:16} {summary}")
        try:
            parameters = player_parameters(name)
        except UsageError as exc:  # a module that needs an extra
            print(f"{'':16}   parameters: not listed ({exc})")
            continue
        if parameters:
            print(f"{'':16}   parameters: " + ", ".join(p.name if p.default is None else f"{p.name}={p.default}"
                                                       for p in parameters))
    print(f"{'pkg.mod:Class':16} your own class, e.g. mypkg.bots:Cautious:level=2")
    print(f"\nAgainst an opponent you do not know (two players, up to 5 dice each, today's rules), play "
          f"`{RECOMMENDED[0]}`; under Perudo or Dudo, `cfr`.")
    return 0


def add_play_parser(sub) -> None:
    play = sub.add_parser("play", help="play against agents in the terminal")
    play.add_argument("--opponents", default="one-third", help="comma-separated player specs (see `ldpomdp players`)")
    add_rule_options(play)
    play.set_defaults(func=cmd_play)


def add_players_parser(sub) -> None:
    players = sub.add_parser("players", help="list the player specs")
    players.set_defaults(func=cmd_players)
