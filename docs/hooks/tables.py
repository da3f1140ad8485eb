"""mkdocs hook: results tables from the committed data files, each with its stamp.

A page line ``<!-- table: NAME -->`` (alone on its line) becomes the table in ``docs/data/NAME.json``: its title
in bold, the markdown table, a stamp line "Measured DATE, commit COMMIT, MACHINE: `COMMAND`" and its notes. On
GitHub the marker is an invisible comment; ``mkdocs build`` shows the table. An unknown name, a malformed marker
or a malformed data file stops the build with an error naming the page, the marker or the file.

Data file format (``benchmarks/_record.py``'s ``record`` writes it; hand-transcribed tables follow it too):

- ``title`` (str), ``date`` (``YYYY-MM-DD``), ``commit`` (str: short hash, possibly ``+dirty``), ``machine``
  (str), ``command`` (str: how to reproduce), ``columns`` (non-empty list of str), ``rows`` (list of lists,
  each as long as ``columns``; cells are str, numbers, bools or null for empty), ``notes`` (str, optional,
  markdown).
- optional ``row_stamps``: a list as long as ``rows`` of null, ``{"date": ..., "commit": ...}`` or a string,
  for tables whose rows were measured at different commits or quoted from elsewhere; the table then gets a last
  column "measured" naming each row's date and commit (the table's own where null) or the string as written
  (e.g. "quoted from report 004" for a row of the report's own figures). No other keys are allowed.

This module works without mkdocs installed, so tests can render tables without it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
MARKER = re.compile(r"^<!-- table: ([A-Za-z0-9_-]+) -->[ \t]*$", re.MULTILINE)
ANY_MARKER = re.compile(r"^[ \t]*<!--\s*table\b.*$", re.MULTILINE)
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
REQUIRED = {"title": str, "date": str, "commit": str, "machine": str, "command": str, "columns": list,
            "rows": list}
OPTIONAL = {"notes": str, "row_stamps": list}

try:  # a clean build error (no traceback) under mkdocs; a plain ValueError elsewhere
    from mkdocs.exceptions import PluginError as _Base
except ImportError:  # pragma: no cover - tests run without mkdocs
    _Base = ValueError


class TableError(_Base):
    """A marker that names no data file, or a data file that does not follow the format."""


def load(name: str, data_dir: Path | None = None) -> dict:
    """The checked contents of ``<data_dir>/<name>.json``; raises TableError naming the file and the fault."""
    path = (data_dir or DATA_DIR) / f"{name}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in (data_dir or DATA_DIR).glob("*.json"))) or "none"
        raise TableError(f"table {name!r}: no data file {path} (known tables: {known})")
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TableError(f"table data file {path}: not readable JSON ({error})") from None
    problem = _problem(table)
    if problem:
        raise TableError(f"table data file {path}: {problem}")
    return table


def _problem(table) -> str | None:
    if not isinstance(table, dict):
        return "the top level must be an object"
    unknown = sorted(set(table) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        return f"unknown keys {unknown}"
    for key, kind in {**REQUIRED, **OPTIONAL}.items():
        if key not in table:
            if key in REQUIRED:
                return f"missing key {key!r}"
            continue
        if not isinstance(table[key], kind):
            return f"{key!r} must be a {kind.__name__}, got {type(table[key]).__name__}"
    for key in ("title", "commit", "machine", "command"):
        if not table[key].strip():
            return f"{key!r} is empty"
    if not DATE.fullmatch(table["date"]):
        return f"'date' must be YYYY-MM-DD, got {table['date']!r}"
    columns, rows = table["columns"], table["rows"]
    if not columns or not all(isinstance(c, str) for c in columns):
        return "'columns' must be a non-empty list of strings"
    for index, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(columns):
            return f"row {index} must be a list of {len(columns)} cells"
        if not all(cell is None or isinstance(cell, (str, int, float)) for cell in row):
            return f"row {index} has a cell that is not a string, number, bool or null"
    stamps = table.get("row_stamps")
    if stamps is not None:
        if len(stamps) != len(rows):
            return f"'row_stamps' has {len(stamps)} entries, 'rows' has {len(rows)}"
        for index, stamp in enumerate(stamps):
            if stamp is None or (isinstance(stamp, str) and stamp.strip()):
                continue
            if (not isinstance(stamp, dict) or set(stamp) != {"date", "commit"}
                    or not isinstance(stamp["date"], str) or not DATE.fullmatch(stamp["date"])
                    or not isinstance(stamp["commit"], str) or not stamp["commit"].strip()):
                return (f"row_stamps[{index}] must be null, a non-empty string or "
                        f"{{\"date\": \"YYYY-MM-DD\", \"commit\": \"...\"}}")
    return None


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).replace("|", "\\|").replace("\n", " ")


def stamp_line(table: dict) -> str:
    """"Measured DATE, commit COMMIT, MACHINE: `COMMAND`" (per-row stamps are named in the table)."""
    where = " (rows measured elsewhere say so in the column \"measured\")" if table.get("row_stamps") else ""
    command = table["command"].replace("`", "'")
    return f"Measured {table['date']}, commit {table['commit']}{where}, {table['machine']}: `{command}`"


def render(table: dict) -> str:
    """The markdown of one checked table: title, table, stamp line, notes."""
    columns, rows = list(table["columns"]), [list(row) for row in table["rows"]]
    stamps = table.get("row_stamps")
    if stamps:
        columns.append("measured")
        for row, stamp in zip(rows, stamps, strict=True):
            stamp = stamp or table
            row.append(stamp if isinstance(stamp, str) else f"{stamp['date']}, {stamp['commit']}")
    lines = [f"**{table['title']}**", "",
             "| " + " | ".join(_cell(c) for c in columns) + " |",
             "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    lines += ["", f"*{stamp_line(table)}*"]
    if table.get("notes", "").strip():
        lines += ["", table["notes"].strip()]
    return "\n".join(lines) + "\n"


def markers(markdown: str, where: str = "page") -> list[str]:
    """The table names a page's markers ask for; a line that looks like a marker but is not one raises."""
    for line in ANY_MARKER.findall(markdown):
        if not MARKER.fullmatch(line):
            raise TableError(f"{where}: malformed table marker {line.strip()!r} "
                             "(write <!-- table: NAME --> alone on its line)")
    return MARKER.findall(markdown)


def replace_markers(markdown: str, where: str = "page", data_dir: Path | None = None) -> str:
    """``markdown`` with every marker replaced by its rendered table."""
    markers(markdown, where)

    def table(match: re.Match) -> str:
        try:
            return render(load(match.group(1), data_dir))
        except TableError as error:
            raise TableError(f"{where}: {error}") from None

    return MARKER.sub(table, markdown)


def on_page_markdown(markdown, page, config, files):  # mkdocs hook
    return replace_markers(markdown, where=page.file.src_uri)
