"""POMCP plays for the game: the game values behind its round reward, the moves it does not search, the search on
one hand per matching count, and the particles it hands pomdp-py."""

from __future__ import annotations

import math

import numpy as np
import pomdp_py
import pytest
from ldpomdp.planners import POMCPPlanner
from ldpomdp.planners.pomcp import EXACT_SEARCH, ROLLOUT_SEARCH, SETTLE_EXTEND

from ldpomdp import CHALLENGE, ActionTaken, Bid, GameConfig, PlayerView, PublicView, RoundStart, TableBelief
from ldpomdp.exact.against_models.game_values import FairRounds, seat_values
from ldpomdp.exact.against_models.solver import round_outcomes, solve_fixed_opponents
from ldpomdp.hands import count_hands
from ldpomdp.players import OneThirdRule
from ldpomdp.pomdp import LDState, die_outcomes
from ldpomdp.pomdp.agent import LDParticles, root_states
from ldpomdp.rules import matching_count


def fair_two_player(a: int, b: int) -> float:
    """P(the first of two seats wins) when each round costs either a die with probability 1/2: the other loses b
    dice before it loses a (negative binomial)."""
    return sum(math.comb(b - 1 + k, k) / 2 ** (b + k) for k in range(a))


@pytest.mark.parametrize("a, b", [(1, 1), (2, 1), (1, 2), (3, 5), (7, 4)])
def test_fair_rounds_two_players(a, b):
    values = FairRounds(0)
    assert values.win_probability((a, b)) == pytest.approx(fair_two_player(a, b), abs=1e-12)


def test_fair_rounds_three_players_share_the_win():
    total = sum(FairRounds(s).win_probability((3, 2, 4)) for s in range(3))
    assert total == pytest.approx(1.0, abs=1e-12)
    assert FairRounds(0).win_probability((2, 2, 2)) == pytest.approx(1 / 3, abs=1e-12)
    assert FairRounds(0).win_probability((0, 2, 2)) == 0.0


def test_game_value_is_exact_where_the_game_is_solved():
    sixes = GameConfig(num_players=2, dice=4, bids="sixes")
    values, kind = seat_values(sixes, 1, "bluff:0.3")
    expected = solve_fixed_opponents(sixes, {0: OneThirdRule(0.3)}, 1)
    assert kind == "exact" and values.win_probability((3, 2), 0) == pytest.approx(
        expected.win_probability((3, 2), 0), abs=1e-15)
    assert seat_values(GameConfig(num_players=2, dice=2), 0, "random")[1] == "exact"  # hand-independent
    values, kind = seat_values(GameConfig(num_players=2, dice=2), 0, "one-third")  # full game: acts on its hand
    assert kind == "fair-rounds" and values.win_probability((2, 1), 1) == pytest.approx(0.75)


def _opened(planner: POMCPPlanner, config: GameConfig, hand: tuple[int, ...], bids: int) -> PlayerView:
    """Seat 1 opens and the two seats raise in turn until ``bids`` bids stand; the view of seat 0 then."""
    planner.reset(0, config)
    dice = config.starting_dice
    planner.observe(RoundStart(0, dice, 1))
    history: list = []
    for q in range(1, bids + 1):
        seat = 1 if q % 2 else 0
        view = PlayerView(config, seat, dice, tuple(history), 0)
        planner.observe(ActionTaken(seat, Bid(q, config.faces), view.public()))
        history.append((seat, Bid(q, config.faces)))
    return PlayerView(config, 0, dice, tuple(history), 0, hand=hand)


