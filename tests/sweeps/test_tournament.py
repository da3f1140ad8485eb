"""Tournaments: the tables, the cross table against a hand count, the ratings (Bradley-Terry and Plackett-Luce)
against known answers, the files the web page reads, resuming after a kill, and bad input in one line."""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import expit

from ldpomdp import GameConfig
from ldpomdp.cli import main as cli_main
from ldpomdp.errors import install_hint
from ldpomdp.sweeps.ratings import ELO, GTOL, PRIOR_SD, plackett_luce, rate
from ldpomdp.sweeps.statistics import Z95, wilson_interval
from ldpomdp.sweeps.tournament import Tournament, cross_table, format_standings, outcomes, run_tournament

CROSS_COLUMNS = ["row_agent", "column_agent", "games", "wins", "win_rate", "low", "high"]
RATING_COLUMNS = ["rank", "agent", "rating", "low", "high", "games", "method"]


def _run(tournament, out, **kw):
    """run_tournament on one thread in this process (no pool: fast; the same games as any pool)."""
    with ThreadPoolExecutor(1) as pool:
        return run_tournament(tournament, out, executor=pool, progress=False, log=kw.pop("log", None), **kw)


def _records(out):
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


def _csv(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


# --- the tables ------------------------------------------------------------------------------------------------

def test_two_players_meet_in_every_pair_each_in_both_seats_and_the_cross_table_is_the_hand_count(tmp_path):
    agents = ("one-third", "bluff:0.3", "random")
    t = Tournament(agents, GameConfig(dice=1), games=6, seed=4)
    result = _run(t, tmp_path)
    records = _records(tmp_path)
    assert len(records) == 3 * 6
    assert sorted(c.players for c in t.cells) == sorted(tuple(sorted(p)) for p in itertools.combinations(agents, 2))
    wins, met = {}, {}
    for cell in t.cells:
        mine = [r for r in records if r["cell"] == cell.id]
        assert sorted(r["game"] for r in mine) == list(range(6))
        assert sorted(r["seats"][0] for r in mine) == [0, 0, 0, 1, 1, 1]  # each agent opens in seat 0 half the games
        for r in mine:
            winner, loser = (cell.players[r["seats"][s]] for s in r["finish"])
            assert r["finish"][0] == r["winner"]
            wins[winner, loser] = wins.get((winner, loser), 0) + 1
            met[winner, loser] = met[loser, winner] = met.get((winner, loser), 0) + 1
    rows = _csv(tmp_path / "cross_table.csv")
    assert rows[0] == CROSS_COLUMNS
    assert len(rows) == 1 + 6
    for row_agent, column_agent, games, won, rate_, low, high in rows[1:]:
        n, w = met[row_agent, column_agent], wins.get((row_agent, column_agent), 0)
        assert (int(games), int(won)) == (n, w) == (6, w)
        assert float(rate_) == pytest.approx(w / n, abs=5e-7)  # the file rounds to 6 decimals
        assert (float(low), float(high)) == pytest.approx(wilson_interval(w, n), abs=5e-7)
    assert [(r.row_agent, r.column_agent, r.wins) for r in result.cross] == [
        (a, b, int(w)) for a, b, _, w, *_ in rows[1:]]


def test_the_files_follow_the_contract_the_results_page_reads(tmp_path):
    t = Tournament(("one-third", "random", "oehm:0.2"), GameConfig(dice=2, exact_call=True), games=4, seed=1)
    result = _run(t, tmp_path)
    described = json.loads((tmp_path / "tournament.json").read_text())
    assert {k: described[k] for k in ("agents", "players", "dice", "games_per_table", "seed")} == {
        "agents": ["one-third", "random", "oehm:0.2"], "players": 2, "dice": 2, "games_per_table": 4, "seed": 1}
    assert described["rules"]["exact_call"] is True and described["rules"]["bids"] == "full"
    rows = _csv(tmp_path / "ratings.csv")
    assert rows[0] == RATING_COLUMNS
    assert [r[0] for r in rows[1:]] == ["1", "2", "3"] and {r[6] for r in rows[1:]} == {"bradley-terry"}
    assert [r[1] for r in rows[1:]] == [r.agent for r in result.ratings]
    assert [float(r[2]) for r in rows[1:]] == sorted((float(r[2]) for r in rows[1:]), reverse=True)
    assert all(float(low) < float(rating) < float(high) for _, _, rating, low, high, *_ in rows[1:])
    assert {int(r[5]) for r in rows[1:]} == {8}  # each agent sat at two tables of 4 games
    assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert {"games.jsonl", "summary.csv", "timing.csv"} <= {p.name for p in tmp_path.iterdir()}
    assert not [p.name for p in tmp_path.iterdir() if "tmp" in p.name]  # no temporary file left


def test_tables_of_three_are_every_combination_when_few_else_a_seeded_sample(tmp_path):
    config = GameConfig(num_players=3, dice=1)
    four = ("one-third", "bluff:0.3", "random", "oehm:0.2")
    assert [c.players for c in Tournament(four, config, 3).cells] == list(itertools.combinations(sorted(four), 3))
    five = (*four, "aggressive")
    drawn = Tournament(five, config, 3, seed=2, groups=4).cells
    assert len({c.players for c in drawn}) == 4 and all(list(c.players) == sorted(c.players) for c in drawn)
    assert Tournament(five[::-1], config, 3, seed=2, groups=4).cells == drawn  # the listing order changes nothing
    assert Tournament(five, config, 3, seed=2, groups=6).cells[:4] == drawn  # more tables keep the first ones
    assert Tournament(five, config, 3, seed=3, groups=4).cells != drawn
    with pytest.raises(ValueError, match=r"the 1 groups drawn leave '.*', '.*' without a seat: give more --groups"):
        Tournament(five, config, 3, seed=2, groups=1)


def test_tables_of_three_rank_finishing_orders_and_the_cross_table_counts_who_finished_ahead(tmp_path):
    four = ("one-third", "bluff:0.3", "random", "oehm:0.2")
    t = Tournament(four, GameConfig(num_players=3, dice=2), games=6, seed=5)
    result = _run(t, tmp_path)
    assert result.method == "plackett-luce" and {r[6] for r in _csv(tmp_path / "ratings.csv")[1:]} == {"plackett-luce"}
    ahead, met = {}, {}
    for r in _records(tmp_path):
        players = next(c.players for c in t.cells if c.id == r["cell"])
        order = [players[r["seats"][s]] for s in r["finish"]]
        assert len(order) == 3 and order[0] == players[r["seats"][r["winner"]]]
        for i, j in itertools.combinations(range(3), 2):
            ahead[order[i], order[j]] = ahead.get((order[i], order[j]), 0) + 1
            met[order[i], order[j]] = met[order[j], order[i]] = met.get((order[i], order[j]), 0) + 1
    for row in result.cross:  # every pair sits together at 2 of the 4 tables
        assert row.games == met[row.row_agent, row.column_agent] == 2 * 6
        assert row.wins == ahead.get((row.row_agent, row.column_agent), 0)
    assert all(r.games == 3 * 6 for r in result.ratings)  # each agent at 3 of the 4 tables


def test_records_without_a_finishing_order_count_the_winner_ahead_of_the_rest():
    t = Tournament(("one-third", "random", "oehm:0.2"), GameConfig(num_players=3, dice=1), games=2)
    cell = t.cells[0]  # players oehm:0.2, one-third, random
    records = {(cell.id, 0): {"seats": [2, 0, 1], "winner": 1},  # oehm:0.2 won; one-third and random unordered
               (cell.id, 1): {"seats": [0, 1, 2], "winner": 2, "finish": [2, 0, 1]}}  # random, oehm:0.2, one-third
    played = outcomes(t.cells, 2, records)
    assert played == [(["oehm:0.2"], ["random", "one-third"]), (["random", "oehm:0.2", "one-third"], [])]
    rows = {(r.row_agent, r.column_agent): (r.games, r.wins) for r in cross_table(t.agents, played)}
    assert rows["one-third", "random"] == (1, 0) and rows["random", "one-third"] == (1, 1)  # only game 1 orders them
    assert rows["oehm:0.2", "one-third"] == (2, 2) and rows["oehm:0.2", "random"] == (2, 1)


# --- the ratings ---------------------------------------------------------------------------------------------

def _pairs(counts):
    """Outcomes of two-player games from {(winner, loser): games}."""
    return [([w, loser], []) for (w, loser), n in counts.items() for _ in range(n)]


def test_bradley_terry_of_two_agents_is_the_one_dimensional_answer():
    w, lost, n = 60, 40, 100
    alpha = 1 / PRIOR_SD**2
    # the posterior's mode: d/dθ of the log posterior with θ1 = -θ2 = Δ/2 vanishes
    delta = brentq(lambda d: w - n * expit(d) - alpha * d / 2, -10, 10, xtol=1e-13)
    assert delta == pytest.approx(math.log(w / lost), abs=2e-4)  # the weak prior barely moves it
    ratings = rate(["a", "b"], _pairs({(0, 1): w, (1, 0): lost}))
    assert [r.agent for r in ratings] == ["a", "b"]
    p = expit(delta)
    off = ELO * GTOL / (p * (1 - p))  # how far a fit within its gradient tolerance may be, in Elo points
    assert ratings[0].rating == pytest.approx(ELO * delta / 2, abs=off) == -ratings[1].rating
    half = Z95 * ELO * math.sqrt(1 / (2 * (2 * n * p * (1 - p) + alpha)))  # the curvature along θ1 - θ2
    assert ratings[0].high - ratings[0].rating == pytest.approx(half, rel=1e-7)
    assert ratings[0].rating - ratings[0].low == pytest.approx(half, rel=1e-7)
    assert [r.games for r in ratings] == [100, 100]


def test_bradley_terry_gives_equal_ratings_to_a_symmetric_field_and_solves_its_score_equations():
    even = _pairs({(i, j): 7 for i, j in itertools.permutations(range(4), 2)})
    ratings = rate(list("abcd"), even)
    assert all(abs(r.rating) < 1e-6 for r in ratings)
    assert len({round(r.high - r.low, 6) for r in ratings}) == 1
    rng = np.random.default_rng(11)
    counts = {(i, j): int(rng.integers(0, 30)) for i, j in itertools.permutations(range(4), 2)}
    theta, _ = plackett_luce(_pairs(counts), 4)
    for i in range(4):  # wins = expected wins + the prior's pull, at the posterior's mode
        expected = sum((counts[i, j] + counts[j, i]) * expit(theta[i] - theta[j]) for j in range(4) if j != i)
        assert sum(counts[i, j] for j in range(4) if j != i) == pytest.approx(expected + theta[i] / PRIOR_SD**2,
                                                                            abs=GTOL * sum(counts.values()))


def test_a_perfect_record_gets_a_finite_rating_with_a_wide_interval():
    ratings = rate(["a", "b"], _pairs({(0, 1): 10}))
    assert math.isfinite(ratings[0].rating) and ratings[0].rating > 400
    assert ratings[0].low < 0.5 * ratings[0].rating  # the interval says how little 10 games tell


def _sampled_orders(theta, tables, games, seed):
    """Plackett-Luce finishing orders at ``tables`` (agent index tuples): order by strength plus Gumbel noise."""
    rng = np.random.default_rng(seed)
    orders = []
    for table in tables:
        for _ in range(games):
            noisy = [theta[a] + rng.gumbel() for a in table]
            orders.append([table[k] for k in np.argsort(noisy)[::-1]])
    return orders


def test_plackett_luce_recovers_known_strengths_from_synthetic_orders():
    truth = np.array([0.8, 0.3, -0.2, -0.9])
    orders = _sampled_orders(truth, list(itertools.combinations(range(4), 3)), 500, seed=3)
    theta, cov = plackett_luce([(o, []) for o in orders], 4)
    se = np.sqrt(np.diag(cov))
    assert np.all(np.abs(theta - truth) < 4 * se), (theta, truth, se)  # 4 sigma, fixed seed
    assert np.all(se < 0.06)  # 2000 orders of three: tight
    winners_only, cov_w = plackett_luce([(o[:1], o[1:]) for o in orders], 4)
    se_w = np.sqrt(np.diag(cov_w))
    assert np.all(np.abs(winners_only - truth) < 4 * se_w)
    assert np.all(se_w > se)  # the winner alone tells less than the whole order


def test_the_ratings_order_matches_the_cross_table_on_a_clear_cut_tournament(tmp_path):
    t = Tournament(("one-third", "random", "aggressive"), GameConfig(dice=2), games=40, seed=9)
    result = _run(t, tmp_path)
    shares = [result.share(r.agent) for r in result.ratings]
    assert shares == sorted(shares, reverse=True)
    assert result.ratings[0].agent == "one-third"
    rating = {r.agent: r.rating for r in result.ratings}
    clear = [row for row in result.cross if not row.low <= 0.5 <= row.high]
    assert clear, "the tournament should have clear-cut pairs"
    for row in clear:
        assert (row.win_rate > 0.5) == (rating[row.row_agent] > rating[row.column_agent])


# --- resuming ------------------------------------------------------------------------------------------------

def _count_lines(path):
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


CLI = [sys.executable, "-m", "ldpomdp.cli", "tournament", "--players", "one-third,bluff:0.3,random,oehm:0.2",
       "--dice", "2", "--seed", "2", "--no-plot", "--no-progress", "--workers", "1"]


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_tournament_resumes_with_every_game_once_and_rewrites_its_files_from_all(tmp_path, signum):
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    games = 250  # 6 pairs: 1500 games, some seconds on one worker
    proc = subprocess.Popen([*CLI, "--games", str(games), "--out", str(killed)], start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while _count_lines(killed / "games.jsonl") < 200 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    (os.kill if signum == signal.SIGTERM else os.killpg)(proc.pid, signum)  # kill -9: the whole group
    said = proc.communicate(timeout=30)[0]
    partial = _count_lines(killed / "games.jsonl")
    assert 0 < partial < 6 * games, "the tournament should have been killed mid-run"
    if signum == signal.SIGTERM:
        assert proc.returncode == 130 and b"run the same command again to resume" in said
        timed = [row for row in _csv(killed / "timing.csv")[1:] if row[0] != "total wall"]
        assert 0 < sum(int(row[2]) for row in timed) <= partial  # the stopped run's CPU seconds are kept
        assert all(float(row[3]) > 0 for row in timed)
    assert not (killed / "ratings.csv").exists()  # written at the end, from every game
    resumed = subprocess.run([*CLI, "--games", str(games), "--out", str(killed)], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{6 * games - partial} of {6 * games} games to play" in resumed.stdout
    _run(Tournament(("one-third", "bluff:0.3", "random", "oehm:0.2"), GameConfig(dice=2), games, seed=2), whole,
         plot=False)
    got = (killed / "games.jsonl").read_text().splitlines()
    keys = [(r["cell"], r["game"]) for r in map(json.loads, got)]
    assert len(keys) == len(set(keys)) == 6 * games  # nothing lost, nothing doubled
    assert sorted(got) == sorted((whole / "games.jsonl").read_text().splitlines())
    for name in ("cross_table.csv", "ratings.csv", "tournament.json", "summary.csv"):
        assert (killed / name).read_text() == (whole / name).read_text(), name
    assert {int(r[2]) for r in _csv(killed / "cross_table.csv")[1:]} == {games}


def test_more_games_into_the_same_folder_rewrite_the_files_from_every_game(tmp_path):
    agents = ("one-third", "random")
    _run(Tournament(agents, GameConfig(dice=1), 4), tmp_path)
    said = []
    result = _run(Tournament(agents, GameConfig(dice=1), 10), tmp_path, log=said.append)
    assert "6 of 10 games to play (1 cells)" in said[0]
    assert said[-2:] == [format_standings(result), f"wrote {tmp_path}: tournament.json, cross_table.csv, ratings.csv, "
                                                   f"ratings.png"]
    assert [r.games for r in result.ratings] == [10, 10]
    assert {int(r[2]) for r in _csv(tmp_path / "cross_table.csv")[1:]} == {10}
    assert json.loads((tmp_path / "tournament.json").read_text())["games_per_table"] == 10


# --- the command line ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv,message", [
    (["--players", "robust"], "a tournament needs at least two agents, got 1"),
    (["--players", "robust,nobody"], "unknown player 'nobody'; known:"),
    (["--players", "robust,robust:"], "agent 'robust' is listed twice"),
    (["--players", "human,one-third"], "player 'human' in cell players=human|one-third;dice=5;bids=full;faces=6;"
                                       "wild=1;opener=after_challenger: a person cannot play in a sweep"),
    (["--players", "mixture:types=[one-third,random],one-third"],
     "player spec 'mixture:types=[one-third,random]' cannot take a seat"),
    (["--players", "one-third,random", "--seats", "3"],
     "groups of 3 players need at least 3 agents, got 2"),
    (["--players", "one-third,random", "--groups", "3"], "--groups draws groups of 3+ players"),
    (["--players", "nash,one-third,random", "--seats", "3"], "exact solvers handle two players"),
    (["--players", "one-third,random", "--rules", "perudo", "--wild", "none"], "GameConfig.wild_bids='perudo' needs"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    assert cli_main(["tournament", *argv, "--out", str(out), "--games", "2", "--workers", "1", "--no-progress"]) == 2
    printed, err = capsys.readouterr()
    assert err.startswith("ldpomdp: error: ") and message in err and err.count("\n") == 1, err
    assert "games to play" not in printed and not (out / "games.jsonl").exists()


def test_the_command_prints_the_ratings_and_writes_the_files(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli_main(["tournament", "--players", "one-third,random,oehm:0.2", "--dice", "1", "--games", "6",
                     "--out", str(out), "--workers", "1", "--no-progress", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    assert "rank agent" in printed and "bradley-terry ratings in Elo points" in printed
    assert f"wrote {out}: tournament.json, cross_table.csv, ratings.csv, ratings.png" in printed
    assert json.loads((out / "tournament.json").read_text())["seed"] == 3


def test_without_matplotlib_the_plot_is_skipped_with_a_one_line_install_hint(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # imports of it fail as if it were not installed
    said = []
    _run(Tournament(("one-third", "random"), GameConfig(dice=1), 2), tmp_path, log=said.append)
    assert [line for line in said if "needs matplotlib" in line] == [
        f"ratings.png needs matplotlib: {install_hint('plot')}"]
    assert (tmp_path / "ratings.csv").exists() and not (tmp_path / "ratings.png").exists()


@pytest.mark.parametrize("first, second", [("sweep", "tournament"), ("tournament", "sweep")])
def test_a_tournament_and_a_sweep_never_share_a_folder(tmp_path, capsys, first, second):
    # issue 55: the second run mixed its files with the first's
    out = tmp_path / "o"
    argv = {"sweep": ["sweep", "--players", "one-third,random", "--dice", "1"],
            "tournament": ["tournament", "--players", "one-third,random", "--dice", "1"]}
    common = ["--games", "2", "--workers", "1", "--no-progress", "--no-plot", "--out", str(out)]
    assert cli_main(argv[first] + common) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    assert cli_main(argv[second] + common) == 2
    err = capsys.readouterr().err
    holds = "tournament.json" if first == "tournament" else "summary.csv without a tournament.json"
    assert err == (f"ldpomdp: error: {str(out)!r} holds a {first}'s results ({holds}): a {second} there would mix "
                   f"its files with them; give the {second} another --out\n")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing added, nothing changed
    assert cli_main(argv[first] + common[:1] + ["3"] + common[2:]) == 0  # the first kind goes on there
