"""Shared test helpers."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from ldpomdp.sweeps import Cell, run_sweep

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"ldpomdp": ROOT / "ldpomdp", "ldpomdp.planners": ROOT / "planners"}  # import name -> folder


def package_modules() -> dict[str, Path]:
    """Every module of the package by its import name (planners/ installs as ldpomdp.planners) -> its file."""
    modules = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = (package, *path.relative_to(folder).with_suffix("").parts)
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def all_hands(num_dice: int, faces: int) -> np.ndarray:
    """Every face-count vector of ``num_dice`` dice (small cases only; tests use it as ground truth)."""
    rows = [
        np.bincount(combo, minlength=faces)
        for combo in itertools.combinations_with_replacement(range(faces), num_dice)
    ]
    return np.array(rows, dtype=np.int64).reshape(-1, faces)


class Planted:
    """A pickle payload: unpickling it creates the file ``marker`` (what any code in a pickle could do)."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


# --- sweeps: a few small cells of the sixes game and a quiet run_sweep -------------------------------

SMALL = [Cell.of(("one-third", "bluff:0.3"), d, bids="sixes") for d in (1, 2, 4)] + [
    Cell.of(("random", "one-third", "bluff:0.5"), 2, bids="sixes")]


def lines(folder: Path) -> list[str]:
    """The sorted lines of a sweep folder's games.jsonl."""
    return sorted((folder / "games.jsonl").read_text().splitlines())


def sweep(out, cells=SMALL, games=12, **kw):
    """run_sweep without progress bar or log, seed 7 unless told."""
    kw.setdefault("progress", False)
    kw.setdefault("log", None)
    kw.setdefault("seed", 7)
    return run_sweep(cells, games, out, **kw)


# --- damaged data files: a small equilibrium table, and the damage a file may come to -----------------------------

def small_table(path: Path) -> Path:
    """A table of the default rules up to 1 die each (5 CFR+ iterations: a second), written to ``path``."""
    from ldpomdp.exact.two_player.equilibrium import solve_game
    from ldpomdp.rules import GameConfig

    return solve_game(GameConfig(), 1, 2, 5).save(path)


def _flip_a_bit(raw: bytes) -> bytes:
    middle = len(raw) // 2  # inside a compressed array, whose checksum then fails
    return raw[:middle] + bytes([raw[middle] ^ 0x10]) + raw[middle + 1:]


