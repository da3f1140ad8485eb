"""Rules of Liar's Dice as pure functions: configuration, bids, legal raises, challenge resolution.

Hands are face-count vectors: ``counts[..., f - 1]`` is how many dice show face ``f``. Every function
here accepts a single hand (shape ``(faces,)``) or a stack of hands (shape ``(..., faces)``), so the same
code serves the game runner, the particle beliefs and the planners.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from .caches import memo
from .errors import UsageError
from .moved import moved_attribute
from .validation import int_at_least

__all__ = [
    "GameConfig",
    "Bid",
    "Challenge",
    "CHALLENGE",
    "ExactCall",
    "EXACT",
    "Action",
    "ActionCoding",
    "is_raise",
    "legal_actions",
    "is_legal",
    "faces_for",
    "minimal_raises",
    "matching_count",
    "match_matrix",
    "match_probability",
    "MAX_TABLE_DICE",
]

BID_MODES = ("full", "sixes")
OPENER_RULES = ("after_challenger", "loser")
# the most dice on the table at a game's start (all players together) that GameConfig accepts: a game's cost grows
# faster than its dice (figures in docs/rules.md); report 002's largest games have 105
MAX_TABLE_DICE = 200

# the variant fields with today's rules as their values (GameConfig.variants lists those that differ)
VARIANT_DEFAULTS: dict[str, object] = {"wild_bids": "plain", "exact_call": False, "palifico": False, "loss": "one",
                                       "palifico_round": False, "raise_order": "plain"}
WILD_BID_RULES = ("plain", "perudo")
LOSS_RULES = ("one", "difference")
RAISE_ORDERS = ("plain", "no_lower")  # plain: higher quantity, or equal on a higher face; no_lower: TextArena's
# GameConfig.preset(name): the fields each named rule set sets (docs/rules.md: sources)
PRESETS: dict[str, dict[str, object]] = {
    "perudo": {"wild": 1, "wild_bids": "perudo", "exact_call": True, "palifico": True},
    "dudo": {"wild": 1, "wild_bids": "perudo", "loss": "difference"},
    "textarena": {"wild": None, "raise_order": "no_lower"},
}


@dataclass(frozen=True, order=True)
class Bid:
    """A claim that at least ``quantity`` dice on the table match ``face``."""

    quantity: int
    face: int

    def __str__(self) -> str:
        return f"{self.quantity}x{self.face}"


class _Call:
    """A call that ends the round (one singleton per subclass): pickles and deep-copies back to it."""

    _label = ""

    def __new__(cls) -> _Call:
        instance = cls.__dict__.get("_instance")
        if instance is None:
            instance = super().__new__(cls)
            cls._instance = instance
        return instance

    def __repr__(self) -> str:
        return self._label

    __str__ = __repr__

    def __reduce__(self):  # pickles (process pools) back to the singleton
        return (type(self), ())

    def __deepcopy__(self, memo):
        return self


class Challenge(_Call):
    """The challenge ("liar!") action; use the singleton ``CHALLENGE``."""

    _label = "CHALLENGE"


class ExactCall(_Call):
    """The exact call ("calza", "spot on"; legal under ``exact_call=True``); use the singleton ``EXACT``."""

    _label = "EXACT"


CHALLENGE = Challenge()
"""The challenge: the one ``Challenge``."""
EXACT = ExactCall()
"""The exact call: the one ``ExactCall``."""
Action = Bid | Challenge | ExactCall
"""Any action: a bid, ``CHALLENGE`` or ``EXACT``."""


_FACE_NAMES = {1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}


def face_name(face: int) -> str:
    """A face's name in a sentence, plural: ``"fours"`` (``"7s"`` above six)."""
    return _FACE_NAMES.get(face, f"{face}s")


def dice_text(n: int) -> str:
    """``"1 die"``, ``"5 dice"``: a number of dice for messages and titles."""
    return f"{n} {'die' if n == 1 else 'dice'}"


