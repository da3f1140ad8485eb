"""Training of report 004's DQN (``ldpomdp train dqn``; extra ``rl``: JAX and optax).

Report 004, section 4: the network, the three-stage curriculum and the choices the report leaves open are on the
Learning agents page. Every random draw follows from the run's seed (``_stream``), and a checkpoint (written
atomically) holds the networks, the optimizer, the buffer and the counters, so a killed run resumes to the same
weights.
"""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from ldpomdp.datafiles import read_npz, write_npz
from ldpomdp.envs.coding import REPORT_SHAPING, Shaping, round_reward
from ldpomdp.errors import UsageError, install_hint
from ldpomdp.game import ActionTaken, Event, PlayerView, RoundEnd, RoundStart, play_game
from ldpomdp.registry import make_player
from ldpomdp.rules import Action, ActionCoding, Bid, GameConfig
from ldpomdp.sweeps.statistics import wilson_interval
from ldpomdp.validation import int_at_least, number, probability

from .dqn import DQNPlayer, Frame, QNetwork, action_descriptors, feature_size, parameter_shapes, q_values

__all__ = ["Stage", "TrainSettings", "report_curriculum", "train_dqn", "Replay", "LearningPlayer"]

DUMMIES = ("random", "aggressive", "conservative")
DUMMY_PAIRS = (("random", "aggressive"), ("aggressive", "conservative"), ("conservative", "random"),
               ("random", "random"), ("aggressive", "aggressive"), ("conservative", "conservative"))
FROZEN = ("agent1", "agent2")  # opponent names that mean the network as it was at the end of that stage


