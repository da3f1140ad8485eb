"""Sweep statistics: Wilson intervals, Newcombe's interval of a difference, and the per-player summary of a cell's
games."""

from __future__ import annotations

import math

import pytest

from ldpomdp.sweeps import Cell, difference_interval, rate_text, summarize, wilson_interval


@pytest.mark.parametrize("k,n,low,high", [
    (5, 10, 0.2366, 0.7634),  # textbook values (e.g. Newcombe 1998, Agresti & Coull 1998)
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (50, 100, 0.4038, 0.5962),
    (81, 263, 0.2553, 0.3662),
])
def test_wilson_interval_known_values(k, n, low, high):
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)


def test_the_difference_of_two_win_rates_has_newcombes_interval():
    # Newcombe (1998), Table II, method 10: 56/70 - 48/80 and 9/10 - 3/10
    assert difference_interval(56, 70, 48, 80) == pytest.approx((0.0524, 0.3339), abs=5e-5)
    assert difference_interval(9, 10, 3, 10) == pytest.approx((0.1705, 0.8090), abs=5e-5)


@pytest.mark.parametrize("n", [10, 30, 50, 100, 1000])
def test_wilson_interval_is_exactly_closed_at_no_and_all_successes(n):
    # rounding used to leave 6.9e-18 at 0 of 50 and 0.9999999999999999 at 10 of 10: negative error bars
    assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
    for k in (0, 1, n // 2, n - 1, n):
        low, high = wilson_interval(k, n)
        assert low <= k / n <= high


def test_wilson_endpoints_invert_the_score_test():
    z = 1.959963984540054
    for k, n in [(3, 17), (40, 41), (500, 1000)]:
        p = k / n
        for p0 in wilson_interval(k, n):
            if 0 < p0 < 1:
                assert abs(p - p0) == pytest.approx(z * math.sqrt(p0 * (1 - p0) / n), rel=1e-9)


def test_summarize_maps_seats_to_players():
    cell = Cell.of(("a.b:X", "c.d:Y", "e.f:Z"), 3)
    records = {
        # seats[s] = player index in seat s; winner and challenges are per seat
        (cell.id, 0): {"seats": [0, 1, 2], "winner": 1, "challenges": [2, 0, 1], "successful_challenges": [1, 0, 1]},
        (cell.id, 1): {"seats": [1, 2, 0], "winner": 0, "challenges": [0, 3, 1], "successful_challenges": [0, 1, 0]},
        (cell.id, 2): {"seats": [2, 0, 1], "winner": 2, "challenges": [1, 1, 1], "successful_challenges": [1, 1, 1]},
        (cell.id, 9): {"seats": [0, 1, 2], "winner": 0, "challenges": [9, 9, 9], "successful_challenges": [9, 9, 9]},
    }
    rows = summarize([cell], 3, records)  # game 9 is outside the 3 requested games
    assert [r.games for r in rows] == [3, 3, 3]
    assert [r.wins for r in rows] == [0, 3, 0]  # player 1 won in seats 1, 0 and 2
    # player 0 sat in seats 0, 2, 1: challenges 2 + 1 + 1, successes 1 + 0 + 1
    assert rows[0].challenges_per_game == pytest.approx(4 / 3) and rows[0].challenge_success_rate == pytest.approx(0.5)
    # player 2 sat in seats 2, 1, 0: challenges 1 + 3 + 1, successes 1 + 1 + 1
    assert rows[2].challenges_per_game == pytest.approx(5 / 3) and rows[2].challenge_success_rate == pytest.approx(0.6)
    assert rows[1].win_rate == 1.0 and rows[1].ci_low == pytest.approx(wilson_interval(3, 3)[0])


def test_rate_text_is_the_rate_and_its_wilson_interval():
    low, high = wilson_interval(3, 10)
    assert rate_text(3, 10) == f"0.300 [{low:.3f}, {high:.3f}]" == "0.300 [0.108, 0.603]"
    assert rate_text(0, 0) == "-"
