"""The rule variants' presets (perudo, dudo): the planners against the one-third rule, and every player of the zoo
playing them.

    python benchmarks/variants.py strength [--games 200] [--dice 5] [--seed 0] [--no-record]
    python benchmarks/variants.py zoo [--games 1000] [--pomcp-games 100] [--seed 0] [--no-record]

``strength``: expected-count and POMCP (one at the table) against one-third players, each preset, 2 and 3 players,
seats rotated: win rates with 95% Wilson intervals, how often the planner makes the exact call (calls per game)
and how often it is right (Wilson interval), CPU seconds. Recorded as docs/data/variants_strength.json.
``zoo``: every player of ``ldpomdp players`` but human (dqn, best-response and cfr refuse the variants)
at 3 and 5 dice, 2 and 3 players, against one-third and random seats, counting the games played without an error.
Recorded as docs/data/variants_zoo.json.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ldpomdp.game import play_game, rotate, seeded_rng
from ldpomdp.registry import make_player, registered_names
from ldpomdp.rules import GameConfig
from ldpomdp.sweeps import rate_text

PRESETS = ("perudo", "dudo")
# a person; trained on, or solving, today's rules only (the network, the fixed-opponent solver, cfr's tables)
REFUSING = ("human", "dqn", "best-response", "cfr")
SPECS = {"bluff": "bluff:0.3", "oehm": "oehm:0.2", "burcsi-nagy": "burcsi-nagy:s=0.5,t=0.1", "nash": "nash",
         "lbr": "lbr:one-third", "openspiel": "openspiel:bot=ismcts,sims=100"}
SEARCHERS = ("pomcp", "openspiel")  # play --pomcp-games per setting (a search per decision)
TWO_PLAYERS = ("nash", "lbr")  # the per-round LP; a local best response


def strength(games: int, dice: int, seed: int) -> tuple[list[str], list[list]]:
    columns = ["rules", "players", "planner", "games", "win rate [95% CI]", "exact calls / game",
               "exact calls right [95% CI]", "CPU s"]
    rows = []
    for preset in PRESETS:
        for players in (2, 3):
            config = GameConfig.preset(preset, num_players=players, dice=dice)
            for spec in ("expected-count", "pomcp"):
                seats = [make_player(spec)] + [make_player("one-third") for _ in range(players - 1)]
                wins = calls = right = 0
                start = time.process_time()
                for game in range(games):
                    seated, seat_of = rotate(seats, game)
                    sequence = np.random.SeedSequence([seed, PRESETS.index(preset), players], spawn_key=(game,))
                    record = play_game(config, seated, seeded_rng(sequence, seated))
                    me = seat_of[0]
                    wins += record.winner == me
                    for r in record.rounds:
                        if r.exact and r.challenger == me:
                            calls += 1
                            right += r.loser < 0
                cpu = time.process_time() - start
                row = [preset, players, spec, games, rate_text(wins, games), f"{calls / games:.2f}",
                       rate_text(right, calls), f"{cpu:.0f}"]
                print(" | ".join(map(str, row)), flush=True)
                rows.append(row)
    return columns, rows


def zoo(games: int, pomcp_games: int, seed: int) -> tuple[list[str], list[list]]:
    columns = ["player", "games per setting", "games played without an error", "CPU s"]
    rows = []
    for name in registered_names():
        if name in REFUSING:
            continue
        n = pomcp_games if name in SEARCHERS else games
        played, start = 0, time.process_time()
        for preset in PRESETS:
            for players in (2, 3):
                if name in TWO_PLAYERS and players > 2:
                    continue
                for dice in ((1,) if name == "nash" else (3, 5)):  # nash: rounds of about one die each
                    config = GameConfig.preset(preset, num_players=players, dice=dice)
                    seats = [make_player(SPECS.get(name, name))] + [
                        make_player("random" if s % 2 else "one-third") for s in range(1, players)]
                    for game in range(n):
                        seated, _ = rotate(seats, game)
                        sequence = np.random.SeedSequence([seed, players, dice], spawn_key=(game,))
                        play_game(config, seated, seeded_rng(sequence, seated))
                        played += 1
        row = [SPECS.get(name, name), n, played, f"{time.process_time() - start:.0f}"]
        print(" | ".join(map(str, row)), flush=True)
        rows.append(row)
    return columns, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("strength", "zoo"))
    parser.add_argument("--games", type=int, default=None, help="games per setting (strength 200, zoo 1000)")
    parser.add_argument("--pomcp-games", type=int, default=100,
                        help="zoo: the searchers' (pomcp, openspiel) games per setting (default 100)")
    parser.add_argument("--dice", type=int, default=5, help="strength: dice per player (default 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-record", action="store_true", help="print only")
    args = parser.parse_args()
    if args.part == "strength":
        games = args.games or 200
        columns, rows = strength(games, args.dice, args.seed)
        name, title = "variants_strength", f"The planners against one-third under the presets, {args.dice} dice each"
        command = f"python benchmarks/variants.py strength --games {games} --dice {args.dice} --seed {args.seed}"
        notes = ("One planner (default spec) against one-third players, seats rotated; 95% Wilson intervals. Exact "
                 "calls: the planner's per game, and the share of them that were right. CPU s: the cell's games, "
                 "one process.")
    else:
        games = args.games or 1000
        columns, rows = zoo(games, args.pomcp_games, args.seed)
        name, title = "variants_zoo", "Every player of the zoo playing the presets (perudo, dudo)"
        command = f"python benchmarks/variants.py zoo --games {games} --pomcp-games {args.pomcp_games}"
        notes = ("Each player in one seat (rotated) against one-third and random seats, at 3 and 5 dice each, 2 and 3 "
                 "players, under both presets (nash: 2 players, 1 die each; lbr: 2 players); an illegal action or any "
                 "error would have stopped the run. dqn, best-response and cfr refuse the variants.")
    if not args.no_record:
        from _record import record

        print(record(name, title, columns, rows, command=command, notes=notes))


if __name__ == "__main__":
    main()
