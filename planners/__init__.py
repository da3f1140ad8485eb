"""Planners that play Liar's Dice from a belief: the expected-count policy and POMCP on pomdp-py."""

__all__: list[str] = []
