"""The round's POMDP as seen by one player: transition (the opponents play by their models), observation,
reward and the pruned-action / rollout policy, as pomdp-py model classes.

POMCP calls these models millions of times, so public histories are interned in a trie (``PublicNode``) and
an opponent playing the estimate rule has its moves tabulated over the root particles' hands (the design notes,
"POMCP on pomdp-py"); any other model is asked through its ``act`` on a ``PlayerView``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pomdp_py

from ..caches import memo
from ..estimate import estimate_policy, expected_matches
from ..game import PlayerView, PublicView, player_name
from ..hooks import estimate_rule_of
from ..opponent import OpponentModel
from ..round_end import (
    next_active_seat,
    next_opener,
    resolve_challenge,
    round_ends,
    round_loser,
    settle_round,
    settled_by_count,
)
from ..rules import CHALLENGE, EXACT, Action, Bid, GameConfig, is_legal, match_matrix, matching_count, minimal_raises
from .action import END, LDAction
from .observation import LDObservation
from .state import LDState

__all__ = ["PublicNode", "TransitionModel", "ObservationModel", "RewardModel", "PolicyModel", "die_outcomes",
           "end_outcomes"]


class PublicNode:
    """One public history of the round, interned: ``child(seat, action)`` returns the same node every time."""

    __slots__ = ("history", "children", "observations", "states")

    def __init__(self, history: tuple[tuple[int, Bid], ...] = ()):
        self.history = history
        self.children: dict[tuple[int, Bid], PublicNode] = {}
        self.observations: dict[tuple[int, int, int] | None, LDObservation] = {}  # interned, see TransitionModel
        self.states: dict[tuple, LDState] = {}  # interned states here, by (hands, caller or -1 mid-round, ...)

    def observation(self, key: tuple[int, int, int] | None, seen: tuple, loser: int, end: int) -> LDObservation:
        """The one observation object for arriving here (key None) or ending here (key (caller, loser, end))."""
        obs = self.observations.get(key)
        if obs is None:
            obs = self.observations[key] = LDObservation(seen, loser, end)
        return obs

    def state(self, like: LDState, turn: int, loser: int, seen: Sequence[tuple[int, Action]], end: int = -1
              ) -> LDState:
        """The one (interned) state at this history with ``like``'s hands, dice and round.

        Mid-round (``loser`` and ``end`` -1, ``turn`` the planner) or ended by ``turn``'s call (see ``LDState`` for
        ``loser`` and ``end``); ``seen`` is only read when the state is new.

        Args:
            like: a state whose hands, dice and round index the new state takes.
            turn: the planner's seat mid-round, else the seat whose call ended the round.
            loser: the seat that lost dice, -1 mid-round or when nobody lost.
            seen: the others' ``(seat, action)`` pairs since the planner's last action.
            end: under the rules settled by the count, the end's index in ``round_ends``; default -1 (none).

        Returns:
            The same ``LDState`` object for every call with the same hands, turn (once over), loser and end.
        """
        over = loser >= 0 or end >= 0
        key = (like.hands, turn if over else -1, loser, end)
        state = self.states.get(key)
        if state is None:
            seen = tuple(seen)
            state = LDState(like.hands, like.dice, self.history, turn, loser, seen, like.round_index, end)
            state.public = self
            state.observation = self.observation((turn, loser, end) if over else None, seen, loser, end)
            self.states[key] = state
        return state

    def child(self, seat: int, action: Bid) -> PublicNode:
        key = (seat, action)
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = PublicNode(self.history + (key,))
        return node


class TransitionModel(pomdp_py.TransitionModel):
    """Applies the planner's action, then plays every other player with its opponent model on the hands in
    the state, until it is the planner's turn again or a call ends the round. Round over: absorbing.

    ``models`` (every other seat with dice -> its ``OpponentModel``) are only read, never
    told about simulated events; ``rng`` draws their simulated moves. Under the rules settled by the count an ended
    state also carries ``end``, its end's index in ``round_ends`` (the keys of
    ``end_outcomes``). Its caches: docs/design.md, "POMCP on pomdp-py".
    """

    def __init__(self, config: GameConfig, seat: int, models: Mapping[int, OpponentModel], rng: np.random.Generator):
        self.config, self.seat, self.models, self.rng = config, seat, dict(models), rng
        self.root = PublicNode()
        self._rows: dict[int, dict[tuple[int, ...], int]] = {}  # seat -> {distinct root hand: row}
        self._totals: dict[tuple, list[int]] = {}  # root hands -> matching dice on the table per face
        self._estimates: dict[int, np.ndarray] = {}  # seat -> (rows, faces) estimates of the estimate rule
        self._bluffs: dict[int, float] = {}  # seat -> bluff of the estimate rule it plays (tabulated seats)
        # (seat, standing bid) -> the estimate rule's moves per root hand row: P(challenge), raises, raise chosen
        self._lookups: dict[tuple[int, Bid | None], tuple[list[float], tuple[Bid, ...], list[int]]] = {}
        self._seats_after: dict[tuple[int, ...], dict[int, int]] = {}  # dice -> seat -> next seat with dice
        self._drew = False  # whether the transition being played drew a random number (then it is not remembered)

    def set_root(self, history: tuple[tuple[int, Bid], ...], states: Sequence[LDState]) -> list[LDState]:
        """Start a new search from the public ``history`` over the root particles ``states``; return them interned.

        Indexes each opponent's distinct hands for the tabulated policies, and forgets earlier lookups. Returns the
        particles interned (one object per distinct state, in the same order)."""
        self.root = root = PublicNode(history)
        objects = {id(state): state for state in states}  # a state listed for several particles is interned once
        interned = {key: root.states.setdefault((state.hands, -1), state) for key, state in objects.items()}
        states = [interned[id(state)] for state in states]
        distinct = list(root.states.values())  # in order of first appearance
        self._rows, self._estimates, self._lookups, self._bluffs = {}, {}, {}, {}
        if distinct:
            hands = np.array([state.hands for state in distinct], dtype=np.int64)  # (distinct, players, faces)
            faces = range(1, self.config.faces + 1)
            totals = np.stack([matching_count(hands, f, self.config).sum(axis=1) for f in faces], axis=1)
            self._totals = dict(zip((state.hands for state in distinct), totals.tolist(), strict=True))
        for s, model in self.models.items():
            bluff = estimate_rule_of(model) if distinct else None
            if bluff is not None:
                self._bluffs[s] = bluff
                rows = dict.fromkeys(state.hands[s] for state in distinct)
                self._rows[s] = {hand: i for i, hand in enumerate(rows)}
                view = PublicView(self.config, s, distinct[0].dice, history, distinct[0].round_index)
                self._estimates[s] = expected_matches(np.array(list(rows), dtype=np.int64), view)
        for state in distinct:  # fresh for this model: no node or remembered transition of another search
            state.public, state.after = root, None
        return states

    def node(self, state: LDState) -> PublicNode:
        """The interned node of ``state``'s public history (states built elsewhere get a detached node)."""
        node = state.public
        if node is None:
            node = self.root if state.history == self.root.history else PublicNode(state.history)
        return node

    def _opponent_move(self, state: LDState, node: PublicNode, actor: int) -> Action:
        hand = state.hands[actor]
        rows = self._rows.get(actor)
        row = None if rows is None else rows.get(hand)
        if row is not None:
            bid = node.history[-1][1] if node.history else None
            lookup = self._lookups.get((actor, bid))
            if lookup is None:
                view = PublicView(self.config, actor, state.dice, node.history, state.round_index)
                p_challenge, raises, choice = estimate_policy(self._estimates[actor], view, self._bluffs[actor])
                lookup = self._lookups[actor, bid] = (p_challenge.tolist(), raises, choice.tolist())
            p = lookup[0][row]
            if p >= 1.0:
                return CHALLENGE
            if p > 0.0:
                self._drew = True
                if self.rng.random() < p:
                    return CHALLENGE
            return lookup[1][lookup[2][row]]
        self._drew = True  # a model's own act may draw
        model = self.models[actor]
        view = PlayerView(self.config, actor, state.dice, node.history, state.round_index, hand=hand)
        move = model.act(view, self.rng)
        if not is_legal(self.config, sum(state.dice), view.bid, move):
            raise ValueError(f"opponent model {player_name(model)} (seat {actor}) played illegal {move!r} "
                             f"over {view.bid}")
        return move

    def _end(self, state: LDState, node: PublicNode, caller: int, seen: tuple, call: Action = CHALLENGE) -> LDState:
        bidder, bid = node.history[-1]
        if settled_by_count(self.config):  # the end's index among the round's ends
            loser, _, after = settle_round(self.config, np.array(state.hands), state.dice, bid, bidder, caller, call)
            return node.state(state, caller, loser, seen, _end_codes(self.config, state.dice)[(loser, after)])
        totals = self._totals.get(state.hands)
        if totals is None:
            loser, _ = resolve_challenge(self.config, np.array(state.hands), bid, bidder, caller)
        else:  # the root particles' precomputed counts
            loser = round_loser(bid.quantity - totals[bid.face - 1], bidder, caller, call)
        return node.state(state, caller, loser, seen)

    def _play(self, state: LDState, action: LDAction, reply) -> LDState:
        """The state after ``action`` when ``reply(state, node, actor)`` gives each opponent's move. The planner's
        moves come from ``PolicyModel``, which lists only legal ones for the history."""
        if state.terminal:
            return state
        if state.turn != self.seat:
            raise ValueError(f"TransitionModel: action {action!r} is not the planner's to play in {state!r}")
        node = self.node(state)
        move = action.move
        if move is CHALLENGE or move is EXACT:
            return self._end(state, node, self.seat, (), move)
        if move is None:
            raise ValueError(f"TransitionModel: END played in a round under way ({state!r})")
        node = node.child(self.seat, move)
        after = self._seats_after.get(state.dice)
        if after is None:
            after = self._seats_after[state.dice] = {s: next_active_seat(state.dice, s) for s in range(len(state.dice))}
        seen: list[tuple[int, Action]] = []
        actor = after[self.seat]
        while actor != self.seat:
            answer = reply(state, node, actor)
            seen.append((actor, answer))
            if answer is CHALLENGE or answer is EXACT:
                return self._end(state, node, actor, tuple(seen), answer)
            node = node.child(actor, answer)
            actor = after[actor]
        return node.state(state, self.seat, -1, seen)

    def sample(self, state: LDState, action: LDAction) -> LDState:
        after = state.after
        nxt = None if after is None else after.get(action)
        if nxt is None:
            self._drew = False
            nxt = self._play(state, action, self._opponent_move)
            if not self._drew:
                if after is None:
                    after = state.after = {}
                after[action] = nxt
        return nxt

    def probability(self, next_state: LDState, state: LDState, action: LDAction) -> float:
        """P(next_state | state, action): the product of the opponents' probabilities of the moves it shows."""
        replies = iter(next_state.seen)
        p = [1.0]

        def reply(state: LDState, node: PublicNode, actor: int) -> Action:
            seat, move = next(replies, (None, CHALLENGE))
            if seat != actor:  # next_state's moves do not follow the seating order: impossible
                p[0] = 0.0
                return CHALLENGE
            view = PublicView(self.config, actor, state.dice, node.history, state.round_index)
            hand = np.asarray(state.hands[actor])[None, :]
            p[0] *= float(self.models[actor].action_probabilities(hand, view, move)[0])
            return move

        expected = self._play(state, action, reply)
        return p[0] if expected == next_state else 0.0


