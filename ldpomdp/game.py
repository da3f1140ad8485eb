"""The game runner: player protocol, what a player sees, events, and ``play_game``.

A round: every player rolls, the opener bids, each next player raises or challenges; the challenge
reveals every hand, one player loses a die, and the next round starts. The last player with dice wins.
An exception from a player's ``reset``, ``act`` or ``observe`` stops the game as a ``PlayerError`` naming
the player and its seat, with the traceback lines of the player's own code.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .caches import memo
from .errors import PlayerError, UsageError, describe
from .hands import hand_faces
from .moved import REMOVED_IN
from .round_end import next_active_seat, next_round, settle_round
from .rules import EXACT, Action, Bid, GameConfig, is_legal, legal_actions

__all__ = [
    "History",
    "PublicView",
    "PlayerView",
    "RoundStart",
    "ActionTaken",
    "RoundEnd",
    "Event",
    "Player",
    "IllegalActionError",
    "RoundRecord",
    "GameRecord",
    "RoundState",
    "GameState",
    "roll_hand",
    "play_round",
    "play_game",
    "ask",
    "rotate",
    "permute",
    "seeded_rng",
]

History = tuple[tuple[int, Bid], ...]  # a round's bids so far, each by its seat, in order


@dataclass(frozen=True)
class PublicView:
    """What everyone knows when ``seat`` is to act: dice per player, this round's actions, the bid."""

    config: GameConfig
    seat: int
    dice: tuple[int, ...]
    history: History = ()
    round_index: int = 0

    @property
    def bid(self) -> Bid | None:
        """The standing bid (None when ``seat`` opens)."""
        return self.history[-1][1] if self.history else None

    @property
    def bidder(self) -> int | None:
        """Seat of the standing bid's author."""
        return self.history[-1][0] if self.history else None

    @property
    def table_dice(self) -> int:
        """Dice on the table (the sum of ``dice``)."""
        return sum(self.dice)

    def legal_actions(self) -> tuple[Action, ...]:
        return legal_actions(self.config, self.table_dice, self.bid)


@dataclass(frozen=True)
class PlayerView(PublicView):
    """A ``PublicView`` plus the acting player's own hand as face counts."""

    hand: tuple[int, ...] = ()

    @property
    def hand_dice(self) -> list[int]:
        """The hand as sorted die faces, for display."""
        return hand_faces(self.hand)

    def public(self) -> PublicView:
        return PublicView(self.config, self.seat, self.dice, self.history, self.round_index)


@dataclass(frozen=True)
class RoundStart:
    """A round starts; ``palifico``: it is a palifico round (its views carry ``config.round_rules(True)``)."""

    round_index: int
    dice: tuple[int, ...]
    opener: int
    palifico: bool = False


@dataclass(frozen=True)
class ActionTaken:
    """``seat`` played ``action``; ``view`` is the public view it acted on (before the action)."""

    seat: int
    action: Action
    view: PublicView


@dataclass(frozen=True)
class RoundEnd:
    """A call ended the round: every hand is shown.

    ``caller`` made the call (a challenge or an exact call); ``exact``: the call was an exact call (right iff
    ``loser`` is None, nobody losing; ``regained`` is then the die the caller got back, 0 at its starting dice);
    ``palifico``: the round was a palifico round. Under ``loss="difference"`` the loser may lose several dice
    (``dice_after``).
    """

    round_index: int
    hands: tuple[tuple[int, ...], ...]
    bid: Bid
    bidder: int
    caller: int
    loser: int | None
    matching: int
    dice_after: tuple[int, ...]
    exact: bool = False
    regained: int = 0
    palifico: bool = False

    @property
    def challenger(self) -> int:
        """The caller, under its old name (deprecated: ``caller``)."""
        warnings.warn(f"RoundEnd.challenger is now RoundEnd.caller (the caller of a challenge or an exact call); "
                      f"the old name goes in ldpomdp {REMOVED_IN} (CHANGELOG.md)", DeprecationWarning, stacklevel=2)
        return self.caller


Event = RoundStart | ActionTaken | RoundEnd


