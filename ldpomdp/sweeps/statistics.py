"""A sweep's statistics per cell and player, their intervals, ``summary.csv`` and the plain-text table.

Per cell and player, wins with a Wilson interval and challenges; two win rates' difference with Newcombe's
interval; ``summary.csv`` (its columns, writer and reader) and the plain-text table."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .cell import Cell, variants_text
from .csv_format import columns_of, read_csv, write_csv

__all__ = ["SummaryRow", "summarize", "wilson_interval", "difference_interval", "rate_text", "write_summary",
           "read_summary", "format_table", "SUMMARY_FILE", "SUMMARY_COLUMNS", "Z95"]

SUMMARY_FILE = "summary.csv"
Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default); (0, 1) when ``n`` is 0.

    Its ends always hold the observed rate: the low end is exactly 0 at no successes, the high end exactly 1 at all
    (rounding would otherwise leave them a hair off, e.g. 6.9e-18 at 0 of 50)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes <= 0 else min(p, max(0.0, centre - half))
    high = 1.0 if successes >= n else max(p, min(1.0, centre + half))
    return low, high


def difference_interval(wins_a: int, games_a: int, wins_b: int, games_b: int) -> tuple[float, float]:
    """95% interval of the difference of two independent win rates (a - b): Newcombe's hybrid score interval,
    from each rate's Wilson interval (Newcombe 1998, method 10)."""
    p_a, p_b = wins_a / games_a, wins_b / games_b
    (low_a, high_a), (low_b, high_b) = wilson_interval(wins_a, games_a), wilson_interval(wins_b, games_b)
    difference = p_a - p_b
    return (difference - math.hypot(p_a - low_a, high_b - p_b), difference + math.hypot(high_a - p_a, p_b - low_b))


def rate_text(successes: int, n: int) -> str:
    """``"rate [low, high]"`` with the 95% Wilson interval, 3 decimals (``"-"`` when ``n`` is 0): a results cell."""
    if n <= 0:
        return "-"
    low, high = wilson_interval(successes, n)
    return f"{successes / n:.3f} [{low:.3f}, {high:.3f}]"


@dataclass(frozen=True)
class SummaryRow:
    """Results of one player (by its seat-agnostic index in ``cell.players``) over one cell's games."""

    cell: str
    dice: int
    bids: str
    player: str
    player_index: int
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    challenges_per_game: float
    challenge_success_rate: float  # NaN when the player never challenged
    best_response: float = math.nan  # exact win rate of the best response in this player's place (ceiling.py)
    exact_value: float = math.nan  # this player's own exact win rate, where it can be computed
    rules: str = ""  # the rule variants in force (GameConfig.variants), "" for today's rules


#: summary.csv's columns (SummaryRow's fields) and the kind of each: str, INTEGER or NUMBER
SUMMARY_COLUMNS = columns_of(SummaryRow)
_SUMMARY_REQUIRED = ("cell", "player", "games", "wins")


def summarize(cells: Sequence[Cell], games: int, records: dict[tuple[str, int], dict]) -> list[SummaryRow]:
    """Per cell and player: wins with a Wilson interval, challenges per game and their success rate,
    over games ``0 .. games-1`` of each cell that are stored."""
    rows = []
    for cell in cells:
        n_players = len(cell.players)
        recs = [records[(cell.id, g)] for g in range(games) if (cell.id, g) in records]
        wins = np.zeros(n_players, dtype=int)
        chal = np.zeros(n_players, dtype=int)
        good = np.zeros(n_players, dtype=int)
        for r in recs:
            seats = r["seats"]
            wins[seats[r["winner"]]] += 1
            np.add.at(chal, seats, r["challenges"])
            np.add.at(good, seats, r["successful_challenges"])
        n = len(recs)
        for i, spec in enumerate(cell.players):
            low, high = wilson_interval(int(wins[i]), n)
            rows.append(SummaryRow(
                cell=cell.id, dice=cell.dice, bids=cell.config.bids, player=spec, player_index=i, games=n,
                wins=int(wins[i]), win_rate=wins[i] / n if n else math.nan, ci_low=low, ci_high=high,
                challenges_per_game=chal[i] / n if n else math.nan,
                challenge_success_rate=good[i] / chal[i] if chal[i] else math.nan,
                rules=variants_text(cell.config).lstrip(";"),
            ))
    return rows


def write_summary(rows: Sequence[SummaryRow], path: Path) -> None:
    """``summary.csv``, atomically: one line per row; the ``rules`` column only when some cell plays a rule
    variant."""
    columns = [c for c in SUMMARY_COLUMNS if c != "rules" or any(r.rules for r in rows)]
    write_csv(path, columns, [[getattr(row, c) for c in columns] for row in rows])


def read_summary(path: Path) -> tuple[list[dict], list[str]]:
    """The rows of the ``summary.csv`` at ``path`` as dicts of ``SUMMARY_COLUMNS``, and a line for each problem.

    Numbers read as numbers, an empty value or a column the file lacks as None; a row that does not read is left out
    (and named among the problems). No file: no rows, no problem (a sweep still running has none yet)."""
    return read_csv(path, SUMMARY_COLUMNS, _SUMMARY_REQUIRED, missing_ok=True)


def format_table(rows: Sequence[SummaryRow], x_of: Callable[[SummaryRow], object] | None = None,
                 x_label: str = "dice") -> str:
    """A plain-text table of the summary, one line per cell and player."""
    x_of = x_of or (lambda r: r.dice)
    w = max([len(f"{r.player_index}: {r.player}") for r in rows] + [6])
    exact = any(not math.isnan(r.best_response) for r in rows)
    head = f"{x_label:>7} {'player':{w}} {'games':>6} {'win rate':>9} {'95% CI':>15} {'chal/game':>9} {'chal ok':>8}"
    head += f" {'best':>6} {'exact':>6}" if exact else ""
    lines = [head, "-" * len(head)]

    def shown(value: float) -> str:
        return "" if math.isnan(value) else f"{value:.3f}"

    for r in rows:
        line = (f"{str(x_of(r)):>7} {f'{r.player_index}: {r.player}':{w}} {r.games:6d} {shown(r.win_rate):>9} "
                f"{f'[{r.ci_low:.3f}, {r.ci_high:.3f}]':>15} {r.challenges_per_game:9.2f} "
                f"{shown(r.challenge_success_rate):>8}")
        lines.append(line + (f" {shown(r.best_response):>6} {shown(r.exact_value):>6}" if exact else ""))
    if exact:
        lines.append("best: exact win rate of the best response in the player's place; exact: the player's own")
    return "\n".join(lines)