class ObservationModel(pomdp_py.ObservationModel):
    """Deterministic: the planner sees the other players' actions since its own, and the loser (and the end) at
    the end."""

    def sample(self, next_state: LDState, action: LDAction) -> LDObservation:
        obs = next_state.observation
        if obs is None:
            obs = next_state.observation = LDObservation(next_state.seen, next_state.loser, next_state.end)
        return obs

    def probability(self, observation: LDObservation, next_state: LDState, action: LDAction) -> float:
        return float(observation == self.sample(next_state, action))


class RewardModel(pomdp_py.RewardModel):
    """The reward: ``outcomes`` of the round's end when a call ends it, 0 before and after.

    At the round's end ``outcomes[(loser, challenger)]`` (e.g. the planner's game value of the dice state it leads
    to, or -1 / +1 for losing / taking a die: ``die_outcomes``), under the rules settled by the count
    ``outcomes[(end, caller)]`` (``end_outcomes``; see ``LDState.outcome``)."""

    def __init__(self, outcomes: Mapping[tuple[int, int], float]):
        self.outcomes = dict(outcomes)

    def sample(self, state: LDState, action: LDAction, next_state: LDState) -> float:
        if state.terminal or not next_state.terminal:
            return 0.0
        return self.outcomes[(next_state.outcome, next_state.turn)]  # a finished round's turn is its caller

    def probability(self, reward: float, state: LDState, action: LDAction, next_state: LDState) -> float:
        return float(reward == self.sample(state, action, next_state))


