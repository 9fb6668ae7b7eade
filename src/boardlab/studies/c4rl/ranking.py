"""Rankings of trained Connect Four Q-networks, as in the study's chapter 6.

* :func:`all_play_all`: every agent plays every agent trained from *another*
  configuration, once in each seat (greedy agents are deterministic, so one
  game per seat says all);
* :func:`with_random`: every agent plays ``games`` games as first and as second
  player against the uniformly random player.

Both give, per configuration, the mean, max and min over its agents of the
percentage of games won (ties count as not won), the numbers of the study's
tables 6.1 to 6.13. Games against the random player are played in batches: all
games advance one ply together and the network values every position to move
in one call, which is what makes 1000 games per seat cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from boardlab.agents.base import Agent
from boardlab.bots.connect4.network import greedy_actions, q_function
from boardlab.bots.connect4.qnet_files import QConfig, Run, find_run, load_config, load_qnet, read_checkpoint
from boardlab.core.errors import BoardlabError
from boardlab.studies.c4rl.training import Learner, is_run

QValues = Callable[[np.ndarray], np.ndarray]


@dataclass
class TrainedAgent:
    """A greedy player from a checkpoint: the legal action of highest Q (lowest column on ties)."""

    name: str
    config_name: str
    cfg: QConfig
    q: QValues
    diverged: bool = False

    @classmethod
    def from_checkpoint(cls, path: Path, name: str, config_name: str) -> "TrainedAgent":
        cfg, net = load_qnet(path)
        return cls(name, config_name, cfg, q_function(net))

    @classmethod
    def from_run(cls, run: Run) -> "TrainedAgent":
        diverged = (run.path / "diverged.json").exists()
        if diverged and not run.checkpoint.exists():
            # diverged before its first checkpoint: what is left is the initial network
            learner = Learner.new(load_config(run.config_file))
            return cls(run.name, run.config_name, learner.cfg, q_function(learner.net), diverged=True)
        if not run.checkpoint.exists():
            raise BoardlabError(f"run {run.name} has no checkpoint yet (train it first)")
        agent = cls.from_checkpoint(run.checkpoint, run.name, run.config_name)
        agent.diverged = diverged
        return agent

    def choose_many(self, states: Sequence) -> list[int]:
        if not states:
            return []
        return greedy_actions(self.q, states)


def play_vs_random(q: QValues, game, games: int, seat: int, seed: int) -> dict[str, int]:
    """``games`` games of the greedy Q-player in ``seat`` against uniform random play."""
    rng = np.random.default_rng(seed)
    states = [game.new_initial_state() for _ in range(games)]
    while True:
        live = [s for s in states if not s.is_terminal()]
        if not live:
            break
        mine = [s for s in live if s.current_player() == seat]
        for s, a in zip(mine, greedy_actions(q, mine) if mine else []):
            s.apply_action(a)
        for s in live:
            if s.current_player() == 1 - seat:
                legal = s.legal_actions()
                s.apply_action(legal[int(rng.integers(len(legal)))])
    wins = sum(1 for s in states if s.winner == seat)
    losses = sum(1 for s in states if s.winner == 1 - seat)
    return {"games": games, "wins": wins, "draws": games - wins - losses, "losses": losses}


def play_pair(first: TrainedAgent, second: TrainedAgent, game) -> int:
    """One game, ``first`` moving first; returns the winner's seat or -1 for a tie."""
    state = game.new_initial_state()
    agents = (first, second)
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].choose_many([state])[0])
    return state.winner


@dataclass
class AgentScore:
    run: str
    config: str
    wins: int = 0
    games: int = 0
    by_seat: list[dict[str, int]] = field(default_factory=list)
    #: percentage of graded positions where the agent's move is optimal (None: not graded)
    optimal_percent: float | None = None

    @property
    def win_percent(self) -> float:
        return 100.0 * self.wins / self.games if self.games else 0.0


