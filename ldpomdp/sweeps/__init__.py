"""Benchmark sweeps: many games per cell (players x dice x rules), resumable, summarised with Wilson intervals.

A ``Cell`` is one game setting; ``run_sweep`` plays cells' games on a process pool, a dask cluster or any executor into
a resumable ``games.jsonl`` (``GameStore``) and ``report`` summarises and plots them; ``Experiment`` names a sweep
(report 002's among them), ``exploitability_lower_bound`` plays LBR's games; ``run_tournament`` plays a ``Tournament``
(many agents) as a sweep and rates them (``rate``); ``evaluate`` measures one agent against a ladder of the package's.
A result folder's files are read back through their owners (``read_summary``, ``read_games``, ``read_outputs``,
``read_timing``); ``SteppedGame`` is one game of a cell seeded and recorded as a sweep's, played move by move by its
caller (the web app).
"""

from .cell import Cell, game_seed, parse_dice_range
from .evaluate import EvaluationRow, evaluate
from .experiments import EXPERIMENTS, Experiment, get_experiment
from .games import SteppedGame, play_one
from .lbr_bound import LowerBound, exploitability_lower_bound
from .ratings import Rating, rate
from .report import report, run_experiment
from .runner import play_batch, read_timing, run_sweep, validate
from .statistics import (
    SUMMARY_FILE,
    SummaryRow,
    difference_interval,
    format_table,
    rate_text,
    read_summary,
    summarize,
    wilson_interval,
    write_summary,
)
from .store import GAMES_FILE, GameStore, read_games, same_game
from .tournament import TOURNAMENT_FILE, Standings, Tournament, read_outputs, run_tournament

__all__ = [
    "Cell", "Experiment", "SummaryRow", "GameStore", "run_sweep", "run_experiment", "report", "game_seed",
    "play_batch", "summarize", "wilson_interval", "rate_text", "parse_dice_range", "format_table", "write_summary",
    "validate",
    "EXPERIMENTS", "get_experiment", "play_one", "LowerBound", "exploitability_lower_bound", "Tournament",
    "run_tournament", "Standings", "Rating", "rate", "evaluate", "EvaluationRow",
    # a result folder's files, read back (the web app's results page), and one game played move by move
    "SUMMARY_FILE", "GAMES_FILE", "TOURNAMENT_FILE", "read_summary", "read_games", "read_outputs", "read_timing",
    "same_game",
    "difference_interval", "SteppedGame",
]
