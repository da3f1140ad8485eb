"""The solvers of three to six players: one round's CFR+ and the blueprint that chains the rounds.

states.py (the dice states at a table of seats and their win probabilities' chain), round.py (a round's information
sets, payoffs and public tree), round_cfr.py (CFR+ on a round), table.py (the blueprint table and its format),
blueprint.py (the chaining solve).
"""
