"""The package's agents in a two-player tournament (issue 33's target): ``ldpomdp tournament`` run as a user runs
it, optionally stopped once midway with SIGTERM and run again (the resume), then checked and recorded.

Checks, before recording: every game of every pair is in ``games.jsonl`` exactly once; the ratings' order is the
cross table's (each agent's share of its head-to-head games won). CPU seconds: the worker CPU seconds of the games,
from ``timing.csv`` after each run (a stopped run writes it too), summed over the stopped run and the resume.

    python benchmarks/tournament.py [--agents robust,cfr,...] [--dice 5] [--games 200] [--workers 1] [--seed 0]
                                    [--stop-after N] [--out DIR] [--record] [--name NAME]
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
from pathlib import Path

from _record import record

from ldpomdp.sweeps import GAMES_FILE, read_games, read_outputs, read_timing

AGENTS = "robust,cfr,one-third,bluff:0.3,oehm:0.2,expected-count"
RECOMMENDED = "robust"


def lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def cpu_seconds(out: Path) -> float:
    """The worker CPU seconds of the games the last run into ``out`` played (``timing.csv``)."""
    return sum(row["cpu_seconds"] for row in read_timing(out) if row["cell"] != "total wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default=AGENTS, help=f"comma-separated specs (default {AGENTS})")
    parser.add_argument("--dice", type=int, default=5)
    parser.add_argument("--games", type=int, default=200, help="games a pair (default 200)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stop-after", type=int, default=0,
                        help="stop the first run with SIGTERM once this many games are saved, then resume (0: no stop)")
    parser.add_argument("--out", default="results/tournament_5dice")
    parser.add_argument("--record", action="store_true", help="write docs/data/NAME.json and NAME_cross.json")
    parser.add_argument("--name", default="tournament_5dice")
    args = parser.parse_args()
    out = Path(args.out)
    command = [sys.executable, "-m", "ldpomdp.cli", "tournament", "--players", args.agents, "--dice", str(args.dice),
               "--games", str(args.games), "--workers", str(args.workers), "--seed", str(args.seed), "--out", str(out),
               "--no-progress"]
    cpu, stopped = 0.0, None
    if args.stop_after:
        first = subprocess.Popen(command)
        while lines(out / "games.jsonl") < args.stop_after and first.poll() is None:
            time.sleep(0.5)
        first.send_signal(signal.SIGTERM)
        if first.wait() != 130:
            sys.exit(f"the first run ended with {first.returncode}, not 130 (stopped): it finished before the stop?")
        stopped = lines(out / "games.jsonl")
        cpu += cpu_seconds(out)
        print(f"stopped with {stopped} games saved; resuming", flush=True)
    subprocess.run(command, check=True)
    cpu += cpu_seconds(out)
    records = read_games(out / GAMES_FILE)
    keys = {(r["cell"], r["game"]) for r in records}
    written = read_outputs(out)
    agents = written.info["agents"]
    pairs = len(agents) * (len(agents) - 1) // 2
    once = len(keys) == len(records) == pairs * args.games
    ratings, cross = written.ratings, written.cross

    def share(agent: str) -> float:
        mine = [r for r in cross if r["row_agent"] == agent]
        return sum(int(r["wins"]) for r in mine) / sum(int(r["games"]) for r in mine)

    shares = [share(r["agent"]) for r in ratings]
    agree = all(a >= b for a, b in zip(shares, shares[1:], strict=False))
    rank = next(int(r["rank"]) for r in ratings if r["agent"] == RECOMMENDED) if RECOMMENDED in agents else None
    print(f"{len(records)} games, each (cell, game) once: {once}; the ratings' order matches the cross table's: "
          f"{agree}; {RECOMMENDED} ranks {rank} of {len(agents)}; {cpu:.0f} worker CPU seconds")
    if not (once and agree):
        sys.exit("a check failed: not recorded")
    if not args.record:
        return
    shown = {r["agent"]: f"`{r['agent']}`" for r in ratings}
    reproduce = (f"python benchmarks/tournament.py --agents {args.agents} --dice {args.dice} --games {args.games} "
                 f"--workers {args.workers} --seed {args.seed}" + (f" --stop-after {args.stop_after}"
                                                                   if args.stop_after else "") + " --record")
    resumed = (f"Stopped once by SIGTERM with {stopped} of {len(records)} games saved, then resumed: every game of "
               f"every pair is in games.jsonl exactly once. " if stopped is not None else "")
    record(args.name, f"Two-player tournament, {args.dice} dice each, {args.games} games a pair (full game, ones wild):"
                      " Bradley-Terry ratings",
           ["rank", "agent", "rating (Elo points)", "95% interval", "games", "share of head-to-head games won"],
           [[int(r["rank"]), shown[r["agent"]], f"{float(r['rating']):+.0f}",
             f"[{float(r['low']):+.0f}, {float(r['high']):+.0f}]", int(r["games"]), f"{share(r['agent']):.3f}"]
            for r in ratings],
           command=reproduce,
           notes=f"Ratings in Elo points, the field's mean 0 (400 points: odds of 10 to 1), 95% intervals from the "
                 f"curvature at the fit. The ratings' order matches the cross table's (the share column). "
                 f"{resumed}{cpu:.0f} worker CPU seconds in all, on {args.workers} worker(s).")
    order = [r["agent"] for r in ratings]
    cell = {(r["row_agent"], r["column_agent"]): r for r in cross}
    record(f"{args.name}_cross", f"Its cross table: the row agent's win rate against the column agent, "
                                 f"{args.games} games a pair, 95% Wilson intervals",
           ["agent", *(shown[a] for a in order)],
           [[shown[a], *("" if a == b else f"{float(cell[a, b]['win_rate']):.3f} [{float(cell[a, b]['low']):.3f}, "
                                          f"{float(cell[a, b]['high']):.3f}]" for b in order)] for a in order],
           command=reproduce, notes="Rows and columns in the ratings' order; seats alternate game by game.")


if __name__ == "__main__":
    main()
