"""An outside search agent for benchmarks: information-set MCTS with informed priors and heuristic rollouts.

Written against the player protocol alone (``ldpomdp.rules`` for the bids' order and the round's settlement), it
shares no model, table or belief with the package's agents, so it plays as a competent stranger would (issue 32):
seat it with ``strangers.ismcts:InformedISMCTS[:sims=500,...]`` from a script run in ``benchmarks/``.

Each decision runs ``sims`` iterations of ISMCTS over the rest of the round. An iteration draws the other seats'
hands from an informed prior (rolled hands weighted by how likely each seat's choices of face were under a softmax
bidder over its matching dice, temperature ``1 / beta``: the faces it chose, not the quantities; a wild die counts
for every other face alike, so it barely moves the weight; forced faces, in a palifico round after its opening bid
and in the sixes game, count for nothing), descends a tree of public action histories (UCT at the searcher's own
turns; at the others' turns, and after the one node an iteration adds, a noisy one-third rule on the drawn hands
plays), and ends when a call settles the round on the drawn hands. The reward is the dice the searcher gains or
loses in the round; the most visited action is played. Its own raises considered: on each face the smallest legal
quantity and the one above it; then the calls.
"""

from __future__ import annotations

import math

import numpy as np

from ldpomdp.game import PlayerView
from ldpomdp.round_end import next_active_seat, settle_count
from ldpomdp.rules import (
    CHALLENGE,
    EXACT,
    Action,
    Bid,
    GameConfig,
    match_matrix,
    match_probability,
    matching_count,
    minimal_raises,
)

__all__ = ["InformedISMCTS"]

_PRIOR_HANDS = 2048  # rolled hands per other seat, reweighted by its bids


class _Node:
    """A public history's statistics: its actor, candidate actions, and per action the visits and reward sum."""

    __slots__ = ("actor", "actions", "visits", "totals", "children", "total_visits")

    def __init__(self, actor: int, actions: tuple[Action, ...]):
        self.actor = actor
        self.actions = actions
        self.visits = [0] * len(actions)
        self.totals = [0.0] * len(actions)
        self.children: dict[Action, _Node] = {}
        self.total_visits = 0


