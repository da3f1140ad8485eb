"""Build the pomdp-py agent of one player for one round: root particles drawn from the belief core."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

import numpy as np
import pomdp_py

from ..estimate import unseen_matches
from ..game import PlayerView
from ..hands import count_hands
from ..opponent import OpponentModel
from ..round_end import settled_by_count
from ..rules import GameConfig, matching_count
from ..validation import one_of
from .models import ObservationModel, PolicyModel, RewardModel, TransitionModel, die_outcomes, end_outcomes
from .state import LDState

__all__ = ["ROLLOUTS", "LDParticles", "make_agent", "root_states", "reset_root", "others_expected"]

ROLLOUTS = ("expected-count", "one-third")


class LDParticles(pomdp_py.Particles):
    """pomdp-py particles whose draws are reproducible, and whose histogram is built only when asked.

    Draws use a ``random.Random`` seeded from the numpy Generator (pomdp-py's own draw uses the global ``random``).
    The histogram that pomdp-py builds on creation (hashing every state; POMCP only draws) is made when asked."""

    def __init__(self, particles: list, rng: np.random.Generator | random.Random):
        self._building = True
        super().__init__(particles)
        self._building = False
        self._random = rng if isinstance(rng, random.Random) else random.Random(int(rng.integers(2**63)))

    def get_histogram(self) -> dict:
        return {} if self._building else super().get_histogram()

    def __getitem__(self, value) -> float:
        return self.get_histogram().get(value, 0.0)

    def mpe(self):
        histogram = self.get_histogram()
        return max(histogram, key=histogram.__getitem__)

    def random(self):
        particles = self.particles
        return self._random.choice(particles) if particles else None

    def __deepcopy__(self, memo) -> LDParticles:  # states are immutable: copy the list only
        return LDParticles(list(self.particles), self._random)


def root_states(view: PlayerView, belief, k: int, rng: np.random.Generator, by_count: bool = False) -> list[LDState]:
    """``k`` states at ``view``: the opponents' hands drawn jointly from ``belief``, ours known.

    With ``by_count`` (the sixes game against models that act on a hand's count of the bid face alone) every hand is
    the one of ``count_hands`` with its count, and each opponent's counts are a systematic draw from its belief (each
    count's share of the ``k`` states within 1 / ``k`` of its probability; shuffled, so the opponents' counts stay
    independent): the same round in distribution, over far fewer distinct states.

    Args:
        view: the decision's ``PlayerView`` (our seat, hand, the dice and this round's bids).
        belief: the round's ``TableBelief`` over the opponents' hands.
        k: the number of states to draw.
        rng: the numpy Generator the draws use.
        by_count: draw counts of the bid face (see above) instead of whole hands; default False.

    Returns:
        ``k`` ``LDState`` objects, one object per distinct state (a state drawn twice is the same object).
    """
    distinct, which = _root_draw(view, belief, k, rng, by_count)
    return [distinct[i] for i in which]


def _systematic(probabilities: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` draws of an index with the given probabilities, in random order: systematic sampling (one uniform
    offset, ``k`` equally spaced points through the cumulative distribution)."""
    cumulative = np.cumsum(probabilities)
    points = (rng.random() + np.arange(k)) / k * cumulative[-1]
    return rng.permutation(np.minimum(np.searchsorted(cumulative, points, side="right"), len(probabilities) - 1))


