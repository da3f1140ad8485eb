"""The exact game-level best response of one seat against fixed opponent models, and the exact value of a policy.

Full game: opponents whose moves ignore their hands; per responder hand a round is then an MDP over (standing bid, its
bidder), solved backward over the bids. Sixes game: also opponents acting on their count of the bid face
(``count_rounds``). Rounds are solved fewest dice first and feed the game over (dice per seat, opener). Exact for models
that depend only on the config, their seat, the dice and the round's public history (full game: the standing bid and its
bidder), with no memory of earlier rounds (the solver never calls ``observe``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...bid_probability import raise_true_probabilities
from ...caches import memo
from ...errors import UsageError
from ...game import Player, PlayerView, PublicView, player_name
from ...hands import hand_support
from ...hooks import shared_probability_of
from ...round_end import next_active_seat, next_opener
from ...rules import CHALLENGE, Action, Bid, GameConfig, legal_actions
from ...validation import (
    SUM_TOLERANCE,  # one tolerance: a model passing check_opponent passes here
    int_at_least,
)
from .count_rounds import CountRound, HandDependentModelError, PolicyDecisions, solve_count_round

__all__ = ["FixedOpponentsSolution", "ResponderRound", "solve_fixed_opponents",
           "evaluate_player", "solved_for", "round_outcomes", "SolveWork", "solve_work",
           "MAX_DICE_STATES", "MAX_MODEL_CALLS", "MAX_TABLE_CELLS", "MAX_BACKUP_STEPS", "all_bids", "raise_rows",
           "challenge_value", "opponent_distribution"]

OWNER = "FixedOpponentsSolution"
MAX_DICE_STATES = 200_000  # dice-per-seat vectors up to the starting dice (checked before they are listed)
MAX_MODEL_CALLS = 10_000_000  # shared_probability calls over every round the game can reach (Python time)
MAX_TABLE_CELLS = 50_000_000  # float cells of the rounds' tables (bids x hands x (seats + 1)): memory, 8 bytes each
MAX_BACKUP_STEPS = 2_000_000_000  # multiply-adds of the backward inductions over the bids (numpy time)


@dataclass(frozen=True)
class SolveWork:
    """The work of solving every round the game can reach from some dice (upper bounds, summed over them)."""

    states: int
    model_calls: int
    table_cells: int
    backup_steps: int


def solve_work(config: GameConfig, seat: int) -> SolveWork:
    """The work of solving every round reachable from the starting dice for the responder at ``seat``, summed.

    A UsageError when the dice states exceed ``MAX_DICE_STATES``. Full game, per round with n bids, H responder hands
    and a seats holding dice: (a - 1) n (n + 3) / 2 model calls (one per legal action over every bid and opening of each
    opponent), n H (a + 1) table cells (every seat's values while it is solved, then the responder's values and P(bid
    true) kept in the cache) and a n (n - 1) H / 2 backup steps. Sixes game, with T dice on the table, S of them the
    opponents', D the responder's and m the most of one opponent when there are several (else 0): 2 T (a - 1) model
    calls (one per legal action of each opponent's turn over every opener), a (T + 1) (D + 1) table cells (its
    decisions, kept) and a (T + 1) ((S + 1) (m + 1) + D + 1) backup steps (convolutions of the opponents' counts, then
    the induction)."""
    dice, seat = config.starting_dice, _seat_index("solve_work", "seat", seat, config.num_players)
    count = math.prod(d + 1 for d in dice)
    if count > MAX_DICE_STATES:
        raise UsageError(f"{OWNER}: {count:,} dice states below {dice} exceed MAX_DICE_STATES = {MAX_DICE_STATES:,}")
    grid = np.indices(tuple(d + 1 for d in dice)).reshape(len(dice), -1).T
    active = (grid > 0).sum(axis=1)
    live = (grid[:, seat] > 0) & (active > 1)  # the rounds the game can reach (see _states)
    grid, a = grid[live], active[live].astype(float)
    table = grid.sum(axis=1).astype(float)
    if config.bids == "sixes":
        mine = grid[:, seat].astype(float)
        others = np.delete(grid, seat, axis=1)
        most = np.where(a > 2, others.max(axis=1, initial=0), 0).astype(float)
        theirs = table - mine
        return SolveWork(len(grid), int((2 * table * (a - 1)).sum()), int((a * (table + 1) * (mine + 1)).sum()),
                         int((a * (table + 1) * ((theirs + 1) * (most + 1) + mine + 1)).sum()))
    n = table * float(len(config.bid_faces))
    hands = np.array([math.comb(d + config.faces - 1, config.faces - 1) for d in range(dice[seat] + 1)], float)
    h = hands[grid[:, seat]]
    return SolveWork(len(grid), int(((a - 1) * n * (n + 3) / 2).sum()), int((n * h * (a + 1)).sum()),
                     int((a * n * (n - 1) / 2 * h).sum()))


def _seat_index(owner: str, name: str, value: Any, players: int) -> int:
    """``value`` as a seat index in 0..players - 1, else a ValueError naming ``owner.name``."""
    seat = int_at_least(owner, name, value, 0)
    if seat >= players:
        raise ValueError(f"{owner}.{name} must be a seat in 0..{players - 1}, got {value!r}")
    return seat


@memo(maxsize=256)
def all_bids(config: GameConfig, table_dice: int) -> tuple[Bid, ...]:
    """Every bid that can stand with ``table_dice`` dice on the table, in rising (legal raise) order."""
    return tuple(Bid(q, f) for q in range(1, table_dice + 1) for f in config.bid_faces)


@memo(maxsize=4096)
def raise_rows(config: GameConfig, table_dice: int, bid: Bid | None) -> np.ndarray:
    """Indices into ``all_bids`` of the legal raises over ``bid`` (None: the opening bids)."""
    index = {b: i for i, b in enumerate(all_bids(config, table_dice))}
    rows = np.array([index[a] for a in legal_actions(config, table_dice, bid) if isinstance(a, Bid)], dtype=np.int64)
    rows.flags.writeable = False
    return rows


def _states(top: tuple[int, ...], seat: int) -> list[tuple[int, ...]]:
    """Every dice state at or below ``top`` where ``seat`` and another seat hold dice (the rounds the game can
    reach from ``top``), fewest dice first: each round's outcomes are then solved before it."""
    states = [d for d in itertools.product(*(range(t + 1) for t in top)) if d[seat] > 0 and sum(x > 0 for x in d) > 1]
    return sorted(states, key=sum)


