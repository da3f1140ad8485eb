"""Sequence-form linear program (Koller, Megiddo & von Stengel 1996) for one two-player round.

A realization plan x satisfies E x = e (an information set: own hand + public bid sequence). With the opener's
chance-weighted payoff matrix A, its maximin is max q_0 s.t. F^T q <= A^T x, E x = e, x >= 0, and the dual
multipliers of F^T q <= A^T x are the responder's equilibrium plan y. The matrices are scipy.sparse; HiGHS solves
the LP through ``scipy.optimize.linprog``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ...rules import GameConfig
from .states import RoundOutcome
from .tree import RoundTree, build_tree

__all__ = ["RoundSolution", "solve_round", "sequence_form", "behaviour_from_plan"]


def _sequence(tree: RoundTree, role: int, hand: np.ndarray, edge: np.ndarray) -> np.ndarray:
    """Column of (hand, edge) in role's plan; edge -1 means the empty sequence (column 0)."""
    n_edges = len(tree.role_edges[role])
    return np.where(edge >= 0, 1 + hand * n_edges + tree.edge_local[np.maximum(edge, 0)], 0)


def _constraints(tree: RoundTree, role: int) -> sp.csr_matrix:
    """E (or F): row 0 fixes the empty sequence to 1; one row per (hand, node where ``role`` acts)."""
    num_hands = len(tree.hands[role])
    nodes = np.flatnonzero(tree.node_depth % 2 == role)
    edges = tree.role_edges[role]
    node_row = np.full(tree.num_nodes, -1)
    node_row[nodes] = np.arange(len(nodes))
    h = np.arange(num_hands)[:, None]
    rows_children = 1 + h * len(nodes) + node_row[tree.edge_node[edges]][None, :]
    cols_children = _sequence(tree, role, h, edges[None, :])
    parent = tree.own_parent_edge[nodes]
    rows_parent = 1 + h * len(nodes) + np.arange(len(nodes))[None, :]
    cols_parent = _sequence(tree, role, h, np.broadcast_to(parent, rows_parent.shape))
    rows = np.concatenate([[0], rows_children.ravel(), rows_parent.ravel()])
    cols = np.concatenate([[0], cols_children.ravel(), cols_parent.ravel()])
    vals = np.concatenate([[1.0], np.ones(rows_children.size), -np.ones(rows_parent.size)])
    shape = (1 + num_hands * len(nodes), 1 + num_hands * len(edges))
    return sp.csr_matrix((vals, (rows, cols)), shape=shape)


def _payoff(tree: RoundTree, outcome: RoundOutcome | np.ndarray | None = None) -> sp.csr_matrix:
    """A: chance-weighted payoff to the opener for each pair of sequences ending in a terminal.

    With ``outcome`` (a ``RoundOutcome`` or today's rules' ``outcome[loser, challenger]``): the opener's value of each
    end, in place of ``RoundTree.opener_payoff``."""
    term = tree.terminal_edges
    bid_edge = tree.node_parent_edge[tree.edge_node[term]]  # the challenged bid, made by the other role
    by_opener = tree.edge_actor[term] == 0
    last = [np.where(by_opener, term, bid_edge), np.where(by_opener, bid_edge, term)]  # each role's last action
    h0 = np.arange(len(tree.hands[0]))[:, None, None]
    h1 = np.arange(len(tree.hands[1]))[None, :, None]
    rows = _sequence(tree, 0, h0, last[0][None, None, :])
    cols = _sequence(tree, 1, h1, last[1][None, None, :])
    chance = tree.hand_probs[0][:, None, None] * tree.hand_probs[1][None, :, None]
    payoff = tree.opener_payoff if outcome is None else tree.outcome_payoff(RoundOutcome.of(outcome, sum(tree.dice)))
    vals = chance * payoff
    shape = (1 + len(tree.hands[0]) * len(tree.role_edges[0]), 1 + len(tree.hands[1]) * len(tree.role_edges[1]))
    rows, cols = np.broadcast_arrays(rows, cols)
    return sp.csr_matrix((vals.ravel(), (rows.ravel(), cols.ravel())), shape=shape)