class InformedISMCTS:
    """ISMCTS over the round with informed determinisations and a noisy one-third model of the others (module
    docstring); ``noise``: the challenge's logistic scale in dice, ``uct_c``: UCT's exploration constant."""

    def __init__(self, sims: int = 500, uct_c: float = 0.7, beta: float = 1.0, noise: float = 0.5):
        if isinstance(sims, bool) or not isinstance(sims, int) or sims < 1 or uct_c < 0 or beta < 0 or noise <= 0:
            raise ValueError(f"InformedISMCTS: needs an integer sims >= 1, uct_c >= 0, beta >= 0 and noise > 0; got "
                             f"sims={sims!r}, uct_c={uct_c}, beta={beta}, noise={noise}")
        self.sims, self.uct_c, self.beta, self.noise = sims, float(uct_c), float(beta), float(noise)

    def reset(self, seat: int, config: GameConfig) -> None:
        pass

    def observe(self, event: object) -> None:
        pass

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        config, dice = view.config, view.dice
        hands = self._determinisations(view, rng)
        root = _Node(view.seat, self._candidates(config, sum(dice), view.bid))
        empty = (0,) * config.faces
        for i in range(self.sims):
            counts = [view.hand if s == view.seat else hands[s][i] if s in hands else empty for s in range(len(dice))]
            self._iterate(root, config, dice, view.history, counts, rng)
        best = max(range(len(root.actions)), key=lambda a: root.visits[a])
        return root.actions[best]

    # --- determinisation -------------------------------------------------------------------------------------
    def _determinisations(self, view: PlayerView, rng: np.random.Generator) -> dict[int, list[tuple[int, ...]]]:
        """``sims`` hands for each other seat with dice, drawn from rolled hands weighted by that seat's bids."""
        config = view.config
        faces = config.faces
        drawn: dict[int, list[tuple[int, ...]]] = {}
        for seat, n in enumerate(view.dice):
            if seat == view.seat or n == 0:
                continue
            rolls = rng.integers(0, faces, size=(_PRIOR_HANDS, n))
            counts = np.zeros((_PRIOR_HANDS, faces), dtype=np.int64)
            np.add.at(counts, (np.arange(_PRIOR_HANDS)[:, None], rolls), 1)
            logw = np.zeros(_PRIOR_HANDS)
            bids = [bid for who, bid in view.history if who == seat and isinstance(bid, Bid)]
            if config.bids == "sixes":
                bids = []
            elif config.palifico_round:  # after the round's opening bid the face is forced
                bids = [bid for bid in bids if bid is view.history[0][1]]
            if bids:
                matching = counts @ match_matrix(config)  # (hands, faces): matching dice of each face
                logits = self.beta * matching
                logz = np.log(np.exp(logits - logits.max(axis=1, keepdims=True)).sum(axis=1)) + logits.max(axis=1)
                for bid in bids:
                    logw += logits[:, bid.face - 1] - logz
            weights = np.exp(logw - logw.max())
            picks = rng.choice(_PRIOR_HANDS, size=self.sims, p=weights / weights.sum())
            drawn[seat] = [tuple(int(c) for c in counts[p]) for p in picks]
        return drawn

    # --- search ----------------------------------------------------------------------------------------------
    @staticmethod
    def _candidates(config: GameConfig, table_dice: int, bid: Bid | None) -> tuple[Action, ...]:
        """The searcher's actions over ``bid``: on each face the smallest legal raise and the next, then the calls."""
        raises: list[Action] = []
        for low in minimal_raises(config, table_dice, bid):
            raises.append(low)
            if low.quantity < table_dice and config.bids == "full":
                raises.append(Bid(low.quantity + 1, low.face))
        if bid is not None:
            raises.append(CHALLENGE)
            if config.exact_call:
                raises.append(EXACT)
        return tuple(raises)

    def _iterate(self, root: _Node, config: GameConfig, dice: tuple[int, ...], history: tuple[tuple[int, Action], ...],
                 counts: list[tuple[int, ...]], rng: np.random.Generator) -> None:
        """One iteration: UCT at the searcher's own nodes, the rollout policy for the other seats, one new node."""
        me, node, path = root.actor, root, []
        bid = history[-1][1] if history else None
        bidder = history[-1][0] if history else -1
        table = sum(dice)
        actor = me
        while True:
            if node is not None and actor == me:
                a = self._select(node)
                path.append((node, a))
                action = node.actions[a]
            else:
                action = self._rollout_action(config, dice, counts, actor, bid, table, rng)
            if action is CHALLENGE or action is EXACT:
                rewards = self._settle(config, dice, counts, bid, bidder, actor, action)
                break
            bid, bidder = action, actor
            actor = next_active_seat(dice, actor)
            if node is not None:
                child = node.children.get(action)
                if child is None:  # the one node this iteration adds; the rest of the round is a rollout
                    node.children[action] = _Node(actor, self._candidates(config, table, bid) if actor == me else ())
                    node = None
                else:
                    node = child
        for visited, a in path:
            visited.visits[a] += 1
            visited.total_visits += 1
            visited.totals[a] += rewards[me]

    def _select(self, node: _Node) -> int:
        """UCT at ``node``: an untried action first, else the best mean reward plus the exploration bonus."""
        for a, n in enumerate(node.visits):
            if n == 0:
                return a
        log_n = math.log(node.total_visits)
        c = self.uct_c
        return max(range(len(node.actions)),
                   key=lambda a: node.totals[a] / node.visits[a] + c * math.sqrt(log_n / node.visits[a]))

    def _rollout_action(self, config: GameConfig, dice: tuple[int, ...], counts: list[tuple[int, ...]], actor: int,
                        bid: Bid | None, table: int, rng: np.random.Generator) -> Action:
        """A noisy one-third rule on the actor's determinised hand: challenge when the bid exceeds its estimate,
        with a logistic chance of ``noise`` dice; else the smallest raise on the face it estimates highest."""
        hand, unseen = counts[actor], table - dice[actor]

        def estimate(face: int) -> float:
            return matching_count(hand, face, config) + unseen * match_probability(config, face)

        raises = minimal_raises(config, table, bid)
        if bid is not None:
            excess = bid.quantity - estimate(bid.face)
            if not raises or rng.random() < 1 / (1 + math.exp(-excess / self.noise)):
                return CHALLENGE
        return max(raises, key=lambda r: estimate(r.face) - r.quantity + 0.01 * rng.random())

    @staticmethod
    def _settle(config: GameConfig, dice: tuple[int, ...], counts: list[tuple[int, ...]], bid: Bid, bidder: int,
                caller: int, call: Action) -> list[float]:
        """Each seat's dice gained (lost: negative) when ``caller``'s ``call`` settles ``bid`` on the drawn hands."""
        matching = sum(matching_count(c, bid.face, config) for c in counts)  # a seat out of dice holds no die
        _, after = settle_count(config, dice, bid.quantity - matching, bidder, caller, call)
        return [float(a - d) for a, d in zip(after, dice, strict=True)]
