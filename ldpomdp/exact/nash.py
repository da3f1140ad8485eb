"""Equilibrium play: :class:`NashPlayer` and the on-disk cache of solved rounds.

Each round is solved as its own zero-sum game (keep the die or lose it) for the dice on the table,
lazily, once per rule set and dice split: solutions are kept in memory and in ``$LDPOMDP_CACHE``
(default ``~/.cache/ldpomdp``), one ``.npz`` file per (faces, wild, bids, opener's dice, responder's dice),
so a sweep solves every round once. Over a multi-round game this is round-by-round equilibrium play,
not an equilibrium of the whole game.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np

from ..caches import BoundedCache, bounded_cache
from ..game import PlayerView, PublicView
from ..opponents.base import BaseOpponent, sample_action
from ..rules import Action, GameConfig
from .sequence_form import RoundSolution, behaviour_from_plan, solve_round
from .tree import build_tree, check_size, round_dice

__all__ = ["NashPlayer", "cached_solution", "cache_dir"]

_FORMAT = 1
CACHED_SOLUTIONS = 256  # solved rounds kept in memory (every dice split of a few rule sets)
_MEMORY: BoundedCache[str, RoundSolution] = bounded_cache(f"{__name__}._MEMORY", CACHED_SOLUTIONS)


def cache_dir() -> Path:
    """Where solved rounds are stored: ``$LDPOMDP_CACHE``, else ``$XDG_CACHE_HOME/ldpomdp`` or ``~/.cache/ldpomdp``."""
    if os.environ.get("LDPOMDP_CACHE"):
        return Path(os.environ["LDPOMDP_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ldpomdp"


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
        with np.load(path) as data:
            x, y = data["x"], data["y"]
            value, seconds, shape = float(data["value"]), float(data["seconds"]), tuple(data["lp_shape"])
    except (OSError, KeyError, ValueError):
        return None  # unreadable or partial file: solve again
    expected = tuple(1 + len(tree.hands[r]) * len(tree.role_edges[r]) for r in (0, 1))
    if (len(x), len(y)) != expected:
        return None
    behaviour = (behaviour_from_plan(tree, 0, x), behaviour_from_plan(tree, 1, y))
    return RoundSolution(tree, value, (x, y), behaviour, seconds, (int(shape[0]), int(shape[1])))


def _store(path: Path, solution: RoundSolution) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
    np.savez(tmp, x=solution.plans[0], y=solution.plans[1], value=solution.value,
             seconds=solution.solve_seconds, lp_shape=np.array(solution.lp_shape))
    os.replace(tmp, path)  # atomic: parallel workers and threads never read a half-written file


class NashPlayer(BaseOpponent):
    """Plays the exact equilibrium of each round (two players, rounds small enough to solve).

    ``cache=False`` keeps solutions in memory only.
    """

    def __init__(self, cache: bool = True, name: str | None = None):
        self.cache = bool(cache)
        self.name = name or "nash"

    def reset(self, seat: int, config: GameConfig) -> None:
        check_size(config)  # refuse a game whose first round is already too large, before it starts
        super().reset(seat, config)

    def _locate(self, view: PublicView) -> tuple[RoundSolution, int, int]:
        """(solution, role, node) of the decision in ``view``."""
        opener = view.history[0][0] if view.history else view.seat
        dice = round_dice(view.config, (view.dice[opener], view.dice[1 - opener]))
        solution = cached_solution(view.config, dice, use_disk=self.cache)
        bids = tuple(action for _, action in view.history)
        try:
            node = solution.tree.node_index[bids]
        except KeyError:
            raise ValueError(f"{self.name}: history {view.history} is not a legal bid sequence") from None
        return solution, int(view.seat != opener), node

    def action_probabilities(self, hands: np.ndarray, view: PublicView, action: Action) -> np.ndarray:
        solution, role, node = self._locate(view)
        rows = solution.tree.hand_index(role, hands)
        actions = solution.tree.actions(node)
        if action not in actions:
            return np.zeros(len(rows))
        return solution.probabilities(role, rows, node)[:, actions.index(action)]

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        solution, role, node = self._locate(view)
        rows = solution.tree.hand_index(role, np.asarray(view.hand)[None, :])
        return sample_action(solution.tree.actions(node), solution.probabilities(role, rows, node)[0], rng)
