"""Exact one-round solutions: solve time, game value and the exploitability of the heuristics and planners.

    python benchmarks/exact_solve.py [--quick] [--out results/exact]

Each configuration is solved from scratch (no disk cache) by the sequence-form LP with HiGHS. Seat 0
opens; "value" is the opener's expected payoff (+1 keeps the die, -1 loses it) and P(open) its win
probability. Exploitability is in payoff units (halve it for win probability): what a best responder
gains over the game value against the policy as opener / as responder, and their mean. Planners
without ``action_probabilities`` are measured through ``ReplayPolicy`` (their ``act`` replayed):
exactly for the deterministic expected-count planner, and for POMCP (randomised, slow) by the action
frequencies of ``--pomcp-samples`` differently seeded players per decision, only on rounds with at most
``--pomcp-budget`` decisions (hands x public nodes); sampling noise makes that figure err upwards.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import time
from pathlib import Path

from ldpomdp.exact import ReplayPolicy, cached_solution, exploitability
from ldpomdp.registry import make_player, parse_spec, split_specs
from ldpomdp.rules import GameConfig

CONFIGS = [  # (label, config, in --quick)
    *[(f"1d{n} no wild (thm 2.1)", GameConfig(dice=1, faces=n, wild=None), True) for n in range(2, 7)],
    ("1d3, 3 wild (thm 2.2)", GameConfig(dice=1, faces=3, wild=3), True),
    ("1d6, 1 wild", GameConfig(dice=1, faces=6, wild=1), True),
    ("1d6, 6 wild", GameConfig(dice=1, faces=6, wild=6), False),
    ("2d3, 1 wild", GameConfig(dice=2, faces=3, wild=1), True),
    ("2d3, no wild", GameConfig(dice=2, faces=3, wild=None), False),
    ("1v2 d3, 1 wild", GameConfig(dice=(1, 2), faces=3, wild=1), False),
    ("2v1 d3, 1 wild", GameConfig(dice=(2, 1), faces=3, wild=1), False),
    ("1v2 d4, 1 wild", GameConfig(dice=(1, 2), faces=4, wild=1), False),
    ("3d2, no wild", GameConfig(dice=3, faces=2, wild=None), False),
    ("1d7, 1 wild", GameConfig(dice=1, faces=7, wild=1), False),
    *[(f"sixes {d}d6, 1 wild", GameConfig(dice=d, faces=6, wild=1, bids="sixes"), d <= 3) for d in range(1, 7)],
]

POLICIES = ["nash", "one-third", "bluff:0.5", "random", "expected-count:belief=exact"]


def policy_for(spec: str, samples: int = 1):
    """The player itself if it states its action probabilities, else its ``act`` replayed (each replayed
    player seeded differently when ``samples`` > 1)."""
    player = make_player(spec)
    if callable(getattr(player, "action_probabilities", None)):
        return player
    if samples == 1:
        return ReplayPolicy(parse_spec(spec).build, name=spec)
    seeds = itertools.count()
    sep = "," if ":" in spec else ":"
    return ReplayPolicy(lambda: make_player(f"{spec}{sep}seed={next(seeds)}"), samples=samples, name=spec)


def decisions(tree) -> int:
    """Information sets of both players: hands x public nodes where each acts."""
    return sum(len(tree.hands[r]) * int((tree.node_depth % 2 == r).sum()) for r in (0, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small configurations only")
    parser.add_argument("--out", default="results/exact")
    parser.add_argument("--policies", default=",".join(POLICIES), help="comma-separated player specs to measure")
    parser.add_argument("--pomcp", default="pomcp:sims=200", help="POMCP spec ('' to skip)")
    parser.add_argument("--pomcp-samples", type=int, default=8)
    parser.add_argument("--pomcp-budget", type=int, default=300, help="largest round (decisions) to replay POMCP on")
    args = parser.parse_args()
    policies = split_specs(args.policies)
    rows = []
    for label, config, quick in CONFIGS:
        if args.quick and not quick:
            continue
        solution = cached_solution(config, use_disk=False)
        row = {"config": label, "dice": "v".join(map(str, config.starting_dice)), "faces": config.faces,
               "wild": config.wild, "bids": config.bids, "lp_variables": solution.lp_shape[0],
               "lp_constraints": solution.lp_shape[1], "solve_s": round(solution.solve_seconds, 2),
               "value": round(solution.value, 6), "p_opener_wins": round(solution.opener_win_probability, 6)}
        measured = list(policies)
        if args.pomcp and not args.quick and decisions(solution.tree) <= args.pomcp_budget:
            measured.append(args.pomcp)
        for spec in measured:
            samples = args.pomcp_samples if spec == args.pomcp else 1
            start = time.perf_counter()
            try:
                result = exploitability(policy_for(spec, samples), config)
            except (ValueError, ImportError) as exc:  # a planner that cannot play this rule set
                print(f"  {label}: {spec} skipped ({exc})")
                continue
            row[f"{spec} opener"] = round(result.as_opener, 6)
            row[f"{spec} responder"] = round(result.as_responder, 6)
            row[f"{spec} mean"] = round(result.average, 6)
            row[f"{spec} s"] = round(time.perf_counter() - start, 2)
            if samples > 1:
                row[f"{spec} samples"] = samples
        rows.append(row)
        print(f"{label:24} solve {row['solve_s']:7.2f} s  value {row['value']:+.6f}  "
              + "  ".join(f"{s}: {row.get(s + ' mean', float('nan')):.4f}" for s in measured), flush=True)
    fields = list(dict.fromkeys(k for r in rows for k in r))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "exact_solve.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    print(f"\nwrote {out / 'exact_solve.csv'}")


if __name__ == "__main__":
    main()