@dataclass(frozen=True)
class Stage:
    """One stage of training: games against opponent groups taken in turn.

    The learner follows the Conservative dummy with probability alpha (falling through the stage), else explores
    with probability ``epsilon``."""

    name: str  # agent1, agent2: later stages may play the network frozen at the end of the stage of that name
    games: int  # training games, >= 0
    groups: tuple[tuple[str, ...], ...]  # the opponent groups, each a tuple of opponent specs or frozen agent names
    epsilon: float  # in [0, 1], the probability of a random legal action when not following the dummy
    shaping: Shaping  # the per-round rewards
    alpha: float = 0.0  # in [0, 1], the probability of following the Conservative dummy at the stage's start
    alpha_step: float = 0.0  # >= 0, what alpha loses per tenth of the stage (never below 0)

    def alpha_at(self, game: int) -> float:
        """alpha in game ``game`` of the stage."""
        return max(0.0, self.alpha - self.alpha_step * (10 * game // max(self.games, 1)))


def report_curriculum(games: Sequence[int], frame: Frame) -> list[Stage]:
    """Report 004's three stages with ``games[i]`` games each (stage ``agent2`` and the 3-player groups only when
    the frame has 3 seats or more)."""
    if len(games) != 3:
        raise UsageError(f"report_curriculum needs three game counts (agent1, agent2, final), got {list(games)}")
    counts = [int_at_least("report_curriculum", "games", g, 0) for g in games]
    three = frame.players >= 3
    risky = replace(REPORT_SHAPING, risk=1.0, small_raise=REPORT_SHAPING.bid_held)
    final_groups: list[tuple[str, ...]] = [("agent1",), ("agent2",)] if three else [("agent1",)]
    if three:
        final_groups += [("agent1", "agent2"), ("agent1", "agent1"), ("agent2", "agent2")]
    dummies = [(d,) for d in DUMMIES] + (list(DUMMY_PAIRS) if three else [])
    mixed = [g for pair in zip(final_groups * len(dummies), dummies * len(final_groups), strict=True) for g in pair]
    stages = [Stage("agent1", counts[0], tuple((d,) for d in DUMMIES), 0.1, REPORT_SHAPING, 1.0, 0.1)]
    if three:
        stages.append(Stage("agent2", counts[1], DUMMY_PAIRS, 0.1, risky))
    stages.append(Stage("final", counts[2], tuple(mixed), 0.2, REPORT_SHAPING))
    return stages


@dataclass(frozen=True)
class TrainSettings:
    """Everything a run depends on (stored in its checkpoint; resuming needs the same). Counts are integers >= 1,
    the seed >= 0."""

    seed: int = 0  # >= 0
    learning_rate: float = 1e-3  # Adam's rate at the start, > 0, falling linearly to final_learning_rate
    final_learning_rate: float = 1e-4  # the rate at the last update, in [0, learning_rate]
    gamma: float = 0.9  # the discount, in [0, 1]
    batch: int = 128  # transitions per minibatch
    buffer: int = 100_000  # the replay buffer's capacity in transitions
    frame: Frame = field(default_factory=Frame)  # the largest table the network plays
    train_every: int = 10  # games between two training sessions
    updates: int = 50  # minibatches per training session
    target_every: int = 10  # training sessions between two copies into the target network
    eval_every: int = 5_000  # games between two evaluations
    games: tuple[int, int, int] = (20_000, 20_000, 20_000)  # training games of report_curriculum's three stages
    eval_games: int = 200  # games per evaluation
    checkpoint_every: int = 1_000  # games between two checkpoints
    hidden: tuple[int, ...] = (128, 128, 128)  # the hidden layer sizes (the last one is the action layer)

    def __post_init__(self) -> None:
        int_at_least("TrainSettings", "seed", self.seed, 0)
        for name in ("batch", "buffer", "train_every", "updates", "target_every", "eval_every", "eval_games",
                     "checkpoint_every"):
            int_at_least("TrainSettings", name, getattr(self, name), 1)
        number("TrainSettings", "learning_rate", self.learning_rate, low=0.0, low_open=True)
        number("TrainSettings", "final_learning_rate", self.final_learning_rate, low=0.0)
        if self.final_learning_rate > self.learning_rate:
            raise UsageError(f"TrainSettings.final_learning_rate must be <= learning_rate {self.learning_rate:g} (the "
                             f"rate falls over the run), got {self.final_learning_rate!r}")
        probability("TrainSettings", "gamma", self.gamma)
        if not self.hidden or any(int_at_least("TrainSettings", "hidden", h, 1) != h for h in self.hidden):
            raise UsageError(f"TrainSettings.hidden must list layer sizes, got {self.hidden!r}")

    def as_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


class Replay:
    """A ring buffer of transitions (features, action, reward, next features, next legal mask, done)."""

    def __init__(self, capacity: int, features: int, actions: int):
        self.s = np.zeros((capacity, features), np.float32)
        self.a = np.zeros(capacity, np.int32)
        self.r = np.zeros(capacity, np.float32)
        self.s2 = np.zeros((capacity, features), np.float32)
        self.m2 = np.zeros((capacity, actions), bool)
        self.done = np.zeros(capacity, np.float32)
        self.capacity, self.size, self.next = capacity, 0, 0

    def add(self, s: np.ndarray, a: int, r: float, s2: np.ndarray, m2: np.ndarray, done: bool) -> None:
        i = self.next
        self.s[i], self.a[i], self.r[i], self.s2[i], self.m2[i], self.done[i] = s, a, r, s2, m2, done
        self.next, self.size = (i + 1) % self.capacity, min(self.size + 1, self.capacity)

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k)[:self.size] for k in ("s", "a", "r", "s2", "m2", "done")}

    def load(self, arrays: dict[str, np.ndarray], next_index: int) -> None:
        size = len(arrays["a"])
        for k in ("s", "a", "r", "s2", "m2", "done"):
            getattr(self, k)[:size] = arrays[k]
        self.size, self.next = size, next_index


