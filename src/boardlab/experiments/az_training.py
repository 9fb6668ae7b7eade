"""AlphaZero training (``boardlab train az``): self-play, replay buffer, gradient steps, evaluation, resume.

One *iteration* plays ``games`` self-play games with the current network
(in lockstep chunks of ``lockstep`` games, one forward pass per round of
leaves; chunks go to ``--workers`` processes or Ray), adds their positions to
the replay buffer, and takes ``steps`` gradient steps on minibatches from it.
Every ``eval_every`` iterations (and at the last) the network is saved as
``models/iter-NNNN.pt`` and played against the previous saved network,
``random`` and ``mcts:iterations=eval_mcts`` in seat-rotated duels (with more
players: its win share at seat-rotated tables of random and of MCTS players,
:mod:`boardlab.arena.table`), and graded
on the game's set of solved positions where it provides one (``grading_solver``:
standard Connect Four's optimal-move set).

With ``imitate`` (an agent spec), the network first learns from that agent's
games before the first iteration (:mod:`boardlab.experiments.az_imitation`); it
is evaluated as iteration 0 and the lesson is kept in the checkpoint.

Exact resume: every random choice of iteration ``i`` (the games' seeds, the
minibatches) is derived from the run's seed and ``i``, the network starts from
``torch.manual_seed(seed)``, and the checkpoint written (atomically) after each
iteration holds the network, the optimiser, the buffer and the history; so a
run killed at any moment and started again with the same command ends with the
same weights, byte for byte, as one never interrupted (with the same chunking
and device; the number of workers does not matter, the chunks are fixed).
"""

from __future__ import annotations

import io
import json
import os
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from boardlab.agents.az import pick_device
from boardlab.agents.az_selfplay import Samples, SelfPlaySettings, self_play
from boardlab.arena.backends import map_tasks
from boardlab.arena.duel import duel, duel_keys
from boardlab.arena.table import table_score, win_share
from boardlab.core.engines import grading_engine, grading_set_loader
from boardlab.core.errors import BoardlabError
from boardlab.core.files import read_json
from boardlab.core.records import write_atomic
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed
from boardlab.core.search import FIRST_PLAY_VALUES, solvable, value_outputs
from boardlab.experiments.az_imitation import agent_games_job, check_teacher, lesson_rounds
from boardlab.nn.az_learn import ReplayBuffer, train_steps
from boardlab.nn.az_net import (
    Evaluator,
    dense_network,
    load_model,
    model_payload,
    network_from_payload,
    new_network,
    relative_values,
    save_model,
)
from boardlab.nn.checkpoint import read_checkpoint

RUN_FORMAT = "boardlab-az-run"
#: settings a resumed run may change: how far it runs and how often it saves and evaluates a network, not what it
#: learns (evaluation games draw their own seeds and never touch the weights, the buffer or training's generators)
MAY_CHANGE = ("iterations", "eval_every")
#: settings added after runs were started, with the value that reproduces those runs (their checkpoints lack the key)
ADDED_SINCE = {"augment": False, "engine": "generic", "discount": 1.0, "value_target": "result", "fpu": "zero",
               "solver": False, "max_moves": 0, "random_opening": 0, "init": "", "imitate": "", "imitate_games": 1000,
               "imitate_steps": 1000, "value_inputs": "", "policy_q": 0.0,
               "eval_positions": "", "discount_toward": 0.0, "opponents": "", "opponent_share": 0.0}


