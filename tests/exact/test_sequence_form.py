"""Exact solver: LP values against brute-force normal forms, report 001's theorems, equilibrium and
best-response checks, the Nash player and its disk cache."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from conftest import DAMAGE, ROOT, damage

from ldpomdp.exact import ReplayPolicy, cached_solution, exploitability, solve_round
from ldpomdp.exact.two_player.exploitability import best_response_value, policy_behaviour
from ldpomdp.exact.two_player.sequence_form import _sequence, sequence_form
from ldpomdp.exact.two_player.tree import build_tree, check_size
from ldpomdp.game import PlayerView, PublicView, play_game
from ldpomdp.players import OneThirdRule, RandomPlayer
from ldpomdp.players.nash import NashPlayer
from ldpomdp.registry import make_player, registered_names
from ldpomdp.round_end import resolve_challenge
from ldpomdp.rules import CHALLENGE, GameConfig, legal_actions
from ldpomdp.variants.call_reroll import solve_matrix_game


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path / "cache"))


# ---------------------------------------------------------------- brute force (independent of ldpomdp.exact)

def _hands(num_dice: int, faces: int) -> dict[tuple[int, ...], float]:
    """Face counts with probabilities, by rolling every die sequence."""
    counts = Counter(tuple(seq.count(f) for f in range(1, faces + 1))
                     for seq in itertools.product(range(1, faces + 1), repeat=num_dice))
    return {h: n / faces**num_dice for h, n in counts.items()}


def _plans(config: GameConfig, table: int, history: tuple, role: int) -> list[dict]:
    """Reduced pure strategies of ``role`` for one hand: an action at every reachable own decision."""
    actions = legal_actions(config, table, history[-1] if history else None)
    if len(history) % 2 == role:
        out = []
        for a in actions:
            subs = [{}] if a is CHALLENGE else _plans(config, table, history + (a,), role)
            out += [{history: a, **s} for s in subs]
        return out
    combined = [{}]
    for a in actions:
        if a is not CHALLENGE:
            combined = [{**c, **s} for c in combined for s in _plans(config, table, history + (a,), role)]
    return combined


def _play(config: GameConfig, plans: tuple[dict, dict], hands: tuple) -> int:
    """Payoff to the opener (seat 0) when both follow their plans."""
    history: tuple = ()
    while True:
        actor = len(history) % 2
        action = plans[actor][history]
        if action is CHALLENGE:
            loser, _ = resolve_challenge(config, np.array(hands), history[-1], 1 - actor, actor)
            return 1 if loser == 1 else -1
        history += (action,)


def _normal_form_value(config: GameConfig) -> float:
    dice = config.starting_dice
    table = sum(dice)
    hands = [_hands(d, config.faces) for d in dice]
    plans = [_plans(config, table, (), r) for r in (0, 1)]
    keys = [list(h) for h in hands]
    strategies = [np.array(list(itertools.product(range(len(plans[r])), repeat=len(keys[r])))) for r in (0, 1)]
    matrix = np.zeros((len(strategies[0]), len(strategies[1])))
    for i, h0 in enumerate(keys[0]):
        for j, h1 in enumerate(keys[1]):
            outcome = np.array([[_play(config, (p0, p1), (h0, h1)) for p1 in plans[1]] for p0 in plans[0]])
            matrix += hands[0][h0] * hands[1][h1] * outcome[np.ix_(strategies[0][:, i], strategies[1][:, j])]
    return solve_matrix_game(matrix)[0]


TINY = [
    GameConfig(dice=1, faces=2, wild=None),
    GameConfig(dice=1, faces=2, wild=1),
    GameConfig(dice=1, faces=2, wild=2),
    GameConfig(dice=2, faces=2, wild=None, bids="sixes"),
    GameConfig(dice=(2, 3), faces=2, wild=None, bids="sixes"),
    GameConfig(dice=(1, 2), faces=3, wild=1, bids="sixes"),
    GameConfig(dice=2, faces=3, wild=1, bids="sixes"),
]


@pytest.mark.parametrize("config", TINY, ids=lambda c: f"{c.dice}-{c.faces}-{c.wild}-{c.bids}")
def test_lp_value_matches_brute_force_normal_form(config):
    assert solve_round(config).value == pytest.approx(_normal_form_value(config), abs=1e-7)


def _brute_best_response(config: GameConfig, policy, role: int) -> float:
    """Best-response payoff against ``policy`` in ``role``: per own hand, the best reduced pure plan."""
    dice = config.starting_dice
    table = sum(dice)
    hands = [_hands(d, config.faces) for d in dice]
    policy.reset(role, config)

    def value(history, plan, hand_pol, hand_br):  # payoff to the best responder
        actor = len(history) % 2
        if actor == 1 - role:
            action = plan[history]
            options = [(action, 1.0)]
        else:
            view = PublicView(config, role, dice, tuple(((len(history[:k]) % 2), b) for k, b in enumerate(history)))
            options = [(a, float(policy.action_probabilities(np.array([hand_pol]), view, a)[0]))
                       for a in legal_actions(config, table, history[-1] if history else None)]
        total = 0.0
        for action, p in options:
            if p == 0.0:
                continue
            if action is CHALLENGE:
                seat_hands = (hand_pol, hand_br) if role == 0 else (hand_br, hand_pol)
                loser, _ = resolve_challenge(config, np.array(seat_hands), history[-1], 1 - actor, actor)
                total += p * (1 if loser == role else -1)
            else:
                total += p * value(history + (action,), plan, hand_pol, hand_br)
        return total

    plans = _plans(config, table, (), 1 - role)
    best = 0.0
    for hand_br, p_br in hands[1 - role].items():
        best += p_br * max(sum(p * value((), plan, h, hand_br) for h, p in hands[role].items()) for plan in plans)
    return best


@pytest.mark.parametrize("policy", [OneThirdRule(), OneThirdRule(bluff=0.5), RandomPlayer()], ids=repr)
@pytest.mark.parametrize("role", [0, 1])
def test_best_response_matches_brute_force(policy, role):
    config = GameConfig(dice=1, faces=2, wild=1)
    tree = build_tree(config)
    policy.reset(role, config)
    fast = best_response_value(tree, role, policy_behaviour(policy, tree, role))
    assert fast == pytest.approx(_brute_best_response(config, policy, role), abs=1e-12)


# ---------------------------------------------------------------- report 001's endgame theorems

@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_theorem_2_1_second_player_wins(n):
    """One die each, n faces, no wild face: P(player II wins) = (C(n+1, 2) - 1) / n^2."""
    solution = solve_round(GameConfig(dice=1, faces=n, wild=None))
    expected = Fraction(comb(n + 1, 2) - 1, n * n)
    assert 1.0 - solution.opener_win_probability == pytest.approx(float(expected), abs=1e-9)


def test_theorem_2_2_three_faces_highest_wild():
    """Three faces, 3 wild, one die each: P(player II wins) = 4/9. With two dice on the table the
    report's ordering (c wild ranks as 2c) and ours give the same six bids in the same order."""
    solution = solve_round(GameConfig(dice=1, faces=3, wild=3))
    assert [str(b) for b in solution.tree.bids] == ["1x1", "1x2", "1x3", "2x1", "2x2", "2x3"]
    assert 1.0 - solution.opener_win_probability == pytest.approx(4 / 9, abs=1e-9)


