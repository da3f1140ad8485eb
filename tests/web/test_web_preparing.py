"""Issue 52: the server solves a table only where a game needs it, and a solve prepares in the background.

A game whose seats need no table never solves one (not for the recommended agent's note either); a seat or the
hint's agent that solves a table on first use answers at once with the ``preparing`` state (its line, done of total)
while other sessions go on; a refusal said while preparing is the 400 it always was, a bug a 500. The solve is a fake
that reports progress, waits for the test, then solves for real up to 2 dice each in a few iterations (a second)."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette 1.x asks for httpx2 in its test client; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from conftest import SlowSolve, fresh_tables

from ldpomdp.errors import UsageError
from ldpomdp.exact import tables
from ldpomdp.rules import GameConfig
from ldpomdp.web.app import create_app
from ldpomdp.web.load_driver import play_over_http

PALIFICO = {"dice": 2, "palifico": True}  # two players: robust's table is solved on first use (about 30 CPU s)
QUICK = 5.0  # s: an answer "at once" (a request that waited for the solve would wait for the test: forever)


@pytest.fixture
def slow(tmp_path, monkeypatch) -> Iterator[SlowSolve]:
    solve = SlowSolve()
    fresh_tables(monkeypatch, tmp_path, solve)
    yield solve
    solve.go.set()  # a test that failed early leaves no thread waiting


def _client() -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=False)


def _timed(call: Callable, *args, **kwargs):
    start = time.perf_counter()
    response = call(*args, **kwargs)
    seconds = time.perf_counter() - start
    assert seconds < QUICK, f"{args[0]} took {seconds:.1f} s"
    return response


def _until(client: TestClient, path: str, done: Callable[[dict], bool]):
    """``GET path`` until its answer is not a 200 or ``done``; the last response."""
    deadline = time.monotonic() + 60
    while True:
        response = client.get(path)
        if response.status_code != 200 or done(response.json()):
            return response
        assert time.monotonic() < deadline, f"{path} still {response.json()}"
        time.sleep(0.05)


def test_a_game_that_needs_no_table_never_solves_one(tmp_path, monkeypatch):
    # issue 52: a two-player palifico game against one-third solved robust's table for the hint's note, unused
    solved = []

    def never(config, *args, **kwargs):
        solved.append(config)
        raise AssertionError("a table was solved")  # (the old code took it for robust's refusal: hence ``solved``)

    fresh_tables(monkeypatch, tmp_path, never)
    client = _client()
    advice = _timed(client.post, "/api/recommended", json=PALIFICO).json()
    assert advice["spec"] == "robust" and advice["plays"] == "equilibrium"
    assert advice["note"] == "plays the two-player equilibrium; its table is solved on first use, about 30 CPU s " \
                             "(then cached)"
    state = _timed(client.post, "/api/game", json={"opponents": ["one-third"], **PALIFICO, "seed": 2}).json()
    assert state["phase"] == "your-turn" and state["hint"] == {"agent": "robust", "refusal": None}
    assert play_over_http(client, {"opponents": ["one-third"], **PALIFICO}, seed=3).final["phase"] == "game-over"
    config = GameConfig(**PALIFICO)
    tables.cached_table_path(config).parent.mkdir(parents=True)
    tables.cached_table_path(config).touch()  # solved before: the note says so
    assert client.post("/api/recommended", json=PALIFICO).json()["note"] == \
        "plays the two-player equilibrium (its table solved before, cached on the server)"
    assert solved == []


def test_a_seat_solving_its_table_prepares_in_the_background_while_other_sessions_play(slow):
    a, b = _client(), _client()
    state = _timed(a.post, "/api/game", json={"opponents": ["robust"], **PALIFICO, "seed": 1}).json()
    assert state["phase"] == "preparing" and state["version"] == 0 and state["hint"]["agent"] == "robust"
    progress = state["preparing"]
    assert progress["done"] == 3 and progress["total"] > 3
    assert progress["line"].startswith("solving the two-player cfr table for ")
    assert _timed(a.get, "/api/game").json() == state  # the session itself answers at once, unchanged
    for response in (a.post("/api/game/act", json={"move": "1x2", "version": 0}),
                     a.post("/api/game/step", json={"version": 0}), a.get("/api/game/hint")):
        assert response.status_code == 409 and "being prepared" in response.json()["error"]
    other = _timed(b.post, "/api/game", json={"opponents": ["one-third"], "dice": 2, "seed": 5}).json()
    move = {"move": other["legal"][0], "version": other["version"]}
    assert _timed(b.post, "/api/game/act", json=move).json()["phase"] == "agent-turn"  # another session plays on
    assert _timed(b.post, "/api/game/step", json={"version": 1}).status_code == 200
    slow.go.set()
    state = _until(a, "/api/game", lambda s: s["phase"] != "preparing").json()
    assert state["phase"] == "your-turn" and state["preparing"] is None and state["version"] == 0
    assert slow.calls == 1  # the hint's agent and robust's type models take the table solved, from memory
    assert _timed(a.get, "/api/game/hint").json()["preparing"] is None
    final = play_over_http(a, {"opponents": ["robust"], **PALIFICO}, seed=2).final  # and from now on at once
    assert final["phase"] == "game-over" and slow.calls == 1


def test_the_hints_agent_solving_its_table_prepares_in_the_background(slow):
    client = _client()
    state = client.post("/api/game", json={"opponents": ["one-third"], **PALIFICO, "seed": 4}).json()
    assert state["phase"] == "your-turn" and slow.calls == 0  # one-third needs no table
    hint = _timed(client.get, "/api/game/hint").json()
    assert hint["actions"] is None and hint["refusal"] is None and hint["version"] == state["version"]
    assert hint["preparing"]["done"] == 3 and hint["preparing"]["line"].startswith("solving the two-player cfr")
    assert _timed(client.get, "/api/game/hint").json() == hint  # asked again: the same preparation, no second one
    assert _timed(client.get, "/api/game").json()["phase"] == "your-turn"  # the game does not wait for the hint
    slow.go.set()
    hint = _until(client, "/api/game/hint", lambda h: h["preparing"] is None).json()
    assert hint["refusal"] is None and sum(a["probability"] for a in hint["actions"]) == pytest.approx(1)
    assert set(a["action"] for a in hint["actions"]) <= set(state["legal"]) and slow.calls == 1


@pytest.mark.parametrize("fails, status, words", [
    (UsageError("cfr: no room for the table"), 400, "robust cannot play these rules: robust: cfr: no room for the"),
    (ValueError("a model it cannot solve against"), 400, "robust cannot play these rules: a model it cannot solve"),
    (RuntimeError("a bug in the solver"), 500, "internal error (RuntimeError)"),
])
def test_a_failure_while_preparing_is_the_400_of_a_refusal_or_the_500_of_a_bug(slow, fails, status, words):
    client = _client()
    slow.fails = fails
    assert client.post("/api/game", json={"opponents": ["robust"], **PALIFICO}).json()["phase"] == "preparing"
    slow.go.set()
    response = _until(client, "/api/game", lambda s: False)
    assert response.status_code == status and words in response.json()["error"]
    assert "Traceback" not in response.text and "\n" not in response.text.strip()
