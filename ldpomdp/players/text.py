"""A seat for a text agent: a language model's client, a local model or a script, as a callable from a prompt to an
answer (docs/evaluate.md, "Text agents").

The package writes each move's prompt (the rules in force, the hand, the dice, the earlier rounds, this round's bids,
the legal moves and the answer's format), reads the answer leniently (``read_move``), asks again with the reason on an
unreadable or illegal answer, and after ``retries`` failed answers plays the documented default move. Every call
(prompt, answer, seconds, outcome) is kept in ``transcript``, which a sweep stores beside the game in ``games.jsonl``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UsageError, describe
from ..game import ActionTaken, Event, PlayerView, RoundEnd, RoundStart
from ..hands import hand_faces
from ..registry import import_target, spec_text
from ..rules import CHALLENGE, EXACT, Action, Bid, GameConfig, face_name, is_legal, legal_actions, minimal_raises
from ..validation import int_at_least, number

__all__ = ["TextPlayer", "NotAMove", "read_move", "rules_text", "move_text", "move_format", "answer_format",
           "FAILURES", "COSTS"]

FAILURES = ("unreadable", "illegal", "timeout", "error")  # how a call can fail to give a move
# a transcript's counts: moves played, default moves, the agent's seconds, prompt and answer characters, failed calls
COSTS = ("moves", "defaults", "seconds", "chars_in", "chars_out", *FAILURES)
KEPT_ANSWER = 4_000  # characters of an answer kept in the transcript (its length is counted whole)
_NUMBER_WORDS = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())}
_FACE_WORDS = {face_name(face): face for face in range(1, 7)}  # "ones": 1, ..., "sixes": 6
_CALL, _EXACT = r"call|challenge|liar|dudo|doubt", r"exact(?:\s+call)?|calza|spot[\s-]on"


def _quantity(n: int) -> str:
    return rf"(?P<q{n}>\d+|{'|'.join(_NUMBER_WORDS)})"


def _face(n: int) -> str:
    return rf"(?:(?P<f{n}>\d+)(?:'?s)?|(?P<w{n}>{'|'.join(_FACE_WORDS)}))"


_FLAGS = re.IGNORECASE | re.ASCII  # ASCII: no Unicode case folding ("ſixes" is no face)
# a move in the stated format: [Bid: 3, 4] (also [Bid 3 4], [3x4]; [Bid: 3] in the sixes game), [Call], [Exact]
_BRACKETED = re.compile(rf"\[\s*(?:bid\s*:?\s*)?(?P<q0>\d+)\s*(?:[,x×*]\s*|\s+)?(?P<f0>\d+)?\s*\]"
                        rf"|\[\s*(?P<call>{_CALL})\s*\]|\[\s*(?P<exact>{_EXACT})\s*\]", _FLAGS)
# the same moves in running text: "bid 3 4", "3 x 4", "three fours", "I call", "liar!", "exact call", "calza"
_LOOSE = re.compile(rf"\bbid\s*:?\s*{_quantity(1)}\s*[,x×*]?\s*{_face(1)}\b|\b{_quantity(2)}\s*[x×*]\s*"
                    rf"(?P<f2>\d+)\b|\b{_quantity(3)}\s+{_face(3)}\b|\b(?P<exact>{_EXACT})\b|\b(?P<call>{_CALL})\b",
                    _FLAGS)


def face_text(face: int, quantity: int = 2) -> str:
    """A face's name after ``quantity``: ``"four"`` after 1, ``"fours"`` otherwise (``"7s"`` above six)."""
    return face_name(face) if quantity != 1 else {1: "one", 2: "two", 3: "three", 4: "four", 5: "five",
                                                  6: "six"}.get(face, str(face))


@dataclass(frozen=True)
class NotAMove:
    """Why a call gave no move: its ``kind`` (one of ``FAILURES``) and the ``reason``, as the agent is told it."""

    kind: str
    reason: str


