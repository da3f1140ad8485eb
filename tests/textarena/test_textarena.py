"""The package's agents in TextArena's LiarsDice-v0, checked by playing TextArena's own env (offline), and the
``textarena`` preset checked against the moves that env accepts."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

pytest.importorskip("textarena", reason="the textarena extra is not installed (pip install -e '.[textarena]')")

import textarena as ta

from ldpomdp.errors import UsageError
from ldpomdp.game import ActionTaken, RoundEnd, RoundStart
from ldpomdp.players.one_third import OneThirdRule
from ldpomdp.rules import CHALLENGE, Bid, GameConfig, legal_actions
from ldpomdp.textarena import ENV_ID, ShowHands, TextArenaAgent, config_for, make_env, play_game

FACES = range(1, 7)


@pytest.mark.parametrize("specs", [["one-third", "robust"], ["robust", "one-third", "random"],
                                   ["one-third", "random", "one-third:bluff=0.2", "random", "one-third", "random"]])
def test_the_package_agents_play_textarenas_env_to_the_end_without_an_invalid_move(specs):
    for game in range(2):
        agents = [TextArenaAgent(spec, rng=np.random.SeedSequence([7, game, seat])) for seat, spec in enumerate(specs)]
        result = play_game(make_env(), agents, seed=100 + game)
        assert result.invalid_moves == 0
        assert result.rewards[result.winner] == 1.0 and len(result.rewards) == len(specs)


class _Recorder(OneThirdRule):
    """One-third, keeping the events it is shown."""

    def __init__(self):
        super().__init__()
        self.events: list = []

    def observe(self, event):
        self.events.append(event)
        super().observe(event)


def test_the_player_sees_the_games_events_and_an_env_reused_for_a_second_game_resets_it():
    env = make_env()
    recorders = [_Recorder(), _Recorder()]
    agents = [TextArenaAgent(p, rng=seat) for seat, p in enumerate(recorders)]
    for seed in (1, 2):  # the same env and agents: its observation text keeps the first game before the second's
        for r in recorders:
            r.events.clear()
        play_game(env, agents, seed=seed)
        events = recorders[0].events
        assert isinstance(events[0], RoundStart) and events[0].dice == (5, 5) and events[0].round_index == 0
        ends = [e for e in events if isinstance(e, RoundEnd)]
        assert [e.round_index for e in ends] == list(range(len(ends)))
        assert all(sum(map(sum, e.hands)) == sum(e.dice_after) + 1 for e in ends)  # one die lost each round
        calls = [e for e in events if isinstance(e, ActionTaken) and e.action is CHALLENGE]
        assert len(calls) == len(ends)
        # both seats saw the same public events (up to the last turn of the one that acted first)
        shorter, longer = sorted((recorders[0].events, recorders[1].events), key=len)
        assert shorter == longer[:len(shorter)] and len(shorter) > 10


def _accepted(env: ta.Env, move: str) -> bool:
    """Whether the env takes ``move`` in its current position (tried on a copy)."""
    trial = copy.deepcopy(env)
    logged = len(trial.state.logs)
    trial.step(move)
    return not any(re.match(r"Player \d+ (attempted an invalid move|was eliminated)", text)
                   for _, text in trial.state.logs[logged:])


@pytest.mark.parametrize("players", [2, 3])
def test_the_preset_allows_exactly_the_moves_the_env_accepts(players):
    """At positions along seeded games: every bid with a quantity from 1 to the dice on the table, and the call. (The
    env also takes quantity 0 and quantities above the table, which the preset leaves out: docs/textarena.md.)"""
    rng = np.random.default_rng(players)
    env = make_env("LiarsDice-v0-small")  # 3 dice each: short games, every table size down to two dice
    positions, done, seed = 0, True, 0
    while positions < 40 or not done:
        if done:
            env.reset(num_players=players, seed=seed)
            seed += 1
        game = env.state.game_state
        dice = tuple(game["remaining_dice"][s] for s in range(players))
        bid = None if game["last_bidder_id"] is None else Bid(game["current_bid"]["quantity"],
                                                              game["current_bid"]["face_value"])
        legal = legal_actions(config_for(players, 3), sum(dice), bid)
        offered = [Bid(q, f) for q in range(1, sum(dice) + 1) for f in FACES] + [CHALLENGE]
        assert [a for a in offered if _accepted(env, "[Call]" if a is CHALLENGE else f"[Bid: {a.quantity}, {a.face}]")
                ] == [a for a in offered if a in legal]
        positions += 1
        action = legal[rng.integers(len(legal))] if rng.random() < 0.8 or bid is None else CHALLENGE
        done, _ = env.step("[Call]" if action is CHALLENGE else f"[Bid: {action.quantity}, {action.face}]")


def test_the_preset_is_textarenas_rules():
    config = GameConfig.preset("textarena", num_players=3)
    assert config.wild is None and config.raise_order == "no_lower" and config.starting_dice == (5, 5, 5)
    assert config.opener == "after_challenger" and config.loss == "one"
    assert config_for(2, 3) == GameConfig.preset("textarena", dice=3)


def _prompt() -> str:
    """Player 0's first observation of a two-player game."""
    env = make_env()
    env.reset(num_players=2, seed=0)
    return env.get_observation()[1]