# ---------------------------------------------------------------- equilibrium and exploitability

@pytest.mark.parametrize(
    "config",
    [GameConfig(dice=1, faces=4, wild=1), GameConfig(dice=(1, 2), faces=3, wild=3),
     GameConfig(dice=1, faces=3, bids="sixes")],
    ids=str,
)
def test_equilibrium_plans_are_feasible_and_unexploitable(config):
    solution = solve_round(config)
    E, F, A = sequence_form(solution.tree)
    x, y = solution.plans
    assert np.abs(E @ x - np.eye(E.shape[0])[0]).max() < 1e-9
    assert np.abs(F @ y - np.eye(F.shape[0])[0]).max() < 1e-9
    assert x.min() > -1e-9 and y.min() > -1e-9
    assert x @ (A @ y) == pytest.approx(solution.value, abs=1e-9)
    result = exploitability(NashPlayer(), config)
    assert result.value == pytest.approx(solution.value)
    assert abs(result.as_opener) <= 1e-6 and abs(result.as_responder) <= 1e-6


def test_exploitability_of_heuristics_is_positive_and_consistent():
    config = GameConfig(dice=1, faces=3, wild=1)
    value = solve_round(config).value
    for policy in (OneThirdRule(), RandomPlayer()):
        result = exploitability(policy, config)
        assert result.as_opener > 1e-3 and result.as_responder > 1e-3
        assert result.best_response_to_responder >= value - 1e-12  # a best responder does at least as well as Nash
        assert result.average == pytest.approx((result.as_opener + result.as_responder) / 2)