def _root_draw(view: PlayerView, belief, k: int, rng: np.random.Generator, by_count: bool
               ) -> tuple[list[LDState], list[int]]:
    """``root_states`` as (its distinct states in order of first appearance, each state's index among them)."""
    config = view.config
    if by_count:
        face = config.faces
        counts = np.zeros((k, config.num_players), dtype=np.int64)
        counts[:, view.seat] = matching_count(view.hand, face, config)
        for s, opponent in belief.beliefs.items():
            counts[:, s] = _systematic(opponent.count_distribution(face, config.wild), k, rng)
        hands = np.stack([count_hands(d, face, config)[counts[:, s]] for s, d in enumerate(view.dice)],
                         axis=1).astype(np.int64)
    else:
        hands = np.asarray(belief.sample_hands(k, rng)).astype(np.int64)
        hands[:, view.seat] = view.hand
    history, dice, turn, r = view.history, view.dice, view.seat, view.round_index
    first, which = _distinct_rows(hands.reshape(len(hands), -1))
    return ([LDState(tuple(map(tuple, h)), dice, history, turn, -1, (), r) for h in hands[first].tolist()],
            which.tolist())


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-d integer array: (each one's first row index, each row's position among them).

    The first indices are in order. The rows are read as numbers in mixed radix (each column's range) when they fit in
    62 bits, else numpy's row-wise unique is used."""
    if not len(rows):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    low, spans = rows.min(axis=0), rows.max(axis=0) - rows.min(axis=0) + 1
    if math.prod(spans.tolist()) >= 2**62:
        _, first, which = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    else:
        radix = np.concatenate([np.cumprod(spans[::-1])[::-1][1:], [1]]).astype(np.int64)
        _, first, which = np.unique((rows - low) @ radix, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[which.reshape(-1)]


def _root_particles(transition: TransitionModel, view: PlayerView, belief, k: int, rng: np.random.Generator,
                    by_count: bool) -> LDParticles:
    """Root particles for the decision at ``view`` (see ``root_states``), interned by ``transition`` as the
    root of its next search."""
    distinct, which = _root_draw(view, belief, k, rng, by_count)
    distinct = transition.set_root(view.history, distinct)
    return LDParticles([distinct[i] for i in which], rng)


def others_expected(config: GameConfig, view: PlayerView, belief, rollout: str) -> list[float]:
    """Per face, the opponents' expected matching dice the rollout rule assumes: from ``belief``
    ("expected-count") or the unseen dice times P(a die matches) ("one-third")."""
    faces = range(1, config.faces + 1)
    if rollout == "expected-count":
        return [belief.expected_total(f, config.wild) for f in faces]
    return unseen_matches(config, view.table_dice, view.dice[view.seat], faces).tolist()


def reset_root(
    agent: pomdp_py.Agent, view: PlayerView, belief, k: int, rng: np.random.Generator, rollout: str = "expected-count",
    by_count: bool = False,
) -> None:
    """Give ``agent`` fresh root particles from ``belief`` for the decision at ``view``, keeping its tree.

    Also refreshes the rollout rule's estimate (the belief core is the source of truth).

    Args:
        agent: the agent ``make_agent`` built for this seat and round.
        view: the decision's ``PlayerView``.
        belief: the round's ``TableBelief``.
        k: the number of root particles (see ``root_states``).
        rng: the numpy Generator the draws use.
        rollout: "expected-count" or "one-third", as in ``make_agent``; default "expected-count".
        by_count: draw counts of the bid face instead of whole hands (see ``root_states``); default False.

    Returns:
        None; ``agent``'s belief (and its tree's, if it has one) is replaced.
    """
    particles = _root_particles(agent.transition_model, view, belief, k, rng, by_count)
    agent.policy_model.set_others_expected(others_expected(view.config, view, belief, rollout))
    agent.set_belief(particles)
    tree = getattr(agent, "tree", None)
    if tree is not None:
        tree.belief = particles


def make_agent(
    config: GameConfig,
    seat: int,
    opponent_models: Mapping[int, OpponentModel],
    belief,
    view: PlayerView,
    n_root: int = 1000,
    rollout: str = "expected-count",
    rng: np.random.Generator | int | None = None,
    outcomes: Mapping[tuple[int, int], float] | None = None,
    by_count: bool = False,
) -> pomdp_py.Agent:
    """A pomdp-py agent for ``seat``'s decision at ``view`` (its hand, the dice, this round's bids so far).

    ``belief`` is the round's ``TableBelief``; ``n_root`` root particles are drawn from
    it (``by_count``: see ``root_states``). ``rollout``: "expected-count" (own dice + the belief's expected
    matching count of the opponents) or "one-third" (own dice + the unseen dice times P(a die matches)).
    ``outcomes``: the reward when the round ends, per (loser, challenger) (default ``die_outcomes``); under
    the rules settled by the count, per (end, caller) (default ``end_outcomes`` without values).

    Args:
        config: the game's rules; must be ``view``'s.
        seat: the deciding seat; must be ``view``'s.
        opponent_models: the model of each opponent seat, used in the simulated transitions.
        belief: the round's ``TableBelief`` over the opponents' hands.
        view: the decision's ``PlayerView``.
        n_root: the number of root particles; default 1000.
        rollout: the rollout rule, one of ``ROLLOUTS``; default "expected-count".
        rng: a numpy Generator, or a seed for one (None: fresh entropy).
        outcomes: the round-end rewards (see above); None for the default.
        by_count: draw counts of the bid face instead of whole hands (see ``root_states``); default False.

    Returns:
        A ``pomdp_py.Agent`` with root particles, policy, transition, observation and reward models.

    Raises:
        ValueError: ``rollout`` is not one of ``ROLLOUTS``, or ``view`` is of another seat or config.
    """
    one_of("make_agent", "rollout", rollout, ROLLOUTS)
    if view.seat != seat or view.config != config:
        raise ValueError(f"make_agent: view is for seat {view.seat}, the agent for seat {seat} (same config needed)")
    rng = np.random.default_rng(rng)
    transition = TransitionModel(config, seat, opponent_models, rng)
    particles = _root_particles(transition, view, belief, n_root, rng, by_count)
    policy = PolicyModel(config, seat, view.dice, view.hand, view.bid, others_expected(config, view, belief, rollout))
    return pomdp_py.Agent(
        particles, policy, transition_model=transition, observation_model=ObservationModel(),
        reward_model=RewardModel(outcomes if outcomes is not None else end_outcomes(config, seat, view.dice)
                                 if settled_by_count(config) else die_outcomes(seat, view.dice)),
    )
