"""Liar's Dice as a PettingZoo AEC environment over the package's own rules and game core
(``GameState``). Needs the ``rl`` extra (pettingzoo, gymnasium)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..errors import UsageError
from ..game import Event, GameState, PublicView, RoundEnd, RoundState
from ..rules import ActionCoding, GameConfig
from .coding import NO_SHAPING, Shaping, observation_size, observation_vector, round_reward

__all__ = ["LiarsDiceEnv", "liars_dice_env"]


class LiarsDiceEnv(AECEnv):
    """PettingZoo AEC environment: every seat is an agent, ``"player_0" .. "player_{n-1}"`` (docs/learning.md).

    Observations are ``{"observation": float32 vector, "action_mask": int8 vector}`` (the vector of
    ``observation_vector``; the mask, also in ``infos[agent]``, all zeros for an agent not to
    act); actions are ``ActionCoding`` numbers, an illegal one raising
    ``IllegalActionError``; rewards +1 to the winner, -1 to an agent losing its last die, and
    ``shaping``'s ``round_reward`` each round; ``events``: the last step's public events.
    """

    metadata = {"render_modes": ["human"], "name": "liars_dice_v0", "is_parallelizable": False}

    def __init__(self, config: GameConfig | None = None, shaping: Shaping = NO_SHAPING,
                 render_mode: str | None = None):
        super().__init__()
        config = GameConfig() if config is None else config
        if not isinstance(config, GameConfig):
            raise UsageError(f"liars_dice_env: config must be a GameConfig, got {type(config).__name__}")
        if not isinstance(shaping, Shaping):
            raise UsageError(f"liars_dice_env: shaping must be a Shaping, got {type(shaping).__name__}")
        if render_mode not in (None, "human"):
            raise UsageError(f"liars_dice_env: render_mode must be None or 'human', got {render_mode!r}")
        self.config, self.shaping, self.render_mode = config, shaping, render_mode
        self.coding = ActionCoding(config)
        self.possible_agents = [f"player_{i}" for i in range(config.num_players)]
        size = observation_size(config)
        high = float(max(max(config.starting_dice), 1))
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, high, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.coding.size,), np.int8),
        }) for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(self.coding.size) for a in self.possible_agents}
        self.state: GameState | None = None
        self.events: list[Event] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def seat_of(self, agent: str) -> int:
        """The seat of ``agent``."""
        return self.possible_agents.index(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` seeds every die roll (None: fresh entropy, or the previous stream continued)."""
        first_opener = (options or {}).get("first_opener", 0)
        if seed is not None or not hasattr(self, "_rng"):
            self._rng = np.random.default_rng(seed)
        self.state = GameState(self.config, self._rng, first_opener)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.events = [self.state.start_round()]
        self._select()

    def current_game(self) -> GameState:
        """The game under way; ValueError before ``reset``."""
        if self.state is None:
            raise ValueError("LiarsDiceEnv: no game under way, call reset() first")
        return self.state

    def current_round(self) -> RoundState:
        """The game's current round (one is always under way after ``reset``)."""
        rnd = self.current_game().round
        assert rnd is not None  # reset starts the first round, and step the next one
        return rnd

    def _view(self) -> PublicView:
        return self.current_round().view()

    def _select(self) -> None:
        """Point ``agent_selection`` at the seat to act and refresh the masks in ``infos``."""
        self.agent_selection = self.possible_agents[self.current_round().seat]
        view = self._view()
        mask = self.coding.mask(view.config, view.table_dice, view.bid)
        for agent in self.agents:
            self.infos[agent]["action_mask"] = mask if agent == self.agent_selection else np.zeros_like(mask)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.seat_of(agent)
        view = self._view()
        acts = seat == view.seat and not self.current_game().over
        mask = self.coding.mask(view.config, view.table_dice, view.bid) if acts else np.zeros(self.coding.size,
                                                                                              dtype=np.int8)
        return {"observation": observation_vector(view, self.current_round().hands[seat], seat, self.coding),
                "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        if action is None:
            raise ValueError(f"LiarsDiceEnv.step: {agent} is still playing, its action cannot be None")
        game = self.current_game()
        history = tuple(self.current_round().history)
        self.events = game.play(self.coding.action(action), agent)
        end = self.events[-1]
        if isinstance(end, RoundEnd):
            for a in self.agents:
                seat = self.seat_of(a)
                self.rewards[a] += round_reward(end, history, seat, self.shaping)
                if end.dice_after[seat] == 0 and end.loser == seat:
                    self.rewards[a] -= 1.0
                    self.terminations[a] = True
            if game.over:
                winner = self.possible_agents[game.record.winner]
                self.rewards[winner] += 1.0
                self.terminations = {a: True for a in self.agents}
            else:
                self.events.append(game.start_round())
        if not game.over:
            self._select()
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """Print (``render_mode="human"``) the last step's events."""
        text = "\n".join(map(str, self.events))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        return None


def liars_dice_env(config: GameConfig | None = None, shaping: Shaping = NO_SHAPING,
                   render_mode: str | None = None) -> LiarsDiceEnv:
    """A PettingZoo AEC environment of ``config`` (default: 2 players, 5 dice, full bids, ones wild); see
    ``LiarsDiceEnv``."""
    return LiarsDiceEnv(config, shaping, render_mode)
