"""Every seated player that is not a planner, one module per family (the planners live in
:mod:`ldpomdp.planners`; the :class:`~ldpomdp.opponent.OpponentModel` protocol in :mod:`ldpomdp.opponent`).

Opponent models, exported here: :mod:`.one_third` (``one-third``, ``bluff``), :mod:`.random_player`, :mod:`.oehm`,
:mod:`.burcsi_nagy`, :mod:`.wildcard` (``aggressive``, ``conservative``), :mod:`.mixture`, and :func:`check_opponent`
for your own. The players of solved tables and the rest, imported from their modules (they load the solvers):
:mod:`.nash`, :mod:`.cfr`, :mod:`.best_response`, :mod:`.robust`, :mod:`.lbr`, :mod:`.human` (you, in the terminal)
and :mod:`.openspiel` (extra ``openspiel``).
"""

from .burcsi_nagy import BurcsiNagyPlayer
from .check import check_opponent
from .mixture import TypeMixture
from .oehm import OehmPlayer
from .one_third import OneThirdRule
from .random_player import RandomPlayer
from .wildcard import AggressivePlayer, ConservativePlayer

__all__ = [
    "OneThirdRule",
    "RandomPlayer",
    "OehmPlayer",
    "BurcsiNagyPlayer",
    "AggressivePlayer",
    "ConservativePlayer",
    "TypeMixture",
    "check_opponent",
]
