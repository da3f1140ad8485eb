"""Report 004's Deep Q-Network player (WiLDCARD), played with numpy alone.

The network maps :func:`dqn_features` (own hand, dice per seat, the standing bid, and the opponents' dice estimate
from a :class:`~ldpomdp.belief.TableBelief`) to one Q-value per action of its *frame*: the largest table it was
trained for (players, dice per player, faces, wild face, bid mode). It plays any game that fits the frame: at most
that many players and dice each, the same faces, wild face and bid mode; seats and actions outside the game are
zeros and masked. Trained by ``ldpomdp train dqn`` (:mod:`planners.dqn_train`, extra ``rl``); the weights ship as
``planners/data/dqn_wildcard.npz`` and load with numpy.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ldpomdp.envs.coding import ActionCoding
from ldpomdp.game import PlayerView
from ldpomdp.rules import Action, GameConfig, match_matrix

from ._common import BeliefPlayer

__all__ = ["Frame", "QNetwork", "DQNPlayer", "dqn_features", "feature_size", "SHIPPED_WEIGHTS"]

SHIPPED_WEIGHTS = Path(__file__).with_name("data") / "dqn_wildcard.npz"
BELIEF_INJECTION = 0.1  # share of the prior kept in each opponent's belief: the assumed one-third model is wrong


@dataclass(frozen=True)
class Frame:
    """The largest table a network plays: ``players`` seats of at most ``dice`` dice, and the rules it knows."""

    players: int = 3
    dice: int = 5
    faces: int = 6
    wild: int | None = 1
    bids: str = "full"

    @property
    def config(self) -> GameConfig:
        """The full-size game of the frame (its action numbering is the network's output)."""
        return GameConfig(self.players, self.dice, self.faces, self.wild, self.bids)

    def check(self, config: GameConfig) -> None:
        """A ValueError unless ``config`` fits the frame."""
        fits = (config.num_players <= self.players and max(config.starting_dice) <= self.dice
                and config.faces == self.faces and config.wild == self.wild and config.bids == self.bids)
        if not fits:
            raise ValueError(f"this DQN network plays up to {self.players} players of up to {self.dice} dice, "
                             f"{self.config.describe()}; the game is {config.num_players} players with dice "
                             f"{config.starting_dice}, {config.describe()}")


def feature_size(frame: Frame) -> int:
    """Length of :func:`dqn_features` for ``frame``."""
    coding = ActionCoding(frame.config)
    return 2 * frame.faces + frame.players + 1 + coding.num_bids + 1 + 1 + frame.players \
        + (frame.players - 1) * frame.faces + frame.faces + 3


def dqn_features(view: PlayerView, estimates: dict[int, np.ndarray], bid_true: float, frame: Frame,
                 coding: ActionCoding) -> np.ndarray:
    """The network's input (float32) on ``view``; ``estimates[s]`` is opponent ``s``'s expected count of each face
    (raw, wild dice not added), ``bid_true`` the probability that the standing bid is true under the same belief
    (0 without a bid). In order, counts scaled by the frame's dice: own face counts, own matching counts, dice
    per seat (relative order, own first; padded), dice on the table, the standing bid one-hot (the last entry: no
    bid yet), its quantity over the dice on the table, its bidder (relative seat) one-hot, each opponent's
    estimate (relative order; padded), the opponents' total expected matching count per face, and for the standing
    bid (zeros without one): the expected matching dice on the table minus its quantity, its quantity, and
    ``bid_true``."""
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
        parts.append([(parts[1][f] * d + expected[f] - view.bid.quantity) / d, view.bid.quantity / d, bid_true])
    return np.concatenate(parts).astype(np.float32)


class QNetwork:
    """A ReLU multilayer perceptron in numpy: ``layers`` is a list of (weights (in, out), bias (out,))."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], frame: Frame):
        if not layers:
            raise ValueError("QNetwork needs at least one layer")
        for (w, b), (w_next, _) in zip(layers, layers[1:]):
            if w.shape[1] != b.shape[0] or w.shape[1] != w_next.shape[0]:
                raise ValueError(f"QNetwork: layer shapes do not chain: {[x.shape for pair in layers for x in pair]}")
        if layers[0][0].shape[0] != feature_size(frame) or layers[-1][0].shape[1] != ActionCoding(frame.config).size:
            raise ValueError(f"QNetwork: the layers take {layers[0][0].shape[0]} inputs and give "
                             f"{layers[-1][0].shape[1]} outputs; the frame {frame} needs {feature_size(frame)} and "
                             f"{ActionCoding(frame.config).size}")
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.frame = frame

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Q-values, (..., actions) for inputs (..., features)."""
        for w, b in self.layers[:-1]:
            x = np.maximum(x @ w + b, 0.0)
        w, b = self.layers[-1]
        return x @ w + b

    def save(self, path: str | Path, **meta: object) -> None:
        """Write the layers and the frame (plus ``meta``, JSON-able) to an ``.npz`` file."""
        arrays = {f"w{i}": w for i, (w, _) in enumerate(self.layers)} | {f"b{i}": b for i, (_, b) in
                                                                          enumerate(self.layers)}
        np.savez_compressed(path, frame=json.dumps(asdict(self.frame)), meta=json.dumps(meta), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> "QNetwork":
        """Read a file written by :meth:`save`; a ValueError says what is wrong with it."""
        try:
            with np.load(path, allow_pickle=False) as data:
                frame = Frame(**json.loads(str(data["frame"])))
                count = sum(1 for k in data.files if k.startswith("w"))
                layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(count)]
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"cannot read DQN weights from {path}: {exc}") from exc
        return cls(layers, frame)


class DQNPlayer(BeliefPlayer):
    """Plays the action of highest Q-value among the legal ones (numpy only).

    ``weights``: an ``.npz`` written by ``ldpomdp train dqn`` (default: the shipped network, trained on report
    004's games: 2 and 3 players, 5 dice, ones wild). The opponents' dice estimate comes from an exact
    :class:`~ldpomdp.belief.TableBelief` assuming the one-third rule for every opponent (``assume``), with 10% of
    the prior kept at each update since the real opponents differ."""

    name = "dqn"
    deterministic = True

    def __init__(self, weights: str | Path | None = None, assume: str = "one-third", network: QNetwork | None = None):
        super().__init__(belief="exact", injection=BELIEF_INJECTION, assume=assume)
        self.network = network if network is not None else QNetwork.load(weights or SHIPPED_WEIGHTS)
        self.frame = self.network.frame
        self.coding = ActionCoding(self.frame.config)

    def reset(self, seat: int, config: GameConfig) -> None:
        self.frame.check(config)
        super().reset(seat, config)

    def features(self, view: PlayerView) -> np.ndarray:
        """:func:`dqn_features` of ``view`` with this round's belief."""
        estimates = {s: b.weights @ b.particles for s, b in self.belief.beliefs.items()}
        bid_true = 0.0
        if view.bid is not None:
            others, needed = self.standing_bid_odds(view)
            bid_true = float(others[max(needed, 0):].sum())
        return dqn_features(view, estimates, bid_true, self.frame, self.coding)

    def legal_mask(self, view: PlayerView) -> np.ndarray:
        """(actions,) bool: the legal actions on ``view`` in the frame's numbering."""
        return self.coding.mask(view).astype(bool)

    def greedy(self, features: np.ndarray, mask: np.ndarray) -> int:
        """The legal action number of highest Q-value."""
        return int(np.argmax(np.where(mask, self.network(features), -np.inf)))

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        return self.coding.action(self.greedy(self.features(view), self.legal_mask(view)))