@dataclass(frozen=True)
class GameConfig:
    """A validated rule set: a bad value raises a UsageError naming it (the rules and variants: docs/rules.md).

    ``dice`` takes one count (>= 1) for everyone or one per player, stored as the tuple of every player's (also
    ``starting_dice``); ``preset`` names the common sets of variants. Derived on creation: ``bid_faces``,
    the faces a bid may name (all of them in the full game, only the highest in "sixes").
    """

    num_players: int = 2  # players at the table, >= 2
    dice: tuple[int, ...] = 5  # type: ignore[assignment]  # 5 for every player: __post_init__ makes the tuple
    faces: int = 6  # faces of a die, >= 2
    wild: int | None = 1  # the wild face: 1, the highest face, or None for no wild dice
    bids: str = "full"  # "full" (a bid names any face) or "sixes" (report 002: the highest face, each raise adds one)
    opener: str = "after_challenger"  # next opener: the seat with dice after the challenger, or "loser" (if out,
    # the next seat)
    wild_bids: str = "plain"  # or "perudo" (Perudo's order for bids on the wild ones; needs wild=1)
    exact_call: bool = False  # whether the exact call (EXACT) is open when a bid stands
    palifico: bool = False  # whether the round after a player first drops to one die is a palifico round
    loss: str = "one"  # "one" (a challenge's loser loses one die) or "difference" (as many as the bid missed by)
    palifico_round: bool = False  # the rules *of* a palifico round, derived by round_rules; a user never sets it
    raise_order: str = "plain"  # or "no_lower" (TextArena's: a raise lowers neither quantity nor face)
    bid_faces: tuple[int, ...] = field(init=False, repr=False, compare=False)

    if TYPE_CHECKING:  # the dataclass's __init__ as it takes dice: an integer or a sequence (tests/test_rules.py
        # checks that it lists the fields and their defaults)
        def __init__(self, num_players: int = 2, dice: int | Sequence[int] | np.ndarray = 5, faces: int = 6,
                     wild: int | None = 1, bids: str = "full", opener: str = "after_challenger",
                     wild_bids: str = "plain", exact_call: bool = False, palifico: bool = False, loss: str = "one",
                     palifico_round: bool = False, raise_order: str = "plain") -> None: ...

    def __post_init__(self) -> None:
        num_players = int_at_least("GameConfig", "num_players", self.num_players, 2)
        faces = int_at_least("GameConfig", "faces", self.faces, 2)
        given: int | Sequence[int] | np.ndarray = self.dice  # as __init__ took it, made a tuple below
        if isinstance(given, (list, tuple, np.ndarray)):
            dice = tuple(int_at_least("GameConfig", "dice", d, 1) for d in given)
            if len(dice) != num_players:
                raise UsageError(
                    f"GameConfig.dice lists {len(dice)} players but num_players is {num_players}"
                )
        else:
            dice = (int_at_least("GameConfig", "dice", given, 1),) * num_players
        if sum(dice) > MAX_TABLE_DICE:
            each = f"x {dice[0]} dice" if len(set(dice)) == 1 else f"with dice {dice}"
            raise UsageError(f"GameConfig.dice: {num_players} players {each} put {sum(dice)} dice on the table, above "
                             f"the limit MAX_TABLE_DICE = {MAX_TABLE_DICE}")
        if self.wild not in (1, faces, None) or isinstance(self.wild, bool):
            raise UsageError(
                f"GameConfig.wild must be 1, the highest face ({faces}) or None, got {self.wild!r}"
            )
        if self.bids not in BID_MODES:
            raise UsageError(f"GameConfig.bids must be one of {BID_MODES}, got {self.bids!r}")
        if self.opener not in OPENER_RULES:
            raise UsageError(f"GameConfig.opener must be one of {OPENER_RULES}, got {self.opener!r}")
        self._check_variants()
        object.__setattr__(self, "num_players", num_players)
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "dice", dice)
        object.__setattr__(self, "wild", None if self.wild is None else int(self.wild))
        object.__setattr__(self, "bid_faces", (faces,) if self.bids == "sixes" else tuple(range(1, faces + 1)))

    def _check_variants(self) -> None:
        """The variant fields' checks (``__post_init__``)."""
        if self.wild_bids not in WILD_BID_RULES:
            raise UsageError(f"GameConfig.wild_bids must be one of {WILD_BID_RULES}, got {self.wild_bids!r}")
        if self.loss not in LOSS_RULES:
            raise UsageError(f"GameConfig.loss must be one of {LOSS_RULES}, got {self.loss!r}")
        if self.raise_order not in RAISE_ORDERS:
            raise UsageError(f"GameConfig.raise_order must be one of {RAISE_ORDERS}, got {self.raise_order!r}")
        if self.raise_order == "no_lower" and (self.bids != "full" or self.wild_bids != "plain"):
            raise UsageError(f"GameConfig.raise_order='no_lower' needs bids='full' and wild_bids='plain' (it orders "
                             f"bids on any face), got bids={self.bids!r}, wild_bids={self.wild_bids!r}")
        for name in ("exact_call", "palifico", "palifico_round"):
            if not isinstance(getattr(self, name), bool):
                raise UsageError(f"GameConfig.{name} must be True or False, got {getattr(self, name)!r}")
        if self.wild_bids == "perudo" and (self.wild != 1 or self.bids != "full"):
            raise UsageError(f"GameConfig.wild_bids='perudo' needs wild=1 and bids='full' (Perudo's order for bids "
                             f"on the wild ones), got wild={self.wild!r}, bids={self.bids!r}")
        if self.palifico_round and (not self.palifico or self.wild is not None or self.wild_bids != "plain"):
            raise UsageError("GameConfig.palifico_round marks a palifico round's rules: build it with "
                             "config.round_rules(palifico=True) from a config with palifico=True")

    @property
    def variants(self) -> dict[str, object]:
        """The variant fields that differ from today's rules (``{}`` for the defaults), by name."""
        return {name: getattr(self, name) for name, value in VARIANT_DEFAULTS.items() if getattr(self, name) != value}

    @classmethod
    def preset(cls, name: str, **fields: object) -> GameConfig:
        """A named rule set, ``"perudo"``, ``"dudo"`` or ``"textarena"``; ``fields`` pass through and override the
        preset's.

        ``"perudo"``: ones wild, Perudo bids, exact call, palifico. ``"dudo"``: Neller & Hnath's two-player Dudo:
        ones wild, Perudo bids, loss by the difference. ``"textarena"``: TextArena's ``LiarsDice-v0``: no wild dice,
        a raise lowers neither quantity nor face. An unknown name is a UsageError.
        """
        if name not in PRESETS:
            raise UsageError(f"GameConfig.preset: unknown rule set {name!r}; known: {', '.join(PRESETS)}")
        return cls(**{**PRESETS[name], **fields})  # type: ignore[arg-type]

    def round_rules(self, palifico: bool) -> GameConfig:
        """The rules of one round: this config, or in a palifico round its palifico rules (ones not wild, any
        opening face, the opening bid's face fixed for the round)."""
        if not palifico:
            return self
        if not self.palifico:
            raise ValueError("GameConfig.round_rules: a palifico round needs palifico=True")
        return _palifico_rules(self)

    def __hash__(self) -> int:
        """Computed once per object: a config keys every cached rule lookup, several times per move."""
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.num_players, self.dice, self.faces, self.wild, self.bids, self.opener)
                          + tuple(self.variants.items()))
            object.__setattr__(self, "_hash", cached)
        return cached

    def __getstate__(self) -> dict:
        """Pickled without the cached hash: string hashes differ between processes."""
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @property
    def starting_dice(self) -> tuple[int, ...]:
        """Dice per player at the start of a game (``dice``)."""
        return self.dice

    @property
    def warnings(self) -> tuple[str, ...]:
        """Rules given that can never take effect with these dice, one line each, naming why; the game is played
        as given (``ldpomdp play``, sweeps and the web app report them)."""
        if self.palifico and max(self.starting_dice) == 1:  # a player with 1 die who loses it is out: none drops to 1
            return ("palifico: every player starts with 1 die, so no palifico round can happen",)
        return ()

    def describe(self) -> str:
        """The rules in a few words, without players and dice: ``"full game, 6 faces, ones wild"`` (plus
        ``", the loser opens"`` under that opener rule)."""
        wild = "no wild" if self.wild is None else f"{face_name(self.wild)} wild"
        loser = ", the loser opens" if self.opener == "loser" else ""
        return f"{self.bids} game, {self.faces} faces, {wild}{loser}{self.describe_variants()}"

    def describe_variants(self) -> str:
        """The variants in force in a few words (``""`` for today's rules): ``", Perudo bids on ones, exact
        call, palifico"``."""
        words = {"wild_bids": "Perudo bids on ones", "exact_call": "exact call", "palifico": "palifico",
                 "loss": "loss by the difference", "palifico_round": "a palifico round",
                 "raise_order": "raises lower neither quantity nor face"}
        return "".join(f", {words[name]}" for name in self.variants)


