"""``ldpomdp serve`` through Starlette's test client: whole games against every built-in spec, what the agents
believed, the sweep's results and replays, and every bad input answered with one line of JSON."""

from __future__ import annotations

import json
import pickle
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

from conftest import ROOT, TOURNAMENT_AGENTS, TOURNAMENT_WINS, Planted, write_tournament_folder
from ldpomdp.planners._common import BeliefPlayer

from ldpomdp import registry
from ldpomdp.errors import UsageError
from ldpomdp.registry import canonical_spec, make_player, registered_names
from ldpomdp.rules import GameConfig, matching_count
from ldpomdp.sweeps import Cell, difference_interval, run_sweep
from ldpomdp.sweeps.store import GameStore
from ldpomdp.web.app import COOKIE, create_app
from ldpomdp.web.choices import spec_choices
from ldpomdp.web.explain import action_text
from ldpomdp.web.load_driver import play_over_http
from ldpomdp.web.results import ResultsFolder
from ldpomdp.web.session import new_game

# the others': probabilities if they have action_probabilities; robust's are those of the part that plays the round,
# lbr's its one move
REASONS = {"expected-count": "estimate", "pomcp": "search", "dqn": "q-values", "robust": "probabilities",
           "lbr": "probabilities"}


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
    _refused(a.post("/api/game", json={"opponents": ["mixture"]}), 400, "cannot take a seat", "robust")
    assert "mixture" not in {choice["name"] for choice in spec_choices()}
    _refused(a.post("/api/game", json={"opponents": ["nash", "nash"]}), 400, "nash cannot play these rules",
             "two players")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "faces": 1}), 400, "faces")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "dice": 0}), 400, "dice")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "dice": 31}), 400, "60 dice")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "wild": 3}), 400, "wild")
    _refused(a.post("/api/game", json={"opponents": ["one-third"], "colour": "red"}), 400, "unknown field(s) colour")
    _refused(a.post("/api/game", json={"opponents": ["examples.my_opponent:MyOpponent"]}), 403, "--allow-plugins")
    _refused(a.post("/api/game", json={"opponents": ["pomcp:assume=examples.my_opponent:MyOpponent"]}), 403)
    _refused(a.post("/api/game", json={"opponents": ["dqn:weights=/etc/passwd"]}), 403, "the file '/etc/passwd'")
    _refused(a.post("/api/game", json={"opponents": ["lbr:human"]}), 400, "'human' is you")
    _refused(a.post("/api/game", json={"opponents": ["expected-count:assume=[oehm:0.2"]}), 400, "never closed")
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

    from ldpomdp.web import choices

    @dataclasses.dataclass(frozen=True)
    class WithVariant(GameConfig):
        variant: str = "plain"

    monkeypatch.setattr(choices, "GameConfig", WithVariant)
    client = _client(create_app())
    options = client.get("/api/options").json()
    rules = options["rules"]
    assert rules == {"dice": 5, "faces": 6, "wild": 1, "bids": "full", "opener": "after_challenger",
                     "wild_bids": "plain", "exact_call": False, "palifico": False, "loss": "one",
                     "raise_order": "plain", "variant": "plain"}
    # one control per rule, never JSON text: a select with words for each value, a checkbox for a yes or no; the
    # variant added later a text box taking its word
    controls = {c["name"]: c for c in options["controls"]}
    assert list(controls) == list(rules)
    assert controls["variant"] == {"name": "variant", "label": "Variant", "default": "plain", "kind": "text"}
    assert {controls[name]["kind"] for name in ("exact_call", "palifico")} == {"checkbox"}
    assert [c["value"] for c in controls["loss"]["choices"]] == ["one", "difference"]
    assert [c["value"] for c in controls["wild"]["choices"]] == [1, "highest", None]
    assert controls["dice"]["kind"] == controls["faces"]["kind"] == "number" and controls["faces"]["max"] == 12
    body = {"opponents": ["one-third"], "dice": 2, "faces": 5, "wild": None, "bids": "sixes", "opener": "loser",
            "variant": "odd"}
    config = client.post("/api/game", json=body).json()["config"]
    assert config == {"num_players": 2, "wild_bids": "plain", "exact_call": False, "palifico": False, "loss": "one",
                      "raise_order": "plain", **{k: v for k, v in body.items() if k != "opponents"}}


