"""Named sweeps (``Experiment``): the experiments of report 002, section V (``ldpomdp sweep --experiment
NAME``).

All use report 002's sixes game (every bid on sixes, ones wild, the player after the challenger opens)
against the one-third rule ("MDP"); report 002's "POMDP" is our ``expected-count`` planner. The report
sums wins over dice counts; we give a win rate with a 95% interval per dice count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import UsageError
from ..registry import parse_spec
from .cell import Cell

__all__ = ["Experiment", "EXPERIMENTS", "get_experiment", "POMDP", "MDP"]


@dataclass(frozen=True)
class Experiment:
    """A named sweep (``name``, as ``ldpomdp sweep --experiment`` takes it): how to build its cells, how many games,
    and how to plot it.

    ``build(quick)`` returns the cells; ``games`` and ``quick_games`` (with ``--quick``) are games per cell, integers
    >= 1; ``title``, ``x_label``, ``x_of`` (a cell's x value, default its dice) and ``roles`` (legend names per player
    index, default the first cell's specs) shape the plot and the report; ``reference``: report 002's finding (text).
    """

    name: str
    title: str
    build: Callable[[bool], list[Cell]]
    games: int
    quick_games: int
    x_label: str = "dice per player"
    x_of: Callable[[Cell], float] = field(default=lambda cell: cell.dice)
    roles: tuple[str, ...] = ()
    reference: str = ""

    def cells(self, quick: bool = False) -> list[Cell]:
        return self.build(quick)


BIDS = "sixes"  # report 002's game: every bid on sixes (ones wild, the player after the challenger opens: the defaults)
POMDP = "expected-count:particles=10000"  # report 002's particle count
MDP = "one-third"
POMCP = "pomcp"  # the default spec: in these sixes games, exact round values and a search that stops once settled
ALL_DICE = list(range(1, 36))
QUICK_DICE = [1, 2, 3, 5, 7, 10, 15, 20, 25, 30, 35]
BLUFFS = [round(0.1 * i, 1) for i in range(11)]
QUICK_SOLVED_DICE = [1, 2, 3, 5, 7, 10]


def _dice_sweep(players: list[str], quick_dice: list[int] = QUICK_DICE, full_dice: list[int] = ALL_DICE):
    return lambda quick: [Cell.of(players, d, bids=BIDS) for d in (quick_dice if quick else full_dice)]


def _solved_sweep(players: list[str]):
    """The dice sweep over every size the sixes game's blueprints are solved for on first use (quick: six of them)."""
    def build(quick: bool) -> list[Cell]:
        from ..exact.tables import SIXES_ON_DEMAND_DICE  # the solvers load when cells are built, not at import

        return _dice_sweep(players, QUICK_SOLVED_DICE, list(range(1, SIXES_ON_DEMAND_DICE + 1)))(quick)

    return build


def _bluff_sweep(planner: str, dice: int, quick_bluffs: list[float] = BLUFFS):
    return lambda quick: [Cell.of((planner, f"bluff:{b:g}"), dice, bids=BIDS)
                          for b in (quick_bluffs if quick else BLUFFS)]


def _bluff_of(cell: Cell) -> float:
    return float(parse_spec(cell.players[1]).kwargs["bluff"])


def _bluff_experiment(name: str, title: str, planner: str, dice: int, games: int, quick_games: int, role: str,
                      reference: str) -> Experiment:
    """A sweep of ``planner`` against the one-third rule over its bluff rates (quick: 0, 0.2, ..., 1)."""
    return Experiment(name, title, _bluff_sweep(planner, dice, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]), games, quick_games,
                      x_label="bluff probability of the one-third player", x_of=_bluff_of,
                      roles=(role, "bluffing one-third (MDP)"), reference=reference)


EXPERIMENTS: dict[str, Experiment] = {
    e.name: e
    for e in (
        Experiment(
            "fig2", "one-third vs one-third (report 002 Fig. 2)", _dice_sweep([MDP, MDP]), 1000, 200,
            roles=("one-third #1", "one-third #2"), reference="about 50% at every dice count"),
        Experiment(
            "fig4", "expected-count vs one-third (report 002 Fig. 4)", _dice_sweep([POMDP, MDP]), 1000, 100,
            roles=("expected-count (POMDP)", "one-third (MDP)"),
            reference="POMDP ~50% at 2-4 dice, >60% from 7 dice, ~80% at 35 dice"),
        Experiment(
            "fig6", "expected-count vs two one-third (report 002 Fig. 6)", _dice_sweep([POMDP, MDP, MDP]),
            1000, 60, roles=("expected-count (POMDP)", "one-third #1 (MDP1)", "one-third #2 (MDP2)"),
            reference="POMDP above 33% and rising with dice"),
        *(Experiment(
            f"fig6_{agent}", f"{agent} vs two one-third (report 002 Fig. 6 setting)",
            _solved_sweep([agent, MDP, MDP]), 1000, 60,
            roles=(f"{agent} ({what})", "one-third #1 (MDP1)", "one-third #2 (MDP2)"),
            reference="(no equilibrium in report 002; its expected-count POMDP: see fig6)")
          for agent, what in (("cfr", "blueprint"), ("robust", "blueprint + exploitation"))),
        Experiment(
            "fig7_8", "3 players, 35 dice (report 002 Figs. 7-8)",
            lambda quick: [Cell.of((POMDP, MDP, MDP), 35, bids=BIDS)],
            1000, 100, roles=("expected-count (POMDP)", "one-third #1 (MDP1)", "one-third #2 (MDP2)"),
            reference="wins POMDP 52.7%, MDP1 22.9%, MDP2 24.4%; MDP1 challenged most"),
        _bluff_experiment("fig10", "expected-count vs bluffing one-third, 15 dice (report 002 Fig. 10)", POMDP, 15,
                          1000, 100, "expected-count (POMDP)",
                          "POMDP falls as bluff rises but stays above 50% (average ~55%)"),
        _bluff_experiment("fig11", "expected-count with 10% injection vs bluffing one-third, 15 dice (report 002 "
                          "Fig. 11)", POMDP + ",injection=0.1", 15, 1000, 100, "expected-count, 10% injection",
                          "POMDP rises with bluff, average ~50%"),
        Experiment(
            "pomcp_fig4", "POMCP vs one-third (Fig. 4 setting)",
            _dice_sweep([POMCP, MDP], [1, 3, 5, 7, 10], [1, 3, 5, 7, 10, 15, 20, 25, 30, 35]), 200, 30,
            roles=("POMCP", "one-third (MDP)"),
            reference="(no POMCP in report 002; its expected-count POMDP: see fig4)"),
        _bluff_experiment("pomcp_fig10", "POMCP vs bluffing one-third (Fig. 10 setting at 5 dice)", POMCP, 5, 200, 30,
                          "POMCP",
                          "(no POMCP in report 002; its expected-count POMDP at 15 dice: see fig10)"),
    )
}


def get_experiment(name: str) -> Experiment:
    """The named experiment, or a ValueError listing the names."""
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise UsageError(f"unknown experiment {name!r}; known: {', '.join(EXPERIMENTS)}") from None
