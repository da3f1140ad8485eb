"""Observation vectors and shaped rewards shared by the environments and the learning agents (numpy alone).

The observation vector, and the game's rewards with report 004's per-round shaping. Actions are numbered by
``ActionCoding``. Seats in observations are relative: position 0 is the observer, 1 the next seat, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game import PublicView, RoundEnd
from ..rules import ActionCoding, Bid, GameConfig
from ..validation import number

__all__ = ["Shaping", "REPORT_SHAPING", "NO_SHAPING", "observation_vector", "observation_size",
           "round_reward"]


def observation_size(config: GameConfig) -> int:
    """Length of ``observation_vector``: own hand (faces), dice per seat (players), and one entry per bid and
    seat (bids x players), then under ``palifico`` one entry: 1 in a palifico round."""
    return config.faces + config.num_players + ActionCoding(config).num_bids * config.num_players + config.palifico


def observation_vector(view: PublicView, hand: tuple[int, ...], seat: int, coding: ActionCoding) -> np.ndarray:
    """What ``seat`` sees on ``view``, as a float32 vector of length ``observation_size(config)``.

    Its hand's face counts, the dice of every seat (relative order, itself first), and this round's bids: entry
    ``(b, k)`` is 1 when bid number ``b`` was made by the player ``k`` seats after the observer; under ``palifico``,
    whether this is a palifico round."""
    config = view.config
    n = config.num_players
    out = np.zeros(observation_size(config), dtype=np.float32)
    out[:config.faces] = hand
    out[config.faces:config.faces + n] = np.roll(view.dice, -seat)
    bids = out[config.faces + n:config.faces + n + coding.num_bids * n].reshape(coding.num_bids, n)
    if config.palifico:
        out[-1] = float(config.palifico_round)
    for bidder, bid in view.history:
        bids[coding.index(bid), (bidder - seat) % n] = 1.0
    return out


@dataclass(frozen=True)
class Shaping:
    """Per-round reward shaping of report 004, scaled so that winning a game is +1.

    Report 004, section 3.1, divided by its 5000 for a game. Each reward is a float in [-1e6, 1e6], 0 for none,
    penalties negative. ``risk`` (>= 0, report 004's intermediate stage, section 4.3) multiplies ``bluff_called`` and
    ``wrong_call`` by ``1 + risk * quantity / dice on the table``.
    """

    bid_held: float = 0.0  # for each of one's bids that did not cost a die (raised over, or challenged and true)
    bluff_called: float = 0.0  # for one's bid challenged and false
    wrong_call: float = 0.0  # for one's false challenge
    right_call: float = 0.0  # for one's successful challenge
    risk: float = 0.0
    small_raise: float = 0.0  # for each raise of at most 2 in quantity over the standing bid (or opening at most 2)

    def __post_init__(self) -> None:
        for name in ("bid_held", "bluff_called", "wrong_call", "right_call", "small_raise"):
            number("Shaping", name, getattr(self, name), low=-1e6, high=1e6)
        number("Shaping", "risk", self.risk)


NO_SHAPING = Shaping()
REPORT_SHAPING = Shaping(bid_held=100 / 5000, bluff_called=-500 / 5000, wrong_call=-1000 / 5000,
                         right_call=500 / 5000)


def round_reward(end: RoundEnd, history: tuple[tuple[int, Bid], ...], seat: int, shaping: Shaping) -> float:
    """``seat``'s shaped reward for a round that ended with ``end`` after the bids ``history`` (the round's
    bids in order, as in a ``PublicView``)."""
    table = sum(end.dice_after) + 1
    weight = 1.0 + shaping.risk * end.bid.quantity / table
    reward = 0.0
    previous = 0
    for i, (bidder, bid) in enumerate(history):
        if bidder == seat:
            if shaping.small_raise and bid.quantity - previous <= 2:
                reward += shaping.small_raise
            called_false = i == len(history) - 1 and end.loser == seat
            reward += shaping.bluff_called * weight if called_false else shaping.bid_held
        previous = bid.quantity
    if end.caller == seat:
        reward += shaping.right_call if end.loser != seat else shaping.wrong_call * weight
    return reward
