"""The files a Q-network is played from: training configs, checkpoints (and the model files exported
from them) and the run folders that hold them.

A config is a JSON object with the study's keys (listing 6.1) and a few new ones; :class:`ConfigFile`
declares them and their rules, :class:`QConfig` is what the code reads. A run is a folder
``<config>-<n>/`` with ``config.json``, ``checkpoint.pt`` (the latest) and ``snapshots/games-<N>.pt``;
the study (:mod:`boardlab.studies.c4rl.training`) writes them, the ``qnet`` agent reads them.
"""

from __future__ import annotations

import random
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import torch
from pydantic import AfterValidator, Field, PlainValidator, ValidationInfo, field_validator, with_config
from pydantic.dataclasses import dataclass as checked_dataclass
from typing_extensions import NotRequired, TypedDict

from boardlab.bots.connect4.network import Encoding, QNet, make_qnet
from boardlab.core.config import STRICT, load
from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.files import parse_json, read_json
from boardlab.core.registry import make

CHECKPOINT_FORMAT = "boardlab-c4-qnet"
CHECKPOINT_VERSION = 1
FutureValue = Literal["best_known", "mean"]
FUTURE_VALUES = get_args(FutureValue)
#: the training kernels: NumPy on the torch parameters (the default, which the committed
#: model and the documented tables were made with) or compiled whole games (:mod:`boardlab.studies.c4rl.kernel`)
Kernel = Literal["numpy", "compiled"]
KERNELS = get_args(Kernel)
#: the largest network a config may ask for (weights and biases; 20 million are 80 MB), and the most hidden layers
MAX_PARAMETERS = 20_000_000
MAX_LAYERS = 32


@dataclass(frozen=True)
class QConfig:
    """A training configuration with the study's keys (listing 6.1) and a few new ones.

    New keys: ``seed`` (int, default 0: fixes the initial weights and every
    random choice), ``neural_storage.encoding`` (``"study"`` default, or
    ``"planes"``), ``neural_storage.hidden_neurons`` may also be a list (one
    size per hidden layer), ``terminal_reply_value`` (``"reward"`` default or
    ``"zero"``, see :mod:`boardlab.studies.c4rl.training`), ``kernel`` (``"numpy"`` default, or
    ``"compiled"``: the same training in numba, whole games per call, see
    :mod:`boardlab.studies.c4rl.kernel`) and ``description`` (free text).
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


def parameter_count(cfg: QConfig) -> int:
    """Weights and biases of the network ``cfg`` describes (see :mod:`boardlab.bots.connect4.network`), without building it."""
    inputs, outputs = (cfg.rows * cfg.cols + 1, 1) if cfg.encoding == "study" else (2 * cfg.rows * cfg.cols, cfg.cols)
    sizes = [inputs, *cfg.hidden, outputs]
    return sum(a * b + b for a, b in zip(sizes, sizes[1:]))


# --- the config file -----------------------------------------------------------------

Count = Annotated[int, Field(ge=1, lt=2**63)]
Finite = Annotated[float, Field(allow_inf_nan=False)]


def _board_fits(board: "Board") -> "Board":
    rows, cols = board["rows"], board["cols"]
    if cols * (rows + 1) > 64:
        raise ValueError(f"a {rows}x{cols} board is too large (cols*(rows+1) must be at most 64)")
    return board


def _hidden_sizes(value: Any) -> int | list[int]:
    sizes = value if isinstance(value, list) else [value]
    if not sizes or any(not isinstance(h, int) or isinstance(h, bool) or h < 1 for h in sizes):
        raise ValueError("must be a positive integer or a list of them")
    if len(sizes) > MAX_LAYERS or max(sizes) > MAX_PARAMETERS:
        raise ValueError(f"asks for too large a network (at most {MAX_LAYERS} layers and {MAX_PARAMETERS:,} weights)")
    return value


@with_config(STRICT)
class Board(TypedDict):
    rows: Count
    cols: Count


@with_config(STRICT)
class Rewards(TypedDict):
    win: Finite
    loss: Finite
    tie: Finite
    each_move: Finite


@with_config(STRICT)
class NeuralStorage(TypedDict):
    hidden_neurons: Annotated[int | list[int], PlainValidator(_hidden_sizes)]
    encoding: NotRequired[Encoding]


@checked_dataclass(config=STRICT, frozen=True)
class ConfigFile:
    """A training config as its file holds it: every key, its type and its range. Rules that join
    two keys are checked on the later one, so that the error names it."""

    board: Annotated[Board, AfterValidator(_board_fits)]
    needed_to_win: Annotated[int, Field(ge=2, lt=2**63)]
    games_to_play: Count
    saving_rate: Count
    learning_rate: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    discount_factor: Annotated[float, Field(ge=0, le=1)]
    estimated_optimal_future_value: FutureValue
    boltzmann_temperature: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    rewards: Rewards
    neural_storage: NeuralStorage
    # new keys (not in the study)
    seed: Annotated[int, Field(ge=0, lt=2**63)] = 0
    terminal_reply_value: Literal["reward", "zero"] = "reward"
    kernel: Kernel = "numpy"
    description: str = ""

    @field_validator("needed_to_win")
    @classmethod
    def _fits_the_board(cls, k: int, info: ValidationInfo) -> int:
        board = info.data.get("board")
        if board is not None and k > max(board["rows"], board["cols"]):
            raise ValueError(f"cannot fit on a {board['rows']}x{board['cols']} board")
        return k

    @field_validator("neural_storage")
    @classmethod
    def _not_too_large(cls, storage: NeuralStorage, info: ValidationInfo) -> NeuralStorage:
        board = info.data.get("board")
        if board is not None:
            count = parameter_count(_config(board, storage))
            if count > MAX_PARAMETERS:
                raise ValueError(f"'hidden_neurons' asks for a network of {count:,} weights (at most {MAX_PARAMETERS:,})")
        return storage

    def config(self) -> QConfig:
        return _config(
            self.board, self.neural_storage,
            needed_to_win=self.needed_to_win,
            games_to_play=self.games_to_play,
            saving_rate=self.saving_rate,
            learning_rate=float(self.learning_rate),
            discount_factor=float(self.discount_factor),
            future_value=self.estimated_optimal_future_value,
            temperature=float(self.boltzmann_temperature),
            reward_win=float(self.rewards["win"]),
            reward_loss=float(self.rewards["loss"]),
            reward_tie=float(self.rewards["tie"]),
            reward_move=float(self.rewards["each_move"]),
            seed=self.seed,
            terminal_reply_value=self.terminal_reply_value,
            kernel=self.kernel,
            description=self.description,
        )


def _config(board: Board, storage: NeuralStorage, **rest: Any) -> QConfig:
    hidden = storage["hidden_neurons"]
    return QConfig(rows=board["rows"], cols=board["cols"], hidden=tuple(hidden) if isinstance(hidden, list) else (hidden,),
                   encoding=storage.get("encoding", "study"), **rest)


def config_from_dict(data: Any, where: str = "config") -> QConfig:
    """Check a config document; every error names ``where`` (the file) and the key."""
    return load(ConfigFile, data, where).config()


def load_config(path: str | Path) -> QConfig:
    """Read and check a training config; every problem is a :class:`BoardlabError` naming the file."""
    return config_from_dict(read_json(path, "training config"), str(path))


# --- checkpoints -----------------------------------------------------------------------


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


def checkpoint_config(data: dict[str, Any], path: str | Path) -> QConfig:
    """The config stored in a checkpoint that :func:`read_checkpoint` read from ``path``."""
    if not isinstance(data["config"], str):
        raise FormatError(f"{path}: checkpoint's 'config' is not a JSON text")
    return config_from_dict(parse_json(data["config"], f"{path} (config)"), f"{path} (config)")


def mismatch(path: str | Path, exc: BaseException) -> FormatError:
    """The error for a checkpoint whose contents do not fit its config (first line of ``exc``)."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    return FormatError(f"{path}: checkpoint does not match its config: {first}")


