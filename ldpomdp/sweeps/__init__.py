"""Benchmark sweeps: many games per cell (players x dice x rules), resumable, summarised with Wilson intervals.

A :class:`Cell` is one game setting; :func:`run_sweep` plays cells' games on a process pool, a dask cluster or any
executor into a resumable ``games.jsonl`` (:class:`GameStore`) and :func:`report` summarises and plots them;
:class:`Experiment` names a sweep (report 002's among them), :func:`exploitability_lower_bound` plays LBR's games;
:func:`run_tournament` plays a :class:`Tournament` (many agents) as a sweep and rates them (:func:`rate`).
"""

from .cell import Cell, game_seed, parse_dice_range
from .experiments import EXPERIMENTS, Experiment, get_experiment
from .exploitability import LowerBound, exploitability_lower_bound
from .games import play_one
from .ratings import Rating, rate
from .report import report, run_experiment
from .runner import play_batch, run_sweep, validate
from .statistics import SummaryRow, format_table, rate_text, summarize, wilson_interval, write_summary
from .store import GameStore
from .tournament import Standings, Tournament, run_tournament

__all__ = [
    "Cell", "Experiment", "SummaryRow", "GameStore", "run_sweep", "run_experiment", "report", "game_seed",
    "play_batch", "summarize", "wilson_interval", "rate_text", "parse_dice_range", "format_table", "write_summary",
    "validate",
    "EXPERIMENTS", "get_experiment", "play_one", "LowerBound", "exploitability_lower_bound", "Tournament",
    "run_tournament", "Standings", "Rating", "rate",
]
