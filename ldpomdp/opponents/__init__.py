"""Opponents: the :class:`OpponentModel` protocol and one module per family."""

from .base import BaseOpponent, OpponentModel, checked_probabilities, sample_action
from .human import HumanPlayer, render_dice
from .one_third import OneThirdRule
from .random_player import RandomPlayer

__all__ = [
    "OpponentModel",
    "BaseOpponent",
    "checked_probabilities",
    "sample_action",
    "OneThirdRule",
    "RandomPlayer",
    "HumanPlayer",
    "render_dice",
]
