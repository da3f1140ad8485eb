"""Strength of the planners against report 002's one-third rule: sixes game, 2 players, seats rotated.

    python benchmarks/strength.py [--quick] [--dice 7,15,35] [--games 1000] [--pomcp-games 200]
                                  [--pomcp SPEC] [--expected SPEC] [--workers N] [--seed S] [--out DIR]

Win rates with 95% Wilson intervals for the expected-count planner and POMCP, each against OneThirdRule.
Games are stored in results/strength/{expected_count,pomcp}/games.jsonl (re-running resumes); the merged
table goes to results/strength/strength.csv. Report 002: its POMDP player wins ~80% at 35 dice.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from ldpomdp.sweeps import Cell, format_table, parse_dice_range, run_sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few games per cell (smoke run)")
    parser.add_argument("--dice", default="7,15,35", help="dice per player (default 7,15,35)")
    parser.add_argument("--games", type=int, default=1000, help="games per cell, expected-count (default 1000)")
    parser.add_argument("--pomcp-games", type=int, default=200, help="games per cell, POMCP (default 200)")
    parser.add_argument("--expected", default="expected-count", help="expected-count planner spec")
    parser.add_argument("--pomcp", default="pomcp:sims=1000", help="POMCP planner spec (default pomcp:sims=1000)")
    parser.add_argument("--opponent", default="one-third", help="opponent spec (default one-third)")
    parser.add_argument("--skip", choices=("expected", "pomcp"), help="leave one planner out")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/strength")
    args = parser.parse_args()
    dice = parse_dice_range(args.dice)
    games = {"expected": 20 if args.quick else args.games, "pomcp": 4 if args.quick else args.pomcp_games}
    specs = {"expected": args.expected, "pomcp": args.pomcp}
    out = Path(args.out)
    rows = []
    for key in ("expected", "pomcp"):
        if key == args.skip:
            continue
        cells = [Cell.of((specs[key], args.opponent), d, bids="sixes") for d in dice]
        folder = out / ("expected_count" if key == "expected" else "pomcp")
        rows += [r for r in run_sweep(cells, games[key], folder, args.seed, workers=args.workers)
                 if r.player_index == 0]
    print(format_table(rows))
    with open(out / "strength.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["planner", "opponent", "dice", "games", "wins", "win_rate", "ci_low", "ci_high"])
        for r in rows:
            writer.writerow([r.player, args.opponent, r.dice, r.games, r.wins, round(r.win_rate, 4),
                             round(r.ci_low, 4), round(r.ci_high, 4)])
    print(f"wrote {out / 'strength.csv'}")


if __name__ == "__main__":
    main()