def _terminal(dice: tuple[int, ...], seat: int) -> float | None:
    """The responder's game value if the game is over at ``dice`` (0 out, 1 last with dice), else None."""
    if dice[seat] == 0:
        return 0.0
    return 1.0 if sum(d > 0 for d in dice) == 1 else None


def round_outcomes(config: GameConfig, seat: int, dice: tuple[int, ...], value: Callable[[tuple[int, ...], int], float]
                   ) -> dict[tuple[int, int], float]:
    """``seat``'s game value after each way the round at ``dice`` can end: (loser, challenger) -> 0 if it is out,
    1 if it is the last with dice, else ``value(dice after, next opener)``."""
    active = [s for s in range(len(dice)) if dice[s] > 0]
    out = {}
    for loser in active:
        after = tuple(d - (s == loser) for s, d in enumerate(dice))
        over = _terminal(after, seat)
        for challenger in active:
            out[(loser, challenger)] = over if over is not None else value(after, next_opener(config, after, challenger,
                                                                                                  loser))
    return out


def challenge_value(truth: np.ndarray, outcome: Mapping[tuple[int, int], float], challenger: int, bidder: int
                    ) -> np.ndarray:
    """The responder's value (per hand) when ``challenger`` challenges ``bidder``'s bid.

    The bid is true with probability ``truth`` (per hand): a true bid costs the challenger a die, a false one the bidder
    (``outcome[(loser, challenger)]``)."""
    return truth * outcome[(challenger, challenger)] + (1.0 - truth) * outcome[(bidder, challenger)]


def opponent_distribution(model: object, view: PublicView, rows: Mapping[Bid, int], size: int) -> np.ndarray:
    """(size + 1,): the model's probability of raising to each bid row, last entry = challenge.

    Raises ``HandDependentModelError`` naming the model when its answer depends on the hand here, and
    ValueError when the legal actions' probabilities are negative or do not sum to one."""
    name = player_name(model)
    out = np.zeros(size + 1)
    for action in view.legal_actions():
        p = shared_probability_of(model, view, action)
        if p is None:
            raise HandDependentModelError(
                f"opponent {name} (seat {view.seat}) acts on its hand over bid {view.bid} with dice {view.dice}: "
                f"in the full game the fixed-opponents best response needs hand-independent models (shared_probability "
                f"not None); models deciding by one count of their hand are solved in the sixes game"
            )
        out[rows[action] if isinstance(action, Bid) else size] = p
    total = out.sum()
    if not (np.all(out >= 0.0) and abs(total - 1.0) <= SUM_TOLERANCE):
        raise ValueError(
            f"opponent {name} (seat {view.seat}): probabilities of the legal actions over bid {view.bid} with "
            f"dice {view.dice} sum to {total!r} (each must be >= 0, the sum 1 within {SUM_TOLERANCE})"
        )
    return out