def _file_parameters() -> list[tuple[str, str]]:
    """(player, parameter) for every parameter of kind FILE of every registered player."""
    return [(name, entry.shown(p)) for name, entry in registry._REGISTRY.items()
            for p, kind in entry.kinds.items() if kind == registry.FILE]


def _file_spec(player: str, key: str, value: str, spaced: bool = False) -> str:
    """``player`` with its file parameter ``key`` set to ``value``, after a spec for its positional parameter when
    that one is required and takes a spec (``lbr``'s policy)."""
    entry = registry._REGISTRY[player]
    first = "one-third," if entry.kinds.get(entry.positional or "") == registry.SPEC else ""
    return f" {player} : {first}{key} = {value} " if spaced else f"{player}:{first}{key}={value}"


def _spec_parameters() -> list[tuple[str, str, str]]:
    """(player, parameter, kind) for every parameter of every registered player that takes specs."""
    return [(name, entry.shown(p), kind) for name, entry in registry._REGISTRY.items()
            for p, kind in entry.kinds.items() if kind in (registry.SPEC, registry.SPECS)]


def _naming(spec: str) -> list[str]:
    """``spec`` as it is, and nested in every parameter of every player that takes specs."""
    return [spec] + [f"{name}:{key}=[{'one-third,' if kind == registry.SPECS else ''}{spec}]"
                     for name, key, kind in _spec_parameters()]


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """The server's working folder holds notes.txt and a pickle that, unpickled, creates ``code-ran``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("my notes\n")
    (tmp_path / "evil.pkl").write_bytes(pickle.dumps(Planted(tmp_path / "code-ran")))
    yield tmp_path
    assert not (tmp_path / "code-ran").exists(), "a request got a file unpickled"


def test_the_registry_declares_the_file_parameters_every_player_takes():
    assert sorted(_file_parameters()) == [("cfr", "table"), ("dqn", "weights"), ("lbr", "table"),
                                          ("openspiel", "policy")]
    assert {(name, key) for name, key, _ in _spec_parameters()} >= {
        ("mixture", "types"), ("mixture", "safe"), ("robust", "types"), ("robust", "safe"),
        ("best-response", "assume"), ("lbr", "policy"), ("expected-count", "assume"), ("pomcp", "assume")}


@pytest.mark.parametrize("player, key", _file_parameters())
@pytest.mark.parametrize("name", ["notes.txt", "evil.pkl", "[notes.txt]", "/etc/passwd"])
def test_a_spec_naming_a_file_anywhere_is_refused_without_allow_plugins(planted, player, key, name):
    """Every file parameter, by its kind and not by the look of its value (a bare name in the server's folder
    included), as a player and nested in every parameter that takes specs: 403, the file neither read nor
    unpickled."""
    client = _client(create_app())
    for spec in _naming(_file_spec(player, key, name)):
        _refused(client.post("/api/game", json={"opponents": [spec]}), 403, "--allow-plugins",
                 f"the file '{name.strip('[]')}' ({player}'s {key})")
    _refused(client.post("/api/game", json={"opponents": [_file_spec(player, key, name, spaced=True)]}), 403,
             "--allow-plugins")


@pytest.mark.parametrize("player, key", _file_parameters())
def test_with_allow_plugins_a_named_pickle_is_refused_unread(planted, player, key):
    """The server's owner allowed files: each file parameter still reads only its own safe format (npz without
    pickles, JSON), so the pickle is refused with one line and its code never runs."""
    _refused(_client(create_app(allow_plugins=True)).post(
        "/api/game", json={"opponents": [_file_spec(player, key, "evil.pkl")], "dice": 1}), 400, "evil.pkl")


def test_a_plugin_that_fails_to_import_reports_why_over_the_api(tmp_path, monkeypatch):
    package = tmp_path / "webbroken"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "broken.py").write_text("class Bot:\n    def act(self, view rng):\n        pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    response = _client(create_app(allow_plugins=True)).post("/api/game", json={"opponents": ["webbroken.broken:Bot"]})
    _refused(response, 400, "importing webbroken.broken failed: SyntaxError: invalid syntax", "broken.py, line 2")
    for name in [m for m in sys.modules if m.startswith("webbroken")]:
        monkeypatch.delitem(sys.modules, name)


def test_a_spec_spelled_otherwise_plays_as_its_canonical_text(app):
    state = _client(app).post("/api/game", json={"opponents": ["bluff:bluff=0.30"], "seed": 3}).json()
    assert state["players"][1]["spec"] == "bluff:0.3"


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


def test_results_show_the_summary_by_cell_and_replay_every_game_as_stored(sweep_folder):
    client = _client(create_app(results=sweep_folder))
    assert client.get("/api/results").json()["folders"] == [{"name": ".", "kind": "sweep"}]
    summary = client.get("/api/results/summary").json()
    assert summary["kind"] == "sweep" and summary["tournament"] is None and summary["problems"] == []
    # a cell shown as its players, dice and rules; its rows as numbers; the columns by readable names
    assert [(c["players"], c["dice"], c["rules"]) for c in summary["cells"]] == [
        (["one-third", "expected-count:belief=exact"], d, "full game, 6 faces, ones wild") for d in (1, 2)]
    rows = [r for c in summary["cells"] for r in c["rows"]]
    assert len(rows) == 4 and all(r["games"] == 3 and r["ci_low"] <= r["win_rate"] <= r["ci_high"] for r in rows)
    labels = [c["label"] for c in summary["columns"]]
    assert labels == ["Player", "Games", "Win rate", "Challenges a game", "Challenges won"]  # none empty everywhere
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
    _refused(client.get("/api/results/summary", params={"folder": ".."}), 404, "no results folder '..'")
    _refused(_client(create_app()).get("/api/results"), 404, "--results")


def test_a_usage_error_is_a_400_with_its_first_line_and_anything_else_a_500(sweep_folder, monkeypatch):
    def damaged(self):
        raise UsageError("games.jsonl: line 3 is not a game record\nfix or remove that line")

    def bug(self):
        raise KeyError("oops")

    client = _client(create_app(results=sweep_folder))
    monkeypatch.setattr(ResultsFolder, "games", damaged)
    assert _refused(client.get("/api/results/games"), 400) == "games.jsonl: line 3 is not a game record"
    monkeypatch.setattr(ResultsFolder, "games", bug)
    _refused(client.get("/api/results/games"), 500, "internal error (KeyError)")


@pytest.fixture(scope="module")
def results_parent(tmp_path_factory, sweep_folder):
    """A folder of result folders: the sweep above, the same cells with another seed and one more cell, a
    tournament written by hand, and a folder that is none of these."""
    import shutil

    parent = tmp_path_factory.mktemp("results")
    shutil.copytree(sweep_folder, parent / "a")
    cells = [Cell.of(["one-third", "expected-count:belief=exact"], d) for d in (1, 2)] + [
        Cell.of(["one-third", "random"], 1)]
    run_sweep(cells, 5, parent / "b", seed=9, workers=1, progress=False, log=None, exact=False)
    write_tournament_folder(parent / "tournament")
    (parent / "notes").mkdir()
    return parent


def test_results_name_the_folder_given_without_the_servers_absolute_path(results_parent, sweep_folder, monkeypatch):
    # issue 55: /api/results (and so the page) showed the server's absolute --results path
    for given, shown in [(results_parent, results_parent.name), (sweep_folder, sweep_folder.name)]:
        listing = _client(create_app(results=given)).get("/api/results").json()
        assert listing["path"] == shown and str(given.parent) not in str(listing)
    monkeypatch.chdir(results_parent.parent)
    listing = _client(create_app(results=Path(results_parent.name) / "a")).get("/api/results").json()
    assert listing["path"] == f"{results_parent.name}/a"  # as the user gave it


def test_a_folder_of_result_folders_lists_them_and_compares_two_cell_by_cell(results_parent):
    client = _client(create_app(results=results_parent))
    assert client.get("/api/results").json()["folders"] == [
        {"name": "a", "kind": "sweep"}, {"name": "b", "kind": "sweep"}, {"name": "tournament", "kind": "tournament"}]
    summaries = {n: client.get("/api/results/summary", params={"folder": n}).json() for n in ("a", "b")}
    rows = {n: {(c["id"], r["player"]): r for c in s["cells"] for r in c["rows"]} for n, s in summaries.items()}
    compared = client.get("/api/results/compare", params={"a": "a", "b": "b"}).json()
    assert len(compared["rows"]) == 4 and compared["only_a"] == 0 and compared["only_b"] == 2  # one-third vs random
    for row in compared["rows"]:
        a, b = rows["a"][row["cell"], row["player"]], rows["b"][row["cell"], row["player"]]
        assert row["a"]["win_rate"] == a["wins"] / 3 and row["b"]["games"] == b["games"] == 5  # csv: 6 decimals
        assert row["difference"] == a["wins"] / 3 - b["wins"] / 5
        assert (row["low"], row["high"]) == pytest.approx(difference_interval(a["wins"], 3, b["wins"], 5))
        assert compared["cells"][row["cell"]]["players"] == ["one-third", "expected-count:belief=exact"]
    _refused(client.get("/api/results/compare", params={"a": "a"}), 400, "a=FOLDER&b=FOLDER")
    _refused(client.get("/api/results/compare", params={"a": "a", "b": "notes"}), 404, "no results folder 'notes'")
    _refused(client.get("/api/results/compare", params={"a": "a", "b": "/etc"}), 404)


def test_a_tournament_folder_shows_its_cross_table_and_ratings(results_parent, tmp_path):
    client = _client(create_app(results=results_parent / "tournament"))
    summary = client.get("/api/results/summary").json()
    assert summary["kind"] == "tournament" and summary["problems"] == []
    tournament = summary["tournament"]
    assert tournament["agents"] == TOURNAMENT_AGENTS and tournament["rules"] == "full game, 6 faces, ones wild"
    assert tournament["info"]["games_per_table"] == 20
    cross = {(r["row_agent"], r["column_agent"]): r for r in tournament["cross"]}
    for (a, b), wins in TOURNAMENT_WINS.items():
        assert cross[a, b]["wins"] + cross[b, a]["wins"] == cross[a, b]["games"] == 40
        assert cross[a, b]["low"] <= cross[a, b]["win_rate"] == wins / 40 <= cross[a, b]["high"]
    assert [(r["rank"], r["agent"]) for r in tournament["ratings"]] == [(1, "robust"), (2, "expected-count"),
                                                                         (3, "one-third")]
    assert "ratings.png" in summary["plots"] and len(summary["cells"]) == 3
    assert client.get("/api/results/plot/ratings.png").headers["content-type"] == "image/png"
    # a damaged file: the rows that read are shown, each problem named in one line
    damaged = write_tournament_folder(tmp_path / "damaged")
    text = (damaged / "cross_table.csv").read_text().splitlines()
    (damaged / "cross_table.csv").write_text("\n".join([*text[:2], text[2].replace(",40,", ",forty,", 1), *text[3:]]))
    (damaged / "ratings.csv").write_text("rank,agent\n1,robust\n")
    summary = _client(create_app(results=damaged)).get("/api/results/summary").json()
    assert summary["problems"] == ["cross_table.csv line 3: games 'forty' is not an integer",
                                   "ratings.csv: no column rating, low, high, games, method"]
    assert len(summary["tournament"]["cross"]) == 5 and summary["tournament"]["ratings"] == []


def test_a_replay_of_a_plugin_players_game_needs_allow_plugins(tmp_path):
    cell = Cell.of(["examples.my_opponent:MyOpponent", "one-third"], 1)
    record = {"cell": cell.id, "game": 0, "seed": 0, "seats": [0, 1], "winner": 0, "rounds": 1,
              "challenges": [0, 1], "successful_challenges": [0, 0]}
    (tmp_path / "games.jsonl").write_text(json.dumps(record) + "\n")
    client = _client(create_app(results=tmp_path))
    _refused(client.get("/api/results/replay", params={"cell": cell.id, "game": 0}), 403, "--allow-plugins")
    filed = Cell.of(["robust:safe=[cfr:table=notes.txt]", "one-third"], 1)
    (tmp_path / "games.jsonl").write_text(json.dumps({**record, "cell": filed.id}) + "\n")
    _refused(client.get("/api/results/replay", params={"cell": filed.id, "game": 0}), 403, "the file 'notes.txt'")


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


PERUDO = GameConfig.preset("perudo").variants  # Perudo bids, the exact call, palifico rounds


def _raise_once(state: dict) -> str:
    """The person's move: open with the lowest bid, raise by the lowest bid once a round, then challenge."""
    bids = [a for a in state["legal"] if a not in ("challenge", "exact")]
    mine = sum(h["seat"] == 0 for h in state["history"])
    return bids[0] if bids and (state["bid"] is None or mine < 1) else "challenge"


