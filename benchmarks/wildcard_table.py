"""Report 004's Table 2 (WiLDCARD, 1-vs-2): full game, ones wild, 5 dice, 3 players. Each player spec
plays against all six pairs of dummies (Random, Aggressive, Conservative), 1000 games per cell, seats
rotated so that every player opens equally often; win rates with 95% Wilson intervals, printed beside the
report's rows. Against two different dummies half the games seat them in each order (X, a, b) and
(X, b, a): rotation alone keeps the cyclic order, and who bids after whom matters a lot to these dummies.

    python benchmarks/wildcard_table.py [--quick] [--players aggressive,conservative,random,one-third,...]
"""

from __future__ import annotations

import argparse
import csv
import math
from dataclasses import dataclass
from pathlib import Path

from ldpomdp.registry import registered_names, split_specs
from ldpomdp.sweeps import Cell, SummaryRow, run_sweep, wilson_interval

PAIRS = (("random", "aggressive"), ("aggressive", "conservative"), ("conservative", "random"),
         ("random", "random"), ("aggressive", "aggressive"), ("conservative", "conservative"))
COLUMNS = tuple("vs{" + ",".join(p[0].upper() for p in pair) + "}" for pair in PAIRS)
REPORT = {  # report 004, Table 2 (win %, 1000 games per cell)
    "Aggressive [B]": (70.2, 4.2, 14.9, 83.3, 34.2, 7.7),
    "Conservative [B]": (99.7, 39.1, 52.1, 99.8, 78.1, 33.5),
    "Agent 0 (random)": (15.1, 0.0, 0.2, 32.9, 3.2, 0.0),
    "QAgent 1": (98.4, 34.8, 43.3, 99.9, 63.8, 26.8),
    "QAgent 2": (99.1, 39.5, 45.4, 100.0, 72.6, 27.9),
    "Final QAgent": (99.8, 48.1, 52.5, 100.0, 85.8, 36.4),
}
REPORT_ROW_OF = {"aggressive": "Aggressive [B]", "conservative": "Conservative [B]", "random": "Agent 0 (random)"}
DUMMIES = ("aggressive", "conservative", "random")
PLANNERS = ("expected-count", "pomcp")


def default_players() -> list[str]:
    """The dummies, the one-third rule, and the planners that are registered."""
    return [*DUMMIES, "one-third", *(p for p in PLANNERS if p in registered_names())]


def cells_for(spec: str, pair: tuple[str, str]) -> list[Cell]:
    """The cells of one table entry: ``spec`` against the pair, in both cyclic orders if they differ."""
    orders = [pair] if pair[0] == pair[1] else [pair, pair[::-1]]
    return [Cell.of((spec, *order), dice=5, bids="full", wild=1) for order in orders]


@dataclass(frozen=True)
class Entry:
    """One table entry: the first player's wins over the cells of ``cells_for``."""

    wins: tuple[int, ...]  # per seating order
    games: tuple[int, ...]

    @property
    def win_rate(self) -> float:
        return sum(self.wins) / sum(self.games) if sum(self.games) else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(sum(self.wins), sum(self.games))


def collect(rows: list[SummaryRow], specs: list[str]) -> dict[str, list[Entry]]:
    """The table entries of each spec from the sweep summaries."""
    ours = {r.cell: r for r in rows if r.player_index == 0}
    return {spec: [Entry(tuple(ours[c.id].wins for c in cells_for(spec, pair)),
                         tuple(ours[c.id].games for c in cells_for(spec, pair))) for pair in PAIRS]
            for spec in specs}


