"""Training data for a Dice Wars win-probability network: every board of seat-fair reference-bot games.

As the SUI study collected it (the Dice Wars study in docs/references.md): 4-player games of the course's reference bots,
the board after every battle with the turn, each labelled with the game's eventual winner. The
games follow the course's tournament protocol (the arena's ``rotations`` schedule: per board
every rotation of one group of bots, on one seed), played by the bots' compiled twins one
decision at a time so that every board can be noted. Cancelled games (no winner) are kept with
winner -1; a model of "who wins" leaves them out.

Every board carries its game's number, so a split can be made **by game** (no game's boards on
both sides) or, as the study did, by board after a shuffle; the study's 100 % test accuracy
came from the second (boards of one game are nearly the same board, and its label is the same).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from boardlab.bots.dicewars.features import adjacency_bits

COURSE_POOL = ("dw-ste", "dw-sdc", "dw-wpm", "dw-template", "dw-rand")


def play_noting_boards(game, seed: int, policies: Sequence[int], rng_seed: int) -> dict[str, Any]:
    """One compiled game from ``game.new_initial_state(seed)``: the board after every battle
    (owners, dice, player turns ended so far) and the winner (-1: cancelled)."""
    from boardlab.bots.dicewars.compiled import WPM_TABLE, play
    from boardlab.core.rng import kernel_rng
    from boardlab.games.dicewars.kernel import WIN_TABLE

    state = game.new_initial_state(seed)
    kern = game.playout_kernel()
    adj, deg = kern.tables(state.map)
    owner, dice, reserve, scal = kern.arrays(state)
    policies = np.asarray(policies, dtype=np.int64)
    rng = kernel_rng(rng_seed)
    owners, dices, turns_at = [], [], []
    turns = 0
    while True:
        battles = scal[6]
        code, winner = play(owner, dice, reserve, adj, deg, scal, policies, game.num_players(), WIN_TABLE,
                            WPM_TABLE, rng, 1)
        if scal[6] > battles:
            owners.append(owner.copy())
            dices.append(dice.copy())
            turns_at.append(turns)
        else:
            turns += 1  # the decision was an end of turn
        if code >= 0:
            break
    return {"owner": np.array(owners, dtype=np.int8).reshape(-1, owner.shape[0]),
            "dice": np.array(dices, dtype=np.int8).reshape(-1, owner.shape[0]),
            "turns": np.array(turns_at, dtype=np.int32), "winner": int(winner),
            "adjacency": adjacency_bits(state.map.adjacent).astype(np.int8)}


def generate(boards: int, seed: int, agents: Sequence[str] = COURSE_POOL, game_spec: str = "dicewars") -> dict[str, np.ndarray]:
    """Boards of a seat-fair tournament of ``agents`` (4 per game): arrays ``owner``, ``dice``, ``turns``,
    ``game`` (the game's number per board), and per game ``winner``, ``adjacency``, ``seed``."""
    from boardlab.arena.schedule import make_schedule
    from boardlab.arena.tournament import game_for_players
    from boardlab.core.rng import derive_seed
    from boardlab.studies.dicewars.tournament import kernel_policy

    game = game_for_players(game_spec, 4)
    policies = [kernel_policy(a) for a in agents]
    parts: dict[str, list] = {"owner": [], "dice": [], "turns": [], "game": []}
    winners, adjacency, seeds = [], [], []
    for scheduled in make_schedule(len(agents), 4, boards, "rotations", seed):
        one = play_noting_boards(game, scheduled.seed, [policies[a] for a in scheduled.seats],
                                 derive_seed(scheduled.seed, "winprob"))
        for key in ("owner", "dice", "turns"):
            parts[key].append(one[key])
        parts["game"].append(np.full(len(one["turns"]), scheduled.index, dtype=np.int32))
        winners.append(one["winner"])
        adjacency.append(one["adjacency"])
        seeds.append(scheduled.seed)
    out = {key: np.concatenate(value) for key, value in parts.items()}
    out["winner"] = np.array(winners, dtype=np.int8)
    out["adjacency"] = np.array(adjacency, dtype=np.int8)
    out["seed"] = np.array(seeds, dtype=np.int64)
    return out


def split_by_game(games: np.ndarray, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Board indices of the training and test sets, whole games on either side."""
    ids = np.unique(games)
    rng = np.random.default_rng(seed)
    test_games = rng.choice(ids, size=max(1, int(round(test_fraction * len(ids)))), replace=False)
    test = np.isin(games, test_games)
    return np.flatnonzero(~test), np.flatnonzero(test)


def split_by_board(count: int, test_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The study's split: boards shuffled, then cut 4:1, so a game's boards land on both sides."""
    order = np.random.default_rng(seed).permutation(count)
    cut = count - max(1, int(round(test_fraction * count)))
    return np.sort(order[:cut]), np.sort(order[cut:])
