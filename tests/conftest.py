"""Shared test helpers."""

from __future__ import annotations

import itertools
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
    from ldpomdp.exact.equilibrium import solve_game
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
    """Damage the file at ``path`` in the way ``kind`` of :data:`DAMAGE` names; return the fault a reader names."""
    change, fault = DAMAGE[kind]
    path.write_bytes(change(path.read_bytes()))
    return fault