@memo(maxsize=64)
def _palifico_rules(config: GameConfig) -> GameConfig:
    """``config``'s palifico-round rules, one instance per config (rule caches key on it)."""
    return replace(config, wild=None, wild_bids="plain", palifico_round=True)


def is_raise(config: GameConfig, new: Bid, current: Bid | None) -> bool:
    """Whether ``new`` is a legal bid over ``current`` (None = opening bid), ignoring the table size."""
    if new.face not in config.bid_faces or new.quantity < 1:
        return False
    if current is None:
        return new.quantity == 1 if config.bids == "sixes" else _raise_floor(config, None, new.face) is not None
    if config.bids == "sixes":
        return new.quantity == current.quantity + 1
    if _ordered(config):
        floor = _raise_floor(config, current, new.face)
        return floor is not None and new.quantity >= floor
    return (new.quantity, new.face) > (current.quantity, current.face)


def _ordered(config: GameConfig) -> bool:
    """Whether a full game's raises follow a variant's order (Perudo bids, a palifico round, TextArena's), not plain
    (q, f)."""
    return config.wild_bids == "perudo" or config.palifico_round or config.raise_order == "no_lower"


def _raise_floor(config: GameConfig, bid: Bid | None, face: int) -> int | None:
    """The smallest quantity of a legal bid on ``face`` over ``bid`` in a full game (None: no bid on ``face``).

    Plain: higher in quantity, or equal on a higher face. A palifico round: any opening face, then only that face,
    rising in quantity. Perudo bids (ones wild): no opening on ones; ones over q x f need ceil(q / 2); another face
    over q x 1 needs 2q + 1; ones over ones, and other faces over other faces, rise as plain. ``no_lower`` (TextArena):
    no lower face; the same face needs q + 1, a higher one q."""
    if bid is None:
        return None if config.wild_bids == "perudo" and face == 1 else 1
    if config.palifico_round:
        return bid.quantity + 1 if face == bid.face else None
    if config.wild_bids == "perudo" and (face == 1) != (bid.face == 1):
        return (bid.quantity + 1) // 2 if face == 1 else 2 * bid.quantity + 1
    if config.raise_order == "no_lower" and face < bid.face:
        return None
    return bid.quantity + 1 if face <= bid.face else bid.quantity


