"""Minimax of a zero-sum matrix game by linear programming (HiGHS)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

__all__ = ["solve_matrix_game"]


def solve_matrix_game(payoff: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Minimax of a zero-sum matrix game (row player maximises): (value, row mix, column mix)."""
    payoff = np.asarray(payoff, dtype=np.float64)
    n_rows, n_cols = payoff.shape
    cost = np.zeros(n_rows + 1)
    cost[-1] = -1.0  # maximise v
    a_ub = np.hstack([-payoff.T, np.ones((n_cols, 1))])  # v <= row mix . column j, for every j
    a_eq = np.concatenate([np.ones(n_rows), [0.0]])[None, :]
    bounds = [(0, None)] * n_rows + [(None, None)]
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(n_cols), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on a {n_rows}x{n_cols} matrix game: {res.message}")
    rows = np.maximum(res.x[:-1], 0.0)
    cols = np.maximum(-res.ineqlin.marginals, 0.0)
    return float(-res.fun), rows / rows.sum(), cols / cols.sum()
