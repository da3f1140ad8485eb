"""The imperfect-recall abstraction of one two-player round: a player's hand and role plus the round's last k bids.

``AbstractRound`` numbers the round's bids so that raises go up and its abstract states in topological order, grouped in
blocks of states sharing their children (``RoundCFR`` solves one batched matrix product per block); ``recall_for`` reads
a recall schedule like ``"3@4,2"``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ...caches import memo
from ...errors import UsageError
from ...hands import solver_hand_rows, solver_hands
from ...rules import CHALLENGE, EXACT, Action, ActionCoding, Bid, GameConfig, legal_actions, match_matrix

__all__ = ["AbstractRound", "abstract_round", "recall_for"]

@dataclass(frozen=True)
class AbstractRound:
    """The abstract states of one round with ``dice`` = (opener's, responder's) and recall ``k``, under the round's
    rules ``config`` (a palifico round's: ``GameConfig.round_rules``).

    Bids are numbered so that every raise goes to a higher number (``bids``). States are numbered in topological
    order (by last bid, then actor, then the bids their children keep, so that states sharing children are
    contiguous: ``blocks``; the root, with no bid, first). State s belongs to ``actor[s]``; its actions are the
    legal raises over ``last[s]`` (``raises``, ascending), then the calls (``calls``) when a bid stands.
    """

    config: GameConfig
    dice: tuple[int, int]
    k: int
    bids: tuple[Bid, ...]  # every bid of the round; each legal raise of bid i is a bid j > i
    raises: tuple[np.ndarray, ...]  # raises[last + 1]: the bid numbers legal over bid ``last`` (-1: the opening bids)
    actor: np.ndarray
    last: np.ndarray
    index: dict  # (actor, tuple of bid indices, at most k) -> state

    @cached_property
    def bid_index(self) -> dict[Bid, int]:
        return {b: i for i, b in enumerate(self.bids)}

    @property
    def calls(self) -> tuple[Action, ...]:
        """The calls open when a bid stands: CHALLENGE, then EXACT under ``exact_call``."""
        return (CHALLENGE, EXACT) if self.config.exact_call else (CHALLENGE,)

    @property
    def num_states(self) -> int:
        return len(self.actor)

    def num_actions(self, state: int) -> int:
        """Raises over the state's last bid, plus the calls when a bid stands."""
        last = int(self.last[state])
        return len(self.raises[last + 1]) + len(self.calls) * (last >= 0)

    def actions(self, state: int) -> list[Action]:
        """The state's actions in column order."""
        last = int(self.last[state])
        return [self.bids[j] for j in self.raises[last + 1]] + list(self.calls if last >= 0 else ())

    @cached_property
    def keys(self) -> list[tuple[int, tuple[int, ...]]]:
        out: list = [None] * self.num_states
        for key, s in self.index.items():
            out[s] = key
        return out

    @cached_property
    def groups(self) -> list[tuple[int, int, int, int, np.ndarray]]:
        """The states by (last bid, actor), each a contiguous range: ``(lo, hi, actor, last, children)`` with
        ``children[i, j]`` the state that raise j (``raises``) of state lo + i leads to."""
        bounds = np.flatnonzero(np.diff(self.last * 2 + self.actor)) + 1
        out = []
        for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, self.num_states], strict=True):
            actor, last = int(self.actor[lo]), int(self.last[lo])
            raises = self.raises[last + 1]
            children = np.array([[self.index[(1 - actor, (window + (int(j),))[-self.k:])] for j in raises]
                                 for _, window in self.keys[lo:hi]], dtype=np.int64).reshape(hi - lo, len(raises))
            out.append((int(lo), int(hi), actor, last, children))
        return out

    @cached_property
    def blocks(self) -> list[tuple[int, int, int, int, np.ndarray]]:
        """The groups (``groups``, same order) split into contiguous runs of states that share their raises'
        children (they differ only in the oldest bid they recall): ``(lo, hi, actor, last, children)``."""
        out = []
        for lo, hi, actor, last, children in self.groups:
            bounds = np.flatnonzero(np.any(children[1:] != children[:-1], axis=1)) + 1
            for b0, b1 in zip(np.r_[0, bounds], np.r_[bounds, hi - lo], strict=True):
                out.append((lo + int(b0), lo + int(b1), actor, last, children[b0]))
        return out

    @cached_property
    def role_states(self) -> tuple[np.ndarray, np.ndarray]:
        return tuple(np.flatnonzero(self.actor == r) for r in (0, 1))  # type: ignore[return-value]

    @cached_property
    def edge_start(self) -> np.ndarray:
        """(num_states,) offset of each state's first action among its actor's actions."""
        start = np.zeros(self.num_states, dtype=np.int64)
        for states in self.role_states:
            widths = np.array([self.num_actions(s) for s in states], dtype=np.int64)
            start[states] = np.cumsum(widths) - widths
        return start

    @cached_property
    def role_edges(self) -> tuple[int, int]:
        """Number of actions of each role over all its states."""
        return tuple(int(sum(self.num_actions(s) for s in states)) for states in self.role_states)  # type: ignore

    @cached_property
    def hands(self) -> tuple[np.ndarray, np.ndarray]:
        return tuple(solver_hands(d, self.config)[0] for d in self.dice)  # type: ignore[return-value]

    @cached_property
    def hand_probs(self) -> tuple[np.ndarray, np.ndarray]:
        return tuple(solver_hands(d, self.config)[1] for d in self.dice)  # type: ignore[return-value]

    @cached_property
    def matches(self) -> tuple[np.ndarray, np.ndarray]:
        """Per role, (H_r, faces) dice of each hand matching each face (wild dice count)."""
        m = match_matrix(self.config)
        return tuple(h.astype(np.int64) @ m for h in self.hands)

    def state_of(self, role: int, bid_indices: tuple[int, ...]) -> int:
        """The state where ``role`` acts after the round's bids (indices into ``bids``)."""
        return self.index[(role, tuple(bid_indices)[-self.k:] if self.k else ())]

    def hand_rows(self, role: int, hands: np.ndarray) -> np.ndarray:
        """Row of ``self.hands[role]`` for each face-count row of ``hands`` (ValueError on a foreign hand)."""
        return solver_hand_rows(hands, self.dice[role], self.config)


