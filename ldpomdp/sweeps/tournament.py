"""A tournament: many agents against each other on top of a sweep (the same workers, seeds and resumable
``games.jsonl``), then a cross table and ratings.

Two players: one cell per pair, its seats alternating game by game; more: groups drawn from the agents (all
combinations when they are at most ``groups``, else a sample drawn from the run's seed), seats rotated. This module
owns the files it writes (``tournament.json``, ``cross_table.csv``, ``ratings.csv``; ``ratings.png`` through
``.plots``): their columns, their writer (``write_outputs``) and their reader (``read_outputs``, which the
web app's results page uses); docs/tournaments.md documents them.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..datafiles import write_atomic
from ..errors import UsageError, echo, install_hint
from ..moved import moved_attribute
from ..registry import canonical_spec
from ..rules import GameConfig, dice_text
from .cell import Cell
from .csv_format import INTEGER, NUMBER, columns_of, read_csv, write_csv
from .ratings import Outcome, Rating, rate
from .runner import run_sweep
from .statistics import SUMMARY_FILE, wilson_interval

__all__ = ["Tournament", "CrossRow", "Standings", "run_tournament", "standings", "cross_table", "outcomes",
           "write_outputs", "read_outputs", "TournamentFiles", "format_standings", "TOURNAMENT_FILE",
           "CROSS_TABLE_FILE", "RATINGS_FILE", "RATINGS_PLOT", "CROSS_COLUMNS", "RATING_COLUMNS", "GROUPS",
           "check_folder_kind"]

TOURNAMENT_FILE, CROSS_TABLE_FILE, RATINGS_FILE, RATINGS_PLOT = (
    "tournament.json", "cross_table.csv", "ratings.csv", "ratings.png")
GROUPS = 50  # groups of 3+ players: at most this many, drawn from the agents' combinations, unless told
_LINEUP_DRAW = int.from_bytes(b"tables", "little")  # keys the generator of the line-ups' draw, beside the run's seed


@dataclass(frozen=True)
class Tournament:
    """A tournament: ``agents`` in groups of ``config.num_players`` under ``config``, ``games`` per group.

    ``agents`` are player specs, kept in their canonical text; every player starts with the same dice; the games are
    seeded by ``seed``; ``groups`` caps the groups of 3+ players. A UsageError names a bad argument; the specs
    themselves are checked by the sweep before any game."""

    agents: tuple[str, ...]
    config: GameConfig
    games: int
    seed: int = 0
    groups: int = GROUPS
    _cells: list[Cell] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        agents = tuple(canonical_spec(str(a)) for a in self.agents)
        object.__setattr__(self, "agents", agents)
        if len(agents) < 2:
            raise UsageError(f"a tournament needs at least two agents, got {len(agents)}: give --players A,B[,...]")
        twice = [a for a in dict.fromkeys(agents) if agents.count(a) > 1]
        if twice:
            raise UsageError(f"agent {twice[0]!r} is listed twice (specs are compared in their canonical text)")
        n = self.config.num_players
        if n > len(agents):
            raise UsageError(f"groups of {n} players need at least {n} agents, got {len(agents)}")
        if isinstance(self.groups, bool) or not isinstance(self.groups, int) or self.groups < 1:
            raise UsageError(f"groups must be an integer >= 1, got {self.groups!r}")
        if len(set(self.config.starting_dice)) != 1:
            raise UsageError(f"every player must start with the same dice, got {self.config.starting_dice}")
        object.__setattr__(self, "_cells", [Cell(lineup, self.config) for lineup in self._lineups()])
        seated = {agent for cell in self._cells for agent in cell.players}
        left = [agent for agent in agents if agent not in seated]
        if left:
            raise UsageError(f"the {self.groups} groups drawn leave {', '.join(map(repr, left))} without a seat: give "
                             f"more --groups")

    @property
    def players(self) -> int:
        """Players in each game."""
        return self.config.num_players

    @property
    def cells(self) -> list[Cell]:
        """One sweep cell per group, its players in sorted order (so the listing order of the agents changes no
        cell, and a tournament with one more agent plays only the new groups)."""
        return list(self._cells)

    def _lineups(self) -> list[tuple[str, ...]]:
        """The agents of each group: every combination, or ``groups`` of them drawn from the run's seed."""
        every = sorted(self.agents)
        if math.comb(len(every), self.players) <= self.groups:
            return list(itertools.combinations(every, self.players))
        rng = np.random.default_rng([self.seed, _LINEUP_DRAW])
        drawn: dict[tuple[str, ...], None] = {}  # in the order drawn: a larger cap keeps the smaller's groups
        while len(drawn) < self.groups:
            drawn.setdefault(tuple(every[i] for i in sorted(rng.choice(len(every), self.players, replace=False))))
        return list(drawn)

    def describe(self) -> dict:
        """``tournament.json``: the agents, players per game, dice, rules, games per group, seed and the groups
        (its keys ``games_per_table`` and ``tables``: the file's names since 0.1)."""
        rules = {name: getattr(self.config, name) for name in ("bids", "faces", "wild", "opener", "wild_bids",
                                                               "exact_call", "palifico", "loss", "raise_order")}
        return {"agents": list(self.agents), "players": self.players, "dice": self.config.starting_dice[0],
                "rules": rules, "rules_text": self.config.describe(), "games_per_table": self.games,
                "seed": self.seed, "tables": [list(cell.players) for cell in self._cells]}


