"""Exact best response to hand-independent opponents: against a plain expectimax over every roll and bid
sequence (its value, and the exact value of following its actions), against real games played with its
player, its work figures and limits, and its errors."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from functools import lru_cache
from typing import Callable

import numpy as np
import pytest

from ldpomdp.exact import BestResponsePlayer, FixedOpponentsSolution, HandDependentModelError, solve_fixed_opponents
from ldpomdp.exact.fixed_opponents import solve_work
from ldpomdp.game import PlayerView, PublicView, play_game
from ldpomdp.opponents import OneThirdRule, RandomPlayer
from ldpomdp.opponents.wildcard import AggressivePlayer, ConservativePlayer
from ldpomdp.rules import CHALLENGE, Action, GameConfig, legal_actions, next_active_seat, next_opener

Policy = Callable[[PlayerView], Action]


# ---------------------------------------------------------------- brute force (independent of the solver)

def brute_force(config: GameConfig, models: dict, seat: int, opener: int, policy: Policy | None = None) -> float:
    """The responder's P(win the game) by expectimax over its rolls and full bid histories: its best when
    ``policy`` is None, else following ``policy`` (its view -> action). The truth of a challenged bid is counted
    over every roll of the other dice; opponents answer ``action_probabilities`` for the whole history."""
    faces = config.faces
    for s, m in models.items():
        m.reset(s, config)

    def matches(die: int, face: int) -> bool:
        return die == face or (config.wild is not None and face != config.wild and die == config.wild)

    @lru_cache(maxsize=None)
    def game(dice: tuple[int, ...], opener: int) -> float:
        if dice[seat] == 0:
            return 0.0
        if sum(d > 0 for d in dice) == 1:
            return 1.0
        rolls = Counter(tuple(r.count(f) for f in range(1, faces + 1))
                        for r in itertools.product(range(1, faces + 1), repeat=dice[seat]))
        others = list(itertools.product(range(1, faces + 1), repeat=sum(dice) - dice[seat]))
        total = sum(n * node(dice, hand, others, (), opener) for hand, n in rolls.items())
        return total / faces ** dice[seat]

    def node(dice, hand, others, history, actor) -> float:
        bid = history[-1][1] if history else None
        actions = legal_actions(config, sum(dice), bid)
        if actor == seat and policy is not None:
            chosen = policy(PlayerView(config, seat, dice, history, hand=hand))
            assert chosen in actions
            actions = (chosen,)
        values = []
        for a in actions:
            if a is CHALLENGE:
                bidder = history[-1][0]
                mine = sum(hand[f - 1] for f in range(1, faces + 1) if matches(f, bid.face))
                true = sum(mine + sum(matches(d, bid.face) for d in roll) >= bid.quantity for roll in others)
                p = true / len(others)
                values.append(p * after(dice, actor, actor) + (1 - p) * after(dice, bidder, actor))
            else:
                values.append(node(dice, hand, others, history + ((actor, a),), next_active_seat(dice, actor)))
        if actor == seat:
            return max(values)
        view = PublicView(config, actor, dice, history)
        some_hand = np.zeros((1, faces), dtype=np.int64)
        some_hand[0, 0] = dice[actor]
        probs = [float(models[actor].action_probabilities(some_hand, view, a)[0]) for a in actions]
        assert math.isclose(sum(probs), 1.0)
        return sum(p * v for p, v in zip(probs, values))

    def after(dice, loser, challenger) -> float:
        left = tuple(d - (s == loser) for s, d in enumerate(dice))
        if left[seat] == 0 or sum(d > 0 for d in left) == 1:
            return game(left, 0)
        return game(left, next_opener(config, left, challenger, loser))

    return game(config.starting_dice, opener)


CASES = {  # small enough for every bid history: 2^(bids) sequences at most
    "2p vs aggressive, 1 die": (GameConfig(num_players=2, dice=1), {1: AggressivePlayer()}, 0),
    "2p vs aggressive, 3 faces, 2 dice, seat 1": (
        GameConfig(num_players=2, dice=2, faces=3), {0: AggressivePlayer()}, 1),
    "2p vs random, 3 faces, loser opens": (
        GameConfig(num_players=2, dice=(2, 1), faces=3, opener="loser"), {1: RandomPlayer()}, 0),
    "3p random+aggressive, 3 faces, top face wild, seat 1": (
        GameConfig(num_players=3, dice=1, faces=3, wild=3), {0: RandomPlayer(), 2: AggressivePlayer()}, 1),
    "2p sixes vs random, no wild": (GameConfig(num_players=2, dice=(2, 3), bids="sixes", wild=None),
                                     {1: RandomPlayer()}, 0),
    "2p sixes vs aggressive, ones wild (the default sixes rules)": (
        GameConfig(num_players=2, dice=(2, 3), bids="sixes"), {1: AggressivePlayer()}, 0),
    "3p, 3 faces, loser keeps dice": (  # losers with 2 dice stay in: rounds with 3 seats after a loss
        GameConfig(num_players=3, dice=(2, 1, 1), faces=3), {1: RandomPlayer(), 2: AggressivePlayer()}, 0),
    "3p, 2 faces, no wild, loser keeps dice, seat 2": (
        GameConfig(num_players=3, dice=(1, 2, 1), faces=2, wild=None), {0: AggressivePlayer(), 1: RandomPlayer()}, 2),
    "3p, 3 faces, loser opens": (
        GameConfig(num_players=3, dice=(1, 2, 1), faces=3, opener="loser"),
        {1: AggressivePlayer(), 2: RandomPlayer()}, 0),
}


@pytest.mark.parametrize("case", list(CASES))
def test_game_value_equals_brute_force(case):
    config, models, seat = CASES[case]
    solution = FixedOpponentsSolution(config, models, seat)
    for opener in range(config.num_players):
        assert solution.win_probability(opener=opener) == pytest.approx(
            brute_force(config, models, seat, opener), abs=1e-9)


def test_two_faces_with_a_wild_equals_brute_force():
    config, models = GameConfig(num_players=3, dice=(2, 1, 1), faces=2), {1: RandomPlayer(), 2: AggressivePlayer()}
    solution = FixedOpponentsSolution(config, models)
    assert solution.win_probability() == pytest.approx(brute_force(config, models, 0, 0), abs=1e-9)


@pytest.mark.parametrize("case", ["2p vs aggressive, 3 faces, 2 dice, seat 1", "3p, 3 faces, loser keeps dice"])
def test_following_the_actions_gives_the_value(case):
    config, models, seat = CASES[case]
    solution = FixedOpponentsSolution(config, models, seat)
    for opener in range(config.num_players):
        value = solution.win_probability(opener=opener)
        assert brute_force(config, models, seat, opener, policy=solution.action) == pytest.approx(value, abs=1e-9)
    reckless = brute_force(config, models, seat, 0, lambda v: CHALLENGE if v.bid is not None else solution.action(v))
    assert reckless < solution.win_probability(opener=0) - 1e-3  # always challenging costs a visible share


def test_one_third_rule_is_below_the_value_exactly():
    config, models, seat = CASES["3p, 3 faces, loser keeps dice"]
    solution = FixedOpponentsSolution(config, models, seat)
    rule, rng = OneThirdRule(), np.random.default_rng(0)  # no bluff: deterministic, rng unused
    rule.reset(seat, config)
    for opener in range(config.num_players):
        one_third = brute_force(config, models, seat, opener, lambda v: rule.act(v, rng))
        assert 0.0 < one_third < solution.win_probability(opener=opener) - 1e-3


# ---------------------------------------------------------------- played games

def win_rate(config: GameConfig, player: object, models: dict, games: int, seed: int) -> float:
    """The responder's (seat 0) share of wins over ``games`` games, openers rotated."""
    rng = np.random.default_rng(seed)
    seated = [player, *(models[s] for s in range(1, config.num_players))]
    wins = sum(play_game(config, seated, rng, first_opener=g % config.num_players).winner == 0 for g in range(games))
    return wins / games