def _states(client, body: dict) -> list[dict]:
    """Every state of a game played through the API with ``_raise_once``, in order."""
    states = [client.post("/api/game", json=body).json()]
    while (state := states[-1])["phase"] != "game-over":
        if state["phase"] == "your-turn":
            response = client.post("/api/game/act", json={"move": _raise_once(state), "version": state["version"]})
        else:
            path = "/api/game/step" if state["phase"] == "agent-turn" else "/api/game/next-round"
            response = client.post(path, json={"version": state["version"]})
        states.append(response.json())
    return states


def test_a_palifico_round_an_exact_call_and_the_games_end_are_sent_by_the_rounds_own_rules(app):
    # seed 7: seat 1 drops to one die, plays its palifico round (you hold two ones) and ends the game by a wrong
    # exact call
    states = _states(_client(app), {"opponents": ["expected-count"], "dice": 2, "seed": 7, **PERUDO})
    final, rounds = states[-1], states[-1]["rounds"]
    assert [r["palifico"] for r in rounds] == [False, True] and rounds[1]["hands"][0] == [1, 1]
    for state in states:  # the round's own wild face: none in a palifico round
        palifico = rounds[state["round"]]["palifico"]
        assert state["palifico"] == palifico and state["round_wild"] == (None if palifico else 1)
        if state["phase"] in ("round-over", "game-over"):  # the dice after the round's loss
            assert [p["dice"] for p in state["players"]] == rounds[state["round"]]["dice_after"]
    for r in rounds:  # the faces that count for the bid, and each hand's count of them
        face = int(r["bid"].split("x")[1])
        assert r["matching_faces"] == ([face] if r["palifico"] or face == 1 else [1, face])
        assert r["matching_by_seat"] == [sum(f in r["matching_faces"] for f in hand) for hand in r["hands"]]
    assert rounds[1]["matching_by_seat"][0] == 0  # your ones match nothing in the palifico round
    # the expected-count chart outlines the face of its move: the face it bid, or of the bid it called
    decisions = [d for r in rounds for d in r["decisions"]]
    assert "exact" in [d["action"] for d in decisions]
    for d in decisions:
        move = d["action"] if d["action"] not in ("challenge", "exact") else d["bid"]
        assert d["reason"]["chosen"] == int(move.split("x")[1]) and str(d["reason"]["chosen"]) in d["reason"]["by_face"]
    assert final["winner"] == 0 and [p["dice"] for p in final["players"]] == [2, 0]


