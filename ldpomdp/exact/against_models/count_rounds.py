"""Exact rounds of the sixes game against opponents that act on at most one count of their hand.

A round's public history is fixed by its opener and the standing quantity q. Against opponents acting on their count
c of the bid face (``deciding_face``) or on nothing (``shared_probability``), each opponent's c has a posterior
(binomial prior times its probabilities of the raises it made), independent of the others', so their sum is a
convolution; backward induction over q, vectorised over the responder's own count, gives its best reply (or a
policy's value) in units unnormalised by the probability of reaching q, which every action at q shares.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...game import ActionTaken, PlayerView, PublicView, RoundStart, player_name
from ...hands import count_hands, count_prior
from ...hooks import deciding_face_of, shared_probability_of, sum_problem
from ...opponent import checked_probabilities
from ...rules import CHALLENGE, Action, Bid, GameConfig, match_matrix, matching_count, minimal_raises

__all__ = ["CountRound", "HandDependentModelError", "count_probabilities", "solve_count_round", "PolicyDecisions",
           "evaluated_through"]

Outcome = Mapping[tuple[int, int], float]  # (loser, challenger) -> the responder's game value after that challenge


class HandDependentModelError(ValueError):
    """An opponent acts on more of its hand than an exact solver can follow here."""


def count_probabilities(model: Any, view: PublicView, action: Action) -> np.ndarray:
    """A model's probability of ``action`` per count c of the view's seat's dice matching the bid face F.

    Shaped (view's seat's dice + 1,): P(``action`` | c of the seat's dice match F), for a model that is
    hand-independent here (``shared_probability``) or decides by its count of F (``deciding_face`` = F).

    Raises ``HandDependentModelError`` naming the model otherwise."""
    config, dice = view.config, view.dice[view.seat]
    shared = shared_probability_of(model, view, action)
    if shared is not None:
        return np.full(dice + 1, float(shared))
    face = config.faces
    if deciding_face_of(model, view) != face:
        raise HandDependentModelError(
            f"model {player_name(model)} (seat {view.seat}) acts on more of its hand than its count of dice "
            f"matching {face} over bid {view.bid} with dice {view.dice}: the exact best response needs models that "
            f"ignore their hand (shared_probability) or decide by that count (deciding_face {face})"
        )
    hands = count_hands(dice, face, config)
    return checked_probabilities(model, model.action_probabilities(hands, view, action), dice + 1)


def _chain(config: GameConfig, order: tuple[int, ...], table: int) -> tuple[tuple[int, Bid], ...]:
    """Every bid of a round opened by ``order[0]`` with ``table`` dice, in order: (bidder, bid) pairs."""
    history, bid = [], None
    for q in range(table):
        (bid,) = minimal_raises(config, table, bid)
        history.append((order[q % len(order)], bid))
    return tuple(history)


def _convolve_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise convolution: (Q, m) and (Q, n) -> (Q, m + n - 1)."""
    if a.shape[1] > b.shape[1]:
        a, b = b, a
    out = np.zeros((a.shape[0], a.shape[1] + b.shape[1] - 1))
    for c in range(a.shape[1]):
        out[:, c : c + b.shape[1]] += a[:, c : c + 1] * b
    return out


def evaluated_through(player: Any) -> str | None:
    """How a player's exact value is computed: "model" (it has ``action_probabilities``), "act" (it declares
    ``deterministic = True``), or None (it cannot be)."""
    if callable(getattr(player, "action_probabilities", None)):
        return "model"
    return "act" if getattr(player, "deterministic", False) else None


class PolicyDecisions:
    """A player's P(challenge | own count c0) at each of its turns in a chain, for exact evaluation.

    An opponent model (with ``action_probabilities``) is asked through ``count_probabilities``; any other
    player must declare ``deterministic = True`` (its ``act`` is a function of the events and the view), is walked
    through the round's events and asked ``act`` with one hand per count, and must answer alike for a second hand
    of the same count (else ValueError). Exact for players that remember nothing across rounds and act on their
    hand only through its count."""

    def __init__(self, player: Any, config: GameConfig, seat: int):
        self.through = evaluated_through(player)
        if self.through is None:
            raise ValueError(f"{player_name(player)} has no action_probabilities and does not declare "
                             f"deterministic = True: its exact value cannot be computed")
        self.player, self.config, self.seat = player, config, seat
        player.reset(seat, config)
        self._rng = np.random.default_rng(0)  # handed to ``act``; a deterministic player never draws from it

    def _two_hands(self, dice: int) -> tuple[np.ndarray, np.ndarray]:
        """Two hands per count c0 = 0 .. ``dice``: the unmatched dice on the first, then on the last face that
        matches neither the bid face nor the wild face (the same hand twice when only one such face exists)."""
        first = np.asarray(count_hands(dice, self.config.faces, self.config))
        blank = np.flatnonzero(match_matrix(self.config)[:, self.config.faces - 1] == 0)
        second = first.copy()
        if blank.size > 1:
            second[:, blank[-1]], second[:, blank[0]] = first[:, blank[0]], 0
        return first, second

    def challenge_probabilities(
        self, dice: tuple[int, ...], history: tuple[tuple[int, Bid], ...], actors: list[int]
    ) -> np.ndarray:
        """(len(actors), dice[seat] + 1): P(challenge | c0) when the first q bids of ``history`` stand and
        ``actors[q]`` is the player (rows of other seats' turns are 0)."""
        seat, config = self.seat, self.config
        out = np.zeros((len(actors), dice[seat] + 1))
        model = self.through == "model"
        if not model:
            self.player.observe(RoundStart(0, dice, actors[0]))
            first, second = self._two_hands(dice[seat])
        for q, actor in enumerate(actors):
            view = PublicView(config, actor, dice, history[:q])
            if actor == seat and q > 0:
                if model:
                    out[q] = count_probabilities(self.player, view, CHALLENGE)
                else:
                    answers = [[self.player.act(PlayerView(config, seat, dice, history[:q], hand=tuple(h)), self._rng)
                                is CHALLENGE for h in hands.tolist()] for hands in (first, second)]
                    if answers[0] != answers[1]:
                        raise ValueError(f"{player_name(self.player)} acts on more of its hand than its count of dice "
                                         f"matching {config.faces} over bid {view.bid}: no exact evaluation")
                    out[q] = answers[0]
            if q < len(history) and not model:
                self.player.observe(ActionTaken(actor, history[q][1], view))
        return out


@dataclass
class CountRound:
    """One solved sixes-game round for fixed dice: the responder's values and challenges per opener and count.

    ``weights[c0]`` P(the responder's count is c0), ``start[o][c0]`` its game value when seat o opens,
    ``challenge[o][q, c0]`` whether it challenges bid q (0 where it is not its turn), ``values[o][q, c0]`` its game
    value facing bid q given that q was reached (float32; NaN where it is not its turn or the models never reach q)."""

    config: GameConfig
    seat: int
    dice: tuple[int, ...]
    weights: np.ndarray
    start: dict[int, np.ndarray]
    challenge: dict[int, np.ndarray]
    values: dict[int, np.ndarray]

    def value(self, opener: int) -> float:
        """P(the responder wins the game) from this round when ``opener`` opens, averaged over its counts."""
        return float(self.weights @ self.start[opener])

    def action(self, hand: tuple[int, ...], bid: Bid | None, bidder: int | None) -> Action:
        """The solved action for ``hand`` over ``bid`` by ``bidder``: the minimal raise or the challenge.

        A challenge chance above one half counts as a challenge (the solver's own decisions are 0 or 1). Ties
        challenge; so does a history the models give probability 0 (an opponent doing what its model never does),
        where every action's value is 0. A ValueError when ``bid`` is given without its ``bidder``."""
        table = sum(self.dice)
        q = 0 if bid is None else bid.quantity
        raises = minimal_raises(self.config, table, bid)
        if bid is None:
            return raises[0]
        if bidder is None:
            raise ValueError(f"CountRound.action: the bid {bid} needs its bidder's seat")
        active = [s for s, d in enumerate(self.dice) if d > 0]
        opener = active[(active.index(bidder) - (q - 1)) % len(active)]
        c0 = int(matching_count(tuple(hand), self.config.faces, self.config))
        if not raises or self.challenge[opener][q, c0] > 0.5:
            return CHALLENGE
        return raises[0]


def solve_count_round(
    config: GameConfig, seat: int, dice: tuple[int, ...], models: Mapping[int, Any], outcome: Outcome,
    policy: PolicyDecisions | None = None,
) -> CountRound:
    """The responder's best reply (or ``policy``'s value) in the sixes-game round at ``dice``, every opener.

    Args:
        config: the game's rules (the sixes game).
        seat: the responder's seat.
        dice: every seat's dice in this round (0: out).
        models: the opponent model of every other active seat, keyed by seat.
        outcome: (loser, challenger) -> the responder's game value after that challenge.
        policy: a player's challenge decisions to evaluate instead of the best reply (None: best reply).

    Returns:
        The ``CountRound``: per opener, the responder's values and challenge decisions per own count.

    Raises:
        HandDependentModelError: an opponent's model acts on more of its hand than its count of the bid face.
        ValueError: an opponent's action probabilities do not sum to 1 over its legal moves, or ``policy``'s
            player acts on more of its hand than its count.
    """
    active = tuple(s for s in range(len(dice)) if dice[s] > 0)
    a, table, mine = len(active), sum(dice), dice[seat]
    need = np.arange(mine + 1)  # c0
    start, challenge, values = {}, {}, {}
    for o in active:
        i = active.index(o)
        order = active[i:] + active[:i]
        history = _chain(config, order, table)
        actor = [order[q % a] for q in range(table + 1)]  # who acts facing bid q (q = 0: the opener)
        groups = []
        for k in (s for s in order if s != seat):
            raise_p, challenge_p = np.ones((table + 1, dice[k] + 1)), np.ones((table + 1, dice[k] + 1))
            for q in (q for q in range(table + 1) if actor[q] == k):
                view = PublicView(config, k, dice, history[:q])
                probs = {move: count_probabilities(models[k], view, move) for move in view.legal_actions()}
                problem = sum_problem(count_hands(dice[k], config.faces, config), probs)
                if problem:
                    raise ValueError(f"opponent {player_name(models[k])} (seat {k}) over bid {view.bid} with dice "
                                     f"{dice}: its probability {problem}")
                raise_p[q] = challenge_p[q] = 0.0  # an illegal move keeps probability 0
                for move, p in probs.items():
                    (challenge_p if move is CHALLENGE else raise_p)[q] = p
            reach = count_prior(dice[k], config) * np.vstack([np.ones(dice[k] + 1), np.cumprod(raise_p[:-1], axis=0)])
            groups.append(reach * np.where(np.array(actor)[:, None] == k, challenge_p, 1.0))
        g = groups[0]
        for other in groups[1:]:
            g = _convolve_rows(g, other)
        tail = np.concatenate([np.cumsum(g[:, ::-1], axis=1)[:, ::-1], np.zeros((table + 1, 1))], axis=1)
        rows = np.arange(table + 1)[:, None]
        true_mass = tail[rows, np.clip(rows - need[None, :], 0, tail.shape[1] - 1)]
        false_mass = tail[:, :1] - true_mass
        decisions = np.zeros((table + 1, mine + 1))
        chosen = None if policy is None else policy.challenge_probabilities(dice, history, actor)
        value = np.zeros(mine + 1)
        reached = np.full((table + 1, mine + 1), np.nan, dtype=np.float32)
        for q in range(table, -1, -1):
            challenger, bidder = actor[q], (order[(q - 1) % a] if q else None)
            stop = None if bidder is None else (true_mass[q] * outcome[(challenger, challenger)]
                                        + false_mass[q] * outcome[(bidder, challenger)])
            go = value if q < table else None
            if challenger != seat:
                value = np.asarray((0.0 if stop is None else stop) + (0.0 if go is None else go))
                continue
            if stop is None or go is None:  # one legal move: the opening bid, or the challenge of the top bid
                decisions[q] = 0.0 if stop is None else 1.0
            elif chosen is None:
                decisions[q] = stop >= go  # ties: challenge
            else:
                decisions[q] = chosen[q]
            value = (decisions[q] * (0.0 if stop is None else stop)
                     + (1.0 - decisions[q]) * (0.0 if go is None else go))
            if tail[q, 0] > 0.0:  # the mass of the models' moves reaching q: every unit above is unnormalised by it
                reached[q] = value / tail[q, 0]
        start[o], challenge[o], values[o] = value, decisions, reached
    return CountRound(config, seat, dice, count_prior(mine, config), start, challenge, values)