def test_the_round_ends_with_the_game_value_it_reaches():
    config = GameConfig(num_players=2, dice=3, bids="sixes")
    planner = POMCPPlanner(num_sims=50, n_particles=500, seed=0)
    view = _opened(planner, config, (0, 1, 1, 1, 0, 0), 3)  # no matching die: 3 sixes is doubtful
    planner.act(view, np.random.default_rng(0))
    assert planner.decisions == 1 and planner.value_kind == "exact"
    values = round_outcomes(config, 0, (3, 3), planner.values.win_probability)
    low, high = min(values.values()), max(values.values())
    rewards = planner.agent.reward_model.outcomes  # the game values, mapped affinely onto [-1, 1]
    assert set(rewards) == set(values) and min(rewards.values()) == -1.0 and max(rewards.values()) == 1.0
    for key, value in values.items():
        assert rewards[key] == pytest.approx(2 * (value - low) / (high - low) - 1, abs=1e-12)
    assert values[(0, 0)] < values[(1, 0)]  # losing its own die is worth less than taking one
    die = POMCPPlanner(num_sims=50, n_particles=500, seed=0, reward="die")
    die.act(_opened(die, config, (0, 1, 1, 1, 0, 0), 3), np.random.default_rng(0))
    assert die.agent.reward_model.outcomes == die_outcomes(0, (3, 3))


@pytest.mark.parametrize("dice, bids, move", [((3, 3), 0, Bid(1, 6)), ((3, 2), 5, CHALLENGE)])
def test_forced_moves_are_not_searched(dice, bids, move):
    config = GameConfig(num_players=2, dice=dice, bids="sixes")
    planner = POMCPPlanner(num_sims=50, n_particles=500, seed=0)
    view = _opened(planner, config, (1, 0, 0, 0, 0, 2), bids)  # bids = 0: seat 0 opens; 5: the top bid stands
    assert planner.act(view, np.random.default_rng(0)) == move
    assert (planner.decisions, planner.skipped, planner.simulations) == (0, 1, 0)


def test_a_surely_true_bid_is_raised_unsearched_exactly_when_losing_its_die_is_worst():
    branches = set()
    for d in range(3, 12):
        config = GameConfig(num_players=2, dice=d, bids="sixes")
        planner = POMCPPlanner(num_sims=30, n_particles=300, seed=0)
        view = _opened(planner, config, (1, 0, 0, 0, 0, d - 1), 3)  # d dice match: 3 sixes surely stand
        outcomes = planner._outcomes
        worst = outcomes[(0, 0)] <= min(outcomes.values())
        move = planner.act(view, np.random.default_rng(0))
        assert planner.skipped == int(worst) and planner.decisions == int(not worst)
        if worst:
            assert move == Bid(4, 6)
        branches.add(worst)
    assert branches == {True, False}  # small games: opening is a handicap, so losing while challenging is not worst


def test_the_belief_s_certainties_are_played_unsearched():
    """The one-third rule raised to 5 over 4 with 6 dice, so it holds at least 2 sixes: with our 3 the bid is sure
    although our hand alone does not make it (and losing our die is the worst end there). A bid above every count
    the belief leaves possible is challenged."""
    config = GameConfig(num_players=2, dice=6, bids="sixes")
    planner = POMCPPlanner(num_sims=30, n_particles=300, seed=0)
    view = _opened(planner, config, (0, 3, 0, 0, 0, 3), 5)
    others = planner.belief.total_distribution(6, 1)
    assert others[:2].sum() == 0 and others[2] > 0 and matching_count(view.hand, 6, config) < 5
    assert planner._outcomes[(0, 0)] <= min(planner._outcomes.values())
    assert planner.act(view, np.random.default_rng(0)) == Bid(6, 6)
    assert (planner.decisions, planner.skipped) == (0, 1)
    for dice, bids in ((5, 7), (7, 7)):  # 7 of 7 dice: held by none of 300 particles (exactly, P = 0.003)
        config = GameConfig(num_players=2, dice=dice, bids="sixes")
        planner = POMCPPlanner(num_sims=30, n_particles=300, seed=0)
        view = _opened(planner, config, (0, dice, 0, 0, 0, 0), bids)  # no match of ours
        assert planner.belief.total_distribution(6, 1)[bids:].sum() == 0
        assert planner.act(view, np.random.default_rng(0)) is CHALLENGE
        assert (planner.decisions, planner.skipped) == (0, 1)


