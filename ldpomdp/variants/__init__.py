"""Games other than the Liar's Dice of ``ldpomdp.rules``, each in its own subpackage: nothing outside
``ldpomdp.variants`` imports them.

- ``.call_reroll``: report 000's two-player one-die "call and re-roll" game, its exact value and agents.
"""