def _numbered_bids(config: GameConfig, dice: tuple[int, int]) -> tuple[tuple[Bid, ...], tuple[np.ndarray, ...]]:
    """The round's bids numbered so that raises go up, and the raises over each.

    The bids: fewest raises over a bid first (plain order among equals: today's rules keep ``ActionCoding``'s order).
    The raises: ``raises[i + 1]`` over bid i, ``raises[0]`` the opening bids."""
    table_dice = sum(dice)
    over = {bid: [a for a in legal_actions(config, table_dice, bid) if isinstance(a, Bid)]
            for bid in ActionCoding(replace(config, dice=dice)).bids}
    bids = tuple(sorted(over, key=lambda b: (-len(over[b]), b.quantity, b.face)))
    number = {b: i for i, b in enumerate(bids)}
    raises = [np.array(sorted(number[a] for a in legal_actions(config, table_dice, None) if isinstance(a, Bid)),
                       dtype=np.int64)]
    for i, bid in enumerate(bids):
        after = np.array(sorted(number[a] for a in over[bid]), dtype=np.int64)
        if len(after) and after[0] <= i:
            raise AssertionError(f"the bids of {config.describe()} have no order where raises go up ({bid})")
        raises.append(after)
    return bids, tuple(raises)


@memo(maxsize=64)
def abstract_round(config: GameConfig, dice: tuple[int, int], k: int) -> AbstractRound:
    """Every abstract state reachable in a round with ``dice`` = (opener's, responder's) and recall ``k`` >= 1, under
    the round's rules ``config`` (variants included)."""
    if config.num_players != 2:
        raise ValueError(f"the CFR solver handles two players; got {config.num_players}")
    if k < 1:
        raise ValueError(f"recall k must be >= 1 bid, got {k!r}")
    bids, raises = _numbered_bids(config, (int(dice[0]), int(dice[1])))
    keys: list[tuple[int, tuple[int, ...]]] = [(0, ())]
    seen = {keys[0]}
    pos = 0
    while pos < len(keys):  # breadth first over the DAG
        actor, window = keys[pos]
        pos += 1
        for j in raises[window[-1] + 1 if window else 0]:
            child = (1 - actor, (window + (int(j),))[-k:])
            if child not in seen:
                seen.add(child)
                keys.append(child)
    # topological (last bid first); then actor; then the bids the children keep, so the states sharing children
    # are contiguous (the blocks)
    keys.sort(key=lambda key: (key[1][-1] if key[1] else -1, key[0], key[1][len(key[1]) - k + 1:], key[1]))
    return AbstractRound(
        config=config, dice=(int(dice[0]), int(dice[1])), k=int(k), bids=bids, raises=raises,
        actor=np.array([a for a, _ in keys], dtype=np.int64),
        last=np.array([w[-1] if w else -1 for _, w in keys], dtype=np.int64),
        index={key: s for s, key in enumerate(keys)},
    )


def recall_for(recall: str | int, dice: tuple[int, int]) -> int:
    """The recall k of the round with ``dice`` under a schedule like ``"3@4,2"`` (k = 3 for rounds with at most
    4 dice on the table, else 2; the last item without ``@`` applies beyond) or a plain ``k``."""
    table = sum(dice)
    try:
        for item in str(recall).split(","):
            k, at, most = item.strip().partition("@")
            if not at or table <= int(most):
                if int(k) < 1:
                    break
                return int(k)
    except ValueError:
        pass
    raise UsageError(f"recall must be k >= 1 or a schedule like '3@4,2' ending in a plain k, got {recall!r}")