@dataclass(frozen=True)
class CrossRow:
    """How ``row`` did against ``column`` over the games where both sat and their order is known: ``wins`` of
    ``games`` finished ahead, the rate and its 95% Wilson interval (NaN rate when they never met)."""

    row_agent: str
    column_agent: str
    games: int
    wins: int
    win_rate: float
    low: float
    high: float


CROSS_COLUMNS = columns_of(CrossRow)  # cross_table.csv's columns and their kinds
RATING_COLUMNS = {"rank": INTEGER, "agent": str, "rating": NUMBER, "low": NUMBER, "high": NUMBER, "games": INTEGER,
                  "method": str}  # ratings.csv's


@dataclass(frozen=True)
class Standings:
    """A tournament's results: ratings best first, the rating ``method``, and the cross table."""

    ratings: list[Rating]
    method: str
    cross: list[CrossRow]

    def share(self, agent: str) -> float:
        """The share of ``agent``'s head-to-head comparisons (its cross table row, all columns) that it won."""
        mine = [r for r in self.cross if r.row_agent == agent]
        games = sum(r.games for r in mine)
        return sum(r.wins for r in mine) / games if games else math.nan


def outcomes(cells: Sequence[Cell], games: int, records: dict[tuple[str, int], dict]) -> list[tuple[list, list]]:
    """Each stored game ``0 .. games-1`` of ``cells`` as (specs from first place on, the rest behind them).

    The whole order comes from a record's ``finish``; from a record written before it, the winner alone."""
    found = []
    for cell in cells:
        for g in range(games):
            record = records.get((cell.id, g))
            if record is None:
                continue
            seats = record["seats"]
            order = record.get("finish", [record["winner"]])
            placed = [cell.players[seats[s]] for s in order]
            found.append((placed, [cell.players[seats[s]] for s in range(len(seats)) if s not in order]))
    return found


def cross_table(agents: Sequence[str], played: Sequence[tuple[list, list]]) -> list[CrossRow]:
    """The cross table: per ordered pair of ``agents``, their games together and how often the first led.

    The games are those of ``played`` (as ``outcomes`` gives them) where both sat and their order is known (both
    placed, or one placed and the other behind); a row counts how often the row agent was ahead."""
    ahead: dict[tuple[str, str], int] = {}
    met: dict[tuple[str, str], int] = {}
    for placed, rest in played:
        for i, a in enumerate(placed):
            for b in [*placed[i + 1:], *rest]:
                ahead[a, b] = ahead.get((a, b), 0) + 1
                met[a, b] = met[b, a] = met.get((a, b), 0) + 1
    rows = []
    for a, b in itertools.permutations(agents, 2):
        n, wins = met.get((a, b), 0), ahead.get((a, b), 0)
        low, high = wilson_interval(wins, n) if n else (math.nan, math.nan)
        rows.append(CrossRow(a, b, n, wins, wins / n if n else math.nan, low, high))
    return rows


def standings(tournament: Tournament, records: dict[tuple[str, int], dict]) -> Standings:
    """The cross table and ratings of ``tournament``'s stored games (games ``0 .. games-1`` of its groups)."""
    played = outcomes(tournament.cells, tournament.games, records)
    index = {agent: i for i, agent in enumerate(tournament.agents)}
    coded: list[Outcome] = [([index[a] for a in placed], [index[a] for a in rest]) for placed, rest in played]
    method = "bradley-terry" if tournament.players == 2 else "plackett-luce"
    return Standings(rate(tournament.agents, coded), method, cross_table(tournament.agents, played))


def write_outputs(tournament: Tournament, result: Standings, out: Path, plot: bool = True) -> Path | None:
    """Write ``tournament.json``, ``cross_table.csv``, ``ratings.csv`` and (with ``plot``, where matplotlib is
    installed) ``ratings.png`` into ``out``, each atomically; returns the plot's path, or None."""
    write_atomic(out / TOURNAMENT_FILE, (json.dumps(tournament.describe(), indent=1) + "\n").encode("utf-8"))
    write_csv(out / CROSS_TABLE_FILE, list(CROSS_COLUMNS),
              [[getattr(r, c) for c in CROSS_COLUMNS] for r in result.cross], newline="\n")
    write_csv(out / RATINGS_FILE, list(RATING_COLUMNS),
              [[rank, r.agent, r.rating, r.low, r.high, r.games, result.method]
               for rank, r in enumerate(result.ratings, start=1)], newline="\n")
    if not plot or importlib.util.find_spec("matplotlib") is None:
        return None
    from .plots import plot_ratings  # slow to import

    title = (f"{result.method.title()} ratings: {tournament.players} players a game, "
             f"{dice_text(tournament.config.dice[0])} each, {tournament.games} games a group; "
             f"{tournament.config.describe()}")
    return plot_ratings(result.ratings, out / RATINGS_PLOT, title)


