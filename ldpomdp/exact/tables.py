"""The equilibrium tables of the whole two-player game: the shipped one (default rules), and the others solved on
first use and cached on disk (``cache_dir()/cfr``), like ``nash``'s rounds."""

from __future__ import annotations

import hashlib
from dataclasses import astuple, dataclass
from pathlib import Path

from ..caches import BoundedCache, bounded_cache
from ..errors import TableError
from ..rules import GameConfig
from .equilibrium import GameTable, solve_game
from .nash import cache_dir

__all__ = ["SHIPPED_TABLE", "SolveSettings", "SHIPPED", "ON_DEMAND", "rules_key", "table_for"]

SHIPPED_TABLE = Path(__file__).parent / "data" / "cfr_default.npz"


@dataclass(frozen=True)
class SolveSettings:
    """How a table is solved (:func:`~ldpomdp.exact.equilibrium.solve_game`): every round up to ``dice`` each, the
    ``recall`` (k, or a schedule like ``"3@4,2"``), CFR+ ``iterations`` per round."""

    dice: int
    recall: str
    iterations: int


SHIPPED = SolveSettings(dice=5, recall="3@4,2", iterations=150)  # the shipped table's (`ldpomdp solve equilibrium`)
ON_DEMAND = SolveSettings(dice=3, recall="3@4,2", iterations=150)  # the tables solved on demand for other rules
CACHED_TABLES = 8  # tables kept in memory (the shipped one is 10 MB)
_MEMORY: BoundedCache[str, GameTable] = bounded_cache(f"{__name__}._MEMORY", CACHED_TABLES)


def rules_key(config: GameConfig) -> str:
    """The rules a table is solved for, as text: two configs with the same key share a table."""
    return f"faces={config.faces}|wild={config.wild}|bids={config.bids}|opener={config.opener}"


def table_for(config: GameConfig, path: str | Path | None = None) -> GameTable:
    """The table for ``config``'s rules: ``path`` if given, else the shipped one (default rules), else one solved
    now with :data:`ON_DEMAND` settings and cached on disk."""
    if config.num_players != 2:
        raise ValueError(f"cfr plays two-player games only (no equilibrium table for {config.num_players} players)")
    if config.bids != "full":
        raise ValueError(f"cfr plays the full-bid game only, got bids={config.bids!r}")
    if path is not None:
        key = f"path={Path(path).resolve()}"
    elif rules_key(config) == rules_key(GameConfig()):
        key, path = "shipped", SHIPPED_TABLE
    else:
        key = rules_key(config)
    table = _MEMORY.lookup(key)
    if table is None:
        if path is None and max(config.starting_dice) > ON_DEMAND.dice:  # refuse before solving
            raise ValueError(f"cfr: tables solved on demand cover up to {ON_DEMAND.dice} dice each; the game starts "
                             f"with {config.starting_dice} (solve a larger one with `ldpomdp solve equilibrium`)")
        if path is None:
            # the settings as the tuple they were: the digests of tables already cached on disk stay the same
            digest = hashlib.sha256(f"v{GameTable.FORMAT}|{key}|{astuple(ON_DEMAND)}".encode()).hexdigest()[:20]
            cached = cache_dir() / "cfr" / f"table-{digest}.npz"
            try:
                table = GameTable.load(cached)
            except TableError:  # none cached yet, or a damaged file: solve (again)
                table = solve_game(config, ON_DEMAND.dice, ON_DEMAND.recall, ON_DEMAND.iterations)
                table.save(cached)
        else:
            table = GameTable.load(path)
        _MEMORY[key] = table
    if rules_key(table.config) != rules_key(config):
        raise ValueError(f"cfr table {path} is for {table.config.describe()}, the game is {config.describe()}")
    return table
