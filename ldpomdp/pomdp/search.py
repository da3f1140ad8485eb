"""pomdp-py's POMCP, told that a finished round is absorbing with reward 0."""

from __future__ import annotations

import pomdp_py
from pomdp_py.algorithms.pomcp import RootVNodeParticles

__all__ = ["RoundPOMCP"]


class RoundPOMCP(pomdp_py.POMCP):
    """:class:`pomdp_py.POMCP` that stops a simulation when the round is over, and whose ``update`` leaves
    the root particles to the caller.

    pomdp-py 1.3.5.1 runs every simulation and rollout for ``max_depth`` steps, with no terminal check;
    after the challenge our states are absorbing with reward 0, so those steps change no value and only cost
    time. ``agent`` must be the agent planned for (pomdp-py keeps its own reference private).
    """

    def __init__(self, agent: pomdp_py.Agent, **kwargs):
        super().__init__(**kwargs)
        self.ld_agent = agent

    def _simulate(self, state, history, root, parent, observation, depth):
        if state.terminal:
            return 0.0
        return super()._simulate(state, history, root, parent, observation, depth)

    def _rollout(self, state, history, root, depth):
        """The rollout policy's moves until the round ends or ``max_depth``: ``rollout(state, None)``, the history
        not built (our :class:`~ldpomdp.pomdp.models.PolicyModel` reads none; a rollout policy that needs the
        history cannot be used with this class)."""
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
        """Keep the subtree below ``(real_action, real_observation)`` as the new root, like POMCP.update, and
        raise its ``ValueError("Particle deprivation.")`` when that observation was never simulated. Unlike it,
        no particle reinvigoration (which deep-copies and prints): the caller redraws the root particles from
        the belief core (see :func:`~ldpomdp.pomdp.agent.reset_root`)."""
        tree = getattr(agent, "tree", None)
        child = None if tree is None or tree[real_action] is None else tree[real_action][real_observation]
        if child is None:
            raise ValueError("Particle deprivation.")
        agent.tree = RootVNodeParticles.from_vnode(child, agent.history)
