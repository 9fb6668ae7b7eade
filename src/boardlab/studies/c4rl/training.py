"""Self-play Q-learning for Connect Four with a neural Q-function (the study's method).

One learner plays both sides. Before each move the player to move picks an
action from a Boltzmann distribution over its Q-values (temperature ``T``);
the pair (position, action) is then trained towards

    target = reward(new position) + discount * future value

where the future value is estimated from the new position in one of the
study's two ways (section 5.4.1, listing 5.8):

* ``best_known``: the opponent plays its best reply (by the same Q-function,
  seen from the opponent's side) and the learner's best value after it;
* ``mean``: the mean over every opponent reply of the learner's best value.

A reply that ends the game is worth the learner's reward there (``loss`` or
``tie``) with ``terminal_reply_value = "reward"`` (our default); the study's
listing returns 0 for it, which leaves the ``loss`` reward unused — set
``"terminal_reply_value": "zero"`` to reproduce that exactly.

Every update also trains the mirrored position and action (unless the position
is its own mirror), and values are always learned from the first player's view
(the second player's positions have their stones swapped): see
:mod:`boardlab.bots.connect4.network`.

Several agents of one config (the study trained five per configuration) are
made by :func:`new_runs`: runs ``<config>-<n>`` (the next free numbers), each
with its own seed written into its ``config.json`` (:func:`agent_seeds`).

Runs live in a runs folder as ``<config>-<n>/`` with ``config.json``,
``checkpoint.pt`` (the latest, written atomically every ``saving_rate`` games)
and ``snapshots/games-<N>.pt`` (their layout, the config and the checkpoint format are
:mod:`boardlab.bots.connect4.qnet_files`, which the ``qnet`` agent plays from). A checkpoint holds the model and optimizer
states, the Python, NumPy and Torch random states and the games played, so a
resumed run continues bit for bit as if it had never stopped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import io
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from boardlab.bots.connect4.network import QNet, is_own_mirror_view, make_qnet, mirror_view, q_function, view_of, views_from_boards
from boardlab.bots.connect4.qnet_files import (
    CHECKPOINT_FORMAT,
    CHECKPOINT_VERSION,
    KERNELS,
    LOAD_ERRORS,
    RUN_NAME,
    QConfig,
    Run,
    checkpoint_config,
    find_run,
    load_config,
    load_weights,
    mismatch,
    read_checkpoint,
)
from boardlab.core.errors import BoardlabError
from boardlab.core.files import parse_json
from boardlab.core.records import write_atomic
from boardlab.core.rng import derive_seed

#: the most games the compiled kernel plays per call (the progress callback runs between calls)
COMPILED_BATCH = 200


class TrainingDiverged(BoardlabError):
    """The Q-values stopped being finite numbers (too large a learning rate for the network)."""


# --- targets -------------------------------------------------------------------

QValues = Callable[[np.ndarray], np.ndarray]  # views (n, 2, R, C) -> values (n, cols)


@dataclass
class Sample:
    view: np.ndarray  # (2, R, C), the mover's stones in plane 0
    action: int
    target: float


def reward_after_move(cfg: QConfig, state_after, player: int) -> float:
    """The reward ``player`` receives in ``state_after`` (the position its move made)."""
    if state_after.winner == player:
        return cfg.reward_win
    if state_after.winner == 1 - player:
        return cfg.reward_loss
    if state_after.is_terminal():
        return cfg.reward_tie
    return cfg.reward_move


def _best_values(q: QValues, states: list, player: int) -> np.ndarray:
    """``max_a Q(view of s for player, a)`` over legal ``a``, for each non-terminal state."""
    game = states[0].game
    views = views_from_boards([s.boards[player] for s in states], [s.boards[1 - player] for s in states], game.rows, game.cols)
    values = q(views)
    return np.array([values[i, s.legal_actions()].max() for i, s in enumerate(states)], dtype=np.float64)


def future_value(cfg: QConfig, q: QValues, state_after, player: int) -> float:
    """The study's estimate of ``max_a Q(x_{t+1}, a)`` for ``player`` after its move."""
    if state_after.is_terminal():
        return 0.0
    opponent = 1 - player

    def terminal_value(s) -> float:
        return reward_after_move(cfg, s, player) if cfg.terminal_reply_value == "reward" else 0.0

    legal = state_after.legal_actions()
    if cfg.future_value == "best_known":
        opp_values = q(view_of(state_after, opponent)[None])[0]
        reply = legal[int(np.argmax(opp_values[legal]))]
        s = state_after.clone()
        s.apply_action(reply)
        if s.is_terminal():
            return terminal_value(s)
        return float(_best_values(q, [s], player)[0])
    total = 0.0
    open_states = []
    for reply in legal:
        s = state_after.clone()
        s.apply_action(reply)
        if s.is_terminal():
            total += terminal_value(s)
        else:
            open_states.append(s)
    if open_states:
        total += float(_best_values(q, open_states, player).sum())
    return total / len(legal)


