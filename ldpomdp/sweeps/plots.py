"""Plots of a sweep summary and a tournament's ratings, each PNG written atomically (matplotlib is optional:
``pip install ".[plot]"`` in the checkout).

Several cells: win rate against the cell's x value (dice by default) with the 95% Wilson interval as a
band, one line per player (only the first of two: the other is its mirror), with the exact best response's win
rate (dashed) and the player's own exact win rate (dotted) where the summary has them. One cell: bar charts of
wins (with the interval) and challenges per player. Titles name the game (rules, and dice when all cells share
them).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from ..datafiles import write_atomic
from ..rules import dice_text
from .cell import Cell
from .ratings import Rating
from .statistics import SummaryRow

__all__ = ["plot_summary", "player_labels", "plot_ratings"]


def player_labels(cells: Sequence[Cell], roles: Sequence[str] = ()) -> list[str]:
    """Legend names per player index: ``roles`` if given, else the first cell's specs, numbered when a
    spec appears more than once (``one-third #1``, ``one-third #2``)."""
    if roles:
        return list(roles)
    specs = list(cells[0].players)
    return [f"{s} #{specs[:i + 1].count(s)}" if specs.count(s) > 1 else s for i, s in enumerate(specs)]


def plot_summary(
    rows: Sequence[SummaryRow],
    cells: Sequence[Cell],
    out: str | Path,
    title: str = "",
    x_of: Callable[[Cell], float] = lambda cell: cell.dice,
    x_label: str = "dice per player",
    roles: Sequence[str] = (),
) -> list[Path]:
    """Write the PNG plots into ``out``; returns their paths ([] when matplotlib is missing).

    Args:
        rows: the summary's rows (``SummaryRow``), every player of every cell.
        cells: the cells the rows are of; one cell gives the bar charts ``wins.png`` and ``challenges.png``, several
            the line plot ``win_rate.png``.
        out: the folder the PNGs are written into (atomically).
        title: the plots' first title line; default none (the second line names the game and the games per point).
        x_of: a cell's x value in the line plot; default its dice per player.
        x_label: the line plot's x axis label; default "dice per player".
        roles: the legend's name per player index; default the first cell's specs (numbered when repeated).

    Returns:
        The paths of the PNGs written, [] when matplotlib is missing.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        return []
    out = Path(out)
    labels = player_labels(cells, roles)
    x_by_cell = {c.id: x_of(c) for c in cells}
    if len(cells) == 1:
        return _bars(plt, rows, labels, out, title, cells)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    shown = labels[:1] if len(labels) == 2 else labels  # with two players the second line mirrors the first
    for i, label in enumerate(shown):
        mine = sorted((r for r in rows if r.player_index == i and r.games), key=lambda r: x_by_cell[r.cell])
        if not mine:
            continue
        xs = [x_by_cell[r.cell] for r in mine]
        line, = ax.plot(xs, [r.win_rate for r in mine], marker="o", ms=3, label=label)
        ax.fill_between(xs, [r.ci_low for r in mine], [r.ci_high for r in mine], color=line.get_color(),
                        alpha=0.2, linewidth=0)
        for field, style, name in (("best_response", "--", "ceiling (exact best response)"),
                                   ("exact_value", ":", "exact win rate")):
            known = [(x, getattr(r, field)) for x, r in zip(xs, mine, strict=True) if not math.isnan(getattr(r, field))]
            if known:
                ax.plot(*zip(*known, strict=True), ls=style, color=line.get_color(), lw=1.2,
                        label=name if len(shown) == 1 else f"{label}: {name}")
    ax.axhline(1 / len(labels), color="grey", lw=0.8, ls="--", label=f"1/{len(labels)}")
    ax.set_xlabel(x_label)
    if all(float(x).is_integer() for x in x_by_cell.values()):  # dice: no fractional ticks between few points
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("win rate (95% Wilson band)")
    ax.set_ylim(0, 1)
    ax.set_title(_title(title, cells, f"{_games_note(rows)} per point"), fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = write_atomic(out / "win_rate.png", partial(fig.savefig, dpi=120))
    plt.close(fig)
    return [path]


def _title(title: str, cells: Sequence[Cell], games: str) -> str:
    """The plot's title, then a line naming the game (its rules, and the dice when every cell has the same) and
    the number of games."""
    rules = "; ".join(sorted({cell.config.describe() for cell in cells}))
    dice = {cell.dice for cell in cells}
    details = [rules, *([f"{dice_text(dice.pop())} each"] if len(dice) == 1 else []), games]
    return "\n".join(textwrap.wrap(title, 70) + textwrap.wrap("; ".join(details), 80))


def _games_note(rows: Sequence[SummaryRow]) -> str:
    counts = sorted({r.games for r in rows})
    return f"{counts[0]} games" if len(counts) == 1 else f"{counts[0]}-{counts[-1]} games"


def _bars(plt, rows: Sequence[SummaryRow], labels: list[str], out: Path, title: str, cells: Sequence[Cell]
          ) -> list[Path]:
    rows = sorted(rows, key=lambda r: r.player_index)
    paths = []
    for name, values, err, ylabel in (
        ("wins", [r.wins for r in rows],
         [[r.wins - r.ci_low * r.games for r in rows], [r.ci_high * r.games - r.wins for r in rows]],
         "games won (95% Wilson interval)"),
        ("challenges", [r.challenges_per_game * r.games for r in rows], None, "challenges made"),
    ):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        total = sum(values) or 1
        ticks = [f"{label}\n{v:.0f} ({100 * v / total:.1f}%)" for label, v in zip(labels, values, strict=True)]
        ax.bar(ticks, values, yerr=err, capsize=4, color=[f"C{i}" for i in range(len(rows))])
        ax.set_ylabel(ylabel)
        ax.set_title(_title(f"{title}: {name}", cells, _games_note(rows)), fontsize=11)
        fig.tight_layout()
        path = write_atomic(out / f"{name}.png", partial(fig.savefig, dpi=120))
        plt.close(fig)
        paths.append(path)
    return paths


def plot_ratings(ratings: Sequence[Rating], path: str | Path, title: str = "") -> Path:
    """A tournament's ratings (best at the top) with their 95% intervals, written as a PNG to ``path`` atomically
    (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = list(reversed(ratings))  # the first row is drawn at the bottom
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.45 * len(shown)))
    ys = range(len(shown))
    ax.errorbar([r.rating for r in shown], ys, fmt="o", capsize=4,
                xerr=[[r.rating - r.low for r in shown], [r.high - r.rating for r in shown]])
    ax.set_yticks(list(ys), [f"{r.agent} ({r.games} games)" for r in shown])
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("rating in Elo points, 95% interval (mean 0; 400 points = odds of 10 to 1)")
    ax.set_title("\n".join(textwrap.wrap(title, 60)), fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    written = write_atomic(path, partial(fig.savefig, dpi=120, format="png"))
    plt.close(fig)
    return written
