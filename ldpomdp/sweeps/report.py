"""Reporting a sweep, one way for the CLI and for Python: the plain-text table, the summary's path and the
plots; and ``run_experiment``, a named experiment run and reported."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import install_hint
from .cell import Cell
from .experiments import Experiment
from .runner import run_sweep
from .statistics import SUMMARY_FILE, SummaryRow, format_table
from .tournament import check_folder_kind

__all__ = ["report", "run_experiment"]


def report(
    rows: Sequence[SummaryRow], cells: Sequence[Cell], out: str | Path, *, reference: str = "", plot: bool = True,
    log: Callable[[str], None] | None = print, **plot_options,
) -> list[Path]:
    """Log a sweep's table and summary path, and with ``plot`` write its plots; return the plots' paths.

    Logs the table of ``rows``, the ``reference`` (what report 002 found) if any and where the summary is, then, with
    ``plot``, writes the plots into ``out`` and logs their paths. ``plot_options`` are ``plot_summary``'s (``title``,
    ``x_of``, ``x_label``, ``roles``); the table's x column is ``x_of`` of each row's cell (default its dice), headed
    by ``x_label``'s first word.

    Args:
        rows: the summary's rows, as ``run_sweep`` returns them.
        cells: the sweep's cells.
        out: the sweep's folder: where its summary is, and where the plots are written.
        reference: what report 002 found, logged when given; default none.
        plot: whether to write the plots; default True.
        log: where each line goes; default ``print``, None for silence.
        **plot_options: passed to ``plot_summary``.

    Returns:
        The paths of the plots written ([] without ``plot``, or when matplotlib is missing).
    """
    x_of = plot_options.get("x_of", _dice)
    x_by_cell = {c.id: x_of(c) for c in cells}
    if log:
        log(format_table(rows, lambda r: x_by_cell[r.cell], plot_options.get("x_label", "dice per player").split()[0]))
        if reference:
            log(f"report 002: {reference}")
        log(f"wrote {Path(out) / SUMMARY_FILE}")
    if not plot:
        return []
    from .plots import plot_summary  # matplotlib is optional, and slow to import

    written = plot_summary(rows, cells, out, **plot_options)
    if log:
        log(f"wrote {', '.join(str(p) for p in written)}" if written else
            f"plots need matplotlib: {install_hint('plot')}")
    return written


def _dice(cell: Cell) -> int:
    return cell.dice


def run_experiment(
    experiment: Experiment,
    quick: bool = False,
    out: str | Path | None = None,
    games: int | None = None,
    seed: int = 0,
    plot: bool = True,
    log: Callable[[str], None] | None = print,
    **run_options,
) -> list[SummaryRow]:
    """Run a named experiment with ``run_sweep`` and ``report`` it.

    Args:
        experiment: the ``Experiment`` (its cells, games per cell and plot settings).
        quick: play its quick cells and ``quick_games`` instead of the full run; default False.
        out: the result folder; default ``results/<experiment name>``.
        games: games per cell; default the experiment's (``quick_games`` with ``quick``).
        seed: the sweep seed; default 0.
        plot: whether to write the plots; default True.
        log: where each line goes; default ``print``, None for silence.
        **run_options (Any): passed to ``run_sweep`` (``workers``, ``scheduler``, ``exact``, ...).

    Returns:
        The summary's rows, as ``run_sweep`` returns them.
    """
    cells = experiment.cells(quick)
    if games is None:
        games = experiment.quick_games if quick else experiment.games
    out = Path(out or Path("results") / experiment.name)
    if log:
        log(f"{experiment.name}: {experiment.title} ({len(cells)} cells x {games} games{', quick' if quick else ''})")
    check_folder_kind(Path(out), "sweep")
    rows = run_sweep(cells, games, out, seed, log=log, **run_options)
    report(rows, cells, out, title=experiment.title, x_of=experiment.x_of, x_label=experiment.x_label,
           roles=experiment.roles, reference=experiment.reference, plot=plot, log=log)
    return rows
