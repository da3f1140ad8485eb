"""Shared test helpers."""

from __future__ import annotations

import itertools

import numpy as np


def all_hands(num_dice: int, faces: int) -> np.ndarray:
    """Every face-count vector of ``num_dice`` dice (small cases only; tests use it as ground truth)."""
    rows = [
        np.bincount(combo, minlength=faces)
        for combo in itertools.combinations_with_replacement(range(faces), num_dice)
    ]
    return np.array(rows, dtype=np.int64).reshape(-1, faces)
