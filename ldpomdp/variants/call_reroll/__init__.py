"""Report 000's "call and re-roll" Liar's Dice (two players, one die): its exact value and its agents.

The game of report 000's chapter 1.2, with its exact value (``.game``), the report's two agents (``.agents``) and the
minimax LP of a zero-sum matrix game they use (``.matrix_game``). A game of its own: nothing of the Liar's Dice
package uses it."""

from .agents import MatrixAgent, TreeAgent
from .game import FACES, CallRerollAgent, game_value, play, stage_values, win_probability
from .matrix_game import solve_matrix_game

__all__ = [
    "CallRerollAgent", "stage_values", "game_value", "play", "win_probability", "FACES", "TreeAgent", "MatrixAgent",
    "solve_matrix_game",
]