@dataclass
class AZConfig:
    game: str = "connect4"
    seed: int = 0
    iterations: int = 100
    games: int = 64  # self-play games per iteration
    lockstep: int = 64  # games per lockstep chunk (one forward pass per round)
    simulations: int = 50  # per self-play move
    c: float = 1.5
    alpha: float = 1.0
    noise_weight: float = 0.25
    temp_moves: int = 10
    buffer: int = 50_000
    batch: int = 256
    steps: int = 100
    lr: float = 1e-3
    weight_decay: float = 1e-4
    kind: str = "auto"
    hidden: int = 128
    layers: int = 2
    channels: int = 32
    blocks: int = 2
    value_inputs: str = ""  # the part of the tensor an MLP's value reads, "START:STOP" ("": all of it)
    eval_every: int = 5
    eval_games: int = 20
    eval_simulations: int = 100
    eval_mcts: int = 200
    eval_positions: str = ""  # a file of solved positions the evaluations grade ("": the game's own set)
    device: str = "cpu"
    augment: bool = False  # minibatch samples seen through the game's symmetries (a run from before the option: False)
    engine: str = "auto"  # self-play search: the game's compiled PUCT where it offers one (auto), or generic
    discount: float = 1.0  # a result k plies ahead is worth discount**k (targets and search)
    value_target: str = "result"  # or "average": of the result and the root's search value
    fpu: str = "zero"  # an unvisited child's value in self-play searches: zero or mean (of its visited siblings)
    solver: bool = False  # self-play searches prove results (MCTS-Solver) and play the quickest proven win
    random_opening: int = 0  # self-play games start with 0..random_opening random moves (not trained on)
    init: str = ""  # a model file whose weights the network starts from ("": fresh weights from the seed)
    max_moves: int = 0  # self-play games stopped after this many moves count as lost by every seat (0: never)
    imitate: str = ""  # an agent whose games (itself in every seat) the network learns before self-play ("": none)
    imitate_games: int = 1000  # games of that agent
    imitate_steps: int = 1000  # gradient steps on them before the first iteration
    policy_q: float = 0.0  # the policy target's visit shares tilted by exp(policy_q * (mean - best mean)); 0: the visits
    discount_toward: float = 0.0  # what discounted results fade toward: 0, or the loss (-1) so that only wins fade
    opponents: str = ""  # agents (specs joined by "+") in the other seats of opponent_share of the games ("": none)
    opponent_share: float = 0.0  # the share of self-play games played against them

    def arch(self) -> dict[str, Any]:
        return {"kind": self.kind, "hidden": self.hidden, "layers": self.layers, "channels": self.channels, "blocks": self.blocks,
                "value_inputs": self.value_inputs}

    def check(self) -> None:
        if self.iterations == 0 and not self.imitate:
            raise BoardlabError("train az: iterations must be at least 1, not 0 (0 runs the --imitate lesson alone)")
        if self.iterations < 0:
            raise BoardlabError(f"train az: iterations must be at least 1, not {self.iterations}")
        positive = ("games", "lockstep", "simulations", "buffer", "batch", "eval_every", "eval_games",
                    "eval_simulations", "eval_mcts", "hidden", "layers", "channels", "imitate_games")
        for name in positive:
            if getattr(self, name) < 1:
                raise BoardlabError(f"train az: {name} must be at least 1, not {getattr(self, name)}")
        for name in ("steps", "temp_moves", "blocks", "seed", "max_moves", "random_opening", "imitate_steps"):
            if getattr(self, name) < 0:
                raise BoardlabError(f"train az: {name} must not be negative, not {getattr(self, name)}")
        if not (0 <= self.noise_weight <= 1):
            raise BoardlabError(f"train az: noise_weight must be between 0 and 1, not {self.noise_weight}")
        if not (0 < self.discount <= 1):
            raise BoardlabError(f"train az: discount must be in (0, 1], not {self.discount}")
        if not (-1 <= self.discount_toward <= 1):
            raise BoardlabError(f"train az: discount_toward must be between -1 and 1, not {self.discount_toward}")
        if self.discount_toward != 0 and self.discount == 1:
            raise BoardlabError("train az: --discount-toward has no effect without a --discount below 1")
        if self.fpu not in FIRST_PLAY_VALUES:
            raise BoardlabError(f"train az: fpu must be one of {', '.join(FIRST_PLAY_VALUES)}, not {self.fpu!r}")
        if self.value_target not in ("result", "average"):
            raise BoardlabError(f"train az: value_target must be result or average, not {self.value_target!r}")
        if self.engine not in ("auto", "generic"):
            raise BoardlabError(f"train az: engine must be auto or generic, not {self.engine!r}")
        if not (0 <= self.policy_q <= 1000):
            raise BoardlabError(f"train az: policy_q must be between 0 and 1000, not {self.policy_q}")
        if not (0 <= self.opponent_share <= 1):
            raise BoardlabError(f"train az: opponent_share must be between 0 and 1, not {self.opponent_share}")
        if bool(self.opponents) != (self.opponent_share > 0):
            raise BoardlabError("train az: --opponents and --opponent-share go together (the agents, and the share of "
                                "self-play games they play against the network)")
        if self.lr <= 0 or self.c < 0 or self.alpha <= 0 or self.weight_decay < 0:
            raise BoardlabError("train az: lr and alpha must be positive, c and weight_decay not negative")