def test_the_load_player_raises_with_bids_only_not_with_the_exact_call(app):
    # seed 5: the person faces a bid with fewer than three raises left, where "exact" passed for a raise
    run = play_over_http(_client(app), {"opponents": ["random"], "dice": 1, "wild_bids": "perudo", "exact_call": True},
                         seed=5)
    mine = [a["action"] for r in run.final["rounds"] for a in r["actions"] if a["seat"] == 0]
    assert mine[-1] == "challenge" and "exact" not in mine


def test_a_replay_of_perudo_and_dudo_games_shows_each_round_by_its_own_rules(tmp_path):
    cells = [Cell.of(["one-third", "expected-count"], 2, **PERUDO),
             Cell.of(["one-third", "expected-count"], 3, **GameConfig.preset("dudo", exact_call=True).variants)]
    run_sweep(cells, 4, tmp_path, seed=2, workers=1, progress=False, log=None, exact=False)
    client = _client(create_app(results=tmp_path))
    rounds = []
    for record in client.get("/api/results/games").json()["games"]:
        replay = client.get("/api/results/replay", params={"cell": record["cell"], "game": record["game"]}).json()
        assert replay["matches_record"] and replay["winner"] == record["winner"]
        for r, following in zip(replay["rounds"], replay["rounds"][1:] + [None], strict=True):
            assert r["dice_after"] == (following["dice"] if following else [int(s == replay["winner"]) * d
                                                                              for s, d in enumerate(r["dice_after"])])
            assert r["actions"][-1]["action"] == ("exact" if r["exact"] else "challenge")
            face = int(r["bid"].split("x")[1])
            assert r["matching_faces"] == ([face] if r["palifico"] or face == 1 else [1, face])
            assert sum(r["matching_by_seat"]) == r["matching"]
        rounds += replay["rounds"]
    assert any(r["palifico"] for r in rounds)
    assert any(r["loser"] < 0 and sum(r["dice_after"]) > sum(r["dice"]) for r in rounds)  # an exact call's die back
    assert any(r["loser"] >= 0 and r["dice"][r["loser"]] - r["dice_after"][r["loser"]] > 1 for r in rounds)


