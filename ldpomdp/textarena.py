"""The package's players in TextArena's ``LiarsDice-v0`` (extra ``textarena``; its rules: the preset ``textarena``).

- ``TextArenaAgent``: a package player (or spec) as a TextArena agent, ``agent(observation) -> action``: it reads the
  env's observation text, shows the player the package's events, and answers ``[Bid: q, f]`` or ``[Call]``.
- ``ShowHands``: the env wrapper that shows every hand at a call (TextArena's text names only the called face's count).
- ``make_env``, ``play_game``: one game of TextArena's env with its agents, and what happened (docs/textarena.md).

Not imported by ``import ldpomdp``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import UsageError, install_hint
from .game import ActionTaken, Event, Player, PlayerView, PublicView, RoundEnd, RoundStart, ask, player_name
from .players.text import move_format
from .registry import make_seat
from .round_end import next_active_seat, next_round, settle_round
from .rules import CHALLENGE, Bid, GameConfig, is_legal

try:
    import textarena as ta
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(f"ldpomdp.textarena needs TextArena: {install_hint('textarena')}") from exc

__all__ = ["ENV_ID", "TextArenaAgent", "ShowHands", "GameResult", "config_for", "make_env", "play_game"]

ENV_ID = "LiarsDice-v0"  # TextArena's Liar's Dice, 5 dice each (its -small has 3, -large 12)

# the env's messages as LiarsDice-v0 words them (textarena 0.7.4: textarena/envs/LiarsDice/env.py), and ShowHands's
_SENDER = re.compile(r"\n\[(GAME|Player \d+)\] ")  # LLMObservationWrapper: each message "\n[sender] text"
_PROMPT = re.compile(r"You are Player (\d+) in an (\d+)-player Liar's Dice game\.\n")
_NEW_ROUND = re.compile(r"\nNew round - Remaining dice: (.*)\nYour current Dice are: ([\d, ]*)")
_BID = re.compile(r"Player (\d+) bids (\d+) of face (\d+)\.")
_CALL = re.compile(r"Player (\d+) calls! The actual count of face (\d+) is (\d+), which is (?:LESS than|>=) (\d+)\.\n"
                   r"Player (\d+) \(the (?:last bidder|caller)\) loses one die\.")
_HANDS = re.compile(r"Hands shown: (.*)")
_SEAT_DICE = re.compile(r"\tPlayer (\d+): (\d+)")
_SEAT_HAND = re.compile(r"Player (\d+): ([\d, ]*)")
_ENV_CALL = re.compile(r"\[call\]", re.IGNORECASE)  # what the env takes for a call (its own pattern)
_INVALID = re.compile(r"Player \d+ (attempted an invalid move|was eliminated by invalid move)")


def config_for(num_players: int, dice: int | Sequence[int] = 5) -> GameConfig:
    """The package's rules of a TextArena Liar's Dice game: the ``textarena`` preset at ``num_players``, ``dice``."""
    return GameConfig.preset("textarena", num_players=num_players, dice=dice)


def _faces_to_counts(text: str, faces: int, where: str) -> tuple[int, ...]:
    """``"3, 1, 4"`` (die faces) as face counts."""
    counts = [0] * faces
    for item in filter(None, (part.strip() for part in text.split(","))):
        face = int(item)
        if not 1 <= face <= faces:
            raise UsageError(f"TextArenaAgent: a die shows {face} in {where!r}")
        counts[face - 1] += 1
    return tuple(counts)


@dataclass
class _Game:
    """One game as this agent has read it so far."""

    seat: int
    num_players: int
    config: GameConfig | None = None  # known at the first round (its dice)
    dice: tuple[int, ...] = ()
    round_index: int = -1
    opener: int = 0  # TextArena's first round opens at Player 0
    history: list[tuple[int, Bid]] = field(default_factory=list)
    hand: tuple[int, ...] = ()
    to_act: int = -1
    shown: tuple[tuple[int, ...], ...] | None = None  # ShowHands's hands for the call that follows
    over: bool = False


class TextArenaAgent(ta.Agent):
    """A package player as a TextArena agent of ``LiarsDice-v0`` (an env made with ``make_env``, or wrapped in
    ``ShowHands``): ``agent(observation)`` returns its move as the env reads it.

    ``player``: a Player or a spec (``make_seat``); ``rng``: a Generator, or a seed for one: what the player's ``act``
    draws from. Each observation's new messages become the package's events (``RoundStart``, ``ActionTaken``,
    ``RoundEnd``), shown to the player before it acts; a new game's prompt resets it (seat and rules read off the
    text). Text it cannot read, or a game outside the preset's rules, is a UsageError naming the message.
    """

    def __init__(self, player: Player | str, rng: np.random.Generator | int | None = None):
        self.player: Player = make_seat(player) if isinstance(player, str) else player
        self.rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self.name = player_name(self.player)
        self._read = ""  # the observation text read so far
        self._game: _Game | None = None

    def __call__(self, observation: str) -> str:
        if not isinstance(observation, str):
            raise UsageError(f"TextArenaAgent: expects the observation text of {ENV_ID} (its default wrappers), got "
                             f"{type(observation).__name__}")
        new = observation[len(self._read):] if observation.startswith(self._read) else observation
        self._read = observation
        messages = _messages(new)
        starts = [i for i, (sender, text) in enumerate(messages) if sender == "GAME" and _PROMPT.match(text)]
        if starts:  # a new game (an env reused keeps the old games' text before it): read from its prompt on
            messages = messages[starts[-1]:]
        elif self._game is None:
            raise UsageError(f"TextArenaAgent: the observation does not start with {ENV_ID}'s prompt: "
                             f"{observation[:80]!r}")
        for sender, text in messages:
            if sender == "GAME":
                self._read_message(text)
        game = self._game
        assert game is not None  # a prompt was read
        if game.config is None or game.over or game.to_act != game.seat:
            raise UsageError(f"TextArenaAgent (Player {game.seat}): asked to act when the text says it is not its "
                             f"turn: {observation[-120:]!r}")
        view = PlayerView(game.config, game.seat, game.dice, tuple(game.history), game.round_index, hand=game.hand)
        action = ask(self.player, game.seat, "act", view, self.rng)
        if not is_legal(game.config, sum(game.dice), view.bid, action):
            raise UsageError(f"player {self.name} (Player {game.seat}) played illegal action {action!r} over bid "
                             f"{view.bid}")
        return move_format(action)

    def _observe(self, event: Event) -> None:
        assert self._game is not None
        ask(self.player, self._game.seat, "observe", event)

    def _read_message(self, text: str) -> None:
        """One message of the game: its events, shown to the player."""
        if match := _PROMPT.match(text):
            seat, num_players = int(match[1]), int(match[2])
            self._game = _Game(seat, num_players)
            return
        game = self._game
        assert game is not None  # a game starts with its prompt
        if game.over:  # the env rolls once more after the last call; the agent is not asked again
            return
        if match := _NEW_ROUND.fullmatch(text):
            self._new_round(game, match, text)
        elif match := _BID.fullmatch(text):
            self._bid(game, int(match[1]), Bid(int(match[2]), int(match[3])), text)
        elif match := _HANDS.fullmatch(text):
            game.shown = self._hands(game, match[1], text)
        elif match := _CALL.fullmatch(text):
            self._call(game, [int(g) for g in match.groups()], text)
        else:
            raise UsageError(f"TextArenaAgent (Player {game.seat}): cannot read the message {text[:120]!r} "
                             f"({ENV_ID}'s rules, textarena 0.7: docs/textarena.md)")

    def _new_round(self, game: _Game, match: re.Match, text: str) -> None:
        dice = tuple(int(d) for _, d in sorted((int(s), d) for s, d in _SEAT_DICE.findall(match[1])))
        if len(dice) != game.num_players:
            raise UsageError(f"TextArenaAgent: {game.num_players} players but the round lists {len(dice)}: {text!r}")
        if game.config is None:
            game.config = config_for(game.num_players, dice)
            ask(self.player, game.seat, "reset", game.seat, game.config)
        elif dice != game.dice:
            raise UsageError(f"TextArenaAgent: the round starts with dice {dice}, the rules give {game.dice}: {text!r}")
        game.dice, game.round_index, game.history = dice, game.round_index + 1, []
        game.hand = _faces_to_counts(match[2], game.config.faces, text)
        if sum(game.hand) != dice[game.seat]:
            raise UsageError(f"TextArenaAgent: Player {game.seat} holds {dice[game.seat]} dice but is shown "
                             f"{match[2]!r}")
        game.to_act = game.opener
        self._observe(RoundStart(game.round_index, dice, game.opener))

    def _bid(self, game: _Game, seat: int, bid: Bid, text: str) -> None:
        config = self._in_round(game, seat, text)
        current = game.history[-1][1] if game.history else None
        if not is_legal(config, sum(game.dice), current, bid):
            raise UsageError(f"TextArenaAgent: {text!r} is outside the textarena preset's bids (over {current}, "
                             f"quantities 1..{sum(game.dice)}); the package's players cannot follow it")
        self._observe(ActionTaken(seat, bid, self._public(game, seat)))
        game.history.append((seat, bid))
        game.to_act = next_active_seat(game.dice, seat)

    def _hands(self, game: _Game, listed: str, text: str) -> tuple[tuple[int, ...], ...]:
        config = self._in_round(game, game.to_act, text)
        hands = dict((int(s), _faces_to_counts(faces, config.faces, text)) for s, faces in _SEAT_HAND.findall(listed))
        shown = tuple(hands.get(s, (0,) * config.faces) for s in range(game.num_players))
        if [sum(h) for h in shown] != list(game.dice) or shown[game.seat] != game.hand:
            raise UsageError(f"TextArenaAgent: the hands shown do not match the dice {game.dice} and Player "
                             f"{game.seat}'s hand: {text!r}")
        return shown

    def _call(self, game: _Game, numbers: list[int], text: str) -> None:
        caller, face, count, quantity, loser = numbers
        config = self._in_round(game, caller, text)
        if not game.history or game.history[-1][1] != Bid(quantity, face):
            raise UsageError(f"TextArenaAgent: {text!r} calls a bid that is not the standing one")
        if game.shown is None:
            raise UsageError("TextArenaAgent: a call's hands were not shown: wrap the env in "
                             "ldpomdp.textarena.ShowHands (or make it with make_env); TextArena's text names only the "
                             "called face's count")
        bid, bidder = game.history[-1][1], game.history[-1][0]
        self._observe(ActionTaken(caller, CHALLENGE, self._public(game, caller)))
        lost, matching, after = settle_round(config, np.array(game.shown), game.dice, bid, bidder, caller, CHALLENGE)
        if (lost, matching) != (loser, count):
            raise UsageError(f"TextArenaAgent: the preset's rules give loser {lost} and {matching} matching dice, the "
                             f"env {loser} and {count}: {text!r}")
        self._observe(RoundEnd(game.round_index, game.shown, bid, bidder, caller, lost, matching, after))
        following = next_round(config, after, caller, lost)
        game.dice, game.shown, game.over = after, None, following is None
        if following is not None:
            game.opener = following.opener

    def _in_round(self, game: _Game, seat: int, text: str) -> GameConfig:
        """The rules, checking that a round is on and that ``seat`` is the one to act."""
        if game.config is None or seat != game.to_act:
            raise UsageError(f"TextArenaAgent: {text!r} comes when Player {game.to_act} is to act")
        return game.config

    @staticmethod
    def _public(game: _Game, seat: int) -> PublicView:
        assert game.config is not None
        return PublicView(game.config, seat, game.dice, tuple(game.history), game.round_index)


def _messages(text: str) -> list[tuple[str, str]]:
    """``text`` (LLMObservationWrapper's) as (sender, message) pairs; a player's own words cannot hold a sender tag
    (TextArena strips them from actions)."""
    parts = _SENDER.split(text)
    if parts[0]:
        raise UsageError(f"TextArenaAgent: expects {ENV_ID}'s observation text (messages '[GAME] ...'), got "
                         f"{text[:80]!r}")
    return list(zip(parts[1::2], parts[2::2], strict=True))


class ShowHands(ta.Wrapper):
    """Shows every hand to every player at a call, as the table does in Liar's Dice (wrap ``textarena.make``'s env).

    The message ``Hands shown: Player 0: 3, 1, 4; Player 1: ...`` comes just before the call's result."""

    def step(self, action: str) -> tuple[bool, ta.Info]:
        state = self.env.state
        game = state.game_state
        text = f"[{action}]" if "[" not in action and "]" not in action else action  # ActionFormattingWrapper's
        if _ENV_CALL.search(text) and game["last_bidder_id"] is not None and game["current_bid"]["quantity"] > 0:
            hands = "; ".join(f"Player {seat}: {', '.join(map(str, rolled))}"
                              for seat, rolled in sorted(game["dice_rolls"].items()) if rolled)
            state.add_observation(message=f"Hands shown: {hands}", observation_type=ta.ObservationType.GAME_MESSAGE)
        return self.env.step(action)


