"""Who plays whom, in which seat, with which seed: the list of a tournament's games.

A tournament is a fixed list of games, numbered from 0. Game ``i`` is played
with seed ``derive_seed(seed, i)``, so it can be replayed on its own and it
does not matter in which order (or on which machine) the games are played.

Formats, for ``A`` agents and ``K`` players per game:

* ``round-robin``: every group of ``K`` agents (every pairing when ``K`` = 2)
  plays ``games`` games.
* ``gauntlet``: the first agent with every group of ``K - 1`` of the others
  (with ``K`` = 2: the first agent against each other agent), ``games`` games
  per group.
* ``random-seating``: ``games`` games in all, each with ``K`` agents drawn at
  random and seated in random order.
* ``rotations`` (seat-fair, the protocol of the Dice Wars course's tournaments):
  ``games`` boards; on each board one group of ``K`` agents in a random order
  plays every rotation of that order (``K`` games), all with the *same* seed,
  so every agent meets the same board and the same chance stream from every
  seat. With more agents than seats the group is picked as the course's script
  picks it: the agent with the fewest games so far, the opponent it has met
  least, then others at random (ties broken at random).
* ``rotations-under-test``: ``rotations`` with the first agent in every group, as
  the course's script does with ``--ai-under-test`` (how a student's bot was
  graded): per board the first agent, the opponent it has met least, then
  others at random.

Within a group, game ``j`` seats the group rotated left by ``j mod K``
(``A B``, ``B A``, ... for two players), so when ``games`` is a multiple of
``K`` every agent sits in every seat equally often.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from boardlab.core.errors import BoardlabError
from boardlab.core.rng import derive_seed

FORMATS = ("round-robin", "gauntlet", "random-seating", "rotations", "rotations-under-test")


@dataclass(frozen=True)
class ScheduledGame:
    index: int
    #: agent number (position in the tournament's agent list) in each seat
    seats: tuple[int, ...]
    seed: int


def groups_of(num_agents: int, players: int, fmt: str) -> list[tuple[int, ...]]:
    """The agent groups that play together in a round-robin or a gauntlet."""
    if fmt == "round-robin":
        return list(combinations(range(num_agents), players))
    if fmt == "gauntlet":
        return [(0, *rest) for rest in combinations(range(1, num_agents), players - 1)]
    raise BoardlabError(f"format {fmt!r} has no fixed groups")


def rotated(group: tuple[int, ...], shift: int) -> tuple[int, ...]:
    shift %= len(group)
    return group[shift:] + group[:shift]


def make_schedule(num_agents: int, players: int, games: int, fmt: str, seed: int) -> list[ScheduledGame]:
    """Every game of a tournament, in index order."""
    if fmt not in FORMATS:
        raise BoardlabError(f"unknown tournament format {fmt!r} (formats: {', '.join(FORMATS)})")
    if games < 1:
        raise BoardlabError("--games must be at least 1")
    if players < 1:
        raise BoardlabError("--players-per-game must be at least 1")
    if players > num_agents:
        raise BoardlabError(
            f"{players} players per game need at least {players} agents; {num_agents} given"
        )
    if fmt == "gauntlet" and num_agents < 2:
        raise BoardlabError("a gauntlet needs at least two agents")
    if fmt in ("rotations", "rotations-under-test"):
        return rotation_schedule(num_agents, players, games, seed, under_test=fmt == "rotations-under-test")
    seatings: list[tuple[int, ...]] = []
    if fmt == "random-seating":
        for index in range(games):
            rng = np.random.default_rng(derive_seed(seed, "seating", index))
            seatings.append(tuple(int(a) for a in rng.permutation(num_agents)[:players]))
    else:
        for group in groups_of(num_agents, players, fmt):
            seatings.extend(rotated(group, j) for j in range(games))
    return [ScheduledGame(index, seats, derive_seed(seed, index)) for index, seats in enumerate(seatings)]


def rotation_schedule(num_agents: int, players: int, boards: int, seed: int, under_test: bool = False) -> list[ScheduledGame]:
    """The ``rotations`` format: per board, every rotation of one group on one seed; with
    ``under_test`` agent 0 is every group's pivot (``rotations-under-test``)."""
    played = [0] * num_agents
    met = np.zeros((num_agents, num_agents), dtype=np.int64)
    out: list[ScheduledGame] = []
    for board in range(boards):
        rng = np.random.default_rng(derive_seed(seed, "board-group", board))
        fewest = min(played)
        pivot = 0 if under_test else int(rng.choice([a for a in range(num_agents) if played[a] == fewest]))
        group = [pivot]
        if players > 1:
            others = [a for a in range(num_agents) if a != pivot]
            least = min(int(met[pivot, a]) for a in others)
            group.append(int(rng.choice([a for a in others if met[pivot, a] == least])))
            rest = [a for a in others if a not in group]
            if players > 2:
                group.extend(int(a) for a in rng.choice(rest, size=players - 2, replace=False))
        order = tuple(int(group[i]) for i in rng.permutation(players))
        board_seed = derive_seed(seed, "board", board)
        for shift in range(players):
            out.append(ScheduledGame(len(out), rotated(order, shift), board_seed))
        for a in order:
            played[a] += players
            for b in order:
                if a != b:
                    met[a, b] += 1
    return out