def test_a_damaged_table_over_the_api_is_named_as_the_cli_names_it(tmp_path, monkeypatch):
    # used to read "cfr:table=... cannot play these rules: cannot read ..."
    from conftest import damage, small_table

    from ldpomdp.caches import BoundedCache
    from ldpomdp.exact import tables

    monkeypatch.setattr(tables, "_MEMORY", BoundedCache(tables.CACHED_TABLES))
    path = small_table(tmp_path / "t.npz")
    fault = damage(path, "truncated")
    spec = f"cfr:table={path}"
    error = _refused(_client(create_app(allow_plugins=True)).post("/api/game", json={"opponents": [spec], "dice": 1}),
                     400)
    assert error.startswith(f"player {spec!r}: cannot read the equilibrium table {path}: {fault}")


def test_the_agents_offered_are_the_registrys_seats_with_their_parameters_and_defaults(app):
    client = _client(app)
    options = client.get("/api/options").json()
    choices = {c["name"]: c for c in client.get("/api/players").json()["players"]}
    # `ldpomdp players` less the models, the person and the seat of user code (text: a plug-in)
    assert set(choices) == set(registered_names(seats_only=True)) - {"human", "text"}
    assert all(c["summary"] == registered_names()[name] for name, c in choices.items())
    robust = {p["name"]: p for p in choices["robust"]["parameters"]}
    assert robust["confidence"]["default"] == "0.95" and robust["stop_loss"]["default"] == "0.5"
    assert robust["types"] == {"name": "types", "default": "[one-third,random,aggressive,conservative,oehm:0.2]",
                               "kind": "specs", "key": "types", "value": None, "maximum": None}
    particles = next(p for p in choices["expected-count"]["parameters"] if p["name"] == "particles")
    assert particles["default"] == "10000" and particles["key"] == "n_particles"
    assert particles["maximum"] == 1_000_000  # the largest value a spec may give (registry.MAXIMA)
    assert {p["name"]: p["kind"] for p in choices["cfr"]["parameters"]} == {"table": "file"}
    for name, choice in choices.items():  # the spec the page builds from the values shown is the example spec
        given = [f"{p['name']}={p['value']}" for p in choice["parameters"] if p["value"] is not None]
        assert canonical_spec(name + (":" + ",".join(given) if given else "")) == canonical_spec(choice["spec"])
    assert options["recommended"] == {"spec": "robust", "plays": "equilibrium",
                                      "note": "plays the two-player equilibrium (shipped table)"}
    assert [s["name"] for s in options["rule_sets"]] == ["today", "perudo", "dudo", "textarena"]
    assert options["rule_sets"][1]["words"] == GameConfig.preset("perudo").describe()
    assert [s["rules"]["loss"] for s in options["rule_sets"]] == ["one", "one", "difference", "one"]
    assert options["rule_sets"][3]["rules"]["raise_order"] == "no_lower" and options["rule_sets"][3]["label"] == \
        "TextArena"


