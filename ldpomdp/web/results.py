"""Result folders (sweeps and tournaments) as the page shows them; read only.

A sweep's summary by cell (its players and rules) with readable columns, its plots, the games of ``games.jsonl`` and
a replay of any of them (played again from its seed: a sweep stores each game's seed, not its moves); a tournament's
cross table and ratings; two folders' common cells side by side with the difference of their win rates. Read only;
a request names a folder only among those listed."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import PlayerError, UsageError
from ..hands import hand_faces
from ..registry import make_player
from ..round_end import settle_round
from ..rules import CHALLENGE, EXACT, GameConfig
from ..sweeps import (
    GAMES_FILE,
    SUMMARY_FILE,
    TOURNAMENT_FILE,
    Cell,
    difference_interval,
    play_one,
    read_games,
    read_outputs,
    read_summary,
    same_game,
    wilson_interval,
)
from .explain import action_text, matching_dice
from .session import WebError, check_spec

__all__ = ["Results", "ResultsFolder", "COLUMNS"]

# the summary's columns the page shows, by their summary.csv name: label, and what the column holds
COLUMNS = {
    "player": ("Player", "the player's spec (and its place among the cell's players)"),
    "games": ("Games", "games played in the cell"),
    "win_rate": ("Win rate", "share of the games won, with its 95% Wilson interval"),
    "challenges_per_game": ("Challenges a game", "the player's challenges (and exact calls) per game"),
    "challenge_success_rate": ("Challenges won", "share of its challenges that were right"),
    "best_response": ("Best response", "exact win rate of the best response in the player's place"),
    "exact_value": ("Exact win rate", "the player's own exact win rate"),
}


def _is_results(path: Path) -> bool:
    return (path / SUMMARY_FILE).exists() or (path / GAMES_FILE).exists()


class Results:
    """The folder given with ``--results``: one result folder, or a folder holding such folders.

    A sweep's (or a tournament's) folder, or a folder holding such folders (its subfolders that are one). A folder is
    named by its path inside it (``"."`` for itself); the list is read again on every request, so a sweep finished
    later shows up."""

    def __init__(self, path: str | Path, allow_plugins: bool = False):
        self.path, self.allow_plugins = Path(path), allow_plugins
        if not self.path.is_dir():
            raise UsageError(f"--results {path}: no such folder")
        if not self.names():
            raise UsageError(f"--results {path}: no {SUMMARY_FILE} or {GAMES_FILE} there or in its folders (not a "
                             f"sweep's folder, nor a folder of them)")

    def names(self) -> list[str]:
        """The result folders, by name."""
        if _is_results(self.path):
            return ["."]
        return sorted(p.name for p in self.path.iterdir() if p.is_dir() and _is_results(p))

    def listing(self) -> dict:
        """The folders (``name`` and ``kind``: sweep or tournament) and the folder given, as ``shown``."""
        return {"path": self.shown, "folders": [{"name": n, "kind": self.folder(n).kind} for n in self.names()]}

    @property
    def shown(self) -> str:
        """The folder given as a page names it: as given when relative, else by its name alone (a page never shows
        where the server's files lie)."""
        return str(self.path) if not self.path.is_absolute() else self.path.name or "."

    def folder(self, name: str | None) -> ResultsFolder:
        """The folder ``name`` (None: the first), or a 404 naming the folders there are."""
        names = self.names()
        if name is None and names:
            name = names[0]
        if name not in names:
            raise WebError(404, f"no results folder {name!r}: the folders are {', '.join(names) or 'none'}")
        return ResultsFolder(self.path / name, self.allow_plugins, name)

    def compare(self, a: str | None, b: str | None) -> dict:
        """The cells of folders ``a`` and ``b`` that both played, player by player: each one's win rate and the
        difference a - b with its 95% interval; ``only_a`` and ``only_b`` count the rows of one alone."""
        if not a or not b:
            raise WebError(400, "compare needs ?a=FOLDER&b=FOLDER")
        first, second = self.folder(a), self.folder(b)
        rows_a, problems_a = first.rows()
        rows_b, problems_b = second.rows()
        keyed = {(r["cell"], r["player_index"], r["player"]): r for r in rows_b}
        joined: list[dict] = []
        cells: dict[str, dict] = {}
        for row in rows_a:
            other = keyed.get((row["cell"], row["player_index"], row["player"]))
            if other is None or not row["games"] or not other["games"]:
                continue
            low, high = difference_interval(row["wins"], row["games"], other["wins"], other["games"])
            cells.setdefault(row["cell"], _cell_view(row["cell"]))
            joined.append({"cell": row["cell"], "player": row["player"], "player_index": row["player_index"],
                           "a": _rate(row), "b": _rate(other),
                           "difference": row["wins"] / row["games"] - other["wins"] / other["games"],
                           "low": low, "high": high})
        return {"a": a, "b": b, "rows": joined, "cells": cells, "only_a": len(rows_a) - len(joined),
                "only_b": len(rows_b) - len(joined), "problems": problems_a + problems_b}


def _rate(row: dict) -> dict:
    low, high = wilson_interval(row["wins"], row["games"])
    return {"games": row["games"], "wins": row["wins"], "win_rate": row["wins"] / row["games"], "ci_low": low,
            "ci_high": high}


def _cell_view(cell_id: str) -> dict:
    """A cell as the page names it: its players, dice each and rules in words (its id as given when it does not
    read as one)."""
    try:
        cell = Cell.from_id(cell_id)
    except UsageError:
        return {"id": cell_id, "players": [cell_id], "dice": None, "rules": ""}
    return {"id": cell_id, "players": list(cell.players), "dice": cell.dice, "rules": cell.config.describe()}


class ResultsFolder:
    """One sweep's folder ``path`` (``summary.csv``, ``games.jsonl``, the PNG plots; a tournament's also
    ``tournament.json``, ``cross_table.csv`` and ``ratings.csv``), named ``name`` on the page."""

    def __init__(self, path: str | Path, allow_plugins: bool = False, name: str = "."):
        self.path, self.allow_plugins, self.name = Path(path), allow_plugins, name
        if not self.path.is_dir():
            raise UsageError(f"--results {path}: no such folder")
        if not _is_results(self.path):
            raise UsageError(f"--results {path}: no {SUMMARY_FILE} or {GAMES_FILE} there (not a sweep's folder)")

    @property
    def kind(self) -> str:
        """``"tournament"`` where the folder has a ``tournament.json``, else ``"sweep"``."""
        return "tournament" if (self.path / TOURNAMENT_FILE).exists() else "sweep"

    def rows(self) -> tuple[list[dict], list[str]]:
        """The summary's rows (numbers as numbers, an empty value as None) and a line for each one left out."""
        return read_summary(self.path / SUMMARY_FILE)

    def summary(self) -> dict:
        """The folder's page: its summary by cell, the columns shown, its plots, its tournament and its problems.

        ``cells``: each one's players, dice, rules and rows; the ``columns`` shown (those with a value somewhere: key,
        label, what it holds); the plots' file names; the tournament if any; and a line for each problem found in the
        files."""
        rows, problems = self.rows()
        cells: dict[str, dict] = {}
        for row in rows:
            cells.setdefault(row["cell"], {**_cell_view(row["cell"]), "rows": []})["rows"].append(row)
        columns = [{"key": key, "label": label, "title": title} for key, (label, title) in COLUMNS.items()
                   if key in ("player", "games") or any(row.get(key) is not None for row in rows)]
        tournament = self.tournament(problems) if self.kind == "tournament" else None
        return {"folder": self.name, "kind": self.kind, "cells": list(cells.values()), "columns": columns,
                "plots": sorted(p.name for p in self.path.glob("*.png")), "tournament": tournament,
                "problems": problems}

    def tournament(self, problems: list[str]) -> dict:
        """``tournament.json`` (``info``, its rules in words), the cross table's rows, the ratings' rows (by
        rank) and the agents in the order the cross table shows them; problems are added to ``problems``."""
        written = read_outputs(self.path)
        info, cross, ratings = written.info, written.cross, written.ratings
        problems += written.problems
        agents = info.get("agents")
        if not (isinstance(agents, list) and all(isinstance(a, str) for a in agents)):
            agents = list(dict.fromkeys(r[k] for r in cross for k in ("row_agent", "column_agent")))
        return {"info": info, "rules": _rules_words(info), "agents": agents, "cross": cross,
                "ratings": sorted(ratings, key=lambda r: r["rank"])}

    def plot(self, name: str) -> Path:
        """The plot file ``name`` of the folder (a bare ``*.png`` name that ``summary`` lists)."""
        if name not in {p.name for p in self.path.glob("*.png")}:
            raise WebError(404, f"no plot {name!r} in the results folder")
        return self.path / name

    def games(self) -> list[dict]:
        """Every game record of ``games.jsonl``, in file order (lines that are not records are left out)."""
        return read_games(self.path / GAMES_FILE)

    def replay(self, cell_id: str, game: int) -> dict:
        """Game ``game`` of cell ``cell_id`` played again: every round's hands and actions, and whether the replay
        ends as the stored record says (it does unless a player is timed or its code changed)."""
        stored = next((r for r in self.games() if r["cell"] == cell_id and r["game"] == game), None)
        if stored is None:
            raise WebError(404, f"no game {game} of cell {cell_id!r} in {GAMES_FILE}")
        cell = Cell.from_id(cell_id)  # a cell id or spec that does not read or build here: a UsageError, a 400
        specs = [check_spec(spec, self.allow_plugins) for spec in cell.players]
        players = [make_player(spec) for spec in specs]
        try:
            played, line = play_one(cell, stored["seed"], game, players)
        except PlayerError as exc:  # a stored game's player failing on replay is the server's fault, not the request's
            raise RuntimeError(f"replaying game {game} of cell {cell_id!r}") from exc
        dice, rounds = cell.config.starting_dice, []
        for r in played.rounds:
            config, call = cell.config.round_rules(r.palifico), EXACT if r.exact else CHALLENGE  # the round's rules
            actions = [{"seat": seat, "action": action_text(a)} for seat, a in r.actions]
            actions.append({"seat": r.challenger, "action": action_text(call)})
            after = settle_round(config, np.array(r.hands), dice, r.final_bid, r.actions[-1][0], r.challenger, call)[2]
            rounds.append({"dice": list(dice), "opener": r.opener, "actions": actions, "bid": str(r.final_bid),
                           "hands": [hand_faces(h) for h in r.hands],
                           "challenger": r.challenger, "loser": r.loser, "matching": r.matching, "exact": r.exact,
                           "palifico": r.palifico, "dice_after": list(after),
                           **matching_dice(config, r.hands, r.final_bid.face)})
            dice = after
        return {"cell": cell_id, "game": game, "rules": cell.config.describe(),
                "seats": [specs[i] for i in line["seats"]], "rounds": rounds, "winner": played.winner,
                "matches_record": same_game(line, stored)}


def _rules_words(info: dict) -> str:
    """A tournament's rules in words: its ``rules`` as text, or as GameConfig's fields (with its players and
    dice), described; "" when it gives none."""
    rules = info.get("rules")
    if isinstance(rules, dict):
        try:
            fields = {"num_players": info.get("players", 2), "dice": info.get("dice", 5), **rules}
            return GameConfig(**fields).describe()
        except (TypeError, ValueError):
            return ", ".join(f"{k}={v}" for k, v in rules.items())
    return "" if rules is None else str(rules)