def format_rows(results: dict[str, list[Entry]]) -> str:
    """Report 004's Table 2 layout: ours (win % and 95% interval) with the report's rows for reference."""
    width, name_width = 16, max(26, *(len(spec) + 1 for spec in results))
    head = f"{'agent':{name_width}}" + "".join(f"{c:>{width}}" for c in COLUMNS)
    lines = [head, "-" * len(head)]
    for spec, entries in results.items():
        cells = [f"{100 * e.win_rate:5.1f} [{100 * e.interval[0]:.0f}-{100 * e.interval[1]:.0f}]" for e in entries]
        lines.append(f"{spec:{name_width}}" + "".join(f"{c:>{width}}" for c in cells))
        if spec in REPORT_ROW_OF:
            name = REPORT_ROW_OF[spec]
            lines.append(f"{'  report: ' + name:{name_width}}" + "".join(f"{v:>{width}.1f}" for v in REPORT[name]))
    lines.append("-" * len(head))
    for name in ("QAgent 1", "QAgent 2", "Final QAgent"):
        lines.append(f"{'report: ' + name:{name_width}}" + "".join(f"{v:>{width}.1f}" for v in REPORT[name]))
    return "\n".join(lines)


def target_lines(results: dict[str, list[Entry]]) -> list[str]:
    """For every non-dummy row: the columns where it matches or beats the report's Final QAgent."""
    final = REPORT["Final QAgent"]
    out = []
    for spec, entries in results.items():
        if spec in DUMMIES:
            continue
        level = sum(100 * e.win_rate >= f for e, f in zip(entries, final, strict=True))
        above = sum(100 * e.win_rate > f for e, f in zip(entries, final, strict=True))
        sure = sum(100 * e.interval[0] > f for e, f in zip(entries, final, strict=True))
        out.append(f"{spec}: >= Final QAgent in {level}/6 columns, strictly above in {above}/6, 95% interval "
                   f"entirely above in {sure}/6 (not possible where the report has 100%)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default=None,
                        help="comma-separated player specs, one row each (default: the dummies, one-third and "
                             "the registered planners)")
    parser.add_argument("--games", type=int, default=None, help="games per cell (default 1000; --quick 90)")
    parser.add_argument("--quick", action="store_true", help="90 games per cell")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/wildcard_table")
    args = parser.parse_args()
    specs = split_specs(args.players) if args.players else default_players()
    games = args.games or (90 if args.quick else 1000)
    half = math.ceil(games / 2)
    out = Path(args.out)
    both_orders = [c for spec in specs for pair in PAIRS if pair[0] != pair[1] for c in cells_for(spec, pair)]
    one_order = [c for spec in specs for pair in PAIRS if pair[0] == pair[1] for c in cells_for(spec, pair)]
    rows = run_sweep(both_orders, half, out / "mixed_pairs", args.seed, workers=args.workers)
    rows += run_sweep(one_order, games, out / "same_pairs", args.seed, workers=args.workers)
    results = collect(rows, specs)
    with open(out / "table.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["player", "opponents", "games", "wins", "wins_per_order", "win_rate", "ci_low", "ci_high",
                         "report_row", "report_win_rate", "final_qagent_win_rate"])
        for spec, entries in results.items():
            for j, e in enumerate(entries):
                name = REPORT_ROW_OF.get(spec, "")
                writer.writerow([spec, "+".join(PAIRS[j]), sum(e.games), sum(e.wins), "/".join(map(str, e.wins)),
                                 round(e.win_rate, 4), round(e.interval[0], 4), round(e.interval[1], 4), name,
                                 REPORT[name][j] / 100 if name else "", REPORT["Final QAgent"][j] / 100])
    print(f"\nWiLDCARD Table 2 setting: 3 players, 5 dice, ones wild, full bids; {games} games per entry "
          f"({half} per seating order against two different dummies); "
          f"win % [95% Wilson interval]")
    print(format_rows(results))
    for line in target_lines(results):
        print(line)
    print(f"wrote {out / 'table.csv'} (games and per-player summaries in {out}/*_pairs/)")
    if any(math.isnan(e.win_rate) for entries in results.values() for e in entries):
        raise SystemExit("some cells have no games")


if __name__ == "__main__":
    main()
