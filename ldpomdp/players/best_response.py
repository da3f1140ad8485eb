"""The ``best-response`` player: plays the exact game-level best response to fixed opponent models.

The response is a solved ``FixedOpponentsSolution``."""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..exact.against_models.solver import FixedOpponentsSolution, solved_for
from ..game import PlayerView
from ..registry import spec_text
from ..rules import Action, GameConfig

__all__ = ["BestResponsePlayer"]


class BestResponsePlayer:
    """Plays a ``FixedOpponentsSolution`` at its seat (raises ValueError seated elsewhere).

    Without a ``solution`` it plays the best response to ``assume`` (a player spec) at every other seat, solved on
    ``reset`` for the table's config and its seat (once per process: ``solved_for``)."""

    deterministic = True  # act is a function of the view: its exact value can be computed

    def __init__(self, solution: FixedOpponentsSolution | None = None, assume: str = "one-third",
                 name: str | None = None):
        self.solution, self.assume, self._from_spec = solution, assume, solution is None
        self.name = name or ("best-response" if solution is not None or assume == "one-third"
                             else spec_text("best-response", {"assume": assume}))

    def reset(self, seat: int, config: GameConfig) -> None:
        """Solve for the table (built from ``assume``), or check that it is the one solved (ValueError otherwise)."""
        if self._from_spec:
            self.solution = solved_for(config, seat, self.assume)
            return
        solution = self.solution
        assert solution is not None  # given when not built from ``assume``
        if seat != solution.seat or config != solution.config:
            raise UsageError(f"{self.name} was solved for seat {solution.seat} of {solution.config}, "
                             f"seated at {seat} of {config}")

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        """The solution's optimal action at ``view`` (deterministic: ``rng`` is not used)."""
        if self.solution is None:
            raise ValueError(f"{self.name}.act called before reset: nothing is solved yet")
        return self.solution.action(view)

    def observe(self, event: object) -> None:
        """Nothing to learn: the opponents' models are fixed."""
        return None