def sequence_form(tree: RoundTree, outcome: RoundOutcome | np.ndarray | None = None
                  ) -> tuple[sp.csr_matrix, sp.csr_matrix, sp.csr_matrix]:
    """(E, F, A) of the round: the opener's and responder's constraints and the opener's payoff (``outcome``:
    see ``solve_round``)."""
    return _constraints(tree, 0), _constraints(tree, 1), _payoff(tree, outcome)


def behaviour_from_plan(tree: RoundTree, role: int, plan: np.ndarray) -> np.ndarray:
    """(H_role, role's edges) action probabilities from a realization plan.

    Information sets the plan never reaches get the uniform distribution (any choice is optimal there).
    """
    plan = np.maximum(np.asarray(plan, dtype=np.float64), 0.0)
    edges = tree.role_edges[role]
    num_hands = len(tree.hands[role])
    h = np.arange(num_hands)[:, None]
    own = plan[_sequence(tree, role, h, edges[None, :])]
    # normalise per information set: edges of one node are contiguous within role_edges
    node = tree.edge_node[edges]
    starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
    total = np.add.reduceat(own, starts, axis=1)
    width = np.diff(np.r_[starts, len(edges)])
    total_e = np.repeat(total, width, axis=1)
    uniform = np.repeat(1.0 / width, width)[None, :]
    return np.where(total_e > 1e-12, own / np.where(total_e > 0, total_e, 1.0), uniform)


@dataclass(frozen=True)
class RoundSolution:
    """An equilibrium of one round: the opener's value and both players' strategies.

    ``behaviour[r][h, k]`` is the probability that role r (0 = opener) with hand ``tree.hands[r][h]``
    takes edge ``tree.role_edges[r][k]``; ``plans`` are the realization plans the LP returned.
    """

    tree: RoundTree
    value: float  # expected payoff to the opener, in [-1, 1]
    plans: tuple[np.ndarray, np.ndarray]
    behaviour: tuple[np.ndarray, np.ndarray]
    solve_seconds: float
    lp_shape: tuple[int, int]  # (variables, constraints)

    @property
    def opener_win_probability(self) -> float:
        return (self.value + 1.0) / 2.0

    def probabilities(self, role: int, hand_rows: np.ndarray, node: int) -> np.ndarray:
        """(len(hand_rows), actions of ``node``) equilibrium probabilities of ``role`` at ``node``."""
        tree = self.tree
        a, b = tree.edge_start[node], tree.edge_start[node + 1]
        local = tree.edge_local[a:b]
        return self.behaviour[role][np.asarray(hand_rows)[:, None], local[None, :]]


def solve_round(config: GameConfig, dice: tuple[int, int] | None = None,
                outcome: RoundOutcome | np.ndarray | None = None) -> RoundSolution:
    """Solve one round exactly; ``dice`` = (opener's dice, responder's dice), default the starting dice.

    ``outcome`` (a ``RoundOutcome``, or ``outcome[loser, challenger]`` under today's rules, roles 0 = opener), when
    given, is the opener's value of each way the round ends (e.g. game values of the next dice state) in place of the
    dice it wins or loses."""
    start = time.perf_counter()
    tree = build_tree(config, dice)
    E, F, A = sequence_form(tree, outcome)
    n_x, m_q = E.shape[1], F.shape[0]
    cost = np.zeros(n_x + m_q)
    cost[n_x] = -1.0  # maximise q_0 (f = unit vector at the empty sequence)
    a_ub = sp.hstack([-A.T, F.T], format="csr")
    a_eq = sp.hstack([E, sp.csr_matrix((E.shape[0], m_q))], format="csr")
    b_eq = np.zeros(E.shape[0])
    b_eq[0] = 1.0
    bounds = [(0, None)] * n_x + [(None, None)] * m_q
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]), A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on the round with dice {tree.dice}: {res.message}")
    x = res.x[:n_x]
    y = -res.ineqlin.marginals
    plans = (x, y)
    behaviour = (behaviour_from_plan(tree, 0, x), behaviour_from_plan(tree, 1, y))
    return RoundSolution(
        tree=tree,
        value=float(-res.fun),
        plans=plans,
        behaviour=behaviour,
        solve_seconds=time.perf_counter() - start,
        lp_shape=(n_x + m_q, a_ub.shape[0] + a_eq.shape[0]),
    )