def test_a_surely_false_bid_is_challenged_unsearched_exactly_when_the_bidder_s_loss_is_best():
    branches = set()
    for d in range(3, 12):
        config = GameConfig(num_players=2, dice=d, bids="sixes")
        planner = POMCPPlanner(num_sims=30, n_particles=300, seed=0)
        bids = d + 1 if (d + 1) % 2 else d + 2  # seat 1 bids last, more than its dice: we hold no match
        view = _opened(planner, config, (0, d, 0, 0, 0, 0), bids)
        outcomes = planner._outcomes
        best = outcomes[(1, 0)] >= max(outcomes.values())
        move = planner.act(view, np.random.default_rng(0))
        assert planner.skipped == int(best) and planner.decisions == int(not best)
        if best:
            assert move is CHALLENGE
        branches.add(best)
    assert branches == {True, False}  # where opening is an advantage, being challenged beats challenging


def test_search_runs_on_one_hand_per_count_where_the_game_is_solved():
    """By count: each hand is count_hands' row of its count, and each opponent's counts are a systematic draw from
    its belief (every count's share within 1 / k of its probability)."""
    config = GameConfig(num_players=3, dice=(4, 3, 5), bids="sixes")
    models = {s: OneThirdRule() for s in (1, 2)}
    belief = TableBelief(config, 0, (4, 3, 5), models, n_particles=300, rng=np.random.default_rng(1))
    belief.observe_action(1, Bid(5, 6), PlayerView(config, 1, (4, 3, 5), ((0, Bid(4, 6)),), 0).public())
    view = PlayerView(config, 0, (4, 3, 5), ((0, Bid(4, 6)), (1, Bid(5, 6))), 0, hand=(1, 0, 2, 0, 0, 1))
    full = root_states(view, belief, 200, np.random.default_rng(7))
    counted = root_states(view, belief, 200, np.random.default_rng(7), by_count=True)
    for s, d in enumerate((4, 3, 5)):
        rows = count_hands(d, 6, config)
        counts = [int(matching_count(state.hands[s], 6, config)) for state in counted]
        assert all(state.hands[s] == tuple(rows[c]) for state, c in zip(counted, counts, strict=True))
        if s:
            shares = np.bincount(counts, minlength=d + 1) / 200
            assert np.abs(shares - belief.beliefs[s].count_distribution(6, 1)).max() <= 1 / 200
    assert len({id(state) for state in counted}) == len(set(counted)) < len(set(full))  # one object per state


def test_where_the_game_is_solved_the_search_looks_one_step_ahead_with_exact_values():
    """The leaf value of a state at our turn is the solver's value of its standing bid for our count, mapped like
    the rewards; the search's settings are EXACT_SEARCH's, its budget SETTLE_EXTEND times num_sims. In the full
    game (fair-rounds values) the search is the rollouts' one, num_sims exactly."""
    config = GameConfig(num_players=2, dice=4, bids="sixes")
    planner = POMCPPlanner(num_sims=40, n_particles=500, seed=0)
    view = _opened(planner, config, (0, 1, 1, 0, 0, 2), 1)  # opened by seat 1, we hold two sixes
    planner.act(view, np.random.default_rng(0))
    search, values = planner.planner, planner.values.round((4, 4)).values[1]
    outcomes = round_outcomes(config, 0, (4, 4), planner.values.win_probability)
    low, high = min(outcomes.values()), max(outcomes.values())
    for q in range(1, 9, 2):  # bids standing at our turns
        state = LDState(((0, 1, 1, 0, 0, 2), (0, 4, 0, 0, 0, 0)), (4, 4),
                        tuple((1 - i % 2, Bid(i + 1, 6)) for i in range(q)), 0)
        expected = None if np.isnan(values[q, 2]) else 2 * (float(values[q, 2]) - low) / (high - low) - 1
        assert search.leaf_value(state) == pytest.approx(expected, abs=1e-6)
    assert (search.max_depth, search.settle, search.budget) == (EXACT_SEARCH[0], EXACT_SEARCH[2], 40 * SETTLE_EXTEND)
    full = POMCPPlanner(num_sims=40, n_particles=500, seed=0)
    full.act(_opened(full, GameConfig(num_players=2, dice=4), (0, 1, 1, 0, 0, 2), 1), np.random.default_rng(0))
    assert full.planner.leaf_value is None and (full.planner.max_depth, full.planner.settle) == (
        ROLLOUT_SEARCH[0], ROLLOUT_SEARCH[2])
    assert full.decisions == 1 and full.simulations == 40


