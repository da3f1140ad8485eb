"""The exact game-level best response of one seat against opponents whose actions ignore their hands.

Such opponents' moves carry no information about their dice, and the responder's moves change nothing they
do, so for each responder hand a round is a Markov decision process over (standing bid, its bidder): the
only uncertainty is whether a challenged bid is true, a binomial over the other players' unseen dice.
Rounds are solved backward over the bids (vectorised over the responder's hands); their outcomes feed a
recursion over (dice per seat, opener), which only loses dice, and the responder maximises P(win the game).

Opponents are asked through the optional ``shared_probability(view, action)`` hook of
:class:`~ldpomdp.opponents.base.OpponentModel`, with a view whose history holds the standing bid only: a
model's distribution must depend on the view through its config, seat, dice, bid and bidder (Markov in the
standing bid, the same in every round), which holds for Random and Aggressive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

import numpy as np
from scipy.stats import binom

from ..belief import hand_support, shared_probability_of
from ..game import PlayerView, PublicView, player_name
from ..rules import (CHALLENGE, Action, Bid, GameConfig, legal_actions, match_matrix, match_probability,
                     next_active_seat, next_opener)

__all__ = ["FixedOpponentsSolution", "ResponderRound", "BestResponsePlayer", "solve_fixed_opponents",
           "MAX_ROUND_CELLS", "MAX_DICE_STATES"]

MAX_ROUND_CELLS = 20_000_000  # responder hands x bids x seats with dice, in one round's value table
MAX_DICE_STATES = 200_000  # dice-per-seat states the game recursion may visit
SUM_TOLERANCE = 1e-9  # how far a model's legal-action probabilities may sum from one


@lru_cache(maxsize=256)
def all_bids(config: GameConfig, table_dice: int) -> tuple[Bid, ...]:
    """Every bid that can stand with ``table_dice`` dice on the table, in rising (legal raise) order."""
    return tuple(Bid(q, f) for q in range(1, table_dice + 1) for f in config.bid_faces)


@lru_cache(maxsize=4096)
def _raise_rows(config: GameConfig, table_dice: int, bid: Bid | None) -> np.ndarray:
    """Indices into :func:`all_bids` of the legal raises over ``bid`` (None: the opening bids)."""
    index = {b: i for i, b in enumerate(all_bids(config, table_dice))}
    rows = np.array([index[a] for a in legal_actions(config, table_dice, bid) if a is not CHALLENGE], dtype=np.int64)
    rows.flags.writeable = False
    return rows


def true_probability(config: GameConfig, dice: tuple[int, ...], seat: int, hands: np.ndarray) -> np.ndarray:
    """(bids, hands): P(bid is true | the seat holds the hand): its own matching dice plus a binomial over
    everyone else's dice, each matching with :func:`~ldpomdp.rules.match_probability`."""
    bids = all_bids(config, sum(dice))
    faces = np.array([b.face for b in bids])
    own = (hands @ match_matrix(config))[:, faces - 1].T  # (bids, hands)
    quantity = np.array([b.quantity for b in bids])[:, None]
    p = np.array([match_probability(config, f) for f in faces])[:, None]
    return binom.sf(quantity - own - 1, sum(dice) - dice[seat], p)


def opponent_distribution(model: object, view: PublicView, rows: Mapping[Bid, int], size: int) -> np.ndarray:
    """(size + 1,): the model's probability of raising to each bid row, last entry = challenge.

    Raises ValueError naming the model when its answer depends on the hand here or the legal actions'
    probabilities do not sum to one."""
    name = player_name(model)
    out = np.zeros(size + 1)
    for action in view.legal_actions():
        p = shared_probability_of(model, view, action)
        if p is None:
            raise ValueError(
                f"opponent {name} (seat {view.seat}) acts on its hand over bid {view.bid} with dice {view.dice}: "
                f"the fixed-opponents best response needs hand-independent models (shared_probability not None)"
            )
        out[size if action is CHALLENGE else rows[action]] = p
    total = out.sum()
    if not (np.all(out >= 0.0) and abs(total - 1.0) <= SUM_TOLERANCE):
        raise ValueError(
            f"opponent {name} (seat {view.seat}): probabilities of the legal actions over bid {view.bid} with "
            f"dice {view.dice} sum to {total!r} (each must be >= 0, the sum 1)"
        )
    return out


