"""Load on ``ldpomdp serve``: 20 games at once over HTTP on 127.0.0.1 (2 players, 5 dice, the person against
expected-count), each from a client of its own; every request's response time, the server's CPU seconds, and the
same games played one at a time in-process (Starlette's test client) as the same-run reference.

    python benchmarks/web_load.py [--games 20] [--no-record]
"""

from __future__ import annotations

import argparse
import time
import warnings

import httpx
import numpy as np
from _record import record

from ldpomdp.web.app import create_app
from ldpomdp.web.load_driver import play_games, play_over_http, running_server, server_cpu_seconds

with warnings.catch_warnings():  # starlette 1.x asks for httpx2 in its test client; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

SETTINGS = {"opponents": ["expected-count"], "dice": 5}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games played at once (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="game i is seeded seed + i (default 0)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds for all games to finish (default 600)")
    parser.add_argument("--no-record", action="store_true", help="print only; do not write docs/data/web_load.json")
    args = parser.parse_args()

    with running_server() as (url, server):
        cpu_before, start = server_cpu_seconds(server), time.perf_counter()
        runs = play_games(url, args.games, SETTINGS, seed=args.seed, timeout=args.timeout)
        wall, cpu = time.perf_counter() - start, server_cpu_seconds(server) - cpu_before
        left = httpx.get(url + "/api/status").json()["games"]
    problems = [p for r in runs for p in r.problems]
    if problems or left:
        raise SystemExit(f"leaks: {problems}, {left} games left on the server")
    latencies = np.array([t for r in runs for t in r.latencies]) * 1000
    rounds = sum(len(r.final["rounds"]) for r in runs)

    cpu_start = time.process_time()
    alone = [play_over_http(TestClient(create_app()), SETTINGS, seed=args.seed + i) for i in range(args.games)]
    alone_cpu = time.process_time() - cpu_start
    same = all(a.record == r.record for a, r in zip(alone, runs, strict=True))

    row = [args.games, len(latencies), rounds, f"{np.median(latencies):.1f}", f"{np.percentile(latencies, 95):.1f}",
           f"{latencies.max():.1f}", f"{wall:.1f}", f"{cpu:.1f}", f"{alone_cpu:.1f}", "yes" if same else "**no**"]
    columns = ["games at once", "requests", "rounds", "median ms", "p95 ms", "max ms", "wall s", "server CPU s",
               "alone, in-process CPU s", "same games alone"]
    for name, value in zip(columns, row, strict=True):
        print(f"{name:>24}: {value}")
    if not args.no_record:
        record("web_load", "20 games at once over HTTP (2 players, 5 dice, the person against expected-count)",
               columns, [row], command=f"python benchmarks/web_load.py --games {args.games} --seed {args.seed}",
               notes="Every request of every game (new game, the person's moves, each agent move, next round, "
                     "the record, the end) timed at the client; the server is `ldpomdp serve` in its own process "
                     "on 127.0.0.1, the clients are threads of the benchmark, so both share the machine. "
                     "*Alone, in-process*: the same games (same seeds, same moves) played one at a time through "
                     "Starlette's test client, CPU seconds of that whole process (the same run's reference for "
                     "the server's CPU seconds). *Same games alone*: each game's record equals its alone twin's "
                     "(no state leaks between sessions).")


if __name__ == "__main__":
    main()
