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
:mod:`boardlab.nn.c4_qnet`.

Several agents of one config (the study trained five per configuration) are
made by :func:`new_runs`: runs ``<config>-<n>`` (the next free numbers), each
with its own seed written into its ``config.json`` (:func:`agent_seeds`).

Runs live in a runs folder as ``<config>-<n>/`` with ``config.json``,
``checkpoint.pt`` (the latest, written atomically every ``saving_rate`` games)
and ``snapshots/games-<N>.pt``. A checkpoint holds the model and optimizer
states, the Python, NumPy and Torch random states and the games played, so a
resumed run continues bit for bit as if it had never stopped.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import math
import random
import re
import warnings
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.files import parse_json, read_json
from boardlab.core.records import write_atomic
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed
from boardlab.nn.c4_qnet import ENCODINGS, QNet, is_own_mirror_view, make_qnet, mirror_view, q_function, view_of, views_from_boards

CHECKPOINT_FORMAT = "boardlab-c4-qnet"
CHECKPOINT_VERSION = 1
FUTURE_VALUES = ("best_known", "mean")
#: the training kernels: NumPy on the torch parameters (the default, which the committed
#: model and the documented tables were made with) or compiled whole games (:mod:`boardlab.nn.qlearning_kernel`)
KERNELS = ("numpy", "compiled")
#: the most games the compiled kernel plays per call (the progress callback runs between calls)
COMPILED_BATCH = 200
#: the largest network a config may ask for (weights and biases; 20 million are 80 MB), and the most hidden layers
MAX_PARAMETERS = 20_000_000
MAX_LAYERS = 32

class TrainingDiverged(BoardlabError):
    """The Q-values stopped being finite numbers (too large a learning rate for the network)."""


# --- configuration -------------------------------------------------------------

#: every key a config may hold: (type, required). Nested dicts list their own keys.
_SCHEMA: dict[str, Any] = {
    "board": {"rows": (int, True), "cols": (int, True)},
    "needed_to_win": (int, True),
    "games_to_play": (int, True),
    "saving_rate": (int, True),
    "learning_rate": (float, True),
    "discount_factor": (float, True),
    "estimated_optimal_future_value": (str, True),
    "boltzmann_temperature": (float, True),
    "rewards": {"win": (float, True), "loss": (float, True), "tie": (float, True), "each_move": (float, True)},
    "neural_storage": {"hidden_neurons": ((int, list), True), "encoding": (str, False)},
    # new keys (not in the study)
    "seed": (int, False),
    "terminal_reply_value": (str, False),
    "kernel": (str, False),
    "description": (str, False),
}


@dataclass(frozen=True)
class QConfig:
    """A training configuration with the study's keys (listing 6.1) and a few new ones.

    New keys: ``seed`` (int, default 0: fixes the initial weights and every
    random choice), ``neural_storage.encoding`` (``"study"`` default, or
    ``"planes"``), ``neural_storage.hidden_neurons`` may also be a list (one
    size per hidden layer), ``terminal_reply_value`` (``"reward"`` default or
    ``"zero"``, see the module docstring), ``kernel`` (``"numpy"`` default, or
    ``"compiled"``: the same training in numba, whole games per call, see
    :mod:`boardlab.nn.qlearning_kernel`) and ``description`` (free text).
    """

    rows: int = 6
    cols: int = 7
    needed_to_win: int = 4
    games_to_play: int = 5000
    saving_rate: int = 1000
    learning_rate: float = 0.05
    discount_factor: float = 1.0
    future_value: str = "best_known"
    temperature: float = 1.0
    reward_win: float = 2.0
    reward_loss: float = -2.0
    reward_tie: float = 0.0
    reward_move: float = -0.01
    hidden: tuple[int, ...] = (50,)
    encoding: str = "study"
    seed: int = 0
    terminal_reply_value: str = "reward"
    kernel: str = "numpy"
    description: str = ""

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "board": {"rows": self.rows, "cols": self.cols},
            "needed_to_win": self.needed_to_win,
            "games_to_play": self.games_to_play,
            "saving_rate": self.saving_rate,
            "learning_rate": self.learning_rate,
            "discount_factor": self.discount_factor,
            "estimated_optimal_future_value": self.future_value,
            "boltzmann_temperature": self.temperature,
            "rewards": {"win": self.reward_win, "loss": self.reward_loss, "tie": self.reward_tie, "each_move": self.reward_move},
            "neural_storage": {"hidden_neurons": self.hidden[0] if len(self.hidden) == 1 else list(self.hidden), "encoding": self.encoding},
            "seed": self.seed,
            "terminal_reply_value": self.terminal_reply_value,
            # written only when not the default: a NumPy run's config (and checkpoint) stays byte for byte what it was
            **({"kernel": self.kernel} if self.kernel != "numpy" else {}),
            **({"description": self.description} if self.description else {}),
        }

    def game(self):
        return make("connect4", rows=self.rows, cols=self.cols, k=self.needed_to_win)


