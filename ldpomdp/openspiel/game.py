"""The package's Liar's Dice as an OpenSpiel game: ``python_ldpomdp_liars_dice`` (parameters: docs/openspiel.md).

Parameters map one to one onto ``GameConfig``, plus ``one_round``, ``first_opener`` and
``max_rounds``. Actions are OpenSpiel's ``liars_dice`` numbers (``ActionCoding`` with
``every_face``). Each round starts with one chance node per seat with dice, whose outcome is the row of the seat's
hand in ``hand_support``; legal actions, calls and the next round come from ``ldpomdp.rules``.
"""

from __future__ import annotations

import math

import numpy as np
import pyspiel

from ..errors import UsageError
from ..game import (
    ActionTaken,
    Event,
    PlayerView,
    PublicView,
    RoundEnd,
    RoundRecord,
    RoundStart,
)
from ..hands import hand_support
from ..round_end import next_active_seat, next_round, settle_round
from ..rules import CHALLENGE, EXACT, VARIANT_DEFAULTS, Action, ActionCoding, Bid, GameConfig, legal_actions

__all__ = ["DEFAULTS", "EXACT_CALL_ROUNDS_PER_DIE", "GAME_NAME", "LiarsDiceGame", "LiarsDiceState", "config_of",
           "load", "params_of", "register"]

GAME_NAME = "python_ldpomdp_liars_dice"
DEFAULTS = {"players": 2, "dice": 5, "faces": 6, "wild": 1, "bids": "full", "opener": "after_challenger",
            **VARIANT_DEFAULTS, "one_round": False, "first_opener": 0, "max_rounds": 0}