@dataclass
class ResponderRound:
    """One full-game round's solution for fixed dice: the responder's game values per bid and hand.

    ``after[i, h]`` is the responder's game value when it has just bid ``bids[i]`` holding hand h, ``truth[i, h]``
    P(bids[i] is true | hand h), ``outcome[(loser, challenger)]`` its game value after that challenge and ``start[o]``
    (per hand) its value when seat o opens."""

    config: GameConfig
    seat: int
    dice: tuple[int, ...]
    bids: tuple[Bid, ...]
    hands: np.ndarray
    weights: np.ndarray
    truth: np.ndarray
    outcome: dict[tuple[int, int], float]
    after: np.ndarray
    start: dict[int, np.ndarray]

    def value(self, opener: int) -> float:
        """P(the responder wins the game) from this round when ``opener`` opens, averaged over its hands."""
        return float(self.weights @ self.start[opener])

    def action(self, hand: tuple[int, ...], bid: Bid | None, bidder: int | None) -> Action:
        """The optimal action for ``hand`` over ``bid`` by ``bidder`` (ties: challenge, then the lower bid)."""
        values = self.action_values(hand, bid, bidder)
        best = max(values.values())
        if values.get(CHALLENGE, -np.inf) >= best:
            return CHALLENGE
        return next(a for a, v in values.items() if v == best)  # raises come in rising order

    def action_values(self, hand: tuple[int, ...], bid: Bid | None, bidder: int | None) -> dict[Action, float]:
        """P(the responder wins the game) after each legal action for ``hand`` over ``bid`` by ``bidder``, then
        playing optimally: the raises in rising order, then CHALLENGE (when a bid stands)."""
        h = self._hand_row(hand)
        raises = raise_rows(self.config, sum(self.dice), bid)
        values: dict[Action, float] = {self.bids[int(i)]: float(self.after[i, h]) for i in raises}
        if bid is not None:
            if bidder is None:
                raise ValueError(f"ResponderRound.action_values: the bid {bid} needs its bidder's seat")
            truth = self.truth[self.bids.index(bid), h]
            values[CHALLENGE] = float(challenge_value(truth, self.outcome, self.seat, bidder))
        return values

    def _hand_row(self, hand: tuple[int, ...]) -> int:
        """The row of ``hand`` in ``hands`` (hand_support's lexicographic order)."""
        matches = np.flatnonzero((self.hands == np.asarray(hand)).all(axis=1))
        if len(matches) != 1:
            raise ValueError(f"{OWNER}: hand {hand} is not a hand of {self.dice[self.seat]} dice with "
                             f"{self.config.faces} faces")
        return int(matches[0])


