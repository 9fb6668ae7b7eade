"""Training data for the Ticket to Ride classifier: the algorithmic player's own decisions.

The study (Łabno 2018, section "Struktura sieci oraz zbiór danych szkolących")
played its algorithmic player, then kept "30 games per player count with a final
score of at least 120" — about 5,700 decisions, some 47 per kept game, which is
one player's turns: what it kept are *player-games* (a seat in a game), and
their decisions are that seat's turns. :func:`build` does the same:

1. play ``games`` games per player count with the compiled algorithmic player
   (:mod:`boardlab.bots.tickettoride.compiled`; the same moves as the Python agent, some
   fifty times faster), every seat the default ``ttr-algorithmic``;
2. select player-games: ``best`` (the highest scores, at least ``min_score``,
   at most ``best`` per player count: the study's selection) or ``all`` (every
   seat of every game);
3. replay each selected game in the Python engine and record, at the first
   decision of each of the selected seat's turns, the 26 features
   (:mod:`boardlab.bots.tickettoride.features`) and the class of the action it took;
4. split *by game* (a game's rows all go to training or all to the test), never
   by decision: two turns of one game are too alike to test one on the other.

A dataset is one ``.npz`` file (numpy arrays only, written atomically): ``x``
(float32, rows x 26), ``y`` (class), ``game`` (index into ``game_seed``),
``players``, ``seat``, ``score`` (of the row's player-game), ``test`` (bool),
``game_seed`` and ``meta`` (a JSON string of the settings).
"""

from __future__ import annotations

import io
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from boardlab.bots.tickettoride.algorithmic import planner_for
from boardlab.bots.tickettoride.compiled import compiled_player, default_options
from boardlab.bots.tickettoride.features import NUM_FEATURES, action_class, features
from boardlab.bots.tickettoride.planning import prepare
from boardlab.core.errors import BoardlabError, FormatError
from boardlab.core.records import write_atomic
from boardlab.core.rng import derive_seed
from boardlab.games.tickettoride.state import TURN, TicketToRide

SELECTIONS = ("best", "all")
PLAYER_COUNTS = (2, 3, 4, 5)
DATASET_FORMAT = "boardlab-ttr-decisions/1"


@dataclass
class DataConfig:
    """Everything that decides a dataset (saved in it)."""

    games: int = 250            # games per player count played by the algorithmic player (the study: 250)
    selection: str = "best"     # best (the study) or all
    best: int = 30              # player-games kept per player count (selection best)
    min_score: int = 120        # and at least this score (selection best)
    players: tuple[int, ...] = PLAYER_COUNTS
    variant: str = "study"      # the rules of the games (study: no longest-path bonus)
    test_fraction: float = 0.2  # share of the games held out
    seed: int = 2018

    def check(self) -> None:
        if self.games < 1:
            raise BoardlabError(f"--games must be at least 1, not {self.games}")
        if self.selection not in SELECTIONS:
            raise BoardlabError(f"--selection must be one of {', '.join(SELECTIONS)}, not {self.selection!r}")
        if self.best < 1:
            raise BoardlabError(f"--best must be at least 1, not {self.best}")
        bad = [k for k in self.players if k not in PLAYER_COUNTS]
        if bad or not self.players:
            raise BoardlabError(f"player counts must be among 2, 3, 4, 5, not {list(self.players)}")
        if self.variant not in ("study", "official"):
            raise BoardlabError(f"--variant must be study or official, not {self.variant!r}")
        if not 0.0 <= self.test_fraction < 1.0:
            raise BoardlabError(f"--test-fraction must be in [0, 1), not {self.test_fraction}")


def game_for(players: int, variant: str) -> TicketToRide:
    return TicketToRide(players=players, variant=variant)


def game_seed(seed: int, players: int, index: int) -> int:
    return derive_seed(seed, "ttr-classifier-games", players, index)


def seat_decisions(game: TicketToRide, seed: int, actions: Sequence[int], seats: Sequence[int]) -> list[tuple[int, np.ndarray, int]]:
    """Replay a game and return ``(seat, features, class)`` at the first decision of each turn of ``seats``."""
    state = game.new_initial_state(seed)
    planner = planner_for(state)
    wanted = set(seats)
    turns = [0] * game.num_players()
    rows = []
    for action in actions:
        if state.phase == TURN:
            p = state.player
            turns[p] += 1
            if p in wanted:
                plan = prepare(planner, state, p, True)
                rows.append((p, features(state, plan, turns[p]), action_class(action)))
        state.apply_action(action)
    if not state.is_terminal():
        raise BoardlabError(f"game {seed}: the compiled player's actions did not end the game")
    return rows


