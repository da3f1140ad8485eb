"""The best any player can do in report 004's Table 2 (3 players, 5 dice, ones wild, full bids) against the pairs
of hand-independent dummies: the exact best response's P(win) per seating order and opener, the column's
expected win rate and losses per 1000 games, and P(at most k losses) over the table's exact schedule of 1000
games (wildcard_table.py: half the games per seating order, game g opened by the seat g places after the
player, as ``rotate`` does). Pairs with a hand-dependent dummy (Conservative) have no such solution: skipped
(only for that reason: any other error stops the script).

    python benchmarks/wildcard_ceiling.py [--quick] [--dice 5] [--games 1000]
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

import numpy as np
from wildcard_table import PAIRS, REPORT

from ldpomdp.exact import HandDependentModelError, solve_fixed_opponents
from ldpomdp.registry import make_player
from ldpomdp.rules import GameConfig

MAX_K = 3  # P(at most k losses) for k = 0 .. MAX_K
HEADER = (f"{'column':<24} {'order':<24} {'X opens':>9} {'1st opens':>9} {'2nd opens':>9} | {'win %':>7} "
          f"{'losses':>7} " + " ".join(f"{'P(<=' + str(k) + ')':>7}" for k in range(MAX_K + 1)) + f" | {'QAgent %':>8}")
FIELDS = ("dice", "pair", "order", "p_win_x_opens", "p_win_seat1_opens", "p_win_seat2_opens", "column_win_rate",
          "games", "expected_losses", *(f"p_at_most_{k}_losses" for k in range(MAX_K + 1)), "final_qagent_win_rate")


def at_most(loss_probabilities: np.ndarray, max_k: int = MAX_K) -> np.ndarray:
    """P(at most k of the independent games are lost), k = 0..max_k: the Poisson-binomial distribution,
    built game by game and truncated at max_k (higher counts never flow back down)."""
    dist = np.zeros(max_k + 1)
    dist[0] = 1.0
    for q in loss_probabilities:
        dist[1:] = dist[1:] * (1 - q) + dist[:-1] * q
        dist[0] *= 1 - q
    return np.cumsum(dist)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 dice per player (a few seconds)")
    parser.add_argument("--dice", type=int, default=None, help="dice per player (default 5; --quick 3)")
    parser.add_argument("--games", type=int, default=1000, help="games per table column (default 1000)")
    parser.add_argument("--out", default="results/wildcard_ceiling")
    args = parser.parse_args()
    dice = args.dice or (3 if args.quick else 5)
    config = GameConfig(num_players=3, dice=dice, bids="full", wild=1)
    half = math.ceil(args.games / 2)
    start = time.process_time()
    rows, lines, skipped = [], [HEADER], []
    for j, pair in enumerate(PAIRS):
        orders = [pair] if pair[0] == pair[1] else [pair, pair[::-1]]
        per_order, schedule = {}, []
        try:
            for order in orders:
                solution = solve_fixed_opponents(config, {1: make_player(order[0]), 2: make_player(order[1])})
                per_order[order] = [solution.win_probability(opener=o) for o in range(3)]
        except HandDependentModelError as err:
            skipped.append(f"vs {'+'.join(pair)}: skipped, {err}")
            continue
        for values in per_order.values():
            games = half if len(orders) == 2 else args.games
            schedule += [values[g % 3] for g in range(games)]
        rate = float(np.mean([np.mean(v) for v in per_order.values()]))
        losses = 1.0 - np.array(schedule)
        cumulative = at_most(losses)
        report = REPORT["Final QAgent"][j]
        for order, values in per_order.items():
            rows.append({"dice": dice, "pair": "+".join(pair), "order": "X," + ",".join(order),
                         "p_win_x_opens": values[0], "p_win_seat1_opens": values[1], "p_win_seat2_opens": values[2],
                         "column_win_rate": rate, "games": len(schedule), "expected_losses": losses.sum(),
                         **{f"p_at_most_{k}_losses": cumulative[k] for k in range(MAX_K + 1)},
                         "final_qagent_win_rate": report / 100})
        lines.append(_format(pair, per_order, rate, losses.sum(), cumulative, report))
    cpu = time.process_time() - start
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "ceiling.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)  # a header only if every pair was skipped
        writer.writeheader()
        writer.writerows(rows)
    print(f"Exact best response in report 004's setting with {dice} dice per player (3 players, ones wild, full "
          f"bids); {args.games} games per column")
    print(f"P(win) per seating order and opener; the column's win % (openers equal, orders {half}/{half}), expected "
          f"losses and P(at most k losses) in its {args.games} games; report 004's Final QAgent")
    print("\n".join(lines + skipped))
    print(f"CPU {cpu:.1f} s; wrote {out / 'ceiling.csv'}")


def _format(pair: tuple[str, str], per_order: dict[tuple[str, str], list[float]], rate: float, expected: float,
            cumulative: np.ndarray, report: float) -> str:
    """One column's rows: P(win) per seating order and opener; the column's figures on its first row."""
    out = []
    for n, (order, values) in enumerate(per_order.items()):
        left = f"{'vs ' + '+'.join(pair) if n == 0 else '':<24} {'X,' + ','.join(order):<24} " + " ".join(
            f"{v:9.6f}" for v in values)
        if n == 0:
            left += (f" | {100 * rate:7.3f} {expected:7.3f} " + " ".join(f"{c:7.4f}" for c in cumulative)
                     + f" | {report:8.1f}")
        out.append(left)
    return "\n".join(out)


if __name__ == "__main__":
    main()