def answer_format(config: GameConfig) -> str:
    """How an answer writes its move: TextArena's LiarsDice-v0 format, plus the exact call where the rules have it."""
    return "[Bid: QUANTITY, FACE], [Call] or [Exact]" if config.exact_call else "[Bid: QUANTITY, FACE] or [Call]"


def move_format(action: Action) -> str:
    """A move as an answer writes it (``answer_format``): ``"[Bid: 3, 4]"``, ``"[Call]"``, ``"[Exact]"``."""
    if isinstance(action, Bid):
        return f"[Bid: {action.quantity}, {action.face}]"
    return "[Exact]" if action is EXACT else "[Call]"


def move_text(action: Action) -> str:
    """A move as the prompt writes it: ``"3 fours"``, ``"call"``, ``"exact call"``."""
    if isinstance(action, Bid):
        return f"{action.quantity} {face_text(action.face, action.quantity)}"
    return "exact call" if action is EXACT else "call"


def rules_text(config: GameConfig) -> str:
    """The rules in force in plain sentences, as the prompt gives them (table size and dice aside)."""
    wild = config.wild
    named = "" if wild is None else face_name(wild)
    counted = ("No face is wild." if wild is None else
               f"{named.capitalize()} are wild: they count as every face (a bid on {named} counts {named} only).")
    if config.bids == "sixes":
        claim = (f"Every bid is on {face_name(config.faces)}: a bid of Q claims that at least Q dice on the whole "
                 f"table show {config.faces}. Each bid raises the quantity by exactly one (the first bid is 1).")
    else:
        claim = ("A bid 'Q F' claims that at least Q dice on the whole table (every player's dice together) show "
                 "face F.")
        if config.wild_bids == "perudo":
            claim += (" Each bid must raise the standing bid: on the same kind of face, a higher quantity or the same "
                      "quantity on a higher face; a bid on ones over Q of another face needs at least half of Q, "
                      "rounded up; a bid on another face over Q ones needs at least 2Q+1. Nobody opens on ones.")
        elif config.raise_order == "no_lower":
            claim += (" Each bid must raise the standing bid: it may lower neither the quantity nor the face, and "
                      "must raise at least one of them.")
        else:
            claim += (" Each bid must raise the standing bid: a higher quantity (on any face), or the same quantity "
                      "on a higher face.")
    if config.loss == "difference":
        lost = ("the bidder loses as many dice as the bid missed by; otherwise the caller loses one die more than "
                "the count exceeded the bid by")
    else:
        lost = "the bidder loses a die; otherwise the caller loses a die"
    lines = [f"Each player rolls their own {config.faces}-sided dice in secret.", claim, counted,
             f"Instead of raising, you may call the standing bid: every hand is shown; if fewer dice match than it "
             f"claims, {lost}."]
    if config.exact_call:
        lines.append("Or make the exact call: if exactly that many dice match, you get a die back (never above "
                     "your starting dice) and nobody loses one; otherwise you lose a die.")
    if config.palifico:
        lines.append("When a player first drops to one die, the next round is a palifico round: no face is wild, "
                     "the opener may bid any face, and every later bid of the round keeps the opening bid's face.")
    lines.append("The next round is opened by " + ("the player who lost a die (the next player if they are out)."
                                                  if config.opener == "loser" else
                                                  "the next player with dice after the one who called."))
    lines.append("A player with no dice left is out; the last player with dice wins.")
    return "\n".join(f"- {line}" for line in lines)