def training_samples(cfg: QConfig, q: QValues, state, action: int) -> tuple[list[Sample], Any]:
    """The samples one move trains on (the move and its mirror), and the state after it."""
    player = state.current_player()
    after = state.clone()
    after.apply_action(action)
    target = reward_after_move(cfg, after, player) + cfg.discount_factor * future_value(cfg, q, after, player)
    view = view_of(state, player)
    samples = [Sample(view, action, target)]
    if not is_own_mirror_view(view):
        samples.append(Sample(mirror_view(view), cfg.cols - 1 - action, target))
    return samples, after


def boltzmann_probabilities(values: np.ndarray, temperature: float) -> np.ndarray:
    """``exp(Q/T) / sum exp(Q/T)`` (shifted by the maximum, which changes nothing but overflow)."""
    z = np.asarray(values, dtype=np.float64) / temperature
    z = np.exp(z - z.max())
    return z / z.sum()


# --- the learner -----------------------------------------------------------------


@dataclass
class Learner:
    """The network, its optimizer and the random streams: everything a checkpoint restores."""

    cfg: QConfig
    net: QNet
    optimizer: torch.optim.Optimizer
    rng: np.random.Generator
    games_played: int = 0
    stats: list[dict[str, Any]] = field(default_factory=list)
    #: the compiled kernel bound to ``net``, made on first use (no part of a checkpoint)
    _compiled: Any = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def new(cls, cfg: QConfig) -> "Learner":
        random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        net = make_qnet(cfg.encoding, cfg.rows, cfg.cols, cfg.hidden)
        optimizer = torch.optim.SGD(net.parameters(), lr=cfg.learning_rate)
        return cls(cfg, net, optimizer, np.random.default_rng(cfg.seed))

    def q(self) -> QValues:
        return q_function(self.net)

    def choose(self, state) -> int:
        legal = state.legal_actions()
        values = self.q()(view_of(state, state.current_player())[None])[0][legal]
        if not np.all(np.isfinite(values)):
            raise TrainingDiverged(
                f"the Q-network diverged (non-finite values) in game {self.games_played + 1}; "
                f"learning_rate {self.cfg.learning_rate} is too large for it"
            )
        probs = boltzmann_probabilities(values, self.cfg.temperature)
        return int(legal[int(self.rng.choice(len(legal), p=probs))])

    def train_on(self, samples: list[Sample]) -> float:
        """One SGD step (rate ``learning_rate``) on ``0.5 * sum (Q - target)^2`` over the samples.

        The gradient of that loss is ``Q - target``, as in the study's PyBrain
        backprop. Computed by :meth:`QNet.sgd_step` (NumPy, in place); the
        autograd version, :meth:`train_on_autograd`, gives the same update.
        """
        views = np.stack([s.view for s in samples])
        actions = np.array([s.action for s in samples], dtype=np.int64)
        targets = np.array([s.target for s in samples], dtype=np.float32)
        return self.net.sgd_step(views, actions, targets, self.cfg.learning_rate)

    def train_on_autograd(self, samples: list[Sample]) -> float:
        views = torch.from_numpy(np.stack([s.view for s in samples]))
        actions = torch.tensor([s.action for s in samples])
        targets = torch.tensor([s.target for s in samples], dtype=torch.float32)
        self.optimizer.zero_grad(set_to_none=True)
        loss = 0.5 * ((self.net.selected_values(views, actions) - targets) ** 2).sum()
        loss.backward()
        self.optimizer.step()
        return float(loss.detach())

    def self_play_game(self, game) -> int:
        """One training game; returns the winner (0, 1) or -1 for a tie."""
        state = game.new_initial_state()
        while not state.is_terminal():
            action = self.choose(state)
            samples, state = training_samples(self.cfg, self.q(), state, action)
            self.train_on(samples)
        self.games_played += 1
        return state.winner

    def self_play_games(self, game, count: int) -> list[int]:
        """``count`` training games by the config's kernel; their winners (0, 1, or -1 for a tie)."""
        if self.cfg.kernel == "numpy":
            return [self.self_play_game(game) for _ in range(count)]
        if self._compiled is None:
            from boardlab.studies.c4rl.kernel import CompiledSelfPlay  # numba compiles (or loads its cache) on first use

            self._compiled = CompiledSelfPlay(game, self.net)
        compiled = self._compiled
        # a fixed number of uniforms per game, used or not: the Generator's state after N games
        # does not depend on how they were batched, so a resumed run continues bit for bit
        uniforms = self.rng.random((count, self.cfg.rows * self.cfg.cols))
        winners, done, diverged = compiled.play(self.cfg, uniforms)
        self.games_played += done
        if diverged:
            raise TrainingDiverged(
                f"the Q-network diverged (non-finite values) in game {self.games_played + 1}; "
                f"learning_rate {self.cfg.learning_rate} is too large for it"
            )
        return [int(w) for w in winners]

    # --- checkpoints -----------------------------------------------------------

    def checkpoint(self) -> dict[str, Any]:
        return {
            "format": CHECKPOINT_FORMAT,
            "version": CHECKPOINT_VERSION,
            "config": json.dumps(self.cfg.to_json_dict()),
            "games_played": self.games_played,
            "model": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "rng": {
                # strings and lists of ints: torch.load(weights_only=True) reads them back
                "numpy": json.dumps(self.rng.bit_generator.state),
                "python": json.dumps(random.getstate()),
                "torch": torch.get_rng_state(),
            },
            "stats": json.dumps(self.stats),
        }

    def save(self, path: Path) -> None:
        buffer = io.BytesIO()
        torch.save(self.checkpoint(), buffer)
        write_atomic(path, buffer.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> "Learner":
        """A learner from a checkpoint or model file; anything wrong in it is a :class:`FormatError` naming the file."""
        data = read_checkpoint(path)
        learner = cls.new(checkpoint_config(data, path))
        load_weights(learner.net, data, path)
        try:
            if "optimizer" in data:
                learner.optimizer.load_state_dict(data["optimizer"])
            games = data.get("games_played", 0)
            if not isinstance(games, int) or isinstance(games, bool) or not 0 <= games < 2**63:
                raise ValueError(f"games_played must be a count, not {str(games)[:40]}")
            learner.games_played = games
            if "rng" in data:
                learner.rng.bit_generator.state = parse_json(data["rng"]["numpy"], f"{path} (numpy random state)")
                version, internal, gauss = parse_json(data["rng"]["python"], f"{path} (python random state)")
                random.setstate((version, tuple(internal), gauss))
                torch.set_rng_state(data["rng"]["torch"])
            stats = parse_json(data.get("stats", "[]"), f"{path} (stats)")
            if not isinstance(stats, list):
                raise TypeError("'stats' is not a list")
            learner.stats = stats
        except BoardlabError:
            raise
        except LOAD_ERRORS as exc:
            raise mismatch(path, exc) from None
        return learner


def export_model(learner: Learner, path: Path) -> None:
    """A model file: config and weights only (no optimizer or random states)."""
    data = learner.checkpoint()
    del data["optimizer"], data["rng"]
    buffer = io.BytesIO()
    torch.save(data, buffer)
    write_atomic(path, buffer.getvalue())


# --- runs ----------------------------------------------------------------------

def agent_seeds(base: int, agents: int) -> list[int]:
    """The seeds of ``agents`` agents trained from one config with base seed ``base``.

    One agent keeps ``base`` itself (so a plain run reproduces its config exactly);
    several get seeds derived from ``base`` and their place 1..agents, all distinct
    and unrelated streams. The same config and base seed give the same agents;
    another ``--seed`` gives others.
    """
    if agents < 1:
        raise BoardlabError(f"--agents must be at least 1, not {agents}")
    if agents == 1:
        return [base]
    seeds = [derive_seed(base, "c4-qlearning-agent", k) for k in range(1, agents + 1)]
    assert len(set(seeds)) == agents  # 63-bit hashes: a collision would be a bug worth hearing of
    return seeds


def new_runs(config_path: Path, runs_dir: Path, agents: int = 1, seed: int | None = None,
             kernel: str | None = None) -> list[tuple[Run, QConfig]]:
    """Make ``agents`` new run folders ``<config>-<n>`` (the next free numbers) for one config.

    ``seed`` replaces the config's own seed as the base of :func:`agent_seeds`, and
    ``kernel`` the config's ``kernel``.
    Each folder gets its config with its own seed before any training starts, so a
    batch killed at any point is resumed run by run (``resume <config>``).
    """
    cfg = load_config(config_path)
    if kernel is not None:
        cfg = dataclasses.replace(cfg, kernel=check_kernel(kernel, "--kernel"))
    if seed is not None and not 0 <= seed < 2**63:
        raise BoardlabError(f"--seed must be an integer from 0 to 2**63 - 1, not {seed}")
    seeds = agent_seeds(cfg.seed if seed is None else seed, agents)
    stem = config_path.name.split(".")[0]
    runs_dir.mkdir(parents=True, exist_ok=True)
    made = []
    n = 1
    for agent_seed in seeds:
        while True:
            path = runs_dir / f"{stem}-{n}"
            n += 1
            try:
                path.mkdir()
                break
            except FileExistsError:
                continue
        agent_cfg = dataclasses.replace(cfg, seed=agent_seed)
        write_atomic(path / "config.json", json.dumps(agent_cfg.to_json_dict(), indent=2) + "\n")
        made.append((Run(path), agent_cfg))
    return made


def new_run(config_path: Path, runs_dir: Path) -> tuple[Run, QConfig]:
    return new_runs(config_path, runs_dir)[0]


def find_runs(name: str, runs_dir: Path) -> list[Run]:
    """The run ``name``, or when no run has that name, every run ``<name>-<n>`` of that config."""
    path = Path(name)
    if path.is_dir() or (runs_dir / name).is_dir():
        return [find_run(name, runs_dir)]
    batch = [run for run in list_runs(runs_dir) if run.config_name == name]
    if not batch:
        raise BoardlabError(f"no run {name!r} and no runs {name}-<n> in {runs_dir} (see 'boardlab train c4-qlearning runs')")
    return batch


def is_run(path: str | Path) -> bool:
    """Whether ``path`` is a run folder (it holds the run's ``config.json``)."""
    return (Path(path) / "config.json").is_file()


def is_qlearning_model(path: str | Path) -> bool:
    """Whether ``path`` is a run folder, a checkpoint, a snapshot or a model file of this trainer."""
    path = Path(path)
    if path.is_dir():
        if not is_run(path):
            return False
        # other trainers' run folders hold a config.json too (train az's): only a config this trainer reads is its own
        try:
            load_config(path / "config.json")
        except BoardlabError:
            return False
        return True
    try:
        read_checkpoint(path)
    except BoardlabError:
        return False
    return True


def export_run(run: Run, out: Path, snapshot: int | None = None) -> dict[str, Any]:
    """Write ``run``'s latest checkpoint (or its snapshot at ``snapshot`` games) as a model file."""
    source = run.checkpoint
    if snapshot is not None:
        snaps = dict(run.snapshots())
        if snapshot not in snaps:
            raise BoardlabError(f"run {run.name} has no snapshot at {snapshot} games (it has: {', '.join(map(str, snaps)) or 'none'})")
        source = snaps[snapshot]
    learner = Learner.load(source)
    export_model(learner, Path(out))
    return {"run": run.name, "games_played": learner.games_played, "out": str(out), "bytes": Path(out).stat().st_size}


def run_summaries(runs_dir: Path) -> list[dict[str, Any]]:
    """One row per run: ``run``, ``config``, ``games_played``, ``games_to_play`` (None when its config
    does not load) and ``agent``, the spec that plays it."""
    rows = []
    for run in list_runs(runs_dir):
        try:
            total: int | None = load_config(run.config_file).games_to_play
        except BoardlabError:
            total = None
        rows.append({"run": run.name, "config": run.config_name, "games_played": run.games_played(),
                     "games_to_play": total, "agent": f"qnet:run={run.name}"})
    return rows


def list_runs(runs_dir: Path) -> list[Run]:
    if not runs_dir.is_dir():
        return []
    runs = [Run(p) for p in runs_dir.iterdir() if p.is_dir() and (p / "config.json").is_file()]
    return sorted(runs, key=lambda r: (r.config_name, int(RUN_NAME.match(r.name).group("n")) if RUN_NAME.match(r.name) else 0))


def check_kernel(kernel: str, where: str) -> str:
    if kernel not in KERNELS:
        raise BoardlabError(f"{where} must be one of {', '.join(KERNELS)}, not {kernel!r}")
    return kernel


def train_run(run: Run, stop_after: int | None = None, on_game: Callable[[Learner], None] | None = None,
              kernel: str | None = None) -> Learner:
    """Train ``run`` from its checkpoint (or from scratch) up to its ``games_to_play``.

    ``stop_after`` ends early at that many games played (as an interruption
    would, but at a checkpoint). A checkpoint is written every ``saving_rate``
    games and at the end. ``kernel``, when given, must be the run's own (the
    one its checkpoint, or before the first one its config, names): the two
    kernels draw different random streams, so switching would break the
    bit-for-bit continuation.
    """
    if stop_after is not None and stop_after < 1:
        raise BoardlabError(f"a run can only stop after at least 1 game, not after {stop_after}")
    if kernel is not None:
        check_kernel(kernel, "--kernel")
    with _trainer_lock(run):
        return _train_locked(run, stop_after, on_game, kernel)


@contextlib.contextmanager
def _trainer_lock(run: Run):
    """Hold the run's lock while training: two trainers of one run would overwrite each
    other's checkpoints. The kernel drops the lock when its holder dies, even by SIGKILL."""
    if not run.path.is_dir():
        raise BoardlabError(f"no run folder {run.path}")
    with open(run.path / ".lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BoardlabError(f"run {run.name} is being trained by another process; wait for it or stop it first") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def train_run_job(path: str, stop_after: int | None = None, kernel: str | None = None) -> dict[str, Any]:
    """Train the run at ``path`` to its end in a worker process; what happened, as a dict
    (``run``, ``path``, ``games_played``, ``games_to_play``, ``error``: the message of a run
    that diverged or failed, else None; ``diverged``), so that one bad run does not stop its batch."""
    run = Run(Path(path))
    try:
        learner = train_run(run, stop_after=stop_after, kernel=kernel)
        return {"run": run.name, "path": str(run.path), "games_played": learner.games_played,
                "games_to_play": learner.cfg.games_to_play, "error": None, "diverged": False}
    except BoardlabError as exc:
        result: dict[str, Any] = {"run": run.name, "path": str(run.path), "games_played": None, "games_to_play": None,
                                  "error": str(exc), "diverged": isinstance(exc, TrainingDiverged)}
        with contextlib.suppress(BoardlabError):
            result["games_played"] = run.games_played()
            result["games_to_play"] = load_config(run.config_file).games_to_play
        return result


def _train_locked(run: Run, stop_after: int | None, on_game: Callable[[Learner], None] | None, kernel: str | None) -> Learner:
    torch.set_num_threads(1)  # tiny networks: threads cost more than they give, and the sums keep one order
    if run.checkpoint.exists():
        learner, source = Learner.load(run.checkpoint), f"its checkpoint {run.checkpoint}"
    else:
        learner, source = Learner.new(load_config(run.config_file)), f"its config {run.config_file}"
    cfg = learner.cfg
    if kernel is not None and kernel != cfg.kernel:
        raise BoardlabError(f"run {run.name} trains with the {cfg.kernel!r} kernel ({source} says so), not with "
                            f"--kernel {kernel!r}: the kernels' random streams differ, so a run keeps the kernel it started with")
    game = cfg.game()
    goal = cfg.games_to_play if stop_after is None else min(stop_after, cfg.games_to_play)
    results = [0, 0, 0]
    # the NumPy kernel plays one game per step (as it always did); the compiled one a batch up to the next checkpoint
    batch = 1 if cfg.kernel == "numpy" else COMPILED_BATCH
    while learner.games_played < goal:
        next_save = (learner.games_played // cfg.saving_rate + 1) * cfg.saving_rate
        for winner in learner.self_play_games(game, min(learner.games_played + batch, next_save, goal) - learner.games_played):
            results[winner if winner >= 0 else 2] += 1
        if on_game is not None:
            on_game(learner)
        if learner.games_played % cfg.saving_rate == 0 or learner.games_played == goal:
            learner.stats.append({"games": learner.games_played, "first_wins": results[0], "second_wins": results[1], "ties": results[2]})
            results = [0, 0, 0]
            if not all(torch.isfinite(p).all() for p in learner.net.parameters()):
                raise TrainingDiverged(
                    f"the Q-network diverged (non-finite weights) by game {learner.games_played}; "
                    f"learning_rate {cfg.learning_rate} is too large for it"
                )
            learner.save(run.checkpoint)
            if learner.games_played % cfg.saving_rate == 0:
                (run.path / "snapshots").mkdir(exist_ok=True)  # the run's own folder, made as it is needed
                learner.save(run.path / "snapshots" / f"games-{learner.games_played}.pt")
    return learner

