"""Commit a results table to the docs, stamped with when, where and from what code it was measured.

One call writes ``docs/data/<name>.json``::

    from _record import record   # benchmarks/ is on sys.path when you run ``python benchmarks/<script>.py``

    record("pomcp_sims1000", "POMCP at 1000 simulations vs one-third (sixes game)",
           ["dice", "games", "POMCP win rate"],
           [[10, 1000, "0.650 [0.620, 0.679]"], [15, 1000, "0.720 [0.691, 0.747]"]],   # (made-up figures)
           command="ldpomdp sweep --players pomcp:sims=1000,one-third --bids sixes --dice 10,15 --games 1000",
           notes="Seats rotated; 95% Wilson intervals.")

and a page shows it where it says ``<!-- table: pomcp_sims1000 -->`` (on a line of its own), rendered by the
mkdocs hook ``docs/hooks/tables.py`` as a markdown table followed by its stamp line, e.g. "Measured
2026-11-23, commit abc1234, AMD EPYC (2 cores), Python 3.11.7: `command`", and the notes.

Contract:
- ``name``: the file's stem, letters, digits, ``_`` and ``-`` only; an existing file of that name is replaced.
- ``columns``: the header cells; ``rows``: lists of cells, each as long as ``columns``. Cells are JSON values
  (strings, numbers, None for an empty cell) and are shown as written: format numbers before you pass them.
  Markdown in a cell (``**bold**``, ``*italic*``, backticks) is rendered; ``|`` is escaped.
- ``command``: how to reproduce the table (required, not empty); ``notes``: markdown shown under the stamp.
- The stamp is taken when ``record`` is called: ``date`` (UTC, ``YYYY-MM-DD``), ``commit`` (``git rev-parse
  --short HEAD`` of this checkout, plus ``+dirty`` when ``git status --porcelain`` shows tracked or untracked
  changes outside ``docs/data``, so a result from uncommitted code says so while tables written just before do
  not count; ``unknown`` outside a git checkout) and ``machine``
  (``<CPU model> (<n> cores), Python <version>``, the CPU model from ``/proc/cpuinfo``). Call it from the
  checkout whose code produced the figures, right after measuring.
- Returns the path written. Bad arguments raise ``ValueError`` naming the argument, before anything is written.

The file format (also what a hand-transcribed table holds) is documented in ``docs/hooks/tables.py``.
"""

from __future__ import annotations

import datetime
import importlib.util
import json
import os
import platform
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "docs" / "data"
NAME = re.compile(r"[A-Za-z0-9_-]+")


def _git(*args: str) -> str | None:
    try:
        run = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return run.stdout.strip() if run.returncode == 0 else None


def commit_stamp() -> str:
    """``git rev-parse --short HEAD``, with ``+dirty`` if the working tree has changes outside ``docs/data`` (the
    recorded tables are results, not code); ``unknown`` without git."""
    head = _git("rev-parse", "--short", "HEAD")
    if head is None:
        return "unknown"
    return head + ("+dirty" if _git("status", "--porcelain", "--", ".", ":(exclude)docs/data") else "")


def machine_stamp() -> str:
    """``<CPU model> (<n> cores), Python <version>``; the model is ``unknown CPU`` where /proc/cpuinfo has none."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                model = value.strip()
                break
    except OSError:
        pass
    return f"{model} ({os.cpu_count()} cores), Python {platform.python_version()}"


def _plain(value):
    """numpy scalars (``np.float64(0.5)``) as the Python numbers they hold; anything else is refused."""
    if hasattr(value, "item") and getattr(value, "size", 1) == 1:
        return value.item()
    raise TypeError(f"record: a cell must be a JSON value (str, int, float, bool, None), got {value!r}")


def _format_problem(table: dict) -> str | None:
    """What the docs hook (``docs/hooks/tables.py``, the one check of the format) finds wrong with ``table``."""
    spec = importlib.util.spec_from_file_location("_ldpomdp_doc_tables", ROOT / "docs" / "hooks" / "tables.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    return hook._problem(table)


def record(name, title, columns, rows, *, command, notes="", commit=None):
    """Write ``docs/data/<name>.json`` with the table and today's stamp; see the module docstring. ``commit``: the
    commit the figures were measured with when that is not this checkout's (e.g. a long run on a frozen snapshot
    of an earlier commit); it must name a commit of this repository."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"record: name must be letters, digits, '_' or '-', got {name!r}")
    if not isinstance(title, str) or not title.strip():
        raise ValueError(f"record: title must be a non-empty string, got {title!r}")
    columns = [str(column) for column in columns]
    if not columns:
        raise ValueError("record: columns must name at least one column")
    rows = [list(row) for row in rows]
    for index, row in enumerate(rows):
        if len(row) != len(columns):
            raise ValueError(f"record: row {index} has {len(row)} cells, columns has {len(columns)}")
    if not isinstance(command, str) or not command.strip():
        raise ValueError(f"record: command must say how to reproduce the table, got {command!r}")
    if not isinstance(notes, str):
        raise ValueError(f"record: notes must be a string, got {notes!r}")
    if commit is not None:
        full = _git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}") if isinstance(commit, str) else None
        if full is None:
            raise ValueError(f"record: commit {commit!r} is no commit of this repository")
        commit = full[:len(commit)] if len(commit) >= 7 else full[:7]
    table = {
        "title": title,
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "commit": commit_stamp() if commit is None else commit,
        "machine": machine_stamp(),
        "command": command,
        "columns": columns,
        "rows": rows,
        "notes": notes,
    }
    try:
        text = json.dumps(table, indent=1, ensure_ascii=False, default=_plain, allow_nan=False) + "\n"
    except (TypeError, ValueError) as error:  # ValueError: NaN or infinity, which JSON has no word for
        raise ValueError(f"record: {error}" if not str(error).startswith("record:") else str(error)) from None
    problem = _format_problem(json.loads(text))
    if problem:
        raise ValueError(f"record: {problem}")
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    path = DATA_DIR / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    return path