def read_move(answer: str, view: PlayerView) -> Action | NotAMove:
    """The move an answer names, or why it names none that is legal here (``NotAMove``: unreadable or illegal).

    Lenient: the last move written in brackets (``[Bid: 3, 4]``, ``[Call]``, ``[Exact]``), else the last one written
    in running text ("bid 3 4", "3x4", "three fours", "I call", "liar", "exact call"); in the sixes game a bid may
    omit its face."""
    config = view.config
    bracketed = [_move(m, config) for m in _BRACKETED.finditer(answer)]
    found = [move for move in bracketed if not isinstance(move, str)] or bracketed or _loose_moves(answer, config)
    if not found:
        return NotAMove("unreadable", f"no move found; answer with {answer_format(config)}")
    move = found[-1]
    if isinstance(move, str):
        return NotAMove("unreadable", move)
    if view.bid is None and not isinstance(move, Bid):
        return NotAMove("illegal", "you open the round: you must bid")
    if move is EXACT and not config.exact_call:
        return NotAMove("illegal", "these rules have no exact call")
    if isinstance(move, Bid) and not is_legal(config, view.table_dice, view.bid, move):
        over = "an opening bid" if view.bid is None else f"a raise over {move_text(view.bid)}"
        return NotAMove("illegal", f"{move_text(move)} is not {over} with {view.table_dice} dice on the table")
    return move


def _loose_moves(answer: str, config: GameConfig) -> list[Action | str]:
    """The moves written in running text, in order (a match inside a longer one left out)."""
    matches, last_end = [], -1
    for m in _LOOSE.finditer(answer):
        if m.start() >= last_end:
            matches.append(m)
            last_end = m.end()
    return [_move(m, config) for m in matches]


def _move(match: re.Match, config: GameConfig) -> Action | str:
    """The move one match names (a text saying why not, for a face the dice do not have)."""
    found = {name: value for name, value in match.groupdict().items() if value is not None}
    if "exact" in found:
        return EXACT
    if "call" in found:
        return CHALLENGE
    quantity = _count(next(v for k, v in found.items() if k.startswith("q")))
    face = next((int(v) for k, v in found.items() if k.startswith("f")), None)
    face = next((_FACE_WORDS[v.lower()] for k, v in found.items() if k.startswith("w")), face)
    if face is None:
        if config.bids != "sixes":
            return f"a bid names a quantity and a face, e.g. [Bid: {quantity}, {config.faces}]"
        face = config.faces
    if not 1 <= face <= config.faces:
        return f"there is no face {face}: the dice have faces 1 to {config.faces}"
    return Bid(quantity, face)


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS[word.lower()]


@dataclass(frozen=True)
class _Answer:
    """One call of the agent: its ``text`` (empty without one), the ``seconds`` it took, and its ``failure`` if any."""

    text: str
    seconds: float
    failure: NotAMove | None = None


