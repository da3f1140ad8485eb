"""Report 004's Deep Q-Network player (WiLDCARD), played with numpy alone.

The network (``q_values``) maps ``dqn_features`` (own hand, dice per seat, the standing bid, and the odds of every
bid from a ``TableBelief``) to one Q-value per action of its ``Frame``, and plays any game that fits the frame (seats
and actions outside the game are zeros and masked). Trained by ``ldpomdp train dqn`` (``ldpomdp.planners.dqn_train``,
extra ``rl``); the shipped weights are ``planners/data/dqn_wildcard.npz``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from ldpomdp.datafiles import load_npz
from ldpomdp.errors import UsageError
from ldpomdp.game import PlayerView
from ldpomdp.rules import Action, ActionCoding, Bid, GameConfig, match_matrix, matching_count

from ._common import BeliefPlayer

__all__ = ["Frame", "QNetwork", "DQNPlayer", "dqn_features", "feature_size", "action_descriptors", "parameter_shapes",
           "q_values", "SHIPPED_WEIGHTS"]

SHIPPED_WEIGHTS = Path(__file__).with_name("data") / "dqn_wildcard.npz"
ASSUME = "mixture"  # the opponent model behind the belief: the type mixture of the package's best planner


@dataclass(frozen=True)
class Frame:
    """The largest table a network plays, and the rules it knows (as in ``GameConfig``): a game fits with at most
    that many players and dice each, the same faces, wild face and bid mode."""

    players: int = 3  # seats, >= 2
    dice: int = 5  # the most dice a seat starts with, >= 1
    faces: int = 6  # faces of a die, >= 2
    wild: int | None = 1  # the wild face (1 or faces) or None
    bids: str = "full"  # "full" or "sixes"

    @property
    def config(self) -> GameConfig:
        """The full-size game of the frame (its action numbering is the network's output)."""
        return GameConfig(self.players, self.dice, self.faces, self.wild, self.bids)

    def check(self, config: GameConfig) -> None:
        """A UsageError unless ``config`` fits the frame."""
        fits = (config.num_players <= self.players and max(config.starting_dice) <= self.dice
                and config.faces == self.faces and config.wild == self.wild and config.bids == self.bids
                and not config.variants)  # trained on today's rules: no variant (wild_bids, exact_call, ...)
        if not fits:
            raise UsageError(f"this DQN network plays up to {self.players} players of up to {self.dice} dice, "
                             f"{self.config.describe()}; the game is {config.num_players} players with dice "
                             f"{config.starting_dice}, {config.describe()}")


def feature_size(frame: Frame) -> int:
    """Length of ``dqn_features`` for ``frame``."""
    coding = ActionCoding(frame.config)
    return 2 * frame.faces + frame.players + 1 + coding.num_bids + 1 + 1 + frame.players \
        + (frame.players - 1) * frame.faces + frame.faces + 3 + coding.num_bids


def dqn_features(view: PlayerView, estimates: dict[int, np.ndarray], odds: np.ndarray, frame: Frame,
                 coding: ActionCoding) -> np.ndarray:
    """The network's input on ``view``: (``feature_size(frame)``,) float32.

    In order, counts scaled by the frame's dice: own face counts, own matching counts, dice per seat (relative order,
    own first; padded), dice on the table, the standing bid one-hot (the last entry: no bid yet), its quantity over the
    dice on the table, its bidder (relative seat) one-hot, each opponent's estimate (relative order; padded), the
    opponents' total expected matching count per face, for the standing bid (zeros without one) the expected matching
    dice on the table minus its quantity, its quantity and its probability of being true, and last ``odds``.

    Args:
        view: the seat's view of the game.
        estimates: ``estimates[s]`` is opponent ``s``'s expected count of each face (raw, wild dice not added).
        odds: (bids of ``coding``,) the probability of each bid being true under the same belief
            (``DQNPlayer.bid_odds``).
        frame: the network's frame: it pads the seats and scales the counts.
        coding: the numbering of the frame's actions (``ActionCoding`` of ``frame.config``).

    Returns:
        The features, (``feature_size(frame)``,) float32.
    """
    config = view.config
    n, seat, d = config.num_players, view.seat, float(frame.dice)
    hand = np.asarray(view.hand, dtype=np.float64)
    matches = match_matrix(config)
    parts = [hand / d, hand @ matches / d]
    seats = np.zeros(frame.players)
    seats[:n] = np.roll(view.dice, -seat)
    parts += [seats / d, [view.table_dice / (d * frame.players)]]
    bid_hot = np.zeros(coding.num_bids + 1)
    bid_hot[coding.num_bids if view.bid is None else coding.index(view.bid)] = 1.0
    bidder = np.zeros(frame.players)
    if view.bidder is not None:
        bidder[(view.bidder - seat) % n] = 1.0
    parts += [bid_hot, [0.0 if view.bid is None else view.bid.quantity / view.table_dice], bidder]
    others = np.zeros((frame.players - 1, frame.faces))
    for s, counts in estimates.items():
        others[(s - seat) % n - 1] = counts
    expected = others.sum(axis=0) @ matches
    parts += [others.ravel() / d, expected / (d * frame.players)]
    if view.bid is None:
        parts.append([0.0, 0.0, 0.0])
    else:
        f = view.bid.face - 1
        parts.append([(parts[1][f] * d + expected[f] - view.bid.quantity) / d, view.bid.quantity / d,
                      odds[coding.index(view.bid)]])
    parts.append(odds)
    return np.concatenate(parts).astype(np.float32)


def action_descriptors(frame: Frame) -> np.ndarray:
    """Each action of the frame as the network sees it: (actions, 2 + bid faces) float32, one row per action.

    A row holds the bid's quantity over the frame's dice on the table, its face one-hot, and 1 in the last column for
    CHALLENGE (whose other entries are 0)."""
    coding = ActionCoding(frame.config)
    out = np.zeros((coding.size, 2 + len(coding.faces)), np.float32)
    for index in range(coding.num_bids):
        bid = coding.action(index)
        assert isinstance(bid, Bid)  # the indices below num_bids number the bids
        out[index, 0] = bid.quantity / coding.max_quantity
        out[index, 1 + coding.faces.index(bid.face)] = 1.0
    out[coding.challenge, -1] = 1.0
    return out


def parameter_shapes(frame: Frame, hidden: Sequence[int]) -> dict[str, tuple[int, ...]]:
    """The arrays of a ``QNetwork`` with hidden layer sizes ``hidden`` (the last one is the action layer)."""
    sizes = [feature_size(frame), *hidden[:-1]]
    shapes: dict[str, tuple[int, ...]] = {}
    for i, (m, n) in enumerate(pairwise(sizes)):
        shapes[f"w{i}"], shapes[f"b{i}"] = (m, n), (n,)
    last, width = sizes[-1], hidden[-1]
    descriptor = 2 + len(frame.config.bid_faces)
    return shapes | {"state_w": (last, width), "odds_w": (width,), "action_w": (descriptor, width),
                     "action_b": (width,), "out_w": (width,), "out_b": ()}


def _trunk_layers(params: Mapping[str, object]) -> int:
    return sum(1 for k in params if k.startswith("w") and k[1:].isdigit())


def q_values(params: Mapping[str, object], x, descriptors, xp=np, actions=None):
    """Q-values of state features ``x`` for every action, or with ``actions`` for one action of each state.

    The state goes through the hidden layers but the last; the last hidden layer takes that output and one action
    at a time: its descriptor row (``action_descriptors``) and its odds (the bid's probability of being true, the
    standing bid's for CHALLENGE, both read from ``x``), so every bid is valued by the same weights.

    Args:
        params: the network's arrays, named as in ``parameter_shapes``.
        x: (..., features) state features (``dqn_features``).
        descriptors: (actions, 2 + bid faces) the action descriptors (``action_descriptors``).
        xp: the array module, numpy or jax.numpy.
        actions: (...) integers, one action of each state; None for every action.

    Returns:
        (..., actions) Q-values; with ``actions``, (...) the value of that action of each state.
    """
    h = x
    for i in range(_trunk_layers(params)):
        h = xp.maximum(h @ params[f"w{i}"] + params[f"b{i}"], 0.0)
    bids = descriptors.shape[0] - 1
    odds = xp.concatenate([x[..., -bids:], x[..., -bids - 1:-bids]], axis=-1)  # (..., actions)
    per_action = descriptors @ params["action_w"] + params["action_b"]  # (actions, width)
    state = h @ params["state_w"]
    if actions is not None:
        odds = xp.take_along_axis(odds, actions[..., None], axis=-1)[..., 0]
        pre = state + odds[..., None] * params["odds_w"] + per_action[actions]
    else:
        pre = state[..., None, :] + odds[..., None] * params["odds_w"] + per_action
    return xp.maximum(pre, 0.0) @ params["out_w"] + params["out_b"]


class QNetwork:
    """The Q-network in numpy: ``params`` maps the names of ``parameter_shapes`` to arrays (see ``q_values``)."""

    def __init__(self, params: Mapping[str, np.ndarray], frame: Frame):
        params = {k: np.asarray(v, np.float32) for k, v in params.items()}
        got = {k: v.shape for k, v in params.items()}
        try:
            hidden = [params[f"w{i}"].shape[1] for i in range(_trunk_layers(params))] + [params["out_w"].shape[0]]
        except (KeyError, IndexError):
            hidden = None
        expected = parameter_shapes(frame, hidden) if hidden else None
        if got != expected:
            raise UsageError(f"QNetwork: the arrays {got} are not a network of the frame {frame} "
                             f"(e.g. {parameter_shapes(frame, (128, 128, 128))})")
        self.params, self.frame = params, frame
        self.descriptors = action_descriptors(frame)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Q-values, (..., actions) for inputs (..., features)."""
        return q_values(self.params, x, self.descriptors)

    def save(self, path: str | Path, **meta: object) -> None:
        """Write the arrays and the frame (plus ``meta``, JSON-able) to an ``.npz`` file."""
        # typed Any: mypy would match a dict of arrays against savez_compressed's allow_pickle: bool
        arrays: dict[str, Any] = {"frame": json.dumps(asdict(self.frame)), "meta": json.dumps(meta),
                                  **{f"p_{k}": v for k, v in self.params.items()}}
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> QNetwork:
        """Read a file written by ``save``; a TableError (a UsageError) says what is wrong with it."""
        return load_npz(path, "DQN weights", cls._from_arrays)

    @classmethod
    def _from_arrays(cls, data: Mapping[str, np.ndarray]) -> QNetwork:
        frame = Frame(**json.loads(str(data["frame"])))
        params = {k[2:]: v for k, v in data.items() if k.startswith("p_")}
        if not params:
            raise UsageError("no network arrays in it (a file of the first, one-output-per-action network? "
                             "retrain with ldpomdp train dqn)")
        return cls(params, frame)


class DQNPlayer(BeliefPlayer):
    """Plays the action of highest Q-value among the legal ones (numpy only).

    ``weights``: an ``.npz`` written by ``ldpomdp train dqn`` (default: the shipped network, trained on report
    004's games: 2 and 3 players, 5 dice, ones wild). The opponents' dice estimate comes from an exact ``TableBelief``
    with the model ``assume`` for every opponent (default the type mixture, as the network was trained)."""

    name = "dqn"
    deterministic = True

    def __init__(self, weights: str | Path | None = None, assume: str = ASSUME, network: QNetwork | None = None):
        super().__init__(belief="exact", assume=assume)
        self.network = network if network is not None else QNetwork.load(weights or SHIPPED_WEIGHTS)
        self.frame = self.network.frame
        self.coding = ActionCoding(self.frame.config)

    def reset(self, seat: int, config: GameConfig) -> None:
        self.frame.check(config)
        super().reset(seat, config)

    def features(self, view: PlayerView) -> np.ndarray:
        """``dqn_features`` of ``view`` with this round's belief."""
        estimates = {s: b.weights @ b.particles for s, b in self.round_belief().beliefs.items()}
        return dqn_features(view, estimates, self.bid_odds(view), self.frame, self.coding)

    def bid_odds(self, view: PlayerView) -> np.ndarray:
        """(bids of the frame,) the probability of each bid being true: our hand's matching dice plus the belief's
        distribution of the other hands' (0 for quantities above the dice on the table)."""
        config, coding = view.config, self.coding
        odds = np.zeros((coding.max_quantity + 1, len(coding.faces)))  # row q: bids of quantity q (row 0: none)
        for i, face in enumerate(coding.faces):
            others = self.round_belief().total_distribution(face, config.wild)
            own = int(matching_count(view.hand, face, config))
            at_least = np.cumsum(others[::-1])[::-1]  # at_least[k] = P(others' matching dice >= k)
            top = min(own + len(others) - 1, coding.max_quantity)
            odds[:own + 1, i] = 1.0
            odds[own + 1:top + 1, i] = at_least[1:top - own + 1]
        return odds[1:].ravel()

    def legal_mask(self, view: PlayerView) -> np.ndarray:
        """(actions,) bool: the legal actions on ``view`` in the frame's numbering."""
        return self.coding.mask(view.config, view.table_dice, view.bid).astype(bool)

    def greedy(self, features: np.ndarray, mask: np.ndarray) -> int:
        """The legal action number of highest Q-value."""
        return int(np.argmax(np.where(mask, self.network(features), -np.inf)))

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        return self.coding.action(self.greedy(self.features(view), self.legal_mask(view)))
