"""Result folders as the page shows them: a sweep's summary by cell (its players and rules) with readable columns,
its plots, the games of ``games.jsonl`` and a replay of any of them (played again from its seed: a sweep stores
each game's seed, not its moves); a tournament's cross table and ratings; two folders' common cells side by side
with the difference of their win rates. Read only; a request names a folder only among those listed."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..registry import make_player
from ..rules import CHALLENGE, EXACT, GameConfig, settle_round
from ..sweeps.cell import Cell
from ..sweeps.games import play_one
from ..sweeps.statistics import SUMMARY_FILE, wilson_interval
from ..sweeps.store import GAMES_FILE, RECORD_FIELDS
from .explain import action_text, matching_dice
from .session import WebError, check_spec

__all__ = ["Results", "ResultsFolder", "difference_interval", "COLUMNS", "TOURNAMENT_FILE", "CROSS_TABLE_FILE",
           "RATINGS_FILE"]

TOURNAMENT_FILE, CROSS_TABLE_FILE, RATINGS_FILE = "tournament.json", "cross_table.csv", "ratings.csv"
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
_INTEGER, _NUMBER = "an integer", "a number"
_SUMMARY_FIELDS = {"cell": str, "player": str, "player_index": _INTEGER, "games": _INTEGER, "wins": _INTEGER,
                   "win_rate": _NUMBER, "ci_low": _NUMBER, "ci_high": _NUMBER, "challenges_per_game": _NUMBER,
                   "challenge_success_rate": _NUMBER, "best_response": _NUMBER, "exact_value": _NUMBER}
_SUMMARY_REQUIRED = ("cell", "player", "games", "wins")
_CROSS_FIELDS = {"row_agent": str, "column_agent": str, "games": _INTEGER, "wins": _INTEGER, "win_rate": _NUMBER,
                 "low": _NUMBER, "high": _NUMBER}
_RATING_FIELDS = {"rank": _INTEGER, "agent": str, "rating": _NUMBER, "low": _NUMBER, "high": _NUMBER,
                  "games": _INTEGER, "method": str}


def difference_interval(wins_a: int, games_a: int, wins_b: int, games_b: int) -> tuple[float, float]:
    """95% interval of the difference of two independent win rates (a - b): Newcombe's hybrid score interval,
    from each rate's Wilson interval (Newcombe 1998, method 10)."""
    p_a, p_b = wins_a / games_a, wins_b / games_b
    (low_a, high_a), (low_b, high_b) = wilson_interval(wins_a, games_a), wilson_interval(wins_b, games_b)
    difference = p_a - p_b
    return (difference - math.hypot(p_a - low_a, high_b - p_b), difference + math.hypot(high_a - p_a, p_b - low_b))


def _is_results(path: Path) -> bool:
    return (path / SUMMARY_FILE).exists() or (path / GAMES_FILE).exists()


class Results:
    """The folder given with ``--results``: a sweep's (or a tournament's) folder, or a folder holding such folders
    (its subfolders that are one). A folder is named by its path inside it (``"."`` for itself); the list is read
    again on every request, so a sweep finished later shows up."""

    def __init__(self, path: str | Path, allow_plugins: bool = False):
        self.path, self.allow_plugins = Path(path), allow_plugins
        if not self.path.is_dir():
            raise ValueError(f"--results {path}: no such folder")
        if not self.names():
            raise ValueError(f"--results {path}: no {SUMMARY_FILE} or {GAMES_FILE} there or in its folders (not a "
                             f"sweep's folder, nor a folder of them)")

    def names(self) -> list[str]:
        """The result folders, by name."""
        if _is_results(self.path):
            return ["."]
        return sorted(p.name for p in self.path.iterdir() if p.is_dir() and _is_results(p))

    def listing(self) -> dict:
        """The folders (``name`` and ``kind``: sweep or tournament) and the folder given."""
        return {"path": str(self.path), "folders": [{"name": n, "kind": self.folder(n).kind} for n in self.names()]}

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
    except ValueError:
        return {"id": cell_id, "players": [cell_id], "dice": None, "rules": ""}
    return {"id": cell_id, "players": list(cell.players), "dice": cell.dice, "rules": cell.config.describe()}