def check_opponents(opponents: str, game) -> None:
    """Refuse ``--opponents`` that cannot fill the other seats of ``game``: one spec for all of them, or one per
    seat (joined by "+", as ``evaluate -o`` takes a table), each an agent that plays the game."""
    if not opponents:
        return
    from boardlab.agents.registry import make_agent

    specs = opponents.split("+")
    others = game.num_players() - 1
    if len(specs) not in (1, others):
        raise BoardlabError(f"train az: --opponents {opponents} names {len(specs)} agents; {game.spec()} has {others} "
                            f"other seats (give one agent for all of them, or {others} joined by '+')")
    for spec in specs:
        try:
            make_agent(spec, game)
        except BoardlabError as error:
            raise BoardlabError(f"train az: --opponents: {error}") from None


def _state_bytes(payload: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return buffer.getvalue()


def selfplay_job(item: tuple) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """One lockstep chunk of self-play in a worker: ``(chunk index, game spec, model bytes, seeds, settings, device)``."""
    index, spec, model_bytes, seeds, settings, device = item
    torch.set_num_threads(1)  # a small net gains nothing from threads; one worker is one core
    game = make(spec)
    payload = torch.load(io.BytesIO(model_bytes), map_location="cpu", weights_only=True)
    net = network_from_payload(payload, "self-play model")
    evaluator = Evaluator(net, device)
    outputs = value_outputs(game)
    samples, summary = self_play(game, evaluator.evaluate, seeds, SelfPlaySettings(**settings),
                                 lambda returns, mover: relative_values(np.asarray(returns), mover, outputs),
                                 dense_network(net) if evaluator.device == "cpu" else None)
    return index, {"obs": samples.obs, "mask": samples.mask, "policy": samples.policy, "value": samples.value}, summary


def timed(task: tuple[Callable[[Any], Any], Any]) -> tuple[Any, int, float]:
    """``fn(item)``, the process that ran it and the CPU seconds it took there: a pool's workers come from a
    fork server, not from this process, so the operating system never counts them as its children."""
    fn, item = task
    start = time.process_time()
    return fn(item), os.getpid(), time.process_time() - start


def is_graded_game(game) -> bool:
    """Whether the game provides a grading solver (standard Connect Four's shipped optimal-move set)."""
    return grading_engine(game) is not None


def duel_score(game, mine: str, opponent: str, games: int, seed: int, on_game: Callable | None = None,
               workers: int = 1, backend: str = "process", address: str | None = None) -> dict[str, Any]:
    """A seat-alternating duel of ``mine`` against ``opponent``: wins, draws, losses, the score (draws half) with
    its 95 % Wilson interval, and each side's mean wall seconds per decision (to compare searches at equal time);
    played on a pool of ``workers`` (see :func:`~boardlab.arena.duel.duel`)."""
    result = duel(game, mine, opponent, games, seed=seed, on_game=on_game, workers=workers, backend=backend, address=address)
    return duel_keys(opponent, result.wins, result.draws, result.losses, result.seconds_per_move)


def graded_shares(game, spec: str, seed: int, on_position: Callable | None = None,
                  positions: Any = None) -> tuple[float, float] | None:
    """Shares of optimal moves and of moves that keep the result, of ``spec`` on the game's set of solved
    positions (a game that provides a grading solver: standard Connect Four), or on ``positions`` (read by
    :func:`read_eval_positions`), else None."""
    grade = grading_engine(game)
    if grade is None:
        return None
    from boardlab.agents.registry import make_agent

    result = grade(make_agent(spec, game), game, seed=seed, on_position=on_position, positions=positions)
    return result.share, result.kept_share


def read_eval_positions(game, path: str) -> Any:
    """The solved positions in ``path`` for the evaluations to grade, read (and checked) by the game's own
    reader; None for "" (the game's own set)."""
    if not path:
        return None
    load = grading_set_loader(game)
    if load is None:
        raise BoardlabError(f"train az: --eval-positions grades a set of solved positions, and {game.spec()} has no "
                            f"grading (its GameType does not provide grading_solver)")
    return load(Path(path))


def evaluate_model(game, model: Path, previous: Path | None, cfg: AZConfig, iteration: int,
                   positions: Any = None) -> dict[str, Any]:
    """Duels of the saved network against the previous one, random and MCTS (in a game of more players, its
    win share at tables of random and of MCTS players); the graded shares where the game provides a grading solver
    (on ``positions``, from :func:`read_eval_positions`; None: the game's own set)."""
    spec = f"az:path={model},simulations={cfg.eval_simulations}"
    out: dict[str, Any] = {}
    if game.num_players() == 2:
        opponents = {"random": "random", "mcts": f"mcts:iterations={cfg.eval_mcts}"}
        if previous is not None:
            opponents["previous"] = f"az:path={previous},simulations={cfg.eval_simulations},temp_moves=4"
        for key, opponent in opponents.items():
            mine = spec + (",temp_moves=4" if key == "previous" else "")
            out[key] = duel_score(game, mine, opponent, cfg.eval_games, derive_seed(cfg.seed, "eval", key, iteration))["score"]
    else:  # a table of the opponent's copies, the network's seat rotated: its win share (fair: 1/players)
        for key, opponent in {"random": "random", "mcts": f"mcts:iterations={cfg.eval_mcts}"}.items():
            out[key] = table_score(game, spec, opponent, cfg.eval_games, derive_seed(cfg.seed, "eval", key, iteration))["share"]
    if is_graded_game(game):
        out["optimal"], out["kept"] = graded_shares(game, spec, derive_seed(cfg.seed, "grade", iteration), positions=positions)
    return out


class Trainer:
    """A run folder: ``config.json``, ``checkpoint.pt`` (everything to resume), ``model.pt`` (the latest
    network), ``models/iter-NNNN.pt`` (the evaluated ones), ``history.json`` and ``curve.png``."""

    def __init__(self, folder: Path, cfg: AZConfig, workers: int = 1, backend: str = "process", address: str | None = None) -> None:
        cfg.check()
        self.folder, self.cfg = Path(folder), cfg
        self.workers, self.backend, self.address = workers, backend, address
        self.game = make(cfg.game)
        if cfg.augment and "symmetries" not in self.game.provides:
            raise BoardlabError(f"train az: --augment needs a game with symmetries; {self.game.spec()} declares none "
                                f"(its GameType does not provide symmetries)")
        self.symmetries = self.game.symmetries() if cfg.augment else []
        if cfg.value_target == "average" and value_outputs(self.game) != 1:
            raise BoardlabError(f"train az: --value-target average needs a two-player zero-sum game (one value to average), "
                                f"not {self.game.spec()}")
        if cfg.discount_toward != 0 and value_outputs(self.game) == 1:
            raise BoardlabError(f"train az: --discount-toward needs a game whose network values every seat; "
                                f"{self.game.spec()} is two-player zero-sum (one value, the other seat's is its negation), "
                                f"where a discount fades toward 0 only")
        if cfg.discount != 1.0 and self.game.has_hidden_information:
            raise BoardlabError(f"train az: --discount is not used in games with hidden information ({self.game.spec()}): "
                                f"their search over drawn worlds backs up undiscounted values")
        if cfg.solver and solvable(self.game):
            raise BoardlabError(f"train az: --solver proves results in two-player zero-sum games without chance or hidden "
                                f"information only; {solvable(self.game)}")
        check_opponents(cfg.opponents, self.game)
        #: the --imitate agent's canonical spec, checked before a folder is made ("": no lesson)
        self.teacher = check_teacher(cfg.imitate, self.game) if cfg.imitate else ""
        #: what the evaluations grade (None: the game's own set), read and checked before a folder is made
        self.eval_positions = read_eval_positions(self.game, cfg.eval_positions)
        self.device = pick_device(cfg.device)
        torch.manual_seed(cfg.seed)
        self.net = new_network(self.game, cfg.arch()).to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        shape = tuple(self.game.observation_tensor_shape())
        self.buffer = ReplayBuffer(cfg.buffer, shape, self.game.num_distinct_actions(), value_outputs(self.game))
        self.iteration = 0
        self.history: list[dict[str, Any]] = []
        #: what the network learnt from --imitate's games before self-play (None: not yet, or no lesson)
        self.imitation: dict[str, Any] | None = None
        self.seconds = 0.0  # self-play and learning, evaluation left out
        self.cpu_seconds = 0.0  # the same in CPU time: this process and the workers' jobs (a pool's or Ray's)
        self.checkpoint_path = self.folder / "checkpoint.pt"
        if self.checkpoint_path.exists():
            self._resume()
        elif cfg.init:
            self._start_from(Path(cfg.init))

    def _start_from(self, path: Path) -> None:
        """Start from the weights of a saved model of this game and architecture (``--init``)."""
        net, _ = load_model(path, self.game)
        if dict(net.arch) != dict(self.net.arch):
            def shown(arch: dict[str, Any]) -> str:
                return " ".join(f"{k}={v}" for k, v in arch.items())

            raise BoardlabError(f"train az: --init {path} is a network with {shown(net.arch)}; this run's settings make "
                                f"{shown(self.net.arch)} (give the same --net, --hidden, --layers, --channels, --blocks, --value-inputs)")
        self.net.load_state_dict(net.state_dict())

    # --- checkpoints -----------------------------------------------------------------
    def _resume(self) -> None:
        data = read_checkpoint(self.checkpoint_path, RUN_FORMAT, "boardlab train az checkpoint",
                               f"{self.checkpoint_path}: no such checkpoint")
        saved = {**ADDED_SINCE, **data["config"]}
        changed = [f.name for f in fields(AZConfig) if f.name not in MAY_CHANGE and saved.get(f.name) != getattr(self.cfg, f.name)]
        if changed:
            name = changed[0]
            raise BoardlabError(f"{self.folder}: this run was started with {name}={saved.get(name)!r}, not "
                                f"{getattr(self.cfg, name)!r}; resume it with the same settings (only --iterations and --eval-every may change)")
        reached = int(data["iteration"])
        if self.cfg.iterations < reached:
            raise BoardlabError(f"{self.folder}: this run has reached iteration {reached}; --iterations {self.cfg.iterations} "
                                f"cannot take it back (give {reached} or more to go on; its saved networks are in "
                                f"{self.folder / 'models'})")
        self.net.load_state_dict(network_from_payload(data["model"], str(self.checkpoint_path)).state_dict())
        self.optimizer.load_state_dict(data["optimizer"])
        self.buffer.load(data["buffer"])
        self.iteration = int(data["iteration"])
        self.history = json.loads(data["history"])
        self.seconds = float(data["seconds"])
        self.cpu_seconds = float(data.get("cpu_seconds", 0.0))
        self.imitation = json.loads(data["imitation"]) if data.get("imitation") else None

    def _model_payload(self) -> dict[str, Any]:
        return model_payload(self.net, self.game.spec(), {"iteration": self.iteration, "seed": self.cfg.seed,
                                                          "positions": self.buffer.added, "discount": self.cfg.discount,
                                                          "discount_toward": self.cfg.discount_toward, "fpu": self.cfg.fpu})

    def _save(self) -> None:
        data = {"format": RUN_FORMAT, "config": asdict(self.cfg), "iteration": self.iteration,
                "model": self._model_payload(), "optimizer": self.optimizer.state_dict(),
                "buffer": self.buffer.state(), "history": json.dumps(self.history), "seconds": self.seconds,
                "cpu_seconds": self.cpu_seconds, "imitation": json.dumps(self.imitation) if self.imitation else ""}
        write_atomic(self.checkpoint_path, _state_bytes(data))
        save_model(self.net, self.folder / "model.pt", self.game.spec(), self._model_payload()["meta"])
        write_atomic(self.folder / "history.json", json.dumps(self.history, indent=1) + "\n")

    # --- the loop --------------------------------------------------------------------
    def run(self, on_iteration: Callable[["Trainer"], None] | None = None,
            on_lesson: Callable[[int, int], None] | None = None) -> None:
        self.folder.mkdir(exist_ok=True)
        write_atomic(self.folder / "config.json", json.dumps(asdict(self.cfg), indent=1) + "\n")
        if self.cfg.imitate and self.imitation is None and self.iteration == 0:
            self.imitate(on_lesson)
        while self.iteration < self.cfg.iterations:
            self.step()
            if on_iteration is not None:
                on_iteration(self)

    def _jobs(self, fn: Callable[[tuple], tuple], items: list[tuple]) -> tuple[list[tuple], float]:
        """``fn`` over ``items`` on the run's workers: the results in the items' order (their first element is the
        index) and the CPU seconds they took in other processes (this process's own clock has the rest)."""
        done = list(map_tasks(timed, [(fn, item) for item in items], self.workers, self.backend, self.address))
        elsewhere = sum(seconds for _, pid, seconds in done if pid != os.getpid())
        return sorted((result for result, _, _ in done), key=lambda r: r[0]), elsewhere

    def imitate(self, on_round: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """The lesson before self-play: ``imitate_games`` games of the ``imitate`` agent, their positions added to
        the buffer and ``imitate_steps`` gradient steps on it, in rounds (``on_round(games played, games)`` after each);
        the network is then evaluated as iteration 0
        (``models/iter-0000.pt``) and the checkpoint saved, so a kill during the lesson replays it whole."""
        cfg = self.cfg
        self.folder.mkdir(exist_ok=True)
        start, cpu = time.perf_counter(), time.process_time()
        elsewhere = 0.0
        rounds = lesson_rounds(self.game, cfg.imitate, cfg.imitate_games, cfg.seed, cfg.discount, cfg.discount_toward)
        rng = np.random.default_rng(derive_seed(cfg.seed, "imitate-train"))
        games: list[dict[str, Any]] = []
        positions, weighted = 0, {"policy_loss": 0.0, "value_loss": 0.0}
        for number, items in enumerate(rounds):
            # rounds, not one pass: the buffer holds a window of the lesson, and the lesson need not fit in memory
            done, seconds = self._jobs(agent_games_job, items)
            elsewhere += seconds
            samples = Samples.concat([Samples(**arrays) for _, arrays, _ in done])
            games += [g for _, _, summary in done for g in summary]
            positions += len(samples)
            self.buffer.add(samples)
            steps = cfg.imitate_steps * (number + 1) // len(rounds) - cfg.imitate_steps * number // len(rounds)
            round_losses = train_steps(self.net, self.optimizer, self.buffer, steps, cfg.batch, rng, self.device, self.symmetries)
            for key in weighted:
                weighted[key] += round_losses[key] * steps
            if on_round is not None:
                on_round(len(games), cfg.imitate_games)
        losses = {key: total / max(cfg.imitate_steps, 1) for key, total in weighted.items()}
        self.seconds += time.perf_counter() - start
        self.cpu_seconds += time.process_time() - cpu + elsewhere
        self.imitation = {"iteration": 0, "agent": self.teacher, "games": len(games),
                          "positions": positions, "mean_moves": float(np.mean([g["moves"] for g in games])), **losses,
                          "hours": self.seconds / 3600, "cpu_hours": self.cpu_seconds / 3600}
        self.imitation.update(self._evaluate(0))
        self._save()
        self.plot()
        return self.imitation

    def step(self) -> dict[str, Any]:
        cfg = self.cfg
        it = self.iteration + 1
        start, cpu = time.perf_counter(), time.process_time()
        seeds = [derive_seed(cfg.seed, "game", it, g) for g in range(cfg.games)]
        model_bytes = _state_bytes(self._model_payload())
        settings = asdict(SelfPlaySettings(cfg.simulations, cfg.c, cfg.alpha, cfg.noise_weight, cfg.temp_moves, cfg.engine, cfg.discount,
                                           cfg.value_target, cfg.fpu, cfg.solver, cfg.max_moves,
                                           cfg.random_opening, cfg.policy_q, cfg.discount_toward, cfg.opponents,
                                           cfg.opponent_share))
        items = [(k, self.game.spec(), model_bytes, seeds[s: s + cfg.lockstep], settings, self.device)
                 for k, s in enumerate(range(0, cfg.games, cfg.lockstep))]
        done, elsewhere = self._jobs(selfplay_job, items)
        samples = Samples.concat([Samples(**arrays) for _, arrays, _ in done])
        games = [g for _, _, summary in done for g in summary]
        self.buffer.add(samples)
        rng = np.random.default_rng(derive_seed(cfg.seed, "train", it))
        losses = train_steps(self.net, self.optimizer, self.buffer, cfg.steps, cfg.batch, rng, self.device, self.symmetries)
        self.seconds += time.perf_counter() - start
        self.cpu_seconds += time.process_time() - cpu + elsewhere
        self.iteration = it
        first = [g["returns"][0] for g in games]
        entry = {"iteration": it, "games": it * cfg.games, "positions": self.buffer.added, **losses,
                 "first_player_return": float(np.mean(first)), "mean_moves": float(np.mean([g["moves"] for g in games])),
                 "cut_games": sum(1 for g in games if g.get("cut")),
                 "hours": self.seconds / 3600, "cpu_hours": self.cpu_seconds / 3600}
        against = [g for g in games if g.get("learner") is not None]
        if cfg.opponents:  # how the network fares at the opponents' table, game by game of self-play
            worst = self.game.game_type.min_utility
            entry["opponent_games"] = len(against)
            entry["opponent_win_share"] = (float(np.mean([win_share(g["returns"], g["learner"], worst) for g in against]))
                                           if against else None)
        if it % cfg.eval_every == 0 or it == cfg.iterations:
            entry.update(self._evaluate(it))
        self.history.append(entry)
        self._save()
        if "eval" in entry:
            self.plot()
        return entry

    def _evaluate(self, it: int) -> dict[str, Any]:
        models = self.folder / "models"
        models.mkdir(exist_ok=True)
        path = models / f"iter-{it:04d}.pt"
        save_model(self.net, path, self.game.spec(), self._model_payload()["meta"])
        older = sorted(p for p in models.glob("iter-*.pt") if p.name < path.name)
        result = evaluate_model(self.game, path, older[-1] if older else None, self.cfg, it, self.eval_positions)
        return {"eval": result}

    def plot(self) -> Path:
        """The learning curve: each evaluation's score against training hours."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        points = ([self.imitation] if self.imitation and "eval" in self.imitation else []) + [h for h in self.history if "eval" in h]
        fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
        graded = Path(self.cfg.eval_positions).name if self.cfg.eval_positions else "graded set"
        labels = {"optimal": f"optimal moves ({graded})", "kept": f"moves keeping the result ({graded})", "random": "score vs random",
                  "mcts": f"score vs mcts:iterations={self.cfg.eval_mcts}", "previous": "score vs previous network"}
        players = self.game.num_players()
        if players > 2:
            labels["random"] = f"win share, table of random (fair {100 / players:.0f} %)"
            labels["mcts"] = f"win share, table of mcts:iterations={self.cfg.eval_mcts}"
        # CPU hours where every point has them (runs started before they were recorded have wall hours only)
        clock = "cpu_hours" if all("cpu_hours" in h for h in points) else "hours"
        for key, label in labels.items():
            xs = [h[clock] for h in points if h["eval"].get(key) is not None]
            ys = [100 * h["eval"][key] for h in points if h["eval"].get(key) is not None]
            if xs:
                ax.plot(xs, ys, "-o", ms=3, label=label)
        against = [h for h in self.history if h.get("opponent_win_share") is not None and clock in h]
        if against:  # every iteration's games against --opponents: noisier than an evaluation, but free
            ax.plot([h[clock] for h in against], [100 * h["opponent_win_share"] for h in against], "-", lw=0.8, alpha=0.6,
                    label=f"win share in self-play games against {self.cfg.opponents}")
        ax.set_xlabel("CPU hours of self-play and learning" if clock == "cpu_hours" else "hours of self-play and learning (wall clock)")
        ax.set_ylabel("%")
        ax.set_ylim(0, 100)
        ax.set_title(f"AlphaZero on {self.game.spec()}, {self.cfg.simulations} simulations in self-play")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
        plt.close(fig)
        path = self.folder / "curve.png"
        write_atomic(path, buffer.getvalue())
        return path


def load_run_config(folder: Path) -> AZConfig:
    data = read_json(folder / "config.json", "run config")
    return AZConfig(**{f.name: data[f.name] for f in fields(AZConfig) if f.name in data})
