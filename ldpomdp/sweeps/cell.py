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
    """One game setting of a sweep: the players (spec strings, seat-agnostic order) and the rules they play,
    every player starting with the same dice. Player parameters (bluff, particles, injection) live in the specs.
    :meth:`of` builds the config from the dice and the rules (defaults: :class:`GameConfig`'s, as on the command
    line)."""

    players: tuple[str, ...]
    config: GameConfig

    def __post_init__(self) -> None:
        players = tuple(str(p).strip() for p in self.players)
        object.__setattr__(self, "players", players)
        name, config = f"cell {_players(players)}", self.config
        if not isinstance(config, GameConfig):
            raise TypeError(f"{name}: config must be a GameConfig (Cell.of(players, dice, **rules) builds "
                            f"one), got {config!r}")
        if len(players) != config.num_players:
            raise ValueError(f"{name}: {len(players)} players but its config has num_players={config.num_players}")
        if len(set(config.starting_dice)) != 1:
            raise ValueError(f"{name}: every player must start with the same dice, its config gives "
                             f"{config.starting_dice}")

    @classmethod
    def of(cls, players: Sequence[str], dice: int, **rules) -> "Cell":
        """The cell of ``players``, ``dice`` each, under ``rules`` (``GameConfig``'s keywords: ``bids``, ``faces``,
        ``wild``, ``opener`` and the variants ``wild_bids``, ``exact_call``, ``palifico``, ``loss``); errors name the
        cell."""
        players = tuple(players)
        try:
            config = GameConfig(num_players=len(players), dice=dice, **rules)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"cell {_players(players)};dice={dice}: {exc}") from None
        return cls(players, config)

    @property
    def dice(self) -> int:
        """The dice each player starts with."""
        return self.config.starting_dice[0]

    @property
    def id(self) -> str:
        """A stable, readable key built from every parameter that changes the games (the variants only when they
        differ from today's rules: a cell of today's rules keeps its id, so its games' seeds)."""
        c = self.config
        return (f"{_players(self.players)};dice={self.dice};bids={c.bids};faces={c.faces};wild={c.wild};"
                f"opener={c.opener}" + variants_text(c))


def variants_text(config: GameConfig) -> str:
    """``";wild_bids=perudo;exact_call=True"``: the config's variants as a cell id's tail (``""`` for today's rules)."""
    return "".join(f";{name}={value}" for name, value in config.variants.items())


def _players(players: Sequence[str]) -> str:
    """``players=a|b``: the start of a cell's id, also naming a cell in errors."""
    return f"players={'|'.join(str(p).strip() for p in players)}"


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
