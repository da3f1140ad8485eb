"""POMCP speed: simulations per second inside pomdp-py's search and wall seconds per decision.

    python benchmarks/pomcp_speed.py [--quick] [--dice 5,15,35] [--bids sixes,full] [--sims 500]
                                     [--decisions 40] [--games N] [--profile] [--out results/pomcp_speed]

The planner plays whole rounds against the one-third rule (2 players) until it has made ``--decisions``
decisions per setting; a decision's wall time includes drawing the root particles from the belief, the
tree update and the search. ``--profile`` prints where the time goes (cProfile, top functions).
On a shared machine wall times depend on the load, so decisions are also timed in CPU seconds of the
thread (``time.thread_time``), and the same run times pomdp-py's own Tiger problem (POMCP, depth 12, ``--sims``
simulations a decision, CPU time) as a reference: the ratio of whole decisions per CPU second to Tiger's is the
machine-independent figure (a searched decision may stop before ``--sims`` simulations, or run on past them, where
the planner's stopping rule is on).
``--games N`` also plays N whole games per setting against the one-third rule (seats rotated) and reports
CPU seconds per game, every decision included (the game values the planner solves once per process are solved
before the clock starts; ``benchmarks/sixes_ceiling.py`` times those solves).
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import io
import pstats
import time
from pathlib import Path

import numpy as np
from ldpomdp.planners import POMCPPlanner
from ldpomdp.planners.pomcp import ROLLOUT_SEARCH

from ldpomdp import GameConfig, OneThirdRule
from ldpomdp.exact.against_models.game_values import seat_values
from ldpomdp.game import play_game, play_round
from ldpomdp.sweeps import parse_dice_range


class _Timed:
    """Forwards to a POMCP planner and records the wall and CPU time of every searched ``act`` (moves it plays
    without a search are not decisions here)."""

    def __init__(self, player):
        self.player, self.seconds, self.cpu = player, [], []

    def reset(self, seat, config):
        self.player.reset(seat, config)

    def observe(self, event):
        self.player.observe(event)

    def act(self, view, rng):
        start, cpu, searched = time.perf_counter(), time.thread_time(), self.player.decisions
        action = self.player.act(view, rng)
        if self.player.decisions > searched:
            self.seconds.append(time.perf_counter() - start)
            self.cpu.append(time.thread_time() - cpu)
        return action


def measure(dice: int, bids: str, sims: int, decisions: int, seed: int) -> dict:
    config = GameConfig(num_players=2, dice=dice, bids=bids)
    planner = POMCPPlanner(num_sims=sims, seed=seed)
    timed = _Timed(planner)
    players = [timed, OneThirdRule()]
    for seat, p in enumerate(players):
        p.reset(seat, config)
    rng = np.random.default_rng(seed)
    r = 0
    while len(timed.seconds) < decisions:  # full-size rounds: every round starts from the initial dice
        play_round(config, players, config.starting_dice, r % 2, rng, r)
        r += 1
    return {
        "dice": dice, "bids": bids, "budget": sims, "sims_per_decision": planner.simulations / planner.decisions,
        "decisions": len(timed.seconds),
        "sims_per_second": planner.simulations / planner.planning_seconds,
        "seconds_per_decision": float(np.mean(timed.seconds)),
        "cpu_seconds_per_decision": float(np.mean(timed.cpu)),
        "sims_per_cpu_second": planner.simulations / sum(timed.cpu),
        "decisions_per_cpu_second": len(timed.cpu) / sum(timed.cpu),
        "search_share": planner.planning_seconds / sum(timed.seconds),
        "deprivations": planner.deprivations,
    }


def game_cost(dice: int, bids: str, sims: int, games: int, seed: int) -> dict:
    """CPU seconds per whole game of the planner against the one-third rule (2 players, seats rotated); its game
    values (solved once per process) are solved before the clock starts."""
    config = GameConfig(num_players=2, dice=dice, bids=bids)
    for seat in range(2):
        seat_values(config, seat, "one-third")
    planner = POMCPPlanner(num_sims=sims, seed=seed)
    players, wins = [planner, OneThirdRule()], 0
    start = time.process_time()
    for g in range(games):
        order = players[g % 2:] + players[:g % 2]
        wins += order[play_game(config, order, np.random.default_rng([seed, g])).winner] is planner
    cpu = time.process_time() - start
    return {"dice": dice, "bids": bids, "budget": sims, "games": games, "cpu_seconds_per_game": cpu / games,
            "searched_per_game": planner.decisions / games, "unsearched_per_game": planner.skipped / games,
            "sims_per_searched": planner.simulations / max(planner.decisions, 1), "wins": wins}


def tiger_sims_per_second(sims: int, max_depth: int) -> float:
    """Reference: pomdp-py's POMCP on its bundled Tiger problem (every simulation runs ``max_depth`` steps),
    simulations per CPU second (so ``sims`` of them make one of its decisions)."""
    import random

    import pomdp_py
    from pomdp_py.problems.tiger.tiger_problem import TigerProblem, TigerState

    random.seed(0)
    states = [TigerState("tiger-left"), TigerState("tiger-right")]
    problem = TigerProblem.create("tiger-left", 0.5, 0.15)
    problem.agent.set_belief(pomdp_py.Particles([random.choice(states) for _ in range(1000)]), prior=True)
    planner = pomdp_py.POMCP(max_depth=max_depth, num_sims=sims, planning_time=-1, discount_factor=0.95,
                             exploration_const=50, rollout_policy=problem.agent.policy_model, show_progress=False)
    start = time.thread_time()
    planner.plan(problem.agent)
    return sims / (time.thread_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few decisions, 5 and 15 dice")
    parser.add_argument("--dice", default="5,15,35")
    parser.add_argument("--bids", default="sixes,full")
    parser.add_argument("--sims", type=int, default=500, help="visits per searched root (default 500, the planner's)")
    parser.add_argument("--decisions", type=int, default=40, help="decisions measured per setting")
    parser.add_argument("--games", type=int, default=0, help="also time N whole games per setting (default 0)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="print the top functions by own time")
    parser.add_argument("--out", default="results/pomcp_speed")
    args = parser.parse_args()
    dice = [5, 15] if args.quick else parse_dice_range(args.dice)
    decisions = 5 if args.quick else args.decisions
    sims = 300 if args.quick else args.sims
    profiler = cProfile.Profile() if args.profile else None
    rows = []
    head = (f"{'bids':6} {'dice':>5} {'sims/dec':>8} {'decisions':>9} {'sims/s':>9} {'s/decision':>10} "
            f"{'search':>7} {'sims/cpu-s':>10} {'cpu-s/dec':>9}")
    print(head + "\n" + "-" * len(head))
    for bids in args.bids.split(","):
        for d in dice:
            if profiler:
                profiler.enable()
            row = measure(d, bids.strip(), sims, decisions, args.seed)
            if profiler:
                profiler.disable()
            rows.append(row)
            print(f"{row['bids']:6} {d:5d} {row['sims_per_decision']:8.0f} {row['decisions']:9d} "
                  f"{row['sims_per_second']:9.0f} {row['seconds_per_decision']:10.3f} {row['search_share']:7.0%} "
                  f"{row['sims_per_cpu_second']:10.0f} {row['cpu_seconds_per_decision']:9.3f}", flush=True)
    depth = ROLLOUT_SEARCH[0]  # the planner's depth with rollouts: the reference of every recorded run
    tiger = tiger_sims_per_second(sims, depth)
    print(f"reference: pomdp-py Tiger POMCP, depth {depth}: {tiger:.0f} sims per CPU second in this run "
          f"({tiger / sims:.1f} decisions of {sims} simulations)")
    for row in rows:
        row["tiger_sims_per_cpu_second"] = tiger
        row["ratio_to_tiger"] = row["decisions_per_cpu_second"] / (tiger / sims)
        print(f"  {row['bids']:6} {row['dice']:3d} dice: {row['ratio_to_tiger']:.2f} x Tiger "
              "(whole decisions per CPU second)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.games > 0:
        costs = []
        print(f"whole games vs one-third ({args.games} per setting, {sims} simulations per searched decision):")
        for bids in args.bids.split(","):
            for d in dice:
                row = game_cost(d, bids.strip(), sims, args.games, args.seed)
                costs.append(row)
                print(f"  {row['bids']:6} {d:3d} dice: {row['cpu_seconds_per_game']:.2f} CPU s per game "
                      f"({row['searched_per_game']:.0f} searched and {row['unsearched_per_game']:.0f} unsearched "
                      f"decisions, {row['sims_per_searched']:.0f} simulations per searched one)", flush=True)
        with open(out / "games.csv", "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(costs[0]))
            writer.writeheader()
            writer.writerows(costs)
        print(f"wrote {out / 'games.csv'}")
    with open(out / "speed.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out / 'speed.csv'}")
    if profiler:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(15)
        print(text.getvalue())


if __name__ == "__main__":
    main()