class LearningPlayer(DQNPlayer):
    """The learner at the table: plays around the current network and writes its transitions to ``replay``.

    It acts alpha-greedy (the Conservative dummy) / epsilon-greedy around the network; its reward is ``shaping``
    each round, +-1 at its game's end."""

    def __init__(self, network: QNetwork, replay: Replay):
        super().__init__(network=network)
        self.replay, self.conservative = replay, make_player("conservative")
        self.alpha, self.epsilon, self.shaping = 0.0, 0.0, REPORT_SHAPING
        self.explore = np.random.default_rng(0)
        self.pending: tuple[np.ndarray, int] | None = None
        self.reward = 0.0
        self.history: list[tuple[int, Bid]] = []

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        self.conservative.reset(seat, config)
        self.pending, self.reward, self.history = None, 0.0, []

    def _close(self, s2: np.ndarray, m2: np.ndarray, done: bool) -> None:
        if self.pending is not None:
            s, a = self.pending
            self.replay.add(s, a, self.reward, s2, m2, done)
        self.pending, self.reward = None, 0.0

    def act(self, view: PlayerView, rng: np.random.Generator) -> Action:
        s, mask = self.features(view), self.legal_mask(view)
        self._close(s, mask, False)
        u = self.explore.random()
        if u < self.alpha:
            index = self.coding.index(self.conservative.act(view, rng))
        elif u < self.alpha + (1.0 - self.alpha) * self.epsilon:
            index = int(self.explore.choice(np.flatnonzero(mask)))
        else:
            index = self.greedy(s, mask)
        self.pending = (s, index)
        return self.coding.action(index)

    def observe(self, event: Event) -> None:
        super().observe(event)
        if isinstance(event, RoundStart):
            self.history = []
        elif isinstance(event, ActionTaken) and isinstance(event.action, Bid):
            self.history.append((event.seat, event.action))
        elif isinstance(event, RoundEnd):
            self.reward += round_reward(event, tuple(self.history), self.seat, self.shaping)
            alive = [d > 0 for d in event.dice_after]
            if not alive[self.seat] or sum(alive) == 1:
                self.reward += 1.0 if alive[self.seat] else -1.0
                if self.pending is not None:
                    self._close(np.zeros_like(self.pending[0]), np.zeros(self.coding.size, bool), True)


def _stream(seed: int, *key: int) -> np.random.Generator:
    """The run's random stream ``key``, drawn from ``seed`` alone.

    The keys: (2) the initial weights, (0, k) game k's dice, seats and opponents, (3, k) its exploration, (4, j)
    training session j's minibatches, (1, g, k) evaluation game k against group g."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def initial_params(settings: TrainSettings) -> dict[str, np.ndarray]:
    """He-initialised weights (the odds as one more input of the action layer), zero biases, from the run's seed."""
    rng = _stream(settings.seed, 2)
    shapes = parameter_shapes(settings.frame, settings.hidden)
    action_layer = shapes["state_w"][0] + shapes["action_w"][0] + 1  # its inputs: state, descriptor, odds
    params = {}
    for name, shape in shapes.items():
        if name[0] == "b" or name.endswith("_b"):
            params[name] = np.zeros(shape, np.float32)
        else:
            fan_in = action_layer if name in ("state_w", "action_w", "odds_w") else shape[0]
            params[name] = rng.normal(0.0, np.sqrt(2.0 / fan_in), shape).astype(np.float32)
    return params


class _Learner:
    """The JAX side: parameters, target, Adam state, and one jitted training session."""

    def __init__(self, settings: TrainSettings, params: dict[str, np.ndarray]):
        # one thread for XLA (2-core machines are shared); only effective before jax's first import
        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
        try:
            import jax
            import jax.numpy as jnp
            import optax
        except ModuleNotFoundError as exc:
            raise UsageError(f"ldpomdp train dqn needs {exc.name}: {install_hint('rl')}") from None
        self.jax, self.jnp = jax, jnp
        self.params = {k: jnp.asarray(v) for k, v in params.items()}
        self.target = self.params
        sessions = sum(s.games for s in report_curriculum(settings.games, settings.frame)) // settings.train_every
        rate = optax.linear_schedule(settings.learning_rate, settings.final_learning_rate,
                                     max(sessions * settings.updates, 1))
        self.optimizer = optax.chain(optax.clip_by_global_norm(10.0), optax.adam(rate))
        self.opt_state = self.optimizer.init(self.params)
        gamma = settings.gamma

        descriptors = jnp.asarray(action_descriptors(settings.frame))

        def loss(params, target, s, a, r, s2, m2, done):
            # double DQN: the online network chooses the next action, the target network values it
            chosen = jnp.where(m2, q_values(params, s2, descriptors, jnp), -jnp.inf).argmax(axis=1)
            best = q_values(target, s2, descriptors, jnp, chosen)
            y = jax.lax.stop_gradient(r + gamma * jnp.where(done > 0, 0.0, best))
            return optax.huber_loss(q_values(params, s, descriptors, jnp, a), y).mean()

        def session(params, opt_state, target, batches):
            def update(carry, batch):
                params, opt_state = carry
                value, grads = jax.value_and_grad(loss)(params, target, *batch)
                changes, opt_state = self.optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, changes), opt_state), value
            (params, opt_state), values = jax.lax.scan(update, (params, opt_state), batches)
            return params, opt_state, values.mean()

        self._session = jax.jit(session)

    def train(self, batches: tuple[np.ndarray, ...]) -> float:
        self.params, self.opt_state, value = self._session(self.params, self.opt_state, self.target, batches)
        return float(value)

    def numpy_params(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v) for k, v in self.params.items()}

    def state_arrays(self) -> dict[str, np.ndarray]:
        leaves = self.jax.tree_util.tree_leaves((self.params, self.target, self.opt_state))
        return {f"learner_{i}": np.asarray(x) for i, x in enumerate(leaves)}

    def load_state(self, arrays: dict[str, np.ndarray]) -> None:
        tree = (self.params, self.target, self.opt_state)
        leaves, treedef = self.jax.tree_util.tree_flatten(tree)
        if len(arrays) != len(leaves):
            raise UsageError("the checkpoint's optimizer state does not fit these settings")
        restored = [self.jnp.asarray(arrays[f"learner_{i}"]) for i in range(len(leaves))]
        self.params, self.target, self.opt_state = self.jax.tree_util.tree_unflatten(treedef, restored)