class TextPlayer:
    """A seat played by a text agent: ``agent`` is a callable from a prompt to an answer (or "module:attribute"
    naming one; a class there is instantiated once, without arguments).

    ``retries``: how many times an unreadable or illegal answer, a timeout or an exception is asked again (with the
    reason) before the default move: a call when a bid stands, else the lowest opening bid. ``timeout``: seconds an
    answer may take (the call is then abandoned, its thread left to finish). ``history``: earlier rounds shown.
    ``transcript``: this game's calls and their costs (``None`` before the first game)."""

    def __init__(self, agent: str | Callable[[str], str], retries: int = 2, timeout: float = 60.0, history: int = 3,
                 name: str | None = None):
        self.retries = int_at_least("TextPlayer", "retries", retries, 0)
        self.timeout = number("TextPlayer", "timeout", timeout, 0.0)
        if self.timeout == 0:
            raise UsageError("TextPlayer.timeout must be above 0 seconds, got 0")
        self.history = int_at_least("TextPlayer", "history", history, 0)
        named = None
        if isinstance(agent, str):
            target = named = agent.strip()
            agent = import_target(target, "TextPlayer.agent", noun="callable")
            if isinstance(agent, type):
                agent = _instantiated(agent, target)
        if not callable(agent):
            raise UsageError(f"TextPlayer.agent: {agent!r} is not callable (it must take a prompt and return text)")
        self.agent: Callable[[str], str] = agent
        self.name = name or (spec_text("text", {"agent": named, "retries": None if retries == 2 else retries,
                                                "timeout": None if timeout == 60 else timeout,
                                                "history": None if history == 3 else history}) if named else
                             f"TextPlayer({getattr(agent, '__qualname__', type(agent).__name__)})")
        self._late: threading.Thread | None = None  # a call that timed out and still runs
        self.transcript: dict[str, Any] | None = None
        self.seat, self.config = -1, GameConfig()
        self._preamble = ""  # the rules part of every prompt, written at each reset
        self._rounds: list[str] = []  # what each earlier round showed, one line each
        self._bids: list[str] = []  # this round's moves so far, in words

    def reset(self, seat: int, config: GameConfig) -> None:
        self.seat, self.config = seat, config
        self._rounds, self._bids = [], []
        rules = rules_text(config)
        self._preamble = f"You are playing Liar's Dice.\nRules:\n{rules}\n\n"
        self.transcript = {"player": self.name, "rules": rules, "calls": [],
                           **{cost: 0.0 if cost == "seconds" else 0 for cost in COSTS}}

    def observe(self, event: Event) -> None:
        if isinstance(event, RoundStart):
            self._bids = []
        elif isinstance(event, ActionTaken):
            who = "you" if event.seat == self.seat else f"seat {event.seat}"
            self._bids.append(f"{who}: {move_text(event.action)}")
        elif isinstance(event, RoundEnd):
            hands = "; ".join(f"seat {s}: {_dice_list(hand)}" for s, hand in enumerate(event.hands) if sum(hand))
            if event.loser is None:
                outcome = f"exactly right, seat {event.caller} " + ("got a die back" if event.regained else
                                                                   "kept its dice")
            else:
                lost = sum(event.hands[event.loser]) - event.dice_after[event.loser]
                outcome = f"seat {event.loser} lost {lost} {'die' if lost == 1 else 'dice'}"
            self._rounds.append(f"round {event.round_index + 1}: {'; '.join(self._bids)}. Hands: {hands}. "
                                f"{event.matching} matched {move_text(event.bid)}: {outcome}.")

    def prompt(self, view: PlayerView) -> str:
        """The prompt for the move at ``view``: the rules (``preamble``), then the situation and the legal moves."""
        return self.preamble() + self.situation(view)

    def preamble(self) -> str:
        """The part of every prompt of a game that stays the same: the rules in force (written once a game)."""
        return self._preamble

    def situation(self, view: PlayerView) -> str:
        """The part of the prompt that changes from move to move: the table, the hand, the bids, the legal moves."""
        seats = ", ".join(f"seat {s}{' (you)' if s == view.seat else ''}: {d}" for s, d in enumerate(view.dice) if d)
        lines = [f"Round {view.round_index + 1}. You are seat {view.seat}. Dice per player: {seats}; "
                 f"{view.table_dice} dice on the table."]
        if view.config.palifico_round:
            lines.append("This is a palifico round: no face is wild, and every bid keeps the opening bid's face.")
        lines.append(f"Your dice: {_dice_list(view.hand)}.")
        if self.history and self._rounds:
            lines.append("Earlier rounds (most recent last):")
            lines += [f"- {text}" for text in self._rounds[-self.history:]]
        if view.bid is None:
            lines.append("You open this round: you must bid.")
        else:
            lines.append(f"This round so far: {'; '.join(self._bids)}. The standing bid is {move_text(view.bid)} "
                         f"(seat {view.bidder}).")
        lines.append(f"Your legal moves: {_legal_text(view)}.")
        lines.append(f"Think if you like, then end your answer with exactly one move: {answer_format(view.config)}.")
        return "\n".join(lines)

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        assert self.transcript is not None, "act before reset"
        preamble, situation = self.preamble(), self.situation(view)
        asked, calls = situation, self.transcript["calls"]
        for _ in range(self.retries + 1):
            answer = self._ask(preamble + asked)
            text = answer.text
            move = answer.failure or read_move(text, view)
            self.transcript["seconds"] += answer.seconds
            self.transcript["chars_in"] += len(preamble) + len(asked)
            self.transcript["chars_out"] += len(text)
            call: dict[str, Any] = {"round": view.round_index, "prompt": asked, "answer": text[:KEPT_ANSWER],
                                    "seconds": round(answer.seconds, 6)}
            calls.append(call)
            if not isinstance(move, NotAMove):
                call["outcome"], call["move"] = "move", move_text(move)
                self.transcript["moves"] += 1
                return move
            call["outcome"], call["reason"] = move.kind, move.reason
            self.transcript[move.kind] += 1
            shown = f" Your answer was: {text.strip()[:200]!r}." if text else ""
            asked = (f"{situation}\n\nYour previous answer was not accepted: {move.reason.splitlines()[0]}.{shown} "
                     f"Answer again with one legal move.")
        default = CHALLENGE if view.bid is not None else legal_actions(view.config, view.table_dice, None)[0]
        calls[-1]["default"] = move_text(default)
        self.transcript["defaults"] += 1
        return default

    def _ask(self, prompt: str) -> _Answer:
        """The agent's answer to ``prompt`` within the timeout, or why there is none.

        One call at a time: while a call that timed out still runs, the agent is not called again (the answer is a
        timeout at once), so a hanging agent holds one thread, and an agent that is not thread-safe one call."""
        if self._late is not None and self._late.is_alive():
            return _Answer("", 0.0, NotAMove("timeout", "the agent's last call, which timed out, is still running"))
        box: dict[str, Any] = {}

        def call() -> None:
            try:
                box["answer"] = self.agent(prompt)
            except BaseException as exc:  # the agent's own failure: recorded, and asked again
                box["error"] = exc

        thread = threading.Thread(target=call, name=f"text agent, seat {self.seat}", daemon=True)
        start = time.perf_counter()
        try:
            thread.start()
        except RuntimeError as exc:  # no thread to be had (the process's limit)
            return _Answer("", 0.0, NotAMove("error", f"no thread could run the agent ({exc})"))
        thread.join(self.timeout)
        seconds = time.perf_counter() - start
        if thread.is_alive():
            self._late = thread
            return _Answer("", seconds, NotAMove("timeout", f"no answer within {self.timeout:g} s"))
        if "error" in box:
            raised = box["error"]
            reason = f"the agent raised {type(raised).__name__}: {raised}\n{describe(raised)}".rstrip()
            return _Answer("", seconds, NotAMove("error", reason))
        if not isinstance(box.get("answer"), str):
            reason = f"the agent returned {type(box.get('answer')).__name__}, not text"
            return _Answer("", seconds, NotAMove("error", reason))
        return _Answer(box["answer"], seconds)


