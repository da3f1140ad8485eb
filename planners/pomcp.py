"""POMCP (pomdp-py) over the one-round POMDP of :mod:`ldpomdp.pomdp`, re-planned at every decision with
root particles drawn from the belief core."""

from __future__ import annotations

import math

import numpy as np
import pomdp_py

from ldpomdp.game import ActionTaken, Event, PlayerView, RoundStart
from ldpomdp.pomdp import ROLLOUTS, LDAction, LDObservation, RoundPOMCP, make_agent, reset_root
from ldpomdp.rules import Action, is_legal
from ldpomdp.validation import int_at_least

from ._common import BeliefPlayer

__all__ = ["POMCPPlanner"]


class POMCPPlanner(BeliefPlayer):
    """POMCP player. Search budget: ``num_sims`` per decision, or ``planning_time`` seconds if given.

    Options: ``max_depth`` (planner steps simulated per search, the round's end included),
    ``exploration_const`` (UCB1; rewards are in [-1, 1]), ``rollout`` ("expected-count" or "one-third"),
    ``n_root`` root particles drawn jointly from the belief (default ``num_sims`` within [200, 2000]), and the
    belief options of :class:`~planners._common.BeliefPlayer`. Between two of its decisions in a round it
    keeps the search tree below what happened (:meth:`RoundPOMCP.update`); if that observation was never
    simulated (particle deprivation) it starts a new tree. Either way the root particles are redrawn from the belief.
    ``deprivations`` counts those rebuilds.
    """

    name = "pomcp"

    def __init__(
        self, num_sims: int = 2000, planning_time: float | None = None, max_depth: int = 12,
        exploration_const: float = 1.0, rollout: str = "expected-count", n_root: int | None = None,
        belief: str = "particles", n_particles: int = 10_000, injection: float = 0.0, refresh: float = 0.0,
        assume: str = "one-third", seed: int | None = None, name: str | None = None,
    ):
        super().__init__(belief, n_particles, injection, refresh, assume, seed, name)
        if rollout not in ROLLOUTS:
            raise ValueError(f"POMCPPlanner.rollout must be one of {ROLLOUTS}, got {rollout!r}")
        if planning_time is None:
            num_sims = int_at_least("POMCPPlanner", "num_sims", num_sims, 1)
        if planning_time is not None and not (isinstance(planning_time, (int, float)) and planning_time > 0):
            raise ValueError(f"POMCPPlanner.planning_time must be a positive number of seconds, got {planning_time!r}")
        max_depth = int_at_least("POMCPPlanner", "max_depth", max_depth, 1)
        if not (isinstance(exploration_const, (int, float)) and math.isfinite(exploration_const) and exploration_const >= 0):
            raise ValueError(f"POMCPPlanner.exploration_const must be a number >= 0, got {exploration_const!r}")
        self.num_sims, self.planning_time, self.max_depth = num_sims, planning_time, max_depth
        self.exploration_const, self.rollout = float(exploration_const), rollout
        if n_root is not None:
            n_root = int_at_least("POMCPPlanner", "n_root", n_root, 1)
        self.n_root = n_root if n_root is not None else min(max(num_sims, 200), 2000)
        self.deprivations = self.decisions = self.simulations = 0
        self.planning_seconds = 0.0
        self._new_round()

    def _new_round(self) -> None:
        self.agent: pomdp_py.Agent | None = None
        self.planner: pomdp_py.POMCP | None = None
        self._last: LDAction | None = None
        self._seen: list[tuple[int, Action]] = []

    def _make_planner(self) -> pomdp_py.POMCP:
        timed = self.planning_time is not None
        return RoundPOMCP(
            self.agent, max_depth=self.max_depth, planning_time=self.planning_time if timed else -1,
            num_sims=-1 if timed else self.num_sims, discount_factor=1.0, exploration_const=self.exploration_const,
            rollout_policy=self.agent.policy_model, show_progress=False,
        )

    def _advance(self, view: PlayerView) -> None:
        """Move the agent to this decision: history, tree (or a fresh one on deprivation), root particles."""
        observation = LDObservation(tuple(self._seen))
        self.agent.update_history(self._last, observation)
        try:
            self.planner.update(self.agent, self._last, observation)
        except ValueError as exc:
            if "deprivation" not in str(exc).lower():
                raise
            self.deprivations += 1
            self.agent.tree = None
        reset_root(self.agent, view, self.belief, self.n_root, self.rng, self.rollout)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        if self.agent is None:
            self.agent = make_agent(
                view.config, self.seat, self.belief.models, self.belief, view, self.n_root, self.rollout, self.rng
            )
            self.planner = self._make_planner()
        else:
            self._advance(view)
        action = self.planner.plan(self.agent).move
        self.decisions += 1
        self.simulations += self.planner.last_num_sims
        self.planning_seconds += self.planner.last_planning_time
        if not is_legal(view.config, view.table_dice, view.bid, action):  # a bug in the domain, not the player
            raise RuntimeError(f"POMCPPlanner chose illegal {action!r} over {view.bid}")
        return action

    def observe(self, event: Event) -> None:
        super().observe(event)
        if isinstance(event, RoundStart):
            self._new_round()
        elif isinstance(event, ActionTaken):
            if event.seat == self.seat:
                self._last, self._seen = LDAction(event.action), []
            else:
                self._seen.append((event.seat, event.action))
