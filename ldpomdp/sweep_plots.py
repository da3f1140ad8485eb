"""Former home of the sweep plots: the names stay importable from here; the code is in
:mod:`ldpomdp.sweeps.plots`."""

from .sweeps.plots import player_labels, plot_summary

__all__ = ["plot_summary", "player_labels"]