def test_particles_give_pomdp_py_s_histogram_when_asked():
    states = ["a", "b", "a", "c"]
    ours, theirs = LDParticles(states, np.random.default_rng(0)), pomdp_py.Particles(states)
    assert ours.get_histogram() == theirs.get_histogram()
    assert ours["a"] == theirs["a"] == 0.5 and ours["z"] == theirs["z"] == 0.0
    assert ours.mpe() == theirs.mpe() == "a"


def test_models_that_act_on_more_than_a_count_get_fair_rounds():
    config = GameConfig(num_players=2, dice=3, bids="sixes")
    planner = POMCPPlanner(num_sims=20, n_particles=300, seed=0, assume="conservative")
    planner.reset(0, config)
    assert planner.value_kind == "fair-rounds" and not planner.by_count


def _exact_action_values(planner: POMCPPlanner, view: PlayerView) -> dict:
    """P(win) of challenging and of raising, then playing the best response, at a sixes-game view of seat 0 in a
    two-player round opened by seat 1 (``_opened``), from the planner's exact belief about seat 1's count."""
    config, dice, face, q = view.config, view.dice, view.config.faces, view.bid.quantity
    solution, c0 = planner.values, int(matching_count(view.hand, face, config))
    outcome = round_outcomes(config, 0, dice, solution.win_probability)
    others = planner.belief.total_distribution(face, config.wild)
    counts = np.arange(len(others))
    challenge = others @ np.where(c0 + counts >= q, outcome[(0, 0)], outcome[(1, 0)])
    answer = PublicView(config, 1, dice, view.history + ((0, Bid(q + 1, face)),), 0)
    called = OneThirdRule().action_probabilities(count_hands(dice[1], face, config), answer, CHALLENGE)
    later = float(solution.round(dice).values[1][q + 2, c0]) if q + 2 <= sum(dice) else 0.0
    stop = np.where(c0 + counts >= q + 1, outcome[(1, 1)], outcome[(0, 1)])
    raised = others @ (called * stop) + (others @ (1 - called) * later if others @ (1 - called) > 0 else 0.0)
    return {CHALLENGE: float(challenge), Bid(q + 1, face): float(raised)}


def test_where_the_game_is_solved_the_search_s_values_are_the_exact_action_values():
    """Exact round values end the search's simulations one decision ahead and the root particles follow the exact
    belief, so the root's values estimate the exact action values without bias: each within 4 standard errors
    (returns in [-1, 1]: a standard deviation of at most 1) at every searched position of a 6-dice round."""
    config, checked, moves = GameConfig(num_players=2, dice=6, bids="sixes"), 0, set()
    for c0 in range(7):
        hand = tuple(int(x) for x in count_hands(6, 6, config)[c0])
        for bids in range(1, 12, 2):
            planner = POMCPPlanner(belief="exact", seed=0)
            view = _opened(planner, config, hand, bids)
            if planner.belief.total_distribution(6, 1).sum() == 0:  # the models never raise that far
                continue
            moves.add(planner.act(view, np.random.default_rng(0)))
            if planner.last_search is None:  # a certain move, not searched
                continue
            outcomes = round_outcomes(config, 0, (6, 6), planner.values.win_probability)
            low, high = min(outcomes.values()), max(outcomes.values())
            for action, value in _exact_action_values(planner, view).items():
                visits, estimate = planner.last_search[action]
                assert abs(estimate - (2 * (value - low) / (high - low) - 1)) <= 4 / math.sqrt(visits), (c0, bids)
                checked += 1
    assert checked >= 40 and CHALLENGE in moves and len(moves) > 2
