"""A terminal player for people, who type their moves.

It shows the hand as ASCII dice, the table and the bid, and re-prompts on bad input. Full game: type ``3 5`` (or
``3x5``) to bid three fives, ``c`` to challenge (``e``: the exact call, under ``exact_call``). Sixes game: ``b``
raises by one, ``c`` challenges."""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from ..game import ActionTaken, Event, PlayerView, RoundEnd, RoundStart
from ..hands import hand_faces
from ..rules import CHALLENGE, EXACT, Action, Bid, GameConfig, dice_text, is_legal, minimal_raises

__all__ = ["HumanPlayer", "render_dice", "DICE_PER_ROW"]

_PIPS = {
    1: ("     ", "  o  ", "     "),
    2: ("o    ", "     ", "    o"),
    3: ("o    ", "  o  ", "    o"),
    4: ("o   o", "     ", "o   o"),
    5: ("o   o", "  o  ", "o   o"),
    6: ("o   o", "o   o", "o   o"),
}


DICE_PER_ROW = 10  # ASCII dice drawn side by side: 10 fill 79 columns


def render_dice(dice: list[int]) -> str:
    """ASCII art for a row of dice, wrapped at ``DICE_PER_ROW`` a row (faces above 6 are drawn as numbers)."""
    if not dice:
        return "(no dice)"
    return "\n".join(_dice_row(dice[i:i + DICE_PER_ROW]) for i in range(0, len(dice), DICE_PER_ROW))


def _dice_row(dice: list[int]) -> str:
    rows = [" ".join("+-----+" for _ in dice)]
    for r in range(3):
        cells = []
        for d in dice:
            inner = _PIPS[d][r] if d in _PIPS else (f"{d:^5}" if r == 1 else "     ")
            cells.append(f"|{inner}|")
        rows.append(" ".join(cells))
    rows.append(rows[0])
    return "\n".join(rows)


class HumanPlayer:
    """A ``Player`` that reads moves from a terminal (or any text stream: pass ``stdin``/``stdout`` to drive it).

    Not an opponent model: it has no ``action_probabilities``."""

    name = "you"
    interactive = True  # a person plays it: sweeps, which run unattended, refuse it
    seat: int = -1
    config: GameConfig | None = None

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None):
        self._in = stdin
        self._out = stdout

    def reset(self, seat: int, config: GameConfig) -> None:
        self.seat, self.config = seat, config

    def __repr__(self) -> str:
        return self.name

    def _say(self, text: str) -> None:
        print(text, file=self._out or sys.stdout, flush=True)

    def _ask(self, prompt: str) -> str:
        stream = self._in or sys.stdin
        (self._out or sys.stdout).write(prompt)
        (self._out or sys.stdout).flush()
        line = stream.readline()
        if not line:
            raise EOFError("input ended while waiting for your move")
        return line.strip().lower()

    def parse(self, text: str, view: PlayerView) -> Action | str:
        """The action typed, or an error message naming what is wrong with it."""
        config = view.config
        if text in ("c", "challenge", "liar", "l"):
            return CHALLENGE if view.bid is not None else "you open the round: you must bid"
        if text in ("e", "exact", "calza"):
            if not config.exact_call:
                return "these rules have no exact call"
            return EXACT if view.bid is not None else "you open the round: you must bid"
        if config.bids == "sixes":
            if text in ("b", "bid", "r", "raise"):
                raises = minimal_raises(config, view.table_dice, view.bid)
                return raises[0] if raises else "no raise is possible: the bid is already every die"
            return "type b to raise by one or c to challenge"
        parts = text.replace("x", " ").replace(",", " ").split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            return "type a bid as QUANTITY FACE (e.g. 3 5), or c to challenge"
        action = Bid(int(parts[0]), int(parts[1]))
        if not 1 <= action.face <= config.faces:
            return f"face must be between 1 and {config.faces}"
        if not is_legal(config, view.table_dice, view.bid, action):
            if view.bid is None:
                return f"{action} is not a legal opening bid with {view.table_dice} dice on the table"
            return f"{action} is not a legal raise over {view.bid} with {view.table_dice} dice on the table"
        return action

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        wild = f", {view.config.wild}s are wild" if view.config.wild else ""
        self._say(f"\nYour turn (seat {view.seat}). Dice on the table: {view.table_dice}{wild}.")
        self._say(render_dice(view.hand_dice))
        if view.config.palifico_round:
            self._say("Palifico round: no wild dice, and every bid keeps the opening bid's face.")
        self._say(f"Current bid: {view.bid or 'none (you open)'}")
        prompt = "Bid or challenge? (b/c) " if view.config.bids == "sixes" else "Your bid (QUANTITY FACE) or c: "
        if view.config.exact_call and view.bid is not None:  # the exact call on offer
            prompt = prompt.replace("b/c", "b/c/e").replace("or c:", "c, or e (exact call):")
        while True:
            answer = self.parse(self._ask(prompt), view)
            if not isinstance(answer, str):
                return answer
            self._say(f"  ! {answer}")

    def _seat(self, seat: int) -> str:
        return f"seat {seat}{' (you)' if seat == self.seat else ''}"

    def observe(self, event: Event) -> None:
        """Tell the person what happens: the seats still in at a round's start, every action (their own too),
        the hands shown and who loses a die."""
        if isinstance(event, RoundStart):
            dice = ", ".join(f"{self._seat(i)}: {d}" for i, d in enumerate(event.dice) if d)
            self._say(f"\n=== Round {event.round_index + 1} - dice {dice}; seat {event.opener} opens")
            if event.palifico:
                self._say("=== Palifico round: ones are not wild, and the opening bid's face stays for the round")
        elif isinstance(event, ActionTaken):
            who = "you" if event.seat == self.seat else f"seat {event.seat}"
            calls: dict[object, str] = {CHALLENGE: "challenge!", EXACT: "exact call!"}
            said = calls.get(event.action, f"bid {event.action}")
            self._say(f"{who}: {said}")
        elif isinstance(event, RoundEnd):
            for seat, hand in enumerate(event.hands):
                if sum(hand):  # seats out of the game have no dice to show
                    self._say(f"{self._seat(seat)}: {hand_faces(hand)}")
            match = "matches" if event.matching == 1 else "match"
            if event.loser is None:  # a right exact call
                back = "gets a die back" if event.regained else "keeps its dice (it has all it started with)"
                self._say(f"{dice_text(event.matching)} {match} {event.bid} exactly: {self._seat(event.caller)} "
                          f"{back}.")
            else:
                lost = sum(event.hands[event.loser]) - event.dice_after[event.loser]
                loses = "a die" if lost == 1 else dice_text(lost)
                self._say(f"{dice_text(event.matching)} {match} {event.bid}: {self._seat(event.loser)} loses {loses}.")
            if event.loser == self.seat and event.dice_after[self.seat] == 0:  # said once, when the last die goes
                self._say("You are out of dice.")