def _instantiated(cls: type, target: str) -> Callable[[str], str]:
    """An instance of the agent class ``cls``, made without arguments (a UsageError naming what went wrong)."""
    try:
        return cls()
    except Exception as exc:
        raise UsageError(f"TextPlayer.agent {target!r}: {cls.__name__}() raised {type(exc).__name__}: {exc}\n"
                         f"{describe(exc)}") from exc


def _dice_list(hand: tuple[int, ...]) -> str:
    """A hand of face counts as its dice, ``"2 3 3 5"``."""
    return " ".join(map(str, hand_faces(hand))) or "none"


def _legal_text(view: PlayerView) -> str:
    """The legal moves at ``view`` in words: the calls, and the smallest bid on each face."""
    config, calls = view.config, []
    if view.bid is not None:
        calls = [move_format(CHALLENGE)] + ([move_format(EXACT)] if config.exact_call else [])
    raises = minimal_raises(config, view.table_dice, view.bid)
    if not raises:
        return " or ".join(calls) + " (no bid is higher than the standing one)"
    if config.bids == "sixes":
        bids = f"the bid {move_format(raises[0])}"
    else:
        smallest = ", ".join(f"{move_text(bid)} {move_format(bid)}" for bid in raises)
        bids = (f"a bid of at least these on each face: {smallest} (a higher quantity on the same face too, up to "
                f"{view.table_dice})")
    return ", ".join(calls + [bids]) if calls else bids