MC_CONFIG = GameConfig(num_players=3, dice=(1, 2, 2))  # the responder starts a die short: it loses often
MC_GAMES = 3000


def test_played_games_match_the_value():
    models = {1: AggressivePlayer(), 2: RandomPlayer()}
    solution = solve_fixed_opponents(MC_CONFIG, models)
    value = np.mean([solution.win_probability(opener=o) for o in range(3)])
    assert 0.2 < value < 0.9  # a real check: the responder loses a fair share of games
    rate = win_rate(MC_CONFIG, BestResponsePlayer(solution), models, MC_GAMES, seed=11)
    assert abs(rate - value) <= 4 * math.sqrt(value * (1 - value) / MC_GAMES)


def test_player_checks_its_seat():
    solution = FixedOpponentsSolution(GameConfig(num_players=2, dice=1), {1: RandomPlayer()})
    with pytest.raises(ValueError, match="seat 0"):
        BestResponsePlayer(solution).reset(1, solution.config)


# ---------------------------------------------------------------- work figures and limits

class _Counting(RandomPlayer):
    """Random, counting its ``shared_probability`` calls."""

    calls = 0

    def shared_probability(self, view: PublicView, action: object) -> float:
        type(self).calls += 1
        return super().shared_probability(view, action)


def test_model_calls_figure_is_exact_in_the_full_game():
    config = GameConfig(num_players=3, dice=(2, 1, 2), faces=4)
    _Counting.calls = 0
    solve_fixed_opponents(config, {0: _Counting(), 2: _Counting()}, seat=1)
    work = solve_work(config, 1)
    assert _Counting.calls == work.model_calls and work.states == 3 * 3 - 1  # seat 1 holds its die, not both others out