def die_outcomes(seat: int, dice: Sequence[int]) -> dict[tuple[int, int], float]:
    """-1 when ``seat`` loses the die, +1 when another seat does, for every (loser, challenger) with dice."""
    active = [s for s, d in enumerate(dice) if d > 0]
    return {(loser, c): (-1.0 if loser == seat else 1.0) for loser in active for c in active}


@memo(maxsize=256)
def _end_codes(config: GameConfig, dice: tuple[int, ...]) -> dict[tuple[int, tuple[int, ...]], int]:
    """Each end of ``round_ends`` -> its index."""
    return {end: i for i, end in enumerate(round_ends(config, dice))}


def end_outcomes(config: GameConfig, seat: int, dice: tuple[int, ...],
                 value: Callable[[tuple[int, ...], int], float] | None = None) -> dict[tuple[int, int], float]:
    """``seat``'s rewards of a round settled by the count, per (index of the end in ``round_ends``, caller).

    For the rules of ``settled_by_count``: ``value(dice after, next opener)`` (0 when ``seat`` is out, 1 when it
    alone has dice), or without ``value`` ``seat``'s dice change minus the others'."""
    active = [s for s, d in enumerate(dice) if d > 0]
    out = {}
    for code, (loser, after) in enumerate(round_ends(config, tuple(dice))):
        for caller in active:
            if value is None:
                change = [a - d for a, d in zip(after, dice, strict=True)]
                out[(code, caller)] = float(2 * change[seat] - sum(change))
            elif after[seat] == 0 or sum(d > 0 for d in after) == 1:
                out[(code, caller)] = float(after[seat] > 0)
            else:
                out[(code, caller)] = value(after, next_opener(config, after, caller, loser))
    return out


