"""Report 000's call-and-re-roll game: tree agent vs matrix agent head to head, exact value, solve times.

    python benchmarks/call_reroll.py [--quick] [--games 10000] [--seed 0] [--out results/call_reroll]

Half the games are opened (first roll) by the tree agent, half by the matrix agent, as in the
report's Table 1; the exact win probabilities of each pairing are printed next to the counts.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from ldpomdp.variants.call_reroll import MatrixAgent, TreeAgent, play, stage_values, win_probability

REPORT_TABLE_1 = {"tree": (3703, 2275), "matrix": (1297, 2725)}  # wins (tree first, matrix first)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 games")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/call_reroll")
    args = parser.parse_args()
    games = 1_000 if args.quick else args.games
    if games < 2 or games % 2:
        parser.error("--games must be an even number >= 2")

    start = time.perf_counter()
    values = stage_values()
    value_seconds = time.perf_counter() - start
    start = time.perf_counter()
    matrix = MatrixAgent()
    matrix_seconds = time.perf_counter() - start
    start = time.perf_counter()
    tree = TreeAgent()
    tree_seconds = time.perf_counter() - start

    print(f"exact value: the first roller wins with probability {values[0]:.6f} (payoff {2 * values[0] - 1:+.6f})")
    print(f"behaviour-LP solve of all stages: {value_seconds * 1000:.1f} ms; tree agent: {tree_seconds * 1000:.1f} ms; "
          f"matrix agent (normal forms + minimax LPs): {matrix_seconds * 1000:.1f} ms")
    stage_rows = []
    print(f"\n{'stage':>13} {'call strats':>11} {'answers':>8} {'seconds':>8} {'V exact':>8} {'V tree':>8}")
    for x in sorted(matrix.shapes, reverse=True):
        rows_, cols_ = matrix.shapes[x]
        stage_rows.append({"accepted": x, "call_strategies": rows_, "answer_strategies": cols_,
                           "seconds": round(matrix.seconds[x], 4), "value": round(values[x], 6),
                           "tree_estimate": round(tree.values[x], 6)})
        label = "start" if x == 0 else f"accept {x}"
        print(f"{label:>13} {rows_:>11} {cols_:>8} {matrix.seconds[x]:>8.4f} {values[x]:>8.4f} {tree.values[x]:>8.4f}")

    rng = np.random.default_rng(args.seed)
    names = ("tree", "matrix")
    wins = {name: [0, 0] for name in names}  # [tree rolled first, matrix rolled first]
    for g in range(games):
        first = 0 if g < games // 2 else 1  # index into names of the agent rolling first
        wins[names[play((tree, matrix), first, rng)]][first] += 1
    exact_tree_first = win_probability(tree, matrix)
    exact_matrix_first = win_probability(matrix, tree)
    half = games // 2
    rows = [
        {"agent": "tree", "wins_tree_first": wins["tree"][0], "wins_matrix_first": wins["tree"][1],
         "total": sum(wins["tree"]), "exact_share": round((exact_tree_first + 1 - exact_matrix_first) / 2, 6),
         "report_tree_first": REPORT_TABLE_1["tree"][0], "report_matrix_first": REPORT_TABLE_1["tree"][1]},
        {"agent": "matrix", "wins_tree_first": wins["matrix"][0], "wins_matrix_first": wins["matrix"][1],
         "total": sum(wins["matrix"]), "exact_share": round((1 - exact_tree_first + exact_matrix_first) / 2, 6),
         "report_tree_first": REPORT_TABLE_1["matrix"][0], "report_matrix_first": REPORT_TABLE_1["matrix"][1]},
    ]
    print(f"\n{games:,} games (seed {args.seed}), {half:,} with each agent rolling first")
    print(f"{'wins':>8} {'tree first':>11} {'matrix first':>13} {'total':>7} {'exact share':>12} {'report 000':>12}")
    for r in rows:
        report = f"{r['report_tree_first']}/{r['report_matrix_first']}"
        print(f"{r['agent']:>8} {r['wins_tree_first']:>11} {r['wins_matrix_first']:>13} {r['total']:>7} "
              f"{r['exact_share']:>12.4f} {report:>12}")
    print(f"exact P(first roller wins): tree first {exact_tree_first:.4f}, matrix first {exact_matrix_first:.4f}; "
          f"either agent against itself: matrix {win_probability(matrix, matrix):.4f}, "
          f"tree {win_probability(tree, tree):.4f}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, table in (("head_to_head.csv", rows), ("stages.csv", stage_rows)):
        with open(out / name, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(table[0]))
            writer.writeheader()
            writer.writerows(table)
    print(f"\nwrote {out / 'head_to_head.csv'} and {out / 'stages.csv'}")


if __name__ == "__main__":
    main()
