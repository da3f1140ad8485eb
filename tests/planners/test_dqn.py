"""Report 004's DQN: the numpy player and its shipped weights, a short seeded training run that beats its untrained
self, and a training run killed mid-way that resumes to the same weights."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict

import numpy as np
import pytest
from conftest import DAMAGE, damage
from ldpomdp.planners.dqn import SHIPPED_WEIGHTS, DQNPlayer, Frame, QNetwork
from ldpomdp.planners.dqn_train import TrainSettings, initial_params

from ldpomdp import GameConfig, make_player, play_game
from ldpomdp.cli import main as cli_main
from ldpomdp.errors import TableError
from ldpomdp.rules import match_matrix

SMALL = ["--players", "2", "--dice", "2", "--games", "200,0,100", "--checkpoint-every", "50",
         "--eval-every", "100000", "--eval-games", "20", "--no-progress"]


def test_shipped_weights_load_and_play_both_table_sizes():
    network = QNetwork.load(SHIPPED_WEIGHTS)
    assert network.frame == Frame(3, 5, 6, 1, "full")
    for opponents in (["conservative"], ["aggressive", "random"]):
        config = GameConfig(1 + len(opponents))
        players = [make_player("dqn"), *map(make_player, opponents)]
        record = play_game(config, players, np.random.default_rng(0))
        assert record.winner in range(config.num_players) and record.rounds


def test_dqn_plays_without_a_neural_network_library():
    script = ("import sys, numpy as np; from ldpomdp import GameConfig, make_player, play_game; "
              "play_game(GameConfig(3), [make_player(s) for s in ('dqn', 'random', 'conservative')], "
              "np.random.default_rng(1)); print(sorted(m for m in ('jax', 'optax', 'torch') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


class _OddsChecked(DQNPlayer):
    """Checks ``bid_odds`` against a direct sum over every pair of the belief's opponent hands at each decision."""

    checked = 0

    def act(self, view, rng):
        config = view.config
        matches = match_matrix(config)
        own = np.asarray(view.hand) @ matches
        totals, weights = np.zeros((1, config.faces), int), np.ones(1)
        for belief in self.belief.beliefs.values():
            counts = belief.particles @ matches
            totals = (totals[:, None] + counts[None, :, :]).reshape(-1, config.faces)
            weights = (weights[:, None] * belief.weights[None, :]).ravel()
        odds = self.bid_odds(view)
        for index in range(self.coding.num_bids):
            bid = self.coding.action(index)
            direct = weights @ (own[bid.face - 1] + totals[:, bid.face - 1] >= bid.quantity)
            assert odds[index] == pytest.approx(direct, abs=1e-12), bid
        type(self).checked += 1
        return super().act(view, rng)


def test_bid_odds_are_the_belief_probabilities_of_every_bid():
    network = QNetwork(initial_params(TrainSettings()), Frame())
    for seed, opponents in enumerate([["conservative", "one-third"], ["aggressive"]]):
        config = GameConfig(1 + len(opponents), 4)
        players = [_OddsChecked(network=network), *map(make_player, opponents)]
        play_game(config, players, np.random.default_rng(seed))
    assert _OddsChecked.checked >= 4


def test_dqn_refuses_a_game_outside_its_frame_and_bad_files(tmp_path):
    player = make_player("dqn")
    with pytest.raises(ValueError, match="up to 3 players of up to 5 dice"):
        play_game(GameConfig(2, 6), [player, make_player("random")], np.random.default_rng(0))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a weights file")
    with pytest.raises(ValueError, match="cannot read the DQN weights"):
        make_player(f"dqn:weights={bad}")
    old = tmp_path / "old.npz"  # the first network's format: layers w0, b0, ... without the p_ prefix
    np.savez(old, frame=json.dumps(asdict(Frame())), w0=np.zeros((132, 91)), b0=np.zeros(91))
    with pytest.raises(ValueError, match="cannot read the DQN weights.*no network arrays"):
        make_player(f"dqn:weights={old}")
    network = QNetwork.load(SHIPPED_WEIGHTS)
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, frame=json.dumps(asdict(Frame(2, 4))), **{f"p_{k}": v for k, v in network.params.items()})
    with pytest.raises(ValueError, match="cannot read the DQN weights.*not a network of the frame"):
        make_player(f"dqn:weights={wrong}")


