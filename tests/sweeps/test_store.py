"""The sweep's games.jsonl: resuming, repairing a half-written line, refusing corruption and other seeds."""

from __future__ import annotations

import json

import pytest
from conftest import SMALL, lines, sweep

from ldpomdp.sweeps import GameStore, run_sweep

pytestmark = pytest.mark.slow  # every test here plays sweeps on a process pool


def test_resume_skips_finished_games_and_repairs_a_half_written_line(tmp_path):
    ref, out = tmp_path / "ref", tmp_path / "out"
    sweep(ref, workers=1)
    sweep(out, games=5, workers=1)  # a shorter run first: games 0-4 of every cell
    path = out / "games.jsonl"
    with open(path, "a") as fh:
        fh.write('{"cell": "players=one-third|bluff:0.3;dice=1;bi')  # killed mid-write
    store = GameStore(path)
    assert len(store.records) == 5 * len(SMALL) and path.read_text().endswith("}\n")
    sweep(out, workers=2)
    assert lines(out) == lines(ref)
    sweep(out, workers=2)  # nothing left to do: nothing is appended
    assert lines(out) == lines(ref)


def test_a_resume_says_what_the_folder_holds_beyond_its_summary(tmp_path):
    out, said = tmp_path / "out", []
    path = out / "games.jsonl"
    sweep(out, cells=SMALL[:2], games=6, workers=1)
    rows = sweep(out, cells=SMALL[:2], games=4, workers=1, log=said.append)  # a smaller --games
    assert [r.games for r in rows] == [4] * 4
    assert said[:2] == [f"{path} holds 4 more games of these cells (up to 6 per cell): the summary uses games 0-3 of "
                        f"each; give --games 6 to include them",
                        f"nothing left to play: all 8 games of the 2 cells are in {path}"]
    assert said[2:] == [said[2]] and said[2].startswith("exact best response for 4 of 4 rows")
    said.clear()
    rows = sweep(out, cells=SMALL[2:3], games=3, workers=1, log=said.append)  # other cells into the same folder
    assert {r.cell for r in rows} == {SMALL[2].id}
    assert said[:2] == [f"{path} also holds 12 games of 2 cells this run does not name (other players, dice or "
                        f"rules): kept there, left out of summary.csv",
                        f"3 of 3 games to play (1 cells) -> {path}"]
    assert len(lines(out)) == 15


def test_store_rejects_corruption_and_other_seeds(tmp_path):
    out = tmp_path / "out"
    sweep(out, games=2, workers=1)
    with pytest.raises(ValueError, match=r"8 of its 8 games were played with another seed than 8 \(first: line 1, "
                                         r"seed 7\)"):
        run_sweep(SMALL, 2, out, seed=8, progress=False, log=None)
    text = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join([text[0], "garbage", *text[1:]]) + "\n")
    with pytest.raises(ValueError, match=r"line 2 is not a game record \(not JSON\)"):
        sweep(out, games=2, workers=1)


def test_one_edited_seed_is_named_by_its_line(tmp_path):
    out = tmp_path / "out"
    sweep(out, games=2, workers=1)
    text = (out / "games.jsonl").read_text().splitlines()
    text[4] = text[4].replace('"seed":7', '"seed":99')
    (out / "games.jsonl").write_text("\n".join(text) + "\n")
    with pytest.raises(ValueError, match=r"1 of its 8 games were played with another seed than 7 \(first: line 5, "
                                         r"seed 99\)"):
        sweep(out, games=2, workers=1)


@pytest.mark.parametrize("edit,problem", [
    (lambda r: r.pop("winner"), "no winner"),
    (lambda r: r.update(winner=7), "winner 7 is not one of the 2 seats"),
    (lambda r: r.update(seats=[0, 0]), r"seats \[0, 0\] is not an order of the players"),
    (lambda r: r.update(challenges=[1]), r"challenges \[1\] is not a count per seat"),
    (lambda r: r.update(game="3"), "game '3' is not an integer >= 0"),
    (lambda r: r.update(finish=r["finish"][::-1]), r"finish \[\d, \d\] is not an order of the seats from the winner"),
    (lambda r: r.update(finish=[0]), r"finish \[0\] is not an order of the seats"),
])
def test_valid_json_that_is_not_a_game_record_is_named_by_its_line(tmp_path, edit, problem):
    out = tmp_path / "out"
    cells = SMALL[:2]
    sweep(out, cells=cells, games=2, workers=1)
    text = (out / "games.jsonl").read_text().splitlines()
    record = json.loads(text[2])
    edit(record)
    text[2] = json.dumps(record)
    for ending in ("\n", ""):  # also as the last line without its newline, which is not cut as half-written
        (out / "games.jsonl").write_text("\n".join(text[:3] if ending == "" else text) + ending)
        with pytest.raises(ValueError, match=rf"line 3 is not a game record \({problem}"):
            sweep(out, cells=cells, games=2, workers=1)


def _without_finish(line: str) -> str:
    return json.dumps({k: v for k, v in json.loads(line).items() if k != "finish"}, separators=(",", ":"))


def test_a_folder_written_before_finishing_orders_resumes_and_keeps_its_lines(tmp_path):
    out, ref = tmp_path / "out", tmp_path / "ref"
    sweep(ref, games=4, workers=1)
    sweep(out, games=2, workers=1)
    old = [_without_finish(line) for line in lines(out)]
    (out / "games.jsonl").write_text("\n".join(old) + "\n")
    sweep(out, games=4, workers=1)
    got = lines(out)
    assert set(old) <= set(got) and len(got) == 4 * len(SMALL)  # the old lines kept as they were, each game once
    assert sorted(map(_without_finish, got)) == sorted(map(_without_finish, lines(ref)))  # the same games
    assert all(("finish" in json.loads(line)) == (json.loads(line)["game"] >= 2) for line in got)
