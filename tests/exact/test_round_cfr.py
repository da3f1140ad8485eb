"""The N-seat round solvers (exact.many_players.round_cfr) on tiny rounds: the public tree's terminal by convolution
against joint hands, its CFR+ against a loop-over-histories CFR+ on the same abstraction, its regret, two seats
against RoundCFR; the solver over the abstraction's states against the public tree's, and its sampled form's regret."""

import itertools

import numpy as np
import pytest

from ldpomdp.exact.cfr import RoundSolver, run_until
from ldpomdp.exact.many_players.round import RoundPayoff, call_values, loser_values, n_round
from ldpomdp.exact.many_players.round_cfr import LineRoundCFR, NRoundCFR, PublicTreeCFR
from ldpomdp.exact.two_player.round_cfr import RoundCFR, one_round_outcome
from ldpomdp.exact.two_player.states import RoundOutcome
from ldpomdp.rules import CHALLENGE, Bid, GameConfig


@pytest.mark.parametrize(("dice", "faces"), [((1, 1, 1), 3), ((1, 2, 2), 3), ((2, 1, 2), 4), ((1, 2, 1, 2), 3)])
def test_call_values_by_convolution_equal_the_sum_over_joint_hands(dice, faces):
    config = GameConfig(num_players=len(dice), dice=max(dice), faces=faces)
    r = n_round(config, dice, 1)
    rng = np.random.default_rng(7)
    nodes = 5
    face = rng.integers(1, faces + 1, size=nodes)
    reach = [rng.random((nodes, len(h))) for h in r.hands]  # any reach, not only a strategy's
    pay = rng.normal(size=(nodes, r.table_dice + 1))  # the seat's value per total of matching dice
    counts = [m[:, face - 1].T for m in r.matches]
    for seat in range(len(dice)):
        others = [j for j in range(len(dice)) if j != seat]
        got = call_values(counts[seat], [(reach[j] * r.priors[j], counts[j]) for j in others], pay)
        want = np.zeros((nodes, len(r.hands[seat])))
        for joint in itertools.product(*(range(len(r.hands[j])) for j in others)):
            weight = np.prod([reach[j][:, h] * r.priors[j][h] for j, h in zip(others, joint, strict=True)], axis=0)
            rest = sum(counts[j][:, h] for j, h in zip(others, joint, strict=True))
            want += weight[:, None] * pay[np.arange(nodes)[:, None], counts[seat] + rest[:, None]]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def _farthest_from_uniform(r, strategy):
    """The largest gap between a probability and its information set's uniform 1/actions."""
    uniform = [np.repeat(1.0 / r.widths[sets], r.widths[sets]) for sets in r.seat_sets]
    return max(np.abs(s - u[None, :]).max() for s, u in zip(strategy, uniform, strict=True))


def _matching(r, hands, face):
    return sum(int(r.matches[j][h, face - 1]) for j, h in enumerate(hands))


def _random_payoff(seats, table_dice, exact_call, seed):
    """Payoffs without ties (loser_values' make equal regrets, which regret matching+ splits by rounding)."""
    rng = np.random.default_rng(seed)
    exact = rng.uniform(-1, 1, size=(seats, seats, 2)) if exact_call else None
    return RoundPayoff(rng.uniform(-1, 1, size=(seats, seats, 2 * table_dice + 1)), exact, table_dice)