@pytest.mark.parametrize("kind", DAMAGE)
def test_damaged_weights_are_one_error_naming_the_file_and_its_fault(tmp_path, kind):
    # a truncated file used to raise zipfile.BadZipFile, an empty one EOFError
    path = tmp_path / "dqn.npz"
    path.write_bytes(SHIPPED_WEIGHTS.read_bytes())
    fault = damage(path, kind)
    with pytest.raises(TableError) as error:
        QNetwork.load(path)
    assert str(error.value).startswith(f"cannot read the DQN weights {path}: {fault}")
    with pytest.raises(ValueError) as error:
        make_player(f"dqn:weights={path}")
    assert str(error.value).startswith(f"player spec 'dqn:weights={path}': cannot read the DQN weights {path}: {fault}")
    assert "\n" not in str(error.value)


@pytest.mark.rl
@pytest.mark.parametrize("kind", DAMAGE)
def test_training_names_a_damaged_checkpoint_and_says_to_delete_it(tmp_path, capsys, kind):
    pytest.importorskip("jax", reason="the rl extra is not installed (pip install -e \".[test,rl]\")")
    checkpoint = tmp_path / "checkpoint.npz"
    checkpoint.write_bytes(SHIPPED_WEIGHTS.read_bytes())  # an .npz as long as a checkpoint would be, damaged below
    fault = damage(checkpoint, kind)
    assert cli_main(["train", "dqn", "--out", str(tmp_path), "--no-progress", *SMALL]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ldpomdp: error: cannot read the checkpoint {checkpoint}: {fault}")
    assert err.endswith("; delete it to start the training afresh\n") and err.count("\n") == 1


@pytest.mark.parametrize("options, message", [(["--games", "10,10"], "three integers"),
                                              (["--games", "a,b,c"], "three integers"),
                                              (["--wild", "3"], "wild"), (["--players", "1"], ">= 2"),
                                              (["--final-lr", "-1"], "final_learning_rate must be a finite number"),
                                              (["--final-lr", "0.01"], "must be <= learning_rate")])
def test_train_command_refuses_bad_options(options, message, capsys, tmp_path):
    from ldpomdp.cli import main

    try:
        code = main(["train", "dqn", "--out", str(tmp_path), *options])
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    assert code == 2 and message in capsys.readouterr().err


def train(out, *extra):
    return subprocess.Popen([sys.executable, "-m", "ldpomdp.cli", "train", "dqn", "--out", str(out), "--seed", "3",
                             *SMALL, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


# the tests that take this run share one test process (pytest-xdist's group dqn-training), so it trains once
@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    pytest.importorskip("jax", reason="the rl extra is not installed (pip install -e \".[test,rl]\")")
    out = tmp_path_factory.mktemp("dqn")
    run = train(out)
    _, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    return out


def wins(player, games=300):
    """Wins of ``player`` over ``games`` 2-dice games against each dummy, seats alternating, fixed dice."""
    total = 0
    for j, dummy in enumerate(("random", "aggressive", "conservative")):
        other = make_player(dummy)
        for k in range(games):
            seated = [player, other] if k % 2 == 0 else [other, player]
            record = play_game(GameConfig(2, 2), seated, np.random.default_rng([j, k]), first_opener=(k // 2) % 2)
            total += seated[record.winner] is player
    return total


@pytest.mark.slow
@pytest.mark.rl
@pytest.mark.xdist_group("dqn-training")
def test_short_training_beats_the_untrained_network(trained):
    frame = Frame(2, 2)
    untrained = DQNPlayer(network=QNetwork(initial_params(TrainSettings(seed=3, frame=frame)), frame))
    before, after = wins(untrained), wins(make_player(f"dqn:weights={trained / 'dqn.npz'}"))
    from ldpomdp.sweeps import wilson_interval

    assert wilson_interval(after, 900)[0] > wilson_interval(before, 900)[1], (before, after)


@pytest.mark.slow
@pytest.mark.rl
@pytest.mark.xdist_group("dqn-training")
def test_killed_training_resumes_to_the_same_weights(trained, tmp_path):
    run = train(tmp_path)
    checkpoint = tmp_path / "checkpoint.npz"
    deadline = time.monotonic() + 300
    while not checkpoint.exists() and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    assert run.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    resumed = train(tmp_path)
    out, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0 and "resumed from" in out, err
    a, b = QNetwork.load(trained / "dqn.npz"), QNetwork.load(tmp_path / "dqn.npz")
    assert a.params.keys() == b.params.keys()
    for name in a.params:
        np.testing.assert_array_equal(a.params[name], b.params[name])


@pytest.mark.slow
@pytest.mark.rl
@pytest.mark.xdist_group("dqn-training")
def test_resuming_with_other_settings_is_refused(trained):
    run = train(trained, "--lr", "0.01")
    _, err = run.communicate(timeout=600)
    assert run.returncode == 2 and "other settings" in err
