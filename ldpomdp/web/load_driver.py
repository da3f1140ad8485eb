"""The web app's load driver: start ``ldpomdp serve`` locally and play many games at once over HTTP.

A load-test client: it starts ``ldpomdp serve`` on a free local port, and plays many games at once over HTTP, each
from a client of its own (its own session cookie), checking that no game sees another's state. Used by the load test
and ``benchmarks/web_load.py``; needs ``httpx`` (the test extra)."""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

__all__ = ["running_server", "play_games", "play_over_http", "GameRun", "server_cpu_seconds"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_server(*options: str, start_timeout: float = 60.0) -> Iterator[tuple[str, subprocess.Popen]]:
    """Run ``ldpomdp serve`` with ``options`` on a free local port; yield its URL and process.

    The server runs in a child process on a free 127.0.0.1 port, stopped on leaving; a RuntimeError with its output
    if it does not answer within ``start_timeout`` s."""
    import httpx

    port = _free_port()
    log = tempfile.TemporaryFile(mode="w+")  # the server's output (a pipe nobody reads could fill up and block it)
    process = subprocess.Popen([sys.executable, "-m", "ldpomdp.cli", "serve", "--port", str(port), *options],
                               stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"ldpomdp serve exited with {process.returncode}: {log.read()}")
            try:
                if httpx.get(url + "/api/options", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"ldpomdp serve did not answer on {url} within {start_timeout} s")
            time.sleep(0.1)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def server_cpu_seconds(process: subprocess.Popen) -> float | None:
    """CPU seconds (user + system) the running server process has used so far (Linux; None elsewhere)."""
    try:
        fields = open(f"/proc/{process.pid}/stat").read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class GameRun:
    """One game played over HTTP: each request's seconds, the final state, the record, and any leak found."""

    seed: int
    latencies: list[float] = field(default_factory=list)
    final: dict | None = None
    record: dict | None = None
    problems: list[str] = field(default_factory=list)


def play_over_http(client, settings: dict, seed: int, deadline: float = math.inf) -> GameRun:
    """Play one game through ``client`` as the person, moves drawn from ``seed``; return its ``GameRun``.

    ``client`` is an ``httpx.Client`` with the server's base URL, or Starlette's test client. Moves come from a
    generator seeded with ``seed`` (challenge 30% of the time when allowed, else one of the three lowest raises); the
    agents' moves are stepped one request each, and a game preparing is asked for again until it starts."""
    run, rng, sent = GameRun(seed), np.random.default_rng(seed), []
    def call(method: str, path: str, body: dict | None = None) -> dict:
        if time.monotonic() > deadline:
            raise TimeoutError(f"game of seed {seed} did not finish in time")
        start = time.perf_counter()
        response = client.request(method, path, json=body)
        run.latencies.append(time.perf_counter() - start)
        if response.status_code != 200:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.text}")
        return response.json()

    state = call("POST", "/api/game", {**settings, "seed": seed})
    while state["phase"] != "game-over":
        if state["phase"] == "preparing":  # a player solving a table first: asked again until the game starts
            time.sleep(0.1)
            state = call("GET", "/api/game")
            continue
        version = state["version"]
        if state["phase"] == "your-turn":
            legal = state["legal"]
            raises = [a for a in legal if a not in ("challenge", "exact")]  # the bids
            challenge = "challenge" in legal and (not raises or rng.random() < 0.3)
            move = "challenge" if challenge else raises[int(rng.integers(min(3, len(raises))))]
            sent.append((state["round"], move))
            state = call("POST", "/api/game/act", {"move": move, "version": version})
        elif state["phase"] == "agent-turn":
            state = call("POST", "/api/game/step", {"version": version})
        elif state["phase"] == "round-over":
            state = call("POST", "/api/game/next-round", {"version": version})
        else:
            raise RuntimeError(f"game of seed {seed} stopped: {state.get('failure')}")
        if state["version"] != version + 1:
            run.problems.append(f"version went from {version} to {state['version']} in one change")
    run.final, run.record = state, call("GET", "/api/game/record")
    call("DELETE", "/api/game")
    mine = [(r["round"], a["action"]) for r in run.final["rounds"] for a in r["actions"] if a["seat"] == 0]
    if mine != sent:
        run.problems.append(f"the person's moves in the game {mine} are not the moves sent {sent}")
    if run.final["seed"] != seed or run.record["seed"] != seed:
        run.problems.append(f"seed {seed} came back as {run.final['seed']} / {run.record['seed']}")
    return run


def play_games(url: str, games: int, settings: dict, seed: int = 0, timeout: float = 300.0) -> list[GameRun]:
    """Play ``games`` games at once against the server at ``url``, each from a client of its own.

    Args:
        url: the server's base URL, e.g. from ``running_server``.
        games: the number of games, all played at once (one thread and one client each).
        settings: the new-game form's fields (opponents and rules) for every game.
        seed: game ``i`` is seeded ``seed + i``; default 0.
        timeout: seconds within which all games must finish; default 300.

    Returns:
        One ``GameRun`` per game, in seed order.

    Raises:
        TimeoutError: a game did not finish within ``timeout`` s.
        RuntimeError: the server answered a request with a status other than 200, or a game stopped.
    """
    import httpx

    deadline = time.monotonic() + timeout

    def play(i: int) -> GameRun:
        with httpx.Client(base_url=url, timeout=60) as client:
            return play_over_http(client, settings, seed + i, deadline)

    with ThreadPoolExecutor(max_workers=games) as pool:
        return list(pool.map(play, range(games)))