@pytest.mark.parametrize("form, plays, note", [
    ({}, "equilibrium", "plays the two-player equilibrium (shipped table)"),
    ({**PERUDO}, "equilibrium", "plays the two-player equilibrium (shipped table)"),
    ({"palifico": True, "dice": 2}, "equilibrium",
     "plays the two-player equilibrium; its table is solved on first use, about 30 CPU s (then cached)"),
    ({"players": 3}, "search", "plays the bid-reading search (no table needed)"),
    ({"players": 4}, "search", "plays the bid-reading search (no table needed)"),
    ({"dice": 6}, "search", "plays the bid-reading search (no table needed)"),
])
def test_the_recommended_agent_is_robust_and_the_form_says_what_it_plays(app, form, plays, note, monkeypatch,
                                                                          tmp_path):
    monkeypatch.setenv("LDPOMDP_CACHE", str(tmp_path))  # nothing solved before
    answer = _client(app).post("/api/recommended", json=form).json()
    assert answer["spec"] == "robust" and answer["plays"] == plays and answer["note"] == note


def test_the_recommended_agent_query_refuses_bad_input_in_one_line(app):
    client = _client(app)
    _refused(client.post("/api/recommended", json={"players": 7}), 400, "players must be an integer between 2 and 6")
    _refused(client.post("/api/recommended", json={"colour": "red"}), 400, "unknown field(s) colour")
    _refused(client.post("/api/recommended", json={"loss": "all"}), 400, "GameConfig.loss must be one of")
    _refused(client.post("/api/recommended", json=[1]), 400, "JSON object")


