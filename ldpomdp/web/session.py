"""Games on the server, one per browser session, stepped one change per request.

A change is the person's move, one agent's move, or the next round. Every change is checked against the version the
page last saw, so a repeated or late request is refused instead of playing a move twice."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from typing import Any, NamedTuple

from ..errors import PlayerError, TableError
from ..game import Event, GameState, RoundEnd, RoundState, ask, player_name
from ..hands import hand_faces
from ..registry import RECOMMENDED, make_seat, parse_spec
from ..rules import CHALLENGE, EXACT, Action, Bid, GameConfig, is_legal, matching_count
from ..sweeps import SteppedGame
from .choices import LIMITS, recommendation, rule_fields, rules_from_form
from .explain import action_distribution, action_text, explain, matching_dice
from .preparation import Preparation

__all__ = ["WebError", "WebGame", "Carried", "Sessions", "check_spec", "new_game", "parse_action", "recommend"]

YOU = 0  # the person's seat


class WebError(Exception):
    """A request the server refuses: ``status`` (4xx) and a one-line ``message`` for the page."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, " ".join(str(message).split())


def check_spec(spec: object, allow_plugins: bool) -> str:
    """``spec``'s canonical text, or a ``WebError`` for a spec the server does not play.

    Refused: not a string, not a spec, ``human`` anywhere in it (that is the person, at the server's terminal), or,
    unless ``allow_plugins``, naming a user module or a file anywhere in it (any parameter of the kind FILE of
    ``ldpomdp.registry``, whatever its value looks like). Parsing reads and imports nothing."""
    if not isinstance(spec, str) or not spec.strip():
        raise WebError(400, f"a player spec must be a non-empty string, got {spec!r}")
    parsed = parse_spec(spec)  # a UsageError: the app's 400
    if any(s.name == "human" for s in parsed.walk()):
        raise WebError(400, "'human' is you: choose agents for the other seats (and no agent can model you)")
    outside = parsed.external()
    if outside and not allow_plugins:
        raise WebError(403, f"player spec {parsed.text!r} names {' and '.join(outside)}: this server imports user "
                            f"code and reads files only when started with --allow-plugins")
    return parsed.canonical


class _You:
    """The person's seat: its moves come from the page (``WebGame.act``), never from ``act``."""

    name = "you"

    def reset(self, seat: int, config: GameConfig) -> None:
        return None

    def act(self, view: object, rng: object) -> Action:
        raise RuntimeError("the person's moves come from the page")

    def observe(self, event: Event) -> None:
        return None


def new_game(body: Any, allow_plugins: bool, earlier: WebGame | None = None) -> WebGame:
    """A new ``WebGame`` from the page's form ``body``; a ``WebError`` names a refused field.

    The form holds ``opponents`` (specs), ``seed`` (null: fresh) and the rules of ``rules_from_form``; ``earlier``,
    the session's game before it, carries the score on, and the players that learn across games (``_hand_on``)."""
    if not isinstance(body, dict):
        raise WebError(400, "the request body must be a JSON object")
    unknown = sorted(set(body) - {"opponents", "seed", *rule_fields()})
    if unknown:
        raise WebError(400, f"unknown field(s) {', '.join(unknown)}")
    opponents = body.get("opponents", ["one-third"])
    if not isinstance(opponents, list) or not 1 <= len(opponents) < LIMITS["players"]:
        raise WebError(400, f"opponents must be a list of 1 to {LIMITS['players'] - 1} player specs")
    specs = [check_spec(s, allow_plugins) for s in opponents]
    config = rules_from_form(body, len(specs) + 1)
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise WebError(400, f"seed must be an integer >= 0, got {seed!r}")
    carried = _hand_on(earlier, specs, config) if earlier is not None else {}
    try:
        return WebGame(config, specs, secrets.randbits(32) if seed is None else seed,
                       score=earlier.score() if earlier is not None else None, carried=carried)
    except BaseException:
        if earlier is not None and carried:  # not handed on after all: the next game may take them
            earlier.handed_on = False
        raise


