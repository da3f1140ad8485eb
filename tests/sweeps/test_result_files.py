"""A result folder's files: each written whole and atomically by its one owner (a failure mid-write leaves the old
file), read back by the same owner, the web reading through it; and a folder of today's format still reads and
resumes."""

from __future__ import annotations

import ast
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, write_tournament_folder

from ldpomdp.datafiles import read_npz, write_atomic, write_npz
from ldpomdp.rules import GameConfig
from ldpomdp.sweeps import (
    Cell,
    Tournament,
    read_games,
    read_outputs,
    read_summary,
    read_timing,
    run_sweep,
    summarize,
    write_summary,
)
from ldpomdp.sweeps.runner import _write_timing
from ldpomdp.sweeps.tournament import standings, write_outputs

# a folder as ldpomdp 0.2's `ldpomdp sweep --players one-third,random --dice 1 --games 3 --seed 3` writes it
OLD_CELL = "players=one-third|random;dice=1;bids=full;faces=6;wild=1;opener=after_challenger"
OLD_GAMES = "".join(
    f'{{"cell":"{OLD_CELL}","game":{g},"seed":3,"seats":{seats},"winner":{w},"rounds":1,"challenges":{c},'
    f'"successful_challenges":{c},"finish":{finish}}}\n'
    for g, seats, w, c, finish in [(0, "[0,1]", 0, "[1,0]", "[0,1]"), (1, "[1,0]", 1, "[0,1]", "[1,0]"),
                                   (2, "[0,1]", 0, "[1,0]", "[0,1]")])
OLD_SUMMARY = (
    "cell,dice,bids,player,player_index,games,wins,win_rate,ci_low,ci_high,challenges_per_game,"
    "challenge_success_rate,best_response,exact_value\r\n"
    f"{OLD_CELL},1,full,one-third,0,3,3,1.0,0.438503,1.0,1.0,1.0,0.893578,\r\n"
    f"{OLD_CELL},1,full,random,1,3,0,0.0,0.0,0.561497,0.0,,,\r\n")


def _old_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "games.jsonl").write_text(OLD_GAMES, encoding="utf-8")
    (folder / "summary.csv").write_bytes(OLD_SUMMARY.encode())
    return folder


def _cells() -> list[Cell]:
    return [Cell.of(["one-third", "random"], 1)]


def _sweep(out: Path, games: int) -> None:
    with ThreadPoolExecutor(1) as pool:  # no POMCP player: threads play the same games as processes
        run_sweep(_cells(), games, out, 3, executor=pool, progress=False, log=None, exact=False)


def test_a_folder_of_todays_format_reads_and_resumes(tmp_path):
    old = _old_folder(tmp_path / "old")
    rows, problems = read_summary(old / "summary.csv")
    assert problems == [] and [(r["player"], r["games"], r["wins"], r["best_response"]) for r in rows] == [
        ("one-third", 3, 3, 0.893578), ("random", 3, 0, None)]
    assert rows[0]["rules"] is None  # a column the file does not have
    assert [(r["game"], r["finish"]) for r in read_games(old / "games.jsonl")] == [(0, [0, 1]), (1, [1, 0]),
                                                                                   (2, [0, 1])]
    _sweep(old, 6)  # resumes: plays games 3-5 only, after the lines already there
    fresh = tmp_path / "fresh"
    _sweep(fresh, 6)
    assert (old / "games.jsonl").read_text().startswith(OLD_GAMES)
    assert sorted((old / "games.jsonl").read_text().splitlines()) == sorted(
        (fresh / "games.jsonl").read_text().splitlines())
    assert (old / "summary.csv").read_bytes() == (fresh / "summary.csv").read_bytes()


def test_each_writer_reads_back_through_its_owner(tmp_path):
    _sweep(tmp_path, 4)
    records = {(r["cell"], r["game"]): r for r in read_games(tmp_path / "games.jsonl")}
    rows = summarize(_cells(), 4, records)
    read, problems = read_summary(tmp_path / "summary.csv")
    assert problems == [] and [r["wins"] for r in read] == [r.wins for r in rows]
    assert [r["win_rate"] for r in read] == pytest.approx([r.win_rate for r in rows], abs=1e-6)
    timing = read_timing(tmp_path)
    assert [r["cell"] for r in timing] == [_cells()[0].id, "total wall"] and timing[0]["games"] == 4
    tournament = Tournament(("one-third", "random", "bluff:0.3"), GameConfig(dice=1), games=2, seed=1)
    result = standings(tournament, {})
    write_outputs(tournament, result, tmp_path, plot=False)
    written = read_outputs(tmp_path)
    assert written.problems == [] and written.info == json.loads(json.dumps(tournament.describe()))
    assert [(r["row_agent"], r["column_agent"], r["games"]) for r in written.cross] == [
        (r.row_agent, r.column_agent, r.games) for r in result.cross]
    assert [r["agent"] for r in written.ratings] == [r.agent for r in result.ratings]


