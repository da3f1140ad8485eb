"""Opponents: the :class:`OpponentModel` protocol and one module per family (and, re-exported,
:class:`~ldpomdp.human.HumanPlayer`)."""

from ..human import HumanPlayer, render_dice  # re-exported: the terminal player lives in ldpomdp.human
from .base import BaseOpponent, HandIndependentOpponent, OpponentModel, checked_probabilities, sample_action
from .burcsi_nagy import BurcsiNagyPlayer
from .check import check_opponent
from .mixture import TypeMixture
from .oehm import OehmPlayer
from .one_third import OneThirdRule
from .random_player import RandomPlayer
from .wildcard import AggressivePlayer, ConservativePlayer

__all__ = [
    "OpponentModel",
    "BaseOpponent",
    "HandIndependentOpponent",
    "checked_probabilities",
    "sample_action",
    "OneThirdRule",
    "RandomPlayer",
    "HumanPlayer",
    "render_dice",
    "OehmPlayer",
    "BurcsiNagyPlayer",
    "AggressivePlayer",
    "ConservativePlayer",
    "TypeMixture",
    "check_opponent",
]
