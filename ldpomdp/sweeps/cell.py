"""A sweep's cell (one game setting) and the seed of each of its games."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..errors import UsageError, echo
from ..registry import canonical_spec
from ..rules import MAX_TABLE_DICE, VARIANT_DEFAULTS, GameConfig

__all__ = ["Cell", "game_seed", "parse_dice_range", "SEATINGS"]

SEATINGS = ("rotate", "permute")  # game g: rotation g mod n, or permutation g mod n! (game.rotate, game.permute)


@dataclass(frozen=True)
class Cell:
    """One game setting of a sweep: the players and the rules they play, every player with the same dice.

    The players are spec strings, in seat-agnostic order; ``of`` builds the config from the dice and ``GameConfig``'s
    keywords.

    The specs are kept in their canonical text (``canonical_spec``; one that does not parse is
    kept as written, and building it names the problem). ``legacy_id``: the id under which an older version stored this
    cell's games (``from_id`` sets it); it stays the cell's ``id``, so those games keep their seeds.
    ``seating``: how game ``g`` seats the players, ``"rotate"`` (rotation ``g mod n``) or ``"permute"`` (every order
    round the table in turn, permutation ``g mod n!``)."""

    players: tuple[str, ...]
    config: GameConfig
    legacy_id: str | None = None
    seating: str = "rotate"

    def __post_init__(self) -> None:
        players = tuple(_canonical(str(p)) for p in self.players)
        object.__setattr__(self, "players", players)
        name, config = f"cell {_players(players)}", self.config
        if not isinstance(config, GameConfig):
            raise TypeError(f"{name}: config must be a GameConfig (Cell.of(players, dice, **rules) builds "
                            f"one), got {config!r}")
        if len(players) != config.num_players:
            raise UsageError(f"{name}: {len(players)} players but its config has num_players={config.num_players}")
        if len(set(config.starting_dice)) != 1:
            raise UsageError(f"{name}: every player must start with the same dice, its config gives "
                             f"{config.starting_dice}")
        if self.seating not in SEATINGS:
            raise UsageError(f"{name}: seating must be one of {', '.join(SEATINGS)}, got {self.seating!r}")

    @classmethod
    def of(cls, players: Sequence[str], dice: int, **rules) -> Cell:
        """The cell of ``players``, ``dice`` each, under ``rules``; errors name the cell.

        ``rules`` are ``GameConfig``'s keywords: ``bids``, ``faces``, ``wild``, ``opener`` and the variants
        ``wild_bids``, ``exact_call``, ``palifico``, ``loss``. A bad rule raises ``GameConfig``'s TypeError or
        ValueError, its message prefixed with the cell."""
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
        """The key of the cell's games and of their seeds: ``legacy_id`` if set, else ``canonical_id``."""
        return self.legacy_id or self.canonical_id

    @property
    def canonical_id(self) -> str:
        """A stable, readable key built from every parameter that changes the games.

        The players' canonical specs, then the rules (the variants only when they differ from today's rules: a cell of
        today's rules keeps its id, so its games' seeds), then the seating unless it rotates. An id written before
        specs had a canonical text is the same where its specs were already canonical."""
        return _cell_id(self.players, self.config) + ("" if self.seating == "rotate" else f";seating={self.seating}")

    @classmethod
    def from_id(cls, text: str) -> Cell:
        """The cell whose ``id`` is ``text`` (e.g. a ``games.jsonl`` record's), or a UsageError naming it."""
        base, variants, seating = str(text), {}, "rotate"
        while True:  # the tail of variants and seating, last first
            head, _, last = base.rpartition(";")
            name, _, value = last.partition("=")
            if name == "seating" and value in SEATINGS:
                seating = value
            elif name in VARIANT_DEFAULTS:
                variants[name] = value == "True" if value in ("True", "False") else value
            else:
                break
            base = head
        parts = base.rsplit(";", 5)  # the player specs come first and may hold any character but "|"
        fields = dict(part.partition("=")[::2] for part in parts)
        if [p.partition("=")[0] for p in parts] != ["players", "dice", "bids", "faces", "wild", "opener"]:
            raise UsageError(f"{echo(text)} is not a cell id (players=A|B;dice=D;bids=B;faces=F;wild=W;opener=O)")
        try:
            dice, faces = int(fields["dice"]), int(fields["faces"])
            wild = None if fields["wild"] == "None" else int(fields["wild"])
        except ValueError:
            raise UsageError(f"{echo(text)} is not a cell id: dice, faces and wild must be integers") from None
        players = fields["players"].split("|")
        cell = replace(cls.of(players, dice, bids=fields["bids"], faces=faces, wild=wild, opener=fields["opener"],
                              **variants), seating=seating)
        if cell.id == text:
            return cell
        if _cell_id(players, cell.config) == text:  # written before canonical specs: its games keep this id
            return replace(cell, legacy_id=text)
        raise UsageError(f"{echo(text)} is not a cell id (it reads as {cell.id!r})")


