"""Training the Dice Wars board value (``boardlab train dicewars-value``) by the cross-entropy method.

The value (:mod:`boardlab.bots.dicewars.value`) has eleven weights and no labels to fit them to: a
set of weights is only as good as the games its greedy bot wins. So every generation draws
``population`` weight vectors around the current mean, lets each play the same games (the same
boards, seats and dice: common random numbers, so that the candidates are compared on equal terms)
in the tuned seat against the reference bots, and moves the mean and the spread towards the
``elite`` that won most. After every generation the mean plays a fixed set of validation games;
the run keeps the last mean (not the best on validation, which would choose on the validation
games).

Games are those of the compiled engine (:func:`boardlab.bots.dicewars.compiled.play`): a 4-player
game takes about a millisecond, so a generation of 24 candidates on 300 boards (1,200 games each)
takes about half a minute of one core. A run is resumable: its state after every generation is
written atomically beside the weights file and read back by the same command.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
from numba import njit

from boardlab.arena.stats import wilson
from boardlab.bots.dicewars import compiled as K
from boardlab.bots.dicewars import value as V
from boardlab.core.errors import BoardlabError
from boardlab.core.records import write_atomic
from boardlab.core.rng import derive_seed, kernel_rng
from boardlab.games.dicewars.kernel import WIN_TABLE, adjacency_table, deal

#: where the search starts: the largest region, the dice share and the hold estimate as the score
#: leaf weighs them, the rest near zero; and how widely it looks at first
START_MEAN = (1.0, 0.2, -0.5, 0.5, -0.3, -0.3, 0.02, 0.02, 0.0, 0.0, 0.0)
START_SPREAD = (0.3, 0.15, 0.3, 0.3, 0.2, 0.2, 0.01, 0.03, 0.3, 0.3, 0.2)
#: share of the old mean and spread kept at each update; the floor keeps the spread from vanishing
SMOOTHING, SPREAD_FLOOR = 0.3, 0.002
DEFAULT_OPPONENTS = {2: ("dw-ste",), 4: ("dw-ste", "dw-sdc", "dw-wpm")}
#: the maps of training and of validation games are drawn from these disjoint seed ranges
TRAIN_MAPS, VALIDATION_MAPS = 0, 1_000_000


@dataclass(frozen=True)
class TuneConfig:
    players: int = 4
    opponents: tuple[str, ...] = DEFAULT_OPPONENTS[4]
    generations: int = 40
    population: int = 24
    elite: int = 6
    boards: int = 300
    validation_boards: int = 1000
    maps: int = 400
    seed: int = 1

    def check(self) -> None:
        if len(self.opponents) != self.players - 1:
            raise BoardlabError(f"{self.players} players need {self.players - 1} opponents, not {len(self.opponents)} "
                                f"({', '.join(self.opponents) or 'none'})")
        if not 2 <= self.elite < self.population:
            raise BoardlabError(f"--elite must be at least 2 and below --population ({self.population}), not {self.elite}")
        for name in ("generations", "boards", "validation_boards", "maps"):
            if getattr(self, name) < 1:
                raise BoardlabError(f"--{name.replace('_', '-')} must be at least 1")
        from boardlab.studies.dicewars.tournament import kernel_policy

        for spec in self.opponents:
            kernel_policy(spec)  # the games are compiled: every opponent needs its compiled twin


@njit(cache=True)
def play_rotations(adjs, degs, sizes, starts, players, lineup, win, table, wins):
    """Per start: a deal on map ``i % maps``, played in every rotation of ``lineup`` (entry 0 the
    tuned seat) with the same deal and dice stream; adds wins to ``wins[entry]``."""
    reserve = np.zeros(players, dtype=np.int64)
    policies = np.empty(players, dtype=np.int64)
    scal = np.zeros(8, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    for i in range(starts.shape[0]):
        k = i % sizes.shape[0]
        n = sizes[k]
        adj = adjs[k, :n]
        deg = degs[k, :n]
        for r in range(players):
            for s in range(players):
                policies[(s + r) % players] = lineup[s]
            rng[0] = starts[i]
            owner = np.empty(n, dtype=np.int64)
            dice = np.empty(n, dtype=np.int64)
            deal(owner, dice, players, False, rng)
            reserve[:] = 0
            scal[:] = 0
            code, winner = K.play(owner, dice, reserve, adj, deg, scal, policies, players, win, table, rng, 10**9)
            if code == 0 and winner >= 0:
                wins[(winner - r) % players] += 1
    return 0


class Games:
    """The maps and the compiled lineup of a run: plays weight vectors in the tuned seat."""

    def __init__(self, config: TuneConfig, game) -> None:
        from boardlab.studies.dicewars.tournament import kernel_policy

        self.config = config
        self.lineup = np.array([K.VALUE] + [kernel_policy(spec) for spec in config.opponents], dtype=np.int64)
        self.train_maps = self._maps(game, TRAIN_MAPS, config.maps)
        self.validation_maps = self._maps(game, VALIDATION_MAPS, config.maps)

    @staticmethod
    def _maps(game, base: int, count: int):
        maps = [game.map_for(base + i) for i in range(count)]
        tables = [adjacency_table(m.adjacent) for m in maps]
        n_max = max(m.areas for m in maps)
        width = max(adj.shape[1] for adj, _ in tables)
        adjs = np.full((count, n_max, width), -1, dtype=np.int64)
        degs = np.zeros((count, n_max), dtype=np.int64)
        sizes = np.array([m.areas for m in maps], dtype=np.int64)
        for k, (adj, deg) in enumerate(tables):
            adjs[k, : adj.shape[0], : adj.shape[1]] = adj
            degs[k, : deg.shape[0]] = deg
        return adjs, degs, sizes

    def wins(self, weights, starts: np.ndarray, validation: bool = False, lineup: np.ndarray | None = None) -> np.ndarray:
        """Wins of every lineup entry over ``len(starts)`` boards, each in every rotation."""
        table = K.WPM_TABLE.copy()
        table[self.config.players, K.VALUE_COLUMN:] = weights
        wins = np.zeros(self.config.players, dtype=np.int64)
        maps = self.validation_maps if validation else self.train_maps
        play_rotations(*maps, starts, self.config.players, self.lineup if lineup is None else lineup,
                       WIN_TABLE, table, wins)
        return wins


def starts_for(seed: int, *parts, count: int) -> np.ndarray:
    return np.array([kernel_rng(derive_seed(seed, *parts, i))[0] for i in range(count)], dtype=np.uint64)


@dataclass
class RunState:
    """Everything a resumed run needs: the config, the generation reached, the mean and spread, the history."""

    config: dict[str, Any]
    generation: int = 0
    mean: list[float] = field(default_factory=lambda: list(START_MEAN))
    spread: list[float] = field(default_factory=lambda: list(START_SPREAD))
    history: list[dict[str, Any]] = field(default_factory=list)

    def save(self, path: Path) -> None:
        write_atomic(path, json.dumps({"format": "boardlab-dicewars-value-run", **asdict(self)}, indent=1) + "\n")

    @classmethod
    def load(cls, path: Path, config: TuneConfig) -> "RunState":
        try:
            data = json.loads(path.read_text())
            assert data.pop("format") == "boardlab-dicewars-value-run"
            state = cls(**data)
        except (OSError, ValueError, AssertionError, KeyError, TypeError) as exc:
            raise BoardlabError(f"{path}: not a readable dicewars-value run state ({exc}); remove it to start again") from None
        # more (or fewer) generations go on from the same run; anything else would be another run
        now = {k: v for k, v in _config_dict(config).items() if k != "generations"}
        was = {k: v for k, v in state.config.items() if k != "generations"}
        if was != now:
            changed = sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))
            raise BoardlabError(f"{path}: the run was started with other settings ({', '.join(changed)}); give the same "
                                "options to resume it, or remove the file to start again")
        return state


def _config_dict(config: TuneConfig) -> dict[str, Any]:
    return {**asdict(config), "opponents": list(config.opponents)}


def tune(config: TuneConfig, game, run_file: Path,
         on_generation: Callable[[dict[str, Any]], None] | None = None) -> RunState:
    """Run (or resume) the cross-entropy search; the state is saved after every generation."""
    config.check()
    state = RunState.load(run_file, config) if run_file.exists() else RunState(_config_dict(config))
    state.config = _config_dict(config)
    games = Games(config, game)
    validation = starts_for(config.seed, "validation", count=config.validation_boards)
    per_board = config.players  # games per board: its rotations
    while state.generation < config.generations:
        g = state.generation
        mean, spread = np.array(state.mean), np.array(state.spread)
        draws = np.random.default_rng(derive_seed(config.seed, "candidates", g)).standard_normal((config.population, mean.size))
        candidates = mean + spread * draws
        candidates[0] = mean
        starts = starts_for(config.seed, "generation", g, count=config.boards)
        rates = np.array([games.wins(c, starts)[0] for c in candidates]) / (config.boards * per_board)
        elite = candidates[np.argsort(-rates, kind="stable")[: config.elite]]
        mean = (1 - SMOOTHING) * elite.mean(axis=0) + SMOOTHING * mean
        spread = (1 - SMOOTHING) * elite.std(axis=0) + SMOOTHING * spread + SPREAD_FLOOR
        won = int(games.wins(mean, validation, validation=True)[0])
        played = config.validation_boards * per_board
        state.history.append({"generation": g + 1, "best_candidate": float(rates.max()), "mean_before": float(rates[0]),
                              "validation_wins": won, "validation_games": played, "validation_win_rate": won / played})
        state.mean, state.spread, state.generation = mean.tolist(), spread.tolist(), g + 1
        state.save(run_file)
        if on_generation is not None:
            on_generation(state.history[-1])
    return state


def baseline(config: TuneConfig, game, spec: str = "dw-ste") -> dict[str, Any]:
    """What a reference bot wins in the tuned seat on the validation games (the same boards, seats and dice)."""
    from boardlab.studies.dicewars.tournament import kernel_policy

    games = Games(config, game)
    lineup = games.lineup.copy()
    lineup[0] = kernel_policy(spec)
    validation = starts_for(config.seed, "validation", count=config.validation_boards)
    won = int(games.wins(np.zeros(len(V.TERMS)), validation, validation=True, lineup=lineup)[0])
    played = config.validation_boards * config.players
    return {"agent": spec, "wins": won, "games": played, "win_rate": won / played}


def model_entry(state: RunState, config: TuneConfig, command: str, reference: dict[str, Any]) -> dict[str, Any]:
    """The weights file's entry for ``config.players`` players."""
    last = state.history[-1]
    low, high = wilson(last["validation_wins"], last["validation_games"])
    return {"weights": state.mean, "opponents": list(config.opponents), "command": command,
            "validation": {"boards": config.validation_boards, "games": last["validation_games"],
                           "wins": last["validation_wins"], "win_rate": last["validation_win_rate"],
                           "win_low": low, "win_high": high, "reference": reference},
            "history": state.history}


