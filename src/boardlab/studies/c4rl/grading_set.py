"""Build the Connect Four grading set: positions from real games, labelled by the solver.

Games are played between pairs of different agents (random, the depth-limited
``perfect:depth=N`` searchers, MCTS); every position of every game from
``min_stones`` stones on is a candidate, duplicates (same board) are dropped,
and up to ``per_phase`` positions are drawn per phase (opening <= 14 stones,
middle 15-28, end > 28). The solver then scores every move of each position.

Regenerate the shipped set (a few minutes of CPU)::

    boardlab experiment c4-grading-set --per-phase 80 --games-per-pair 8 --out src/boardlab/data/connect4_grading.txt
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.core.errors import BoardlabError
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed
from boardlab.games.connect4.book import default_book
from boardlab.games.connect4.grading import PHASES, GradedPosition, label, phase_of, write_grading_set
from boardlab.games.connect4.solver import Position, Solver

DEFAULT_PAIRS = (
    ("random", "random"),
    ("random", "perfect:depth=4"),
    ("perfect:depth=2", "perfect:depth=4"),
    ("perfect:depth=4", "mcts:iterations=1000"),
    ("mcts:iterations=1000", "perfect:depth=2"),
    ("mcts:iterations=1000", "mcts:iterations=1000"),
)


def sample_positions(
    pairs: Sequence[tuple[str, str]], games_per_pair: int, per_phase: int, seed: int, min_stones: int = 10
) -> list[str]:
    """Play ``games_per_pair`` games per pair and draw up to ``per_phase`` distinct positions per phase.

    Positions with fewer than ``min_stones`` stones are left out: they repeat across
    games and are the slowest to label.
    """
    game = make("connect4")
    pools: dict[str, list[str]] = {p: [] for p in PHASES}
    keys: set[int] = set()
    for pair_index, (a, b) in enumerate(pairs):
        agents = [make_agent(a, game), make_agent(b, game)]
        for g in range(games_per_pair):
            record = play_game(game, agents, derive_seed(seed, "pair", pair_index, "game", g))
            history = "".join(str(action + 1) for action in record.actions)
            for n in range(min_stones, len(history)):  # every position before the game's last move
                moves = history[:n]
                key = Position.from_moves(moves).key()
                if key not in keys:
                    keys.add(key)
                    pools[phase_of(n)].append(moves)
    rng = np.random.default_rng(seed)
    chosen: list[str] = []
    for phase in PHASES:
        pool = pools[phase]
        picks = rng.choice(len(pool), size=min(per_phase, len(pool)), replace=False)
        chosen.extend(pool[i] for i in sorted(picks))
    return chosen


def regenerate_command(out: Path, pairs: Sequence[tuple[str, str]], games_per_pair: int, per_phase: int, seed: int) -> str:
    """The ``boardlab experiment c4-grading-set`` line that writes the same set again (recorded in its header)."""
    words = ["boardlab", "experiment", "c4-grading-set", "--games-per-pair", str(games_per_pair),
             "--per-phase", str(per_phase), "--seed", str(seed)]
    if tuple(map(tuple, pairs)) != DEFAULT_PAIRS:
        for a, b in pairs:
            words += ["--pair", f"{a} vs {b}"]
    return shlex.join([*words, "--out", str(out)])


def build_grading_set(
    out: Path,
    pairs: Sequence[tuple[str, str]] = DEFAULT_PAIRS,
    games_per_pair: int = 4,
    per_phase: int = 40,
    seed: int = 7,
    report: Callable[[str], None] = print,
) -> list[GradedPosition]:
    """Sample, label and write a grading set to ``out``; ``report`` receives progress lines."""
    if games_per_pair < 1 or per_phase < 1:
        raise BoardlabError(f"games per pair and positions per phase must be positive, not {games_per_pair} and {per_phase}")
    if not pairs:
        raise BoardlabError("the grading set needs at least one pair of agents")
    moves_list = sample_positions(pairs, games_per_pair, per_phase, seed)
    report(f"sampled {len(moves_list)} positions; labelling")
    solver = Solver(book=default_book())
    labelled = []
    start = time.monotonic()
    for i, moves in enumerate(moves_list):
        labelled.append(label(solver, moves))
        if (i + 1) % 20 == 0:
            report(f"  {i + 1}/{len(moves_list)} labelled, {time.monotonic() - start:.0f} s")
    header = [
        "Connect Four grading set: MOVES BEST S1..S7 (Pons' scores for the player to move;",
        "Sc = score after playing column c, x = full column). Positions sampled from games between",
        ", ".join(f"{a} vs {b}" for a, b in pairs),
        f"({games_per_pair} games per pair, seed {seed}), up to {per_phase} per phase",
        "(opening <= 14 stones, middle 15-28, end > 28), every move scored by boardlab's solver.",
        "Regenerate: " + regenerate_command(out, pairs, games_per_pair, per_phase, seed),
    ]
    write_grading_set(Path(out), labelled, header)
    return labelled

