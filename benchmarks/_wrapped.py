"""A player that plays another one unchanged, for benchmarks that watch a player's moves (subclasses override the
methods they measure)."""

from __future__ import annotations

import numpy as np

from ldpomdp.game import Event, PlayerView
from ldpomdp.rules import Action, GameConfig


class Wrapped:
    """Plays ``player`` (any ``Player``) under its name, passing every call and the optional
    ``reseed`` hook on."""

    def __init__(self, player: object):
        self.player = player
        self.name = getattr(player, "name", type(player).__name__)

    def reset(self, seat: int, config: GameConfig) -> None:
        self.player.reset(seat, config)

    def reseed(self, seq: np.random.SeedSequence) -> None:
        """Pass the seed on to a player with the ``reseed`` hook."""
        if callable(getattr(self.player, "reseed", None)):
            self.player.reseed(seq)

    def observe(self, event: Event) -> None:
        self.player.observe(event)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        return self.player.act(view, rng)
