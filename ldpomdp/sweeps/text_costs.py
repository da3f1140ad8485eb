"""What text agents cost a sweep, per cell and player (calls, characters, seconds, failed answers), summed from the
transcripts ``games.jsonl`` keeps (``ldpomdp.players.text``), as ``text_costs.csv``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import astuple, dataclass
from pathlib import Path

from ..players.text import COSTS
from .cell import Cell
from .csv_format import columns_of, write_csv
from .store import TRANSCRIPTS

__all__ = ["TextCostRow", "text_costs", "write_text_costs", "TEXT_COSTS_FILE"]

TEXT_COSTS_FILE = "text_costs.csv"


@dataclass(frozen=True)
class TextCostRow:
    """A text agent's costs over a cell's games: its calls, the moves they gave and the defaults played instead, the
    characters asked and answered, the seconds it took, and its failed calls by kind."""

    cell: str
    player: str
    player_index: int
    games: int
    calls: int
    moves: int
    defaults: int
    chars_in: int
    chars_out: int
    seconds: float
    seconds_per_call: float
    unreadable: int
    illegal: int
    timeout: int
    error: int


def text_costs(cells: Sequence[Cell], games: int, records: dict[tuple[str, int], dict]) -> list[TextCostRow]:
    """A row per cell and text agent over games ``0 .. games-1`` of each cell that are stored (none: no text agent)."""
    rows = []
    for cell in cells:
        stored = [records[(cell.id, g)] for g in range(games) if (cell.id, g) in records]
        for i, spec in enumerate(cell.players):
            played = [r[TRANSCRIPTS][i] for r in stored if r.get(TRANSCRIPTS) and r[TRANSCRIPTS][i] is not None]
            if not played:
                continue
            total = {cost: sum(t[cost] for t in played) for cost in COSTS}
            calls = sum(len(t["calls"]) for t in played)
            counts = {cost: int(total[cost]) for cost in COSTS if cost != "seconds"}
            rows.append(TextCostRow(cell=cell.id, player=spec, player_index=i, games=len(played), calls=calls,
                                    seconds=float(total["seconds"]),
                                    seconds_per_call=total["seconds"] / calls if calls else math.nan, **counts))
    return rows


def write_text_costs(rows: Sequence[TextCostRow], path: Path) -> Path:
    """``text_costs.csv``, atomically, one line per row."""
    return write_csv(path, list(columns_of(TextCostRow)), [astuple(row) for row in rows])