#: what loading damaged weights or states into a network or optimizer raises
LOAD_ERRORS = (KeyError, RuntimeError, ValueError, TypeError, AttributeError, IndexError, OverflowError)


def load_weights(net: QNet, data: dict[str, Any], path: str | Path) -> None:
    """Put a checkpoint's weights into ``net`` (made from its config); refuse any that do not fit or are not finite."""
    try:
        if not isinstance(data["model"], dict):
            raise TypeError("'model' is not a state dict")
        net.load_state_dict(data["model"])
        if not all(torch.isfinite(p).all() for p in net.parameters()):
            raise ValueError("the weights are not all finite numbers")
    except LOAD_ERRORS as exc:
        raise mismatch(path, exc) from None


def load_qnet(path: str | Path) -> tuple[QConfig, QNet]:
    """The configuration and network of a checkpoint or model file, for playing (the optimizer and
    random states a checkpoint also holds are for training: they are not read).

    Building the network draws its initial weights; a player must not disturb its caller's
    random streams, so they are put back.
    """
    data = read_checkpoint(path)
    cfg = checkpoint_config(data, path)
    python_state = random.getstate()
    with torch.random.fork_rng(devices=[]):
        net = make_qnet(cfg.encoding, cfg.rows, cfg.cols, cfg.hidden)
    random.setstate(python_state)
    load_weights(net, data, path)
    net.eval()
    return cfg, net


# --- runs ----------------------------------------------------------------------

RUN_NAME = re.compile(r"^(?P<config>.+)-(?P<n>\d+)$")


@dataclass(frozen=True)
class Run:
    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def config_name(self) -> str:
        m = RUN_NAME.match(self.name)
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


def find_run(name: str, runs_dir: Path) -> Run:
    path = Path(name)
    if not path.is_dir():
        path = runs_dir / name
    if not path.is_dir():
        raise BoardlabError(f"no run {name!r} in {runs_dir} (see 'boardlab train c4-qlearning runs')")
    return Run(path)