class ResultsFolder:
    """One sweep's folder ``path`` (``summary.csv``, ``games.jsonl``, the PNG plots; a tournament's also
    ``tournament.json``, ``cross_table.csv`` and ``ratings.csv``), named ``name`` on the page."""

    def __init__(self, path: str | Path, allow_plugins: bool = False, name: str = "."):
        self.path, self.allow_plugins, self.name = Path(path), allow_plugins, name
        if not self.path.is_dir():
            raise ValueError(f"--results {path}: no such folder")
        if not _is_results(self.path):
            raise ValueError(f"--results {path}: no {SUMMARY_FILE} or {GAMES_FILE} there (not a sweep's folder)")

    @property
    def kind(self) -> str:
        """``"tournament"`` where the folder has a ``tournament.json``, else ``"sweep"``."""
        return "tournament" if (self.path / TOURNAMENT_FILE).exists() else "sweep"

    def rows(self) -> tuple[list[dict], list[str]]:
        """The summary's rows (numbers as numbers, an empty value as None) and a line for each one left out."""
        return _read_table(self.path / SUMMARY_FILE, _SUMMARY_FIELDS, _SUMMARY_REQUIRED)

    def summary(self) -> dict:
        """The summary by cell (``cells``: each one's players, dice, rules and rows), the ``columns`` shown (those
        with a value somewhere: key, label, what it holds), the plots' file names, the tournament if any, and a
        line for each problem found in the files."""
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
        try:
            info = json.loads((self.path / TOURNAMENT_FILE).read_text(encoding="utf-8"))
            if not isinstance(info, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as exc:
            problems.append(f"{TOURNAMENT_FILE}: cannot be read ({exc})")
            info = {}
        cross, found = _read_table(self.path / CROSS_TABLE_FILE, _CROSS_FIELDS, tuple(_CROSS_FIELDS))
        ratings, more = _read_table(self.path / RATINGS_FILE, _RATING_FIELDS, tuple(_RATING_FIELDS))
        problems += found + more
        agents = info.get("agents")
        if not (isinstance(agents, list) and all(isinstance(a, str) for a in agents)):
            agents = list(dict.fromkeys(r[k] for r in cross for k in ("row_agent", "column_agent")))
        return {"info": info, "rules": _rules_words(info), "agents": agents, "cross": cross,
                "ratings": sorted(ratings, key=lambda r: r["rank"])}

    def plot(self, name: str) -> Path:
        """The plot file ``name`` of the folder (a bare ``*.png`` name that :meth:`summary` lists)."""
        if name not in {p.name for p in self.path.glob("*.png")}:
            raise WebError(404, f"no plot {name!r} in the results folder")
        return self.path / name

    def games(self) -> list[dict]:
        """Every game record of ``games.jsonl``, in file order (lines that are not records are left out)."""
        path, records = self.path / GAMES_FILE, []
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and all(key in record for key in RECORD_FIELDS):
                    records.append(record)
        return records

    def replay(self, cell_id: str, game: int) -> dict:
        """Game ``game`` of cell ``cell_id`` played again: every round's hands and actions, and whether the replay
        ends as the stored record says (it does unless a player is timed or its code changed)."""
        stored = next((r for r in self.games() if r["cell"] == cell_id and r["game"] == game), None)
        if stored is None:
            raise WebError(404, f"no game {game} of cell {cell_id!r} in {GAMES_FILE}")
        try:
            cell = Cell.from_id(cell_id)
        except ValueError as exc:
            raise WebError(400, str(exc)) from None
        specs = [check_spec(spec, self.allow_plugins) for spec in cell.players]
        try:
            players = [make_player(spec) for spec in specs]
            played, line = play_one(cell, stored["seed"], game, players)
        except ValueError as exc:
            raise WebError(400, str(exc).splitlines()[0]) from None
        dice, rounds = cell.config.starting_dice, []
        for r in played.rounds:
            config, call = cell.config.round_rules(r.palifico), EXACT if r.exact else CHALLENGE  # the round's rules
            actions = [{"seat": seat, "action": action_text(a)} for seat, a in r.actions]
            actions.append({"seat": r.challenger, "action": action_text(call)})
            after = settle_round(config, np.array(r.hands), dice, r.final_bid, r.actions[-1][0], r.challenger, call)[2]
            rounds.append({"dice": list(dice), "opener": r.opener, "actions": actions, "bid": str(r.final_bid),
                           "hands": [[f for f, n in enumerate(h, start=1) for _ in range(n)] for h in r.hands],
                           "challenger": r.challenger, "loser": r.loser, "matching": r.matching, "exact": r.exact,
                           "palifico": r.palifico, "dice_after": list(after),
                           **matching_dice(config, r.hands, r.final_bid.face)})
            dice = after
        return {"cell": cell_id, "game": game, "rules": cell.config.describe(),
                "seats": [specs[i] for i in line["seats"]], "rounds": rounds, "winner": played.winner,
                "matches_record": all(line[k] == stored[k] for k in RECORD_FIELDS)}


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


def _convert(kind: Any, text: str) -> Any:
    """A CSV value as a ``str``, an integer or a number (an empty one as None); a ValueError otherwise."""
    if kind is str:
        return text
    if text.strip() == "":
        return None
    value = float(text)
    if kind == _INTEGER:
        if not value.is_integer():
            raise ValueError
        return int(value)
    return value


def _read_table(path: Path, fields: dict[str, Any], required: tuple[str, ...]) -> tuple[list[dict], list[str]]:
    """The rows of the CSV file ``path`` with the columns ``fields`` it has (converted), and a line for each
    problem: a missing file or required column, a row with a value that does not read (left out)."""
    if not path.exists():
        return [], [] if path.name == SUMMARY_FILE else [f"{path.name}: missing"]
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header, lines = reader.fieldnames or [], list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return [], [f"{path.name}: cannot be read ({exc})"]
    missing = [name for name in required if name not in header]
    if missing:
        return [], [f"{path.name}: no column {', '.join(missing)}"]
    rows, problems = [], []
    for number, line in enumerate(lines, start=2):
        try:
            rows.append({name: _convert(kind, line[name] or "") if name in header else None
                         for name, kind in fields.items()})
        except ValueError:
            bad = next(name for name in fields if name in header and not _reads(fields[name], line[name] or ""))
            problems.append(f"{path.name} line {number}: {bad} {line[bad]!r} is not {fields[bad]}")
    return rows, problems


def _reads(kind: Any, text: str) -> bool:
    try:
        _convert(kind, text)
    except ValueError:
        return False
    return True
