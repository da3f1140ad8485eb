"""Sweep runner: seeds independent of workers, resumable storage, summaries, validation, executors."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from ldpomdp import GameConfig, PlayerError
from ldpomdp.cli import build_parser
from ldpomdp.cli import main as cli_main
from ldpomdp.sweeps import (
    EXPERIMENTS,
    Cell,
    GameStore,
    game_seed,
    parse_dice_range,
    play_batch,
    run_experiment,
    run_sweep,
    summarize,
    wilson_interval,
)

SMALL = [Cell.of(("one-third", "bluff:0.3"), d, bids="sixes") for d in (1, 2, 4)] + [
    Cell.of(("random", "one-third", "bluff:0.5"), 2, bids="sixes")]


def lines(folder: Path) -> list[str]:
    return sorted((folder / "games.jsonl").read_text().splitlines())


def sweep(out, cells=SMALL, games=12, **kw):
    kw.setdefault("progress", False)
    kw.setdefault("log", None)
    kw.setdefault("seed", 7)
    return run_sweep(cells, games, out, **kw)


# --- statistics -----------------------------------------------------------------------------------

@pytest.mark.parametrize("k,n,low,high", [
    (5, 10, 0.2366, 0.7634),  # textbook values (e.g. Newcombe 1998, Agresti & Coull 1998)
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (50, 100, 0.4038, 0.5962),
    (81, 263, 0.2553, 0.3662),
])
def test_wilson_interval_known_values(k, n, low, high):
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)


@pytest.mark.parametrize("n", [10, 30, 50, 100, 1000])
def test_wilson_interval_is_exactly_closed_at_no_and_all_successes(n):
    # rounding used to leave 6.9e-18 at 0 of 50 and 0.9999999999999999 at 10 of 10: negative error bars
    assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
    for k in (0, 1, n // 2, n - 1, n):
        low, high = wilson_interval(k, n)
        assert low <= k / n <= high


def test_wilson_endpoints_invert_the_score_test():
    z = 1.959963984540054
    for k, n in [(3, 17), (40, 41), (500, 1000)]:
        p = k / n
        for p0 in wilson_interval(k, n):
            if 0 < p0 < 1:
                assert abs(p - p0) == pytest.approx(z * math.sqrt(p0 * (1 - p0) / n), rel=1e-9)


def test_summarize_maps_seats_to_players():
    cell = Cell.of(("a.b:X", "c.d:Y", "e.f:Z"), 3)
    records = {
        # seats[s] = player index in seat s; winner and challenges are per seat
        (cell.id, 0): {"seats": [0, 1, 2], "winner": 1, "challenges": [2, 0, 1], "successful_challenges": [1, 0, 1]},
        (cell.id, 1): {"seats": [1, 2, 0], "winner": 0, "challenges": [0, 3, 1], "successful_challenges": [0, 1, 0]},
        (cell.id, 2): {"seats": [2, 0, 1], "winner": 2, "challenges": [1, 1, 1], "successful_challenges": [1, 1, 1]},
        (cell.id, 9): {"seats": [0, 1, 2], "winner": 0, "challenges": [9, 9, 9], "successful_challenges": [9, 9, 9]},
    }
    rows = summarize([cell], 3, records)  # game 9 is outside the 3 requested games
    assert [r.games for r in rows] == [3, 3, 3]
    assert [r.wins for r in rows] == [0, 3, 0]  # player 1 won in seats 1, 0 and 2
    # player 0 sat in seats 0, 2, 1: challenges 2 + 1 + 1, successes 1 + 0 + 1
    assert rows[0].challenges_per_game == pytest.approx(4 / 3) and rows[0].challenge_success_rate == pytest.approx(0.5)
    # player 2 sat in seats 2, 1, 0: challenges 1 + 3 + 1, successes 1 + 1 + 1
    assert rows[2].challenges_per_game == pytest.approx(5 / 3) and rows[2].challenge_success_rate == pytest.approx(0.6)
    assert rows[1].win_rate == 1.0 and rows[1].ci_low == pytest.approx(wilson_interval(3, 3)[0])


# --- cells ----------------------------------------------------------------------------------------

def test_cell_ids_stay_the_same():
    # every game's seed hashes its cell's id, and a resumed sweep finds its games by it: these must never change
    assert Cell.of(("one-third", "random"), 2).id == (
        "players=one-third|random;dice=2;bids=full;faces=6;wild=1;opener=after_challenger")
    assert Cell.of(("expected-count:particles=10000", "one-third", "one-third"), 35, bids="sixes").id == (
        "players=expected-count:particles=10000|one-third|one-third;dice=35;bids=sixes;faces=6;wild=1;"
        "opener=after_challenger")
    assert Cell.of((" one-third ", "bluff:0.3"), 4, bids="sixes", faces=4, wild=None, opener="loser").id == (
        "players=one-third|bluff:0.3;dice=4;bids=sixes;faces=4;wild=None;opener=loser")
    assert Cell(("a", "b"), GameConfig(2, (3, 3), faces=8, wild=8)).id == (
        "players=a|b;dice=3;bids=full;faces=8;wild=8;opener=after_challenger")


def test_a_cell_is_read_back_from_its_id():
    cells = [cell for experiment in EXPERIMENTS.values() for cell in experiment.cells(quick=True)]
    cells.append(Cell.of(("pomcp:sims=200,assume=oehm:0.2", "one-third"), 4, bids="sixes", faces=4, wild=None,
                         opener="loser"))
    assert [Cell.from_id(cell.id) for cell in cells] == cells
    for text in ("players=a|b;dice=2", "players=a|b;dice=two;bids=full;faces=6;wild=1;opener=loser",
                 "players=a|b;dice=2;bids=full;faces=6;wild=1;opener=loser;extra=1"):
        with pytest.raises(ValueError, match="is not a cell id"):
            Cell.from_id(text)


def test_a_cell_holds_its_config():
    config = GameConfig(3, 4, bids="sixes")
    cell = Cell(["one-third", "random", " bluff:0.3"], config)
    assert cell.players == ("one-third", "random", "bluff:0.3") and cell.config is config and cell.dice == 4
    assert cell == Cell.of(("one-third", "random", "bluff:0.3"), 4, bids="sixes")


@pytest.mark.parametrize("make,error,message", [
    (lambda: Cell(("one-third", "random"), GameConfig(3, 2)),
     ValueError, r"^cell players=one-third\|random: 2 players but its config has num_players=3$"),
    (lambda: Cell(("one-third", "random"), GameConfig(2, (2, 3))),
     ValueError, r"^cell players=one-third\|random: every player must start with the same dice"),
    (lambda: Cell(("one-third", "random"), 2), TypeError, "config must be a GameConfig"),
    (lambda: Cell.of(("one-third", "one-third"), 0), ValueError, r"^cell players=one-third\|one-third;dice=0: .*"
                                                                 r"dice must be an integer >= 1"),
    (lambda: Cell.of(("one-third",), 3), ValueError, r"^cell players=one-third;dice=3: .*num_players .*>= 2"),
    (lambda: Cell.of(("one-third", "one-third"), 3, bids="most"), ValueError, "dice=3: .*bids must be one of"),
    (lambda: Cell.of(("one-third", "one-third"), 3, bid="sixes"), TypeError, "dice=3: .*'bid'"),
])
def test_a_bad_cell_fails_on_creation_naming_itself(make, error, message):
    with pytest.raises(error, match=message):
        make()


# --- seeds and seats ------------------------------------------------------------------------------

def test_game_seed_is_the_spawned_child():
    cell = SMALL[0]
    parent = np.random.SeedSequence([7, int(game_seed(7, cell, 0).entropy[1])])
    children = parent.spawn(5)
    for g in range(5):
        a = np.random.default_rng(game_seed(7, cell, g)).integers(0, 2**63, 4)
        assert np.array_equal(a, np.random.default_rng(children[g]).integers(0, 2**63, 4))
    assert game_seed(7, cell, 0).entropy != game_seed(7, SMALL[1], 0).entropy


def test_batches_do_not_change_games_and_seats_rotate():
    cell = SMALL[3]
    whole, _ = play_batch(cell, 3, range(9))
    split = play_batch(cell, 3, [4, 5, 6, 7, 8])[0] + play_batch(cell, 3, [0, 1, 2, 3])[0]
    assert sorted(whole, key=lambda r: r["game"]) == sorted(split, key=lambda r: r["game"])
    opens = [0, 0, 0]  # seat 0 opens every game
    for r in whole:
        opens[r["seats"][0]] += 1
        assert sorted(r["seats"]) == [0, 1, 2]
    assert opens == [3, 3, 3]


@pytest.mark.parametrize("spec,dice", [("expected-count:particles=30", 8), ("pomcp:sims=30,n_particles=100", 3)])
def test_planner_games_do_not_depend_on_batches(spec, dice):
    # the planners draw belief particles (and pomdp-py draws from Python's random) outside the game's
    # generator: each game must reseed them, or a game would depend on the games before it in its batch
    cell = Cell.of((spec, "one-third"), dice, bids="sixes")
    whole = play_batch(cell, 1, range(8))[0]
    split = play_batch(cell, 1, [4, 5, 6, 7])[0] + play_batch(cell, 1, [0, 1, 2, 3])[0]
    assert sorted(whole, key=lambda r: r["game"]) == sorted(split, key=lambda r: r["game"])


# --- executors ------------------------------------------------------------------------------------

def test_one_and_two_workers_give_identical_games(tmp_path):
    rows1 = sweep(tmp_path / "w1", workers=1)
    rows2 = sweep(tmp_path / "w2", workers=2, batch=5)
    assert lines(tmp_path / "w1") == lines(tmp_path / "w2")
    assert len(lines(tmp_path / "w1")) == 12 * len(SMALL)
    assert rows1 == rows2
    assert (tmp_path / "w1" / "summary.csv").read_text() == (tmp_path / "w2" / "summary.csv").read_text()


def test_any_executor_and_dask_cluster_give_the_same_games(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    sweep(tmp_path / "ref", workers=1)
    with ThreadPoolExecutor(3) as pool:
        sweep(tmp_path / "threads", executor=pool, batch=4)
    assert lines(tmp_path / "threads") == lines(tmp_path / "ref")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        sweep(tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert lines(tmp_path / "dask") == lines(tmp_path / "ref")


# --- storage and resuming -------------------------------------------------------------------------

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


def _count_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_killed_sweep_resumes_with_every_game_exactly_once(tmp_path):
    args = ["--players", "one-third,random", "--dice", "1-8", "--bids", "sixes", "--games", "100",
            "--seed", "3", "--no-plot", "--no-progress"]
    cmd = [sys.executable, "-m", "ldpomdp.cli", "sweep", *args]
    killed = tmp_path / "killed"
    proc = subprocess.Popen([*cmd, "--out", str(killed), "--workers", "2"], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while _count_lines(killed / "games.jsonl") < 150 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its worker pool
    proc.wait()
    partial = _count_lines(killed / "games.jsonl")
    assert 0 < partial < 8 * 100, "the sweep should have been killed mid-run"
    assert subprocess.run([*cmd, "--out", str(killed), "--workers", "2"], capture_output=True).returncode == 0
    sweep(tmp_path / "whole", cells=[Cell.of(("one-third", "random"), d, bids="sixes") for d in range(1, 9)], games=100,
          seed=3, workers=1)
    got = lines(killed)
    keys = [(r["cell"], r["game"]) for r in map(json.loads, got)]
    assert len(keys) == len(set(keys)) == 8 * 100
    assert got == lines(tmp_path / "whole")


def _session(sid: int) -> list[int]:
    """Live processes of session ``sid`` (a sweep started with ``start_new_session`` and everything it started,
    reparented or not), read from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        state, _ppid, _pgrp, session = stat[stat.rindex(")") + 2:].split()[:4]
        if int(session) == sid and state != "Z":
            members.append(int(entry.name))
    return members