@runtime_checkable
class Player(Protocol):
    """Anything that can sit at the table (docs/players.md, "The player protocol").

    ``reset`` is called before every game, ``act`` when it is the player's turn (return a legal action),
    ``observe`` with every public event, the player's own actions included. Optional:
    ``reseed(seq: numpy.random.SeedSequence)``, for a player with randomness of its own (not ``act``'s ``rng``): the
    sweep runner calls it before every game, and the player then draws from ``seq`` alone.
    """

    def reset(self, seat: int, config: GameConfig) -> None: ...

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action: ...

    def observe(self, event: Event) -> None: ...


class IllegalActionError(UsageError):
    """A player returned an action that the rules do not allow here (its code is at fault: one line naming it)."""


def player_name(player: object) -> str:
    """A readable name for error messages."""
    return getattr(player, "name", None) or type(player).__name__


@dataclass(frozen=True)
class RoundRecord:
    """One played round: its ``opener``, every seat's ``hands``, the ``actions`` as (seat, action) in turn order.

    ``challenger`` made the call (a challenge or an exact call, ``exact``), ``loser`` lost a die (-1: nobody, a right
    exact call); ``final_bid`` was called, ``matching`` dice matched it; ``palifico``: a palifico round.
    """

    opener: int
    hands: tuple[tuple[int, ...], ...]
    actions: tuple[tuple[int, Action], ...]
    challenger: int
    loser: int
    final_bid: Bid
    matching: int
    exact: bool = False
    palifico: bool = False


@dataclass
class GameRecord:
    """One played game: its rules (``config``), every round (``RoundRecord``) and the ``winner``'s seat."""

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

    @property
    def finishing_order(self) -> list[int]:
        """The seats from first place to last: the winner, then the others by the round they were knocked out in,
        latest first (one loser per round, so no two go out together)."""
        last = [-1] * self.config.num_players  # the last round each seat had dice in
        for index, r in enumerate(self.rounds):
            for seat, hand in enumerate(r.hands):
                if sum(hand):
                    last[seat] = index
        return sorted(range(self.config.num_players), key=lambda seat: (seat != self.winner, -last[seat]))


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


def ask(player: Player, seat: int, method: str, *args: object) -> Any:
    """``player.method(*args)``, returned unchecked (the caller validates it).

    An exception from the player's code becomes a ``PlayerError`` naming the player, its seat and the method (an
    ``EOFError``, a person ending the input, passes unchanged).
    """
    try:
        return getattr(player, method)(*args)
    except _PASSED_ON:
        raise
    except Exception as exc:
        raise _failure(player, seat, method, exc) from exc


def _broadcast(players: Sequence[Player], event: Event) -> None:
    for seat, p in enumerate(players):
        ask(p, seat, "observe", event)