def save_model(path: Path, players: int, entry: dict[str, Any]) -> dict[str, Any]:
    """Write ``entry`` under ``players`` into the weights file at ``path`` (the other entries kept)."""
    model = V.read_model(path) if path.exists() else {"format": V.FORMAT, "version": 1, "terms": list(V.TERMS), "players": {}}
    model["players"][str(players)] = entry
    model["players"] = dict(sorted(model["players"].items(), key=lambda kv: int(kv[0])))
    V.check_model(model, str(path))
    write_atomic(path, json.dumps(model, indent=1) + "\n")
    return model


def curve_png(history: list[dict[str, Any]], reference: dict[str, Any], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    x = [h["generation"] for h in history]
    ax.plot(x, [100 * h["validation_win_rate"] for h in history], marker="o", ms=3, label="the mean's weights, validation games")
    ax.plot(x, [100 * h["best_candidate"] for h in history], color="0.6", lw=1, label="best candidate, its generation's games")
    ax.axhline(100 * reference["win_rate"], color="tab:red", ls="--", lw=1, label=f"{reference['agent']} in the same seat")
    ax.set_xlabel("generation")
    ax.set_ylabel("games won (%)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    data = _png_bytes(fig)
    plt.close(fig)
    write_atomic(path, data)


def _png_bytes(fig) -> bytes:
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()
