"""Running a sweep: many games per cell, run on any executor, stored so that nothing is lost and a re-run
resumes, summarised per cell and player.

One function, ``run_sweep``, serves the CLI (``ldpomdp sweep``), the scripts in ``benchmarks/`` and
the tests. Game ``g`` of a cell always uses the seed ``SeedSequence([seed, hash(cell id)]).spawn(...)[g]``
and the seats rotate with ``g`` (or run through every permutation, a cell's ``seating``), so a game's result
never depends on the worker count, the batching or which games ran before an interruption.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import PlayerError, UsageError, echo, install_hint
from ..game import IllegalActionError
from ..interrupts import sigterm_as_interrupt
from ..players.text import FAILURES
from ..registry import make_seat
from .cell import Cell
from .csv_format import INTEGER, NUMBER, read_csv, write_csv
from .games import play_one
from .statistics import SUMMARY_FILE, SummaryRow, summarize, write_summary
from .store import GAMES_FILE, GameStore, create_store
from .text_costs import TEXT_COSTS_FILE, text_costs, write_text_costs

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

__all__ = ["run_sweep", "play_batch", "validate", "worker_pool", "dask_client", "read_timing", "TIMING_FILE",
           "TIMING_COLUMNS"]

LOCK_FILE = ".lock"
TIMING_FILE = "timing.csv"
TIMING_COLUMNS = {"cell": str, "dice": INTEGER, "games": INTEGER, "cpu_seconds": NUMBER,
                  "games_per_cpu_second": NUMBER}  # timing.csv's, and their kinds
SWEEP_BROKEN = ('It was killed, ran out of memory, or started the sweep again: a script that calls run_sweep must do '
                'so under `if __name__ == "__main__":`, since every worker imports it. The games finished so far are '
                'saved.')
SCHEDULER_TIMEOUT = 10  # seconds to connect to a dask scheduler before the sweep gives up


def play_batch(cell: Cell, seed: int, games: Sequence[int]) -> tuple[list[dict], float]:
    """Play the given games of one cell (in a worker); return their records and the CPU seconds spent
    (this thread's, so a busy machine does not inflate them).

    Players are built once per batch from their specs; game ``g`` seats them by the cell's seating
    (``rotate(players, g)`` unless told) and seat 0 opens, so every player opens once over ``n`` consecutive games
    (rotated) or ``n!`` (permuted).
    """
    start = time.thread_time()
    players = [make_seat(spec) for spec in cell.players]
    records = []
    for g in games:
        try:
            records.append(play_one(cell, seed, g, players)[1])
        except (PlayerError, IllegalActionError) as exc:
            raise type(exc)(f"cell {cell.id}, game {g}: {exc}") from exc
    return records, time.thread_time() - start


def validate(cells: Sequence[Cell], games: int, seed: int) -> None:
    """Fail before any game: every spec builds, is no person at a terminal, and accepts its cell's rules (a cell
    checks its rules itself)."""
    if not cells:
        raise UsageError("the sweep has no cells")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise UsageError(f"games per cell must be an integer >= 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UsageError(f"seed must be an integer >= 0, got {seed!r}")
    ids = [c.id for c in cells]
    if len(set(ids)) != len(ids):
        raise UsageError("the sweep lists the same cell twice")
    built = {}
    for cell in cells:
        config = cell.config
        for seat, spec in enumerate(cell.players):
            if spec not in built:
                built[spec] = make_seat(spec)
                if getattr(built[spec], "interactive", False):
                    raise UsageError(f"player {echo(spec)} in cell {echo(cell.id, quote=False)}: a person cannot "
                                     f"play in a sweep (its games run unattended, in worker processes); play the "
                                     f"agents with `ldpomdp play`")
                if getattr(built[spec], "learns_across_games", False):
                    raise UsageError(f"player {echo(spec)} in cell {echo(cell.id, quote=False)}: it carries what it "
                                     f"learnt from game to game, so a game would depend on which games its batch "
                                     f"played before; sweep it without match play")
            try:
                built[spec].reset(seat, config)
            except UsageError as exc:
                raise UsageError(f"player {echo(spec)} in cell {echo(cell.id, quote=False)}: {exc}") from None


def _missing_parents(out: Path) -> list[Path]:
    """``out`` and its parents that do not exist yet, deepest first: what making ``out`` creates."""
    missing = []
    while not out.exists() and out != out.parent:
        missing.append(out)
        out = out.parent
    return missing


def _remove_if_unused(out: Path, made: list[Path]) -> None:
    """After a failed run: remove the folder ``out`` and the parents it made (``made``) if the run stored nothing,
    so that a refusal or a failure before any game leaves nothing behind."""
    stored = out / GAMES_FILE
    if not made or (stored.exists() and stored.stat().st_size):
        return
    for name in (GAMES_FILE, LOCK_FILE):
        (out / name).unlink(missing_ok=True)
    for folder in made:
        try:
            folder.rmdir()  # only when empty: a file the run did not make is kept
        except OSError:
            return


def _prepare_out(out: Path) -> Path:
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        create_store(out / GAMES_FILE)
    except OSError as exc:
        raise UsageError(f"output folder {str(out)!r} is not writable: {exc.strerror or exc}") from None
    return out


@contextmanager
def _folder_lock(out: Path) -> Iterator[None]:
    """Hold ``out/.lock`` for a run, so that a second run into the same folder fails at once.

    The lock is an exclusive ``flock`` on the file, which holds this process's pid. A second run into the same folder
    fails at once naming the holder; the lock ends with its process, so the file left by a killed run never blocks a
    resume. (Without ``fcntl``, e.g. on Windows, folders are not locked.)"""
    if fcntl is None:
        yield
        return
    fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise UsageError(f"{out} is in use by another sweep (pid {holder}): wait for it to end, or give "
                             f"another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
        os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # releases the lock


def _start_forkserver() -> None:
    """Start the forkserver on this process's ``sys.path``; a server already running is left as it is.

    Python 3.11's forkserver ignores it and puts its working directory first, so a folder named ``ldpomdp`` there (a
    source checkout) would give the workers other code than this process runs (and no ``ldpomdp.planners``)."""
    from multiprocessing import forkserver

    wanted = {"PYTHONSAFEPATH": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        forkserver.ensure_running()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def dask_client(scheduler: str) -> Iterator[Any]:
    """A dask.distributed client of the scheduler at ``scheduler``, closed on leaving.

    A UsageError when dask is not installed, the address is not one, or the scheduler does not answer within
    ``SCHEDULER_TIMEOUT`` seconds."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise UsageError(f"--scheduler needs dask.distributed: {install_hint('dask')}") from None
    try:
        client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
    except (OSError, ValueError) as exc:  # unreachable (OSError, TimeoutError) or not an address (ValueError)
        raise UsageError(f"cannot reach the dask scheduler at {echo(scheduler)}: {exc}") from None
    with client:
        yield client


