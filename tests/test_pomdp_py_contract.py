"""What :class:`~ldpomdp.pomdp.search.RoundPOMCP` takes from pomdp-py's internals, as checked on pomdp-py 1.3.5.1
(pyproject.toml pins ``==1.3.5.1``): the private ``POMCP._simulate`` and ``POMCP._rollout`` it overrides and
``RootVNodeParticles.from_vnode`` its ``update`` calls. A new pomdp-py that changes one of them fails here."""

from __future__ import annotations

import inspect

import pomdp_py
from pomdp_py.algorithms.pomcp import RootVNodeParticles

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
