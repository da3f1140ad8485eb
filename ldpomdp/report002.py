"""Former home of report 002's named experiments: the names stay importable from here; the code is in
:mod:`ldpomdp.sweeps.experiments`."""

from .sweeps.experiments import EXPERIMENTS, MDP, POMDP, get_experiment

__all__ = ["EXPERIMENTS", "get_experiment", "POMDP", "MDP"]