def _brute_force(config, dice, k, iterations, alternating, payoff):
    """CFR+ with linear averaging on NRound's abstraction, one history and one joint hand at a time."""
    r = n_round(config, dice, k)
    n, table = r.seats, r.table_dice
    regrets = [np.zeros((len(h), e)) for h, e in zip(r.hands, r.edges, strict=True)]
    sums = [np.zeros_like(x) for x in regrets]

    def matched(row):
        total = row.sum()
        return row / total if total > 0 else np.full(len(row), 1.0 / len(row))

    def walk(hands, history, reach, strategy, updaters, deltas, visits):
        actor = len(history) % n
        s = r.index[(actor, tuple(history[-k:]))]
        e0, acts, h = int(r.edge_start[s]), r.actions(s), hands[actor]
        sigma = matched(strategy[actor][h, e0:e0 + len(acts)])
        utils = []
        for j, action in enumerate(acts):
            if isinstance(action, Bid):
                child = list(reach)
                child[actor] *= sigma[j]
                utils.append(walk(hands, history + [action], child, strategy, updaters, deltas, visits))
                continue
            bid, total = history[-1], _matching(r, hands, history[-1].face)
            if action is CHALLENGE:
                utils.append(payoff.challenge[:, actor, bid.quantity - total + table])
            else:
                utils.append(payoff.exact[:, actor, int(total == bid.quantity)])
        node = sum(p * u for p, u in zip(sigma, utils, strict=True))
        if actor in updaters:
            chance = np.prod([r.priors[j][hands[j]] for j in range(n)]) / r.priors[actor][h]
            others = chance * np.prod([reach[j] for j in range(n) if j != actor])
            for j, u in enumerate(utils):
                deltas[actor][h, e0 + j] += others * (u[actor] - node[actor])
                if all(hands[i] == 0 for i in range(n) if i != actor):  # once per own hand
                    visits[actor][h, e0 + j] += reach[actor] * sigma[j]
        return node

    for t in range(1, iterations + 1):
        strategy = [np.maximum(x, 0.0) for x in regrets]
        for group in ([[i] for i in range(n)] if alternating else [list(range(n))]):
            deltas = [np.zeros_like(x) for x in regrets]
            visits = [np.zeros_like(x) for x in regrets]
            for hands in itertools.product(*(range(len(h)) for h in r.hands)):
                walk(hands, [], [1.0] * n, strategy, group, deltas, visits)
            for i in group:
                regrets[i] = np.maximum(regrets[i] + deltas[i], 0.0)
                sums[i] += t * visits[i]
                strategy[i] = regrets[i]
    return r, [np.array([np.concatenate([matched(x[h, r.edge_start[s]:r.edge_start[s] + r.widths[s]])
                                         for s in r.seat_sets[i]]) for h in range(len(x))])
               for i, x in enumerate(sums)]


@pytest.mark.parametrize(("faces", "k", "iterations", "alternating", "exact_call"), [
    (2, 1, 15, True, False), (2, 2, 15, False, False), (3, 2, 2, True, False), (2, 1, 15, True, True)])
def test_average_strategy_equals_a_loop_over_histories_cfr(faces, k, iterations, alternating, exact_call):
    config = GameConfig(num_players=3, dice=1, faces=faces, exact_call=exact_call)
    payoff = _random_payoff(3, 3, exact_call, seed=faces + k)
    r, want = _brute_force(config, (1, 1, 1), k, iterations, alternating, payoff)
    solver = PublicTreeCFR(config, (1, 1, 1), k, payoff, alternating=alternating)
    solver.run(iterations)
    for got, expected in zip(solver.average_strategy(), want, strict=True):
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    assert _farthest_from_uniform(r, want) > 0.1  # the strategies are not left uniform


@pytest.mark.parametrize(("dice", "faces"), [((1, 1, 1), 3), ((1, 1, 1, 1), 2)])
def test_regret_of_the_average_strategy_falls_with_iterations(dice, faces):
    solver = PublicTreeCFR(GameConfig(num_players=len(dice), dice=1, faces=faces), dice, 2)
    nash_conv = []
    for iterations in (5, 40, 160):
        solver.run(iterations - solver.iteration)
        gains = solver.gains()
        assert gains.min() >= -1e-12  # a best response never loses to the strategy itself
        nash_conv.append(gains.sum())
    assert nash_conv[1] < 0.2 * nash_conv[0] and nash_conv[2] < 0.2 * nash_conv[1], nash_conv
    assert abs(solver.values().sum()) < 1e-12  # the default payoff is zero-sum


@pytest.mark.parametrize(("dice", "k"), [((1, 1), 1), ((2, 1), 2)])
def test_two_seats_reproduce_round_cfr(dice, k):
    config = GameConfig(num_players=2, dice=2, faces=3)
    table = sum(dice)
    outcome = np.random.default_rng(k).uniform(-1, 1, size=(2, 2 * table + 1))  # the opener's, without ties
    two = RoundCFR(config, dice, k, RoundOutcome(outcome, None, table))
    many = PublicTreeCFR(config, dice, k, RoundPayoff(np.stack([outcome, -outcome]), None, table))
    two.run(30)
    many.run(30)
    theirs, ours = two.average_strategy(), many.average_strategy()
    a, b = two.round, many.round
    largest = 0.0
    for s, (role, window) in enumerate(a.keys):
        mine = b.index[(role, tuple(a.bids[i] for i in window))]
        columns = {action: int(b.edge_start[mine]) + j for j, action in enumerate(b.actions(mine))}
        for j, action in enumerate(a.actions(s)):
            got = ours[role][:, columns[action]]
            largest = max(largest, float(np.abs(got - theirs[role][:, a.edge_start[s] + j]).max()))
    assert len(a.keys) == len(b.keys)
    assert largest < 1e-5  # RoundCFR's values are float32 (eps 6e-8), ours float64


