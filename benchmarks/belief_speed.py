"""Speed of one belief update: vectorized particles vs a per-particle Python loop vs the exact belief.

    python benchmarks/belief_speed.py [--quick] [--sizes 1000 10000 ...] [--dice 5 35]

For each opponent dice count, bid mode and particle count N: one ``update`` (given the likelihoods),
one ``update_from`` (the one-third model's likelihoods + update) and one ``expected_count``; in the same
run the same update as per-particle Python loops (given the likelihoods; and report 002's Alg. 4, which
plays the one-third rule on each hand inside the loop) and ``ExactBelief`` on its full support. Times are
medians over repeats; compare the ratios (the machine is shared, absolute times are noisy). Targets: update of
10^5 particles at 35 dice <= 15 ms, >= 100x faster than the per-particle loop.
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ldpomdp import (
    CHALLENGE,
    Bid,
    ExactBelief,
    GameConfig,
    OneThirdRule,
    PlayerView,
    PublicView,
    RejectionParticleBelief,
)
from ldpomdp.hands import hand_support
from ldpomdp.rules import match_probability, minimal_raises


def scenario(dice: int, bids: str, seed: int) -> tuple[PublicView, Bid]:
    """Two players with ``dice`` each; seat 0 bid about two thirds of the expected table count, seat 1
    raised as the one-third rule does with a random hand (so roughly half the hands explain it)."""
    config = GameConfig(num_players=2, dice=dice, bids=bids)
    face = 6 if bids == "sixes" else 3
    history = ((0, Bid(max(1, round(2 * dice / 3)), face)),)
    rng = np.random.default_rng(seed)
    rule = OneThirdRule()
    while True:  # setup only: find a hand whose move is a raise
        hand = tuple(int(c) for c in rng.multinomial(dice, [1 / 6] * 6))
        action = rule.act(PlayerView(config, 1, (dice, dice), history, hand=hand), rng)
        if action is not CHALLENGE:
            return PublicView(config, 1, (dice, dice), history), action


def loop_update(particles: list, likelihoods: list, n: int, rng: random.Random) -> list:
    """The rejection step as a per-particle loop: keep each hand with its likelihood, then draw the
    missing hands from the survivors."""
    survivors = [hand for hand, p in zip(particles, likelihoods, strict=True) if rng.random() < p]
    return survivors + [survivors[rng.randrange(len(survivors))] for _ in range(n - len(survivors))]


def report_keeps(hands: list, view: PublicView, action: Bid) -> list[bool]:
    """Report 002, Alg. 4, one hand at a time: play the (bluff-free) one-third rule on the hand and keep
    it iff it makes the observed raise (the full game's face choice included)."""
    config, bid = view.config, view.bid
    others = view.table_dice - view.dice[view.seat]
    wild = (config.wild or 0) - 1
    unseen = [others * match_probability(config, f) for f in range(1, config.faces + 1)]
    raises = minimal_raises(config, view.table_dice, bid)
    keeps = []
    for hand in hands:
        estimate = [hand[f] + (hand[wild] if wild >= 0 and f != wild else 0) + unseen[f] for f in range(config.faces)]
        challenges = bid is not None and estimate[bid.face - 1] < bid.quantity
        keeps.append(not challenges and max(raises, key=lambda b: (estimate[b.face - 1], b.face)) == action)
    return keeps


def report_loop_update(hands: list, view: PublicView, action: Bid, rng: random.Random) -> list:
    """Alg. 4's loop with the resampling of ``loop_update``."""
    return loop_update(hands, report_keeps(hands, view, action), len(hands), rng)


def median_ms(run: Callable[[], object], repeats: int, setup: Callable[[], object] | None = None) -> float:
    """Median wall time of ``run`` in milliseconds; ``setup`` (untimed) runs before every repeat."""
    times = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def measure(dice: int, bids: str, n: int, args: argparse.Namespace, exact_ms: dict) -> dict:
    view, action = scenario(dice, bids, args.seed)
    rule = OneThirdRule()
    belief = RejectionParticleBelief(dice, n_particles=n, rng=args.seed)
    prior = belief.particles.copy()
    likelihoods = rule.action_probabilities(prior, view, action)
    state = dict(vars(belief))

    def restore() -> None:  # every repeat updates the same prior particles
        vars(belief).update(state)

    repeats = max(1, args.repeats if n < 1_000_000 else args.repeats // 2)
    row = {"dice": dice, "bids": bids, "n_particles": n, "acceptance": round(float(likelihoods.mean()), 3)}
    row["update_ms"] = median_ms(lambda: belief.update(likelihoods), repeats, restore)
    row["update_from_ms"] = median_ms(lambda: belief.update_from(rule, action, view), repeats, restore)
    # expected_count remembers its answer until the next update: time the first call after one
    row["expected_count_ms"] = median_ms(lambda: belief.expected_count(action.face, 1), repeats, belief._expected.clear)
    py_rng = random.Random(args.seed)
    if n <= args.loop_max:
        hands, probs = [tuple(h) for h in prior.tolist()], likelihoods.tolist()
        if report_keeps(hands[:2000], view, action) != [p == 1.0 for p in probs[:2000]]:
            raise AssertionError("report_keeps disagrees with OneThirdRule.action_probabilities")
        loop_repeats = max(1, repeats // 2)
        row["loop_update_ms"] = median_ms(lambda: loop_update(hands, probs, n, py_rng), loop_repeats)
        row["report_loop_ms"] = median_ms(lambda: report_loop_update(hands, view, action, py_rng), loop_repeats)
    key = (dice, bids)
    if key not in exact_ms:
        start = time.perf_counter()
        hand_support(dice, 6)
        build = 1e3 * (time.perf_counter() - start)
        exact = ExactBelief(dice)
        weights = exact.weights.copy()
        exact_likelihoods = rule.action_probabilities(exact.support, view, action)

        def reset() -> None:
            exact.weights = weights

        exact_ms[key] = {
            "exact_rows": len(exact.support),
            "exact_support_build_ms": build,
            "exact_update_ms": median_ms(lambda: exact.update(exact_likelihoods), args.repeats, reset),
            "exact_update_from_ms": median_ms(lambda: exact.update_from(rule, action, view), args.repeats, reset),
            "exact_expected_count_ms": median_ms(
                lambda: exact.expected_count(action.face, 1), args.repeats, exact._expected.clear),
        }
    row.update(exact_ms[key])
    if "loop_update_ms" in row:
        row["loop_vs_update"] = row["loop_update_ms"] / row["update_ms"]
    if "report_loop_ms" in row:
        row["report_loop_vs_update_from"] = row["report_loop_ms"] / row["update_from_ms"]
    row["exact_vs_update_from"] = row["exact_update_from_ms"] / row["update_from_ms"]
    return row


COLUMNS = [  # (csv key, header, width, number format)
    ("dice", "dice", 4, ""), ("bids", "bids", 5, ""), ("n_particles", "N", 8, ""), ("acceptance", "acc", 5, ""),
    ("update_ms", "update", 8, ".3f"), ("update_from_ms", "upd_from", 8, ".3f"),
    ("expected_count_ms", "E[count]", 8, ".3f"), ("loop_update_ms", "loop", 9, ".1f"),
    ("report_loop_ms", "rep_loop", 9, ".1f"), ("exact_update_ms", "ex_upd", 7, ".2f"),
    ("exact_update_from_ms", "ex_from", 7, ".2f"), ("exact_expected_count_ms", "ex_E", 6, ".2f"),
    ("loop_vs_update", "loop/upd", 8, ".0f"), ("report_loop_vs_update_from", "rep/from", 8, ".0f"),
    ("exact_vs_update_from", "ex/from", 7, ".2f"),
]


def print_table(rows: list[dict]) -> None:
    print("times in ms (median); ratios: loop/update, report loop/update_from, exact/update_from")
    print(" ".join(f"{head:>{width}}" for _, head, width, _ in COLUMNS))
    for r in rows:
        print(" ".join(f"{r[key]:>{width}{spec}}" if key in r else f"{'-':>{width}}"
                       for key, _, width, spec in COLUMNS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N up to 10^4, fewer repeats")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--dice", type=int, nargs="+", default=[5, 35])
    parser.add_argument("--bids", nargs="+", default=["sixes", "full"], choices=["sixes", "full"])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--loop-max", type=int, default=1_000_000, help="largest N for the pure-Python loops")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/belief_speed")
    args = parser.parse_args()
    if args.quick:
        args.sizes = [n for n in args.sizes if n <= 10_000]
        args.repeats = 3
    cells = [(d, b, n) for d in args.dice for b in args.bids for n in args.sizes]
    exact_ms: dict = {}
    rows = [measure(d, b, n, args, exact_ms) for d, b, n in tqdm(cells, desc="belief_speed")]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(out / "belief_speed.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    print_table(rows)
    for r in rows:
        if r["dice"] == 35 and r["n_particles"] == 100_000:
            verdict = "ok" if r["update_ms"] <= 15 else "MISSED"
            print(f"target: 35 dice, {r['bids']}, N=10^5: update {r['update_ms']:.2f} ms (<= 15 ms: {verdict}); "
                  f"report loop / update_from {r.get('report_loop_vs_update_from', float('nan')):.0f}x, "
                  f"loop / update {r.get('loop_vs_update', float('nan')):.0f}x (target >= 100x)")
    print(f"CSV: {out / 'belief_speed.csv'}")


if __name__ == "__main__":
    main()
