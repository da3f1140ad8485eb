"""ldpomdp: Liar's Dice as a POMDP - rules, game runner, opponent models, particle beliefs, sweeps."""

from . import moved
from .belief import ExactBelief, RejectionParticleBelief, TableBelief
from .errors import PlayerError
from .game import (
    ActionTaken,
    GameRecord,
    IllegalActionError,
    Player,
    PlayerView,
    PublicView,
    RoundEnd,
    RoundRecord,
    RoundStart,
    play_game,
    play_round,
    rotate,
)
from .opponent import OpponentModel
from .players import OneThirdRule, RandomPlayer
from .players.human import HumanPlayer
from .registry import make_player, make_seat, parse_spec, register, split_specs
from .round_end import resolve_challenge
from .rules import (
    CHALLENGE,
    EXACT,
    Action,
    Bid,
    GameConfig,
    legal_actions,
    match_probability,
    matching_count,
    minimal_raises,
)

__version__ = "0.2.0"

moved.install()

__all__ = [
    "GameConfig", "Bid", "CHALLENGE", "EXACT", "Action", "legal_actions", "minimal_raises", "matching_count",
    "match_probability", "resolve_challenge",
    "Player", "PlayerView", "PublicView", "RoundStart", "ActionTaken", "RoundEnd", "RoundRecord", "GameRecord",
    "IllegalActionError", "PlayerError", "play_game", "play_round", "rotate",
    "OpponentModel", "OneThirdRule", "RandomPlayer", "HumanPlayer",
    "make_player", "make_seat", "parse_spec", "register", "split_specs",
    "RejectionParticleBelief", "ExactBelief", "TableBelief",
]
