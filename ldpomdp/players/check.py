"""``check_opponent``: test your own opponent model the way ldpomdp relies on it.

It seats the model in real games (its seat rotating, against random and one-third players) and on each of its
turns checks ``act`` and ``action_probabilities`` against each other and the rules, and the optional shortcuts
against ``action_probabilities``; the list of checks is on the Players page ("What the package checks").
"""

from __future__ import annotations

import numpy as np

from ..errors import PlayerError, UsageError
from ..game import IllegalActionError, Player, PlayerView, play_game, player_name
from ..hands import count_hands
from ..hooks import deciding_face_of, shared_probability_of, sum_problem
from ..opponent import OpponentModel, checked_probabilities
from ..rules import CHALLENGE, EXACT, Action, GameConfig, matching_count
from ..validation import SUM_TOLERANCE
from .one_third import OneThirdRule
from .random_player import RandomPlayer

__all__ = ["check_opponent"]



def _state(view: PlayerView) -> str:
    c = view.config
    history = " ".join(f"{seat}:{action}" for seat, action in view.history) or "-"
    return (f"[bids={c.bids} wild={c.wild} faces={c.faces}{c.describe_variants()}; seat {view.seat}, dice {view.dice}, "
            f"hand {view.hand}, history {history}]")


class _Inspector:
    """Stands in for the model at the table and checks it on each of its turns."""

    def __init__(self, model: OpponentModel, hands_per_state: int):
        self.model, self.hands_per_state, self.turns = model, hands_per_state, 0
        name = player_name(model)
        self.name = type(model).__name__ + ("" if name == type(model).__name__ else f" ({name!r})")

    def reset(self, seat: int, config: GameConfig) -> None:
        self.model.reset(seat, config)

    def observe(self, event) -> None:
        self.model.observe(event)

    def _probabilities(self, hands: np.ndarray, view: PlayerView, action: Action) -> np.ndarray:
        try:
            probs = self.model.action_probabilities(hands, view.public(), action)
            return checked_probabilities(self.model, probs, hands.shape[0])
        except ValueError as exc:
            raise ValueError(f"{self.name}: {exc} (action {action}, state {_state(view)})") from exc

    def _check_deciding_face(self, hands: np.ndarray, view: PlayerView, probs: dict[Action, np.ndarray]) -> None:
        """Where ``deciding_face`` answers, each hand's probabilities equal those of the count hand with as many
        dice matching that face (what a belief looks up instead of asking per hand)."""
        face = deciding_face_of(self.model, view.public())
        if face is None:
            return
        config = view.config
        if isinstance(face, bool) or not isinstance(face, (int, np.integer)) or not 1 <= face <= config.faces:
            raise ValueError(f"{self.name}.deciding_face returned {face!r}, not a face in 1..{config.faces}, in state "
                             f"{_state(view)}")
        counts = matching_count(hands, int(face), config)
        by_count = count_hands(view.dice[view.seat], int(face), config)
        for candidate, per_hand in probs.items():
            looked_up = self._probabilities(by_count, view, candidate)[counts]
            differs = np.flatnonzero(np.abs(per_hand - looked_up) > SUM_TOLERANCE)
            if differs.size:
                i = differs[0]
                raise ValueError(f"{self.name}.deciding_face says face {face}'s matching count decides, but "
                                 f"action_probabilities gives {candidate} {per_hand[i]:.6g} for hand "
                                 f"{tuple(hands[i].tolist())} and {looked_up[i]:.6g} for "
                                 f"{tuple(by_count[counts[i]].tolist())}, with as many matching dice, in state "
                                 f"{_state(view)}")

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        faces, dice = view.config.faces, view.dice[view.seat]
        hands = np.vstack([view.hand, rng.multinomial(dice, np.full(faces, 1.0 / faces), self.hands_per_state - 1)])
        legal = view.legal_actions()
        probs = {action: self._probabilities(hands, view, action) for action in legal}
        for illegal in (view.bid if view.bid is not None else CHALLENGE, *([] if EXACT in legal else [EXACT])):
            if np.any(self._probabilities(hands, view, illegal) != 0):
                raise ValueError(f"{self.name}.action_probabilities gives the illegal action {illegal} a positive "
                                 f"probability in state {_state(view)}")
        problem = sum_problem(hands, probs)
        if problem:
            raise ValueError(f"{self.name}.action_probabilities {problem} in state {_state(view)}")
        for candidate in legal:
            shared = shared_probability_of(self.model, view.public(), candidate)
            if shared is not None and np.any(np.abs(probs[candidate] - shared) > SUM_TOLERANCE):
                differs = int(np.argmax(np.abs(probs[candidate] - shared)))
                raise ValueError(f"{self.name}.shared_probability gives {candidate} {shared!r} for every hand, but "
                                 f"action_probabilities gives {probs[candidate][differs]:.6g} for hand "
                                 f"{tuple(hands[differs].tolist())} in state {_state(view)}")
        self._check_deciding_face(hands, view, probs)
        action = self.model.act(view, rng)
        if action not in probs:
            raise IllegalActionError(f"{self.name}.act played the illegal action {action!r} in state {_state(view)}")
        if probs[action][0] <= 0:
            raise ValueError(f"{self.name}.act played {action} but action_probabilities gives it probability 0 "
                             f"for that hand in state {_state(view)}")
        self.turns += 1
        return action


def check_opponent(model: OpponentModel, config: GameConfig, rng: np.random.Generator, n_states: int = 200,
                   hands_per_state: int = 32) -> int:
    """Check ``model`` on at least ``n_states`` of its own turns, stopping at the first problem.

    Args:
        model: the opponent model to check; it needs an ``action_probabilities(hands, view, action)`` method.
        config: the rules of the games it is seated in.
        rng: the source of the games' dice, seats, openers and sampled hands.
        n_states: the fewest of the model's own turns to check (at least 1).
        hands_per_state: hands checked on each turn, the model's own hand and random others (at least 1).

    Returns:
        The number of turns checked.

    Raises:
        UsageError: ``model`` has no ``action_probabilities`` method, or ``n_states`` or ``hands_per_state`` is
            below 1.
        ValueError: on the first problem found, naming the class, the state and the action.
    """
    if not callable(getattr(model, "action_probabilities", None)):
        raise UsageError(f"{type(model).__name__} has no action_probabilities(hands, view, action) method")
    if n_states < 1 or hands_per_state < 1:
        raise UsageError(f"check_opponent needs n_states >= 1 and hands_per_state >= 1, got {n_states}, "
                         f"{hands_per_state}")
    inspector = _Inspector(model, hands_per_state)
    game = 0
    while inspector.turns < n_states:
        players: list[Player] = [RandomPlayer() if (game + i) % 2 else OneThirdRule(bluff=0.2)
                                 for i in range(config.num_players - 1)]
        seat = game % config.num_players
        players.insert(seat, inspector)
        try:
            play_game(config, players, rng, first_opener=int(rng.integers(config.num_players)))
        except PlayerError as exc:  # the inspector's findings name the model and the state already
            finding = exc.__cause__
            if isinstance(finding, ValueError):
                raise finding from finding.__cause__
            raise
        game += 1
    return inspector.turns
