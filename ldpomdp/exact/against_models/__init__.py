"""The game-level best response to fixed opponent models, and what a dice state is worth to a seat.

solver.py (the best response and a policy's exact value), count_rounds.py (sixes rounds against count-based models),
game_values.py (a dice state's worth: exact, or fair rounds).
"""
