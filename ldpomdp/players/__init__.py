"""Every seated player that is not a planner (those are in ``ldpomdp.planners``), one module per family.

Exported here: the opponent models (``.one_third``, ``.random_player``, ``.oehm``, ``.burcsi_nagy``, ``.dummies``,
``.quantal``, ``.mixture``) and ``check_opponent``. The players of solved tables and the rest load the solvers, so
they are imported from their modules: ``.nash``, ``.cfr``, ``.best_response``, ``.robust``, ``.lbr`` and ``.human``.
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
