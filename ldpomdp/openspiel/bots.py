"""Both directions of play between the package and OpenSpiel.

- :func:`bot` / :class:`PackageBot`: any package player spec as a ``pyspiel.Bot`` on the bridged game.
- :class:`PackagePolicy`: a package player as an OpenSpiel ``Policy`` (for exploitability, best responses, ...).
- :func:`load_policy_table`: a tabular policy saved from OpenSpiel, as the ``openspiel`` player
  (:class:`~ldpomdp.planners.openspiel_player.OpenSpielPlayer`) plays it.
- :func:`roll_outcome`: a chance outcome drawn exactly as :func:`~ldpomdp.game.play_game` rolls a hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import cast

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy

from ..exact.best_response import ReplayPolicy
from ..game import Event, Player, roll_hand
from ..opponent import OpponentModel
from ..registry import make_player
from .game import LiarsDiceGame, LiarsDiceState

__all__ = ["PackageBot", "PackagePolicy", "bot", "load_policy_table", "roll_outcome"]


def _bridged(state: object, who: str) -> LiarsDiceState:
    if not isinstance(state, LiarsDiceState):
        raise TypeError(f"{who}: expects a state of the bridged game, got {type(state).__name__}")
    return state


def roll_outcome(state: LiarsDiceState, rng: np.random.Generator) -> int:
    """The outcome of ``state``'s chance node drawn as the package rolls that seat's hand (one
    :func:`~ldpomdp.game.roll_hand` draw from ``rng``), so a game driven with it replays a seeded package game."""
    state = _bridged(state, "roll_outcome")
    return state.rules.outcome(roll_hand(state.dice[state.to_roll], state.rules.faces, rng))


class PackageBot(pyspiel.Bot):
    """A package player at a seat of the bridged game: before each decision it is shown the public events it has
    not seen yet (as :func:`~ldpomdp.game.play_game` shows them), then asked to act with ``rng``."""

    def __init__(self, player: Player, game: LiarsDiceGame, seat: int, rng: np.random.Generator):
        pyspiel.Bot.__init__(self)
        if not isinstance(game, LiarsDiceGame):
            raise TypeError(f"PackageBot: expects the bridged game, got {type(game).__name__}")
        if isinstance(seat, bool) or seat not in range(game.num_players()):
            raise ValueError(f"PackageBot: seat must be in 0..{game.num_players() - 1}, got {seat!r}")
        self.player, self.game, self.seat, self.rng = player, game, seat, rng
        self._seen = -1  # events shown to the player; -1: not reset for this game yet

    def restart(self) -> None:
        self._seen = -1

    def restart_at(self, state: pyspiel.State) -> None:
        self._seen = -1
        self._catch_up(_bridged(state, "PackageBot"))

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Events are read off the state at the next decision; nothing to do here."""

    def _catch_up(self, state: LiarsDiceState) -> None:
        events: list[Event] = state.events()
        if self._seen < 0 or len(events) < self._seen:  # a new game
            self.player.reset(self.seat, self.game.config)
            self._seen = 0
        for event in events[self._seen:]:
            self.player.observe(event)
        self._seen = len(events)

    def step(self, state: pyspiel.State) -> int:
        state = _bridged(state, "PackageBot")
        if state.current_player() != self.seat:
            raise ValueError(f"PackageBot for seat {self.seat} asked to act at seat {state.current_player()}")
        self._catch_up(state)
        return state.rules.encode(self.player.act(state.player_view(), self.rng))


def bot(spec: str, game: LiarsDiceGame, seat: int, rng: np.random.Generator | int | None = None) -> PackageBot:
    """The package player of ``spec`` as a ``pyspiel.Bot`` at ``seat`` of the bridged ``game``; ``rng`` (a
    generator or a seed) is what the player's ``act`` draws from."""
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    return PackageBot(make_player(spec), game, seat, rng)


class PackagePolicy(os_policy.Policy):
    """A package player as an OpenSpiel policy of every seat: its ``action_probabilities`` on the acting seat's hand
    and the round's public view, or, for a player without them, :class:`~ldpomdp.exact.ReplayPolicy`'s reading of
    its ``act`` (exact for players deterministic given what they saw)."""

    def __init__(self, spec: str, game: LiarsDiceGame):
        if not isinstance(game, LiarsDiceGame):
            raise TypeError(f"PackagePolicy: expects the bridged game, got {type(game).__name__}")
        super().__init__(game, list(range(game.num_players())))
        self.spec = spec
        self._models: dict[int, OpponentModel] = {}
        self._cache: dict[tuple, dict[int, float]] = {}
        self._model(0)  # a bad spec fails here

    def _model(self, seat: int) -> OpponentModel:
        if seat not in self._models:
            player = make_player(self.spec)
            model = player if callable(getattr(player, "action_probabilities", None)) else \
                ReplayPolicy(lambda: make_player(self.spec), name=self.spec)
            model.reset(seat, self.game.config)
            self._models[seat] = cast(OpponentModel, model)  # action_probabilities checked above, or read off act
        return self._models[seat]

    def action_probabilities(self, state: pyspiel.State, player_id: int | None = None) -> dict[int, float]:
        state = _bridged(state, "PackagePolicy")
        seat, hand = state.current_player(), state.hands[state.current_player()]
        key = (seat, hand, state.dice, state.opener, state.palifico, tuple(state.bid_ids))
        found = self._cache.get(key)
        if found is None:
            model, view, hands = self._model(seat), state.public_view(), np.array([hand])
            found = {a: float(model.action_probabilities(hands, view, state.rules.decode(a))[0])
                     for a in state.legal_actions()}
            self._cache[key] = found
        return found


def load_policy_table(path: str | Path) -> dict[str, list[tuple[int, float]]]:
    """A tabular policy saved from OpenSpiel: ``policy.to_dict()`` of an OpenSpiel ``TabularPolicy`` (information
    state string -> [(action, probability), ...], the mapping ``pyspiel.TabularPolicy`` takes), written with
    ``json.dump``. Only JSON is read, never a pickle: unpickling a file runs whatever code it holds, and a spec
    naming the file may come from a sweep folder or a web page. A ValueError names the file and what is wrong."""
    name = f"openspiel policy file {str(path)!r}"
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{name} does not exist")
    try:
        table = json.loads(path.read_bytes())
    except ValueError as exc:  # not UTF-8 text, or not JSON
        raise ValueError(f"{name} is not JSON ({exc}): save the table with json.dump(policy.to_dict(), "
                         f"file) (pickles are not read: unpickling runs the file's code)") from None
    if not isinstance(table, dict) or not table:
        raise ValueError(f"{name} holds no {{information state: [[action, probability], ...]}} table (save "
                         f"TabularPolicy.to_dict())")
    for key, entry in table.items():
        if not (isinstance(entry, list) and entry and all(_pair(item) for item in entry)):
            shown = json.dumps(entry)
            raise ValueError(f"{name}: the entry of information state {key!r} is not a list of [action, probability] "
                             f"pairs (actions integers >= 0, probabilities in [0, 1]): "
                             f"{shown if len(shown) <= 60 else shown[:57] + '...'}")
    return {key: [(int(a), float(p)) for a, p in entry] for key, entry in table.items()}


def _pair(item: object) -> bool:
    """Whether ``item`` is an [action, probability] pair as ``TabularPolicy.to_dict()`` writes one."""
    if not (isinstance(item, list) and len(item) == 2):
        return False
    action, p = item
    return (isinstance(action, int) and not isinstance(action, bool) and action >= 0
            and isinstance(p, (int, float)) and not isinstance(p, bool) and math.isfinite(p) and 0 <= p <= 1)