def _has_type(value: Any, kind: type) -> bool:
    """JSON typing: ``float`` accepts any number, and ``true``/``false`` are never numbers."""
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


def _check_keys(data: Any, schema: dict[str, Any], where: str, prefix: str = "") -> None:
    if not isinstance(data, dict):
        raise FormatError(f"{where}: {prefix.rstrip('.') or 'the config'} must be a JSON object")
    for key in data:
        if key not in schema:
            known = ", ".join(schema)
            raise FormatError(f"{where}: unknown key {prefix + key!r} (known keys here: {known})")
    for key, rule in schema.items():
        name = prefix + key
        if isinstance(rule, dict):
            if key not in data:
                raise FormatError(f"{where}: missing key {name!r}")
            _check_keys(data[key], rule, where, name + ".")
            continue
        kind, required = rule
        if key not in data:
            if required:
                raise FormatError(f"{where}: missing key {name!r}")
            continue
        value = data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not any(_has_type(value, k) for k in kinds):
            names = " or ".join("number" if k is float else k.__name__ for k in kinds)
            raise FormatError(f"{where}: key {name!r} must be a {names}, got {value!r}")


def parameter_count(cfg: QConfig) -> int:
    """Weights and biases of the network ``cfg`` describes (see :mod:`boardlab.nn.c4_qnet`), without building it."""
    inputs, outputs = (cfg.rows * cfg.cols + 1, 1) if cfg.encoding == "study" else (2 * cfg.rows * cfg.cols, cfg.cols)
    sizes = [inputs, *cfg.hidden, outputs]
    return sum(a * b + b for a, b in zip(sizes, sizes[1:]))


