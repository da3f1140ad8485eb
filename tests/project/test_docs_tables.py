"""The docs' results tables: every data file in docs/data renders with its stamp, every table marker in a docs
page names a data file, every data file is shown on some page, and ``benchmarks/_record.py`` writes files that
render. The same checks run in ``mkdocs build`` through the hook; these run without mkdocs."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT

PAGES = sorted((ROOT / "docs").glob("**/*.md"))


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tables = _load("docs_tables_hook", ROOT / "docs" / "hooks" / "tables.py")
recorder = _load("benchmarks_record", ROOT / "benchmarks" / "_record.py")
DATA = sorted(tables.DATA_DIR.glob("*.json"))


def test_there_are_pages_and_tables():
    assert PAGES and DATA


@pytest.mark.parametrize("path", DATA, ids=lambda p: p.stem)
def test_every_data_file_renders_with_its_stamp(path):
    table = tables.load(path.stem)
    text = tables.render(table)
    stamp = f"Measured {table['date']}, commit {table['commit']}"
    assert stamp in text and table["machine"] in text and table["command"].replace("`", "'") in text
    body = [line for line in text.splitlines() if line.startswith("|")]
    assert len(body) == 2 + len(table["rows"])  # header, separator, one line per row
    assert all(line.count(" | ") == body[0].count(" | ") for line in body[2:])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_every_marker_in_the_docs_names_a_data_file(page):
    markdown = page.read_text(encoding="utf-8")
    rendered = tables.replace_markers(markdown, where=page.name)  # raises TableError on any bad marker
    assert not tables.MARKER.search(rendered)


def test_every_data_file_is_shown_on_a_page():
    shown = {name for page in PAGES for name in tables.markers(page.read_text(encoding="utf-8"), page.name)}
    assert sorted(p.stem for p in DATA if p.stem not in shown) == []


def test_an_unknown_or_malformed_marker_stops_naming_it():
    with pytest.raises(tables.TableError, match=r"page\.md: table 'no_such_table': no data file"):
        tables.replace_markers("text\n<!-- table: no_such_table -->\n", where="page.md")
    with pytest.raises(tables.TableError, match=r"malformed table marker '<!-- table:fig 4 -->'"):
        tables.replace_markers("<!-- table:fig 4 -->\n", where="page.md")
    # a marker quoted inside a line (as in prose or inline code) is text, not a marker
    assert tables.markers("put `<!-- table: x -->` on its own line\n") == []


@pytest.mark.parametrize("change, fault", [
    (lambda t: t.pop("commit"), "missing key 'commit'"),
    (lambda t: t.update(date="23.11.2026"), "'date' must be YYYY-MM-DD"),
    (lambda t: t["rows"].append(["only one cell"]), "row 1 must be a list of 2 cells"),
    (lambda t: t.update(colour="red"), "unknown keys"),
    (lambda t: t.update(row_stamps=[{"date": "2026-11-23"}]), r"row_stamps\[0\]"),
])
def test_a_malformed_data_file_stops_naming_the_file(tmp_path, change, fault):
    table = {"title": "t", "date": "2026-11-23", "commit": "abc1234", "machine": "m", "command": "c",
             "columns": ["a", "b"], "rows": [[1, "x"]], "notes": ""}
    change(table)
    (tmp_path / "bad.json").write_text(json.dumps(table), encoding="utf-8")
    with pytest.raises(tables.TableError, match=re.escape(str(tmp_path / "bad.json")) + ".*" + fault):
        tables.load("bad", tmp_path)
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(tables.TableError, match="broken.json: not readable JSON"):
        tables.load("broken", tmp_path)


def test_per_row_stamps_get_a_measured_column():
    table = {"title": "t", "date": "2026-11-22", "commit": "aaa1111", "machine": "m", "command": "c",
             "columns": ["agent", "win %"], "rows": [["x", "50"], ["y", "60"], ["report", "70"]],
             "row_stamps": [None, {"date": "2026-11-23", "commit": "bbb2222"}, "quoted from the report"]}
    lines = tables.render(table).splitlines()
    assert "| agent | win % | measured |" in lines
    assert "| x | 50 | 2026-11-22, aaa1111 |" in lines and "| y | 60 | 2026-11-23, bbb2222 |" in lines
    assert "| report | 70 | quoted from the report |" in lines


def test_record_writes_a_stamped_table_that_renders(tmp_path, monkeypatch):
    monkeypatch.setattr(recorder, "DATA_DIR", tmp_path)
    path = recorder.record("speed", "Games per second", ["dice", "games/s"], [[5, "482"], [35, 10.6]],
                           command="python benchmarks/game_speed.py", notes="One-third vs one-third.")
    assert path == tmp_path / "speed.json"
    table = tables.load("speed", tmp_path)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", table["date"])
    assert re.fullmatch(r"[0-9a-f]{4,40}(\+dirty)?|unknown", table["commit"])
    assert re.fullmatch(r".+ \(\d+ cores\), Python \d+\.\d+\.\d+.*", table["machine"])
    assert table["rows"] == [[5, "482"], [35, 10.6]] and table["notes"] == "One-third vs one-third."
    assert "| 35 | 10.6 |" in tables.render(table)
    head = recorder._git("rev-parse", "HEAD")
    if head is not None:  # a figure measured on another commit of the repository carries that commit
        table = tables.load(recorder.record("x", "t", ["a"], [[1]], command="c", commit=head[:9]).stem, tmp_path)
        assert table["commit"] == head[:9]
        with pytest.raises(ValueError, match="no commit of this repository"):
            recorder.record("x", "t", ["a"], [[1]], command="c", commit="notacommit")


def test_the_commit_stamp_is_dirty_for_code_changes_but_not_for_recorded_tables():
    if recorder._git("rev-parse", "HEAD") is None:
        pytest.skip("not a git checkout")
    before = recorder.commit_stamp()  # only a clean checkout (CI's) can see a table make the stamp dirty
    table, code = ROOT / "docs" / "data" / "_probe_table.json", ROOT / "_probe_code.py"
    try:
        table.write_text("{}")  # a table written just before, e.g. the first of two that a benchmark records
        assert recorder.commit_stamp() == before
        code.write_text("")
        assert recorder.commit_stamp() == before.removesuffix("+dirty") + "+dirty"
    finally:
        table.unlink(missing_ok=True)
        code.unlink(missing_ok=True)


@pytest.mark.parametrize("args, fault", [
    (("bad name", "t", ["a"], [[1]]), "name must be"),
    (("ok", "t", ["a", "b"], [[1]]), "row 0 has 1 cells, columns has 2"),
    (("ok", "t", ["a"], [[object()]]), "a cell must be a JSON value"),
    (("ok", "t", ["a"], [[[1, 2]]]), "row 0 has a cell that is not a string"),
    (("ok", "t", ["a"], [[float("nan")]]), "Out of range float"),
    (("ok", "t", ["a"], [[np.arange(3)]]), "a cell must be a JSON value"),
])
def test_record_refuses_bad_arguments_before_writing(tmp_path, monkeypatch, args, fault):
    monkeypatch.setattr(recorder, "DATA_DIR", tmp_path)
    with pytest.raises(ValueError, match=fault):
        recorder.record(*args, command="c")
    with pytest.raises(ValueError, match="command must say"):
        recorder.record("ok", "t", ["a"], [[1]], command=" ")
    assert list(tmp_path.iterdir()) == []