MAX_PLAYERS = 10
# under exact_call a right call gives a die back, so a game has no longest line of its own: by default it stops, a
# draw, after this many rounds per starting table die (package players' games run about one round per die)
EXACT_CALL_ROUNDS_PER_DIE = 4

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Liar's Dice (ldpomdp)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def config_of(params: dict) -> GameConfig:
    """The ``GameConfig`` of a game's parameters (missing ones take ``DEFAULTS``)."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise UsageError(f"{GAME_NAME}: unknown parameter(s) {unknown}; known: {sorted(DEFAULTS)}")
    p = {**DEFAULTS, **params}
    if isinstance(p["wild"], bool) or not isinstance(p["wild"], int):
        raise TypeError(f"{GAME_NAME}: wild must be 1, the highest face or 0 (no wild face), got {p['wild']!r}")
    return GameConfig(num_players=p["players"], dice=p["dice"], faces=p["faces"], wild=p["wild"] or None,
                      bids=p["bids"], opener=p["opener"], **{name: p[name] for name in VARIANT_DEFAULTS})


def max_rounds_of(config: GameConfig, one_round: bool, max_rounds: int) -> int:
    """The most rounds a game can have under ``config``, ``one_round`` and the cap ``max_rounds``.

    1 with ``one_round``; else the cap ``max_rounds`` (0: none), within the rules' own bound (every round costs a die,
    so starting table dice - 1) unless ``exact_call`` gives dice back (then an uncapped game stops after
    ``EXACT_CALL_ROUNDS_PER_DIE`` rounds per starting table die). ValueError for a ``max_rounds`` not an integer >= 0.
    """
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 0:
        raise UsageError(f"{GAME_NAME}: max_rounds must be an integer >= 0 (0: no cap), got {max_rounds!r}")
    table = sum(config.starting_dice)
    if one_round:
        return 1
    if config.exact_call:
        return max_rounds or EXACT_CALL_ROUNDS_PER_DIE * table
    return min(max_rounds or table - 1, table - 1)


class _Shared(tuple):
    """A tuple that a state's clones share instead of copying.

    States replace these, never mutate them, so ``copy.deepcopy`` (which pyspiel's ``clone`` runs on a Python state's
    attributes) returns it as is instead of walking it."""

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self


class _Rules:
    """What every state of one game shares: the config, the action numbering and the lookup tables (never copied
    with a state)."""

    def __init__(self, config: GameConfig, one_round: bool, max_rounds: int):
        self.config, self.one_round, self.faces = config, one_round, config.faces
        self.max_rounds = max_rounds_of(config, one_round, max_rounds)
        self.table = sum(config.starting_dice)
        self.coding = ActionCoding(config, every_face=True)  # OpenSpiel's liars_dice numbering
        self.challenge = self.coding.challenge
        self.exact = -1 if self.coding.exact is None else self.coding.exact  # -1: no exact call in these rules
        self.num_actions = self.coding.size
        self.bids = self.coding.bids
        self._legal: dict[tuple[int, int, bool], tuple[list[int], frozenset[int]]] = {}
        self._chance: dict[int, list[tuple[int, float]]] = {}
        self._hands: dict[int, list[tuple[int, ...]]] = {}

    def __deepcopy__(self, memo: dict) -> _Rules:
        return self

    def encode(self, action: Action) -> int:
        try:
            return self.coding.index(action)
        except ValueError:
            raise ValueError(f"{GAME_NAME} has no action {action!r} under its rules ({self.config.describe()}, "
                             f"{self.table} dice)") from None

    def decode(self, action: int) -> Action:
        return self.coding.action(action)

    def call(self, exact: bool) -> int:
        """The id of the call that ended a round: the exact call or the challenge."""
        return self.exact if exact else self.challenge

    def legal(self, table: int, last: int, palifico: bool) -> tuple[list[int], frozenset[int]]:
        """Legal action ids (ascending) and their set with ``table`` dice out, ``last`` the standing bid (-1: none),
        in a palifico round or not."""
        key = (table, last, palifico)
        found = self._legal.get(key)
        if found is None:
            bid = None if last < 0 else self.bids[last]
            ids = sorted(self.encode(a) for a in legal_actions(self.config.round_rules(palifico), table, bid))
            found = self._legal[key] = (ids, frozenset(ids))
        return found

    def hands(self, dice: int) -> list[tuple[int, ...]]:
        """Every hand of ``dice`` dice as face counts, in chance-outcome order."""
        found = self._hands.get(dice)
        if found is None:
            found = self._hands[dice] = [tuple(map(int, row)) for row in hand_support(dice, self.faces)[0]]
        return found

    def chance(self, dice: int) -> list[tuple[int, float]]:
        found = self._chance.get(dice)
        if found is None:
            found = self._chance[dice] = list(enumerate(map(float, hand_support(dice, self.faces)[1])))
        return found

    def outcome(self, hand: tuple[int, ...]) -> int:
        """The chance outcome of a hand (face counts)."""
        return self.hands(sum(hand)).index(tuple(hand))


def _bids_of(actions: tuple[tuple[int, Action], ...]) -> tuple[tuple[int, Bid], ...]:
    """A bridged round's recorded actions as bids: the bridge records a round's bids alone (its challenge is the
    record's ``challenger``)."""
    bids = tuple((seat, a) for seat, a in actions if isinstance(a, Bid))
    assert len(bids) == len(actions), f"a bridged round records bids only, got {actions}"
    return bids


def _game_info(rules: _Rules) -> pyspiel.GameInfo:
    """The ``pyspiel.GameInfo`` of a game: its sizes and bounds.

    A round on ``t`` dice has at most one bid per (quantity, face) then a call (every rule's raises climb one order);
    without the exact call each round starts with at least one die fewer."""
    config, table = rules.config, rules.table
    per_round = (lambda t: t + 1) if config.bids == "sixes" else (lambda t: t * config.faces + 1)
    tables = [table] * rules.max_rounds if config.exact_call else range(table, 1, -1)[:rules.max_rounds]
    # one round's payoff is a dice change: at most a whole hand under loss="difference"
    utility = max(config.starting_dice) if rules.one_round and config.loss == "difference" else 1
    return pyspiel.GameInfo(
        num_distinct_actions=rules.num_actions,
        max_chance_outcomes=max(math.comb(d + config.faces - 1, config.faces - 1) for d in config.starting_dice),
        num_players=config.num_players,
        min_utility=-float(utility),
        max_utility=float(utility),
        utility_sum=0.0,
        max_game_length=sum(per_round(t) for t in tables),
    )


class LiarsDiceGame(pyspiel.Game):
    """The pyspiel game; ``config`` is its ``GameConfig``, ``one_round`` whether one round ends it."""

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        config = config_of(params)
        if config.num_players > MAX_PLAYERS:
            raise UsageError(f"{GAME_NAME}: at most {MAX_PLAYERS} players, got {config.num_players}")
        one_round, first_opener, max_rounds = (({**DEFAULTS, **params})[k] for k in
                                               ("one_round", "first_opener", "max_rounds"))
        if isinstance(first_opener, bool) or first_opener not in range(config.num_players):
            raise UsageError(f"{GAME_NAME}: first_opener must be a seat in 0..{config.num_players - 1}, "
                             f"got {first_opener!r}")
        rules = _Rules(config, bool(one_round), max_rounds)
        super().__init__(_GAME_TYPE, _game_info(rules), params)
        self.config, self.one_round, self.first_opener, self.rules = config, bool(one_round), first_opener, rules

    def new_initial_state(self) -> LiarsDiceState:
        return LiarsDiceState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> LiarsDiceObserver:
        return LiarsDiceObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class LiarsDiceState(pyspiel.State):
    """A game in progress, as a pyspiel state.

    It holds the dice per seat, the finished rounds (``rounds``, with the dice each started with), the seats whose
    palifico round has been played, the current round's hands as face counts (None until rolled), its bids and
    whether it is a palifico round (``palifico``)."""

    def __init__(self, game: LiarsDiceGame):
        super().__init__(game)
        self.rules = game.rules
        self.dice: tuple[int, ...] = _Shared(game.config.starting_dice)
        self.rounds: tuple[tuple[tuple[int, ...], RoundRecord], ...] = _Shared()
        self.had_palifico: frozenset[int] = frozenset()
        self._start_round(game.first_opener, False)

    def _start_round(self, opener: int, palifico: bool) -> None:
        self.opener = self.seat = opener
        self.palifico = palifico
        empty = (0,) * self.rules.faces
        self.hands: tuple[tuple[int, ...] | None, ...] = _Shared(None if d else empty for d in self.dice)
        self.to_roll = next((s for s, h in enumerate(self.hands) if h is None), -1)
        self.bid_ids: tuple[int, ...] = _Shared()
        self.bid_seats: tuple[int, ...] = _Shared()
        self.over = False

    def _rolled_hands(self) -> tuple[tuple[int, ...], ...]:
        """The round's hands once every seat has rolled (past the round's chance nodes)."""
        hands = tuple(h for h in self.hands if h is not None)
        assert len(hands) == len(self.hands), f"hands not all rolled yet: {self.hands}"
        return hands

    def _legal(self) -> tuple[list[int], frozenset[int]]:
        return self.rules.legal(sum(self.dice), self.bid_ids[-1] if self.bid_ids else -1, self.palifico)

    # --- the pyspiel API
    def current_player(self) -> int:
        if self.over:
            return pyspiel.PlayerId.TERMINAL
        if self.to_roll >= 0:
            return pyspiel.PlayerId.CHANCE
        return self.seat

    def _legal_actions(self, player: int) -> list[int]:
        return self._legal()[0]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.rules.chance(self.dice[self.to_roll])

    def _apply_action(self, action: int) -> None:
        rules = self.rules
        if self.to_roll >= 0:
            hands = rules.hands(self.dice[self.to_roll])
            if not 0 <= action < len(hands):
                raise ValueError(f"{GAME_NAME}: chance outcome {action} is not a hand of {self.dice[self.to_roll]} "
                                 f"dice (0..{len(hands) - 1})")
            self.hands = _Shared(hands[action] if s == self.to_roll else h for s, h in enumerate(self.hands))
            self.to_roll = next((s for s in range(self.to_roll + 1, len(self.hands)) if self.hands[s] is None), -1)
            return
        if self.over:
            raise ValueError(f"{GAME_NAME}: action {action} after the game ended")
        if action not in self._legal()[1]:
            raise ValueError(f"{GAME_NAME}: illegal action {action} ({self._action_to_string(self.seat, action)}) "
                             f"for seat {self.seat}; legal: {self._legal_actions(self.seat)}")
        call = rules.decode(action)
        if isinstance(call, Bid):
            self.bid_ids = _Shared(self.bid_ids + (action,))
            self.bid_seats = _Shared(self.bid_seats + (self.seat,))
            self.seat = next_active_seat(self.dice, self.seat)
            return
        config, bid, bidder = rules.config, rules.bids[self.bid_ids[-1]], self.bid_seats[-1]
        rolled = self._rolled_hands()
        loser, matching, after = settle_round(config.round_rules(self.palifico), np.array(rolled), self.dice, bid,
                                              bidder, self.seat, call)
        record = RoundRecord(self.opener, rolled, self.history_actions(), self.seat, loser, bid, matching,
                             call is EXACT, self.palifico)
        self.rounds = _Shared(self.rounds + ((self.dice, record),))
        self.dice = _Shared(after)
        capped = rules.one_round or len(self.rounds) >= rules.max_rounds
        following = None if capped else next_round(config, after, self.seat, loser, self.had_palifico)
        if following is None:
            self.over = True
            self.to_roll = -1
            return
        self.had_palifico = following.had_palifico
        self._start_round(following.opener, following.palifico)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"roll {','.join(map(str, self.rules.hands(self.dice[self.to_roll])[action]))}"
        return str(self.rules.decode(action))

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        """The whole game: the winner +1, the others -1/(N-1), all 0 when the round cap stopped it. One round: each
        seat's dice change minus the others' mean change."""
        n = len(self.dice)
        if not self.over:
            return [0.0] * n
        if self.rules.one_round:
            change = [after - before for after, before in zip(self.dice, self.rounds[0][0], strict=True)]
            return [c - (sum(change) - c) / (n - 1) for c in change]
        if sum(d > 0 for d in self.dice) > 1:
            return [0.0] * n
        return [1.0 if d > 0 else -1.0 / (n - 1) for d in self.dice]

    def __str__(self) -> str:
        hands = " ".join("-" if h is None else ",".join(map(str, h)) for h in self.hands)
        bids = " ".join(str(self.rules.bids[b]) for b in self.bid_ids)
        palifico = " palifico" if self.palifico else ""
        return f"round {len(self.rounds)}{palifico} dice {self.dice} hands {hands} bids {bids}".rstrip()

    # --- the package's view of the state
    @property
    def config(self) -> GameConfig:
        """The game's rules."""
        return self.rules.config

    @property
    def round_config(self) -> GameConfig:
        """The current round's rules: ``config``, or in a palifico round its palifico rules."""
        return self.rules.config.round_rules(self.palifico)

    def history_actions(self) -> tuple[tuple[int, Bid], ...]:
        """This round's bids as the package's ``(seat, Bid)`` pairs."""
        bids = self.rules.bids
        return tuple((s, bids[b]) for s, b in zip(self.bid_seats, self.bid_ids, strict=True))

    def public_view(self) -> PublicView:
        """What everyone knows with ``seat`` to act."""
        return PublicView(self.round_config, self.seat, self.dice, self.history_actions(), len(self.rounds))

    def player_view(self) -> PlayerView:
        """What the player to act sees (its hand included)."""
        hand = self.hands[self.seat]
        assert hand is not None, f"seat {self.seat} acts before its hand is rolled"
        return PlayerView(self.round_config, self.seat, self.dice, self.history_actions(), len(self.rounds),
                          hand=hand)

    def events(self) -> list[Event]:
        """Every public event so far, as ``play_game`` shows them to the players (a round's
        ``RoundStart`` once its hands are rolled)."""
        out: list[Event] = []
        rounds: list[tuple[tuple[int, ...], int, tuple[tuple[int, Bid], ...], bool, RoundRecord | None]] = [
            (dice, r.opener, _bids_of(r.actions), r.palifico, r) for dice, r in self.rounds]
        if not (self.over or self.to_roll >= 0):
            rounds.append((self.dice, self.opener, self.history_actions(), self.palifico, None))
        for index, (dice, opener, actions, palifico, record) in enumerate(rounds):
            config = self.config.round_rules(palifico)
            out.append(RoundStart(index, dice, opener, palifico))
            for k, (seat, action) in enumerate(actions):
                out.append(ActionTaken(seat, action, PublicView(config, seat, dice, actions[:k], index)))
            if record is not None:
                caller = record.challenger
                view = PublicView(config, caller, dice, actions, index)
                out.append(ActionTaken(caller, EXACT if record.exact else CHALLENGE, view))
                after = self.rounds[index + 1][0] if index + 1 < len(self.rounds) else self.dice
                loser = None if record.loser < 0 else record.loser  # a record's -1 is RoundEnd's None: nobody
                out.append(RoundEnd(index, record.hands, record.final_bid, actions[-1][0], caller, loser,
                                    record.matching, after, record.exact, max(after[caller] - dice[caller], 0),
                                    palifico))
        return out


class LiarsDiceObserver:
    """OpenSpiel's observer (the PyObserver interface): a flat float tensor with named views, and a string.

    The views (docs/openspiel.md): ``player``; ``hand`` or ``hands`` by ``iig_obs_type.private_info``; with public
    information ``dice``, ``opener``, ``bids`` and, under ``palifico``, ``palifico``; then ``past_rounds`` with
    perfect recall, else ``revealed``. The string shows the same, a palifico round marked ``palifico``.
    """

    def __init__(self, game: LiarsDiceGame, iig_obs_type, params):
        if params:
            raise UsageError(f"{GAME_NAME}: observation parameters are not supported; got {params}")
        config, rules = game.config, game.rules
        n, faces, actions, palifico = config.num_players, config.faces, rules.num_actions, int(config.palifico)
        self.rules = rules
        self.private = iig_obs_type.private_info
        self.public, self.perfect_recall = iig_obs_type.public_info, iig_obs_type.perfect_recall
        pieces: list[tuple[str, tuple[int, ...]]] = [("player", (n,))]
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            pieces.append(("hand", (faces,)))
        elif self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            pieces.append(("hands", (n, faces)))
        if self.public:
            pieces += [("dice", (n,)), ("opener", (n,)), ("bids", (actions,))] + [("palifico", (1,))] * palifico
            if self.perfect_recall:
                pieces.append(("past_rounds", (rules.max_rounds, n + n + n * faces + actions)))
            else:
                pieces.append(("revealed", (n, faces)))
        self.tensor = np.zeros(sum(math.prod(shape) for _, shape in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        start = 0
        for name, shape in pieces:
            size = math.prod(shape)
            self.dict[name] = self.tensor[start:start + size].reshape(shape)
            start += size

    def set_from(self, state: LiarsDiceState, player: int) -> None:
        self.tensor.fill(0)
        rules, d = self.rules, self.dict
        d["player"][player] = 1
        if "hand" in d and state.hands[player] is not None:
            d["hand"][:] = state.hands[player]
        if "hands" in d:
            for seat, hand in enumerate(state.hands):
                if hand is not None:
                    d["hands"][seat] = hand
        if not self.public:
            return
        if state.over:  # the last round's end: its bids, its call and the dice it started with
            dice, record = state.rounds[-1]
            d["dice"][:], d["opener"][record.opener] = dice, 1
            d["bids"][self._action_ids(record)] = 1
            palifico = record.palifico
        else:
            d["dice"][:], d["opener"][state.opener] = state.dice, 1
            d["bids"][list(state.bid_ids)] = 1
            palifico = state.palifico
        if "palifico" in d:
            d["palifico"][0] = palifico
        finished = state.rounds[:-1] if state.over else state.rounds
        if "past_rounds" in d:
            n = len(state.dice)
            # a row per round the game can have (strict=False): the finished rounds fill the first rows
            for row, (dice, record) in zip(d["past_rounds"], finished, strict=False):
                row[record.opener] = 1
                row[n:2 * n] = dice
                row[2 * n:2 * n + n * rules.faces] = np.ravel(record.hands)
                row[2 * n + n * rules.faces + np.array(self._action_ids(record))] = 1
        elif "revealed" in d and finished:
            d["revealed"][:] = finished[-1][1].hands

    def _action_ids(self, record: RoundRecord) -> list[int]:
        """A finished round's action ids: its bids, then its call."""
        return [self.rules.encode(a) for _, a in record.actions] + [self.rules.call(record.exact)]

    def string_from(self, state: LiarsDiceState, player: int) -> str:
        pieces = [f"p{player}"]
        hand = state.hands[player]
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER and hand is not None:
            pieces.append("hand " + ",".join(map(str, hand)))
        elif self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            pieces.append("hands " + " ".join("-" if h is None else ",".join(map(str, h)) for h in state.hands))
        if not self.public:
            return " ".join(pieces)
        rounds: list[tuple[tuple[int, ...], int, bool, list[Action], tuple[tuple[int, ...], ...] | None]] = [
            (dice, r.opener, r.palifico, [a for _, a in r.actions] + [EXACT if r.exact else CHALLENGE], r.hands)
            for dice, r in state.rounds]
        if not state.over:
            rounds.append((state.dice, state.opener, state.palifico, [a for _, a in state.history_actions()], None))
        if not self.perfect_recall:
            rounds = rounds[-2:] if rounds and rounds[-1][4] is None else rounds[-1:]
        for dice, opener, palifico, actions, hands in rounds:
            text = f"| dice {','.join(map(str, dice))} opener {opener}{' palifico' if palifico else ''}:"
            if actions:
                text += " " + " ".join(map(str, actions))
            if hands is not None:
                text += " shows " + " ".join(",".join(map(str, h)) for h in hands)
            pieces.append(text)
        return " ".join(pieces)


def load(**params) -> LiarsDiceGame:
    """``pyspiel.load_game(GAME_NAME, params)`` (registers the game first if needed)."""
    register()
    return pyspiel.load_game(GAME_NAME, params)


def params_of(config: GameConfig, **extra) -> dict:
    """The pyspiel game parameters of ``config``, plus those given in ``extra``.

    Its variants appear only where they differ from today's rules; ``extra`` gives ``one_round`` / ``first_opener`` /
    ``max_rounds``. ValueError for a config the parameters cannot
    express (different dice per seat)."""
    if len(set(config.starting_dice)) != 1:
        raise UsageError(f"{GAME_NAME} gives every seat the same dice; the config starts with {config.starting_dice}")
    return {"players": config.num_players, "dice": config.starting_dice[0], "faces": config.faces,
            "wild": config.wild or 0, "bids": config.bids, "opener": config.opener, **config.variants, **extra}


_registered = False


def register() -> None:
    """Register ``GAME_NAME`` with pyspiel (once per process)."""
    global _registered
    if not _registered:
        pyspiel.register_game(_GAME_TYPE, LiarsDiceGame)
        _registered = True
