"""One description per player: the registry's summaries are what ``ldpomdp players`` prints and what the table of
specs in docs/players.md shows (that table is ``ldpomdp players --markdown``, between its markers); the README keeps
only a short "what to seat" table, whose specs must exist."""

from __future__ import annotations

import importlib.util
import re

import pytest
from conftest import ROOT

from ldpomdp.cli import main
from ldpomdp.cli.play import OWN_CLASS
from ldpomdp.registry import make_seat, parse_spec, registered_names

PAGE = ROOT / "docs" / "players.md"
BEGIN = "<!-- players: `ldpomdp players --markdown` prints this table (tests/project/test_players_docs.py) -->"
END = "<!-- players: end -->"
README_LINES = 120
SEAT_ROWS = 5


def _page_table() -> str:
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    assert lines.count(BEGIN) == 1 and lines.count(END) == 1, f"{PAGE.name}: the table's markers, once each"
    return "\n".join(lines[lines.index(BEGIN) + 1:lines.index(END)]).strip() + "\n"


def _cells(line: str) -> list[str]:
    unescaped = {"\\|": "|", "\\[": "[", "\\]": "]"}  # what players_markdown escapes
    return [re.sub(r"\\[|\[\]]", lambda m: unescaped[m.group()], cell.strip())
            for cell in re.split(r"(?<!\\)\|", line)[1:-1]]


def _rows(table: str) -> dict[str, tuple[str, str]]:
    """spec -> (parameters, summary) of a ``| spec | parameters | player |`` table."""
    rows = {}
    for line in table.splitlines()[2:]:
        spec, parameters, summary = _cells(line)
        rows[spec.strip("`")] = (parameters.strip("`"), summary)
    return rows


def _markdown(capsys) -> str:
    assert main(["players", "--markdown"]) == 0
    return capsys.readouterr().out


def test_the_players_page_shows_the_listing_as_the_command_prints_it(capsys):
    printed, shown = _markdown(capsys), _page_table()
    if importlib.util.find_spec("pyspiel") is None:  # openspiel's parameters cannot be listed without its extra
        printed, shown = ({spec: row[1] for spec, row in _rows(t).items()} for t in (printed, shown))
    assert shown == printed, (f"docs/players.md's table of specs is stale: replace the lines between {BEGIN} and "
                              f"{END} with the output of `ldpomdp players --markdown`")


def test_the_registry_the_command_and_the_page_give_every_player_the_same_summary(capsys):
    summaries = {**registered_names(), OWN_CLASS[0]: OWN_CLASS[1]}
    page = {spec: summary for spec, (_, summary) in _rows(_page_table()).items()}
    assert page == summaries
    assert main(["players"]) == 0
    listed = " ".join(capsys.readouterr().out.split())  # the listing wraps its lines at spaces only
    missing = [name for name, summary in summaries.items() if f"{name} {' '.join(summary.split())}" not in listed]
    assert missing == []


def test_the_listing_wraps_to_the_terminal_and_ends_with_what_to_seat(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["players"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 80 and "robust" in lines[-2] + lines[-1]


def _seat_table() -> list[list[str]]:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("| seat | when |")
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return [_cells(line) for line in lines[start + 2:end]]


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= README_LINES


def test_the_readmes_what_to_seat_table_is_short_and_seats_players_that_exist():
    rows = _seat_table()
    assert 0 < len(rows) <= SEAT_ROWS
    specs = [spec for seat, _ in rows for spec in re.findall(r"`([^`]+)`", seat)]
    assert len(specs) >= len(rows) and "robust" in specs
    names = registered_names(seats_only=True)
    for spec in specs:
        assert parse_spec(spec).name in names, spec
        make_seat(spec)  # builds: its parameters are the player's


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_no_other_page_copies_the_players_descriptions(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert [name for name, summary in registered_names().items() if len(summary) > 40 and summary in text] == []
    assert "| spec | player |" not in text
