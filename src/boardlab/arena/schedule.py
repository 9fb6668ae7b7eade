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

FORMATS = ("round-robin", "gauntlet", "random-seating")


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
    seatings: list[tuple[int, ...]] = []
    if fmt == "random-seating":
        for index in range(games):
            rng = np.random.default_rng(derive_seed(seed, "seating", index))
            seatings.append(tuple(int(a) for a in rng.permutation(num_agents)[:players]))
    else:
        for group in groups_of(num_agents, players, fmt):
            seatings.extend(rotated(group, j) for j in range(games))
    return [ScheduledGame(index, seats, derive_seed(seed, index)) for index, seats in enumerate(seatings)]