class PolicyModel(pomdp_py.RolloutPolicy):
    """The planner's pruned actions and its estimate-rule rollout.

    Pruned actions: the smallest raise on each face, then CHALLENGE; END once the round is over. The rollout's
    estimate = own matching dice + ``others_expected`` (per face, the expected matching dice of the other hands),
    through the same ``estimate_policy`` as the one-third player.

    ``dice``: per seat this round; ``hand``: the planner's face counts; ``root_bid``: the bid standing when the agent's
    history starts (None: the planner opens), so actions can be listed from a history alone (pomdp-py expands some
    tree nodes without a state).
    """

    def __init__(
        self, config: GameConfig, seat: int, dice: tuple[int, ...], hand: Sequence[int],
        root_bid: Bid | None, others_expected: Sequence[float],
    ):
        self.config, self.seat, self.dice, self.root_bid = config, seat, tuple(dice), root_bid
        self.table_dice = sum(dice)
        self.own = np.asarray(hand, dtype=np.float64)[None, :] @ match_matrix(config)
        self._actions: dict[Bid | None, list[LDAction]] = {}
        self.set_others_expected(others_expected)

    def set_others_expected(self, others_expected: Sequence[float]) -> None:
        """New per-face expectation of the opponents' matching dice for the rollout rule (e.g. after updates)."""
        self.estimate = self.own + np.asarray(others_expected, dtype=np.float64)
        self._rollout: dict[Bid | None, LDAction] = {}

    def pruned_actions(self, bid: Bid | None) -> list[LDAction]:
        actions = self._actions.get(bid)
        if actions is None:
            moves: list[Action] = [*minimal_raises(self.config, self.table_dice, bid)]
            moves += [CHALLENGE] if bid is not None else []
            if bid is not None and self.config.exact_call:
                moves.append(EXACT)
            actions = self._actions[bid] = [LDAction(m) for m in moves]
        return actions

    def _situation(self, history: tuple | None) -> tuple[bool, Bid | None]:
        """(round over, standing bid) from a pomdp-py history of (LDAction, LDObservation) pairs."""
        if not history:
            return False, self.root_bid
        action, obs = history[-1]
        if obs.over:
            return True, None
        return False, obs.seen[-1][1] if obs.seen else action.move

    def get_all_actions(self, state: LDState | None = None, history: tuple | None = None) -> list[LDAction]:
        over, bid = (state.terminal, state.bid) if state is not None else self._situation(history)
        return [END] if over else self.pruned_actions(bid)

    def rollout(self, state: LDState, history: tuple | None = None) -> LDAction:
        if state.terminal:
            return END
        bid = state.bid
        action = self._rollout.get(bid)
        if action is None:
            view = PublicView(self.config, self.seat, self.dice, state.history[-1:])
            p_challenge, raises, choice = estimate_policy(self.estimate, view)
            action = LDAction(CHALLENGE if p_challenge[0] > 0 else raises[int(choice[0])])
            self._rollout[bid] = action
        return action

    def sample(self, state: LDState) -> LDAction:
        return self.rollout(state)
