"""benchmarks/many_players.py and the seating it relies on: every order round the table equally often, rows that
say what the games file says, a resume that plays no game twice, one line and exit 2 for bad input."""

from __future__ import annotations

import importlib
import itertools
import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT

from ldpomdp.game import permute, rotate
from ldpomdp.sweeps import wilson_interval

SCRIPT = ROOT / "benchmarks" / "many_players.py"
TINY = ["--agent", "one-third", "--players", "3", "--dice", "1", "--field", "random,one-third", "--games", "12"]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("start", [0, 7])
def test_permute_seats_every_order_once_in_n_factorial_games(n, start):
    items = [f"p{i}" for i in range(n)]
    seatings = []
    for g in range(start, start + math.factorial(n)):
        seated, seat_of = permute(items, g)
        assert [seated[seat_of[i]] for i in range(n)] == items  # seat_of says where each item sits
        seatings.append(tuple(seated))
    assert sorted(seatings) == sorted(itertools.permutations(items))  # every order, each once
    per_seat = Counter((seat, who) for seated in seatings for seat, who in enumerate(seated))
    assert set(per_seat.values()) == {math.factorial(n - 1)} and len(per_seat) == n * n  # every item in every seat
    if n == 3:  # rotation alone never seats p2 right after p0 at seat 0 (p0, p2, p1): permute does
        assert ("p0", "p2", "p1") in seatings
        assert ["p0", "p2", "p1"] not in [rotate(items, g)[0] for g in range(6)]


def run(monkeypatch, out: Path, *extra: str) -> dict[str, tuple[list, list]]:
    """Run the script's main in this process with ``--record``, capturing each table it would record."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    module = importlib.import_module("many_players")
    recorded = {}
    monkeypatch.setattr(module, "record", lambda name, title, columns, rows, **_: recorded.update({name: (columns,
                                                                                                           rows)}))
    monkeypatch.setattr(sys, "argv", ["many_players.py", *TINY, "--out", str(out), "--record", "--name", "t", *extra])
    module.main()
    return recorded


def games_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text(encoding="utf-8").splitlines()]


def rate(wins: int, games: int) -> str:
    low, high = wilson_interval(wins, games)
    return f"{wins / games:.3f} [{low:.3f}, {high:.3f}]"


@pytest.mark.slow  # process pools
def test_a_tiny_run_records_what_its_games_files_say(monkeypatch, tmp_path):
    recorded = run(monkeypatch, tmp_path)
    columns, rows = recorded["t"]
    assert [r[0] for r in rows] == ["`random`, `random`", "`random`, `one-third`", "`one-third`, `one-third`",
                                    "**all tables, pooled**"]
    folders = {"`random`, `random`": "one-third_vs_random-random", "`random`, `one-third`":
               "one-third_vs_random-one-third", "`one-third`, `one-third`": "one-third_vs_one-third-one-third"}
    pooled = 0
    for row in rows[:3]:
        games = games_of(tmp_path / "3p1d" / folders[row[0]])
        assert sorted(g["game"] for g in games) == list(range(12))
        for g in games:  # the seating of game g is permutation g mod 3!
            assert g["seats"] == permute(range(3), g["game"])[0]
        wins = sum(g["seats"][g["winner"]] == 0 for g in games)  # the agent is player 0 of its table
        pooled += wins
        assert row[1:4] == [12, rate(wins, 12), "above" if wilson_interval(wins, 12)[0] > 1 / 3 else
                            "below" if wilson_interval(wins, 12)[1] < 1 / 3 else "holds it"]
    assert rows[3][1:3] == [36, rate(pooled, 36)]
    _, self_rows = recorded["t_self"]
    assert sorted(f.name for f in (tmp_path / "3p1d").iterdir()) == sorted(folders.values())  # self-play: a table
    games = games_of(tmp_path / "3p1d" / "one-third_vs_one-third-one-third")  # of the field, played once
    assert len(games) == 12 and [r[0] for r in self_rows] == ["seat 0 (opens the first round)", "seat 1", "seat 2",
                                                              "copy 0", "copy 1", "copy 2"]
    for i in range(3):
        seat_wins = sum(g["winner"] == i for g in games)
        copy_wins = sum(g["seats"][g["winner"]] == i for g in games)
        assert self_rows[i][1:3] == [12, rate(seat_wins, 12)] and self_rows[3 + i][1:3] == [12, rate(copy_wins, 12)]


@pytest.mark.slow  # process pools
def test_two_player_tables_seat_the_agent_in_both_seats(monkeypatch, tmp_path):
    recorded = run(monkeypatch, tmp_path, "--players", "2", "--games", "4", "--no-self-play")
    rows = recorded["t"][1]
    assert [r[0] for r in rows] == ["`random`", "`one-third`", "**all tables, pooled**"]
    for row, folder in zip(rows[:2], ["one-third_vs_random", "one-third_vs_one-third"], strict=True):
        games = games_of(tmp_path / "2p1d" / folder)
        assert [g["seats"] for g in sorted(games, key=lambda g: g["game"])] == [[0, 1], [1, 0], [0, 1], [1, 0]]
        assert row[1:3] == [4, rate(sum(g["seats"][g["winner"]] == 0 for g in games), 4)]


@pytest.mark.slow  # process pools
def test_a_resumed_run_plays_no_game_twice_and_the_same_games(monkeypatch, tmp_path):
    first = run(monkeypatch, tmp_path / "whole")
    kept = tmp_path / "resumed" / "3p1d"
    run(monkeypatch, tmp_path / "resumed", "--games", "5")  # stopped early: 5 games of each table
    lines = (kept / "one-third_vs_random-one-third" / "games.jsonl").read_text(encoding="utf-8").splitlines()
    (kept / "one-third_vs_random-one-third" / "games.jsonl").write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    resumed = run(monkeypatch, tmp_path / "resumed")  # the same command again, at 12 games
    assert [r[:4] for r in resumed["t"][1]] == [r[:4] for r in first["t"][1]]
    assert [r[:4] for r in resumed["t_self"][1]] == [r[:4] for r in first["t_self"][1]]
    for folder in kept.iterdir():
        games = games_of(folder)
        assert len(games) == 12 and len({(g["cell"], g["game"]) for g in games}) == 12
        assert sorted(games, key=lambda g: g["game"]) == sorted(games_of(tmp_path / "whole" / "3p1d" / folder.name),
                                                                key=lambda g: g["game"])


@pytest.mark.parametrize("args,message", [
    (["--agent", "nash"], "--agent 'nash' cannot play 3 players, 1 die each: "),
    (["--agent", "no-such-player"], "--agent: unknown player 'no-such-player'"),
    (["--players", "1"], "--players must be 2 or more, got 1"),
    (["--field", "random,random"], "--field lists 'random' twice"),
    (["--field", "mixture"], "--field 'mixture' cannot play 3 players"),
    (["--games", "0"], "--games and --workers must be >= 1"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(tmp_path, args, message):
    done = subprocess.run([sys.executable, str(SCRIPT), *TINY, "--out", str(tmp_path / "out"), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"many_players.py: error: {message}")
    assert not (tmp_path / "out").exists()