def config_from_dict(data: Any, where: str = "config") -> QConfig:
    """Validate a config document; every error names the key and ``where`` (the file)."""
    _check_keys(data, _SCHEMA, where)
    storage = data["neural_storage"]
    hidden_raw = storage["hidden_neurons"]
    hidden = tuple(hidden_raw) if isinstance(hidden_raw, list) else (hidden_raw,)
    if not hidden or any(not isinstance(h, int) or isinstance(h, bool) or h < 1 for h in hidden):
        raise FormatError(f"{where}: key 'neural_storage.hidden_neurons' must be a positive integer or a list of them")
    if len(hidden) > MAX_LAYERS or max(hidden) > MAX_PARAMETERS:
        raise FormatError(f"{where}: key 'neural_storage.hidden_neurons' asks for too large a network "
                          f"(at most {MAX_LAYERS} layers and {MAX_PARAMETERS:,} weights)")
    for key in ("learning_rate", "discount_factor", "boltzmann_temperature"):
        if not math.isfinite(data[key]):
            raise FormatError(f"{where}: key {key!r} must be a finite number")
    for key in ("win", "loss", "tie", "each_move"):
        if not math.isfinite(data["rewards"][key]):
            raise FormatError(f"{where}: key 'rewards.{key}' must be a finite number")
    for key in ("games_to_play", "saving_rate", "seed", "needed_to_win"):
        if key in data and not 0 <= data[key] < 2**63:
            raise FormatError(f"{where}: key {key!r} must be an integer from 0 to 2**63 - 1")
    cfg = QConfig(
        rows=data["board"]["rows"],
        cols=data["board"]["cols"],
        needed_to_win=data["needed_to_win"],
        games_to_play=data["games_to_play"],
        saving_rate=data["saving_rate"],
        learning_rate=float(data["learning_rate"]),
        discount_factor=float(data["discount_factor"]),
        future_value=data["estimated_optimal_future_value"],
        temperature=float(data["boltzmann_temperature"]),
        reward_win=float(data["rewards"]["win"]),
        reward_loss=float(data["rewards"]["loss"]),
        reward_tie=float(data["rewards"]["tie"]),
        reward_move=float(data["rewards"]["each_move"]),
        hidden=hidden,
        encoding=storage.get("encoding", "study"),
        seed=data.get("seed", 0),
        terminal_reply_value=data.get("terminal_reply_value", "reward"),
        kernel=data.get("kernel", "numpy"),
        description=data.get("description", ""),
    )
    checks = [
        ("board.rows", cfg.rows >= 1, "must be at least 1"),
        ("board.cols", cfg.cols >= 1, "must be at least 1"),
        ("needed_to_win", 2 <= cfg.needed_to_win <= max(cfg.rows, cfg.cols), "must be at least 2 and fit on the board"),
        ("games_to_play", cfg.games_to_play >= 1, "must be at least 1"),
        ("saving_rate", cfg.saving_rate >= 1, "must be at least 1"),
        ("learning_rate", cfg.learning_rate > 0, "must be positive"),
        ("discount_factor", 0 <= cfg.discount_factor <= 1, "must be in [0, 1]"),
        ("estimated_optimal_future_value", cfg.future_value in FUTURE_VALUES, f"must be one of {', '.join(FUTURE_VALUES)}"),
        ("boltzmann_temperature", cfg.temperature > 0, "must be positive"),
        ("neural_storage.encoding", cfg.encoding in ENCODINGS, f"must be one of {', '.join(ENCODINGS)}"),
        ("terminal_reply_value", cfg.terminal_reply_value in ("reward", "zero"), "must be 'reward' or 'zero'"),
        ("kernel", cfg.kernel in KERNELS, f"must be one of {', '.join(KERNELS)}, not {cfg.kernel!r}"),
    ]
    for key, ok, why in checks:
        if not ok:
            raise FormatError(f"{where}: key {key!r} {why}")
    if cfg.cols * (cfg.rows + 1) > 64:
        raise FormatError(f"{where}: a {cfg.rows}x{cfg.cols} board is too large (cols*(rows+1) must be at most 64)")
    if parameter_count(cfg) > MAX_PARAMETERS:
        raise FormatError(f"{where}: key 'neural_storage.hidden_neurons' asks for a network of {parameter_count(cfg):,} "
                          f"weights (at most {MAX_PARAMETERS:,})")
    return cfg