@contextmanager
def worker_pool(workers: int | None, scheduler: str | None = None, executor: Executor | None = None,
                broken: str = SWEEP_BROKEN) -> Iterator[tuple[Executor, int]]:
    """Yield the executor to run on and how many jobs it runs at once.

    The executor is ``executor``, a dask ``scheduler``'s, or ``workers`` local processes (default one a core);
    ``broken`` follows the error when a local worker dies."""
    if executor is not None:
        yield executor, max(1, workers or os.cpu_count() or 1)
        return
    if scheduler:
        with dask_client(scheduler) as client:
            yield client.get_executor(), max(1, sum(client.nthreads().values()))
        return
    workers = (os.cpu_count() or 1) if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise UsageError(f"workers must be an integer >= 1, got {workers!r}")
    import multiprocessing

    if sys.platform == "win32":
        context = multiprocessing.get_context("spawn")
    else:  # workers fork from a server that imported ldpomdp once, so each starts fast and thread-free
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        _start_forkserver()
    # only this process holds the pipe's write end: when it closes (this process stops or exits in any way,
    # SIGKILL included) every worker sees the end of the pipe and exits at once
    lifeline, alive = context.Pipe(duplex=False)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_exit_with_parent,
                               initargs=(lifeline,))
    try:
        yield pool, workers
    except BrokenProcessPool as exc:
        alive.close()
        raise BrokenProcessPool(f"{exc} {broken}") from exc
    except BaseException:
        alive.close()  # an interrupted or failed run does not wait for the batches still running
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        alive.close()
        lifeline.close()


