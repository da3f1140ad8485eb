"""``ldpomdp serve`` through Starlette's test client: whole games against every built-in spec, what the agents
believed, the sweep's results and replays, and every bad input answered with one line of JSON."""

from __future__ import annotations

import json
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette 1.x asks for httpx2 in its test client; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from ldpomdp.planners._common import BeliefPlayer

from ldpomdp.registry import make_player
from ldpomdp.rules import GameConfig, matching_count
from ldpomdp.sweeps import Cell, run_sweep
from ldpomdp.sweeps.store import GameStore
from ldpomdp.web.app import COOKIE, create_app
from ldpomdp.web.load import play_over_http
from ldpomdp.web.session import spec_choices

ROOT = Path(__file__).resolve().parents[1]
REASONS = {"expected-count": "estimate", "pomcp": "search", "dqn": "q-values"}  # the others': probabilities if any


@pytest.fixture
def app():
    return create_app()


def _client(app) -> TestClient:
    return TestClient(app, raise_server_exceptions=False)


def _refused(response, status: int, *words: str) -> str:
    """The response is ``status`` with one line of JSON ``{"error": ...}`` naming ``words``."""
    assert response.status_code == status, response.text
    assert "\n" not in response.text.strip() and "Traceback" not in response.text
    body = response.json()
    assert set(body) == {"error"}
    for word in words:
        assert word in body["error"], body["error"]
    return body["error"]


@pytest.mark.parametrize("choice", spec_choices(), ids=lambda c: c["name"])
def test_a_whole_one_die_game_against_each_builtin_spec(app, choice, tmp_path):
    run = play_over_http(_client(app), {"opponents": [choice["spec"]], "dice": 1}, seed=7)
    assert not run.problems
    final = run.final
    assert final["phase"] == "game-over" and final["winner"] in (0, 1) and len(final["rounds"]) == 1
    last = final["rounds"][0]
    config = GameConfig(dice=1)
    hands = [tuple(np.bincount(h, minlength=7)[1:]) for h in last["hands"]]  # the hands shown, as face counts
    face, quantity = int(last["bid"].split("x")[1]), int(last["bid"].split("x")[0])
    assert last["matching_by_seat"] == [matching_count(h, face, config) for h in hands]
    assert last["matching"] == sum(last["matching_by_seat"])
    assert last["loser"] == (last["challenger"] if last["matching"] >= quantity else last["bidder"])
    assert final["winner"] == 1 - last["loser"]
    # the record is a games.jsonl line: the sweep store reads it back
    (tmp_path / "games.jsonl").write_text(json.dumps(run.record) + "\n")
    stored = GameStore(tmp_path / "games.jsonl").records
    assert list(stored.values()) == [run.record] and run.record["winner"] == final["winner"]
    assert run.record["cell"] == Cell(("human", choice["spec"]), config).id
    # the agent's decisions, shown after the round: belief about the person's hand and the reason
    player = make_player(choice["spec"])
    decisions = last["decisions"]
    assert decisions and all(d["seat"] == 1 for d in decisions)
    assert [d["action"] for d in decisions] == [a["action"] for a in last["actions"] if a["seat"] == 1]
    for d in decisions:
        if isinstance(player, BeliefPlayer):
            assert len(d["belief"]) == 2 and sum(d["belief"]) == pytest.approx(1, abs=1e-5)
            assert d["your_count"] == matching_count(hands[0], d["face"], config)
        else:
            assert d["belief"] is None
        kind = REASONS.get(choice["name"], "probabilities" if hasattr(player, "action_probabilities") else None)
        assert (d["reason"] or {}).get("kind") == kind
        if kind == "probabilities":
            probabilities = {a["action"]: a["probability"] for a in d["reason"]["actions"]}
            assert probabilities[d["action"]] > 0 and sum(probabilities.values()) == pytest.approx(1, abs=1e-6)
        if kind == "search" and d["reason"]["searched"]:
            values = {a["action"]: a["value"] for a in d["reason"]["actions"]}
            assert max(values, key=values.get) == d["action"]  # POMCP moves on the best value at the root
        if kind == "estimate" and d["bid"] is not None and d["reason"]["estimate"] < d["reason"]["bid"]:
            assert d["action"] == "challenge"  # the rule: challenge a bid above the estimate


def test_the_expected_count_estimate_is_its_own_count_plus_your_expected_count(app):
    final = play_over_http(_client(app), {"opponents": ["expected-count:belief=exact"], "dice": 3}, seed=3).final
    checked = 0
    for r in final["rounds"]:
        agent_hand = tuple(np.bincount(r["hands"][1], minlength=7)[1:]) if r["hands"][1] else (0,) * 6
        for d in r["decisions"]:
            expected = sum(k * p for k, p in enumerate(d["belief"]))
            own = matching_count(agent_hand, d["face"], GameConfig(dice=3))
            assert d["reason"]["estimate"] == pytest.approx(own + expected, abs=1e-5)  # beliefs sent to 6 decimals
            checked += 1
    assert checked