def test_replay_policy_reads_probabilities_off_act():
    config = GameConfig(dice=1, faces=3, wild=1)
    assert exploitability(ReplayPolicy(OneThirdRule), config) == exploitability(OneThirdRule(), config)
    # a randomised player: frequencies over fresh players estimate its probabilities (4 sigma)
    samples = 400
    replay = ReplayPolicy(lambda: OneThirdRule(bluff=0.5), samples=samples, seed=2)
    tree = build_tree(config)
    node = tree.node_index[(tree.bids[-2],)]  # 2x2 stands: the rule wants to challenge with most hands
    view = PublicView(config, 1, (1, 1), tree.history(node))
    truth, estimate = OneThirdRule(bluff=0.5), replay
    for action in tree.actions(node):
        p = truth.action_probabilities(tree.hands[1], view, action)
        q = estimate.action_probabilities(tree.hands[1], view, action)
        assert np.all(np.abs(q - p) <= 4 * np.sqrt(p * (1 - p) / samples) + 1e-12)
    with pytest.raises(ValueError, match="samples"):
        ReplayPolicy(OneThirdRule, samples=0)


def test_policy_probabilities_must_sum_to_one():
    class Broken(RandomPlayer):
        def action_probabilities(self, hands, view, action):
            return super().action_probabilities(hands, view, action) * 0.5

    with pytest.raises(ValueError, match="sum to"):
        exploitability(Broken(), GameConfig(dice=1, faces=2))


# ---------------------------------------------------------------- the Nash player

def test_nash_player_is_registered_and_plays_a_multi_round_game():
    config = GameConfig(dice=2, faces=3, wild=1)
    players = [make_player("nash"), make_player("random")]
    rng = np.random.default_rng(3)
    n = 200
    records = [play_game(config, players, rng, first_opener=k % 2) for k in range(n)]
    assert all(r.winner in (0, 1) for r in records)
    # it wins ~76% against random (measured over 600 games): assert more than 4 standard errors above a coin
    assert sum(r.winner == 0 for r in records) > n * (0.5 + 4 * math.sqrt(0.25 / n))


def _mixed_decision(solution):
    """(role, node, hand row) of a decision the equilibrium reaches and randomises at."""
    tree = solution.tree
    for node in range(tree.num_nodes):
        role = int(tree.node_depth[node] % 2)
        rows = np.arange(len(tree.hands[role]))
        parent = np.full(len(rows), tree.own_parent_edge[node])
        reached = solution.plans[role][_sequence(tree, role, rows, parent)] > 1e-6
        probs = solution.probabilities(role, rows, node)
        mixed = reached & ((probs > 0.05) & (probs < 0.95)).any(axis=1)
        if mixed.any():
            return role, node, int(np.argmax(mixed))
    raise AssertionError("the equilibrium never randomises")


