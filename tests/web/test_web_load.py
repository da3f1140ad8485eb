"""Concurrent games over HTTP on a real ``ldpomdp serve``: all finish, and each plays exactly as it does alone (no
state leaks between sessions). The full-size measurement is ``benchmarks/web_load.py``."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette 1.x asks for httpx2 in its test client; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from ldpomdp.web.app import create_app  # noqa: E402
from ldpomdp.web.load_driver import play_games, play_over_http, running_server  # noqa: E402

SETTINGS = {"opponents": ["expected-count"], "dice": 2}  # the benchmark's game (5 dice) made small


@pytest.mark.slow  # a real server and six games at once
def test_concurrent_games_over_http_all_finish_and_each_plays_as_it_does_alone():
    with running_server() as (url, _):
        runs = play_games(url, 6, SETTINGS, seed=100, timeout=240)
        left = httpx.get(url + "/api/status").json()["games"]
    assert [r.problems for r in runs] == [[]] * 6
    assert all(r.final["phase"] == "game-over" for r in runs) and left == 0  # every game ended and was dropped
    # a game is a function of its seed and the person's moves (also seeded): alone, in-process, it plays the same
    alone = [play_over_http(TestClient(create_app()), SETTINGS, seed=100 + i) for i in range(6)]
    assert [r.record for r in runs] == [a.record for a in alone]
    assert [_without_times(r.final["rounds"]) for r in runs] == [_without_times(a.final["rounds"]) for a in alone]
    assert len({r.record["cell"] for r in runs}) == 1 and len({str(r.final["rounds"][0]["hands"]) for r in runs}) > 1


def _without_times(rounds: list[dict]) -> list[dict]:
    """The rounds without the seconds each agent thought (the only part that differs between runs)."""
    out = []
    for r in rounds:
        actions = [{k: v for k, v in a.items() if k != "seconds"} for a in r["actions"]]
        decisions = [{k: v for k, v in d.items() if k != "seconds"} for d in r["decisions"]]
        out.append({**r, "actions": actions, "decisions": decisions})
    return out
