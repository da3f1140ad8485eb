"""The two-player equilibrium table (``GameTable``): solved rounds and game values, and its ``.npz`` format.

A table stores each round's average strategies quantized (``quantize``, ``QUANTUM``), keyed by ``round_key``;
``rules_key`` says which rules share a table and ``file_bids`` reads a file's bid mode (the blueprint's files too).
Solved by ``solve_game``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from ...datafiles import load_npz, write_npz
from ...rules import GameConfig
from .abstraction import AbstractRound, abstract_round, recall_for
from .states import key_round, round_key, round_name

__all__ = ["GameTable", "quantize", "stored_rows", "QUANTUM", "rules_key", "file_bids"]

def rules_key(config: GameConfig) -> str:
    """The rules a table is solved for, as text: two configs with the same key share a table (under the exact call,
    which wins dice back up to the start, the starting dice too)."""
    key = f"faces={config.faces}|wild={config.wild}|bids={config.bids}|opener={config.opener}"
    variants = {k: v for k, v in config.variants.items() if k != "palifico_round"}
    key += "".join(f"|{name}={value}" for name, value in variants.items())
    return key + (f"|start={config.starting_dice}" if config.exact_call else "")

QUANTUM = 63  # stored probabilities are multiples of 1/63 (6 bits; 255 levels made the 1-5 dice table 24 MB)


def quantize(strategy: np.ndarray) -> np.ndarray:
    """Probabilities in [0, 1] as uint8 (p * ``QUANTUM`` rounded); a state's row is renormalised when it is read,
    and a row rounded to all zeros is read as uniform."""
    return np.rint(np.clip(strategy, 0.0, 1.0) * QUANTUM).astype(np.uint8)


def stored_rows(block: np.ndarray) -> np.ndarray:
    """Stored strategy rows (``quantize``'s, or floats) as probabilities: each row renormalised, all zeros uniform."""
    block = block.astype(np.float64)
    total = block.sum(axis=1, keepdims=True)
    return np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / block.shape[1])


