"""The exact solvers' API: small two-player rounds solved, exploitability, best responses to fixed opponents.

Exact solutions of small two-player rounds (the sequence-form LP), best responses and exploitability, and the
game-level best response to opponents that ignore their hands (any number of players) or, in the sixes game, decide
by one count of their hand, with the exact value of a given player against them. The layout: two_player/,
many_players/, against_models/, cfr.py (the CFR+ core), tables.py (the tables to play). (Report 000's
call-and-re-roll game is in ``ldpomdp.variants.call_reroll``.)"""

from .against_models.count_rounds import HandDependentModelError
from .against_models.solver import FixedOpponentsSolution, evaluate_player, solve_fixed_opponents
from .two_player.exploitability import (
    Exploitability,
    ReplayPolicy,
    best_response_value,
    exploitability,
    game_exploitability,
    game_value,
    policy_behaviour,
    reach_probabilities,
    strategy_value,
)
from .two_player.sequence_form import RoundSolution, sequence_form, solve_round
from .two_player.solved_rounds import cached_solution
from .two_player.tree import MAX_SEQUENCES, RoundTree, build_tree

__all__ = [
    "solve_round", "RoundSolution", "sequence_form", "RoundTree", "build_tree", "MAX_SEQUENCES",
    "cached_solution",
    "exploitability", "game_exploitability", "game_value", "Exploitability", "ReplayPolicy", "best_response_value",
    "policy_behaviour",
    "reach_probabilities", "strategy_value",
    "solve_fixed_opponents", "FixedOpponentsSolution", "HandDependentModelError",
    "evaluate_player",
]