def ranking(scores: Sequence[AgentScore]) -> list[dict[str, Any]]:
    """Per configuration: mean, max and min win percentage over its agents, best mean first."""
    by_config: dict[str, list[AgentScore]] = {}
    for s in scores:
        by_config.setdefault(s.config, []).append(s)
    rows = []
    for config, agents in by_config.items():
        percents = [a.win_percent for a in agents]
        row = {
            "config": config,
            "mean": float(np.mean(percents)),
            "max": float(np.max(percents)),
            "min": float(np.min(percents)),
            "agents": [
                {"run": a.run, "win_percent": a.win_percent, "games": a.games,
                 **({"by_seat": a.by_seat} if a.by_seat else {}),
                 **({"optimal_percent": a.optimal_percent} if a.optimal_percent is not None else {})}
                for a in agents
            ],
        }
        shares = [a.optimal_percent for a in agents if a.optimal_percent is not None]
        if shares:
            row.update(optimal_mean=float(np.mean(shares)), optimal_max=float(np.max(shares)), optimal_min=float(np.min(shares)))
        rows.append(row)
    rows.sort(key=lambda r: -r["mean"])
    return rows


def _same_game(agents: Sequence[TrainedAgent]):
    boards = {(a.cfg.rows, a.cfg.cols, a.cfg.needed_to_win) for a in agents}
    if len(boards) != 1:
        raise BoardlabError("the agents were trained on different boards: " + ", ".join(f"{r}x{c} k={k}" for r, c, k in sorted(boards)))
    return agents[0].cfg.game()


def all_play_all(agents: Sequence[TrainedAgent]) -> list[dict[str, Any]]:
    """The study's first ranking: each agent against every agent of another configuration, both seats."""
    if len({a.config_name for a in agents}) < 2:
        raise BoardlabError("all-play-all needs agents of at least two configurations")
    game = _same_game(agents)
    scores = {a.name: AgentScore(a.name, a.config_name) for a in agents}
    for a in agents:
        for b in agents:
            if a.config_name == b.config_name:
                continue
            winner = play_pair(a, b, game)
            for agent, seat in ((a, 0), (b, 1)):
                scores[agent.name].games += 1
                scores[agent.name].wins += winner == seat
    return ranking(list(scores.values()))


def with_random(agents: Sequence[TrainedAgent], games: int, seed: int = 0, positions: Sequence | None = None) -> list[dict[str, Any]]:
    """The study's second ranking: ``games`` games as first and as second player against random.

    With ``positions`` (a grading set, :mod:`boardlab.games.connect4.grading`) each agent's
    share of optimal moves is added (``optimal_mean``, ``optimal_max``, ``optimal_min``).
    """
    if games < 1:
        raise BoardlabError("--games must be at least 1")
    game = _same_game(agents)
    scores = []
    for index, a in enumerate(agents):
        score = AgentScore(a.name, a.config_name)
        for seat in (0, 1):
            result = play_vs_random(a.q, game, games, seat, seed * 1_000_003 + index * 2 + seat)
            score.wins += result["wins"]
            score.games += result["games"]
            score.by_seat.append({"seat": seat, **result})
        if positions is not None:
            score.optimal_percent = optimal_percent(a, positions)
        scores.append(score)
    return ranking(scores)


def load_agents(names: Sequence[str], runs_dir: Path) -> list[TrainedAgent]:
    return [TrainedAgent.from_run(find_run(name, runs_dir)) for name in names]


def learning_curve(run: Run, games: int, seed: int = 0, positions: Sequence | None = None) -> list[dict[str, Any]]:
    """Win percentage against random, as first and as second player, at each snapshot of ``run``
    (and the percentage of optimal moves on a grading set, ``optimal``, when ``positions`` is given)."""
    points = []
    for played, path in run.snapshots():
        agent = TrainedAgent.from_checkpoint(path, f"{run.name}@{played}", run.config_name)
        game = agent.cfg.game()
        first = play_vs_random(agent.q, game, games, 0, seed * 2 + 1)
        second = play_vs_random(agent.q, game, games, 1, seed * 2 + 2)
        point = {"games_played": played, "first": 100.0 * first["wins"] / games, "second": 100.0 * second["wins"] / games}
        if positions is not None:
            point["optimal"] = optimal_percent(agent, positions)
        points.append(point)
    return points