def make_env(env_id: str = ENV_ID) -> ShowHands:
    """TextArena's ``env_id`` (a LiarsDice env) with its default wrappers, in ``ShowHands``."""
    if not env_id.startswith("LiarsDice-v0") or env_id.endswith(("-raw", "-train")):
        raise UsageError(f"make_env: takes LiarsDice-v0, LiarsDice-v0-small or LiarsDice-v0-large, got {env_id!r}")
    return ShowHands(ta.make(env_id))


@dataclass(frozen=True)
class GameResult:
    """One game: TextArena's ``rewards`` by seat (its ranking: +1 the winner, -1 first out), the ``winner``,
    ``invalid_moves`` (the env's invalid-move messages), ``turns`` (moves asked for)."""

    rewards: dict[int, float]
    winner: int
    invalid_moves: int
    turns: int


def play_game(env: ta.Env, agents: Sequence[ta.Agent], seed: int | None = None) -> GameResult:
    """Play one game of ``env`` to its end, ``agents[i]`` as Player i; ``seed``: the env's (TextArena seeds Python's
    ``random`` with it: the dice)."""
    env.reset(num_players=len(agents), seed=seed)
    done, turns, invalid = False, 0, 0
    while not done:
        seat, observation = env.get_observation()
        logged = len(env.state.logs)
        done, _ = env.step(agents[seat](observation))
        turns += 1
        invalid += sum(sender == ta.GAME_ID and _INVALID.match(text) is not None
                       for sender, text in env.state.logs[logged:])
    rewards, _ = env.close()
    return GameResult(dict(rewards), max(rewards, key=lambda seat: rewards[seat]), invalid, turns)