DAMAGED = "the file is damaged (truncated or corrupted: "
DAMAGE = {  # kind -> (the file's bytes made from the good ones, the fault a reader names)
    "truncated": (lambda raw: raw[:len(raw) // 2], DAMAGED),
    "bit-flipped": (_flip_a_bit, DAMAGED),
    "empty": (lambda raw: b"", "the file is empty"),
    "not a zip": (lambda raw: b"format,2\nfaces,6\n", "not an .npz file"),
}


def damage(path: Path, kind: str) -> str:
    """Damage the file at ``path`` in the way ``kind`` of ``DAMAGE`` names; return the fault a reader names."""
    change, fault = DAMAGE[kind]
    path.write_bytes(change(path.read_bytes()))
    return fault


# --- a tournament's folder, written by hand (the files `ldpomdp tournament` writes beside a sweep's) ---------------

TOURNAMENT_AGENTS = ["robust", "expected-count", "one-third"]
# row agent's wins against the column agent in 40 games (both seat orders), and Bradley-Terry-like ratings
TOURNAMENT_WINS = {("robust", "expected-count"): 26, ("robust", "one-third"): 31, ("expected-count", "one-third"): 24}


def write_tournament_folder(folder: Path) -> Path:
    """A small tournament folder: tournament.json, cross_table.csv, ratings.csv, ratings.png and the sweep's
    summary.csv (one cell per pair), as the tournament command writes them; returns ``folder``."""
    from ldpomdp.sweeps.statistics import wilson_interval

    folder.mkdir(parents=True, exist_ok=True)
    info = {"agents": TOURNAMENT_AGENTS, "players": 2, "dice": 2, "rules": {}, "games_per_table": 20, "seed": 3}
    (folder / "tournament.json").write_text(json.dumps(info))
    cross, summary = ["row_agent,column_agent,games,wins,win_rate,low,high"], [
        "cell,dice,bids,player,player_index,games,wins,win_rate,ci_low,ci_high,challenges_per_game,"
        "challenge_success_rate,best_response,exact_value"]
    for (a, b), wins in TOURNAMENT_WINS.items():
        for row, column, won in ((a, b, wins), (b, a, 40 - wins)):
            low, high = wilson_interval(won, 40)
            cross.append(f"{row},{column},40,{won},{won / 40},{low},{high}")
        cell = Cell.of([a, b], 2)
        for index, (player, won) in enumerate(((a, wins), (b, 40 - wins))):
            low, high = wilson_interval(won, 40)
            summary.append(f"{cell.id},2,full,{player},{index},40,{won},{won / 40},{low},{high},1.1,0.55,,")
    (folder / "cross_table.csv").write_text("\n".join(cross) + "\n")
    (folder / "summary.csv").write_text("\n".join(summary) + "\n")
    (folder / "ratings.csv").write_text("rank,agent,rating,low,high,games,method\n"
                                        "2,expected-count,0.05,-0.30,0.40,80,bradley-terry\n"
                                        "1,robust,0.62,0.25,0.99,80,bradley-terry\n"
                                        "3,one-third,-0.67,-1.05,-0.29,80,bradley-terry\n")
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    figure, axes = plt.subplots(figsize=(5, 2.2))
    axes.errorbar([0.62, 0.05, -0.67], [2, 1, 0], xerr=[[0.37, 0.35, 0.38], [0.37, 0.35, 0.38]], fmt="o")
    axes.set_yticks([2, 1, 0], ["robust", "expected-count", "one-third"])
    axes.set_xlabel("rating (Bradley-Terry, 95% interval)")
    figure.tight_layout()
    figure.savefig(folder / "ratings.png", dpi=80)
    plt.close(figure)
    return folder


# --- a table solve that waits for the test: the web server's "preparing" state --------------------------------------

class SlowSolve:
    """A stand-in for the table solvers: says 3 steps are done, waits for ``go``, then raises ``fails`` or solves
    the rules for real up to 2 dice each in 5 CFR+ iterations (a second); ``calls`` counts them."""

    def __init__(self):
        import threading

        from ldpomdp.exact.two_player.equilibrium import solve_game

        self.go, self.calls, self.fails = threading.Event(), 0, None
        self.solve = solve_game  # the real one, taken before ``fresh_tables`` puts this one in its place

    def __call__(self, config, dice, recall, iterations, progress=None, **kwargs):
        self.calls += 1
        progress(3)
        assert self.go.wait(60), "the test never let the solve go on"
        if self.fails is not None:
            raise self.fails
        return self.solve(config, 2, recall, 5, progress=progress)


def fresh_tables(monkeypatch, folder: Path, solver=None) -> None:
    """Nothing solved before (the cache in ``folder``, no table in memory); ``solver`` in place of the two-player
    ``solve_game``, if given (a blueprint's solve then fails the test)."""
    from ldpomdp.caches import BoundedCache
    from ldpomdp.exact import tables
    from ldpomdp.exact.two_player import equilibrium

    monkeypatch.setenv("LDPOMDP_CACHE", str(folder))
    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    monkeypatch.setattr(tables, "_BLUEPRINTS", BoundedCache(tables.CACHED_TABLES))
    if solver is not None:
        monkeypatch.setattr(equilibrium, "solve_game", solver)
        monkeypatch.setattr(tables, "solve_game", solver)
        monkeypatch.setattr(tables, "solve_blueprint", _no_blueprint)


def _no_blueprint(*args, **kwargs):
    raise AssertionError("a blueprint was solved")
