"""The text seat (``text:agent=module:callable``): its prompts, its lenient reading of answers, its re-asking and
default move, its transcripts, and text agents in sweeps, tournaments and the evaluation, under every rule set."""

from __future__ import annotations

import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from conftest import ROOT

from ldpomdp import CHALLENGE, EXACT, Bid, GameConfig, PlayerView, make_player, make_seat, play_game, rotate
from ldpomdp.errors import UsageError
from ldpomdp.players.text import COSTS, TextPlayer, read_move, rules_text
from ldpomdp.rules import is_legal, minimal_raises
from ldpomdp.sweeps import Cell, GameStore, Tournament, run_sweep, run_tournament
from ldpomdp.sweeps.store import TRANSCRIPTS
from ldpomdp.sweeps.text_costs import TEXT_COSTS_FILE
from ldpomdp.web.session import WebError, check_spec

TODAY, PERUDO, DUDO = GameConfig(), GameConfig.preset("perudo"), GameConfig.preset("dudo")
AGENTS = '''
import time

def good(prompt):
    return "Thinking it over. [Call]" if "The standing bid is" in prompt else "[Bid: 1, 2]"

def garbage(prompt):
    return "I would rather talk about the weather."

def slow(prompt):
    time.sleep(0.5)
    return "[Call]"

def raises(prompt):
    raise ConnectionError("the model's server is down")
'''