def _gone_within(sid: int, seconds: float) -> list[int]:
    """Wait until session ``sid`` has no live process (or ``seconds`` pass); return what is left."""
    deadline = time.time() + seconds
    while _session(sid) and time.time() < deadline:
        time.sleep(0.1)
    return _session(sid)


def _endless_sweep(out: Path, log: Path, **popen) -> subprocess.Popen:
    """A CLI sweep on two workers that would run for hours, started in its own session."""
    cmd = [sys.executable, "-m", "ldpomdp.cli", "sweep", "--players", "one-third,random", "--dice", "20",
           "--games", "100000", "--workers", "2", "--no-plot", "--no-progress", "--out", str(out)]
    with open(log, "w") as fh:  # a file, not a pipe: whatever outlives the sweep must not hold the test up
        return subprocess.Popen(cmd, start_new_session=True, stdout=fh, stderr=subprocess.STDOUT, **popen)


def _wait_for_games(path: Path, proc: subprocess.Popen, games: int = 1) -> None:
    deadline = time.time() + 60
    while _count_lines(path) < games and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert _count_lines(path) >= games and proc.poll() is None, "the sweep did not get going"


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")


@needs_proc
@pytest.mark.parametrize("signum,whole_group", [(signal.SIGTERM, False), (signal.SIGINT, True)])
def test_sigterm_stops_a_sweep_like_ctrl_c_and_leaves_no_process(tmp_path, signum, whole_group):
    # Ctrl-C signals the whole process group; `kill PID` sends SIGTERM to the sweep alone
    out, log = tmp_path / "out", tmp_path / "log"
    proc = _endless_sweep(out, log)
    try:
        _wait_for_games(out / "games.jsonl", proc)
        assert len(_session(proc.pid)) >= 4  # the sweep, its forkserver and resource tracker, two workers
        (os.killpg if whole_group else os.kill)(proc.pid, signum)
        assert proc.wait(timeout=30) == 130
        assert _gone_within(proc.pid, 10) == []
        saved = _count_lines(out / "games.jsonl")
        assert f"{saved} games are saved in" in log.read_text()
        assert "run the same command again to resume" in log.read_text()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


