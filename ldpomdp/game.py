"""The game runner: player protocol, what a player sees, events, and ``play_game``.

A round: every player rolls, the opener bids, each next player raises or challenges; the challenge
reveals every hand, one player loses a die, and the next round starts. The last player with dice wins.
An exception from a player's ``reset``, ``act`` or ``observe`` stops the game as a :class:`PlayerError` naming
the player and its seat, with the traceback lines of the player's own code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from .caches import memo
from .errors import PlayerError, describe
from .rules import CHALLENGE, Action, Bid, GameConfig, is_legal, legal_actions, next_opener, resolve_challenge

__all__ = [
    "PublicView",
    "PlayerView",
    "RoundStart",
    "ActionTaken",
    "RoundEnd",
    "Event",
    "Player",
    "IllegalActionError",
    "PlayerError",
    "RoundRecord",
    "GameRecord",
    "roll_hand",
    "play_round",
    "play_game",
    "rotate",
]


@dataclass(frozen=True)
class PublicView:
    """What everyone knows when ``seat`` is to act: dice per player, this round's actions, the bid."""

    config: GameConfig
    seat: int
    dice: tuple[int, ...]
    history: tuple[tuple[int, Action], ...] = ()
    round_index: int = 0

    @property
    def bid(self) -> Bid | None:
        """The standing bid (None when ``seat`` opens)."""
        return self.history[-1][1] if self.history else None  # type: ignore[return-value]

    @property
    def bidder(self) -> int | None:
        """Seat of the standing bid's author."""
        return self.history[-1][0] if self.history else None

    @property
    def table_dice(self) -> int:
        """Dice on the table (the sum of ``dice``)."""
        return sum(self.dice)

    def legal_actions(self) -> list[Action]:
        return legal_actions(self.config, self.table_dice, self.bid)


@dataclass(frozen=True)
class PlayerView(PublicView):
    """A :class:`PublicView` plus the acting player's own hand as face counts."""

    hand: tuple[int, ...] = ()

    @property
    def hand_dice(self) -> list[int]:
        """The hand as sorted die faces, for display."""
        return [face for face, n in enumerate(self.hand, start=1) for _ in range(n)]

    def public(self) -> PublicView:
        return PublicView(self.config, self.seat, self.dice, self.history, self.round_index)


@dataclass(frozen=True)
class RoundStart:
    round_index: int
    dice: tuple[int, ...]
    opener: int


@dataclass(frozen=True)
class ActionTaken:
    """``seat`` played ``action``; ``view`` is the public view it acted on (before the action)."""

    seat: int
    action: Action
    view: PublicView


@dataclass(frozen=True)
class RoundEnd:
    """A challenge ended the round: every hand is shown."""

    round_index: int
    hands: tuple[tuple[int, ...], ...]
    bid: Bid
    bidder: int
    challenger: int
    loser: int
    matching: int
    dice_after: tuple[int, ...]


Event = RoundStart | ActionTaken | RoundEnd


@runtime_checkable
class Player(Protocol):
    """Anything that can sit at the table.

    ``reset`` is called before every game, ``act`` when it is the player's turn (return a legal action),
    ``observe`` with every public event, the player's own actions included.

    Optional: ``reseed(seq: numpy.random.SeedSequence)``, for a player that draws from randomness of its own
    (not the ``rng`` passed to ``act``): the sweep runner calls it before every game with a seed sequence of the
    player's own, and the player must draw from it alone from then on, so that a game never depends on the
    games played before it (e.g. the planners' beliefs; POMCP also reseeds Python's ``random``, which
    pomdp-py draws from).
    """

    def reset(self, seat: int, config: GameConfig) -> None: ...

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action: ...

    def observe(self, event: Event) -> None: ...


class IllegalActionError(ValueError):
    """A player returned an action that the rules do not allow here."""


def player_name(player: object) -> str:
    """A readable name for error messages."""
    return getattr(player, "name", None) or type(player).__name__


@dataclass(frozen=True)
class RoundRecord:
    opener: int
    hands: tuple[tuple[int, ...], ...]
    actions: tuple[tuple[int, Action], ...]
    challenger: int
    loser: int
    final_bid: Bid
    matching: int


@dataclass
class GameRecord:
    config: GameConfig
    rounds: list[RoundRecord] = field(default_factory=list)
    winner: int = -1

    @property
    def challenges(self) -> list[int]:
        """Challenges made by each seat."""
        out = [0] * self.config.num_players
        for r in self.rounds:
            out[r.challenger] += 1
        return out

    @property
    def successful_challenges(self) -> list[int]:
        """Challenges by each seat that made the bidder lose the die."""
        out = [0] * self.config.num_players
        for r in self.rounds:
            if r.loser != r.challenger:
                out[r.challenger] += 1
        return out


