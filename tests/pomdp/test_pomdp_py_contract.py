"""What ``RoundPOMCP`` takes from pomdp-py's internals, as checked on pomdp-py 1.3.5.1
(pyproject.toml pins ``==1.3.5.1``): the private ``POMCP._simulate`` and ``POMCP._rollout`` it overrides,
``RootVNodeParticles.from_vnode`` its ``update`` calls, and ``plan`` going on with the agent's tree (its stopping
rule plans in steps). A new pomdp-py that changes one of them fails here."""

from __future__ import annotations

import inspect

import pomdp_py
from pomdp_py.algorithms.pomcp import RootVNodeParticles

from ldpomdp import Bid, GameConfig, OneThirdRule, PlayerView, TableBelief
from ldpomdp.pomdp import make_agent
from ldpomdp.pomdp.search import RoundPOMCP

RECHECK = ("re-read pomdp-py's po_uct.pyx / pomcp.pyx: ldpomdp.pomdp.search.RoundPOMCP overrides _simulate (a "
           "terminal check before the search step) and replaces _rollout (no history built), both written for "
           "pomdp-py 1.3.5.1; update them and the pin in pyproject.toml together")
CHECKED = {  # pomdp-py 1.3.5.1's signatures
    "_simulate": "(self, state, history, root, parent, observation, depth)",
    "_rollout": "(self, state, history, root, depth)",
}


def test_pomdp_py_private_methods_that_round_pomcp_overrides_keep_their_signatures():
    for name, signature in CHECKED.items():
        assert str(inspect.signature(getattr(pomdp_py.POMCP, name))) == signature, f"pomdp_py.POMCP.{name}: {RECHECK}"
        assert str(inspect.signature(getattr(RoundPOMCP, name))) == signature, f"RoundPOMCP.{name}: {RECHECK}"
        assert name in vars(RoundPOMCP)


def test_the_root_rebuild_round_pomcp_uses_keeps_its_signature():
    assert str(inspect.signature(RootVNodeParticles.from_vnode)) == "(vnode, history)", RECHECK


def test_pomdp_py_s_plan_goes_on_with_the_agent_s_tree():
    """RoundPOMCP's stopping rule plans in steps on one tree: pomdp-py's plan keeps the agent's tree between calls
    (its first simulation creates the root; every later one visits a root action)."""
    config = GameConfig(num_players=2, dice=3, bids="sixes")
    view = PlayerView(config, 0, (3, 3), ((1, Bid(1, 6)),), 0, hand=(1, 1, 0, 0, 0, 1))
    belief = TableBelief(config, 0, (3, 3), {1: OneThirdRule()}, n_particles=200, rng=0)
    agent = make_agent(config, 0, {1: OneThirdRule()}, belief, view, n_root=100, rng=0)
    planner = pomdp_py.POMCP(max_depth=4, num_sims=30, planning_time=-1, discount_factor=1.0,
                             rollout_policy=agent.policy_model, show_progress=False)
    for _ in range(2):
        planner.plan(agent)
    assert sum(node.num_visits for node in agent.tree.children.values()) == 59, RECHECK
