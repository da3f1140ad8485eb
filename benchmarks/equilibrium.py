"""CFR+ on the imperfect-recall abstraction: exploitability by recall k and iterations, CPU cost per iteration by
round size, the shipped table's cost and size, and the cfr player's time per decision.

    python benchmarks/equilibrium.py [--iterations 100,300] [--presets] [--no-record]

Exploitability is the package's exact one-round figure (payoff units, mean of the two seats) of the abstraction's
own average strategy (float, and as stored in a table: multiples of 1/63). CPU seconds per iteration are process
time of full-width CFR+ (both players updated once), one round, +1/-1; run it with ``OPENBLAS_NUM_THREADS=1`` for
one core's figures.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from _record import record

from ldpomdp.exact import exploitability
from ldpomdp.exact.tables import PRESET_TABLES, SHIPPED, SHIPPED_TABLE, shipped_path
from ldpomdp.exact.two_player.round_cfr import RoundCFR, one_round_outcome
from ldpomdp.exact.two_player.table import GameTable, quantize
from ldpomdp.game import PlayerView
from ldpomdp.hands import hand_support
from ldpomdp.players.cfr import CFRPlayer
from ldpomdp.rules import GameConfig, dice_text

SIZES = [("1 die each, 6 faces, ones wild", GameConfig(dice=1, faces=6, wild=1)),
         ("1 die each, 6 faces, sixes wild", GameConfig(dice=1, faces=6, wild=6)),
         ("2 dice each, 3 faces, threes wild", GameConfig(dice=2, faces=3, wild=3)),
         ("2 dice each, 3 faces, ones wild", GameConfig(dice=2, faces=3, wild=1))]
COST_ROUNDS = [((2, 2), 3), ((3, 3), 2), ((3, 3), 3), ((4, 4), 2), ((5, 4), 2), ((5, 5), 2)]


def exploitability_rows(iterations: list[int]) -> list[list]:
    rows = []
    for label, config in SIZES:
        dice = config.starting_dice
        for k in (1, 2, 3):
            solver = RoundCFR(config, dice, k, one_round_outcome())
            spent = 0.0
            for target in iterations:
                start = time.process_time()
                solver.run(target - solver.iteration)
                spent += time.process_time() - start
                average = solver.average_strategy()
                figures = []
                for strategy in (average, [quantize(s) for s in average]):
                    table = GameTable(config, str(k), target, 0, np.zeros((3, 3)), {dice: tuple(strategy)}, {})
                    figures.append(exploitability(CFRPlayer(table), config, dice))
                e, stored = figures
                rows.append([label, k, target, f"{e.as_opener:.4f}", f"{e.as_responder:.4f}", f"{e.average:.4f}",
                             f"{stored.average:.4f}", f"{spent / target:.4f}"])
                print(rows[-1], flush=True)
    return rows


def cost_rows() -> list[list]:
    rows = []
    config = GameConfig()
    for dice, k in COST_ROUNDS:
        solver = RoundCFR(config, dice, k, one_round_outcome())
        solver.run(1)  # warm caches
        start = time.process_time()
        solver.run(2)
        per = (time.process_time() - start) / 2
        width = "full" if solver.opponent_samples is None else f"{solver.opponent_samples} sampled opponent hands"
        rows.append([f"{dice[0]} vs {dice[1]}", k, solver.round.num_states, width, f"{per:.2f}"])
        print(rows[-1], flush=True)
    return rows


def decision_ms(path: Path, config: GameConfig, decisions: int = 2000) -> float:
    """Mean CPU ms of CFRPlayer.act over random legal positions of the table at ``path`` with ``config``'s starting
    dice (histories of 0-3 random legal raises)."""
    player = CFRPlayer(str(path))
    player.reset(0, config)
    table = player.table(config)
    r = table.round(config.starting_dice)
    rng = np.random.default_rng(0)
    hands = hand_support(config.starting_dice[0], config.faces)[0]
    views = []
    for _ in range(decisions):
        bids: list[int] = []
        for _ in range(rng.integers(0, 4)):
            raises = r.raises[bids[-1] + 1 if bids else 0]
            if not len(raises):
                break
            bids.append(int(rng.choice(raises)))
        history = tuple(((len(bids) - i) % 2, r.bids[b]) for i, b in enumerate(bids))
        hand = tuple(int(c) for c in hands[rng.integers(len(hands))])
        views.append(PlayerView(config, 0, config.starting_dice, history, 0, hand=hand))
    start = time.process_time()
    for view in views:
        player.act(view, rng)
    return (time.process_time() - start) / decisions * 1000.0


def preset_rows() -> list[list]:
    """One row per shipped preset table: its games, rounds, size, solve cost, fixed point residual, value at its
    largest start and cfr's CPU ms per decision there."""
    rows = []
    for name, preset in PRESET_TABLES.items():
        starts = range(1, SHIPPED.dice + 1) if preset.exact_call else [SHIPPED.dice]
        for start in starts:
            config = GameConfig.preset(name, dice=start)
            try:
                path = shipped_path(config)
            except ValueError:  # no table shipped for this start yet
                continue
            assert path is not None
            table = GameTable.load(path)
            games = f"from {dice_text(start)} each" if preset.exact_call else f"1-{start} dice each"
            palifico = sum(len(key) > 2 for key in table.strategies)
            rows.append([name, games, f"{len(table.strategies)} ({palifico} palifico)",
                         f"{path.stat().st_size / 1e6:.2f}", f"{sum(table.seconds.values()):.0f}",
                         f"{table.residual:.1e}" if preset.exact_call else "(ordered)",
                         f"{table.value((start, start)):+.4f}", f"{decision_ms(path, config):.2f}"])
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", default="100,300")
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--presets", action="store_true", help="only the shipped preset tables' row each")
    args = parser.parse_args()
    iterations = [int(x) for x in args.iterations.split(",")]
    if args.presets:
        rows = preset_rows()
        if not args.no_record:
            record("preset_tables", "The shipped Perudo and Dudo tables: the games each covers, its rounds, size, "
                   "solve cost, the exact call's fixed point residual, the game value at its largest start (to the "
                   "opener) and cfr's time per decision there", ["preset", "games", "rounds", "MB", "CPU s", "residual",
                                                         "value", "ms / decision"], rows,
                   command="python benchmarks/equilibrium.py --presets",
                   notes="Perudo: `ldpomdp solve equilibrium --rules perudo --dice S --iterations 135 --sweeps 2` "
                         "(S = 1-5; each sweep continues every round's CFR+: 135 iterations a round after the first "
                         "full sweep, 148 after the second); Dudo: "
                         "`--rules dudo --dice 5 --iterations 150` (solved before 5be0463); recall 3@4,2, seed "
                         "0. CPU s: the rounds' solve time summed over the sweeps, their end probabilities included "
                         "(the whole commands' times are in the text).")
        return
    table = GameTable.load(SHIPPED_TABLE)
    per_decision = decision_ms(SHIPPED_TABLE, GameConfig(dice=table.max_dice))
    print(f"cfr: {per_decision:.3f} CPU ms per decision", flush=True)
    expl = exploitability_rows(iterations)
    cost = cost_rows()
    if args.no_record:
        return
    record("equilibrium_exploitability", "Exploitability of the abstraction's own CFR+ strategy (one round, exact)",
           ["game", "recall k", "iterations", "as opener", "as responder", "mean", "mean, as stored",
            "CPU s / iteration"], expl, command=f"python benchmarks/equilibrium.py --iterations {args.iterations}",
           notes="Payoff units (+1 keeps the die, -1 loses it); halve for win probability. Full width over hand "
                 "pairs, CFR+ with alternating updates and linear averaging.")
    shipped = [[f"{a} vs {b}", table.round((a, b)).k, table.round((a, b)).num_states, f"{table.values[a, b]:+.4f}",
                f"{seconds:.1f}"] for (a, b), seconds in table.seconds.items()]
    size = SHIPPED_TABLE.stat().st_size / 1e6
    record("equilibrium_table", "The shipped table (default rules): each round's recall, abstract states, game "
           "value to the opener and solve cost", ["round (opener vs responder dice)", "recall k", "states",
                                                  "game value", "CPU s"], shipped,
           command=f"ldpomdp solve equilibrium --dice {table.max_dice} --recall {table.recall} --iterations "
                   f"{table.iterations} --seed {table.seed}",
           notes=f"{table.iterations} CFR+ iterations per round; total {sum(table.seconds.values()):.0f} CPU s; file "
                 f"{size:.2f} MB; `cfr` plays in {per_decision:.2f} CPU ms per decision (mean over 2000 random "
                 f"positions with {table.max_dice} dice each). Per-iteration cost of larger rounds, one round "
                 f"+1/-1: " + "; ".join(f"{r[0]} dice, k={r[1]} ({r[2]} states, {r[3]}): {r[4]} CPU s" for r in cost))


if __name__ == "__main__":
    main()
