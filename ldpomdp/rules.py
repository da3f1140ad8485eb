"""Rules of Liar's Dice as pure functions: configuration, bids, legal raises, challenge resolution.

Hands are face-count vectors: ``counts[..., f - 1]`` is how many dice show face ``f``. Every function
here accepts a single hand (shape ``(faces,)``) or a stack of hands (shape ``(..., faces)``), so the same
code serves the game runner, the particle beliefs and the planners.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from .caches import memo
from .validation import int_at_least

__all__ = [
    "GameConfig",
    "Bid",
    "Challenge",
    "CHALLENGE",
    "Action",
    "is_raise",
    "legal_actions",
    "is_legal",
    "minimal_raises",
    "matching_count",
    "match_matrix",
    "match_probability",
    "resolve_challenge",
    "next_opener",
    "next_active_seat",
    "MAX_TABLE_DICE",
]

BID_MODES = ("full", "sixes")
OPENER_RULES = ("after_challenger", "loser")
# the most dice on the table at a game's start (all players together) that GameConfig accepts: a game's cost grows
# faster than its dice (figures in docs/rules.md); report 002's largest games have 105
MAX_TABLE_DICE = 200


@dataclass(frozen=True, order=True)
class Bid:
    """A claim that at least ``quantity`` dice on the table match ``face``."""

    quantity: int
    face: int

    def __str__(self) -> str:
        return f"{self.quantity}x{self.face}"


class Challenge:
    """The challenge ("liar!") action; use the singleton :data:`CHALLENGE`."""

    _instance: Challenge | None = None

    def __new__(cls) -> Challenge:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "CHALLENGE"

    __str__ = __repr__

    def __reduce__(self):  # pickles (process pools) back to the singleton
        return (Challenge, ())

    def __deepcopy__(self, memo):
        return self


CHALLENGE = Challenge()
Action = Bid | Challenge


_FACE_NAMES = {1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}


def dice_text(n: int) -> str:
    """``"1 die"``, ``"5 dice"``: a number of dice for messages and titles."""
    return f"{n} {'die' if n == 1 else 'dice'}"


@dataclass(frozen=True)
class GameConfig:
    """A validated rule set (a ValueError names any bad value).

    Args:
        num_players: players at the table, an integer >= 2.
        dice: the starting dice per player, an integer >= 1 for everyone or one per player (stored as a tuple).
        faces: faces of a die, an integer >= 2.
        wild: the wild face, 1 or the highest face, or None for no wild dice.
        bids: "full" (a bid names any face) or "sixes" (report 002: every bid on the highest face, each raise
            adds one).
        opener: who opens the next round, "after_challenger" (the next seat with dice after the challenger) or
            "loser" (the loser if still in, else the next seat).

    Derived on creation: ``bid_faces``, the faces a bid may name (all of them in the full game, only the highest
    in "sixes").
    """

    num_players: int = 2
    dice: int | tuple[int, ...] = 5
    faces: int = 6
    wild: int | None = 1
    bids: str = "full"
    opener: str = "after_challenger"
    bid_faces: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        num_players = int_at_least("GameConfig", "num_players", self.num_players, 2)
        faces = int_at_least("GameConfig", "faces", self.faces, 2)
        if isinstance(self.dice, (list, tuple, np.ndarray)):
            dice = tuple(int_at_least("GameConfig", "dice", d, 1) for d in self.dice)
            if len(dice) != num_players:
                raise ValueError(
                    f"GameConfig.dice lists {len(dice)} players but num_players is {num_players}"
                )
        else:
            dice = (int_at_least("GameConfig", "dice", self.dice, 1),) * num_players
        if sum(dice) > MAX_TABLE_DICE:
            each = f"x {dice[0]} dice" if len(set(dice)) == 1 else f"with dice {dice}"
            raise ValueError(f"GameConfig.dice: {num_players} players {each} put {sum(dice)} dice on the table, above "
                             f"the limit MAX_TABLE_DICE = {MAX_TABLE_DICE}")
        if self.wild not in (1, faces, None) or isinstance(self.wild, bool):
            raise ValueError(
                f"GameConfig.wild must be 1, the highest face ({faces}) or None, got {self.wild!r}"
            )
        if self.bids not in BID_MODES:
            raise ValueError(f"GameConfig.bids must be one of {BID_MODES}, got {self.bids!r}")
        if self.opener not in OPENER_RULES:
            raise ValueError(f"GameConfig.opener must be one of {OPENER_RULES}, got {self.opener!r}")
        object.__setattr__(self, "num_players", num_players)
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "dice", dice)
        object.__setattr__(self, "wild", None if self.wild is None else int(self.wild))
        object.__setattr__(self, "bid_faces", (faces,) if self.bids == "sixes" else tuple(range(1, faces + 1)))

    def __hash__(self) -> int:
        """Computed once per object: a config keys every cached rule lookup, several times per move."""
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.num_players, self.dice, self.faces, self.wild, self.bids, self.opener))
            object.__setattr__(self, "_hash", cached)
        return cached

    def __getstate__(self) -> dict:
        """Pickled without the cached hash: string hashes differ between processes."""
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @property
    def starting_dice(self) -> tuple[int, ...]:
        """Dice per player at the start of a game."""
        return self.dice if isinstance(self.dice, tuple) else (self.dice,) * self.num_players  # a tuple after init

    def describe(self) -> str:
        """The rules in a few words, without players and dice: ``"full game, 6 faces, ones wild"`` (plus
        ``", the loser opens"`` under that opener rule)."""
        wild = "no wild" if self.wild is None else f"{_FACE_NAMES.get(self.wild, f'{self.wild}s')} wild"
        loser = ", the loser opens" if self.opener == "loser" else ""
        return f"{self.bids} game, {self.faces} faces, {wild}{loser}"


def is_raise(config: GameConfig, new: Bid, current: Bid | None) -> bool:
    """Whether ``new`` is a legal bid over ``current`` (None = opening bid), ignoring the table size."""
    if new.face not in config.bid_faces or new.quantity < 1:
        return False
    if current is None:
        return new.quantity == 1 if config.bids == "sixes" else True
    if config.bids == "sixes":
        return new.quantity == current.quantity + 1
    return (new.quantity, new.face) > (current.quantity, current.face)


@memo(maxsize=None)
def _bid(quantity: int, face: int) -> Bid:
    """One shared :class:`Bid` per claim for the raises the rules list: cache lookups keyed by bids then match
    by identity instead of calling the dataclass ``__eq__`` (tens of times per round)."""
    return Bid(quantity, face)


@memo(maxsize=65536)
def minimal_raises(config: GameConfig, table_dice: int, bid: Bid | None) -> tuple[Bid, ...]:
    """The smallest legal bid on each face (ascending face), within the dice on the table."""
    if config.bids == "sixes":
        q = 1 if bid is None else bid.quantity + 1
        return (_bid(q, config.faces),) if q <= table_dice else ()
    raises = []
    for face in config.bid_faces:
        if bid is None:
            q = 1
        else:
            q = bid.quantity + 1 if face <= bid.face else bid.quantity
        if q <= table_dice:
            raises.append(_bid(q, face))
    return tuple(raises)


@memo(maxsize=65536)
def legal_actions(config: GameConfig, table_dice: int, bid: Bid | None) -> tuple[Action, ...]:
    """Every legal action: all raises within the dice on the table (by rising order), then CHALLENGE.

    The opener (``bid`` None) must bid; at the top bid only CHALLENGE remains.
    """
    if config.bids == "sixes":
        actions: list[Action] = list(minimal_raises(config, table_dice, bid))
    else:
        lowest = (0, config.faces) if bid is None else (bid.quantity, bid.face)
        actions = [
            _bid(q, f)
            for q in range(max(lowest[0], 1), table_dice + 1)
            for f in config.bid_faces
            if (q, f) > lowest
        ]
    if bid is not None:
        actions.append(CHALLENGE)
    return tuple(actions)


def is_legal(config: GameConfig, table_dice: int, bid: Bid | None, action: object) -> bool:
    """Whether ``action`` is legal when ``bid`` stands and ``table_dice`` dice are on the table."""
    if action is CHALLENGE:
        return bid is not None
    if not isinstance(action, Bid):
        return False
    return action.quantity <= table_dice and is_raise(config, action, bid)


@overload
def matching_count(hands: tuple[int, ...], face: int, config: GameConfig) -> int: ...


@overload
def matching_count(hands: np.ndarray | Sequence[Sequence[int]], face: int, config: GameConfig) -> np.ndarray: ...


def matching_count(hands: np.ndarray | Sequence, face: int, config: GameConfig) -> np.ndarray | int:
    """Dice matching ``face`` in each hand: the face itself plus wild dice when ``face`` is not wild.
    One hand given as a flat tuple of ints (a :class:`~ldpomdp.game.PlayerView`'s) gives a plain int, without
    numpy; anything else (arrays, nested tuples of hands) is counted hand by hand as an integer array of the
    hands' type (at least int16)."""
    wild = config.wild if config.wild is not None and face != config.wild else None  # the wild face, if it adds
    if isinstance(hands, tuple) and hands and isinstance(hands[0], (int, np.integer)):
        return int(hands[face - 1] + (hands[wild - 1] if wild is not None else 0))
    array = np.asarray(hands)
    # the hands' own integer type, at least int16 (particles are int16: 4x less to move than int64)
    dtype = np.promote_types(array.dtype, np.int16) if array.dtype.kind in "iu" else np.dtype(np.int64)
    if wild is not None:
        return np.add(array[..., face - 1], array[..., wild - 1], dtype=dtype)
    return array[..., face - 1].astype(dtype)


@memo(maxsize=64)
def match_matrix(config: GameConfig) -> np.ndarray:
    """``M[g, f] = 1`` when a die showing face ``g + 1`` matches face ``f + 1``: ``hands @ M`` gives the
    matching count of every face at once."""
    m = np.eye(config.faces, dtype=np.int64)
    if config.wild is not None:
        m[config.wild - 1, :] = 1
    m.flags.writeable = False
    return m


def match_probability(config: GameConfig, face: int) -> float:
    """P(one fair die matches ``face``): 2/faces when another face is wild, else 1/faces."""
    if config.wild is not None and face != config.wild:
        return 2.0 / config.faces
    return 1.0 / config.faces


def resolve_challenge(
    config: GameConfig, hands: np.ndarray, bid: Bid, bidder: int, challenger: int
) -> tuple[int, int]:
    """Return ``(loser, matching)``: the challenger loses if the table holds at least ``bid.quantity``."""
    matching = int(matching_count(np.asarray(hands), bid.face, config).sum())
    return (challenger if matching >= bid.quantity else bidder), matching


def next_active_seat(dice: tuple[int, ...] | list[int], seat: int) -> int:
    """The next seat after ``seat`` (cyclically) that still has dice."""
    n = len(dice)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if dice[candidate] > 0:
            return candidate
    raise ValueError("no player has dice left")


def next_opener(config: GameConfig, dice_after: tuple[int, ...], challenger: int, loser: int) -> int:
    """Who opens the next round under ``config.opener`` (``dice_after`` already reflects the loss)."""
    if config.opener == "loser":
        return loser if dice_after[loser] > 0 else next_active_seat(dice_after, loser)
    return next_active_seat(dice_after, challenger)