class FixedOpponentsSolution:
    """The best response of one seat to fixed opponent models (or a policy's exact value), per dice state.

    The responder's maximal P(win the game) against ``models`` (seat -> model, every seat but ``seat``), or with
    ``policy`` (a player; sixes game only) that player's exact P(win) at ``seat``; solved per dice state on first use.
    ``action`` plays the solution at any view. What the models may depend on: the module's docstring. A model acting on
    more of its hand raises ``HandDependentModelError``; a game whose work (``solve_work``) exceeds MAX_DICE_STATES,
    MAX_MODEL_CALLS, MAX_TABLE_CELLS or MAX_BACKUP_STEPS raises UsageError naming the limit.
    """

    def __init__(self, config: GameConfig, models: Mapping[int, Player], seat: int = 0, policy: object = None):
        if not isinstance(config, GameConfig):
            raise ValueError(f"{OWNER}.config must be a GameConfig, got {config!r}")
        if config.variants:  # its induction assumes rising bids, challenges only, one die lost, no round state
            raise UsageError(f"{OWNER} solves today's rules only; the config sets "
                             + ", ".join(f"{name}={value!r}" for name, value in config.variants.items()))
        self.config = config
        self.seat = _seat_index(OWNER, "seat", seat, config.num_players)
        wanted = set(range(config.num_players)) - {self.seat}
        if not isinstance(models, Mapping) or set(models) != wanted:
            raise ValueError(f"{OWNER}.models must map every other seat {sorted(wanted)} to a model, "
                             f"got {sorted(models) if isinstance(models, Mapping) else models!r}")
        if policy is not None and config.bids != "sixes":
            raise UsageError(f"{OWNER}.policy: a player's exact value is computed in the sixes game only, "
                             f"got bids={config.bids!r}")
        work = solve_work(config, self.seat)
        for what, figure, name, limit in (
                ("model calls", work.model_calls, "MAX_MODEL_CALLS", MAX_MODEL_CALLS),
                ("table cells", work.table_cells, "MAX_TABLE_CELLS", MAX_TABLE_CELLS),
                ("backup steps", work.backup_steps, "MAX_BACKUP_STEPS", MAX_BACKUP_STEPS)):
            if figure > limit:
                raise UsageError(f"{OWNER}: solving {config} for seat {self.seat} needs up to {figure:,} {what} "
                                 f"over its {work.states:,} rounds, more than {name} = {limit:,}")
        self.models = {int(s): model for s, model in models.items()}
        for s, model in self.models.items():
            model.reset(s, config)  # as play_game does, for models that read their seat or config
        self._policy = None if policy is None else PolicyDecisions(policy, config, self.seat)
        self._rounds: dict[tuple[int, ...], ResponderRound | CountRound] = {}

    def win_probability(self, dice: tuple[int, ...] | None = None, opener: int = 0) -> float:
        """P(the responder wins) from ``dice`` (default: the start) with ``opener`` opening, playing optimally (or
        as the evaluated policy)."""
        dice = self.config.starting_dice if dice is None else self._dice(dice)
        opener = _seat_index(OWNER, "opener", opener, self.config.num_players)
        over = _terminal(dice, self.seat)
        if over is not None:
            return over
        if dice[opener] == 0:
            raise ValueError(f"{OWNER}.opener must be a seat with dice in {dice}, got {opener}")
        return self.round(dice).value(opener)

    def action(self, view: PlayerView) -> Action:
        """The optimal action at ``view`` (the responder's seat, any reachable dice and standing bid)."""
        if view.seat != self.seat:
            raise ValueError(f"{OWNER}: the view is seat {view.seat}'s, this solution plays seat {self.seat}")
        return self.round(view.dice).action(view.hand, view.bid, view.bidder)

    def action_values(self, view: PlayerView) -> dict[Action, float]:
        """P(the responder wins) after each legal action at ``view``, then playing optimally (full game; the
        sixes game's rounds keep decisions only: ValueError)."""
        if view.seat != self.seat:
            raise ValueError(f"{OWNER}: the view is seat {view.seat}'s, this solution plays seat {self.seat}")
        solved = self.round(view.dice)
        if not isinstance(solved, ResponderRound):
            raise ValueError(f"{OWNER}.action_values: the sixes game's rounds keep the optimal decisions, not the "
                             f"value of every action; action_values needs bids='full'")
        return solved.action_values(view.hand, view.bid, view.bidder)

    def regret(self, view: PlayerView, action: Action) -> float:
        """How much P(win) ``action`` at ``view`` gives up against the optimal action (0 for an optimal one).

        Summed over a player's decisions in games played from this seat against exactly these models, it estimates
        without bias how far the player's P(win) is below ``win_probability`` at the same starts and openers."""
        values = self.action_values(view)
        if action not in values:
            raise ValueError(f"{OWNER}.regret: {action!r} is not a legal action at {view.bid} with dice {view.dice}")
        return max(values.values()) - values[action]

    def round(self, dice: tuple[int, ...]) -> ResponderRound | CountRound:
        """The round solution for ``dice`` (the responder and another seat hold dice), solving first, fewest
        dice first, every state below it not solved yet (so no recursion)."""
        dice = self._dice(dice)
        if _terminal(dice, self.seat) is not None:
            raise ValueError(f"{OWNER}.dice must leave seat {self.seat} and another seat with dice, got {dice}")
        if dice not in self._rounds:
            for state in _states(dice, self.seat):
                if state not in self._rounds:
                    self._rounds[state] = self._solve_round(state)
        return self._rounds[dice]

    def _dice(self, dice: Any) -> tuple[int, ...]:
        """``dice`` as a tuple of counts, one per seat, each between 0 and the seat's starting dice."""
        start = self.config.starting_dice
        if not isinstance(dice, (tuple, list, np.ndarray)) or len(dice) != len(start):
            raise ValueError(f"{OWNER}.dice must list {len(start)} counts, got {dice!r}")
        out = tuple(int_at_least(OWNER, "dice", d, 0) for d in dice)
        if any(d > s for d, s in zip(out, start, strict=True)):
            raise ValueError(f"{OWNER}.dice must not exceed the starting dice {start}, got {out}")
        return out

    def _solve_round(self, dice: tuple[int, ...]) -> ResponderRound | CountRound:
        """Backward induction over the bids: every seat's value after its bid i needs only bids above i."""
        config, me = self.config, self.seat
        active = [s for s in range(len(dice)) if dice[s] > 0]
        outcome = round_outcomes(config, me, dice, lambda after, opener: self._rounds[after].value(opener))
        if config.bids == "sixes":
            return solve_count_round(config, me, dice, self.models, outcome, self._policy)
        table = sum(dice)
        bids = all_bids(config, table)
        rows = {b: i for i, b in enumerate(bids)}
        n = len(bids)
        hands, weights = hand_support(dice[me], config.faces)
        hands = hands.astype(np.int64)
        truth = raise_true_probabilities(hands, PublicView(config, me, dice), bids).T  # (bids, hands)
        nxt = {s: next_active_seat(dice, s) for s in active}
        moves = {s: np.array([opponent_distribution(self.models[nxt[s]], PublicView(config, nxt[s], dice, ((s, b),)),
                                                    rows, n) for b in bids])
                 for s in active if nxt[s] != me}
        after = {s: np.zeros((n, len(weights))) for s in active}
        for i in range(n - 1, -1, -1):
            raises = raise_rows(config, table, bids[i])
            best_raise = after[me][raises].max(axis=0) if len(raises) else np.full(len(weights), -np.inf)
            for s in active:
                m = nxt[s]
                stop = challenge_value(truth[i], outcome, m, s)
                if m == me:
                    after[s][i] = np.maximum(stop, best_raise)
                else:
                    p = moves[s][i]
                    after[s][i] = p[n] * stop + p[i + 1:n] @ after[m][i + 1:]
        start = {}
        for o in active:
            if o == me:
                start[o] = after[me][raise_rows(config, table, None)].max(axis=0)
            else:
                p = opponent_distribution(self.models[o], PublicView(config, o, dice), rows, n)
                start[o] = p[:n] @ after[o]
        return ResponderRound(config, me, dice, bids, hands, weights, truth, outcome, after[me], start)