def build(config: DataConfig, on_game: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    """Play, select, replay and split (see the module docstring); the dataset's arrays and meta."""
    config.check()
    picked: list[tuple[int, int, int, int]] = []  # (players, game seed, seat, score)
    played: dict[tuple[int, int], list[int]] = {}
    for k in sorted(set(config.players)):
        game = game_for(k, config.variant)
        player = compiled_player(game, default_options(k))
        candidates = []
        for i in range(config.games):
            seed = game_seed(config.seed, k, i)
            result = player.play(seed)
            played[k, seed] = result.actions
            candidates += [(k, seed, p, int(s)) for p, s in enumerate(result.scores)]
            if on_game is not None:
                on_game("play", k, i + 1)
        if config.selection == "best":
            candidates = [c for c in candidates if c[3] >= config.min_score]
            candidates.sort(key=lambda c: (-c[3], c[1], c[2]))
            candidates = candidates[:config.best]
        picked += candidates
    by_game: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for k, seed, seat, score in picked:
        by_game.setdefault((k, seed), []).append((seat, score))
    games = sorted(by_game)
    order = np.random.default_rng(derive_seed(config.seed, "ttr-classifier-split")).permutation(len(games))
    held = set(int(i) for i in order[:int(round(config.test_fraction * len(games)))])
    xs, ys, gs, ks, seats, scores, tests = [], [], [], [], [], [], []
    for g, (k, seed) in enumerate(games):
        score_of = dict(by_game[k, seed])
        for seat, row, label in seat_decisions(game_for(k, config.variant), seed, played[k, seed], list(score_of)):
            xs.append(row)
            ys.append(label)
            gs.append(g)
            ks.append(k)
            seats.append(seat)
            scores.append(score_of[seat])
            tests.append(g in held)
        if on_game is not None:
            on_game("replay", k, g + 1)
    if not xs:
        raise BoardlabError(f"no player-game of {config.games} games per player count scored {config.min_score} or more; "
                            "play more games (--games) or lower --min-score")
    meta = {"format": DATASET_FORMAT, "config": asdict(config), "games": len(games), "test_games": len(held),
            "player_games": len(picked)}
    return {
        "x": np.stack(xs).astype(np.float32), "y": np.asarray(ys, dtype=np.int64), "game": np.asarray(gs, dtype=np.int64),
        "players": np.asarray(ks, dtype=np.int64), "seat": np.asarray(seats, dtype=np.int64),
        "score": np.asarray(scores, dtype=np.int64), "test": np.asarray(tests, dtype=bool),
        "game_seed": np.asarray([seed for _, seed in games], dtype=np.int64), "meta": meta,
    }


def save(path: str | Path, data: dict[str, Any]) -> None:
    buffer = io.BytesIO()
    arrays = {k: v for k, v in data.items() if k != "meta"}
    np.savez_compressed(buffer, meta=np.asarray(json.dumps(data["meta"])), **arrays)
    write_atomic(Path(path), buffer.getvalue())


def load(path: str | Path) -> dict[str, Any]:
    """A dataset written by :func:`save`; anything else is a FormatError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise BoardlabError(f"{path}: no such dataset file")
    try:
        with np.load(path, allow_pickle=False) as npz:
            data = {k: npz[k] for k in npz.files}
        meta = json.loads(str(data.pop("meta")))
    except Exception as exc:  # noqa: BLE001  numpy raises many kinds for a foreign file
        raise FormatError(f"{path}: not a Ticket to Ride decisions file ({str(exc)[:120]})") from None
    if not isinstance(meta, dict) or meta.get("format") != DATASET_FORMAT:
        raise FormatError(f"{path}: not a Ticket to Ride decisions file (format {meta.get('format') if isinstance(meta, dict) else None!r})")
    x = data.get("x")
    if x is None or x.ndim != 2 or x.shape[1] != NUM_FEATURES or any(len(data.get(k, ())) != len(x) for k in ("y", "game", "test")):
        raise FormatError(f"{path}: damaged decisions file (x must be rows x {NUM_FEATURES}, y, game, test one per row)")
    data["meta"] = meta
    return data