def test_pomcps_searched_decisions_show_the_root_visits_and_it_moves_on_the_best_value(app):
    final = play_over_http(_client(app), {"opponents": ["pomcp:sims=200"], "dice": 2}, seed=1).final
    searched = [d for r in final["rounds"] for d in r["decisions"] if d["reason"]["searched"]]
    assert searched
    for d in searched:
        reason = d["reason"]
        visits = sum(a["visits"] for a in reason["actions"])
        assert visits >= 100  # the root's actions shared the 200 simulations
        values = {a["action"]: a["value"] for a in reason["actions"]}
        assert max(values, key=values.get) == d["action"]


def test_the_other_hands_and_the_reasons_stay_hidden_until_the_round_ends(app):
    client = _client(app)
    state = client.post("/api/game", json={"opponents": ["expected-count", "one-third"], "dice": 2, "seed": 1}).json()
    while state["phase"] == "agent-turn" or state["phase"] == "your-turn":
        assert "hands" not in json.dumps({k: v for k, v in state.items() if k != "rounds"})
        assert state["rounds"] == [] and len(state["hand"]) == 2
        if state["phase"] == "your-turn":
            state = client.post("/api/game/act", json={"move": state["legal"][0], "version": state["version"]}).json()
        else:
            state = client.post("/api/game/step", json={"version": state["version"]}).json()
    assert state["phase"] == "round-over" and len(state["rounds"]) == 1 and len(state["rounds"][0]["hands"]) == 3


def test_bad_input_is_refused_with_one_line_of_json_and_other_games_go_on(app):
    a, b = _client(app), _client(app)
    state_b = b.post("/api/game", json={"opponents": ["one-third"], "dice": 2, "seed": 5}).json()
    _refused(a.get("/api/game"), 404, "no game in this session")
    _refused(a.post("/api/game/step", json={"version": 0}), 404, "no game")
    a.cookies.set(COOKIE, "forged-session-id")
    _refused(a.post("/api/game/act", json={"move": "1x2", "version": 0}), 404, "start a new game")
    _refused(a.post("/api/game", content=b"{not json"), 400, "malformed JSON")
    _refused(a.post("/api/game", json=[1, 2]), 400, "JSON object")
    _refused(a.post("/api/game", json={"opponents": ["no-such-player"]}), 400, "unknown player 'no-such-player'")
    _refused(a.post("/api/game", json={"opponents": ["human"]}), 400, "'human' is you")
    _refused(a.post("/api/game", json={"opponents": ["bluff"]}), 400, "needs a value")
    _refused(a.post("/api/game", json={"opponents": ["nash", "nash"]}), 400, "nash cannot play these rules",
             "two players")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "faces": 1}), 400, "faces")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "dice": 0}), 400, "dice")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "dice": 31}), 400, "60 dice")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "wild": 3}), 400, "wild")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "colour": "red"}), 400, "unknown field(s) colour")
    _refused(a.post("/api/game", json={"opponents": ["examples.my_opponent:MyOpponent"]}), 403, "--allow-plugins")
    _refused(a.post("/api/game", json={"opponents": ["pomcp:assume=examples.my_opponent:MyOpponent"]}), 403)
    _refused(a.post("/api/game", json={"opponents": ["dqn:weights=/etc/passwd"]}), 403, "a file")
    state = a.post("/api/game", json={"opponents": ["one-third"], "dice": 2, "seed": 5}).json()
    assert state["phase"] == "your-turn" and state["bid"] is None  # seat 0 opens the first round
    version = state["version"]
    _refused(a.post("/api/game/act", json={"move": "9x2", "version": version}), 400, "9x2 is not a legal move",
             "4 dice on the table")
    _refused(a.post("/api/game/act", json={"move": "challenge", "version": version}), 400, "not a legal move")
    _refused(a.post("/api/game/act", json={"move": "three fives", "version": version}), 400, "like \"3x5\"")
    _refused(a.post("/api/game/act", json={"move": "1x2", "version": "0"}), 400, "version")
    _refused(a.post("/api/game/step", json={"version": version}), 409, "your turn")
    _refused(a.post("/api/game/next-round", json={"version": version}), 409, "still being played")
    assert a.post("/api/game/act", json={"move": "1x2", "version": version}).status_code == 200
    # the same move again (a double click, a resent request) is refused: the game is one move on
    _refused(a.post("/api/game/act", json={"move": "1x2", "version": version}), 409, "stale request")
    assert a.get("/api/game").json()["history"][0] == {"seat": 0, "action": "1x2", "seconds": None}
    _refused(a.get("/api/game/record"), 409, "not finished")
    _refused(a.get("/api/no-such-page"), 404)
    # the other session's game is untouched and plays to the end
    assert b.get("/api/game").json() == state_b
    assert play_over_http(b, {"opponents": ["one-third"], "dice": 1}, seed=2).final["phase"] == "game-over"