def _exit_with_parent(lifeline: Connection) -> None:
    """Worker initializer: exit as soon as the sweep process closes its end of ``lifeline`` (it stopped, or
    was killed), so no worker outlives it; Ctrl-C is the sweep's to handle (it then closes the pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        lifeline.poll(None)  # returns at the end of the pipe: nothing is ever sent
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _batches(todo: Sequence[tuple[Cell, list[int]]], parallelism: int, batch: int | None
             ) -> list[tuple[Cell, list[int]]]:
    """Split each cell's missing games into batches, costliest first so the tail of the run is short.

    A game's cost grows with the dice on the table, so batches shrink with it: many cheap games per task
    keep the process overhead small, few costly ones keep the progress bar moving and the load balanced.
    """
    out = []
    for cell, games in todo:
        by_cost = math.ceil(200 / (cell.dice * len(cell.players)))
        size = batch or max(1, min(50, by_cost, math.ceil(len(games) / (2 * parallelism))))
        out += [(cell, games[i:i + size]) for i in range(0, len(games), size)]
    return sorted(out, key=lambda b: -(b[0].dice * len(b[0].players)) ** 2 * len(b[1]))


def run_sweep(
    cells: Sequence[Cell],
    games: int,
    out: str | Path,
    seed: int = 0,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    executor: Executor | None = None,
    batch: int | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = print,
    exact: bool = True,
    then: Callable[[dict[tuple[str, int], dict]], None] | None = None,
) -> list[SummaryRow]:
    """Play ``games`` games of every cell, resuming ``out``, then write ``out/summary.csv`` and return its rows.

    Resumes what ``out/games.jsonl`` already holds. Runs on a local process pool of ``workers`` (default: all cores),
    a dask cluster at ``scheduler``, or any given ``executor`` (a thread pool is only reproducible without POMCP
    players: each of their games reseeds Python's global ``random``). With ``exact``, each row also gets the exact
    best-response and own win rates where they can be computed (``ldpomdp.sweeps.ceiling``). ``then``: called with
    every stored record, still inside the folder's lock, to write more files (a tournament's).

    Args:
        cells: the cells to play, each listed once.
        games: games per cell, an integer >= 1 (games ``0 .. games-1`` of each).
        out: the result folder, created if missing; it holds ``games.jsonl``, ``summary.csv`` and ``timing.csv``.
        seed: the sweep seed, an integer >= 0; a folder's games must all have the same one. Default 0.
        workers: local worker processes, >= 1; default one a core.
        scheduler: the address of a dask scheduler to run on instead; default none.
        executor: an executor to run on instead; default none.
        batch: games per task; default sized by each cell's cost and the parallelism.
        progress: show a progress bar (tqdm); default True.
        log: where each line of the log goes; default ``print``, None for silence.
        exact: add the exact best-response and own win rates; default True.
        then: called with every stored record (by (cell id, game)) inside the folder's lock; default none.

    Returns:
        The summary's rows (``SummaryRow``), per cell and player.

    Raises:
        ValueError: no cells, a cell listed twice, ``games`` or ``seed`` out of range, a spec that does not build, is
            a person, or refuses its cell's rules, a folder that is not writable or in use by another sweep, dask not
            installed or its scheduler unreachable: all before the folder is made (a run that fails before storing a
            game removes the folder it made).
        UsageError: ``out`` holds games played with another seed.
    """
    cells = list(cells)
    validate(cells, games, seed)
    with ExitStack() as stack:
        if scheduler and executor is None:  # reached before the folder is made: a refusal leaves nothing
            client = stack.enter_context(dask_client(scheduler))
            executor, workers = client.get_executor(), max(1, sum(client.nthreads().values()))
        made = _missing_parents(Path(out))
        out = _prepare_out(Path(out))
        try:
            return _run_in(out, cells, games, seed, workers=workers, executor=executor, batch=batch,
                           progress=progress, log=log, exact=exact, then=then)
        except BaseException:
            _remove_if_unused(out, made)
            raise


def _run_in(out: Path, cells: list[Cell], games: int, seed: int, *, workers: int | None, executor: Executor | None,
            batch: int | None, progress: bool, log: Callable[[str], None] | None, exact: bool,
            then: Callable[[dict[tuple[str, int], dict]], None] | None) -> list[SummaryRow]:
    """``run_sweep`` in the folder ``out``, made and checked: its games played and summarised under its lock."""
    with _folder_lock(out):
        store = GameStore(out / GAMES_FILE)
        store.check_seed(seed)
        cells = _as_stored(cells, store)
        todo = [(c, [g for g in range(games) if (c.id, g) not in store.records]) for c in cells]
        todo = [(c, g) for c, g in todo if g]
        if log:
            for warning in dict.fromkeys(w for c in cells for w in c.config.warnings):  # each once, in order
                log(f"ldpomdp: warning: {warning}")
            for note in _folder_notes(cells, games, store):
                log(note)
            log(f"{sum(len(g) for _, g in todo)} of {games * len(cells)} games to play ({len(cells)} cells) -> "
                f"{store.path}" if todo else f"nothing left to play: all {games * len(cells)} games of the "
                f"{len(cells)} cells are in {store.path}")
        if todo:
            _play(cells, todo, seed, store, out / TIMING_FILE, workers=workers, scheduler=None,
                  executor=executor, batch=batch, progress=progress, log=log)
        rows = summarize(cells, games, store.records)
        costs = text_costs(cells, games, store.records)
        if costs:
            write_text_costs(costs, out / TEXT_COSTS_FILE)
            if log:
                log(f"text agents: {sum(c.calls for c in costs)} calls, {sum(c.seconds for c in costs):.1f} s, "
                    f"{sum(c.chars_in + c.chars_out for c in costs)} characters; failed calls: "
                    + ", ".join(f"{sum(getattr(c, kind) for c in costs)} {kind}" for kind in FAILURES)
                    + f"; {sum(c.defaults for c in costs)} default moves -> {out / TEXT_COSTS_FILE}")
        if exact:
            rows = _with_exact_figures(cells, games, rows, log)
        write_summary(rows, out / SUMMARY_FILE)
        if then is not None:
            then(store.records)
    return rows


def _as_stored(cells: Sequence[Cell], store: GameStore) -> list[Cell]:
    """``cells``, each under the id its games are stored with in ``store``.

    A folder written before specs had a canonical text may hold a cell's games under its players' old spelling (e.g.
    ``pomcp:num_sims=200``); that cell goes on under the old id (``Cell.legacy_id``), so its games keep their seeds and
    the folder resumes."""
    wanted = {cell.id for cell in cells}
    stored = {cell_id for cell_id, _ in store.records}
    found: dict[str, Cell] = {}
    for cell_id in sorted(stored - wanted):
        try:
            old = Cell.from_id(cell_id)
        except UsageError:  # a cell this version cannot read: kept, and named by _folder_notes
            continue
        canonical = old.canonical_id
        if canonical in wanted:
            other = found[canonical].id if canonical in found else canonical if canonical in stored else None
            if other is not None:
                raise UsageError(f"{store.path} holds games of one cell under two spellings, {other!r} and "
                                 f"{cell_id!r}, seeded apart: move the lines of one of them to another folder's "
                                 f"{GAMES_FILE}, or give another --out")
            found[canonical] = old
    return [found.get(cell.id, cell) for cell in cells]


def _with_exact_figures(cells: Sequence[Cell], games: int, rows: list[SummaryRow],
                        log: Callable[[str], None] | None) -> list[SummaryRow]:
    """``rows`` with the exact best-response and own win rates of ``ldpomdp.sweeps.ceiling`` where they exist."""
    from .ceiling import exact_figures  # the solvers: imported by the parent process only

    start = time.process_time()
    figures = exact_figures(cells, games)
    rows = [replace(r, best_response=figures[(r.cell, r.player_index)][0],
                    exact_value=figures[(r.cell, r.player_index)][1]) for r in rows]
    if log:
        found = sum(not math.isnan(r.best_response) for r in rows)
        log(f"exact best response for {found} of {len(rows)} rows ({time.process_time() - start:.1f} CPU s)"
            + "".join(f"\n  {note}" for note in figures.notes))
    return rows


def _folder_notes(cells: Sequence[Cell], games: int, store: GameStore) -> list[str]:
    """What the folder holds besides this run's games: a summary covers exactly the run's cells and games
    ``0 .. games-1`` of each, so games beyond those and other cells' games are kept but named here."""
    ids = {c.id for c in cells}
    later = [g for cell, g in store.records if cell in ids and g >= games]
    other = {cell for cell, _ in store.records} - ids
    notes = []
    if later:
        notes.append(f"{store.path} holds {len(later)} more games of these cells (up to {max(later) + 1} per cell): "
                     f"the summary uses games 0-{games - 1} of each; give --games {max(later) + 1} to include them")
    if other:
        kept = sum(cell in other for cell, _ in store.records)
        notes.append(f"{store.path} also holds {kept} games of {len(other)} cells this run does not name (other "
                     f"players, dice or rules): kept there, left out of {SUMMARY_FILE}")
    return notes