def test_text_the_agent_cannot_read_is_a_one_line_usage_error():
    agent = TextArenaAgent("one-third", rng=0)
    with pytest.raises(UsageError, match="expects LiarsDice-v0's observation text"):
        agent("Welcome to chess")
    with pytest.raises(UsageError, match="does not start with LiarsDice-v0's prompt"):
        agent("\n[GAME] Welcome to chess")
    with pytest.raises(UsageError, match="expects the observation text"):
        agent([(0, "hello", None)])  # type: ignore[arg-type]  # the -raw env's observations
    text = _prompt()
    assert TextArenaAgent("one-third", rng=0)(text).startswith("[Bid: ")
    with pytest.raises(UsageError, match="cannot read the message 'Player 1 does a dance.'"):
        TextArenaAgent("one-third", rng=0)(text + "\n[GAME] Player 1 does a dance.")
    with pytest.raises(UsageError, match="outside the textarena preset's bids"):
        TextArenaAgent("one-third", rng=0)(text + "\n[Player 0] [Bid: 0, 3]\n[GAME] Player 0 bids 0 of face 3.")


def test_a_call_without_the_hands_shown_names_show_hands():
    env = ta.make(ENV_ID)  # not wrapped in ShowHands
    env.reset(num_players=2, seed=3)
    agents = [TextArenaAgent("one-third", rng=seat) for seat in range(2)]
    with pytest.raises(UsageError, match="wrap the env in ldpomdp.textarena.ShowHands"):
        for _ in range(200):
            seat, observation = env.get_observation()
            env.step(agents[seat](observation))


def test_show_hands_shows_every_hand_before_a_valid_call_only():
    env = ShowHands(ta.make(ENV_ID))
    env.reset(num_players=2, seed=5)
    env.step("[Call]")  # no bid to call: invalid, nothing shown
    assert not any(text.startswith("Hands shown") for _, text in env.state.logs)
    rolls = copy.deepcopy(env.state.game_state["dice_rolls"])
    env.step("[Bid: 1, 2]")
    env.step("call")  # as ActionFormattingWrapper reads it
    shown = [text for _, text in env.state.logs if text.startswith("Hands shown")]
    assert shown == ["Hands shown: " + "; ".join(f"Player {s}: {', '.join(map(str, rolls[s]))}" for s in (0, 1))]


def test_make_env_takes_the_liars_dice_envs_only():
    with pytest.raises(UsageError, match="make_env: takes LiarsDice-v0"):
        make_env("Chess-v0")
