"""Liar's Dice seen by one player as a pomdp-py POMDP over one round (imports pomdp_py)."""

from .action import END, LDAction
from .agent import ROLLOUTS, LDParticles, make_agent, others_expected, reset_root, root_states
from .models import ObservationModel, PolicyModel, PublicNode, RewardModel, TransitionModel, die_outcomes, end_outcomes
from .observation import LDObservation
from .search import RoundPOMCP
from .state import LDState

__all__ = [
    "LDState", "LDAction", "END", "LDObservation", "PublicNode", "TransitionModel", "ObservationModel",
    "RewardModel", "PolicyModel", "die_outcomes", "end_outcomes", "LDParticles", "RoundPOMCP", "ROLLOUTS", "make_agent",
    "reset_root", "root_states", "others_expected",
]