def test_nash_names_the_sizes_it_solves_in_its_summary_and_the_docs():
    def largest(faces: int, bids: str) -> int:
        dice = 1
        while True:
            try:
                check_size(GameConfig(2, dice + 1, faces=faces, bids=bids))
            except ValueError:
                return dice
            dice += 1

    table = {bids: [largest(faces, bids) for faces in range(2, 7)] for bids in ("full", "sixes")}
    assert table == {"full": [3, 2, 1, 1, 1], "sixes": [100, 27, 13, 9, 7]}  # 100: GameConfig's limit, 200 on the table
    assert ("with 6 faces 1 die each in the full game, up to 7 each in the sixes game"
            in registered_names()["nash"])  # `ldpomdp players`
    page = (ROOT / "docs" / "exact.md").read_text(encoding="utf-8")
    assert "| full game | 3 | 2 | 1 | 1 | 1 |" in page and "| sixes game | 100 | 27 | 13 | 9 | 7 |" in page


def test_nash_player_probabilities_match_its_solution_and_sampling():
    config = GameConfig(dice=(1, 2), faces=3, wild=1)
    solution = cached_solution(config)
    role, node, row = _mixed_decision(solution)
    tree = solution.tree
    player = NashPlayer()
    player.reset(role, config)
    history = tree.history(node)
    view = PublicView(config, role, (1, 2), history)
    actions = tree.actions(node)
    hands = tree.hands[role]
    probs = np.stack([player.action_probabilities(hands, view, a) for a in actions], axis=1)
    np.testing.assert_allclose(probs, solution.probabilities(role, np.arange(len(hands)), node))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    # sampling follows the probabilities (4 sigma on 4000 draws)
    hand_view = PlayerView(config, role, (1, 2), history, hand=tuple(int(v) for v in hands[row]))
    rng = np.random.default_rng(11)
    draws = Counter(player.act(hand_view, rng) for _ in range(4000))
    assert sum(draws.values()) == 4000 and set(draws) <= set(actions)
    for k, action in enumerate(actions):
        p = probs[row, k]
        assert abs(draws[action] / 4000 - p) <= 4 * np.sqrt(p * (1 - p) / 4000) + 1e-12


def test_nash_cache_is_written_and_reused(tmp_path, monkeypatch):
    import ldpomdp.exact.two_player.solved_rounds as nash

    config = GameConfig(dice=1, faces=3, wild=None)
    nash._MEMORY.clear()  # earlier tests may hold this round in memory, under another cache folder
    first = cached_solution(config)
    files = list((tmp_path / "cache" / "nash").glob("round-*.npz"))
    assert len(files) == 1
    nash._MEMORY.clear()
    monkeypatch.setattr(nash, "solve_round", lambda *a, **k: pytest.fail("solved again despite the cache"))
    again = cached_solution(config)
    assert again.value == first.value
    np.testing.assert_array_equal(again.behaviour[0], first.behaviour[0])


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_nash_cache_file_is_solved_again(tmp_path, monkeypatch, kind):
    import ldpomdp.exact.two_player.solved_rounds as nash

    config = GameConfig(dice=1, faces=3, wild=None)
    nash._MEMORY.clear()
    first = cached_solution(config)
    (path,) = (tmp_path / "cache" / "nash").glob("round-*.npz")
    damage(path, kind)
    nash._MEMORY.clear()
    again = cached_solution(config)  # used to raise BadZipFile or EOFError for a truncated or empty file
    assert again.value == first.value
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left
    nash._MEMORY.clear()
    monkeypatch.setattr(nash, "solve_round", lambda *a, **k: pytest.fail("the solution was not stored again"))
    assert cached_solution(config).value == first.value


def test_too_large_or_unsupported_configurations_are_refused():
    with pytest.raises(ValueError, match="MAX_SEQUENCES"):
        NashPlayer().reset(0, GameConfig(dice=3, faces=6))
    with pytest.raises(ValueError, match="two players"):
        solve_round(GameConfig(num_players=3, dice=1, faces=3))
    with pytest.raises(ValueError, match="dice must be"):
        solve_round(GameConfig(dice=1, faces=3), dice=(0, 1))
    tree = build_tree(GameConfig(dice=1, faces=3))
    with pytest.raises(ValueError, match="face-count vector"):
        tree.hand_index(0, np.array([[1, 1, 0]]))
