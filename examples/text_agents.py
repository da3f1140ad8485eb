"""Scripted text agents (the worked example of docs/evaluate.md): each takes the prompt that ldpomdp writes and
returns text, as a language model's client would. Seat one with ``text:agent=examples.text_agents:typical``."""

import re

FACES = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ones": 1, "twos": 2, "threes": 3,
         "fours": 4, "fives": 5, "sixes": 6}


def _table(prompt: str) -> tuple[list[int], int, tuple[int, int] | None]:
    """The agent's dice, the dice on the table and the standing bid (quantity, face; None when it opens)."""
    dice = [int(d) for d in re.search(r"Your dice: ([\d ]+)\.", prompt).group(1).split()]
    table = int(re.search(r"(\d+) dice on the table", prompt).group(1))
    standing = re.search(r"standing bid is (\d+) (\w+) \(seat", prompt)
    return dice, table, (int(standing.group(1)), FACES[standing.group(2)]) if standing else None


def _count(dice: list[int], face: int, wild: bool) -> int:
    """How many of ``dice`` match ``face`` (ones counting too when wild)."""
    return sum(d == face or (wild and d == 1 and face != 1) for d in dice)


def typical(prompt: str) -> str:
    """A player with the habits people and language models show: it bids its own most common face one higher each
    time (never bluffing on another face), calls only when the bid is far above what it can see, reasons in prose
    before its move, and now and then names a bid that is not a raise (then ldpomdp asks again)."""
    dice, table, standing = _table(prompt)
    wild = "are wild" in prompt and "no face is wild" not in prompt.split("Your dice")[0]
    face = max(range(1, 7), key=lambda f: (_count(dice, f, wild), f))
    mine = _count(dice, face, wild)
    if standing is None:
        return f"I have {mine} of face {face}. Opening with [Bid: {max(mine, 1)}, {face}]"
    quantity, their_face = standing
    unseen = table - len(dice)
    if quantity > _count(dice, their_face, wild) + unseen // 2 + 1:
        return f"{quantity} is too many with {unseen} dice I cannot see. Liar! [Call]"
    if len(prompt) % 7 == 0:  # a slip: the same quantity on a lower face
        return f"I'll say [Bid: {quantity}, {max(their_face - 1, 1)}]"
    return f"I'm confident: [Bid: {quantity + 1}, {face}]"


def careful(prompt: str) -> str:
    """An honest counter: calls a bid above its expected count (own matches + a third of the unseen dice, wild ones
    counting), else raises on the face it expects most of by the smallest legal bid the prompt lists."""
    dice, table, standing = _table(prompt)
    wild = "are wild" in prompt.split("Your dice")[0]
    share = 1 / 3 if wild else 1 / 6
    unseen = table - len(dice)
    expect = {f: _count(dice, f, wild and f != 1) + unseen * (1 / 6 if f == 1 else share) for f in range(1, 7)}
    if standing is not None and standing[0] > expect[standing[1]]:
        return "[Call]"
    legal = [(int(q), int(f)) for q, f in re.findall(r"\[Bid: (\d+), (\d+)\]", prompt.split("Your legal moves:")[1])]
    if not legal:
        return "[Call]"
    quantity, face = max(legal, key=lambda bid: (expect[bid[1]] - bid[0], bid[1]))
    return f"[Bid: {quantity}, {face}]"
