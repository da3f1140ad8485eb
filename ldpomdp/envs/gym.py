"""A Gymnasium single-agent view of ``LiarsDiceEnv``: one learner against the package's players.

The learner holds one seat; the other seats are players built from specs (``["aggressive", "conservative"]``, see
``ldpomdp players``), so any Gymnasium algorithm can train against the package's players. Needs the ``rl`` extra."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import gymnasium
import numpy as np

from ..errors import UsageError
from ..game import Player, ask
from ..registry import make_player
from ..rules import GameConfig
from .aec import LiarsDiceEnv
from .coding import NO_SHAPING, Shaping

__all__ = ["LiarsDiceGymEnv"]


class LiarsDiceGymEnv(gymnasium.Env):
    """One learner against seated players: ``opponents``, player specs or players, one per other seat.

    ``config`` (default ``GameConfig()``) has ``1 + len(opponents)`` players, or 2 and the same dice for every seat
    (widened to the table); ``seat``: the learner's, or None to rotate it and the first opener game by game;
    ``shaping``: per-round rewards. Observation and ``info["action_mask"]`` (also ``action_masks``, MaskablePPO's
    name) as in the AEC environment; reward: the learner's +1 / -1 plus the shaping, summed over the other seats' moves.
    An illegal action raises ``IllegalActionError``.
    """

    metadata = {"render_modes": []}

    def __init__(self, opponents: Sequence[str | Player], config: GameConfig | None = None,
                 seat: int | None = None, shaping: Shaping = NO_SHAPING):
        if isinstance(opponents, str) or not opponents:
            raise UsageError("LiarsDiceGymEnv.opponents must be a non-empty list of player specs or players, "
                             f"got {opponents!r}")
        players = [make_player(o) if isinstance(o, str) else o for o in opponents]
        base = GameConfig() if config is None else config
        if not isinstance(base, GameConfig):
            raise UsageError(f"LiarsDiceGymEnv.config must be a GameConfig, got {type(base).__name__}")
        n = 1 + len(players)
        if base.num_players != n:
            if config is not None and base.num_players != 2:
                raise UsageError(f"LiarsDiceGymEnv: config has {base.num_players} players but "
                                 f"{len(players)} opponents were given")
            dice = base.starting_dice[0] if len(set(base.starting_dice)) == 1 else None
            if dice is None:
                raise UsageError("LiarsDiceGymEnv: config lists dice per player for another number of players")
            base = replace(base, num_players=n, dice=(dice,) * n)  # the same rules (variants too) for n players
        if seat is not None and (isinstance(seat, bool) or seat not in range(n)):
            raise UsageError(f"LiarsDiceGymEnv.seat must be None or a seat in 0..{n - 1}, got {seat!r}")
        self.aec = LiarsDiceEnv(base, shaping)
        self.config, self.opponents, self.fixed_seat = base, players, seat
        self.observation_space = self.aec.observation_spaces["player_0"]["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.games = 0
        self.seat = 0
        self.players: list[Player | None] = []
        self._seq = np.random.SeedSequence()
        self._rng = np.random.default_rng(self._seq)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game. With ``seed`` the dice, the seated players' draws and every later game (reset without a
        seed) follow from it; the learner's seat and the first opener rotate with the games since creation."""
        super().reset(seed=seed)
        if seed is not None:
            self._seq = np.random.SeedSequence(seed)
        n = self.config.num_players
        dice_seq, act_seq, *player_seqs = self._seq.spawn(1 + n)
        self._rng = np.random.default_rng(act_seq)
        self.seat = self.games % n if self.fixed_seat is None else self.fixed_seat
        self.players = list(self.opponents)
        self.players.insert(self.seat, None)
        first_opener = self.games % n
        self.games += 1
        self.aec.reset(seed=int(dice_seq.generate_state(1)[0]), options={"first_opener": first_opener})
        for s, p in enumerate(self.players):
            if p is not None:
                if callable(getattr(p, "reseed", None)):
                    ask(p, s, "reseed", player_seqs[s])
                ask(p, s, "reset", s, self.config)
        return self._advance()

    @property
    def agent(self) -> str:
        """The learner's AEC agent name."""
        return self.aec.possible_agents[self.seat]

    def action_masks(self) -> np.ndarray:
        """The learner's legal-action mask (bool) at the current observation."""
        return self.aec.infos[self.agent]["action_mask"].astype(bool)

    def _show(self) -> None:
        for event in self.aec.events:
            for s, p in enumerate(self.players):
                if p is not None:
                    ask(p, s, "observe", event)

    def _advance(self) -> tuple[np.ndarray, dict[str, Any]]:
        """Show the last events to the seated players and let them move until the learner is to act or is out."""
        self._show()
        while not self.aec.terminations[self.agent] and self.aec.agent_selection != self.agent:
            acting = self.aec.agent_selection
            if self.aec.terminations[acting]:
                self.aec.step(None)  # a seated player that is out leaves the table
                continue
            seat = self.aec.seat_of(acting)
            player = self.players[seat]
            assert player is not None  # only the learner's seat is empty, and the learner is not acting
            action = ask(player, seat, "act", self.aec.current_round().view(), self._rng)
            self.aec.step(self.aec.coding.index(action))
            self._show()
        obs = self.aec.observe(self.agent)
        return obs["observation"], {"action_mask": obs["action_mask"], "seat": self.seat}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner's action, then the seated players' until its next turn; ``info["won"]`` at the end."""
        if not self.players or self.aec.terminations[self.agent]:
            raise ValueError("LiarsDiceGymEnv.step: no game in progress, call reset()")
        self.aec.step(action)
        obs, info = self._advance()
        done = self.aec.terminations[self.agent]
        if done:
            info["won"] = self.aec.current_game().record.winner == self.seat
        return obs, float(self.aec._cumulative_rewards[self.agent]), bool(done), False, info