def test_the_hint_is_the_recommended_agents_probabilities_for_your_hand(app):
    from ldpomdp.players.cfr import CFRPlayer

    client = _client(app)
    state = client.post("/api/game", json={"opponents": ["one-third"], "dice": 3, "seed": 4}).json()
    assert state["hint"] == {"agent": "robust", "refusal": None}
    assert state["phase"] == "your-turn"  # you open the first round
    game = app.state.sessions.get(client.cookies.get(COOKIE))
    cfr = CFRPlayer()
    cfr.reset(0, game.state.config)
    hint = client.get("/api/game/hint").json()
    assert hint["agent"] == "robust" and hint["refusal"] is None and hint["version"] == state["version"]
    shown = {a["action"]: a["probability"] for a in hint["actions"]}
    assert set(shown) <= set(state["legal"]) and sum(shown.values()) == pytest.approx(1, abs=1e-9)
    view = game._round.view()  # the first round, no type identified yet: robust plays the equilibrium
    expected = {a: float(cfr.action_probabilities(np.asarray(view.hand)[None, :], view.public(), a)[0])
                for a in view.legal_actions()}
    assert shown == {action_text(a): p for a, p in expected.items() if p > 0}
    state = client.post("/api/game/act", json={"move": state["legal"][0], "version": state["version"]}).json()
    assert state["phase"] == "agent-turn"
    _refused(client.get("/api/game/hint"), 409, "a hint is given on your turn only")


def test_asking_hints_changes_nothing_in_the_game_and_a_late_first_hint_knows_the_whole_game(app):
    """The hint's agent sees every event even when first asked rounds later (it is built then and shown the game
    so far): its answers equal those of a game where it was asked at every turn, and both games play alike."""
    def play(ask_from_round: int) -> tuple[dict, dict]:
        client, hints = _client(app), {}
        state = client.post("/api/game", json={"opponents": ["one-third"], "dice": 3, "seed": 11}).json()
        while state["phase"] != "game-over":
            if state["phase"] == "your-turn":
                if state["round"] >= ask_from_round:
                    hints[state["version"]] = client.get("/api/game/hint").json()["actions"]
                move = _raise_once(state)
                state = client.post("/api/game/act", json={"move": move, "version": state["version"]}).json()
            else:
                path = "/api/game/step" if state["phase"] == "agent-turn" else "/api/game/next-round"
                state = client.post(path, json={"version": state["version"]}).json()
        return hints, client.get("/api/game/record").json()

    always, record = play(0)
    late, late_record = play(2)
    never, plain_record = play(99)
    assert record == late_record == plain_record and not never
    assert late and late == {v: h for v, h in always.items() if v in late}


def test_at_a_table_of_three_the_hint_is_robusts_search_and_an_agent_that_refuses_says_why(app, monkeypatch):
    from ldpomdp.web import session

    client = _client(app)
    form = {"opponents": ["one-third"] * 2, "dice": 4, "seed": 3, **PERUDO}
    state = client.post("/api/game", json=form).json()
    assert state["hint"] == {"agent": "robust", "refusal": None}  # robust plays every table: its search here
    hint = client.get("/api/game/hint").json()
    assert hint["refusal"] is None and sum(a["probability"] for a in hint["actions"]) == pytest.approx(1)
    monkeypatch.setattr(session, "RECOMMENDED", "nash")  # a hint's agent that refuses three players
    client.post("/api/game", json=form)
    hint = client.get("/api/game/hint").json()
    assert hint["actions"] is None and "two players" in hint["refusal"]
    assert client.get("/api/game").json()["hint"] == {"agent": "nash", "refusal": hint["refusal"]}