class RoundState:
    """One round in progress, one action at a time: the stepping core that ``play_round`` drives with players
    and the reinforcement-learning environments (``ldpomdp.envs``) drive with agents' actions.

    Creating it rolls every hand from ``rng`` (``dice`` per seat, at least two seats with dice; ``opener`` has dice;
    ``palifico``: the round's views carry a palifico round's rules) and makes ``start``, its ``RoundStart``.
    ``view`` is what the player to act sees; ``play`` checks and applies its action and returns the events
    it makes; ``end`` is the ``RoundEnd`` once a call ended the round (else None).
    """

    def __init__(self, config: GameConfig, dice: tuple[int, ...], opener: int, rng: np.random.Generator,
                 round_index: int = 0, palifico: bool = False):
        self.palifico = palifico
        self.config, self.dice, self.opener, self.round_index = config, tuple(dice), opener, round_index
        self.config = config.round_rules(palifico)  # a palifico round's views carry its rules
        self.hands = tuple(roll_hand(d, config.faces, rng) for d in self.dice)
        self.start = RoundStart(round_index, self.dice, opener, palifico)
        self.history: list[tuple[int, Bid]] = []
        self.seat = opener
        self.end: RoundEnd | None = None

    def view(self) -> PlayerView:
        """What the player to act (``seat``) sees."""
        return PlayerView(self.config, self.seat, self.dice, tuple(self.history), self.round_index,
                          hand=self.hands[self.seat])

    def play(self, action: Action, who: str = "") -> list[Event]:
        """Apply the action of the player to act and return the events it makes.

        The events are its ``ActionTaken``, then the ``RoundEnd`` if it challenged. An illegal action raises
        ``IllegalActionError`` naming ``who`` and the legal actions; so does any action once the round has ended.
        """
        if self.end is not None:
            raise IllegalActionError(f"{who or 'a player'} acted after the round ended")
        view, table = self.view(), sum(self.dice)
        bid = view.bid
        if not is_legal(self.config, table, bid, action):
            legal = legal_actions(self.config, table, bid)
            shown = ", ".join(map(str, legal[:12])) + (" ..." if len(legal) > 12 else "")
            raise IllegalActionError(
                f"player {who or '?'} (seat {self.seat}) played illegal action {action!r} over bid {bid}; "
                f"legal: {shown}"
            )
        events: list[Event] = [ActionTaken(self.seat, action, view.public())]
        if not isinstance(action, Bid):  # a call (challenge or exact call) ends the round
            assert bid is not None  # a call is legal only over a bid
            bidder = self.history[-1][0]
            loser, matching, after = settle_round(self.config, np.array(self.hands), self.dice, bid, bidder,
                                                  self.seat, action)
            self.end = RoundEnd(self.round_index, self.hands, bid, bidder, self.seat, None if loser < 0 else loser,
                                matching, after, action is EXACT, max(after[self.seat] - self.dice[self.seat], 0),
                                self.palifico)
            events.append(self.end)
            return events
        self.history.append((self.seat, action))
        self.seat = next_active_seat(self.dice, self.seat)
        return events

    def record(self) -> RoundRecord:
        """The ended round's record."""
        if self.end is None:
            raise ValueError("RoundState.record: the round has not ended")
        loser = -1 if self.end.loser is None else self.end.loser  # a record's loser -1: nobody
        return RoundRecord(self.opener, self.hands, tuple(self.history), self.end.caller, loser, self.end.bid,
                           self.end.matching, self.end.exact, self.palifico)


class GameState:
    """A whole game in progress, round by round (the core of ``play_game`` and of the environments).

    ``start_round`` rolls the next round (its ``RoundStart`` is ``state.round.start``); play it through
    ``state.round``; once it has ended, ``start_round`` again until ``over``. ``record`` collects the
    rounds and, at the end, the winner. ``rng``: a Generator, or a seed for one.
    """

    def __init__(self, config: GameConfig, rng: np.random.Generator | int | None, first_opener: int = 0):
        self.config, self.rng = _canonical(config), np.random.default_rng(rng)  # a Generator passes unchanged
        if isinstance(first_opener, bool) or first_opener not in range(config.num_players):
            raise UsageError(f"first_opener must be a seat in 0..{config.num_players - 1}, got {first_opener!r}")
        self.dice: tuple[int, ...] = config.starting_dice
        self.opener = first_opener
        self.record = GameRecord(self.config)
        self.round: RoundState | None = None
        self.palifico_next = False  # the next round is a palifico round
        self._had_palifico: frozenset[int] = frozenset()  # seats whose palifico round has been played (once per game)

    @property
    def over(self) -> bool:
        """Whether one player alone has dice left."""
        return sum(d > 0 for d in self.dice) <= 1

    def start_round(self) -> RoundStart:
        """Roll the next round (the previous one must have ended) and return its ``RoundStart``."""
        if self.over:
            raise ValueError("GameState.start_round: the game is over")
        if self.round is not None and self.round.end is None:
            raise ValueError("GameState.start_round: the current round has not ended")
        self.round = RoundState(self.config, self.dice, self.opener, self.rng, len(self.record.rounds),
                                self.palifico_next)
        return self.round.start

    def play(self, action: Action, who: str = "") -> list[Event]:
        """``RoundState.play`` on the current round; a challenge also settles the dice, the next opener and,
        at the end, the winner."""
        if self.round is None:
            raise ValueError("GameState.play: no round has started")
        events = self.round.play(action, who)
        end = self.round.end
        if end is not None:
            record = self.round.record()
            self.record.rounds.append(record)
            self.dice = end.dice_after
            following = next_round(self.config, self.dice, end.caller, record.loser, self._had_palifico)
            if following is None:
                self.record.winner = next(i for i, d in enumerate(self.dice) if d > 0)
            else:
                self.opener, self.palifico_next = following.opener, following.palifico
                self._had_palifico = following.had_palifico
        return events