def load_config(path: str | Path) -> QConfig:
    """Read and check a training config; every problem is a :class:`BoardlabError` naming the file."""
    return config_from_dict(read_json(path, "training config"), str(path))


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
            from boardlab.nn.qlearning_kernel import CompiledSelfPlay  # numba compiles (or loads its cache) on first use

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
        if not isinstance(data["config"], str):
            raise FormatError(f"{path}: checkpoint's 'config' is not a JSON text")
        cfg = config_from_dict(parse_json(data["config"], f"{path} (config)"), f"{path} (config)")
        learner = cls.new(cfg)
        try:
            if not isinstance(data["model"], dict):
                raise TypeError("'model' is not a state dict")
            learner.net.load_state_dict(data["model"])
            if not all(torch.isfinite(p).all() for p in learner.net.parameters()):
                raise ValueError("the weights are not all finite numbers")
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
        except (KeyError, RuntimeError, ValueError, TypeError, AttributeError, IndexError, OverflowError) as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
            raise FormatError(f"{path}: checkpoint does not match its config: {first}") from None
        return learner


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """Load a checkpoint (or a model file) safely; any damage becomes a FormatError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise BoardlabError(f"no checkpoint at {path}")
    try:
        with warnings.catch_warnings():  # torch warns about foreign pickle protocols; the error below says it
            warnings.simplefilter("ignore")
            data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many kinds for damaged files
        # torch's own message suggests weights_only=False: never for a file we did not check
        raise FormatError(
            f"{path}: not a readable checkpoint: damaged, truncated, or not a boardlab checkpoint ({type(exc).__name__})"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("format"), str) or data["format"] != CHECKPOINT_FORMAT:
        raise FormatError(f"{path}: not a boardlab Connect Four Q-network checkpoint")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version != CHECKPOINT_VERSION:
        shown = version if isinstance(version, (int, str, type(None))) else type(version).__name__
        raise FormatError(f"{path}: checkpoint version {str(shown)[:40]!r} is not supported (expected {CHECKPOINT_VERSION})")
    for key in ("config", "model"):
        if key not in data:
            raise FormatError(f"{path}: checkpoint lacks {key!r}")
    return data


def load_qnet(path: str | Path) -> tuple[QConfig, QNet]:
    """The configuration and network of a checkpoint, for playing.

    Loading goes through :meth:`Learner.load`, which sets the global random
    states; a player must not disturb its caller's, so they are put back.
    """
    python_state = random.getstate()
    with torch.random.fork_rng(devices=[]):
        learner = Learner.load(path)
    random.setstate(python_state)
    learner.net.eval()
    return learner.cfg, learner.net


def export_model(learner: Learner, path: Path) -> None:
    """A model file: config and weights only (no optimizer or random states)."""
    data = learner.checkpoint()
    del data["optimizer"], data["rng"]
    buffer = io.BytesIO()
    torch.save(data, buffer)
    write_atomic(path, buffer.getvalue())


# --- runs ----------------------------------------------------------------------

_RUN_NAME = re.compile(r"^(?P<config>.+)-(?P<n>\d+)$")


@dataclass(frozen=True)
class Run:
    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def config_name(self) -> str:
        m = _RUN_NAME.match(self.name)
        return m.group("config") if m else self.name

    @property
    def checkpoint(self) -> Path:
        return self.path / "checkpoint.pt"

    @property
    def config_file(self) -> Path:
        return self.path / "config.json"

    def snapshots(self) -> list[tuple[int, Path]]:
        found = []
        for p in (self.path / "snapshots").glob("games-*.pt"):
            try:
                found.append((int(p.stem.split("-")[1]), p))
            except ValueError:
                continue
        return sorted(found)

    def games_played(self) -> int:
        """Games in the latest checkpoint (0 before the first one)."""
        if not self.checkpoint.exists():
            return 0
        games = read_checkpoint(self.checkpoint).get("games_played", 0)
        if not isinstance(games, int) or isinstance(games, bool) or games < 0:
            raise FormatError(f"{self.checkpoint}: games_played must be a count")
        return games


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
    batch killed at any point is resumed run by run (``--resume <config>``).
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


def find_run(name: str, runs_dir: Path) -> Run:
    path = Path(name)
    if not path.is_dir():
        path = runs_dir / name
    if not path.is_dir():
        raise BoardlabError(f"no run {name!r} in {runs_dir} (see 'boardlab train c4-qlearning --list-runs')")
    return Run(path)


def find_runs(name: str, runs_dir: Path) -> list[Run]:
    """The run ``name``, or when no run has that name, every run ``<name>-<n>`` of that config."""
    path = Path(name)
    if path.is_dir() or (runs_dir / name).is_dir():
        return [find_run(name, runs_dir)]
    batch = [run for run in list_runs(runs_dir) if run.config_name == name]
    if not batch:
        raise BoardlabError(f"no run {name!r} and no runs {name}-<n> in {runs_dir} (see 'boardlab train c4-qlearning --list-runs')")
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
    return sorted(runs, key=lambda r: (r.config_name, int(_RUN_NAME.match(r.name).group("n")) if _RUN_NAME.match(r.name) else 0))


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