def test_the_score_counts_the_sessions_finished_games(app):
    client, other = _client(app), _client(app)
    won = []
    for seed in (1, 2, 3):
        final = _states(client, {"opponents": ["random"], "dice": 1, "seed": seed})[-1]  # a new game, same session
        won.append(final["winner"] == 0)
        assert final["score"] == {"games": len(won), "won": sum(won)}
    assert 0 < sum(won) < 3  # both kinds of result counted
    state = client.post("/api/game", json={"opponents": ["random"], "dice": 1}).json()
    assert state["score"] == {"games": 3, "won": sum(won)}  # a game not finished is not counted
    assert other.post("/api/game", json={"opponents": ["random"], "dice": 1}).json()["score"] == {"games": 0, "won": 0}
    client.delete("/api/game")  # ending the game ends the session
    assert client.post("/api/game", json={"opponents": ["random"], "dice": 1}).json()["score"] == {"games": 0, "won": 0}


@pytest.mark.parametrize("players", [2, 6])
def test_the_ladder_offers_three_levels_of_increasing_strength_that_play_every_table(app, players):
    """Each level's spec plays a whole game at 2 and at 6 players under each rule set (the order of their strength
    is the measured one of the docs: In the browser, "The opponent ladder")."""
    client = _client(app)
    options = client.get("/api/options").json()
    assert [(level["name"], level["spec"]) for level in options["ladder"]] == [("beginner", "one-third"),
                                                                   ("club", "expected-count"), ("expert", "robust")]
    assert options["ladder"][-1]["spec"] == options["recommended"]["spec"]  # the expert is the recommended agent
    for level in options["ladder"]:
        for rule_set in options["rule_sets"]:
            form = {"opponents": [level["spec"]] * (players - 1), "dice": 1, **rule_set["rules"]}
            run = play_over_http(_client(app), form, seed=3)
            assert not run.problems and run.final["phase"] == "game-over", (level["name"], rule_set["name"])


def test_a_seat_that_learns_across_games_plays_a_match_in_the_session(app):
    """``robust:learn=true,match=true`` is the same player, with what it learnt, from one finished game to the next of
    the session while the seats and rules stay the same (its ``match_games`` counts the games it learnt from); other
    rules or seats, a game left unfinished, another session, a seat that does not learn across games, or a second
    request for the next game start afresh."""
    client, match = _client(app), "robust:learn=true,match=true"
    form = {"opponents": [match], "dice": 1}
    seen = []
    for games in range(3):
        states = _states(client, {**form, "seed": games})
        assert states[0]["players"][1]["match_games"] == games and states[0]["players"][0]["match_games"] == 0
        seen.append(app.state.sessions.get(client.cookies.get(COOKIE)).players[1])
        assert seen[-1]._rounds_seen == games + 1  # one round a game at 1 die: every game's rounds, carried
    assert seen[0] is seen[1] is seen[2]
    earlier = app.state.sessions.get(client.cookies.get(COOKIE))
    first, second = new_game(form, False, earlier), new_game(form, False, earlier)  # two requests, one next game
    assert first.players[1] is seen[2] and first.match_games == {1: 3}
    assert second.players[1] is not seen[2] and second.match_games == {}
    for why, (who, body) in {"other rules": (client, {**form, "dice": 2}),
                             "another session": (_client(app), form)}.items():
        assert who.post("/api/game", json=body).json()["players"][1]["match_games"] == 0, why
    _states(client, {**form, "seed": 5})
    other_seats = {**form, "opponents": [f"{match},confidence=0.9"]}
    assert client.post("/api/game", json=other_seats).json()["players"][1]["match_games"] == 0
    client.post("/api/game", json=form)
    assert client.post("/api/game", json=form).json()["players"][1]["match_games"] == 0  # the last game unfinished
    _states(client, {"opponents": ["one-third"], "dice": 1, "seed": 0})
    assert client.post("/api/game", json={"opponents": ["one-third"], "dice": 1}).json()["players"][1][
        "match_games"] == 0  # not a learner


def test_robust_playing_the_search_plays_a_match_at_three_players():
    """Where ``robust`` plays the search (3-6 players), a match seat carries each other seat's fitted evidence to the
    session's next game, and the page says so."""
    app = create_app()
    client, form = _client(app), {"opponents": ["robust:learn=true,match=true"] * 2, "dice": 1}
    _states(client, {**form, "seed": 0})
    assert [p["match_games"] for p in client.post("/api/game", json=form).json()["players"]] == [0, 1, 1]
    robust = app.state.sessions.get(client.cookies.get(COOKIE)).players[1]
    assert robust.plays == "search" and robust.learns_across_games