@dataclass
class ResponderRound:
    """One round's solution for fixed dice: ``after[s][i, h]`` is the responder's game value when seat s
    has just bid ``bids[i]`` and the responder holds hand h; ``start[o]`` the value when seat o opens."""

    config: GameConfig
    seat: int
    dice: tuple[int, ...]
    bids: tuple[Bid, ...]
    hands: np.ndarray
    weights: np.ndarray
    challenge: dict[tuple[int, int], np.ndarray]  # (challenger, bidder) -> (bids, hands)
    after: dict[int, np.ndarray]
    start: dict[int, np.ndarray]

    def value(self, opener: int) -> float:
        """P(the responder wins the game) from this round when ``opener`` opens, averaged over its hands."""
        return float(self.weights @ self.start[opener])

    def action(self, hand: tuple[int, ...], bid: Bid | None, bidder: int | None) -> Action:
        """The optimal action for ``hand`` over ``bid`` by ``bidder`` (ties: challenge, then the lower bid)."""
        h = self._hand_row(hand)
        raises = _raise_rows(self.config, sum(self.dice), bid)
        raise_values = self.after[self.seat][raises, h]
        if bid is not None:
            stop = self.challenge[(self.seat, bidder)][self.bids.index(bid), h]
            if len(raises) == 0 or stop >= raise_values.max():
                return CHALLENGE
        return self.bids[int(raises[int(np.argmax(raise_values))])]

    def _hand_row(self, hand: tuple[int, ...]) -> int:
        """The row of ``hand`` in :attr:`hands` (hand_support's lexicographic order)."""
        matches = np.flatnonzero((self.hands == np.asarray(hand)).all(axis=1))
        if len(matches) != 1:
            raise ValueError(f"hand {hand} is not a hand of {self.dice[self.seat]} dice with {self.config.faces} faces")
        return int(matches[0])


