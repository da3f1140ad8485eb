"""The on-disk cache of solved rounds (the ``nash`` player, ``ldpomdp.players.nash``, plays them).

Each round is solved as its own zero-sum game (keep the die or lose it) for the dice on the table,
lazily, once per rule set and dice split: solutions are kept in memory and in ``$LDPOMDP_CACHE``
(default ``~/.cache/ldpomdp``), one ``.npz`` file per (faces, wild, bids, opener's dice, responder's dice),
so a sweep solves every round once. Over a multi-round game this is round-by-round equilibrium play,
not an equilibrium of the whole game.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ...caches import BoundedCache, bounded_cache, cache_dir
from ...datafiles import read_npz, write_npz
from ...rules import GameConfig
from .sequence_form import RoundSolution, behaviour_from_plan, solve_round
from .tree import build_tree, check_size

__all__ = ["cached_solution"]

_FORMAT = 1
CACHED_SOLUTIONS = 256  # solved rounds kept in memory (every dice split of a few rule sets)
_MEMORY: BoundedCache[str, RoundSolution] = bounded_cache(f"{__name__}._MEMORY", CACHED_SOLUTIONS)


def _key(config: GameConfig, dice: tuple[int, int]) -> str:
    rules = f"v{_FORMAT}|faces={config.faces}|wild={config.wild}|bids={config.bids}|dice={dice[0]},{dice[1]}"
    rules += "".join(f"|{name}={value}" for name, value in config.variants.items())  # today's rules: key unchanged
    return hashlib.sha256(rules.encode()).hexdigest()[:20]


def cached_solution(config: GameConfig, dice: tuple[int, int] | None = None, use_disk: bool = True) -> RoundSolution:
    """The round's equilibrium, from memory, from the disk cache, or solved now (and then stored)."""
    dice = check_size(config, dice)
    key = _key(config, dice)
    found = _MEMORY.lookup(key)
    if found is not None:
        return found
    path = cache_dir() / "nash" / f"round-{key}.npz"
    solution = _load(path, config, dice) if use_disk else None
    if solution is None:
        solution = solve_round(config, dice)
        if use_disk:
            _store(path, solution)
    _MEMORY[key] = solution
    return solution


def _load(path: Path, config: GameConfig, dice: tuple[int, int]) -> RoundSolution | None:
    if not path.exists():
        return None
    tree = build_tree(config, dice)
    try:
        data = read_npz(path, "cached round")
        x, y = data["x"], data["y"]
        value, seconds, shape = float(data["value"]), float(data["seconds"]), tuple(data["lp_shape"])
    except (KeyError, ValueError):  # ValueError: TableError, an unreadable file
        return None  # unreadable or partial file: solve again
    expected = tuple(1 + len(tree.hands[r]) * len(tree.role_edges[r]) for r in (0, 1))
    if (len(x), len(y)) != expected:
        return None
    behaviour = (behaviour_from_plan(tree, 0, x), behaviour_from_plan(tree, 1, y))
    return RoundSolution(tree, value, (x, y), behaviour, seconds, (int(shape[0]), int(shape[1])))


def _store(path: Path, solution: RoundSolution) -> None:
    # atomic: parallel workers and threads never read a half-written file
    write_npz(path, {"x": solution.plans[0], "y": solution.plans[1], "value": solution.value,
                     "seconds": solution.solve_seconds, "lp_shape": np.array(solution.lp_shape)}, compress=False)