@memo(maxsize=16)
def solved_for(config: GameConfig, seat: int, assume: str) -> FixedOpponentsSolution:
    """The best response of ``seat`` to the player spec ``assume`` at every other seat, solved from the starting
    dice for every opener and cached for the process."""
    from ...registry import make_player  # the registry names players of every layer: asked only here

    return solve_fixed_opponents(config, {s: make_player(assume) for s in range(config.num_players) if s != seat}, seat)


def solve_fixed_opponents(config: GameConfig, models: Mapping[int, Player], seat: int = 0) -> FixedOpponentsSolution:
    """The best response of ``seat`` to ``models`` (every other seat -> a model), solved from the starting dice.

    Solved for every opener (every state below is solved on the way). See ``FixedOpponentsSolution`` for the models it
    is exact for; others raise ``HandDependentModelError``."""
    solution = FixedOpponentsSolution(config, models, seat)
    for opener in range(config.num_players):
        solution.win_probability(opener=opener)
    return solution


def evaluate_player(config: GameConfig, models: Mapping[int, Player], player: object, seat: int = 0
                    ) -> FixedOpponentsSolution:
    """The exact P(win) of ``player`` at ``seat`` against ``models`` in the sixes game, from the starting dice.

    Solved for every opener: read it with ``win_probability``. Exact for players that act on their hand only through its
    count of dice matching the bid face, deterministically given the round's events or as a model with
    ``action_probabilities``, and remember nothing across rounds (e.g. one-third, bluff:B, expected-count:belief=exact);
    ValueError when a player's answer differs between two hands of one count."""
    solution = FixedOpponentsSolution(config, models, seat, policy=player)
    for opener in range(config.num_players):
        solution.win_probability(opener=opener)
    return solution