def plot_curves(curves: dict[str, list[dict[str, Any]]], path: Path, title: str) -> None:
    """One PNG: win percentage against random (first: solid, second: dashed) per curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    for (label, points), colour in zip(curves.items(), plt.rcParams["axes.prop_cycle"].by_key()["color"] * 4):
        xs = [p["games_played"] for p in points]
        ax.plot(xs, [p["first"] for p in points], "-o", color=colour, ms=3, label=f"{label}, first player")
        ax.plot(xs, [p["second"] for p in points], "--s", color=colour, ms=3, label=f"{label}, second player")
        if all("optimal" in p for p in points):
            ax.plot(xs, [p["optimal"] for p in points], ":^", color=colour, ms=3, label=f"{label}, % optimal moves")
    ax.axhline(95, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("self-play games")
    ax.set_ylabel("% won against random / % optimal moves")
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


class _GreedyPlayer(Agent):
    """A :class:`TrainedAgent` behind the agent protocol, for :func:`boardlab.games.connect4.grading.grade`."""

    name = "qnet-trained"

    def __init__(self, trained: TrainedAgent) -> None:
        super().__init__()
        self.trained = trained
        self.spec = trained.name

    def step(self, state) -> int:
        return self.trained.choose_many([state])[0]


def optimal_percent(agent: TrainedAgent, positions: Sequence) -> float:
    """Percentage of the graded positions (standard 6x7 board) where the agent's move is optimal."""
    from boardlab.core.registry import make
    from boardlab.games.connect4.grading import grade

    if (agent.cfg.rows, agent.cfg.cols, agent.cfg.needed_to_win) != (6, 7, 4):
        raise BoardlabError(f"{agent.name}: grading sets are for the standard 6x7 board, four in a row")
    result = grade(_GreedyPlayer(agent), make("connect4"), positions)
    return 100.0 * result.optimal / result.positions


def evaluate_q_model(
    path: str | Path, games: int = 200, seed: int = 0, positions: Sequence | None = None, curve: bool = False,
) -> dict[str, Any]:
    """A trained Q-network (a run folder, a checkpoint, a snapshot or a model file) against random.

    Plays ``games`` games as first and as second player against the uniformly random
    player and, with ``positions`` (a grading set), gives the share of optimal moves.
    With ``curve`` (run folders only) every snapshot is evaluated the same way
    (:func:`learning_curve`). Returns ``model``, ``run`` (or None), ``board {rows, cols,
    k}``, ``games_played``, ``games``, ``seed``, ``seats [{seat, games, wins, draws,
    losses, win_percent}]``, ``optimal_percent`` (or None) and ``curve`` (or None).
    """
    if games < 1:
        raise BoardlabError(f"--games must be at least 1, not {games}")
    path = Path(path)
    run = Run(path) if path.is_dir() and is_run(path) else None
    if path.is_dir() and run is None:
        raise BoardlabError(f"{path}: a folder, but not a training run (it has no config.json)")
    if curve and run is None:
        raise BoardlabError(f"{path}: a learning curve needs a run folder (its snapshots), not one file")
    if run is not None:
        agent = TrainedAgent.from_run(run)
        played = run.games_played()
    else:
        agent = TrainedAgent.from_checkpoint(path, path.name, path.stem)
        played = int(read_checkpoint(path).get("games_played", 0))
    game = agent.cfg.game()
    seats = []
    for seat in (0, 1):
        result = play_vs_random(agent.q, game, games, seat, seed * 2 + 1 + seat)
        seats.append({"seat": seat, **result, "win_percent": 100.0 * result["wins"] / games})
    return {
        "model": str(path),
        "run": run.name if run is not None else None,
        "board": {"rows": agent.cfg.rows, "cols": agent.cfg.cols, "k": agent.cfg.needed_to_win},
        "games_played": played,
        "games": games,
        "seed": seed,
        "seats": seats,
        "optimal_percent": optimal_percent(agent, positions) if positions is not None else None,
        "curve": learning_curve(run, games, seed, positions) if curve else None,
    }