def test_every_gameconfig_field_is_a_rule_of_the_form_a_variant_added_later_too(monkeypatch):
    import dataclasses

    from ldpomdp.web import session

    @dataclasses.dataclass(frozen=True)
    class WithVariant(GameConfig):
        variant: str = "plain"

    monkeypatch.setattr(session, "GameConfig", WithVariant)
    client = _client(create_app())
    rules = client.get("/api/options").json()["rules"]
    assert rules == {"dice": 5, "faces": 6, "wild": 1, "bids": "full", "opener": "after_challenger",
                     "wild_bids": "plain", "exact_call": False, "palifico": False, "loss": "one", "variant": "plain"}
    body = {"opponents": ["one-third"], "dice": 2, "faces": 5, "wild": None, "bids": "sixes", "opener": "loser",
            "variant": "odd"}
    config = client.post("/api/game", json=body).json()["config"]
    assert config == {"num_players": 2, "wild_bids": "plain", "exact_call": False, "palifico": False, "loss": "one",
                      **{k: v for k, v in body.items() if k != "opponents"}}


class _Crashing:
    """A plugin whose second move raises."""

    name = "crashing"

    def reset(self, seat, config):
        self.moves = 0

    def observe(self, event):
        pass

    def act(self, view, rng):
        self.moves += 1
        if self.moves > 1:
            raise RuntimeError("the plugin broke\nwith a second line")
        return view.legal_actions()[0]


@pytest.fixture
def plugin_module(monkeypatch):
    module = types.ModuleType("webtest_plugins.crash")
    module.Crashing = _Crashing
    monkeypatch.setitem(sys.modules, "webtest_plugins.crash", module)


def test_plugins_load_only_when_allowed_and_a_crashing_agent_stops_its_game_alone(plugin_module):
    _refused(_client(create_app()).post("/api/game", json={"opponents": ["webtest_plugins.crash:Crashing"]}), 403)
    app = create_app(allow_plugins=True)
    a, b = _client(app), _client(app)
    state = a.post("/api/game", json={"opponents": ["webtest_plugins.crash:Crashing"], "dice": 3, "seed": 0}).json()
    other = b.post("/api/game", json={"opponents": ["one-third"], "dice": 1, "seed": 0}).json()
    while state["phase"] != "failed":
        if state["phase"] == "your-turn":
            response = a.post("/api/game/act", json={"move": state["legal"][0], "version": state["version"]})
        else:
            response = a.post("/api/game/step", json={"version": state["version"]})
        if response.status_code != 200:
            _refused(response, 500, "this game stopped", "crashing", "the plugin broke")
            assert "second line" not in response.text
        state = a.get("/api/game").json()
    _refused(a.post("/api/game/step", json={"version": state["version"]}), 409, "this game stopped")
    assert b.get("/api/game").json() == other


def test_a_new_game_replaces_the_sessions_old_one_and_the_server_keeps_a_bounded_number(app):
    client = _client(app)
    client.post("/api/game", json={"opponents": ["one-third"], "seed": 1})
    client.post("/api/game", json={"opponents": ["random"], "seed": 2})
    assert client.get("/api/status").json() == {"games": 1}
    assert client.get("/api/game").json()["players"][1]["spec"] == "random"
    small = create_app(max_games=3)
    clients = [_client(small) for _ in range(5)]
    for c in clients:
        assert c.post("/api/game", json={"opponents": ["one-third"]}).status_code == 200
    assert clients[0].get("/api/status").json() == {"games": 3}
    _refused(clients[0].get("/api/game"), 404)  # the least recently used went first
    assert clients[4].get("/api/game").status_code == 200
    assert client.delete("/api/game").status_code == 200 and client.get("/api/status").json() == {"games": 0}


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    cells = [Cell.of(["one-third", "expected-count:belief=exact"], d) for d in (1, 2)]
    run_sweep(cells, 3, out, seed=4, workers=1, progress=False, log=None, exact=False)
    return out