@pytest.fixture
def agents(tmp_path, monkeypatch):
    """A module ``scripted_agents`` of text agents: one that plays, one that answers garbage, one too slow for a
    0.05 s timeout, one that raises."""
    (tmp_path / "scripted_agents.py").write_text(AGENTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "scripted_agents"
    sys.modules.pop("scripted_agents", None)


def view(config=TODAY, bid=None, hand=(1, 0, 2, 0, 1, 1), dice=(5, 5)):
    history = () if bid is None else ((1, bid),)
    return PlayerView(config, 0, dice, history, hand=hand)


@pytest.mark.parametrize("answer, move", [
    ("[Bid: 3, 4]", Bid(3, 4)),
    ("I think... [bid: 4,2]", Bid(4, 2)),
    ("[3x5]", Bid(3, 5)),
    ("I bid 3 4 maybe, no: [Bid: 4, 4]", Bid(4, 4)),  # the last bracketed move, prose around it ignored
    ("bid 5 sixes", Bid(5, 6)),
    ("three fours", Bid(3, 4)),
    ("Let me say 4 x 3", Bid(4, 3)),
    ("That is too many. Liar!", CHALLENGE),
    ("[Call]", CHALLENGE),
    ("I challenge", CHALLENGE),
    ("I'd raise to 3 fours. Actually no, I call.", CHALLENGE),  # the last move named
    ("[Bid: 4, 5] is my move [1]", Bid(4, 5)),  # a bracket that is no move is passed over
])
def test_answers_are_read_leniently(answer, move):
    assert read_move(answer, view(bid=Bid(2, 6))) == move


@pytest.mark.parametrize("answer, config, bid, kind, says", [
    ("hmm", TODAY, Bid(2, 6), "unreadable", "no move found; answer with [Bid: QUANTITY, FACE] or [Call]"),
    ("bid 4 \u017fixes", TODAY, Bid(2, 6), "unreadable", "no move found"),  # no Unicode case folding
    ("[Bid: 3, 9]", TODAY, Bid(2, 6), "unreadable", "there is no face 9"),
    ("[Bid: 3]", TODAY, Bid(2, 6), "unreadable", "a bid names a quantity and a face"),
    ("[Bid: 2, 5]", TODAY, Bid(2, 6), "illegal", "2 fives is not a raise over 2 sixes with 10 dice on the table"),
    ("[Call]", TODAY, None, "illegal", "you open the round: you must bid"),
    ("exact call", TODAY, Bid(2, 6), "illegal", "these rules have no exact call"),
    ("[Bid: 1, 1]", PERUDO, None, "illegal", "1 one is not an opening bid"),
    ("[Bid: 11, 3]", TODAY, Bid(2, 6), "illegal", "11 threes is not a raise over 2 sixes with 10 dice"),
])
def test_an_answer_that_names_no_legal_move_says_why(answer, config, bid, kind, says):
    found = read_move(answer, view(config, bid))
    assert found.kind == kind and found.reason.startswith(says)


def test_exact_call_and_the_sixes_game_read_their_moves():
    assert read_move("Spot on! [Exact]", view(PERUDO, Bid(2, 6))) is EXACT
    assert read_move("calza", view(PERUDO, Bid(2, 6))) is EXACT
    sixes = GameConfig(dice=3, bids="sixes")
    assert read_move("[Bid: 3]", view(sixes, Bid(2, 6), dice=(3, 3))) == Bid(3, 6)
    assert read_move("[Bid: 4, 6]", view(sixes, Bid(2, 6), dice=(3, 3))).kind == "illegal"


@pytest.mark.parametrize("config, has, lacks", [
    (TODAY, ["Ones are wild", "a higher quantity (on any face)"], ["exact call", "palifico", "half of Q"]),
    (PERUDO, ["exact call", "palifico round", "half of Q", "Nobody opens on ones"], ["as the bid missed by"]),
    (DUDO, ["as many dice as the bid missed by", "half of Q"], ["exact call", "palifico"]),
    (GameConfig(wild=None, opener="loser"), ["No face is wild", "the player who lost a die"], ["Ones are wild"]),
    (GameConfig.preset("textarena"), ["No face is wild", "lower neither the quantity nor the face"],
     ["a higher quantity (on any face)"]),
])
def test_rules_text_states_the_rules_in_force(config, has, lacks):
    text = rules_text(config)
    assert all(phrase in text for phrase in has) and not any(phrase in text for phrase in lacks)


@pytest.mark.parametrize("config", [TODAY, PERUDO, DUDO, GameConfig.preset("textarena"),
                                    GameConfig(dice=3, bids="sixes")])
def test_every_bid_the_prompt_lists_is_legal_and_read_back(config):
    """The prompt lists the smallest bid on each face: each, answered back in the stated format, is that legal bid."""
    player = TextPlayer(agent=lambda prompt: "[Call]")
    player.reset(0, config)
    for bid in (None, Bid(3, 4), Bid(2, 1)):
        if bid is not None and not is_legal(config, 10, None, bid) and config.bids == "full":
            continue
        at = view(config, bid if config.bids == "full" else (bid and Bid(bid.quantity, 6)))
        prompt = player.prompt(at)
        assert f"Your dice: {' '.join(str(f) for f, n in enumerate(at.hand, 1) for _ in range(n))}." in prompt
        for raise_ in minimal_raises(config, at.table_dice, at.bid):
            assert f"[Bid: {raise_.quantity}, {raise_.face}]" in prompt
            assert read_move(f"[Bid: {raise_.quantity}, {raise_.face}]", at) == raise_


def test_a_failing_agent_is_asked_again_with_the_reason_then_plays_the_default():
    asked = []

    def garbage(prompt):
        asked.append(prompt)
        return "no idea"

    player = TextPlayer(agent=garbage, retries=2)
    player.reset(0, TODAY)
    assert player.act(view(bid=Bid(2, 6)), np.random.default_rng(0)) is CHALLENGE  # a bid stands: the call
    assert player.act(view(), np.random.default_rng(0)) == Bid(1, 1)  # opening: the lowest opening bid
    assert len(asked) == 6 and "not accepted: no move found" in asked[1] and "'no idea'" in asked[1]
    t = player.transcript
    assert (t["unreadable"], t["defaults"], t["moves"], len(t["calls"])) == (6, 2, 0, 6)
    assert t["calls"][2]["default"] == "call" and t["calls"][5]["default"] == "1 one"
    assert t["chars_in"] == sum(len(p) for p in asked) and t["chars_out"] == 6 * len("no idea")


def test_timeouts_exceptions_and_non_text_are_recorded_not_raised():
    def slow(prompt):
        time.sleep(1.0)
        return "[Call]"

    def raises(prompt):
        raise ConnectionError("server down")

    for agent, kind, says in ((slow, "timeout", "no answer within 0.05 s"),
                              (raises, "error", "the agent raised ConnectionError: server down"),
                              (lambda prompt: 42, "error", "the agent returned int, not text")):
        player = TextPlayer(agent=agent, retries=1, timeout=0.05)
        player.reset(0, TODAY)
        assert player.act(view(bid=Bid(2, 6)), np.random.default_rng(0)) is CHALLENGE
        calls = player.transcript["calls"]
        assert player.transcript[kind] == 2 and [c["outcome"] for c in calls] == [kind, kind]
        assert calls[0]["reason"].startswith(says)
    player = TextPlayer(agent=raises, retries=0)
    player.reset(0, TODAY)
    player.act(view(bid=Bid(2, 6)), np.random.default_rng(0))
    assert 'raise ConnectionError("server down")' in player.transcript["calls"][0]["reason"]  # the agent's line


def test_a_hanging_agent_is_called_once_at_a_time():
    """While a call that timed out still runs, the agent is not called again: one thread, one call at a time."""
    started, release = [], threading.Event()

    def hangs(prompt):
        started.append(prompt)
        release.wait(5)
        return "[Call]"

    player = TextPlayer(agent=hangs, retries=3, timeout=0.05)
    player.reset(0, TODAY)
    for _ in range(3):
        assert player.act(view(bid=Bid(2, 6)), np.random.default_rng(0)) is CHALLENGE
    assert len(started) == 1 and player.transcript["timeout"] == 12 and player.transcript["defaults"] == 3
    assert [c["reason"] for c in player.transcript["calls"][1:3]] == [
        "the agent's last call, which timed out, is still running"] * 2
    release.set()
    player._late.join(5)
    # free again: called at each of its 4 tries (its "[Call]" cannot open a round), then the default opening bid
    assert player.act(view(), np.random.default_rng(0)) == Bid(1, 1) and len(started) == 5


def test_the_spec_imports_the_agent_and_refuses_what_it_cannot_call(agents):
    player = make_seat(f"text:agent={agents}:good,retries=1,timeout=5")
    assert isinstance(player, TextPlayer) and player.retries == 1 and player.timeout == 5
    assert player.name == f"text:agent={agents}:good,retries=1,timeout=5"  # its canonical spec
    with pytest.raises(UsageError, match="timeout must be above 0 seconds"):
        make_player(f"text:agent={agents}:good,timeout=0")
    for spec, says in ((f"text:agent={agents}:missing", "has no 'missing'"),
                       ("text:agent=no_such_module:ask", "no module named 'no_such_module'"),
                       ("text:agent=not a target", "expected package.module:callable"),
                       (f"text:agent={agents}:time", "is not callable"),
                       ("text:agent=math:pi", "is not callable")):
        with pytest.raises(UsageError, match=says):
            make_player(spec)


def test_the_server_refuses_a_text_seat_unless_plugins_are_allowed():
    with pytest.raises(WebError) as refused:
        check_spec("text:agent=mypkg.llm:ask", allow_plugins=False)
    assert refused.value.status == 403 and "the module mypkg.llm (text's agent)" in refused.value.message
    assert check_spec("text:agent=mypkg.llm:ask", allow_plugins=True) == "text:agent=mypkg.llm:ask"


@pytest.mark.parametrize("config", [GameConfig(num_players=n, dice=2) for n in (2, 4, 6)]
                         + [GameConfig.preset("perudo", num_players=3, dice=2),
                            GameConfig.preset("dudo", num_players=2, dice=3)])
def test_sweeps_record_every_failure_complete_and_resume_without_replaying(agents, tmp_path, config):
    n = config.num_players
    kinds = ["good", "garbage", "slow", "raises"]
    specs = [f"text:agent={agents}:{kinds[i % 4]},retries=1,timeout=0.05" if i < 4 else "one-third"
             for i in range(n)]
    cells = [Cell(tuple(specs), config)]
    with ThreadPoolExecutor(2) as pool:
        run_sweep(cells, 4, tmp_path / "out", seed=3, executor=pool, progress=False, log=None, exact=False)
    before = (tmp_path / "out" / "games.jsonl").read_bytes()
    records = list(GameStore(tmp_path / "out" / "games.jsonl").records.values())
    assert len(records) == 4
    for record in records:
        transcripts = record[TRANSCRIPTS]
        assert [t is not None for t in transcripts] == [s.startswith("text:") for s in specs]
        for spec, t in zip(specs, transcripts, strict=True):
            if t is None or not t["calls"]:  # a seat can be out before its turn comes
                continue
            outcomes = {c["outcome"] for c in t["calls"]}
            expected = {"good": {"move"}, "garbage": {"unreadable"}, "slow": {"timeout"}, "raises": {"error"}}
            assert outcomes == expected[spec.split(":")[2].split(",")[0]]
            assert t["moves"] + t["defaults"] == sum(c["outcome"] == "move" or "default" in c for c in t["calls"])
    costs = (tmp_path / "out" / TEXT_COSTS_FILE).read_text().splitlines()
    assert len(costs) == 1 + min(n, 4)
    with ThreadPoolExecutor(2) as pool:  # resumed: nothing is played again, nothing is appended
        lines = []
        run_sweep(cells, 4, tmp_path / "out", seed=3, executor=pool, progress=False, log=lines.append, exact=False)
    assert (tmp_path / "out" / "games.jsonl").read_bytes() == before
    assert any("nothing left to play" in line for line in lines)


def test_text_costs_add_up_the_transcripts(agents, tmp_path):
    cells = [Cell((f"text:agent={agents}:good", "one-third"), GameConfig(dice=2))]
    with ThreadPoolExecutor(1) as pool:
        run_sweep(cells, 6, tmp_path, seed=1, executor=pool, progress=False, log=None, exact=False)
    records = GameStore(tmp_path / "games.jsonl").records.values()
    header, row = [line.split(",") for line in (tmp_path / TEXT_COSTS_FILE).read_text().splitlines()][:2]
    found = dict(zip(header, row[-len(header):], strict=True))
    calls = sum(len(r[TRANSCRIPTS][0]["calls"]) for r in records)
    assert int(found["calls"]) == calls and int(found["games"]) == 6
    assert int(found["moves"]) == sum(r[TRANSCRIPTS][0]["moves"] for r in records) == calls


def test_a_damaged_transcript_is_named_on_resume(agents, tmp_path):
    cells = [Cell((f"text:agent={agents}:good", "one-third"), GameConfig(dice=1))]
    with ThreadPoolExecutor(1) as pool:
        run_sweep(cells, 2, tmp_path, seed=1, executor=pool, progress=False, log=None, exact=False)
    path = tmp_path / "games.jsonl"
    first, *rest = path.read_text().splitlines()
    record = json.loads(first)
    record[TRANSCRIPTS][0]["seconds"] = "slow"
    path.write_text("\n".join([json.dumps(record), *rest]) + "\n")
    with pytest.raises(UsageError, match="line 1 is not a game record .text is not a transcript"):
        GameStore(path)


@pytest.mark.parametrize("rules", ["today", "perudo", "dudo"])
def test_a_tournament_seats_the_worked_example(monkeypatch, tmp_path, rules):
    monkeypatch.syspath_prepend(str(ROOT))
    config = GameConfig(num_players=3, dice=2) if rules == "today" else GameConfig.preset(rules, num_players=3,
                                                                                          dice=2)
    tournament = Tournament(("text:agent=examples.text_agents:typical", "text:agent=examples.text_agents:careful",
                             "one-third", "random"), config, 3)
    with ThreadPoolExecutor(2) as pool:
        result = run_tournament(tournament, tmp_path, plot=False, log=None, executor=pool, progress=False)
    assert {r.agent for r in result.ratings} == set(tournament.agents)
    assert sum(r.games for r in result.cross) > 0 and (tmp_path / TEXT_COSTS_FILE).exists()


def test_the_worked_example_plays_whole_games_under_each_rule_set(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    for config in (TODAY, PERUDO, DUDO, GameConfig.preset("textarena"),
                   GameConfig.preset("perudo", num_players=5, dice=2)):
        for name in ("typical", "careful"):
            player = make_seat(f"text:agent=examples.text_agents:{name}")
            players = [player] + [make_seat("one-third") for _ in range(config.num_players - 1)]
            seated, _ = rotate(players, 1)
            play_game(config, seated, np.random.default_rng(4), first_opener=0)
            t = player.transcript
            assert t["moves"] > 0 and t["error"] == 0 and t["unreadable"] == 0
            assert set(COSTS) <= set(t)