class Carried(NamedTuple):
    """A seat's player that learns across games, carried into the next game of a match, and the games it learnt
    from."""

    player: Any
    games: int


def _hand_on(earlier: WebGame, specs: list[str], config: GameConfig) -> dict[int, Carried]:
    """The players of ``earlier`` that carry what they learnt into the next game (``learns_across_games``), by seat.

    Once only, and only from a game that finished without failing, seating the same ``specs`` under the same
    ``config`` (a match is one person against the same agents under the same rules)."""
    with earlier.lock:
        if (earlier.handed_on or not earlier.state.over or earlier.failure is not None
                or earlier.specs[1:] != tuple(specs) or earlier.state.config != config):
            return {}
        carried = {seat: Carried(player, earlier.match_games.get(seat, 0) + 1)
                   for seat, player in enumerate(earlier.players) if getattr(player, "learns_across_games", False)}
        earlier.handed_on = bool(carried)  # a second request for the next game gets fresh players
        return carried


def recommend(body: Any) -> dict:
    """The recommended agent and what it plays under the rules of the form ``body`` with ``players`` seats (2 if
    absent), as ``recommendation`` tells it, with the rules in ``words`` and their ``warnings``."""
    if not isinstance(body, dict):
        raise WebError(400, "the request body must be a JSON object")
    players = body.get("players", 2)
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= LIMITS["players"]:
        raise WebError(400, f"players must be an integer between 2 and {LIMITS['players']}, got {players!r}")
    unknown = sorted(set(body) - {"players", *rule_fields()})
    if unknown:
        raise WebError(400, f"unknown field(s) {', '.join(unknown)}")
    config = rules_from_form(body, players)
    return {**recommendation(config), "words": config.describe(), "warnings": list(config.warnings)}


def parse_action(text: object) -> Action:
    """``"challenge"``, ``"exact"`` (the exact call) or a bid ``"QxF"`` (e.g. ``"3x5"``), or a ``WebError``."""
    if text == "challenge":
        return CHALLENGE
    if text == "exact":
        return EXACT
    quantity, x, face = str(text).partition("x") if isinstance(text, str) else ("", "", "")
    if not (x and quantity.isdigit() and face.isdigit()):
        raise WebError(400, f"a move is \"challenge\", \"exact\" or a bid like \"3x5\" (three fives), got {text!r}")
    return Bid(int(quantity), int(face))