@dataclass
class _Progress:
    games: int = 0
    sessions: int = 0
    cpu_seconds: float = 0.0
    evaluations: list = field(default_factory=list)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


EVAL_GROUPS = (("random",), ("aggressive",), ("conservative",), ("random", "aggressive"),
               ("aggressive", "conservative"), ("conservative", "conservative"))


def evaluate(network: QNetwork, groups: Sequence[tuple[str, ...]], games: int, seed: int
             ) -> dict[str, tuple[float, float, float]]:
    """Greedy play of ``network`` against each group: its win rate and 95% Wilson interval, by group.

    Groups larger than the frame are skipped; seats and first opener rotate, game ``k`` of group ``g`` uses the
    stream (seed, 1, g, k)."""
    frame, out = network.frame, {}
    for g, group in enumerate(groups):
        if len(group) + 1 > frame.players:
            continue
        config = GameConfig(len(group) + 1, frame.dice, frame.faces, frame.wild, frame.bids)
        player, others = DQNPlayer(network=network), [make_player(s) for s in group]
        wins = 0
        for k in range(games):
            seat = k % config.num_players
            order = others[::-1] if (k // config.num_players) % 2 else others
            players = order[:seat] + [player] + order[seat:]
            wins += play_game(config, players, _stream(seed, 1, g, k), first_opener=k % config.num_players
                              ).winner == seat
        low, high = wilson_interval(wins, games)
        out["+".join(group)] = (wins / games, low, high)
    return out


def train_dqn(settings: TrainSettings, out: str | Path, progress: bool = True,
              log: Callable[[str], None] = print) -> Path:
    """Train (or resume) in the folder ``out`` and return the path of the weights, ``out/dqn.npz``.

    A run resumes from ``out/checkpoint.npz``, which must come from the same settings (UsageError otherwise). The
    weights are a file for ``dqn:weights=PATH``. Evaluations go to ``out/log.jsonl`` and the progress bar; ``log``
    gets the resume message."""
    from tqdm import tqdm

    out = Path(out)
    frame = settings.frame
    stages = report_curriculum(settings.games, frame)
    total = sum(s.games for s in stages)
    learner = _Learner(settings, initial_params(settings))  # imports JAX: without it, no folder is made
    out.mkdir(parents=True, exist_ok=True)
    replay = Replay(settings.buffer, feature_size(frame), ActionCoding(frame.config).size)
    progress_state, frozen = _Progress(), {}
    checkpoint = out / "checkpoint.npz"
    if checkpoint.exists():
        data = read_npz(checkpoint, "checkpoint", hint="delete it to start the training afresh")
        if str(data["settings"]) != settings.as_json():
            raise UsageError(f"{checkpoint} was written with other settings:\n{data['settings']}\nnow:\n"
                             f"{settings.as_json()}\n(use another --out, or the same options)")
        progress_state = _Progress(**json.loads(str(data["progress"])))
        learner.load_state({k: v for k, v in data.items() if k.startswith("learner_")})
        replay.load({k: data[f"replay_{k}"] for k in ("s", "a", "r", "s2", "m2", "done")}, int(data["replay_next"]))
        for name in FROZEN:
            arrays = {k[len(name) + 1:]: v for k, v in data.items() if k.startswith(f"{name}_")}
            if arrays:
                frozen[name] = QNetwork(arrays, frame)
        log(f"resumed from {checkpoint} at game {progress_state.games} of {total}")
    network = QNetwork(learner.numpy_params(), frame)
    player = LearningPlayer(network, replay)
    cpu_start = _cpu() - progress_state.cpu_seconds

    def save() -> None:
        progress_state.cpu_seconds = _cpu() - cpu_start
        arrays = {"settings": np.array(settings.as_json()), "progress": np.array(json.dumps(asdict(progress_state))),
                  "replay_next": np.array(replay.next)}
        arrays |= learner.state_arrays()
        arrays |= {f"replay_{k}": v for k, v in replay.arrays().items()}
        for name, net in frozen.items():
            arrays |= {f"{name}_{k}": v for k, v in net.params.items()}
        write_npz(checkpoint, arrays, compress=False)
        network.save(out / "dqn.npz", games=progress_state.games, seed=settings.seed,
                     cpu_seconds=round(progress_state.cpu_seconds, 1))

    bar = tqdm(total=total, initial=progress_state.games, disable=not progress, unit="game", smoothing=0.05)
    with open(out / "log.jsonl", "a", encoding="utf-8") as log_file:
        start = 0
        for stage in stages:
            end = start + stage.games
            opponents_of = {}
            while progress_state.games < end:
                k = progress_state.games
                i = k - start
                group = stage.groups[i % len(stage.groups)]
                rng = _stream(settings.seed, 0, k)
                if group not in opponents_of:
                    opponents_of[group] = [DQNPlayer(network=frozen[s]) if s in FROZEN else make_player(s)
                                           for s in group]
                others = list(opponents_of[group])
                rng.shuffle(others)
                config = GameConfig(len(others) + 1, frame.dice, frame.faces, frame.wild, frame.bids)
                seat = int(rng.integers(config.num_players))
                player.alpha, player.epsilon, player.shaping = stage.alpha_at(i), stage.epsilon, stage.shaping
                player.explore = _stream(settings.seed, 3, k)
                play_game(config, others[:seat] + [player] + others[seat:], rng,
                          first_opener=int(rng.integers(config.num_players)))
                progress_state.games += 1
                bar.update(1)
                if progress_state.games % settings.train_every == 0 and replay.size >= settings.batch:
                    pick = _stream(settings.seed, 4, progress_state.sessions).integers(
                        replay.size, size=(settings.updates, settings.batch))
                    data = replay.arrays()
                    loss = learner.train(tuple(data[k][pick] for k in ("s", "a", "r", "s2", "m2", "done")))
                    progress_state.sessions += 1
                    if progress_state.sessions % settings.target_every == 0:
                        learner.target = learner.params
                    network.params = learner.numpy_params()
                    bar.set_postfix(stage=stage.name, loss=f"{loss:.4f}", refresh=False)
                if progress_state.games % settings.eval_every == 0 or progress_state.games == total:
                    results = evaluate(network, EVAL_GROUPS, settings.eval_games, settings.seed)
                    entry = {"games": progress_state.games, "stage": stage.name,
                             "cpu_seconds": round(_cpu() - cpu_start, 1),
                             "win_rates": {g: round(v[0], 3) for g, v in results.items()}}
                    progress_state.evaluations.append(entry)
                    log_file.write(json.dumps(entry) + "\n")
                    log_file.flush()
                    bar.write(f"game {entry['games']} ({stage.name}, {entry['cpu_seconds']} CPU s): " + ", ".join(
                        f"vs {g} {100 * v[0]:.1f}% [{100 * v[1]:.0f}-{100 * v[2]:.0f}]" for g, v in results.items()))
                if progress_state.games % settings.checkpoint_every == 0 or progress_state.games == total:
                    save()
            if stage.name in FROZEN and stage.name not in frozen:
                frozen[stage.name] = QNetwork(learner.numpy_params(), frame)
            start = end
    bar.close()
    return out / "dqn.npz"
