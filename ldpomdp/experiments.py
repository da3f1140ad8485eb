"""Former home of the sweep runner: the names stay importable from here; the code is in :mod:`ldpomdp.sweeps`."""

from .sweeps.cell import Cell, game_seed, parse_dice_range
from .sweeps.experiments import Experiment
from .sweeps.report import run_experiment
from .sweeps.runner import play_batch, run_sweep, validate
from .sweeps.statistics import SUMMARY_FILE, SummaryRow, format_table, summarize, wilson_interval, write_summary
from .sweeps.store import GAMES_FILE, RECORD_FIELDS, GameStore

__all__ = [
    "Cell",
    "Experiment",
    "SummaryRow",
    "GameStore",
    "run_sweep",
    "run_experiment",
    "game_seed",
    "play_batch",
    "summarize",
    "wilson_interval",
    "parse_dice_range",
    "format_table",
    "write_summary",
    "validate",
    "GAMES_FILE",
    "SUMMARY_FILE",
    "RECORD_FIELDS",
]