@pytest.mark.parametrize("dice, limit", [((5,) * 8, "MAX_DICE_STATES"), ((2, 100), "MAX_MODEL_CALLS"),
                                         ((40, 1), "MAX_TABLE_CELLS"), ((7, 43), "MAX_BACKUP_STEPS")])
def test_each_limit_is_named(dice, limit):
    config = GameConfig(num_players=len(dice), dice=dice)
    with pytest.raises(ValueError, match=f"FixedOpponentsSolution.*{limit}"):
        FixedOpponentsSolution(config, {s: RandomPlayer() for s in range(1, len(dice))})


def test_the_benchmark_is_well_inside_the_limits():
    from ldpomdp.exact import fixed_opponents as fo
    work = solve_work(GameConfig(num_players=3, dice=5), 0)
    assert (work.model_calls * 10 < fo.MAX_MODEL_CALLS and work.table_cells * 10 < fo.MAX_TABLE_CELLS
            and work.backup_steps * 10 < fo.MAX_BACKUP_STEPS)


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("model, name", [(ConservativePlayer(), "conservative"), (OneThirdRule(), "one-third")])
def test_hand_dependent_model_is_named(model, name):
    solution = FixedOpponentsSolution(GameConfig(num_players=2, dice=1), {1: model})
    with pytest.raises(HandDependentModelError, match=f"{name}.*hand"):
        solution.win_probability(opener=1)


class _Leaky(RandomPlayer):
    """Says 0.3 for every legal action: sums to one only by chance."""

    name = "leaky"

    def shared_probability(self, view: PublicView, action: object) -> float:
        return 0.3


def test_probabilities_not_summing_to_one_are_named():
    solution = FixedOpponentsSolution(GameConfig(num_players=2, dice=1), {1: _Leaky()})
    with pytest.raises(ValueError, match="leaky.*sum") as err:
        solution.win_probability()
    assert not isinstance(err.value, HandDependentModelError)


def test_bad_arguments():
    config = GameConfig(num_players=3, dice=1)
    models = {1: RandomPlayer(), 2: RandomPlayer()}
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.models must map every other seat"):
        FixedOpponentsSolution(config, {1: RandomPlayer()})
    for seat in (3, -1, True, 0.0):
        with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.seat must be"):
            FixedOpponentsSolution(config, {0: RandomPlayer(), 1: RandomPlayer()}, seat=seat)
    assert FixedOpponentsSolution(config, {0: RandomPlayer(), 2: RandomPlayer()}, seat=np.int64(1)).seat == 1
    solution = FixedOpponentsSolution(config, models)
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.opener must be a seat with dice"):
        solution.win_probability((1, 0, 1), opener=1)
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.opener must be"):
        solution.win_probability(opener=False)
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must not exceed the starting dice"):
        solution.win_probability((2, 1, 1))
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must list 3"):
        solution.win_probability((1, 1))
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must be an integer >= 0"):
        solution.win_probability((1, -1, 1))
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must not exceed"):
        solution.action(PlayerView(config, 0, (2, 1, 1), hand=(2, 0, 0, 0, 0, 0)))
    with pytest.raises(ValueError, match=r"FixedOpponentsSolution\.dice must leave seat 0 and another seat"):
        solution.action(PlayerView(config, 0, (1, 0, 0), hand=(1, 0, 0, 0, 0, 0)))
    assert solution.win_probability((0, 1, 1)) == 0.0 and solution.win_probability((1, 0, 0)) == 1.0
