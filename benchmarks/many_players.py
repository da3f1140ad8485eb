"""An agent at tables of N players, three and more above all (issue 32; two for comparison): against every table of
opponents drawn from a field, and N copies of itself (self-play sanity); full game, ones wild, today's rules or with
``--rules`` a preset; ``--bids sixes``: report 002's sixes game (every bid on the highest face).

- field: the agent's win rate at each table of N - 1 opponents drawn from ``--field`` with repetition (two copies of
  one opponent is a table too; ``--tables same``: only those), and over all of them pooled, against the fair
  share 1/N, with 95% Wilson intervals.
- self-play: N copies of the agent; each seat's win rate (seat 0 opens the first round) and each copy's, against
  1/N. The copies' rates test the harness (no copy may be favoured); the seats' show what the position is worth.
  With the agent in the field, this is the field's table of N - 1 copies of it, played once.
- seatings: game g of a table seats its players in permutation g mod N! (a sweep cell's ``seating="permute"``), so
  the agent takes every seat with the others in every order, all equally often when ``--games`` is a multiple of N!.
  ``--seating rotate``: game g rotates them by g mod N (``seating="rotate"``), so the agent takes every seat equally
  often when ``--games`` is a multiple of N, with the others in one order round the table: for a table of N - 1
  copies of one opponent (``--tables same``) the same seatings in fewer games (6! = 720 permutations at 6 players;
  fewer games of them seat the agent at seat 0 only, as permutations in lexicographic order start with it).
- CPU seconds a game per table: the sweep's worker CPU time over the games of the run that last played in it.

Tables are played with the sweep machinery (``run_sweep``: seeded from ``--seed``, resumable, one folder per table
under ``--out``). Bad input (an unknown spec, fewer than 2 players, an agent that cannot play N players) is one line
and exit status 2, before any game.

    python benchmarks/many_players.py [--agent expected-count] [--players 3] [--dice 5] [--rules perudo|dudo]
                                      [--bids full|sixes] [--seating permute|rotate]
                                      [--field one-third,bluff:0.3,...] [--tables every|same] [--no-self-play]
                                      [--games 600] [--workers 1] [--seed 0] [--out DIR] [--record] [--name NAME]
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
from collections.abc import Sequence
from pathlib import Path

from _record import record

from ldpomdp.registry import canonical_spec, make_seat, split_specs
from ldpomdp.rules import BID_MODES, PRESETS, GameConfig, dice_text
from ldpomdp.sweeps import Cell, SummaryRow, rate_text, read_timing, run_sweep, wilson_interval

FIELD = "one-third,bluff:0.3,oehm:0.2,expected-count,pomcp"


class Parser(argparse.ArgumentParser):
    """argparse, its errors on one line (no usage block), exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def game_config(players: int, dice: int, rules: str | None, bids: str = "full") -> GameConfig:
    """``players`` players, ``dice`` each, today's rules or the preset ``rules``; ``bids``: "full" or "sixes"."""
    if rules is None:
        return GameConfig(num_players=players, dice=dice, bids=bids)
    return GameConfig.preset(rules, num_players=players, dice=dice, bids=bids)


def tables(field: Sequence[str], seats: int, same: bool) -> list[tuple[str, ...]]:
    """The opponents' tables of ``seats`` players drawn from ``field`` with repetition (``same``: one kind each)."""
    if same:
        return [(spec,) * seats for spec in field]
    return list(itertools.combinations_with_replacement(field, seats))


def verdict(wins: int, games: int, share: float) -> str:
    """Where the 95% interval of ``wins`` in ``games`` lies against ``share``: above, below, or it holds it."""
    low, high = wilson_interval(wins, games)
    return "above" if low > share else "below" if high < share else "holds it"


