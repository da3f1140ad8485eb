"""pomdp-py's POMCP, told that a finished round is absorbing with reward 0, that some rounds have known values, and
when the root's choice is settled."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pomdp_py
from pomdp_py.algorithms.pomcp import RootVNodeParticles

__all__ = ["RoundPOMCP", "SETTLE_CHUNK"]

SETTLE_CHUNK = 25  # simulations between two looks of the stopping rule


class RoundPOMCP(pomdp_py.POMCP):
    """``pomdp_py.POMCP`` for one round: simulations stop at its end, and a search may stop early.

    It ends a simulation at the round's end (pomdp-py runs every one for ``max_depth`` steps), its ``update`` leaves
    the root particles to the caller, and it may end a search early.

    ``agent``: the agent planned for (pomdp-py keeps its own private). ``leaf_value`` (a mid-round state -> its value
    in reward units, or None where unknown) ends a simulation that leaves the tree or reaches ``max_depth`` instead
    of a rollout or pomdp-py's 0. ``settle`` > 0 (with ``num_sims``): steps of up to ``SETTLE_CHUNK``
    simulations until the root's best action leads every other by ``settle`` standard errors, or ``num_sims``.
    """

    def __init__(self, agent: pomdp_py.Agent, leaf_value: Callable[[Any], float | None] | None = None,
                 settle: float = 0.0, **kwargs):
        self.budget = kwargs.get("num_sims", -1)
        self.settle = settle if settle > 0 and self.budget > 0 else 0.0
        if self.settle:  # the largest step up to SETTLE_CHUNK that divides the budget
            kwargs["num_sims"] = max(d for d in range(1, SETTLE_CHUNK + 1) if self.budget % d == 0)
        super().__init__(**kwargs)
        self.ld_agent, self.leaf_value = agent, leaf_value
        self._sims, self._seconds = 0, 0.0

    @property
    def last_num_sims(self) -> int:
        """Simulations of the last ``plan``."""
        return self._sims

    @property
    def last_planning_time(self) -> float:
        """Seconds of the last ``plan``."""
        return self._seconds

    def plan(self, agent: pomdp_py.Agent) -> pomdp_py.Action:
        """pomdp-py's plan; with ``settle``, repeated on the same tree until the root's choice is settled or the
        budget is spent."""
        if not self.settle:
            action = super().plan(agent)
            self._sims, self._seconds = super().last_num_sims, super().last_planning_time
            return action
        self._sims, self._seconds = 0, 0.0
        while True:
            action = super().plan(agent)
            self._sims += super().last_num_sims
            self._seconds += super().last_planning_time
            if self._sims >= self.budget or self._settled(agent.tree):
                return action

    def _settled(self, root) -> bool:
        """Whether the root's best action by value leads every other by ``settle`` standard errors of the
        difference of their means, bounding every return's variance by 1 (returns in [-1, 1])."""
        nodes = list(root.children.values())
        if any(node.num_visits == 0 for node in nodes):
            return False
        best = max(nodes, key=lambda node: node.value)
        return all(best.value - node.value >= self.settle * math.sqrt(1.0 / best.num_visits + 1.0 / node.num_visits)
                   for node in nodes if node is not best)

    def _simulate(self, state, history, root, parent, observation, depth):
        if state.terminal:
            return 0.0
        if self.leaf_value is not None and root is not None and depth >= self.max_depth:
            value = self.leaf_value(state)
            if value is not None:
                return value
        return super()._simulate(state, history, root, parent, observation, depth)

    def _rollout(self, state, history, root, depth):
        """``leaf_value(state)`` if given, else the rollout policy's moves until the round ends or ``max_depth``.

        The moves are ``rollout(state, None)``, the history not built (our ``PolicyModel`` reads none; a rollout
        policy that needs the history cannot be used with this class)."""
        if self.leaf_value is not None:
            value = self.leaf_value(state)
            if value is not None:
                return value
        rollout, sample, reward = self.rollout_policy.rollout, self.ld_agent.transition_model.sample, \
            self.ld_agent.reward_model.sample
        gamma, discount, total = self.discount_factor, 1.0, 0.0
        while depth <= self.max_depth and not state.terminal:
            action = rollout(state, None)
            nxt = sample(state, action)
            total += discount * reward(state, action, nxt)
            discount *= gamma
            state, depth = nxt, depth + 1
        return total

    def update(self, agent: pomdp_py.Agent, real_action, real_observation) -> None:
        """Keep the subtree below ``(real_action, real_observation)`` as the new root, like ``POMCP.update``.

        Like it, raises ``ValueError("Particle deprivation.")`` when that observation was never simulated. Unlike it,
        no particle reinvigoration (which deep-copies and prints): the caller redraws the root particles from the
        belief core (see ``reset_root``)."""
        tree = getattr(agent, "tree", None)
        child = None if tree is None or tree[real_action] is None else tree[real_action][real_observation]
        if child is None:
            raise ValueError("Particle deprivation.")
        agent.tree = RootVNodeParticles.from_vnode(child, agent.history)
