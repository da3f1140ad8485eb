"""Evaluate one agent (docs/evaluate.md): tournaments of it and a ladder of the package's agents, and a probe of its
exploitability; one table (``evaluation.csv``) and one plot (``evaluation.png``).

At each number of players, its win rate in each group with its interval beside the fair share and its rating on the
tournament's scale; at two players, a local best response's win rate against it (a lower bound on its
exploitability)."""

from __future__ import annotations

import importlib.util
import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass, replace
from functools import partial
from pathlib import Path

from ..datafiles import write_atomic
from ..errors import UsageError, install_hint
from ..registry import canonical_spec, spec_text
from ..rules import GameConfig, dice_text
from .cell import Cell
from .csv_format import columns_of, write_csv
from .runner import run_sweep, validate
from .statistics import SummaryRow, summarize, wilson_interval
from .store import GAMES_FILE, read_games
from .tournament import Standings, Tournament, run_tournament

__all__ = ["EvaluationRow", "evaluate", "format_evaluation", "plot_evaluation", "LADDER", "EVALUATION_FILE",
           "EVALUATION_PLOT"]

# the package's agents an agent is measured against, weakest first: uniform play, report 002's rule, its belief
# planner, and the recommended agent (docs/evaluate.md: why these)
LADDER = ("random", "one-third", "expected-count", "robust")
EVALUATION_FILE, EVALUATION_PLOT = "evaluation.csv", "evaluation.png"


@dataclass(frozen=True)
class EvaluationRow:
    """The agent's result in one setting: ``players`` a game, ``opponents``, ``wins`` of ``games``, the 95% Wilson
    interval, the ``fair`` share, its ``rating`` and ``rank`` (NaN and 0 where not rated).

    ``opponents`` are " + "-joined; ``all`` pools the agent's groups; ``lbr`` is the exploitation probe, whose wins
    and rate are the local best response's against the agent."""

    players: int
    opponents: str
    games: int
    wins: int
    win_rate: float
    low: float
    high: float
    fair: float
    rating: float
    rank: int


def evaluate(agent: str, out: str | Path, config: GameConfig, games: int, *, ladder: Sequence[str] = LADDER,
             seats: Sequence[int] = (2, 3), probe_games: int = 200, probe_dice: int = 2, seed: int = 0,
             plot: bool = True, log: Callable[[str], None] | None = print, **run_options) -> list[EvaluationRow]:
    """Evaluate ``agent`` into ``out`` (resumable); return the table's rows, also written with the plot there.

    Args:
        agent: the player spec evaluated.
        out: the folder: a tournament in ``N-players`` for each number of seats, the probe in ``probe``.
        config: the rules and dice per player (its number of players is each tournament's).
        games: games per pair or group of each tournament.
        ladder: the package's agents it meets; default ``LADDER``.
        seats: players a game, one tournament each; default 2 and 3.
        probe_games: games of ``lbr:AGENT`` against the agent at two players (0: no probe); default 200.
        probe_dice: dice per player in the probe's games; default 2.
        seed: the seed of every game; default 0.
        plot: write ``evaluation.png`` (needs matplotlib); default True.
        log: where each line of the log goes; default ``print``, None for silence.
        run_options: ``run_sweep``'s (workers, scheduler, executor, progress).

    Raises:
        UsageError: the agent is on the ladder, a number of seats is not 2 to the agents' count or given twice, or a
            spec cannot play its rules; before any game.
    """
    agent = canonical_spec(agent)
    ladder = tuple(canonical_spec(spec) for spec in ladder)
    if agent in ladder:
        raise UsageError(f"the agent {agent!r} is on the ladder too: leave it out of --ladder")
    if not seats or any(isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= len(ladder) + 1
                        for n in seats):
        raise UsageError(f"seats must be player counts from 2 to {len(ladder) + 1} (the ladder and the agent), got "
                         f"{list(seats)}")
    if len(set(seats)) < len(seats):
        raise UsageError(f"seats gives a number of players twice: {list(seats)}")
    tournaments = [Tournament((agent, *ladder), replace(config, num_players=n, dice=config.starting_dice[:1] * n),
                              games, seed) for n in seats]
    probe = (Cell((spec_text("lbr", {"policy": agent}), agent), replace(config, num_players=2,
                                                                        dice=(probe_dice, probe_dice)))
             if probe_games and 2 in seats else None)
    validate([cell for t in tournaments for cell in t.cells] + ([probe] if probe else []), max(games, probe_games),
             seed)  # every spec plays its rules: refused now, not after hours of games
    out, rows = Path(out), []
    for tournament in tournaments:
        n = tournament.players
        folder = out / f"{n}-players"
        if log:
            log(f"== {n} players: {agent} and the ladder, {games} games a group -> {folder}")
        rows += _tournament_rows(agent, tournament, run_tournament(tournament, folder, plot=False, log=log,
                                                                   **run_options), folder)
    if probe is not None:
        rows.append(_probe(probe, probe_games, out / "probe", seed, log, run_options))
    write_csv(out / EVALUATION_FILE, list(columns_of(EvaluationRow)), [astuple(row) for row in rows], newline="\n")
    if log:
        log(format_evaluation(agent, rows))
        log(f"wrote {out / EVALUATION_FILE}")
    if plot:
        if importlib.util.find_spec("matplotlib") is None:
            if log:
                log(f"{EVALUATION_PLOT} needs matplotlib: {install_hint('plot')}")
        else:
            written = plot_evaluation(agent, rows, out / EVALUATION_PLOT, config)
            if log:
                log(f"wrote {written}")
    return rows