@needs_proc
def test_workers_exit_on_their_own_when_the_sweep_is_killed(tmp_path):
    out = tmp_path / "out"
    proc = _endless_sweep(out, tmp_path / "log")
    try:
        _wait_for_games(out / "games.jsonl", proc)
        assert len(_session(proc.pid)) >= 4
        os.kill(proc.pid, signal.SIGKILL)  # the sweep alone: nothing can clean up after it
        proc.wait(timeout=30)
        assert _gone_within(proc.pid, 10) == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def test_a_busy_folder_is_refused_at_once_and_a_killed_runs_lock_does_not_block(tmp_path):
    out = tmp_path / "out"
    first = _endless_sweep(out, tmp_path / "log")
    try:
        _wait_for_games(out / "games.jsonl", first)
        second = subprocess.run([sys.executable, "-m", "ldpomdp.cli", "sweep", "--players", "one-third,random",
                                 "--dice", "20", "--games", "5", "--workers", "1", "--no-plot", "--no-progress",
                                 "--out", str(out)], capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert f"is in use by another sweep (pid {first.pid})" in second.stderr
        assert "games to play" not in second.stdout
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    assert (out / ".lock").read_text().strip() == str(first.pid)  # left behind by the killed run
    done = _count_lines(out / "games.jsonl")
    rows = sweep(out, cells=[Cell.of(("one-third", "random"), 20, bids="full")], games=done + 3, seed=0, workers=1)
    assert rows[0].games == done + 3
    keys = [(r["cell"], r["game"]) for r in map(json.loads, lines(out))]
    assert len(keys) == len(set(keys)) and set(range(done + 3)) <= {g for _, g in keys}
    assert (out / ".lock").read_text() == ""  # released


CRASHY = """from ldpomdp.opponents import BaseOpponent


class Crashy(BaseOpponent):
    def act(self, view, rng):
        if len(view.history) >= 2:
            return view.legal_actions()[0] / 0  # the user's bug
        return view.legal_actions()[0]
"""


def test_a_user_players_exception_in_a_sweep_names_cell_game_spec_and_seat(tmp_path):
    (tmp_path / "userbots").mkdir()
    (tmp_path / "userbots" / "__init__.py").write_text("")
    (tmp_path / "userbots" / "crashy.py").write_text(CRASHY)
    run = subprocess.run([sys.executable, "-m", "ldpomdp.cli", "sweep", "--players", "userbots.crashy:Crashy,one-third",
                          "--dice", "3", "--games", "20", "--workers", "2", "--no-plot", "--no-progress",
                          "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert run.returncode == 2
    head, *rest = run.stderr.splitlines()
    assert re.fullmatch(r"ldpomdp: error: cell players=userbots\.crashy:Crashy\|one-third;dice=3;\S+, game \d+: player "
                        r"userbots\.crashy:Crashy \(seat [01]\) raised TypeError in act:", head), head
    assert rest[0] == f'  File "{tmp_path / "userbots" / "crashy.py"}", line 7, in act'
    assert rest[1] == "    return view.legal_actions()[0] / 0  # the user's bug"
    assert rest[-1].startswith("TypeError: unsupported operand type(s) for /")
    assert "Traceback" not in run.stderr


LEAKY = """from ldpomdp.opponents import OneThirdRule


class Leaky(OneThirdRule):
    \"\"\"The one-third rule's probabilities, each times 0.9: they sum to 0.9 over the legal actions.\"\"\"

    def action_probabilities(self, hands, view, action):
        return 0.9 * super().action_probabilities(hands, view, action)
"""


def test_a_model_whose_probabilities_do_not_sum_to_one_stops_a_sweep_naming_its_class(tmp_path, monkeypatch):
    (tmp_path / "leakypkg").mkdir()
    (tmp_path / "leakypkg" / "__init__.py").write_text("")
    (tmp_path / "leakypkg" / "bots.py").write_text(LEAKY)
    monkeypatch.syspath_prepend(str(tmp_path))
    cells = [Cell.of(("expected-count:particles=50,assume=leakypkg.bots:Leaky", "leakypkg.bots:Leaky"), 3)]
    with ThreadPoolExecutor(1) as pool, pytest.raises(PlayerError) as err:
        sweep(tmp_path / "out", cells=cells, games=2, executor=pool)
    assert re.search(r"raised ValueError in observe:\n.*\nValueError: Leaky\.action_probabilities sums to 0\.9 "
                     r"\(not 1\) over the legal actions for hand \(", str(err.value), re.S)
    sys.modules.pop("leakypkg.bots", None)


def test_an_unreachable_dask_scheduler_fails_with_a_clear_error(tmp_path, monkeypatch):
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr("ldpomdp.sweeps.runner.SCHEDULER_TIMEOUT", 1)
    with pytest.raises(ValueError, match=r"cannot reach the dask scheduler at 'tcp://127\.0\.0\.1:1': .*after 1 s"):
        sweep(tmp_path / "out", scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match=r"cannot reach the dask scheduler at 'no-port'"):
        sweep(tmp_path / "out", scheduler="no-port")


# --- validation -----------------------------------------------------------------------------------

@pytest.mark.parametrize("cells,games,message", [
    ([Cell.of(("one-third", "nosuchplayer"), 3)], 5, "unknown player 'nosuchplayer'"),
    ([Cell.of(("one-third", "bluff:1.5"), 3)], 5, r"bluff.*\[0, 1\]"),
    ([Cell.of(("one-third", "one-third"), 3)], 0, "games per cell"),
])
def test_bad_sweeps_fail_before_any_game(tmp_path, cells, games, message):
    with pytest.raises(ValueError, match=message):
        run_sweep(SMALL[:1] + cells, games, tmp_path / "out", progress=False, log=None)
    assert not (tmp_path / "out").exists()


def test_unwritable_output_fails_before_any_game(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="not writable"):
        run_sweep(SMALL, 5, tmp_path / "file" / "out", progress=False, log=None)


def test_cli_reports_bad_input_clearly(tmp_path, capsys):
    assert cli_main(["sweep", "--players", "one-third,bluff:1.5", "--dice", "2", "--out", str(tmp_path / "o")]) == 2
    assert "bluff:1.5" in capsys.readouterr().err
    assert cli_main(["sweep", "--experiment", "fig99"]) == 2
    assert "unknown experiment 'fig99'" in capsys.readouterr().err
    assert cli_main(["sweep", "--players", "one-third,one-third", "--dice", "0-3"]) == 2
    assert "--dice" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv,option", [
    (["sweep", "--players", "one-third,random", "--dice", "2", "--games", "0"], "--games"),  # used to play 1000
    (["sweep", "--players", "one-third,random", "--dice", "2", "--games", "-5"], "--games"),
    (["sweep", "--players", "one-third,random", "--dice", "2", "--workers", "0"], "--workers"),
    (["sweep", "--players", "one-third,random", "--dice", "2", "--seed", "-4"], "--seed"),
    (["sweep", "--experiment", "fig2", "--quick", "--games", "0"], "--games"),
    (["play", "--seed", "-4"], "--seed"),
])
def test_cli_refuses_out_of_range_integers_naming_the_option(tmp_path, capsys, argv, option):
    with pytest.raises(SystemExit) as exit_:
        cli_main([*argv, "--out", str(tmp_path / "o")] if argv[0] == "sweep" else argv)
    assert exit_.value.code == 2
    assert f"argument {option}: must be an integer >= " in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_run_experiment_refuses_zero_games(tmp_path):
    with pytest.raises(ValueError, match="games per cell must be an integer >= 1, got 0"):
        run_experiment(EXPERIMENTS["fig2"], quick=True, games=0, out=tmp_path / "o", progress=False, log=None)
    assert not (tmp_path / "o").exists()


def test_parse_dice_range():
    assert parse_dice_range("1-5") == [1, 2, 3, 4, 5]
    assert parse_dice_range("3,1-35:10") == [1, 3, 11, 21, 31]
    for bad in ("", "a-b", "0-2", "5-"):
        with pytest.raises(ValueError, match="--dice"):
            parse_dice_range(bad)


# --- outputs --------------------------------------------------------------------------------------

def test_cli_sweep_writes_csv_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "cli"
    assert cli_main(["sweep", "--players", "one-third,random", "--dice", "1-3", "--games", "6", "--bids", "sixes",
                     "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    header, *lines = (out / "summary.csv").read_text().splitlines()
    assert header == ("cell,dice,bids,player,player_index,games,wins,win_rate,ci_low,ci_high,"
                      "challenges_per_game,challenge_success_rate,best_response,exact_value")
    for line in lines:  # one-third and random are both models of the sixes game: every exact figure is there
        best, value = map(float, line.split(",")[-2:])
        assert 0.0 < value <= best <= 1.0
    assert (out / "win_rate.png").stat().st_size > 1000
    assert "win rate" in capsys.readouterr().out


def test_single_cell_gives_bar_charts_and_no_matplotlib_still_gives_csv(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from ldpomdp.sweeps.plots import plot_summary

    cells = SMALL[3:]
    rows = sweep(tmp_path, cells=cells, workers=1)
    assert sorted(p.name for p in plot_summary(rows, cells, tmp_path)) == ["challenges.png", "wins.png"]
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import now fails
    assert plot_summary(rows, cells, tmp_path) == []


def test_one_cell_sweep_that_one_player_wins_every_game_draws_its_bars(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "sweep"
    assert cli_main(["sweep", "--players", "one-third,random", "--dice", "10", "--games", "10", "--out", str(out),
                     "--workers", "1", "--no-progress"]) == 0
    wins = [line.split(",")[6] for line in (out / "summary.csv").read_text().splitlines()[1:]]
    assert wins == ["10", "0"]  # all and none: the Wilson ends that used to give negative error bars
    assert (out / "wins.png").stat().st_size > 1000 and (out / "challenges.png").stat().st_size > 1000


def test_the_cli_and_python_default_to_the_same_game(tmp_path):
    # the README's `ldpomdp sweep` and `Cell` examples must play the same game: GameConfig's, the full game
    parser = build_parser()
    assert (parser.parse_args(["sweep"]).bids == parser.parse_args(["play"]).bids == Cell.of(("a", "b"), 1).config.bids
            == GameConfig().bids == "full")
    assert cli_main(["sweep", "--players", "one-third,random", "--dice", "2", "--games", "6", "--workers", "1",
                     "--no-plot", "--no-progress", "--out", str(tmp_path / "cli")]) == 0
    sweep(tmp_path / "py", cells=[Cell.of(("one-third", "random"), 2)], games=6, seed=0, workers=1)
    assert lines(tmp_path / "cli") == lines(tmp_path / "py")


def test_plot_titles_name_the_game_once_and_dice_ticks_are_whole(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from ldpomdp.sweeps.plots import plot_summary

    drawn = {}
    monkeypatch.setattr(Figure, "savefig", lambda fig, path, **kw: drawn.__setitem__(Path(path).name, fig.axes[0]))
    cells = SMALL[:3]  # dice 1, 2 and 4, the sixes game
    rows = sweep(tmp_path, cells=cells, games=4, workers=1)
    plot_summary(rows, cells, tmp_path, title="one-third vs bluff (a test)")
    ax = drawn["win_rate.png"]
    assert ax.get_title() == "one-third vs bluff (a test)\nsixes game, 6 faces, ones wild; 4 games per point"
    assert all(float(tick).is_integer() for tick in ax.get_xticks())
    full = [Cell.of(("one-third", "random"), 3)]
    plot_summary(sweep(tmp_path / "full", cells=full, games=4, workers=1), full, tmp_path, title="one-third vs random")
    assert drawn["wins.png"].get_title() == ("one-third vs random: wins\n"
                                             "full game, 6 faces, ones wild; 3 dice each; 4 games")


def test_named_experiments_build_distinct_cells():
    for name, exp in EXPERIMENTS.items():
        for quick in (True, False):
            cells = exp.cells(quick)
            assert cells and len({c.id for c in cells}) == len(cells), name
            assert all(c.config == GameConfig(len(c.players), c.dice, bids="sixes") for c in cells), name
        assert exp.quick_games < exp.games


def test_run_experiment_uses_quick_settings_and_its_x_axis(tmp_path, capsys):
    from ldpomdp.sweeps import Experiment

    exp = Experiment("bluffs", "bluff sweep", lambda quick: [Cell.of(("one-third", f"bluff:{b}"), 2)
                                                            for b in ((0.0, 1.0) if quick else (0.0, 0.5, 1.0))],
                     games=9, quick_games=4, x_label="bluff", x_of=lambda c: float(c.players[1].split(":")[1]))
    rows = run_experiment(exp, quick=True, out=tmp_path, plot=False, workers=1, progress=False)
    assert [(r.games, r.player) for r in rows] == [(4, "one-third"), (4, "bluff:0.0"), (4, "one-third"),
                                                   (4, "bluff:1.0")]
    table = capsys.readouterr().out
    assert "  bluff player" in table and "\n    1.0 1: bluff:1.0" in table