def variants_text(config: GameConfig) -> str:
    """``";wild_bids=perudo;exact_call=True"``: the config's variants as a cell id's tail (``""`` for today's rules)."""
    return "".join(f";{name}={value}" for name, value in config.variants.items())


def _canonical(spec: str) -> str:
    """The canonical text of ``spec``, or ``spec`` stripped if it does not parse (building it will say why)."""
    try:
        return canonical_spec(spec)
    except UsageError:
        return spec.strip()


def _cell_id(players: Sequence[str], config: GameConfig) -> str:
    """The id of a cell of ``players`` (spec texts, as they are) under ``config``."""
    return (f"{_players(players)};dice={config.starting_dice[0]};bids={config.bids};faces={config.faces};"
            f"wild={config.wild};opener={config.opener}" + variants_text(config))


def _players(players: Sequence[str]) -> str:
    """``players=a|b``: the start of a cell's id, also naming a cell in errors."""
    return f"players={'|'.join(str(p).strip() for p in players)}"


def _cell_entropy(cell_id: str) -> int:
    return int.from_bytes(hashlib.sha256(cell_id.encode()).digest()[:16], "little")


def game_seed(seed: int, cell: Cell, game: int) -> np.random.SeedSequence:
    """Seed of game ``game`` of ``cell``: exactly ``SeedSequence([seed, h]).spawn(n)[game]`` for any
    ``n > game``, with ``h`` a stable hash of the cell id, built without spawning the others."""
    return np.random.SeedSequence([seed, _cell_entropy(cell.id)], spawn_key=(game,))


def parse_dice_range(text: str, players: int = 2) -> list[int]:
    """``"1-35"``, ``"5"`` or ``"1-5,10,20-30:5"`` -> sorted distinct dice counts, each >= 1 and within
    ``MAX_TABLE_DICE`` on the table with ``players`` players; a UsageError names a bad item."""
    values: set[int] = set()
    for part in str(text).split(","):
        match = _DICE_ITEM.fullmatch(part.strip())
        if not part.strip():
            raise UsageError(f"--dice {echo(text)} has an empty item: give dice counts between the commas")
        if not match:
            raise UsageError(f"--dice must look like 5, 1-35 or 1-35:2 (comma-separated), got {echo(text)}")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) else low
        step = int(match.group(3)) if match.group(3) else 1
        if low < 1 or high < low or step < 1:
            raise UsageError(f"--dice must name dice counts >= 1 (low-high, high >= low, step >= 1), got {echo(text)}")
        if high * players > MAX_TABLE_DICE:
            raise UsageError(f"--dice {echo(text)}: {players} players x {high} dice put {high * players} dice on the "
                             f"table, above the limit MAX_TABLE_DICE = {MAX_TABLE_DICE} (at most "
                             f"{MAX_TABLE_DICE // players} dice each)")
        values.update(range(low, high + 1, step))
    return sorted(values)


_DICE_ITEM = re.compile(r"(\d+)(?:\s*-\s*(\d+))?(?:\s*:\s*(\d+))?")  # 5, 1-35 or 1-35:2