class FixedOpponentsSolution:
    """The responder's maximal P(win the game) against hand-independent ``models`` (seat -> model, every
    other seat), solved lazily per dice state and cached; :meth:`action` plays it at any view."""

    def __init__(self, config: GameConfig, models: Mapping[int, object], seat: int = 0):
        if not isinstance(seat, int) or not 0 <= seat < config.num_players:
            raise ValueError(f"seat must be an int in 0..{config.num_players - 1}, got {seat!r}")
        wanted = set(range(config.num_players)) - {seat}
        if set(models) != wanted:
            raise ValueError(f"models must map every other seat {sorted(wanted)} to a model, "
                             f"got seats {sorted(models)}")
        states = math.prod(d + 1 for d in config.starting_dice)
        if states > MAX_DICE_STATES:
            raise ValueError(f"{states:,} dice states exceed MAX_DICE_STATES = {MAX_DICE_STATES:,}")
        own = config.starting_dice[seat]
        cells = (math.comb(own + config.faces - 1, config.faces - 1)
                 * len(config.bid_faces) * sum(config.starting_dice) * config.num_players)
        if cells > MAX_ROUND_CELLS:
            raise ValueError(f"the first round's table has {cells:,} cells (hands x bids x seats), more than "
                             f"MAX_ROUND_CELLS = {MAX_ROUND_CELLS:,}")
        self.config, self.seat, self.models = config, seat, dict(models)
        for s, model in self.models.items():
            model.reset(s, config)  # as play_game does, for models that read their seat or config
        self._rounds: dict[tuple[int, ...], ResponderRound] = {}

    def win_probability(self, dice: tuple[int, ...] | None = None, opener: int = 0) -> float:
        """P(the responder wins) from ``dice`` (default: the start) with ``opener`` opening, playing optimally."""
        dice = self.config.starting_dice if dice is None else tuple(int(d) for d in dice)
        if len(dice) != self.config.num_players or min(dice) < 0:
            raise ValueError(f"dice must list {self.config.num_players} counts >= 0, got {dice}")
        if dice[self.seat] == 0:
            return 0.0
        if sum(d > 0 for d in dice) == 1:
            return 1.0
        if not 0 <= opener < len(dice) or dice[opener] == 0:
            raise ValueError(f"opener must be a seat with dice in {dice}, got {opener!r}")
        return self.round(dice).value(opener)

    def action(self, view: PlayerView) -> Action:
        """The optimal action at ``view`` (the responder's seat, any reachable dice and standing bid)."""
        if view.seat != self.seat:
            raise ValueError(f"the view is seat {view.seat}'s, this solution plays seat {self.seat}")
        return self.round(tuple(view.dice)).action(view.hand, view.bid, view.bidder)

    def _outcome(self, dice: tuple[int, ...], loser: int, challenger: int) -> float:
        """The responder's game value after ``loser`` loses a die to ``challenger``'s challenge."""
        after = tuple(d - (s == loser) for s, d in enumerate(dice))
        if after[self.seat] == 0 or sum(d > 0 for d in after) == 1:
            return self.win_probability(after)
        return self.win_probability(after, next_opener(self.config, after, challenger, loser))

    def round(self, dice: tuple[int, ...]) -> ResponderRound:
        """The round solution for ``dice`` (the responder and one other seat at least hold dice)."""
        if dice not in self._rounds:
            self._rounds[dice] = self._solve_round(dice)
        return self._rounds[dice]

    def _solve_round(self, dice: tuple[int, ...]) -> ResponderRound:
        """Backward induction over the bids: every seat's value after its bid i needs only bids above i."""
        config, me = self.config, self.seat
        table = sum(dice)
        bids = all_bids(config, table)
        rows = {b: i for i, b in enumerate(bids)}
        n = len(bids)
        hands, weights = hand_support(dice[me], config.faces)
        hands = hands.astype(np.int64)
        active = [s for s in range(len(dice)) if dice[s] > 0]
        outcome = {(loser, c): self._outcome(dice, loser, c) for loser in active for c in active}
        truth = true_probability(config, dice, me, hands)
        challenge = {(c, s): truth * outcome[(c, c)] + (1.0 - truth) * outcome[(s, c)]
                     for c in active for s in active if c != s}
        nxt = {s: next_active_seat(dice, s) for s in active}
        moves = {s: np.array([opponent_distribution(self.models[nxt[s]], PublicView(config, nxt[s], dice, ((s, b),)),
                                                    rows, n) for b in bids])
                 for s in active if nxt[s] != me}
        after = {s: np.zeros((n, len(weights))) for s in active}
        for i in range(n - 1, -1, -1):
            raises = _raise_rows(config, table, bids[i])
            best_raise = after[me][raises].max(axis=0) if len(raises) else np.full(len(weights), -np.inf)
            for s in active:
                m = nxt[s]
                if m == me:
                    after[s][i] = np.maximum(challenge[(me, s)][i], best_raise)
                else:
                    p = moves[s][i]
                    after[s][i] = p[n] * challenge[(m, s)][i] + p[i + 1:n] @ after[m][i + 1:]
        start = {}
        for o in active:
            if o == me:
                start[o] = after[me][_raise_rows(config, table, None)].max(axis=0)
            else:
                p = opponent_distribution(self.models[o], PublicView(config, o, dice), rows, n)
                start[o] = p[:n] @ after[o]
        return ResponderRound(config, me, dice, bids, hands, weights, challenge, after, start)


class BestResponsePlayer:
    """Plays a :class:`FixedOpponentsSolution` at its seat (raises ValueError seated elsewhere)."""

    name = "best-response"

    def __init__(self, solution: FixedOpponentsSolution):
        self.solution = solution

    def reset(self, seat: int, config: GameConfig) -> None:
        if seat != self.solution.seat or config != self.solution.config:
            raise ValueError(f"{self.name} was solved for seat {self.solution.seat} of {self.solution.config}, "
                             f"seated at {seat} of {config}")

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        return self.solution.action(view)

    def observe(self, event: object) -> None:
        return None


def solve_fixed_opponents(config: GameConfig, models: Mapping[int, object], seat: int = 0) -> FixedOpponentsSolution:
    """Solve the game from the starting dice for every opener (every state below is solved on the way)."""
    solution = FixedOpponentsSolution(config, models, seat)
    for opener in range(config.num_players):
        solution.win_probability(opener=opener)
    return solution
