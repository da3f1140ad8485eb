"""The two-player solvers: one round's exact LP and exploitability, and the whole game's CFR+ table.

states.py (the dice states and their values' chain), abstraction.py (the last-bids abstraction), round_cfr.py (CFR+
on a round), table.py (the table and its format), equilibrium.py (the chaining solve), tree.py and sequence_form.py (a
round's exact LP), solved_rounds.py (their disk cache), exploitability.py (best responses and exploitability).
"""
