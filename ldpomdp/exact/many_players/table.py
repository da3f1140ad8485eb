"""The blueprint table of 3-6 players (``BlueprintTable``): solved rounds, win probabilities, its format.

Keyed by the round's dice in turn order from the opener and whether it is a palifico round (``round_label`` names it in
a file); with two seats left it plays the two-player table it holds. Solved by ``solve_blueprint``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...caches import memo
from ...datafiles import load_npz, write_npz
from ...round_end import seats_in_turn
from ...rules import VARIANT_DEFAULTS, GameConfig
from ...validation import one_of
from ..two_player.table import GameTable, file_bids, stored_rows
from .round import NRound, n_round
from .states import RoundKey, SeatsState, round_rules

__all__ = ["BlueprintTable", "round_label", "CONTINUATIONS"]

CONTINUATIONS = ("chain", "fair")  # what a round's ends are worth to a blueprint (blueprint_continuation)


@memo(maxsize=256)
def _round(config: GameConfig, dice: tuple[int, ...], k: int) -> NRound:
    return n_round(config, dice, k)


@dataclass
class BlueprintTable:
    """Solved rounds of the ``config.num_players``-player game: their strategies, values and end probabilities.

    Keyed by (dice in turn order from the opener, every seat with dice; whether it is a palifico round):
    ``strategies[key]`` per seat (counted from the round's opener) its average strategy as uint8 (see ``quantize``),
    ``values[key]`` each seat's probability of winning the game from that round in its usual state (``usual_state``;
    under fair ends its ends' expected worth), ``ends[key]`` the probability of each way it ends (``seat_slots``).
    ``two`` plays the rounds with two seats left. ``k``, ``iterations``, ``samples``, ``seed``, ``sweeps`` (done),
    ``residual`` and ``continuation`` (what the ends are worth: ``blueprint_continuation``): how it was solved."""

    config: GameConfig
    two: GameTable
    k: int
    iterations: int
    samples: int
    seed: int
    strategies: dict[RoundKey, tuple[np.ndarray, ...]] = field(default_factory=dict)
    values: dict[RoundKey, np.ndarray] = field(default_factory=dict)
    ends: dict[RoundKey, np.ndarray] = field(default_factory=dict)
    seconds: dict[RoundKey, float] = field(default_factory=dict)
    sweeps: int = 1
    residual: float = 0.0
    continuation: str = "chain"
    _rounds: dict[RoundKey, NRound] = field(default_factory=dict, repr=False, compare=False)

    FORMAT = 1  # files of today's rules; those of other rules are VARIANTS_FORMAT, which readers of 1 refuse
    VARIANTS_FORMAT = 2  # the rules' variant fields saved (wild_bids, loss)
    CHAIN_FORMAT = 3  # the exact call or palifico: palifico rounds and the sweeps, which readers of 2 refuse
    SIXES_FORMAT = 4  # the sixes game: its bid mode saved (a hand's row is its matching count), as format 3 otherwise

    @property
    def max_dice(self) -> int:
        return int(self.config.starting_dice[0])

    def round(self, dice: tuple[int, ...], palifico: bool = False) -> NRound:
        """The abstraction the round with ``dice`` (turn order from the opener) was solved on."""
        key = (tuple(int(d) for d in dice), bool(palifico))
        r = self._rounds.get(key)
        if r is None:
            r = self._rounds[key] = _round(round_rules(self.config, len(dice), palifico), key[0], self.k)
        return r

    def probabilities(self, dice: tuple[int, ...], seat: int, state: int, rows: np.ndarray, palifico: bool = False
                      ) -> np.ndarray:
        """(len(rows), actions of ``state``) probabilities of ``seat``'s hand ``rows`` at information set ``state``.

        Args:
            dice: the round's dice per seat, in turn order from the opener.
            seat: the seat acting, counted from the round's opener (in place of a two-player round's role).
            state: the information set's index in the round (``round(dice, palifico).keys``).
            rows: the seat's hands, as rows of the round's hands (``round(dice, palifico).hand_rows(seat, hands)``).
            palifico: whether it is a palifico round.

        Returns:
            As ``GameTable.probabilities``: the stored rows, normalised by ``stored_rows``.
        """
        r = self.round(dice, palifico)
        e = r.edge_start[state]
        strategy = self.strategies[(r.dice, bool(palifico))][seat]
        return stored_rows(strategy[np.asarray(rows)[:, None], np.arange(e, e + r.widths[state])])

    def win_probabilities(self, dice: tuple[int, ...], palifico: bool = False) -> np.ndarray:
        """Each seat's probability of winning from a round with ``dice`` (in turn order from the opener).

        From the round in its usual state (two seats: from the two-player table; one: the game is won; under fair ends:
        ``values``)."""
        if len(dice) == 1:
            return np.ones(1)
        if len(dice) == 2:
            v = self.two.value((int(dice[0]), int(dice[1])), palifico)
            return np.array([(1.0 + v) / 2.0, (1.0 - v) / 2.0])
        return self.values[(tuple(int(d) for d in dice), bool(palifico))]

    def seat_win_probabilities(self, dice: tuple[int, ...], opener: int, palifico: bool = False) -> np.ndarray:
        """Each seat's probability of winning from a round with ``dice`` (by seat) opened by ``opener``; 0 for the
        seats out of dice."""
        order = seats_in_turn(dice, opener)
        out = np.zeros(len(dice))
        out[order] = self.win_probabilities(tuple(int(dice[s]) for s in order), palifico)
        return out

    def state_win_probabilities(self, state: SeatsState) -> np.ndarray:
        """``win_probabilities`` of ``state``'s round (the state's own palifico history aside)."""
        return self.win_probabilities(state.dice, state.palifico)

    def arrays(self, rounds: Iterable[RoundKey] | None = None) -> dict[str, np.ndarray]:
        """The table's arrays as saved: its settings and the rounds ``rounds`` (default: every one solved)."""
        cfg = self.config
        chained = cfg.exact_call or cfg.palifico
        form = (self.SIXES_FORMAT if cfg.bids != "full" else self.CHAIN_FORMAT if chained else
                self.VARIANTS_FORMAT if cfg.variants else self.FORMAT)
        out = {"format": np.array(form), "players": np.array(cfg.num_players), "faces": np.array(cfg.faces),
               "wild": np.array(-1 if cfg.wild is None else cfg.wild), "opener": np.array(cfg.opener),
               "max_dice": np.array(self.max_dice), "k": np.array(self.k), "iterations": np.array(self.iterations),
               "samples": np.array(self.samples), "seed": np.array(self.seed)}
        if cfg.bids != "full":
            out["bids"] = np.array(cfg.bids)
            out["continuation"] = np.array(self.continuation)
        if cfg.variants:
            out.update({name: np.array(value) for name, value in cfg.variants.items()})
            out.update(sweeps=np.array(self.sweeps), residual=np.array(self.residual))
        for key in self.strategies if rounds is None else rounds:
            name = round_label(key)
            for seat, strategy in enumerate(self.strategies[key]):  # stored (columns, hands): a fifth smaller
                out[f"round_{name}_seat{seat}"] = np.ascontiguousarray(strategy.T)
            out[f"values_{name}"] = self.values[key]
            out[f"seconds_{name}"] = np.array(self.seconds[key])
            if key in self.ends:  # not in the shipped file, solved before they were kept
                out[f"ends_{name}"] = self.ends[key]
        return out

    def settings(self) -> tuple[GameConfig, int, int, int, int, str]:
        """What the table was solved with: its config, k, iterations, samples, seed and continuation."""
        return self.config, self.k, self.iterations, self.samples, self.seed, self.continuation

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray], two: GameTable) -> BlueprintTable:
        if "players" not in data:
            raise ValueError("it is a two-player table; 3-6 players play a blueprint from `ldpomdp solve "
                             "equilibrium --players N`")
        known = (cls.FORMAT, cls.VARIANTS_FORMAT, cls.CHAIN_FORMAT, cls.SIXES_FORMAT)
        if int(data["format"]) not in known:
            raise ValueError(f"blueprint table format {int(data['format'])}, expected one of {known}")
        wild = int(data["wild"])
        variants = {name: data[name].item() for name in VARIANT_DEFAULTS if name in data}
        config = GameConfig(num_players=int(data["players"]), dice=int(data["max_dice"]), faces=int(data["faces"]),
                            wild=None if wild < 0 else wild, bids=file_bids(data, cls.SIXES_FORMAT),
                            opener=str(data["opener"]), **variants)
        table = cls(config, two, int(data["k"]), int(data["iterations"]), int(data["samples"]), int(data["seed"]),
                    sweeps=int(data.get("sweeps", 1)), residual=float(data.get("residual", 0.0)),
                    continuation=one_of("blueprint table", "continuation", str(data.get("continuation", "chain")),
                                        CONTINUATIONS))  # the sixes game's files of 6346334 chained
        for name in data:
            if name.startswith("values_"):
                label = name[len("values_"):]
                key = _key(label)
                table.strategies[key] = tuple(np.asarray(data[f"round_{label}_seat{s}"]).T for s in range(len(key[0])))
                table.values[key] = np.asarray(data[name], dtype=np.float64)
                table.seconds[key] = float(data[f"seconds_{label}"])
                if f"ends_{label}" in data:
                    table.ends[key] = np.asarray(data[f"ends_{label}"], dtype=np.float64)
        return table

    def save(self, path: str | Path) -> Path:
        """Write the table atomically (compressed .npz)."""
        return write_npz(path, self.arrays())

    @classmethod
    def load(cls, path: str | Path, two: GameTable) -> BlueprintTable:
        """The table in the file at ``path`` (``two``: the two-player table of its rules); TableError naming the
        file when it cannot be read."""
        return load_npz(path, "blueprint table", lambda data: cls.from_arrays(data, two))


def round_label(key: RoundKey) -> str:
    """A round's name in a table's arrays and in its file beside a checkpoint: the dice joined by ``_``, then
    ``_palifico`` for a palifico round."""
    return "_".join(map(str, key[0])) + ("_palifico" if key[1] else "")


def _key(label: str) -> RoundKey:
    """The round a ``round_label`` names."""
    dice, _, palifico = label.partition("_palifico")
    return tuple(int(d) for d in dice.split("_")), label.endswith("_palifico")