def slug(text: str) -> str:
    """``text`` as a file name: anything but letters, digits, ``_``, ``-`` and ``.`` becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", text)


def play_table(cell: Cell, games: int, out: Path, seed: int, workers: int
               ) -> tuple[list[SummaryRow], list[int], float]:
    """Play ``cell`` into its folder under ``out`` (named by its players, so a table met twice, such as self-play
    when the agent is in the field, is played once): (its summary rows, one per player in the cell's order; wins
    per seat; worker CPU seconds a game over the games of the run that last played in it)."""
    folder = out / slug(f"{cell.players[0]}_vs_{'+'.join(cell.players[1:])}")
    seat_wins = [0] * cell.config.num_players

    def count(records: dict[tuple[str, int], dict]) -> None:
        for g in range(games):
            found = records.get((cell.id, g))
            if found is not None:
                seat_wins[found["winner"]] += 1

    rows = run_sweep([cell], games, folder, seed, workers=workers, progress=False, log=None, exact=False, then=count)
    timing = read_timing(folder)[0]
    return rows, seat_wins, timing["cpu_seconds"] / timing["games"]


def check(parser: Parser, args: argparse.Namespace) -> tuple[GameConfig, str, list[str]]:
    """The run's config, agent and field, or one line naming the problem and exit status 2."""
    if args.players < 2:
        parser.error(f"--players must be 2 or more, got {args.players}")
    if args.games < 1 or args.seed < 0 or args.workers < 1:
        parser.error("--games and --workers must be >= 1, --seed >= 0")
    try:
        config = game_config(args.players, args.dice, args.rules, args.bids)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        agent = canonical_spec(args.agent)
    except ValueError as exc:
        parser.error(f"--agent: {exc}")
    try:
        field = [canonical_spec(s) for s in split_specs(args.field)]
    except ValueError as exc:
        parser.error(f"--field: {exc}")
    twice = [s for s in dict.fromkeys(field) if field.count(s) > 1]
    if twice:
        parser.error(f"--field lists {twice[0]!r} twice")
    for option, spec in [("--agent", agent)] + [("--field", s) for s in field]:
        try:
            player = make_seat(spec)
            if getattr(player, "interactive", False):
                raise ValueError("a person cannot play unattended games")
            for seat in range(args.players):
                player.reset(seat, config)
        except ValueError as exc:
            parser.error(f"{option} {spec!r} cannot play {args.players} players, {dice_text(args.dice)} each: {exc}")
    return config, agent, field


