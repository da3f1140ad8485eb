"""``ldpomdp play`` (you against agents in the terminal) and ``ldpomdp players`` (the player specs)."""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap

import numpy as np

from ..errors import UsageError, echo
from ..game import play_game, player_name
from ..players.human import HumanPlayer
from ..registry import make_seat, registered_names, split_specs
from ..rules import dice_text
from .options import add_rule_options, config_from_args

__all__ = ["add_play_parser", "add_players_parser", "cmd_play", "cmd_players", "player_listing",
           "players_markdown", "OWN_CLASS", "SEAT_ADVICE"]


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


# your own class, listed after the registered players (``ldpomdp.registry`` reads such a spec)
OWN_CLASS = ("package.module:Class", "your own class, built with the keyword arguments given, e.g. "
                                     "mypkg.bots:Cautious:level=2")
SEAT_ADVICE = ("Against an opponent you do not know, seat `robust`: it plays every table, 2-6 players, any rules "
               "and dice.")


def player_listing() -> list[tuple[str, str, str]]:
    """``(spec, parameters, summary)`` of every registered player, then of your own class: what ``ldpomdp players``
    lists.

    ``parameters`` are ``name=default`` (or ``name``) joined by ", ", or why they cannot be listed here (a module that
    needs an extra); ``summary`` is the registry's.
    """
    from ..registry import player_parameters

    rows = []
    for name, summary in registered_names().items():
        try:
            parameters = ", ".join(p.name if p.default is None else f"{p.name}={p.default}"
                                   for p in player_parameters(name))
        except UsageError as exc:
            parameters = f"not listed ({exc})"
        rows.append((name, parameters, summary))
    return [*rows, (OWN_CLASS[0], "", OWN_CLASS[1])]


def players_markdown() -> str:
    """The listing as a markdown table (docs/players.md's table of specs is this text)."""
    def cell(text: str, code: bool = False) -> str:  # brackets outside code would read as links
        text = text.replace("|", "\\|")
        return text if code else text.replace("[", "\\[").replace("]", "\\]")

    lines = ["| spec | parameters (default) | player |", "|---|---|---|"]
    lines += [f"| `{spec}` | {f'`{cell(parameters, code=True)}`' if parameters else ''} | {cell(summary)} |"
              for spec, parameters, summary in player_listing()]
    return "\n".join(lines) + "\n"


def cmd_players(args: argparse.Namespace) -> int:
    if args.markdown:
        print(players_markdown(), end="")
        return 0
    width = max(60, min(shutil.get_terminal_size().columns, 120))
    wrap = textwrap.TextWrapper(width=width, subsequent_indent=" " * 17, break_long_words=False,
                                break_on_hyphens=False)
    for spec, parameters, summary in player_listing():
        print(wrap.fill(f"{spec:16} {summary}"))
        if parameters:
            print(textwrap.fill(f"parameters: {parameters}", width=width, initial_indent=" " * 19,
                                subsequent_indent=" " * 21, break_long_words=False, break_on_hyphens=False))
    print()
    print(textwrap.fill(SEAT_ADVICE, width=width, break_on_hyphens=False))
    return 0


def add_play_parser(sub) -> None:
    play = sub.add_parser("play", help="play against agents in the terminal")
    play.add_argument("--opponents", default="robust",
                      help="comma-separated player specs (see `ldpomdp players`); default: the recommended robust")
    add_rule_options(play)
    play.set_defaults(func=cmd_play)


def add_players_parser(sub) -> None:
    players = sub.add_parser("players", help="list the player specs")
    players.add_argument("--markdown", action="store_true",
                         help="print them as a markdown table (the table of specs in docs/players.md)")
    players.set_defaults(func=cmd_players)
