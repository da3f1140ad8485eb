"""The reinforcement-learning environments: PettingZoo's API test, the action numbering, the rewards, and the
Gymnasium wrapper against seated players."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test

from ldpomdp import CHALLENGE, Bid, GameConfig, IllegalActionError, PlayerError
from ldpomdp.envs import LiarsDiceGymEnv, liars_dice_env
from ldpomdp.envs.coding import REPORT_SHAPING, Shaping, round_reward
from ldpomdp.game import RoundEnd
from ldpomdp.rules import ActionCoding, legal_actions

CONFIGS = [GameConfig(), GameConfig(3, (1, 2, 3)), GameConfig(4, 2, bids="sixes", wild=None, opener="loser"),
           GameConfig(2, 1, faces=2, wild=2)]


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api(config):
    api_test(liars_dice_env(config), num_cycles=200)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_action_numbering_round_trips_and_masks_the_legal_actions(config):
    coding = ActionCoding(config)
    numbers = [coding.index(a) for a in legal_actions(config, sum(config.starting_dice), None)]
    assert len(set(numbers)) == len(numbers)
    assert all(coding.index(coding.action(i)) == i for i in range(coding.size))
    assert coding.action(coding.challenge) is CHALLENGE
    with pytest.raises(ValueError, match="not an action"):
        coding.index(Bid(sum(config.starting_dice) + 1, config.faces))
    with pytest.raises(ValueError, match="integer in 0"):
        coding.action(coding.size)


def random_games(config, games, seed, shaping=REPORT_SHAPING):
    """Play ``games`` games with uniform legal actions; yields (env, rewards summed per agent) after each."""
    env = liars_dice_env(config, shaping=shaping)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(games):
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, done, _, _ = env.last()
            totals[agent] += reward
            env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        yield env, totals
        env.reset()


def test_unshaped_rewards_are_plus_one_for_the_winner_and_minus_one_for_the_others():
    for env, totals in random_games(GameConfig(3, 2), 20, seed=3, shaping=Shaping()):
        winner = env.possible_agents[env.state.record.winner]
        assert totals == {a: (1.0 if a == winner else -1.0) for a in env.possible_agents}


def test_seeded_reset_replays_the_same_game():
    def moves(seed):
        env = liars_dice_env(GameConfig(2, 3))
        env.reset(seed=seed)
        out = []
        for agent in env.agent_iter():
            obs, _, done, _, _ = env.last()
            action = None if done else int(np.flatnonzero(obs["action_mask"])[-1 if len(out) % 3 else 0])
            out.append((agent, tuple(obs["observation"]), action))
            env.step(action)
        return out

    assert moves(7) == moves(7)
    assert moves(7) != moves(8)


def test_illegal_action_raises_naming_the_agent():
    env = liars_dice_env(GameConfig())
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="player_0"):
        env.step(env.coding.challenge)  # the opener must bid


def test_round_reward_follows_report_004():
    end = RoundEnd(0, ((1, 0), (0, 1)), Bid(2, 2), bidder=1, caller=0, loser=1, matching=1, dice_after=(1, 0))
    history = ((0, Bid(1, 1)), (1, Bid(2, 2)))
    assert round_reward(end, history, 0, REPORT_SHAPING) == pytest.approx((100 + 500) / 5000)  # held bid, right call
    assert round_reward(end, history, 1, REPORT_SHAPING) == pytest.approx(-500 / 5000)  # bluff called
    wrong = RoundEnd(0, ((1, 0), (0, 1)), Bid(2, 2), bidder=1, caller=0, loser=0, matching=2, dice_after=(0, 1))
    assert round_reward(wrong, history, 0, REPORT_SHAPING) == pytest.approx((100 - 1000) / 5000)
    assert round_reward(wrong, history, 1, REPORT_SHAPING) == pytest.approx(100 / 5000)
    risky = Shaping(bluff_called=-1.0, risk=1.0, small_raise=0.5)
    assert round_reward(end, history, 1, risky) == pytest.approx(-1.0 * (1 + 2 / 2) + 0.5)


def test_gym_wrapper_plays_whole_games_against_seated_players():
    env = LiarsDiceGymEnv(["aggressive", "conservative"], GameConfig(dice=2))
    assert env.config.num_players == 3
    obs, info = env.reset(seed=0)
    seats, results = set(), []
    for _ in range(30):
        assert env.observation_space.contains(obs)
        seats.add(info["seat"])
        done, total = False, 0.0
        while not done:
            legal = np.flatnonzero(env.action_masks())
            assert np.array_equal(legal, np.flatnonzero(info["action_mask"])) and len(legal)
            obs, reward, done, truncated, info = env.step(int(legal[0]))  # always the smallest bid: never challenges
            total += reward
        assert total == (1.0 if info["won"] else -1.0)
        results.append(info["won"])
        obs, info = env.reset()
    assert seats == {0, 1, 2}
    assert not all(results)
    with pytest.raises(ValueError, match="opponents"):
        LiarsDiceGymEnv("aggressive")
    with pytest.raises(ValueError, match="3 players but 1 opponents"):
        LiarsDiceGymEnv(["random"], GameConfig(3))


class _Broken:
    """A seated player whose ``act`` fails, to check that the wrapper names it like ``play_game`` does."""

    name = "broken"

    def reset(self, seat, config):
        pass

    def observe(self, event):
        pass

    def act(self, view, rng):
        raise KeyError("no such bid")


def test_gym_wrapper_names_a_seated_player_that_fails():
    env = LiarsDiceGymEnv([_Broken()], GameConfig(dice=2), seat=1)  # the broken player opens the first round
    with pytest.raises(PlayerError, match=r"player broken \(seat 0\) raised KeyError in act"):
        env.reset(seed=0)
