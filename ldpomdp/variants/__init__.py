"""Games other than the Liar's Dice of :mod:`ldpomdp.rules`, each in its own subpackage: nothing outside
:mod:`ldpomdp.variants` imports them.

- :mod:`.call_reroll`: report 000's two-player one-die "call and re-roll" game, its exact value and agents.
"""