@dataclass(frozen=True)
class TournamentFiles:
    """A tournament's files as read back, with a line for each problem found.

    ``info`` (``tournament.json``, {} when it does not read), the rows of ``cross`` (``cross_table.csv``) and
    ``ratings`` (``ratings.csv``, in file order: by rank) as dicts of their columns, and a line for each ``problem``
    found (a row that does not read is left out)."""

    info: dict
    cross: list[dict]
    ratings: list[dict]
    problems: list[str]


def read_outputs(out: Path) -> TournamentFiles:
    """The files ``write_outputs`` wrote into ``out``, read back without raising: what does not read is named in
    ``problems``."""
    out, problems = Path(out), []
    try:
        info = json.loads((out / TOURNAMENT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # missing, not UTF-8 (a ValueError too) or not JSON
        problems.append(f"{TOURNAMENT_FILE}: cannot be read ({exc})")
        info = {}
    if not isinstance(info, dict):
        problems.append(f"{TOURNAMENT_FILE}: cannot be read (not a JSON object)")
        info = {}
    cross, found = read_csv(out / CROSS_TABLE_FILE, CROSS_COLUMNS, tuple(CROSS_COLUMNS))
    ratings, more = read_csv(out / RATINGS_FILE, RATING_COLUMNS, tuple(RATING_COLUMNS))
    return TournamentFiles(info, cross, ratings, problems + found + more)


def run_tournament(tournament: Tournament, out: str | Path, *, plot: bool = True,
                   log: Callable[[str], None] | None = print, **run_options) -> Standings:
    """Play ``tournament``'s groups into ``out``, write its files, log the standings and return them.

    The groups are played with ``run_sweep`` (resuming what ``out`` holds; ``run_options`` are run_sweep's: workers,
    scheduler, executor, progress), then its files are written from all its stored games, inside the folder's lock."""
    out = Path(out)
    found: list[Standings] = []

    def finish(records: dict[tuple[str, int], dict]) -> None:
        found.append(standings(tournament, records))
        written = write_outputs(tournament, found[0], out, plot)
        if not log:
            return
        log(format_standings(found[0]))
        log(f"wrote {out}: {TOURNAMENT_FILE}, {CROSS_TABLE_FILE}, {RATINGS_FILE}" + (f", {RATINGS_PLOT}" if written
                                                                                     else ""))
        if plot and written is None:
            log(f"{RATINGS_PLOT} needs matplotlib: {install_hint('plot')}")
        if tournament.games % tournament.players:
            log(f"note: {tournament.games} games a group is not a multiple of {tournament.players}: the agents did "
                f"not take every seat equally often")

    check_folder_kind(out, "tournament")
    run_sweep(tournament.cells, tournament.games, out, tournament.seed, log=log, exact=False, then=finish,
              **run_options)
    return found[0]


def check_folder_kind(out: Path, kind: str) -> None:
    """Refuse a run of ``kind`` ("sweep" or "tournament") into a folder holding the other kind's results.

    ``ldpomdp sweep``, ``run_experiment`` and ``run_tournament`` check their folder so, before anything is made.
    A folder holds a tournament when it has a ``tournament.json``, a sweep when it has a ``summary.csv`` without one;
    a first run stopped before its summary is neither, and either kind may go on there."""
    holds = ("tournament" if (out / TOURNAMENT_FILE).is_file() else "sweep" if (out / SUMMARY_FILE).is_file()
             else None)
    if holds is not None and holds != kind:
        files = TOURNAMENT_FILE if holds == "tournament" else f"{SUMMARY_FILE} without a {TOURNAMENT_FILE}"
        raise UsageError(f"{echo(str(out))} holds a {holds}'s results ({files}): a {kind} there would mix its files "
                         f"with them; give the {kind} another --out")


def format_standings(result: Standings) -> str:
    """The ratings as a plain-text table, each agent's head-to-head share beside it, and whether the ratings'
    order is the order of those shares (the cross table's)."""
    width = max(len(r.agent) for r in result.ratings)
    lines = [f"rank {'agent':{width}} {'rating':>7} {'95% interval':>16} {'games':>6} {'ahead':>6}"]
    for rank, r in enumerate(result.ratings, start=1):
        lines.append(f"{rank:4d} {r.agent:{width}} {r.rating:+7.0f} {f'[{r.low:+.0f}, {r.high:+.0f}]':>16} "
                     f"{r.games:6d} {result.share(r.agent):6.3f}")
    shares = [result.share(r.agent) for r in result.ratings]
    agree = all(a >= b for a, b in itertools.pairwise(shares))
    lines.append(f"{result.method} ratings in Elo points (mean 0); ahead: share of its head-to-head games won "
                 f"(cross table); the ratings' order {'matches' if agree else 'differs from'} the cross table's")
    return "\n".join(lines)


def __getattr__(name: str) -> Any:
    """The old name ``TABLES`` (now ``GROUPS``), with a DeprecationWarning."""
    return moved_attribute(__name__, name)