def roll_hand(num_dice: int, faces: int, rng: np.random.Generator) -> tuple[int, ...]:
    """Roll ``num_dice`` fair dice and return the face counts (one multinomial draw)."""
    return tuple(rng.multinomial(num_dice, _fair(faces)).tolist())


@memo(maxsize=16)
def _fair(faces: int) -> np.ndarray:
    return np.full(faces, 1.0 / faces)


def _failure(player: object, seat: int, method: str, exc: Exception) -> PlayerError:
    """The error for ``player``'s ``method`` raising ``exc``: names the player and its seat, keeps the traceback
    lines of the player's own code."""
    return PlayerError(f"player {player_name(player)} (seat {seat}) raised {type(exc).__name__} in {method}:\n"
                       f"{describe(exc)}")


# not a player's bug: the person at the terminal ended its input (``ldpomdp play`` stops on it)
_PASSED_ON = EOFError


def _broadcast(players: Sequence[Player], event: Event) -> None:
    for seat, p in enumerate(players):
        try:
            p.observe(event)
        except _PASSED_ON:
            raise
        except Exception as exc:
            raise _failure(p, seat, "observe", exc) from exc


def play_round(
    config: GameConfig,
    players: Sequence[Player],
    dice: tuple[int, ...],
    opener: int,
    rng: np.random.Generator,
    round_index: int = 0,
) -> RoundRecord:
    """Roll, bid until a challenge, resolve it; players see every event. Returns the round's record."""
    hands = tuple(roll_hand(d, config.faces, rng) for d in dice)
    _broadcast(players, RoundStart(round_index, dice, opener))
    history: list[tuple[int, Action]] = []
    seat = opener
    table = sum(dice)
    while True:
        view = PlayerView(config, seat, dice, tuple(history), round_index, hand=hands[seat])
        try:
            action = players[seat].act(view, rng)
        except _PASSED_ON:
            raise
        except Exception as exc:
            raise _failure(players[seat], seat, "act", exc) from exc
        bid = view.bid
        if not is_legal(config, table, bid, action):
            legal = legal_actions(config, table, bid)
            shown = ", ".join(map(str, legal[:12])) + (" ..." if len(legal) > 12 else "")
            raise IllegalActionError(
                f"player {player_name(players[seat])} (seat {seat}) played illegal action {action!r} "
                f"over bid {bid}; legal: {shown}"
            )
        _broadcast(players, ActionTaken(seat, action, view.public()))
        if action is CHALLENGE:
            bidder = history[-1][0]
            loser, matching = resolve_challenge(config, np.array(hands), bid, bidder, seat)
            after = tuple(d - (i == loser) for i, d in enumerate(dice))
            _broadcast(players, RoundEnd(round_index, hands, bid, bidder, seat, loser, matching, after))
            return RoundRecord(opener, hands, tuple(history), seat, loser, bid, matching)
        history.append((seat, action))
        seat = (seat + 1) % len(dice)
        while dice[seat] == 0:
            seat = (seat + 1) % len(dice)


@memo(maxsize=1024)
def _canonical(config: GameConfig) -> GameConfig:
    """The first config seen equal to ``config``: games share one instance per rule set, so the rule caches
    keyed by it match by identity instead of comparing every field (sweeps make a new one per batch)."""
    return config


def play_game(
    config: GameConfig, players: Sequence[Player], rng: np.random.Generator, first_opener: int = 0
) -> GameRecord:
    """Play one game to the end; ``players[i]`` sits in seat ``i``."""
    if len(players) != config.num_players:
        raise ValueError(f"config has {config.num_players} players but {len(players)} were given")
    config = _canonical(config)
    for seat, p in enumerate(players):
        try:
            p.reset(seat, config)
        except Exception as exc:
            raise _failure(p, seat, "reset", exc) from exc
    dice = config.starting_dice
    record = GameRecord(config)
    opener = first_opener
    while sum(d > 0 for d in dice) > 1:
        rnd = play_round(config, players, dice, opener, rng, len(record.rounds))
        record.rounds.append(rnd)
        dice = tuple(d - (i == rnd.loser) for i, d in enumerate(dice))
        if sum(d > 0 for d in dice) > 1:
            opener = next_opener(config, dice, rnd.challenger, rnd.loser)
    record.winner = next(i for i, d in enumerate(dice) if d > 0)
    return record


def rotate(items: Sequence, game_index: int) -> tuple[list, list[int]]:
    """Seat rotation: game ``k`` seats item ``(i + k) % n`` ... returns ``(seated, seat_of_item)``.

    Over ``n`` consecutive games every item sits in (and so opens from) every seat once.
    """
    n = len(items)
    shift = game_index % n
    seated = [items[(s + shift) % n] for s in range(n)]
    seat_of = [(i - shift) % n for i in range(n)]
    return seated, seat_of
