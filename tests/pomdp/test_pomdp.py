"""The one-round POMDP on pomdp-py: models are consistent, states stay legal, pomdp-py planners run on it."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from collections import Counter

import numpy as np
import pomdp_py
import pytest

from ldpomdp import CHALLENGE, Bid, GameConfig, OneThirdRule, PlayerView, RandomPlayer
from ldpomdp.belief import TableBelief
from ldpomdp.pomdp import END, LDAction, LDObservation, LDParticles, LDState, PolicyModel, RoundPOMCP, make_agent
from ldpomdp.pomdp.agent import _distinct_rows
from ldpomdp.pomdp.search import SETTLE_CHUNK
from ldpomdp.round_end import resolve_challenge, round_ends, settle_round
from ldpomdp.rules import EXACT, is_legal


def _agent(config, models, history=(), hand=None, seed=0, n_root=300, rollout="expected-count"):
    rng = np.random.default_rng(seed)
    hand = hand or tuple(int(c) for c in rng.multinomial(config.starting_dice[0], [1 / config.faces] * config.faces))
    belief = TableBelief(config, 0, config.starting_dice, models, n_particles=2000, rng=seed)
    view = PlayerView(config, 0, config.starting_dice, history, 0, hand=hand)
    return make_agent(config, 0, models, belief, view, n_root=n_root, rollout=rollout, rng=seed), view


@pytest.mark.parametrize("bids", ["sixes", "full"])
@pytest.mark.parametrize("planner_class", [pomdp_py.POMCP, pomdp_py.POUCT, RoundPOMCP])
def test_pomdp_py_planners_run_in_both_bid_modes(bids, planner_class):
    config = GameConfig(num_players=2, dice=5, bids=bids)
    models = {1: OneThirdRule(0.3)}
    agent, view = _agent(config, models, history=((1, Bid(2, 6)),))
    args = dict(max_depth=8, num_sims=300, planning_time=-1, discount_factor=1.0, exploration_const=1.0,
                rollout_policy=agent.policy_model, show_progress=False)
    planner = planner_class(agent, **args) if planner_class is RoundPOMCP else planner_class(**args)
    action = planner.plan(agent)
    assert isinstance(action, LDAction) and is_legal(config, view.table_dice, view.bid, action.move)
    assert planner.last_num_sims == 300
    assert set(agent.tree.children) == set(agent.policy_model.get_all_actions(history=()))


def _check_legal(config: GameConfig, seat: int, before: LDState, action: LDAction, after: LDState) -> None:
    """Everything a next state must satisfy: legal bids in seating order, the right loser, consistent fields."""
    table = sum(after.dice)
    assert after.hands == before.hands and after.dice == before.dice
    assert after.history[: len(before.history)] == before.history
    added = after.history[len(before.history):]
    bid = before.bid
    actor = seat
    moves = [(seat, action.move)] + list(after.seen)
    for s, move in moves:
        assert s == actor, "players act in seating order"
        assert is_legal(config, table, bid, move)
        bid = move
        actor = (actor + 1) % config.num_players
    assert added == tuple(m for m in moves if m[1] is not CHALLENGE)
    assert all(m[1] is not CHALLENGE for m in moves[:-1])
    challenged = moves[-1][1] is CHALLENGE
    assert after.terminal == challenged
    if challenged:
        bidder = after.history[-1][0]
        loser, _ = resolve_challenge(config, np.array(after.hands), after.history[-1][1], bidder, moves[-1][0])
        assert after.loser == loser
    else:
        assert after.turn == seat and after.loser == -1
        assert all(s != seat for s, _ in after.seen) and len(after.seen) == config.num_players - 1


@pytest.mark.parametrize("config,dice,bidder", [(GameConfig(num_players=3, dice=2, exact_call=True), (2, 0, 2), 2),
                                                (GameConfig(dice=2, loss="difference"), (2, 2), 1)], ids=str)
def test_an_ended_state_names_its_loser_as_a_seat_and_its_end_as_an_index_into_round_ends(config, dice, bidder):
    """Under the rules settled by the count, ``loser`` is the seat that lost dice (-1: nobody, a right exact call)
    and ``end`` the index of the round's end in round_ends; the reward is read under ``end`` (it used to be stored
    in ``loser``, a seat under the other rules)."""
    models = {s: RandomPlayer() for s, d in enumerate(dice) if d > 0 and s != 0}
    rng = np.random.default_rng(5)
    hand = tuple(int(c) for c in rng.multinomial(dice[0], [1 / config.faces] * config.faces))
    belief = TableBelief(config, 0, dice, models, n_particles=500, rng=5)
    view = PlayerView(config, 0, dice, ((bidder, Bid(2, 3)),), 0, hand=hand)
    agent = make_agent(config, 0, models, belief, view, n_root=50, rng=5)
    T, R = agent.transition_model, agent.reward_model
    seen = Counter()
    for state in agent.belief.particles[:50]:
        for call in [CHALLENGE] + [EXACT] * config.exact_call:
            after = T.sample(state, LDAction(call))
            loser, _, left = settle_round(config, np.array(after.hands), dice, Bid(2, 3), bidder, 0, call)
            assert after.terminal and (after.loser, after.end) == (loser, round_ends(config, dice).index((loser, left)))
            assert R.sample(state, LDAction(call), after) == R.outcomes[(after.end, 0)]
            seen[loser] += 1
    assert len(seen) >= 2  # both seats lost in some particle (and nobody, under the exact call)


@pytest.mark.parametrize("bids", ["sixes", "full"])
@pytest.mark.parametrize("players", [2, 3])
def test_transition_never_produces_an_illegal_state(bids, players):
    config = GameConfig(num_players=players, dice=4, bids=bids)
    # seat 1 tabulated (one-third with bluff), seat 2 asked through act (random player)
    models = {1: OneThirdRule(0.5), 2: RandomPlayer()}
    models = {s: models[s] for s in range(1, players)}
    agent, _ = _agent(config, models, n_root=200)
    T, Z, R, policy = agent.transition_model, agent.observation_model, agent.reward_model, agent.policy_model
    rng = np.random.default_rng(3)
    rounds = 0
    for _ in range(300):
        state = agent.belief.random()
        while not state.terminal:
            actions = policy.get_all_actions(state=state)
            action = actions[int(rng.integers(len(actions)))]
            after = T.sample(state, action)
            _check_legal(config, 0, state, action, after)
            obs = Z.sample(after, action)
            assert obs == LDObservation(after.seen, after.loser, after.end) and Z.probability(obs, after, action) == 1.0
            reward = R.sample(state, action, after)
            assert reward == (0.0 if not after.terminal else (-1.0 if after.loser == 0 else 1.0))
            assert T.probability(after, state, action) > 0.0
            state = after
        rounds += 1
        assert policy.get_all_actions(state=state) == [END]
        assert T.sample(state, END) is state and R.sample(state, END, state) == 0.0
    assert rounds == 300


def test_transition_probability_matches_sampling_frequencies():
    config = GameConfig(num_players=2, dice=3, bids="sixes")
    models = {1: OneThirdRule(0.5)}
    agent, _ = _agent(config, models, hand=(1, 1, 1, 0, 0, 0))
    T = agent.transition_model
    state = LDState(((1, 1, 1, 0, 0, 0), (0, 1, 1, 1, 0, 0)), (3, 3), ((1, Bid(1, 6)),), 0)  # no match on seat 1
    action = LDAction(Bid(2, 6))
    n = 4000
    counts = Counter(T.sample(state, action) for _ in range(n))
    assert len(counts) == 2  # bluff (raise) or challenge
    for nxt, k in counts.items():
        p = T.probability(nxt, state, action)
        assert abs(k / n - p) < 4 * np.sqrt(p * (1 - p) / n)
    assert sum(T.probability(s, state, action) for s in counts) == pytest.approx(1.0)


def test_transitions_that_draw_nothing_are_remembered_on_interned_states():
    config = GameConfig(num_players=2, dice=3, bids="sixes")
    hand, other = (1, 1, 1, 0, 0, 0), (0, 1, 1, 1, 0, 0)
    for bluff, remembered in ((0.0, True), (0.5, False)):  # no match on seat 1: the bluffing rule draws
        agent, _ = _agent(config, {1: OneThirdRule(bluff)}, hand=hand)
        T = agent.transition_model
        root = T.set_root(((1, Bid(1, 6)),), [LDState((hand, other), (3, 3), ((1, Bid(1, 6)),), 0) for _ in range(2)])
        assert root[0] is root[1]  # equal particles: one object
        action = LDAction(Bid(2, 6))
        first = T.sample(root[0], action)
        assert (root[0].after is not None and root[0].after.get(action) is first) == remembered
        if remembered:
            assert T.sample(root[0], action) is first and first.terminal  # the rule challenges 2 sixes
    # a model asked through its act may draw: never remembered; and set_root forgets what another search remembered
    state = LDState((hand, other), (3, 3), ((1, Bid(1, 6)),), 0)
    agent, _ = _agent(config, {1: OneThirdRule()}, hand=hand)
    (state,) = agent.transition_model.set_root(state.history, [state])
    agent.transition_model.sample(state, LDAction(Bid(2, 6)))
    assert state.after is not None
    agent, _ = _agent(config, {1: RandomPlayer()}, hand=hand)
    (state,) = agent.transition_model.set_root(state.history, [state])
    assert state.after is None
    replies = {agent.transition_model.sample(state, LDAction(Bid(2, 6))).terminal for _ in range(40)}
    assert state.after is None and replies == {True, False}  # random raises and challenges
    # the next state is one object, however often it is reached
    agent, _ = _agent(config, {1: OneThirdRule()}, hand=hand)
    T = agent.transition_model
    (a,) = T.set_root((), [LDState((hand, (0, 0, 0, 0, 0, 3)), (3, 3), (), 0)])
    assert T._play(a, LDAction(Bid(1, 6)), T._opponent_move) is T._play(a, LDAction(Bid(1, 6)), T._opponent_move)


def test_actions_from_history_match_actions_from_state():
    config = GameConfig(num_players=2, dice=3, bids="full")
    agent, _ = _agent(config, {1: OneThirdRule(0.2)}, history=((1, Bid(1, 3)),))
    T, Z, policy = agent.transition_model, agent.observation_model, agent.policy_model
    rng = np.random.default_rng(0)
    for _ in range(100):
        state, history = agent.belief.random(), ()
        while True:
            assert policy.get_all_actions(state=state) == policy.get_all_actions(history=history)
            if state.terminal:
                break
            actions = policy.get_all_actions(state=state)
            action = actions[int(rng.integers(len(actions)))]
            nxt = T.sample(state, action)
            history += ((action, Z.sample(nxt, action)),)
            state = nxt


def test_pruned_actions_are_challenge_and_smallest_raise_per_face():
    config = GameConfig(num_players=2, dice=3, bids="full")
    agent, _ = _agent(config, {1: OneThirdRule()})
    moves = [a.move for a in agent.policy_model.pruned_actions(Bid(2, 4))]
    assert moves == [Bid(3, 1), Bid(3, 2), Bid(3, 3), Bid(3, 4), Bid(2, 5), Bid(2, 6), CHALLENGE]
    assert [a.move for a in agent.policy_model.pruned_actions(Bid(6, 6))] == [CHALLENGE]
    assert CHALLENGE not in [a.move for a in agent.policy_model.pruned_actions(None)]


def test_actions_are_interned_and_survive_copies():
    a = LDAction(Bid(3, 6))
    assert LDAction(Bid(3, 6)) is a and copy.deepcopy(a) is a and pickle.loads(pickle.dumps(a)) is a
    assert a != LDAction(CHALLENGE) and hash(a) == hash(LDAction(Bid(3, 6)))
    s = LDState(((1, 0), (0, 1)), (1, 1), ((0, Bid(1, 2)),), 1)
    assert copy.deepcopy(s) is s and s == LDState(((1, 0), (0, 1)), (1, 1), ((0, Bid(1, 2)),), 1)
    assert LDObservation(((1, Bid(2, 2)),)) == LDObservation(((1, Bid(2, 2)),))


def test_make_agent_rejects_bad_options():
    config = GameConfig(num_players=2, dice=3)
    with pytest.raises(ValueError, match="rollout"):
        _agent(config, {1: OneThirdRule()}, rollout="greedy")


def test_import_ldpomdp_does_not_import_pomdp_py():
    code = "import sys, ldpomdp, ldpomdp.belief, ldpomdp.planners.expected_count; print('pomdp_py' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _one_state_agent(opponent_hand: tuple[int, ...]):
    """A sixes-game agent whose root particles are all one state: seat 1 opened 1 six, we hold one six of 3 dice."""
    config, hand = GameConfig(num_players=2, dice=3, bids="sixes"), (1, 1, 0, 0, 0, 1)
    agent, _ = _agent(config, {1: OneThirdRule()}, history=((1, Bid(1, 6)),), hand=hand)
    (state,) = agent.transition_model.set_root(((1, Bid(1, 6)),), [LDState((hand, opponent_hand), (3, 3),
                                                                             ((1, Bid(1, 6)),), 0)])
    agent.set_belief(LDParticles([state] * 5, np.random.default_rng(0)))
    return agent


def _search(agent, leaf_value, **kwargs) -> RoundPOMCP:
    args = dict(max_depth=1, num_sims=60, planning_time=-1, discount_factor=1.0, exploration_const=1.0,
                rollout_policy=agent.policy_model, show_progress=False) | kwargs
    planner = RoundPOMCP(agent, leaf_value, **args)
    planner.plan(agent)
    return planner


def test_simulations_leaving_the_tree_end_with_the_leaf_value(monkeypatch):
    """Seat 1 holds 2 sixes: the one-third rule raises our 2 sixes to 3, and the simulation ends there with the
    leaf value, no rollout played; challenging 1 six, which stands, always loses our die (reward -1)."""
    rollouts, rollout = [], PolicyModel.rollout
    monkeypatch.setattr(PolicyModel, "rollout", lambda self, state, history=None: rollouts.append(state) or rollout(
        self, state, history))
    agent = _one_state_agent((0, 1, 0, 0, 0, 2))
    reached = []
    _search(agent, lambda state: reached.append(state.bid) or 0.25)
    children = agent.tree.children
    assert children[LDAction(Bid(2, 6))].value == pytest.approx(0.25) and children[LDAction(CHALLENGE)].value == -1.0
    assert not rollouts and set(reached) == {Bid(1, 6), Bid(3, 6)}  # and at the root: pomdp-py's first simulation
    _search(_one_state_agent((0, 1, 0, 0, 0, 2)), lambda state: None)  # value unknown there: the rollout plays
    assert rollouts


def test_a_search_stops_once_settled_and_otherwise_runs_its_budget():
    """Raising is worth +0.9 and challenging -1 every time: settled after the first step of 20 simulations
    (the largest step up to SETTLE_CHUNK dividing 60; UCB1 exploring enough to visit both), unless no lead is
    enough."""
    assert SETTLE_CHUNK == 25
    for settle, sims in ((3.0, 20), (0.0, 60), (1e6, 60)):
        planner = _search(_one_state_agent((0, 1, 0, 0, 0, 2)), lambda state: 0.9, settle=settle, exploration_const=3)
        assert planner.last_num_sims == sims
    timed = _search(_one_state_agent((0, 1, 0, 0, 0, 2)), lambda state: 0.9, settle=3.0, num_sims=-1,
                    planning_time=0.05)
    assert timed.settle == 0.0 and timed.last_num_sims > 0  # the rule needs a budget of simulations


def test_distinct_rows_keep_the_order_of_first_appearance():
    rng = np.random.default_rng(0)
    for rows in (rng.integers(0, 3, size=(200, 5)), rng.integers(0, 2**40, size=(50, 3)) % 4 * 2**30,
                 np.zeros((0, 4), dtype=np.int64)):
        first, which = _distinct_rows(rows)
        seen = list(dict.fromkeys(map(tuple, rows.tolist())))
        assert [tuple(r) for r in rows[first].tolist()] == seen  # both paths: packed numbers and numpy's unique
        assert (rows[first][which] == rows).all()