def _writers(folder: Path) -> dict:
    """Each whole-file writer, as a function of a version number that changes what it writes."""
    cells = _cells()
    tournament = Tournament(("one-third", "random"), GameConfig(dice=1), games=2, seed=1)

    def summary(v: int) -> None:
        record = {"cell": cells[0].id, "game": 0, "seed": 0, "seats": [0, 1], "winner": v % 2, "rounds": 1,
                  "challenges": [1, 0], "successful_challenges": [1, 0]}
        write_summary(summarize(cells, 1, {(cells[0].id, 0): record}), folder / "summary.csv")

    return {
        "summary.csv": summary,
        "timing.csv": lambda v: _write_timing(folder / "timing.csv", cells, {cells[0].id: [v + 1, 0.5]}, 1.0),
        "tournament files": lambda v: write_outputs(
            Tournament(tournament.agents, tournament.config, games=v + 1), standings(tournament, {}), folder,
            plot=False),
        "an npz": lambda v: write_npz(folder / "table.npz", {"x": np.arange(v + 3)}),
        "any file": lambda v: write_atomic(folder / "notes.txt", f"version {v}\n".encode()),
    }


@pytest.mark.parametrize("writer", ["summary.csv", "timing.csv", "tournament files", "an npz", "any file"])
def test_a_failure_mid_write_leaves_the_old_file_whole_and_no_temporary_file(tmp_path, writer, monkeypatch):
    write = _writers(tmp_path)[writer]
    write(0)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)  # the new file is whole in its temporary place, then this fails
    with pytest.raises(OSError, match="disk full"):
        write(1)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    monkeypatch.undo()
    write(1)
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(after) == sorted(before) and after != before


def test_write_atomic_keeps_the_old_file_when_the_writer_raises_half_way(tmp_path):
    path = tmp_path / "x.csv"
    write_atomic(path, b"a,b\n1,2\n")

    def half(tmp: Path) -> None:
        tmp.write_bytes(b"a,b\n3")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        write_atomic(path, half)
    assert path.read_bytes() == b"a,b\n1,2\n" and [p.name for p in tmp_path.iterdir()] == ["x.csv"]
    write_npz(tmp_path / "t.npz", {"x": np.arange(3)})
    assert read_npz(tmp_path / "t.npz", "table")["x"].tolist() == [0, 1, 2]


def test_the_readers_name_what_does_not_read(tmp_path):
    folder = write_tournament_folder(tmp_path / "t")
    (folder / "tournament.json").write_text("[1, 2]")
    (folder / "ratings.csv").write_text("rank,agent\n1,a\n")
    (folder / "cross_table.csv").write_text("row_agent,column_agent,games,wins,win_rate,low,high\n"
                                            "a,b,2,1,0.5,0.1,0.9\nb,a,2,1,0.5,0.1,high?\n")
    written = read_outputs(folder)
    assert written.info == {} and written.ratings == [] and [r["row_agent"] for r in written.cross] == ["a"]
    assert written.problems == ["tournament.json: cannot be read (not a JSON object)",
                                "cross_table.csv line 3: high 'high?' is not a number",
                                "ratings.csv: no column rating, low, high, games, method"]
    assert read_summary(tmp_path / "none.csv") == ([], [])


def test_the_web_reads_result_files_only_through_the_sweeps_api():
    """No module of ldpomdp.web imports a sweeps module other than the package's API, nor reads a CSV itself."""
    wrong = []
    for path in sorted((ROOT / "ldpomdp" / "web").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sweeps."):
                wrong.append(f"{path.name}: from ..{node.module}")
            if isinstance(node, ast.Import) and any(a.name == "csv" for a in node.names):
                wrong.append(f"{path.name}: import csv")
    assert wrong == []


@pytest.mark.parametrize("name", ["table", "weights.v2", "table.npz"])
def test_an_npz_is_written_whole_at_the_path_given_whatever_its_name_ends_with(tmp_path, name):
    """numpy adds ``.npz`` to a name without it: the temporary file ends so, and the file lands at ``name``."""
    write_npz(tmp_path / name, {"x": np.arange(3)})
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    np.testing.assert_array_equal(read_npz(tmp_path / name, "test data")["x"], np.arange(3))