def _play(cells: Sequence[Cell], todo: Sequence[tuple[Cell, list[int]]], seed: int, store: GameStore,
          timing_path: Path, *, workers: int | None, scheduler: str | None, executor: Executor | None,
          batch: int | None, progress: bool, log: Callable[[str], None] | None) -> None:
    """Play the missing games ``todo`` of ``cells`` into ``store``, then write the run's CPU times."""
    missing = sum(len(g) for _, g in todo)
    timing: dict[str, list[float]] = {}
    start = time.perf_counter()
    # SIGTERM stops the sweep as Ctrl-C does (games so far stay saved, the resume hint is printed)
    with sigterm_as_interrupt(), worker_pool(workers, scheduler, executor) as (pool, parallelism):
        futures: dict[Future, Cell] = {
            pool.submit(play_batch, cell, seed, idx): cell for cell, idx in _batches(todo, parallelism, batch)
        }
        bar = _progress(missing, progress)
        try:
            for fut in as_completed(futures):
                records, seconds = fut.result()
                store.append(records)
                t = timing.setdefault(futures[fut].id, [0, 0.0])
                t[0] += len(records)
                t[1] += seconds
                bar.update(len(records))
        except BaseException as exc:
            for fut in futures:
                fut.cancel()
            if isinstance(exc, KeyboardInterrupt):  # the CPU seconds of the games saved stay recorded too
                _write_timing(timing_path, cells, timing, time.perf_counter() - start)
            if log and isinstance(exc, KeyboardInterrupt):
                saved = len(GameStore(store.path).records)  # from the file: the stop may fall inside an append
                log(f"stopped{' by SIGTERM' if exc.args == ('SIGTERM',) else ''}: {saved} games are saved in "
                    f"{store.path}; run the same command again to resume")
            raise
        finally:
            bar.close()
    wall = time.perf_counter() - start
    if log:
        cpu = sum(t[1] for t in timing.values())
        log(f"played {missing} games in {wall:.1f} s wall ({missing / wall:.2f} games/s; "
            f"{cpu:.1f} worker CPU seconds, {missing / max(cpu, 1e-9):.2f} games per CPU second)")
    _write_timing(timing_path, cells, timing, wall)


def _write_timing(path: Path, cells: Sequence[Cell], timing: dict[str, list[float]], wall: float) -> None:
    """``timing.csv``, atomically: CPU seconds per game for each cell played in this run (a speed record, not a
    result), then a ``total wall`` line."""
    rows: list[list[object]] = []
    for cell in cells:
        if cell.id in timing:
            n, s = timing[cell.id]
            rows.append([cell.id, cell.dice, n, round(s, 3), round(n / s, 3) if s else ""])
    rows.append(["total wall", "", sum(t[0] for t in timing.values()), round(wall, 3), ""])
    write_csv(path, list(TIMING_COLUMNS), rows)


def read_timing(out: str | Path) -> list[dict]:
    """The rows of the ``timing.csv`` in the folder ``out`` (the last ``total wall`` among them) as dicts of
    ``TIMING_COLUMNS``, or a UsageError naming what does not read."""
    rows, problems = read_csv(Path(out) / TIMING_FILE, TIMING_COLUMNS, tuple(TIMING_COLUMNS))
    if problems:
        raise UsageError(f"{Path(out) / TIMING_FILE}: {problems[0]}")
    return rows


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="game", smoothing=0.05, dynamic_ncols=True)
