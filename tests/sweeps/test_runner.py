"""The sweep runner: games independent of batches, workers and executors; interruption, killing and folder
locks; errors from players' code; validation before any game."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import SMALL, lines, sweep

from ldpomdp import PlayerError
from ldpomdp.errors import UsageError
from ldpomdp.sweeps import Cell, play_batch, run_sweep


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


@pytest.mark.slow
def test_one_and_two_workers_give_identical_games(tmp_path):
    rows1 = sweep(tmp_path / "w1", workers=1)
    rows2 = sweep(tmp_path / "w2", workers=2, batch=5)
    assert lines(tmp_path / "w1") == lines(tmp_path / "w2")
    assert len(lines(tmp_path / "w1")) == 12 * len(SMALL)
    assert rows1 == rows2
    assert (tmp_path / "w1" / "summary.csv").read_text() == (tmp_path / "w2" / "summary.csv").read_text()


@pytest.mark.slow
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


def _count_lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


@pytest.mark.slow
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


def _as_in_a_terminal() -> None:
    """In the sweep's process before it starts: Ctrl-C's signal delivered as in a terminal. A shell that ran the
    tests in the background ignores SIGINT, and the sweep would inherit that and play on."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _endless_sweep(out: Path, log: Path, **popen) -> subprocess.Popen:
    """A CLI sweep on two workers that would run for hours, started in its own session."""
    cmd = [sys.executable, "-m", "ldpomdp.cli", "sweep", "--players", "one-third,random", "--dice", "20",
           "--games", "100000", "--workers", "2", "--no-plot", "--no-progress", "--out", str(out)]
    with open(log, "w") as fh:  # a file, not a pipe: whatever outlives the sweep must not hold the test up
        return subprocess.Popen(cmd, start_new_session=True, stdout=fh, stderr=subprocess.STDOUT,
                                preexec_fn=_as_in_a_terminal, **popen)


def _wait_for_games(path: Path, proc: subprocess.Popen, games: int = 1) -> None:
    deadline = time.time() + 60
    while _count_lines(path) < games and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert _count_lines(path) >= games and proc.poll() is None, "the sweep did not get going"


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


CRASHY = """from ldpomdp.opponent import BaseOpponent


class Crashy(BaseOpponent):
    def act(self, view, rng):
        if len(view.history) >= 2:
            return view.legal_actions()[0] / 0  # the user's bug
        return view.legal_actions()[0]
"""


@pytest.mark.slow
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


LEAKY = """from ldpomdp.players import OneThirdRule


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


@pytest.mark.slow
def test_an_unreachable_dask_scheduler_fails_with_a_clear_error(tmp_path, monkeypatch):
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr("ldpomdp.sweeps.runner.SCHEDULER_TIMEOUT", 1)
    with pytest.raises(ValueError, match=r"cannot reach the dask scheduler at 'tcp://127\.0\.0\.1:1': .*after 1 s"):
        sweep(tmp_path / "out", scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match=r"cannot reach the dask scheduler at 'no-port'"):
        sweep(tmp_path / "out", scheduler="no-port")
    assert list(tmp_path.iterdir()) == []  # issue 55: reached before the folder is made


def test_a_run_that_fails_before_storing_a_game_leaves_no_folder(tmp_path, monkeypatch):
    from ldpomdp.sweeps import runner

    def broken(*args, **kwargs):
        raise UsageError("refused in the middle")

    monkeypatch.setattr(runner, "_play", broken)
    with pytest.raises(UsageError, match="refused in the middle"):
        sweep(tmp_path / "new" / "out", games=2)
    assert list(tmp_path.iterdir()) == []  # the folders it made are gone, and only those
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("mine")
    with pytest.raises(UsageError):
        sweep(tmp_path / "kept", games=2)
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == [".lock", "games.jsonl", "notes.txt"]


@pytest.mark.parametrize("cells,games,message", [
    ([Cell.of(("one-third", "nosuchplayer"), 3)], 5, "unknown player 'nosuchplayer'"),
    ([Cell.of(("one-third", "bluff:1.5"), 3)], 5, "bluff must be at most 1, got 1.5"),
    ([Cell.of(("one-third", "one-third"), 3)], 0, "games per cell"),
    ([Cell.of(("one-third", "human"), 3)], 5, r"player 'human' in cell \S+: a person cannot play in a sweep"),
])
def test_bad_sweeps_fail_before_any_game(tmp_path, cells, games, message):
    with pytest.raises(ValueError, match=message):
        run_sweep(SMALL[:1] + cells, games, tmp_path / "out", progress=False, log=None)
    assert not (tmp_path / "out").exists()


def test_unwritable_output_fails_before_any_game(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="not writable"):
        run_sweep(SMALL, 5, tmp_path / "file" / "out", progress=False, log=None)


@pytest.mark.slow
def test_workers_run_the_code_the_sweep_imported_even_beside_a_folder_named_ldpomdp(tmp_path):
    """Run from a folder holding another ``ldpomdp`` (a source checkout after a regular install), the workers must
    import the package the sweep itself imported (Python 3.11's forkserver puts its working folder first)."""
    (tmp_path / "ldpomdp").mkdir()
    (tmp_path / "ldpomdp" / "__init__.py").write_text('"""Not the package: a folder that shadows it."""\n')
    console_script = Path(sys.executable).with_name("ldpomdp")  # the installed command, as a user runs it
    out = subprocess.run([str(console_script), "sweep", "--players", "expected-count,one-third",
                          "--dice", "2", "--games", "4", "--workers", "2", "--out", str(tmp_path / "out")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert len(lines(tmp_path / "out")) == 4


OLD_ID = "players=bluff:0.30|one-third;dice=2;bids=full;faces=6;wild=1;opener=after_challenger"  # before canonical


def test_a_folder_written_before_canonical_specs_resumes_under_its_old_ids(tmp_path):
    """A folder holding a cell's games under its players' old spelling: the same sweep, given in any spelling, plays
    only the missing games, under the old id and its seeds, so the folder is what one uninterrupted run writes."""
    with ThreadPoolExecutor(1) as pool:
        sweep(tmp_path / "whole", cells=[Cell.from_id(OLD_ID)], games=6, executor=pool)
        sweep(tmp_path / "resumed", cells=[Cell.from_id(OLD_ID)], games=4, executor=pool)  # as the old version
        rows = sweep(tmp_path / "resumed", cells=[Cell.of(("bluff:0.3", "one-third"), 2)], games=6, executor=pool)
    assert lines(tmp_path / "resumed") == lines(tmp_path / "whole")
    assert {json.loads(line)["cell"] for line in lines(tmp_path / "resumed")} == {OLD_ID}
    assert {row.cell for row in rows} == {OLD_ID} and all(row.games == 6 for row in rows)


def test_a_folder_holding_one_cell_under_two_spellings_is_refused_naming_both(tmp_path):
    with ThreadPoolExecutor(1) as pool:
        sweep(tmp_path, cells=[Cell.from_id(OLD_ID)], games=2, executor=pool)
        sweep(tmp_path, cells=[Cell.from_id(OLD_ID.replace("bluff:0.30", "bluff:bluff=0.3"))], games=2, executor=pool)
        with pytest.raises(ValueError, match=r"holds games of one cell under two spellings, 'players=bluff:0\.30\|.*' "
                                             r"and 'players=bluff:bluff=0\.3\|.*', seeded apart: move the lines"):
            sweep(tmp_path, cells=[Cell.of(("bluff:0.3", "one-third"), 2)], games=3, executor=pool)