def main() -> None:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="expected-count", help="the agent's spec (default expected-count)")
    parser.add_argument("--players", type=int, default=3, help="players at each table, >= 2 (default 3)")
    parser.add_argument("--dice", type=int, default=5, help="dice each (default 5)")
    parser.add_argument("--rules", choices=tuple(PRESETS), default=None, help="a preset's rules (default: today's)")
    parser.add_argument("--bids", choices=BID_MODES, default="full",
                        help="full: a bid names any face (default); sixes: report 002's sixes game, every bid on the "
                             "highest face, each raise adds one")
    parser.add_argument("--field", default=FIELD, help=f"the opponents, comma-separated specs (default {FIELD})")
    parser.add_argument("--tables", choices=("every", "same"), default="every",
                        help="every: each table of N-1 opponents from the field, repetition allowed; same: only "
                             "tables of N-1 copies of one opponent (default every)")
    parser.add_argument("--seating", choices=("permute", "rotate"), default="permute",
                        help="permute: game g seats the players in permutation g mod N! (default); rotate: in "
                             "rotation g mod N (every seat equally often in a multiple of N games; enough for "
                             "--tables same)")
    parser.add_argument("--no-self-play", action="store_true", help="skip the table of N copies of the agent")
    parser.add_argument("--games", type=int, default=600, help="games per table (default 600)")
    parser.add_argument("--workers", type=int, default=1, help="processes per table (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/many_players", help="folder (one sub-folder per table)")
    parser.add_argument("--record", action="store_true",
                        help="write docs/data/NAME.json (the field) and NAME_self.json (self-play), stamped")
    parser.add_argument("--name", default=None,
                        help="the data files' name (default many_players_AGENT_Np[_RULES][_sixes])")
    args = parser.parse_args()
    config, agent, field = check(parser, args)
    n = args.players
    rules = (f"_{args.rules}" if args.rules else "") + ("_sixes" if args.bids == "sixes" else "")
    name = args.name or f"many_players_{slug(agent)}_{n}p{rules}"
    out = Path(args.out) / f"{n}p{args.dice}d{rules}{'_rotate' if args.seating == 'rotate' else ''}"
    share = 1 / n
    cycle = math.factorial(n) if args.seating == "permute" else n
    cycle_text = f"{n}! = {cycle}" if args.seating == "permute" else f"{n}"
    if args.games % cycle:
        print(f"note: {args.games} games per table is not a multiple of {cycle_text}: the seatings "
              f"are not all played equally often")
    opponents = tables(field, n - 1, args.tables == "same")
    print(f"{agent} at {n} players, {dice_text(args.dice)} each ({config.describe()}): {len(opponents)} tables"
          f"{'' if args.no_self_play else ' and self-play'}, {args.games} games each -> {out}", flush=True)
    field_rows: list[list] = []
    self_rows: list[list] = []
    try:
        wins = games = 0
        for others in opponents:
            cell = Cell((agent, *others), config, seating=args.seating)
            (row, *_), _, cpu = play_table(cell, args.games, out, args.seed, args.workers)
            wins, games = wins + row.wins, games + row.games
            field_rows.append([", ".join(f"`{o}`" for o in others), row.games, rate_text(row.wins, row.games),
                               verdict(row.wins, row.games, share), round(cpu, 3)])
            print(" | ".join(map(str, field_rows[-1])), flush=True)
        if opponents:
            field_rows.append(["**all tables, pooled**", games, rate_text(wins, games), verdict(wins, games, share),
                               round(sum(r[-1] * r[1] for r in field_rows) / games, 3)])
            print(" | ".join(map(str, field_rows[-1])), flush=True)
        if not args.no_self_play:
            cell = Cell((agent,) * n, config, seating=args.seating)
            copies, seat_wins, cpu = play_table(cell, args.games, out, args.seed, args.workers)
            for seat, won in enumerate(seat_wins):
                self_rows.append([f"seat {seat}" + (" (opens the first round)" if seat == 0 else ""), args.games,
                                  rate_text(won, args.games), verdict(won, args.games, share)])
            for row in copies:
                self_rows.append([f"copy {row.player_index}", row.games, rate_text(row.wins, row.games),
                                  verdict(row.wins, row.games, share)])
            self_rows[0].append(round(cpu, 3))
            for other in self_rows[1:]:
                other.append(None)
            for line in self_rows:
                print(" | ".join(map(str, line)), flush=True)
    except ValueError as exc:  # e.g. a folder in use by another run, or holding another seed's games
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    except KeyboardInterrupt:
        parser.exit(130, f"stopped: the games played are saved under {out}; run the same command again to resume\n")
    if not args.record:
        return
    preset = (f", {args.rules.capitalize()} rules" if args.rules else ", today's rules") + (
        ", the sixes game" if args.bids == "sixes" else "")
    command = (f"python benchmarks/many_players.py --agent {agent} --players {n} --dice {args.dice} "
               + (f"--rules {args.rules} " if args.rules else "") + ("--bids sixes " if args.bids == "sixes" else "")
               + f"--field {','.join(field)} --tables {args.tables} "
               + ("--no-self-play " if args.no_self_play else "")
               + ("--seating rotate " if args.seating == "rotate" else "")
               + f"--games {args.games} --seed {args.seed} --record --name {name}")
    if args.seating == "permute":
        seatings = (f"Game g of a table seats its players in permutation g mod {cycle_text}: the agent in every seat, "
                    "the others in every order")
    else:
        seatings = (f"Game g of a table seats its players in rotation g mod {n}: the agent in every seat, the others "
                    "in one order round the table")
    seatings += ("" if args.games % cycle else ", each seating equally often") + ". "
    cpu_note = ("CPU s a game: the table's worker CPU seconds over the games of the run that last played in it (all "
                "its games unless resumed), on a machine of 2 cores shared with other jobs.")
    if field_rows:
        record(name, f"`{agent}` at tables of {n} players, {dice_text(args.dice)} each{preset}: its win rate against "
                     f"each table of opponents, fair share 1/{n}",
               ["opponents", "games", f"`{agent}`'s win rate", f"against 1/{n} (95% interval)", "CPU s a game"],
               field_rows, command=command,
               notes=seatings + "Win rates with 95% Wilson intervals; the next column says whether the interval "
                     f"lies above 1/{n}, below it, or holds it. The pooled row counts every table's games alike. "
                     + cpu_note)
    if self_rows:
        record(f"{name}_self", f"Self-play sanity: {n} copies of `{agent}`, {dice_text(args.dice)} each{preset}",
               ["seat / copy", "games", "win rate", f"against 1/{n} (95% interval)", "CPU s a game"], self_rows,
               command=command,
               notes=seatings + f"A copy's win rate must hold 1/{n} (the copies are alike, so a copy off it means "
                     "the harness favours a player); a seat's need not (seat 0 opens the first round): it shows what "
                     "the position is worth. " + cpu_note)


if __name__ == "__main__":
    main()
