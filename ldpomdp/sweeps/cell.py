"""A sweep's cell (one game setting) and the seed of each of its games."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..rules import GameConfig

__all__ = ["Cell", "game_seed", "parse_dice_range"]


@dataclass(frozen=True)
class Cell:
    """One game setting of a sweep: the players (spec strings, seat-agnostic order), the dice each
    starts with, and the rules (defaults: :class:`GameConfig`'s, as on the command line). Player parameters
    (bluff, particles, injection) live in the specs."""

    players: tuple[str, ...]
    dice: int
    bids: str = "full"
    faces: int = 6
    wild: int | None = 1
    opener: str = "after_challenger"

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(str(p).strip() for p in self.players))

    @property
    def id(self) -> str:
        """A stable, readable key built from every parameter that changes the games."""
        return (f"players={'|'.join(self.players)};dice={self.dice};bids={self.bids};faces={self.faces};"
                f"wild={self.wild};opener={self.opener}")

    def config(self) -> GameConfig:
        """The validated rules (errors name the cell)."""
        if len(self.players) < 2:
            raise ValueError(f"cell {self.id}: needs at least 2 players, got {len(self.players)}")
        try:
            return GameConfig(num_players=len(self.players), dice=self.dice, faces=self.faces, wild=self.wild,
                              bids=self.bids, opener=self.opener)
        except ValueError as exc:
            raise ValueError(f"cell {self.id}: {exc}") from None

    @classmethod
    def from_config(cls, players: Sequence[str], config: GameConfig) -> "Cell":
        dice = set(config.starting_dice)
        if len(dice) != 1:
            raise ValueError("a sweep cell gives every player the same dice")
        return cls(tuple(players), dice.pop(), config.bids, config.faces, config.wild, config.opener)


def _cell_entropy(cell_id: str) -> int:
    return int.from_bytes(hashlib.sha256(cell_id.encode()).digest()[:16], "little")


def game_seed(seed: int, cell: Cell, game: int) -> np.random.SeedSequence:
    """Seed of game ``game`` of ``cell``: exactly ``SeedSequence([seed, h]).spawn(n)[game]`` for any
    ``n > game``, with ``h`` a stable hash of the cell id, built without spawning the others."""
    return np.random.SeedSequence([seed, _cell_entropy(cell.id)], spawn_key=(game,))


def parse_dice_range(text: str) -> list[int]:
    """``"1-35"``, ``"5"`` or ``"1-5,10,20-30:5"`` -> sorted distinct dice counts (each >= 1)."""
    values: set[int] = set()
    try:
        for part in filter(None, (p.strip() for p in str(text).split(","))):
            span, _, step = part.partition(":")
            lo, dash, hi = span.partition("-")
            a = int(lo)
            b = int(hi) if dash else a
            values.update(range(a, b + 1, int(step) if step else 1))
    except ValueError:
        raise ValueError(f"--dice must look like 5, 1-35 or 1-35:2 (comma-separated), got {text!r}") from None
    if not values or min(values) < 1:
        raise ValueError(f"--dice must name dice counts >= 1, got {text!r}")
    return sorted(values)
