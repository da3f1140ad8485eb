"""Every seated player that is not a planner (those are in :mod:`ldpomdp.planners`), one module per family.

Exported here: the opponent models (:mod:`.one_third`, :mod:`.random_player`, :mod:`.oehm`, :mod:`.burcsi_nagy`,
:mod:`.dummies`, :mod:`.quantal`, :mod:`.mixture`) and :func:`check_opponent`. The players of solved tables and the
rest load the solvers, so they are imported from their modules: :mod:`.nash`, :mod:`.cfr`, :mod:`.best_response`,
:mod:`.robust`, :mod:`.lbr` and :mod:`.human`.
"""

from .burcsi_nagy import BurcsiNagyPlayer
from .check import check_opponent
from .dummies import AggressivePlayer, ConservativePlayer
from .mixture import TypeMixture
from .oehm import OehmPlayer
from .one_third import OneThirdRule
from .quantal import QuantalEstimate
from .random_player import RandomPlayer

__all__ = [
    "OneThirdRule",
    "RandomPlayer",
    "OehmPlayer",
    "QuantalEstimate",
    "BurcsiNagyPlayer",
    "AggressivePlayer",
    "ConservativePlayer",
    "TypeMixture",
    "check_opponent",
]
