"""Benchmark sweeps: many games per cell (players x dice x rules), resumable, summarised with Wilson intervals.

- :mod:`.cell`: :class:`Cell`, one game setting (the players and a :class:`~ldpomdp.rules.GameConfig`), and
  :func:`game_seed`, each game's seed;
- :mod:`.store`: :class:`GameStore`, the resumable ``games.jsonl``;
- :mod:`.statistics`: :class:`SummaryRow`, :func:`summarize`, :func:`wilson_interval`, the CSV and the table;
- :mod:`.games`: :func:`play_one`, one game of a cell, and its ``games.jsonl`` record;
- :mod:`.runner`: :func:`run_sweep` on a process pool, a dask cluster or any executor;
- :mod:`.exploitability`: :func:`exploitability_lower_bound`, LBR's games against a policy as a bound;
- :mod:`.experiments`: named sweeps (:class:`Experiment`), report 002's among them;
- :mod:`.plots`: :func:`plot_summary` (matplotlib, optional);
- :mod:`.report`: :func:`report`, used by the CLI and :func:`run_experiment` alike.
"""

from .cell import Cell, game_seed, parse_dice_range
from .experiments import EXPERIMENTS, Experiment, get_experiment
from .exploitability import LowerBound, exploitability_lower_bound
from .games import play_one
from .report import report, run_experiment
from .runner import play_batch, run_sweep, validate
from .statistics import SummaryRow, format_table, summarize, wilson_interval, write_summary
from .store import GameStore

__all__ = [
    "Cell", "Experiment", "SummaryRow", "GameStore", "run_sweep", "run_experiment", "report", "game_seed",
    "play_batch", "summarize", "wilson_interval", "parse_dice_range", "format_table", "write_summary", "validate",
    "EXPERIMENTS", "get_experiment", "play_one", "LowerBound", "exploitability_lower_bound",
]