@dataclass
class GameTable:
    """Solved rounds of the whole two-player game: each round's strategies, and the game values.

    ``strategies[key]`` = per role the average strategy (float, or uint8 as stored, see ``quantize``) of the round
    ``key`` (``round_key``: the opener's dice, the responder's, and a 1 for a palifico round), and ``values[a, b]``
    (``palifico_values``) the ordinary (palifico) round's game value to its opener in its usual state
    (``canonical_state``). ``recall``, ``iterations``, ``seed`` and the rules say how it was solved (under the exact
    call each full sweep after the first adds a tenth of ``iterations``: ``sweep_targets``), ``ends`` each round's end
    probabilities and ``residual`` the fixed point's (``solve_game``)."""

    config: GameConfig  # rules; its dice are the largest dice per player covered (under exact_call: the start)
    recall: str  # k per round, see recall_for
    iterations: int
    seed: int
    values: np.ndarray
    strategies: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]
    seconds: dict[tuple[int, ...], float]
    palifico_values: np.ndarray | None = None
    ends: dict[tuple[int, ...], np.ndarray] = field(default_factory=dict)
    residual: float = 0.0

    FORMAT = 2  # 2: states sharing children are contiguous, probabilities in 1/63 (format 1: other order, 1/255)
    VARIANT_FORMAT = 3  # format 2 plus the variant rules, palifico rounds, the ends and the residual
    SIXES_FORMAT = 4  # the sixes game (its bid mode saved; a hand's row is its matching count), variants as format 3

    def __post_init__(self) -> None:
        if self.palifico_values is None:
            self.palifico_values = np.zeros_like(self.values)

    @property
    def max_dice(self) -> int:
        return int(self.config.starting_dice[0])

    def covers(self, dice: tuple[int, int], palifico: bool = False) -> bool:
        return round_key(dice, palifico) in self.strategies

    def round(self, dice: tuple[int, int], palifico: bool = False) -> AbstractRound:
        """The abstraction the round with ``dice`` = (opener's, responder's) was solved on."""
        pair, palifico = (int(dice[0]), int(dice[1])), bool(palifico)
        rules = self._round_rules.get(palifico)
        if rules is None:  # built once: a player asks for a round at every decision
            rules = self._round_rules[palifico] = self.config.round_rules(palifico)
        return abstract_round(rules, pair, recall_for(self.recall, pair))

    @cached_property
    def _round_rules(self) -> dict[bool, GameConfig]:
        return {}

    def value(self, dice: tuple[int, int], palifico: bool = False) -> float:
        """The round's game value to its opener (``values``, ``palifico_values``)."""
        return float(self._values(palifico)[dice[0], dice[1]])

    def set_value(self, key: tuple[int, ...], value: float) -> None:
        """Store the game value of the round ``key`` (``round_key``)."""
        (a, b), palifico = key_round(key)
        self._values(palifico)[a, b] = value

    def _values(self, palifico: bool) -> np.ndarray:
        assert self.palifico_values is not None  # __post_init__ fills it
        return self.palifico_values if palifico else self.values

    def probabilities(self, dice: tuple[int, int], role: int, state: int, rows: np.ndarray,
                      palifico: bool = False) -> np.ndarray:
        """(len(rows), actions of ``state``) probabilities of ``role``'s hand ``rows`` at abstract ``state``.

        Args:
            dice: the round's dice, (opener's, responder's).
            role: 0 for the opener, 1 for the responder.
            state: the abstract state's number in the round (``round(dice, palifico)``).
            rows: the role's hands, as rows of the round's ``hands[role]``.
            palifico: whether it is a palifico round.

        Returns:
            The solved average strategy's rows, normalised (uniform where a row's quantized entries are all 0).
        """
        r = self.round(dice, palifico)
        e = r.edge_start[state]
        columns = np.arange(e, e + r.num_actions(state))
        return stored_rows(self.strategies[round_key(dice, palifico)][role][np.asarray(rows)[:, None], columns])

    def arrays(self) -> dict[str, np.ndarray]:
        cfg = self.config
        variants = bool(cfg.variants)
        form = self.SIXES_FORMAT if cfg.bids != "full" else self.VARIANT_FORMAT if variants else self.FORMAT
        out = {"format": np.array(form), "faces": np.array(cfg.faces),
               "wild": np.array(-1 if cfg.wild is None else cfg.wild), "opener": np.array(cfg.opener),
               "max_dice": np.array(self.max_dice), "recall": np.array(self.recall),
               "iterations": np.array(self.iterations),
               "seed": np.array(self.seed),
               "values": self.values}
        if cfg.bids != "full":
            out["bids"] = np.array(cfg.bids)
        if variants:
            out.update({name: np.array(getattr(cfg, name)) for name in _VARIANT_FIELDS})
            out.update(palifico_values=self._values(True), residual=np.array(self.residual))
        for key, pair in self.strategies.items():
            name = round_name(key)
            out[f"round_{name}_opener"], out[f"round_{name}_responder"] = (
                p if p.dtype == np.uint8 else quantize(p) for p in pair)
            out[f"seconds_{name}"] = np.array(self.seconds[key])
            if key in self.ends:
                out[f"ends_{name}"] = self.ends[key]
        return out

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> GameTable:
        if "players" in data:
            raise ValueError(f"it is a blueprint for {int(data['players'])} players; two players play a table from "
                             f"`ldpomdp solve equilibrium`")
        if int(data["format"]) not in (cls.FORMAT, cls.VARIANT_FORMAT, cls.SIXES_FORMAT):
            raise ValueError(f"equilibrium table format {int(data['format'])}, expected {cls.FORMAT}, "
                             f"{cls.VARIANT_FORMAT} or {cls.SIXES_FORMAT}")
        wild = int(data["wild"])
        dice = int(data["max_dice"])
        variants = {name: data[name].item() for name in _VARIANT_FIELDS if name in data}
        rules = {k: v if isinstance(v, bool) else str(v) for k, v in variants.items()}
        config = GameConfig(num_players=2, dice=dice, faces=int(data["faces"]), wild=None if wild < 0 else wild,
                            bids=file_bids(data, cls.SIXES_FORMAT), opener=str(data["opener"]), **rules)  # type: ignore
        strategies, seconds, ends = {}, {}, {}
        for name in data:
            if name.startswith("round_") and name.endswith("_opener"):
                label = name[len("round_"):-len("_opener")]
                parts = label.split("_")
                key = round_key((int(parts[0]), int(parts[1])), parts[2:] == ["palifico"])
                strategies[key] = (data[name], data[f"round_{label}_responder"])
                seconds[key] = float(data[f"seconds_{label}"])
                if f"ends_{label}" in data:
                    ends[key] = np.array(data[f"ends_{label}"])
        palifico_values = np.array(data["palifico_values"]) if "palifico_values" in data else None
        return cls(config, str(data["recall"]), int(data["iterations"]), int(data["seed"]), np.array(data["values"]),
                   strategies, seconds, palifico_values, ends, float(data["residual"]) if "residual" in data else 0.0)

    def save(self, path: str | Path) -> Path:
        """Write the table atomically (compressed .npz)."""
        return write_npz(path, self.arrays())

    @classmethod
    def load(cls, path: str | Path) -> GameTable:
        """The table in the file at ``path``; TableError naming the file when it cannot be read."""
        return load_npz(path, "equilibrium table", cls.from_arrays)


# the rules a format-3 table stores beyond format 2 (raise_order since 2026-12: a file without it has the plain order)
_VARIANT_FIELDS = ("wild_bids", "exact_call", "palifico", "loss", "raise_order")


def file_bids(data: Mapping[str, np.ndarray], sixes_format: int) -> str:
    """A table file's bid mode: ``"full"`` in formats before ``sixes_format``, whose files name theirs (KeyError,
    which the readers report as a missing array, if not)."""
    return str(data["bids"]) if int(data["format"]) == sixes_format else "full"
