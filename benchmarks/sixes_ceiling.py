"""The best possible play in report 002's sixes game against the one-third rule, and what it costs to compute.

Two players: one solve from 35 dice each gives every start from 1 to 35 (the exact best response's win rate,
averaged over who opens first, as a seat-rotated sweep plays it), beside the exact win rate of report 002's
expected-count policy over an exact belief (up to --exact-value-dice, where its belief is cheap enough) and the
ceiling against the bluffing one-third rule at 15 dice (report 002's Fig. 10 setting). Three players (two
one-third players): the solve time for growing dice, up to --three-max, and the work of 35 dice each.
CPU seconds are this process's (time.process_time), so other load on the machine does not inflate them.

    python benchmarks/sixes_ceiling.py [--max-dice 35] [--exact-value-dice 15] [--three-max 12]
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import time
from datetime import date

from ldpomdp.exact import evaluate_player, solve_fixed_opponents
from ldpomdp.exact.against_models.solver import solve_work
from ldpomdp.players import OneThirdRule
from ldpomdp.registry import make_player
from ldpomdp.rules import GameConfig


def stamp() -> str:
    """Date, commit and machine, for the figures' record."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor()) if platform.system() == "Linux" else platform.processor()
    return f"{date.today().isoformat()}, commit {commit}, {cpu}, Python {platform.python_version()}"


def mean_over_openers(solution, dice: tuple[int, ...]) -> float:
    return sum(solution.win_probability(dice, o) for o in range(len(dice))) / len(dice)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-dice", type=int, default=35)
    parser.add_argument("--exact-value-dice", type=int, default=15)
    parser.add_argument("--three-max", type=int, default=12)
    args = parser.parse_args()
    print(f"# {stamp()}\n")

    config = GameConfig(num_players=2, dice=args.max_dice, bids="sixes")
    start = time.process_time()
    best = solve_fixed_opponents(config, {1: OneThirdRule()}, 0)
    solve = time.process_time() - start
    print(f"2 players, every start 1-{args.max_dice} vs one-third: {solve:.1f} CPU s "
          f"({solve_work(config, 0).model_calls:,} model calls; target <= 60 s)\n")

    start = time.process_time()
    small = GameConfig(num_players=2, dice=args.exact_value_dice, bids="sixes")
    planner = evaluate_player(small, {1: OneThirdRule()}, make_player("expected-count:belief=exact"), 0)
    evaluation = time.process_time() - start
    print("| dice | best response vs one-third | expected-count (exact belief), exact |")
    print("|---|---|---|")
    for d in range(1, args.max_dice + 1):
        value = f"{mean_over_openers(planner, (d, d)):.4f}" if d <= args.exact_value_dice else ""
        print(f"| {d} | {mean_over_openers(best, (d, d)):.4f} | {value} |")
    print(f"\n(expected-count's exact values: {evaluation:.1f} CPU s up to {args.exact_value_dice} dice)\n")

    print("| bluff of the one-third player (15 dice) | best response |\n|---|---|")
    for bluff in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        solution = solve_fixed_opponents(GameConfig(num_players=2, dice=15, bids="sixes"), {1: OneThirdRule(bluff)})
        print(f"| {bluff:g} | {mean_over_openers(solution, (15, 15)):.4f} |")

    print("\n3 players (best response vs two one-third players, averaged over the opener):\n")
    print("| dice each | CPU s | model calls | best response |\n|---|---|---|---|")
    for d in range(4, args.three_max + 1, 2):
        three = GameConfig(num_players=3, dice=d, bids="sixes")
        start = time.process_time()
        solution = solve_fixed_opponents(three, {1: OneThirdRule(), 2: OneThirdRule()}, 0)
        seconds = time.process_time() - start
        print(f"| {d} | {seconds:.1f} | {solve_work(three, 0).model_calls:,} | "
              f"{mean_over_openers(solution, (d,) * 3):.4f} |")
    work = solve_work(GameConfig(num_players=3, dice=35, bids="sixes"), 0)
    print(f"\n35 dice each: {work.states:,} rounds, {work.model_calls:,} model calls, {work.table_cells:,} table "
          f"cells (over MAX_TABLE_CELLS: refused by name)")


if __name__ == "__main__":
    main()