@memo(maxsize=None)
def _bid(quantity: int, face: int) -> Bid:
    """One shared ``Bid`` per claim for the raises the rules list: cache lookups keyed by bids then match
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
        if _ordered(config):
            floor = _raise_floor(config, bid, face)
            if floor is None:
                continue
            q = floor
        elif bid is None:
            q = 1
        else:
            q = bid.quantity + 1 if face <= bid.face else bid.quantity
        if q <= table_dice:
            raises.append(_bid(q, face))
    return tuple(raises)


@memo(maxsize=65536)
def legal_actions(config: GameConfig, table_dice: int, bid: Bid | None) -> tuple[Action, ...]:
    """Every legal action: all raises within the dice on the table (by quantity, then face), then CHALLENGE
    (then EXACT under ``exact_call``).

    The opener (``bid`` None) must bid; at the top bid only the calls remain.
    """
    if config.bids == "sixes":
        actions: list[Action] = list(minimal_raises(config, table_dice, bid))
    elif _ordered(config):
        floors = [(f, _raise_floor(config, bid, f)) for f in config.bid_faces]
        actions = [_bid(q, f) for q in range(1, table_dice + 1) for f, floor in floors if floor is not None
                   and q >= floor]
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
        if config.exact_call:
            actions.append(EXACT)
    return tuple(actions)


class ActionCoding:
    """The package's one numbering of a config's actions, ``0 .. size - 1``.

    Bid ``(q, f)`` is ``(q - 1) * len(faces) + the index of f in faces`` for every quantity up to the dice on the
    table at the start of a game, then CHALLENGE, then (under ``exact_call``) EXACT. ``faces`` are the faces a bid
    may name (``config.bid_faces``), or with ``every_face`` all of them: OpenSpiel's ``liars_dice`` numbering, the
    same but in the sixes game, where the other faces' numbers go unused.
    """

    def __init__(self, config: GameConfig, every_face: bool = False):
        if not isinstance(config, GameConfig):
            raise UsageError(f"ActionCoding.config must be a GameConfig, got {type(config).__name__}")
        self.config = config
        self.faces = tuple(range(1, config.faces + 1)) if every_face else config.bid_faces
        self.max_quantity = sum(config.starting_dice)
        self.num_bids = self.max_quantity * len(self.faces)
        self.size = self.num_bids + 1 + config.exact_call
        self.challenge = self.num_bids
        self.exact = self.num_bids + 1 if config.exact_call else None  # EXACT's number, under exact_call
        self._face_index = {f: i for i, f in enumerate(self.faces)}
        self._masks: dict[tuple[GameConfig, int, Bid | None], np.ndarray] = {}

    @cached_property
    def bids(self) -> tuple[Bid, ...]:
        """Every numbered bid, bid ``i`` numbered ``i``."""
        return tuple(_bid(q, f) for q in range(1, self.max_quantity + 1) for f in self.faces)

    def index(self, action: Action) -> int:
        """The number of ``action``; a ValueError for anything that is not an action of this config."""
        if action is CHALLENGE:
            return self.challenge
        if action is EXACT and self.exact is not None:
            return self.exact
        if isinstance(action, Bid) and action.face in self._face_index and 1 <= action.quantity <= self.max_quantity:
            return (action.quantity - 1) * len(self.faces) + self._face_index[action.face]
        raise ValueError(f"{action!r} is not an action of this game ({self.config.describe()}, "
                         f"{self.max_quantity} dice)")

    def action(self, index: int) -> Action:
        """The action numbered ``index``; a ValueError outside ``0 .. size - 1``."""
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < self.size:
            raise ValueError(f"action must be an integer in 0..{self.size - 1}, got {index!r}")
        if index == self.challenge:
            return CHALLENGE
        if index == self.exact:
            return EXACT
        return self.bids[index]

    def mask(self, config: GameConfig, table_dice: int, bid: Bid | None) -> np.ndarray:
        """(size,) int8, read-only: 1 for the actions ``legal_actions`` lists (``config``: the round's rules,
        a palifico round's in one), remembered per call."""
        key = (config, table_dice, bid)
        out = self._masks.get(key)
        if out is None:
            out = np.zeros(self.size, dtype=np.int8)
            out[[self.index(a) for a in legal_actions(*key)]] = 1
            out.flags.writeable = False
            self._masks[key] = out
        return out


def faces_for(config: GameConfig, bid: Bid | None, quantity: int) -> tuple[int, ...]:
    """The faces on which a bid of ``quantity`` is a legal bid over ``bid`` (ignoring the table size), ascending:
    for players that choose a quantity first and a face second."""
    return tuple(f for f in config.bid_faces if is_raise(config, _bid(quantity, f), bid))


def is_legal(config: GameConfig, table_dice: int, bid: Bid | None, action: object) -> bool:
    """Whether ``action`` is legal when ``bid`` stands and ``table_dice`` dice are on the table."""
    if action is CHALLENGE:
        return bid is not None
    if action is EXACT:
        return bid is not None and config.exact_call
    if not isinstance(action, Bid):
        return False
    return action.quantity <= table_dice and is_raise(config, action, bid)


@overload
def matching_count(hands: tuple[int, ...], face: int, config: GameConfig) -> int: ...


@overload
def matching_count(hands: np.ndarray | Sequence[Sequence[int]], face: int, config: GameConfig) -> np.ndarray: ...


def matching_count(hands: np.ndarray | Sequence, face: int, config: GameConfig) -> np.ndarray | int:
    """Dice matching ``face`` in each hand: the face itself plus wild dice when ``face`` is not wild.

    One hand given as a flat tuple of ints (a ``PlayerView``'s) gives a plain int, without numpy; anything else
    (arrays, nested tuples of hands) is counted hand by hand as an integer array of the hands' type (at least
    int16).
    """
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


def __getattr__(name: str) -> Any:
    """The names of a round's end that moved to ``ldpomdp.round_end``, with a DeprecationWarning."""
    return moved_attribute(__name__, name)