def test_results_show_the_summary_and_replay_every_game_as_stored(sweep_folder):
    client = _client(create_app(results=sweep_folder))
    summary = client.get("/api/results").json()
    assert len(summary["rows"]) == 4 and {"cell", "player"} <= set(summary["rows"][0])  # a row per cell and player
    games = client.get("/api/results/games").json()["games"]
    assert len(games) == 6
    for record in games:
        replay = client.get("/api/results/replay", params={"cell": record["cell"], "game": record["game"]}).json()
        assert replay["matches_record"] and replay["winner"] == record["winner"]
        assert len(replay["rounds"]) == record["rounds"]
        for r in replay["rounds"]:
            assert [len(h) for h in r["hands"]] == r["dice"] and r["actions"][-1]["action"] == "challenge"
    for name in summary["plots"]:
        assert client.get(f"/api/results/plot/{name}").headers["content-type"] == "image/png"
    _refused(client.get("/api/results/plot/..%2Fgames.jsonl"), 404)
    _refused(client.get("/api/results/replay", params={"cell": games[0]["cell"], "game": 99}), 404, "no game 99")
    _refused(client.get("/api/results/replay", params={"cell": "nonsense", "game": 0}), 404)
    _refused(client.get("/api/results/replay"), 400, "cell=")
    _refused(_client(create_app()).get("/api/results"), 404, "--results")


def test_a_replay_of_a_plugin_players_game_needs_allow_plugins(tmp_path):
    cell = Cell.of(["examples.my_opponent:MyOpponent", "one-third"], 1)
    record = {"cell": cell.id, "game": 0, "seed": 0, "seats": [0, 1], "winner": 0, "rounds": 1,
              "challenges": [0, 1], "successful_challenges": [0, 0]}
    (tmp_path / "games.jsonl").write_text(json.dumps(record) + "\n")
    client = _client(create_app(results=tmp_path))
    _refused(client.get("/api/results/replay", params={"cell": cell.id, "game": 0}), 403, "--allow-plugins")


def test_the_page_and_its_scripts_are_served_from_the_package(app):
    client = _client(app)
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    for name in ("app.js", "index.html", "style.css"):  # nothing fetched from elsewhere
        assert "://" not in (ROOT / "ldpomdp" / "web" / "static" / name).read_text()


def test_serve_refuses_a_results_folder_that_is_not_a_sweeps(tmp_path, capsys):
    from ldpomdp.cli import main

    assert main(["serve", "--results", str(tmp_path / "missing")]) == 2
    assert "--results" in (err := capsys.readouterr().err) and "no such folder" in err
    (tmp_path / "empty").mkdir()
    assert main(["serve", "--results", str(tmp_path / "empty")]) == 2
    assert "not a sweep's folder" in capsys.readouterr().err


@pytest.mark.parametrize("options, message", [
    (["--port", "99999"], "--port must be between 1 and 65535, got 99999"),  # used to be an OverflowError traceback
    (["--host", ""], "--host is empty: give an address"),
    (["--host", "nonexistent.invalid"], "--host 'nonexistent.invalid' is no address this machine can listen on: "),
    (["--host", "192.0.2.1"], "cannot listen on 192.0.2.1 port 8000: "),  # a documentation address, no machine's own
    (["--port", "in use"], " (another program listens there: give another --port)"),
])
def test_serve_refuses_a_port_or_host_it_cannot_listen_on_in_one_line(options, message, capsys, monkeypatch):
    import socket

    import uvicorn

    from ldpomdp.cli import main

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: pytest.fail("the server started"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["serve", *(str(taken.getsockname()[1]) if o == "in use" else o for o in options)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ldpomdp: error: ") and message in err and err.count("\n") == 1, err


def test_a_palifico_game_with_one_die_each_is_played_with_the_warning(app):
    client = _client(app)
    for dice in (1, 2):
        state = client.post("/api/game", json={"opponents": ["one-third"], "dice": dice, "wild_bids": "perudo",
                                               "exact_call": True, "palifico": True, "seed": 3}).json()
        assert state["phase"] == "your-turn"
        assert state["warnings"] == list(GameConfig.preset("perudo", dice=dice).warnings) == (
            ["palifico: every player starts with 1 die, so no palifico round can happen"] if dice == 1 else [])


def test_the_exact_call_is_offered_and_played_under_perudo_rules(app):
    client = _client(app)
    state = client.post("/api/game", json={"opponents": ["one-third"], "dice": 2, "wild_bids": "perudo",
                                           "exact_call": True, "seed": 3}).json()
    while not (state["phase"] == "your-turn" and state["bid"]):
        step = {"agent-turn": "/api/game/step", "round-over": "/api/game/next-round"}.get(state["phase"])
        if step is None:  # our opening bid: the lowest legal one
            state = client.post("/api/game/act", json={"move": state["legal"][0], "version": state["version"]}).json()
        else:
            state = client.post(step, json={"version": state["version"]}).json()
    assert "exact" in state["legal"] and "challenge" in state["legal"]
    state = client.post("/api/game/act", json={"move": "exact", "version": state["version"]}).json()
    last = state["rounds"][-1]
    assert last["exact"] is True and last["challenger"] == 0
    assert (last["loser"] == -1) == (last["matching"] == int(last["bid"].split("x")[0]))
    from ldpomdp.web.session import WebError, parse_action

    with pytest.raises(WebError, match='"exact"'):
        parse_action("exactly")