class WebGame:
    """One game on the server: the person (seat 0) against agents built from ``specs``.

    Seeded as game 0 of a sweep cell of these players (so its finished record is a ``games.jsonl`` line). The seats
    are reset in a ``Preparation``: the game is created once they are reset or say they are preparing (a table
    solved on first use), and starts when they are done. ``version`` counts the changes applied; each change names the
    version it was asked on. ``score``: the session's games before this one and the person's wins in them;
    ``carried``: by seat, a player that learns across games from the game before (a match); ``handed_on``: this
    game's such players went on to the next game."""

    def __init__(self, config: GameConfig, specs: list[str], seed: int, score: dict[str, int] | None = None,
                 carried: dict[int, Carried] | None = None):
        self.specs = ("human", *specs)
        self.earlier = dict(score or {"games": 0, "won": 0})
        self.seed = seed
        carried = carried or {}
        self.match_games = {seat: c.games for seat, c in carried.items()}  # games learnt from, by seat
        self.handed_on = False
        players: list[Any] = [_You()]
        # a spec that does not build: a UsageError, the app's 400
        players += [carried[seat].player if seat in carried else make_seat(spec) for seat, spec in enumerate(specs, 1)]
        self.players = players
        self._seeded = SteppedGame(self.specs, config, seed, players)
        self.rng = self._seeded.rng
        self.state = GameState(config, self.rng, first_opener=0)
        self.lock = threading.Lock()
        self.version = 0
        self.failure: str | None = None
        self.rounds: list[dict] = []  # every ended round: actions, hands shown, the agents' decisions
        self._events: list[Event] = []  # every event so far: the hint's agent, built when first asked, sees them all
        self.adviser_spec = RECOMMENDED
        self.adviser_refusal: str | None = None
        self.adviser: Any = None
        self._advising: Preparation[Any] | None = None  # the hint's agent being built
        self._preparing: Preparation[None] | None = Preparation(self._reset_seats)  # None once the game started
        self._preparing.wait()
        with self.lock:
            self._settle()  # a refusal said before any preparing: this request's 400

    # -- changes -------------------------------------------------------------------------------------------------
    def act(self, move: object, version: object) -> None:
        """The person's move."""
        with self.lock:
            self._check(version, agent=False)
            action = parse_action(move)
            view = self._round.view()
            if not is_legal(view.config, view.table_dice, view.bid, action):
                over = "as the opening bid" if view.bid is None else f"over {view.bid}"
                raise WebError(400, f"{move} is not a legal move {over} with {view.table_dice} dice on the table")
            self._apply(action, None, None)

    def step(self, version: object) -> None:
        """The move of the agent whose turn it is (run it off the event loop: it may think for a while)."""
        with self.lock:
            self._check(version, agent=True)
            rnd = self._round
            seat, view = rnd.seat, rnd.view()
            player = self.players[seat]
            start = time.perf_counter()
            try:
                action: Action = ask(player, seat, "act", view, self.rng)
                seconds = time.perf_counter() - start
                why = explain(player, view, action, about=YOU)
            except Exception as exc:
                self._fail(exc)
            self._apply(action, seconds, {"seat": seat, "name": player_name(player), "action": action_text(action),
                                          "bid": None if view.bid is None else str(view.bid), "seconds": seconds,
                                          **why})

    def next_round(self, version: object) -> None:
        """Roll the next round once the last one has been shown."""
        with self.lock:
            self._check_version(version)
            if self._round.end is None or self.state.over:
                raise WebError(409, "the game is over" if self.state.over else "the round is still being played")
            self._start_round()
            self.version += 1

    # -- what the page sees --------------------------------------------------------------------------------------
    def hint(self) -> dict:
        """What the recommended agent would do in the person's place now; a 409 ``WebError`` off the person's turn.

        ``actions``: the probability of each legal move for the person's hand (zero ones left out), or ``refusal``:
        why it cannot play these rules, or ``preparing`` (the agent being built: its line, done of total)."""
        with self.lock:
            self._check_started()
            if self.failure or self.state.over or self._round.end is not None or self._round.seat != YOU:
                raise WebError(409, "a hint is given on your turn only")
            if self.adviser is None and self.adviser_refusal is None:
                if self._advising is None:
                    self._advising = Preparation(self._new_adviser)
                    self._advising.wait()
                self._take_adviser()
            preparing = None if self._advising is None else self._advising.view()
            actions = None
            if self.adviser is not None:
                try:
                    actions = action_distribution(self.adviser, self._round.view())
                except Exception as exc:  # a round it cannot play (e.g. beyond its table): said, the game goes on
                    self.adviser, self.adviser_refusal = None, _first_line(exc)
            return {"agent": self.adviser_spec, "refusal": self.adviser_refusal, "actions": actions,
                    "preparing": preparing, "version": self.version}

    def score(self) -> dict[str, int]:
        """The session's finished games up to this one and the person's wins in them."""
        over = self.state.over
        return {"games": self.earlier["games"] + over,
                "won": self.earlier["won"] + (over and self.state.record.winner == YOU)}

    def view(self) -> dict:
        """The game as seat 0 may see it: other hands and the agents' reasons only once their round has ended.

        While the seats prepare, ``phase`` is ``"preparing"`` and ``preparing`` says what (its line, done of total)."""
        with self.lock:
            self._settle()
            state, config = self.state, self.state.config
            shown = {
                "version": self.version, "failure": self.failure,
                "config": {"num_players": config.num_players,
                           **{name: getattr(config, name) for name in rule_fields()},
                           "dice": config.starting_dice[0]},
                "rules": config.describe(), "warnings": list(config.warnings), "seed": self.seed,
                # dice now: after an ended round, its loss counted
                "players": [{"seat": s, "spec": spec, "name": player_name(p), "dice": state.dice[s],
                             "match_games": self.match_games.get(s, 0)}
                            for s, (spec, p) in enumerate(zip(self.specs, self.players, strict=True))],
                "score": self.score(), "hint": {"agent": self.adviser_spec, "refusal": self.adviser_refusal},
            }
            if self._preparing is not None:
                return {**shown, "phase": "preparing", "preparing": self._preparing.view()}
            rnd = self._round
            ended = rnd.end is not None
            phase = ("failed" if self.failure else "game-over" if state.over else "round-over" if ended
                     else "your-turn" if rnd.seat == YOU else "agent-turn")
            return {
                **shown, "phase": phase, "preparing": None,
                "round": rnd.round_index, "opener": rnd.opener, "turn": None if ended else rnd.seat,
                "palifico": rnd.palifico, "round_wild": rnd.config.wild,  # a palifico round has no wild face
                "hand": hand_faces(rnd.hands[YOU]), "bid": None if not rnd.history else str(rnd.history[-1][1]),
                "history": self._actions,
                "legal": [action_text(a) for a in rnd.view().legal_actions()] if phase == "your-turn" else [],
                "rounds": self.rounds,  # ended rounds only
                "winner": state.record.winner if state.over else None,
            }

    def record(self) -> dict:
        """The finished game as a ``games.jsonl`` line (the person plays the spec ``human`` in seat 0)."""
        with self.lock:
            if not self.state.over:
                raise WebError(409, "the game is not finished: its record is written at the end")
            return self._seeded.record(self.state.record)

    # -- inside --------------------------------------------------------------------------------------------------
    @property
    def _round(self) -> RoundState:
        """The round being played or just ended (there is always one: the first starts on creation)."""
        assert self.state.round is not None
        return self.state.round

    def _start_round(self) -> None:
        self._broadcast([self.state.start_round()])
        self._actions: list[dict] = []
        self._decisions: list[dict] = []

    def _reset_seats(self) -> None:
        """Reset every seat for the game's rules (in the game's ``Preparation``): a player's refusal is a 400."""
        for seat, player in enumerate(self.players):
            try:
                player.reset(seat, self.state.config)
            except TableError as exc:  # a file it cannot read: named as the CLI names it
                raise WebError(400, f"player {self.specs[seat]!r}: {exc}") from None
            except ValueError as exc:  # the player refuses these rules (a UsageError, e.g. a round too large to
                # solve, or a ValueError such as a model best-response cannot solve against)
                raise WebError(400, f"{self.specs[seat]} cannot play these rules: {_first_line(exc)}") from None

    def _settle(self) -> None:
        """Once the seats' preparation has finished, start the first round, or raise its failure (each time asked)."""
        if self._preparing is None or not self._preparing.finished:
            return
        if self._preparing.error is not None:
            raise self._preparing.error
        self._preparing = None
        self._start_round()

    def _check_started(self) -> None:
        self._settle()
        if self._preparing is not None:
            raise WebError(409, "the game is being prepared: it starts once its players are ready")

    def _check_version(self, version: object) -> None:
        self._check_started()
        if self.failure:
            raise WebError(409, f"this game stopped: {self.failure}")
        if isinstance(version, bool) or not isinstance(version, int):
            raise WebError(400, f"version must be the integer the page last saw, got {version!r}")
        if version != self.version:
            raise WebError(409, f"stale request: the game is at version {self.version}, the page asked at {version} "
                                f"(reload the game)")

    def _check(self, version: object, agent: bool) -> None:
        self._check_version(version)
        if self.state.over:
            raise WebError(409, "the game is over")
        rnd = self._round
        if rnd.end is not None:
            raise WebError(409, "the round is over: start the next round")
        if agent and rnd.seat == YOU:
            raise WebError(409, "it is your turn")
        if not agent and rnd.seat != YOU:
            raise WebError(409, f"it is seat {rnd.seat}'s turn, not yours")

    def _apply(self, action: Action, seconds: float | None, decision: dict | None) -> None:
        rnd = self._round
        seat = rnd.seat
        try:
            events = self.state.play(action, player_name(self.players[seat]))
            self._broadcast(events)
        except Exception as exc:
            self._fail(exc)
        self.version += 1
        self._actions.append({"seat": seat, "action": action_text(action), "seconds": seconds})
        if decision is not None:
            self._decisions.append(decision)
        if rnd.end is not None:
            self._end_round(rnd.end)

    def _end_round(self, end: RoundEnd) -> None:
        config = self._round.config  # the round's own rules (a palifico round counts no wild dice)
        for decision in self._decisions:  # the person's real count for the face each belief was about
            face = decision["face"]
            decision["your_count"] = None if face is None else int(matching_count(end.hands[YOU], face, config))
        self.rounds.append({
            "round": end.round_index, "opener": self._round.opener, "dice": list(self._round.dice),
            "actions": self._actions, "hands": [hand_faces(h) for h in end.hands], "bid": str(end.bid),
            "bidder": end.bidder, "challenger": end.caller, "loser": -1 if end.loser is None else end.loser,
            "matching": end.matching,
            "exact": end.exact, "regained": end.regained, "palifico": end.palifico,
            "dice_after": list(end.dice_after), **matching_dice(config, end.hands, end.bid.face),
            "decisions": self._decisions,
        })

    def _broadcast(self, events: list[Event]) -> None:
        for event in events:
            for seat, player in enumerate(self.players):
                ask(player, seat, "observe", event)
            self._events.append(event)
            if self.adviser is not None:
                self._advise([event])

    def _new_adviser(self) -> Any:
        """The hint's agent, reset for seat 0 (in its ``Preparation``: the reset may solve a table)."""
        adviser = make_seat(self.adviser_spec)
        adviser.reset(YOU, self.state.config)
        return adviser

    def _take_adviser(self) -> None:
        """Once the hint's agent is built: shown every event of the game so far, or the reason it refuses kept (a
        bug raised too, once: a 500 with its traceback in the log)."""
        job = self._advising
        if job is None or not job.finished:
            return
        self._advising = None
        if job.error is not None:
            self.adviser_refusal = _first_line(job.error)
            if not isinstance(job.error, ValueError):  # a refusal is said; anything else is a bug
                raise job.error
            return
        self.adviser = job.result
        self._advise(self._events)

    def _advise(self, events: list[Event]) -> None:
        try:
            for event in events:
                self.adviser.observe(event)
        except Exception as exc:  # the hint stops with the reason; the game goes on
            self.adviser, self.adviser_refusal = None, _first_line(exc)

    def _fail(self, exc: Exception) -> None:
        """An agent raised: this game stops (with the first line of the error), the others go on."""
        cause = exc.__cause__ if isinstance(exc, PlayerError) else None  # the player's own error, below its name
        self.failure = f"{_first_line(exc).rstrip(':')}: {_first_line(cause)}" if cause else _first_line(exc)
        self.version += 1
        raise WebError(500, f"this game stopped: {self.failure}") from None


def _first_line(exc: BaseException) -> str:
    lines = str(exc).splitlines()
    return lines[0] if lines and lines[0] else type(exc).__name__



class Sessions:
    """The games of the server by session token; beyond ``limit`` the least recently used game is dropped."""

    def __init__(self, limit: int = 200):
        self.limit = limit
        self._games: OrderedDict[str, WebGame] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, game: WebGame, replacing: str | None = None) -> str:
        token = secrets.token_urlsafe(24)
        with self._lock:
            if replacing is not None:
                self._games.pop(replacing, None)
            self._games[token] = game
            while len(self._games) > self.limit:
                self._games.popitem(last=False)
        return token

    def find(self, token: str | None) -> WebGame | None:
        """The game of ``token``, or None (no lookup counts as a use)."""
        with self._lock:
            return self._games.get(token) if token else None

    def get(self, token: str | None) -> WebGame:
        with self._lock:
            if not token or token not in self._games:
                raise WebError(404, "no game in this session (never started, ended, or the server restarted): "
                                    "start a new game")
            self._games.move_to_end(token)
            return self._games[token]

    def drop(self, token: str | None) -> None:
        with self._lock:
            if token:
                self._games.pop(token, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._games)
