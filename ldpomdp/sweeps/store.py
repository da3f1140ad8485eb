"""``games.jsonl``, the sweep's store: one finished game per line, resumable. Its record (``game_line``), its
appends (``GameStore``) and its reading (``GameStore`` to resume, ``read_games`` to show)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from ..errors import UsageError
from ..game import GameRecord
from ..players.text import COSTS

__all__ = ["GameStore", "GAMES_FILE", "RECORD_FIELDS", "TRANSCRIPTS", "game_line", "read_games", "same_game",
           "create_store"]

GAMES_FILE = "games.jsonl"
RECORD_FIELDS = ("cell", "game", "seed", "seats", "winner", "rounds", "challenges", "successful_challenges")
# and "finish" (seats from first place to last), written since tournaments rate finishing orders: optional, so the
# files written before it still resume
TRANSCRIPTS = "text"  # a record's text agents' transcripts, by player in the cell's order (None: not a text agent)


def game_line(cell_id: str, game: int, seed: int, seats: Sequence[int], played: GameRecord) -> dict:
    """The ``games.jsonl`` record of a finished game; ``seats`` is the player index (in the cell's order) in each
    seat.

    Args:
        cell_id: the id of the game's cell (``Cell.id``).
        game: the game's number in its cell, from 0.
        seed: the sweep seed.
        seats: the player index (in the cell's order) in each seat.
        played: the finished game's ``GameRecord``.

    Returns:
        A dict of ``RECORD_FIELDS`` and ``finish`` (seats from first place to last), ready for JSON.
    """
    return {
        "cell": cell_id,
        "game": int(game),
        "seed": int(seed),
        "seats": [int(s) for s in seats],  # player index in each seat
        "winner": played.winner,  # seat
        "rounds": len(played.rounds),
        "challenges": played.challenges,  # per seat
        "successful_challenges": played.successful_challenges,  # per seat
        "finish": played.finishing_order,  # seats from first place to last (the winner first)
    }


def read_games(path: Path) -> list[dict]:
    """Every game record of the ``games.jsonl`` at ``path``, in file order, duplicates included (read only: a line
    that is not a record, a half-written last one among them, is left out; no file, no records)."""
    records = []
    if Path(path).exists():
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if _record_problem(record) is None:
                records.append(record)
    return records


def same_game(a: dict, b: dict) -> bool:
    """Whether two records tell the same game: equal in every field a record must have (``finish``, which records
    written before it lack, aside)."""
    return all(a[key] == b[key] for key in RECORD_FIELDS)


def create_store(path: Path) -> None:
    """Create an empty ``games.jsonl`` at ``path`` where there is none (an OSError: the run cannot write it)."""
    with open(path, "a", encoding="utf-8"):
        pass


def _record_problem(record: object) -> str | None:
    """Why a JSON value is not a game record as ``play_batch`` writes it (None when it is one)."""
    def count(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    if not isinstance(record, dict):
        return "not a JSON object"
    missing = [key for key in RECORD_FIELDS if key not in record]
    if missing:
        return f"no {', '.join(missing)}"
    if not isinstance(record["cell"], str):
        return f"cell {record['cell']!r} is not a string"
    for key in ("game", "seed", "rounds"):
        if not count(record[key]):
            return f"{key} {record[key]!r} is not an integer >= 0"
    seats = record["seats"]
    if not isinstance(seats, list) or not all(map(count, seats)) or sorted(seats) != list(range(len(seats))):
        return f"seats {seats!r} is not an order of the players"
    if not count(record["winner"]) or record["winner"] >= len(seats):
        return f"winner {record['winner']!r} is not one of the {len(seats)} seats"
    for key in ("challenges", "successful_challenges"):
        if not isinstance(record[key], list) or len(record[key]) != len(seats) or not all(map(count, record[key])):
            return f"{key} {record[key]!r} is not a count per seat"
    text = record.get(TRANSCRIPTS)
    if text is not None and (not isinstance(text, list) or len(text) != len(seats)
                             or not all(t is None or _transcript(t) for t in text)):
        return f"{TRANSCRIPTS} is not a transcript (or null) per player"
    finish = record.get("finish", [record["winner"], *(s for s in range(len(seats)) if s != record["winner"])])
    if (not isinstance(finish, list) or not all(map(count, finish)) or sorted(finish) != list(range(len(seats)))
            or finish[0] != record["winner"]):
        return f"finish {finish!r} is not an order of the seats from the winner"
    return None


def _transcript(value: object) -> bool:
    """Whether ``value`` is a text agent's transcript: its calls, and a number >= 0 for each of its costs."""
    return (isinstance(value, dict) and isinstance(value.get("calls"), list)
            and all(isinstance(value.get(cost), (int, float)) and not isinstance(value.get(cost), bool)
                    and value[cost] >= 0 for cost in COSTS))


class GameStore:
    """``games.jsonl``: one finished game per line, appended by the parent process and fsynced per batch.

    Opening it reads what is there, keeps the first record of each (cell, game) and cuts a half-written
    last line (from a killed run) so that later appends stay valid JSON lines. Any other line that is not
    a game record stops it with a UsageError naming the line.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.records: dict[tuple[str, int], dict] = {}
        self.line_of: dict[tuple[str, int], int] = {}  # line number of each record read from the file
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        data = self.path.read_bytes()
        *complete, tail = data.split(b"\n")  # ``tail`` is what follows the last newline
        for number, line in enumerate(complete, start=1):
            if line.strip():
                self._keep(self._parse(line, number), number)
        if tail.strip():
            try:
                json.loads(tail)
            except ValueError:  # half-written by a killed run: cut it so appends stay valid
                with open(self.path, "r+b") as fh:
                    fh.truncate(len(data) - len(tail))
                return
            self._keep(self._parse(tail, len(complete) + 1), len(complete) + 1)
            with open(self.path, "ab") as fh:  # a complete record, only its newline is missing
                fh.write(b"\n")

    def _parse(self, line: bytes, number: int) -> dict:
        """The record on line ``number``, or a UsageError naming the line and what is wrong with it."""
        try:
            record = json.loads(line)
        except ValueError:
            problem: str | None = "not JSON"
        else:
            problem = _record_problem(record)
        if problem:
            raise UsageError(f"{self.path}: line {number} is not a game record ({problem}); fix or remove that "
                             f"line to resume")
        return record

    def _keep(self, record: dict, number: int) -> None:
        key = (record["cell"], record["game"])
        if key not in self.records:
            self.records[key], self.line_of[key] = record, number

    def check_seed(self, seed: int) -> None:
        """Refuse to add games of ``seed`` to a file holding games of another seed, naming the first such line."""
        other = sorted((self.line_of.get(key, 0), r["seed"]) for key, r in self.records.items() if r["seed"] != seed)
        if other:
            line, found = other[0]
            raise UsageError(f"{self.path}: {len(other)} of its {len(self.records)} games were played with another "
                             f"seed than {seed} (first: line {line}, seed {found}): use the same --seed, or another "
                             f"--out folder")

    def append(self, records: Sequence[dict]) -> None:
        """Append new records (skipping keys already stored) and make them durable."""
        fresh = [r for r in records if (r["cell"], r["game"]) not in self.records]
        if not fresh:
            return
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in fresh))
            fh.flush()
            os.fsync(fh.fileno())
        for r in fresh:
            self.records[(r["cell"], r["game"])] = r