def _drive(players: Sequence[Player], rnd: RoundState, rng: np.random.Generator,
           play: Callable[[Action, str], list[Event]]) -> None:
    """Ask the players to act on ``rnd`` until it ends, applying each action with ``play`` and showing every event
    to every player."""
    _broadcast(players, rnd.start)
    while rnd.end is None:
        seat = rnd.seat
        action = ask(players[seat], seat, "act", rnd.view(), rng)
        for event in play(action, player_name(players[seat])):
            _broadcast(players, event)


def play_round(
    config: GameConfig,
    players: Sequence[Player],
    dice: tuple[int, ...],
    opener: int,
    rng: np.random.Generator | int | None,
    round_index: int = 0,
    palifico: bool = False,
) -> RoundRecord:
    """Roll, bid until a call, resolve it; players see every event. Returns the round's record.

    Args:
        config: the rules.
        players: the players, ``players[i]`` in seat ``i``.
        dice: each seat's dice at the round's start.
        opener: the seat that bids first.
        rng: a Generator, or a seed for one.
        round_index: the round's index in its game.
        palifico: whether the round is a palifico round (its views carry a palifico round's rules).

    Returns:
        The round's ``RoundRecord``.

    Raises:
        PlayerError: a player's ``act`` or ``observe`` raised (an ``EOFError`` passes unchanged).
        IllegalActionError: a player returned an action the rules do not allow there.
    """
    rng = np.random.default_rng(rng)
    rnd = RoundState(config, dice, opener, rng, round_index, palifico)
    _drive(players, rnd, rng, rnd.play)
    return rnd.record()


@memo(maxsize=1024)
def _canonical(config: GameConfig) -> GameConfig:
    """The first config seen equal to ``config``: games share one instance per rule set, so the rule caches
    keyed by it match by identity instead of comparing every field (sweeps make a new one per batch)."""
    return config


def play_game(
    config: GameConfig, players: Sequence[Player], rng: np.random.Generator | int | None, first_opener: int = 0
) -> GameRecord:
    """Play one game to the end; ``players[i]`` sits in seat ``i``. ``rng``: a Generator, or a seed for one."""
    if len(players) != config.num_players:
        raise UsageError(f"config has {config.num_players} players but {len(players)} were given")
    state = GameState(config, rng, first_opener)
    for seat, p in enumerate(players):
        try:
            p.reset(seat, state.config)
        except Exception as exc:
            raise _failure(p, seat, "reset", exc) from exc
    while not state.over:
        state.start_round()
        assert state.round is not None  # the round just started
        _drive(players, state.round, state.rng, state.play)
    return state.record


def seeded_rng(seq: np.random.SeedSequence, players: Sequence[object]) -> np.random.Generator:
    """A game's generator from its seed sequence, after reseeding every player with the ``reseed`` hook.

    First, every player with the optional ``reseed`` hook (see ``Player``) gets child ``i + 1`` of ``seq``, ``i``
    its index in ``players`` (child 0 is reserved), so a game never depends on the games played before it.
    """
    children = seq.spawn(len(players) + 1)
    for player, child in zip(players, children[1:], strict=True):
        reseed = getattr(player, "reseed", None)
        if callable(reseed):
            reseed(child)
    return np.random.default_rng(seq)


def rotate(items: Sequence, game_index: int) -> tuple[list, list[int]]:
    """Seat rotation: game ``k`` seats item ``(i + k) % n`` ... returns ``(seated, seat_of_item)``.

    Over ``n`` consecutive games every item sits in (and so opens from) every seat once.
    """
    n = len(items)
    shift = game_index % n
    seated = [items[(s + shift) % n] for s in range(n)]
    seat_of = [(i - shift) % n for i in range(n)]
    return seated, seat_of


def permute(items: Sequence, game_index: int) -> tuple[list, list[int]]:
    """Every seating in turn: game ``k`` seats the items in permutation ``k mod n!`` (lexicographic order, as
    ``itertools.permutations`` lists them); returns ``(seated, seat_of_item)`` as ``rotate`` does.

    Over ``n!`` consecutive games every order of the items round the table comes once.
    """
    n = len(items)
    order = next(itertools.islice(itertools.permutations(range(n)), game_index % math.factorial(n), None))
    seat_of = [0] * n
    for seat, item in enumerate(order):
        seat_of[item] = seat
    return [items[i] for i in order], seat_of
