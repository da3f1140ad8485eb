"""The one CSV format of a result folder's files (``summary.csv``, ``timing.csv``, a tournament's
``cross_table.csv`` and ``ratings.csv``): rows written atomically, read back by typed columns.

Each file's columns, writer and reader live with its owner (``.statistics``, ``.runner``,
``.tournament``); this module holds only what they share: an empty value for NaN, floats to 6 decimals, and
reading that leaves out a row that does not read, naming it."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..datafiles import write_atomic

__all__ = ["write_csv", "read_csv", "columns_of", "INTEGER", "NUMBER", "Kind"]

INTEGER, NUMBER = "an integer", "a number"  # a column's kind besides ``str``, as a problem line names it
Kind = Any  # str, INTEGER or NUMBER


def columns_of(row_type: type) -> dict[str, Kind]:
    """The CSV columns of a dataclass of rows (its fields, in order) and the kind of each: ``str``, INTEGER (an
    ``int`` field) or NUMBER (a ``float`` one)."""
    return {f.name: {"str": str, "int": INTEGER, "float": NUMBER}[str(f.type)] for f in fields(row_type)}


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[object]], newline: str = "\r\n") -> Path:
    """Write ``header`` and ``rows`` to ``path`` atomically (``write_atomic``), and return ``path``.

    NaN is written as an empty value, floats rounded to 6 decimals; ``newline`` ends each line (the csv module's
    ``"\\r\\n"`` unless a file was first written with another)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator=newline)
    writer.writerow(header)
    writer.writerows([["" if isinstance(v, float) and math.isnan(v) else round(v, 6) if isinstance(v, float) else v
                       for v in row] for row in rows])
    return write_atomic(path, text.getvalue().encode("utf-8"))


def read_csv(path: Path, columns: Mapping[str, Kind], required: Sequence[str], missing_ok: bool = False
             ) -> tuple[list[dict], list[str]]:
    """The rows of the CSV file ``path`` as dicts of ``columns``, and a line for each problem found.

    Each row has every one of ``columns`` (converted to its kind; None where the file has no such column or the value
    is empty). Problems: the file missing (unless ``missing_ok``) or unreadable, a ``required`` column missing (then
    no rows), a row with a value that does not read as its kind (left out)."""
    if not path.exists():
        return [], [] if missing_ok else [f"{path.name}: missing"]
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header, lines = reader.fieldnames or [], list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        return [], [f"{path.name}: cannot be read ({exc})"]
    absent = [name for name in required if name not in header]
    if absent:
        return [], [f"{path.name}: no column {', '.join(absent)}"]
    rows, problems = [], []
    for number, line in enumerate(lines, start=2):
        bad = next((name for name in columns if name in header and not _reads(columns[name], line[name] or "")),
                   None)
        if bad is not None:
            problems.append(f"{path.name} line {number}: {bad} {line[bad]!r} is not {columns[bad]}")
            continue
        rows.append({name: _convert(kind, line[name] or "") if name in header else None
                     for name, kind in columns.items()})
    return rows, problems


def _convert(kind: Kind, text: str) -> Any:
    """A CSV value as a ``str``, an integer or a number (an empty one as None); a ValueError otherwise."""
    if kind is str:
        return text
    if text.strip() == "":
        return None
    value = float(text)
    if kind == INTEGER:
        if not value.is_integer():
            raise ValueError(f"{text!r} is not {INTEGER}")
        return int(value)
    return value


def _reads(kind: Kind, text: str) -> bool:
    try:
        _convert(kind, text)
    except ValueError:
        return False
    return True
