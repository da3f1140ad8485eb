"""A player that plays another one unchanged, for benchmarks that watch a player's moves (subclasses override the
methods they measure), and ``Timed``, which sums the CPU seconds of the calls it passes on."""

from __future__ import annotations

import time

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


class Timed(Wrapped):
    """Plays ``player`` and sums in ``seconds`` the CPU seconds of its ``act`` and ``observe`` (where planners update
    their beliefs), and of its ``reset`` too with ``resets``."""

    def __init__(self, player: object, resets: bool = False):
        super().__init__(player)
        self.seconds, self.resets = 0.0, resets

    def _timed(self, method: str, *args: object) -> object:
        start = time.process_time()
        try:
            return getattr(self.player, method)(*args)
        finally:
            self.seconds += time.process_time() - start

    def reset(self, seat: int, config: GameConfig) -> None:
        if self.resets:
            self._timed("reset", seat, config)
        else:
            self.player.reset(seat, config)

    def observe(self, event: Event) -> None:
        self._timed("observe", event)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        return self._timed("act", view, rng)  # type: ignore[return-value]