def _tournament_rows(agent: str, tournament: Tournament, result: Standings, folder: Path) -> list[EvaluationRow]:
    """The agent's row in each group of ``tournament`` it sat in, then its groups pooled with its rating."""
    records = {(r["cell"], r["game"]): r for r in read_games(folder / GAMES_FILE)}
    mine = [row for row in summarize(tournament.cells, tournament.games, records) if row.player == agent]
    n = tournament.players
    ranked = [r.agent for r in result.ratings]
    rating = next(r.rating for r in result.ratings if r.agent == agent)
    rows = [_row(n, " + ".join(p for p in _cell_of(tournament, row).players if p != agent), row.wins, row.games,
                 math.nan, 0) for row in mine]
    rows.append(_row(n, "all", sum(r.wins for r in mine), sum(r.games for r in mine), rating,
                     ranked.index(agent) + 1))
    return rows


def _cell_of(tournament: Tournament, row: SummaryRow) -> Cell:
    return next(cell for cell in tournament.cells if cell.id == row.cell)


def _row(players: int, opponents: str, wins: int, games: int, rating: float, rank: int,
         fair: float | None = None) -> EvaluationRow:
    low, high = wilson_interval(wins, games)
    return EvaluationRow(players, opponents, games, wins, wins / games if games else math.nan, low, high,
                         1.0 / players if fair is None else fair, rating, rank)


def _probe(cell: Cell, games: int, folder: Path, seed: int, log: Callable[[str], None] | None,
           run_options: dict) -> EvaluationRow:
    """The exploitation probe: the wins of ``cell``'s ``lbr:AGENT`` against the agent (2 players, seats rotated)."""
    lbr, agent = cell.players
    if log:
        log(f"== exploitation probe: {lbr} against {agent}, {dice_text(cell.dice)} each, {games} games -> {folder}"
            + ("\n   (LBR asks the text agent once per hand it could hold at each of its decisions: those calls are "
               "not in text_costs.csv)" if agent.startswith("text:") else ""))
    (row, _) = run_sweep([cell], games, folder, seed, log=log, exact=False, **run_options)
    return _row(2, "lbr", row.wins, row.games, math.nan, 0, fair=0.5)


def format_evaluation(agent: str, rows: Sequence[EvaluationRow]) -> str:
    """The evaluation as a plain-text table: per setting, the agent's win rate, its interval and the fair share."""
    width = max([len(r.opponents) for r in rows] + [9])
    lines = [f"{agent}: win rate by setting (95% Wilson interval); fair: a fair share of the wins",
             f"players {'opponents':{width}} {'games':>6} {'win rate':>9} {'95% interval':>16} {'fair':>6} rating"]
    for r in rows:
        what = "lbr (the probe: its wins against the agent)" if r.opponents == "lbr" else r.opponents
        rated = "" if math.isnan(r.rating) else f"{r.rating:+.0f} (rank {r.rank})"
        lines.append(f"{r.players:7d} {what:{width}} {r.games:6d} {r.win_rate:9.3f} "
                     f"{f'[{r.low:.3f}, {r.high:.3f}]':>16} {r.fair:6.3f} {rated}")
    return "\n".join(lines)


def plot_evaluation(agent: str, rows: Sequence[EvaluationRow], path: str | Path, config: GameConfig) -> Path:
    """An evaluation's win rates (one line per setting, the probe's last) with their 95% intervals and each setting's
    fair share, written as a PNG to ``path`` atomically (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = list(reversed(rows))  # the first row is drawn at the top
    height = 1.8 + 0.4 * len(shown)
    fig, ax = plt.subplots(figsize=(8, height))
    ys = list(range(len(shown)))
    ax.errorbar([r.win_rate for r in shown], ys, fmt="o", capsize=4, label="win rate, 95% interval",
                xerr=[[r.win_rate - r.low for r in shown], [r.high - r.win_rate for r in shown]])
    ax.scatter([r.fair for r in shown], ys, marker="|", s=200, color="grey", label="fair share")
    labels = [f"lbr against it, 2 players ({r.games} games)" if r.opponents == "lbr" else
              f"{r.players} players: {'all groups' if r.opponents == 'all' else 'vs ' + r.opponents} ({r.games})"
              for r in shown]
    ax.set_yticks(ys, ["\n".join(textwrap.wrap(label, 45)) for label in labels], fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of games won (the probe's row: the local best response's)")
    ax.set_title("\n".join(textwrap.wrap(f"{agent}: {dice_text(config.starting_dice[0])} each, "
                                         f"{config.describe()}", 70)), fontsize=10)
    fig.legend(loc="lower center", ncol=2, fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout(rect=(0, 0.35 / height, 1, 1))
    written = write_atomic(path, partial(fig.savefig, dpi=120, format="png"))
    plt.close(fig)
    return written