def test_payoff_by_loser_follows_the_challenge_and_exact_rules():
    payoff = RoundPayoff.by_loser(loser_values(3), 4, exact_call=True)
    for caller in range(3):
        bidder = (caller - 1) % 3
        for missing in range(-4, 5):
            loser = caller if missing <= 0 else bidder
            want = [-1.0 if seat == loser else 0.5 for seat in range(3)]
            assert payoff.challenge[:, caller, missing + 4].tolist() == want
        assert payoff.exact[:, caller, 0].tolist() == [-1.0 if seat == caller else 0.5 for seat in range(3)]
        assert payoff.exact[:, caller, 1].tolist() == [0.0, 0.0, 0.0]


def test_payoff_of_the_wrong_size_is_one_clear_error():
    config = GameConfig(num_players=3, dice=1, faces=2)
    with pytest.raises(ValueError, match="payoff is for 2 seats"):
        PublicTreeCFR(config, (1, 1, 1), 1, payoff=RoundPayoff.by_loser(loser_values(2), 3))
    with pytest.raises(ValueError, match="16,777,216 bid sequences, more than 2,000,000"):
        PublicTreeCFR(GameConfig(num_players=3, dice=2, faces=4), (2, 2, 2), 1)


@pytest.mark.parametrize(("dice", "faces", "k", "exact_call"), [
    ((1, 1, 1), 2, 1, False), ((1, 1, 1), 3, 2, False), ((1, 1, 1), 2, 1, True), ((1, 2, 1), 3, 1, False),
    ((1, 1, 1, 1), 2, 2, False)])
def test_states_solver_with_every_joint_hand_equals_the_public_tree_solver(dice, faces, k, exact_call):
    config = GameConfig(num_players=len(dice), dice=max(dice), faces=faces, exact_call=exact_call)
    payoff = _random_payoff(len(dice), sum(dice), exact_call, seed=faces + k)
    tree, states = PublicTreeCFR(config, dice, k, payoff), NRoundCFR(config, dice, k, payoff, max_tuples=10**6)
    tree.run(10)
    states.run(10)
    for a, b in zip(tree.average_strategy(), states.average_strategy(), strict=True):
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-9)
    for a, b in zip(tree.regrets, states.regrets, strict=True):
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-9)
    assert _farthest_from_uniform(tree.round, tree.average_strategy()) > 0.1  # not left uniform


def test_sampled_joint_hands_regret_falls_and_the_seed_fixes_the_draws():
    config = GameConfig(num_players=3, dice=2, faces=3)
    reference = PublicTreeCFR(config, (1, 1, 2), 2)  # the NashConv of any profile, full width
    solver = NRoundCFR(config, (1, 1, 2), 2, samples=8, max_tuples=1, seed=3)  # every update samples
    nash_conv = []
    for iterations in (5, 40, 160):
        solver.run(iterations - solver.iteration)
        nash_conv.append(reference.gains(solver.average_strategy()).sum())
    assert nash_conv[1] < 0.3 * nash_conv[0] and nash_conv[2] < 0.6 * nash_conv[1], nash_conv
    again = NRoundCFR(config, (1, 1, 2), 2, samples=8, max_tuples=1, seed=3)
    again.run(5)
    other = NRoundCFR(config, (1, 1, 2), 2, samples=8, max_tuples=1, seed=4)
    other.run(5)
    first = NRoundCFR(config, (1, 1, 2), 2, samples=8, max_tuples=1, seed=3)
    first.run(5)
    assert all(np.array_equal(a, b) for a, b in zip(first.regrets, again.regrets, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first.regrets, other.regrets, strict=True))


@pytest.mark.parametrize("make", [
    lambda: RoundCFR(GameConfig(num_players=2, dice=1, faces=3), (1, 1), 2, one_round_outcome()),
    lambda: NRoundCFR(GameConfig(num_players=3, dice=1, faces=3), (1, 1, 1), 2),
    lambda: PublicTreeCFR(GameConfig(num_players=3, dice=1, faces=3), (1, 1, 1), 2),
    lambda: LineRoundCFR(GameConfig(num_players=3, dice=2, bids="sixes"), (2, 2, 2), 2),
], ids=["two players", "N seats", "public tree", "line"])
def test_run_until_drives_every_round_solver_in_steps_to_its_target_as_one_run_does(make):
    """The chaining code's one driver: steps of at most ``step`` up to the target, then nothing; the same
    strategies as the solver's own ``run``."""
    stepped, whole = make(), make()
    steps = [n for n, seconds in run_until(stepped, 7, 3) if seconds >= 0]
    whole.run(7)
    assert steps == [3, 3, 1] and stepped.iteration == 7 and list(run_until(stepped, 7, 3)) == []
    for a, b in zip(stepped.average_strategy(), whole.average_strategy(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert RoundSolver in type(stepped).__mro__
