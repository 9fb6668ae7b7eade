"""The compiled Dice Wars engine (numba): the rules, and the uniformly random playouts MCTS runs.

The rules are those of :mod:`boardlab.games.dicewars.state`; a position is a
handful of int64 arrays (``owner``, ``dice``, ``reserve``) and scalars, the map
an adjacency table ``adj[area, k]`` padded with -1. Randomness is the
xorshift64* stream of :mod:`boardlab.core.rng`. A battle draws its
outcome from the exact win probability (one random number; the same law as
throwing the dice), a reinforcement die goes to a uniformly random own area
below 8 dice.

A game is played in steps: :func:`advance` settles what chance decides (a pending battle, the dice
placed at the end of a turn) until a player is to move, :func:`decide` takes that player's decision.
:func:`playout` makes every decision uniformly at random (:func:`uniform_action`); the compiled twins
of the reference bots (:mod:`boardlab.bots.dicewars.compiled`) play whole games with the same steps.
Both steps are inlined into the loops that call them (numba's ``inline="always"``), so a loop keeps
the turn's scalars in registers as one loop over the rules would.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.core.rng import kernel_random, kernel_rng, python_random
from boardlab.games.dicewars.probabilities import WIN

#: how a kernel game ended (index into this tuple)
END_CODES = ("won", "stalled", "battle-limit")

MAX_DICE, RESERVE_CAP, QUIET_ROUNDS, MAX_BATTLES = 8, 64, 8, 10_000
WIN_TABLE = np.ascontiguousarray(WIN)


def adjacency_table(adjacent) -> tuple[np.ndarray, np.ndarray]:
    """``adj[a, k]`` (the k-th neighbour of area a, ascending, -1 padded) and ``deg[a]``."""
    n = len(adjacent)
    width = max(len(a) for a in adjacent)
    adj = np.full((n, width), -1, dtype=np.int64)
    deg = np.zeros(n, dtype=np.int64)
    for a, near in enumerate(adjacent):
        adj[a, : len(near)] = near
        deg[a] = len(near)
    return adj, deg


# --- randomness -------------------------------------------------------------------------
@njit(cache=True, inline="always")
def random_below(rng, n):
    return np.int64(kernel_random(rng) % np.uint64(n))


@njit(cache=True, inline="always")
def _uniform(rng):
    return np.float64(kernel_random(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# --- facts ----------------------------------------------------------------------------------
@njit(cache=True)
def regions(owner, adj, deg, player, label):
    """Label ``player``'s connected regions in ``label`` (region number per area, -1 for others);
    return (number of regions, largest size, the first region of that size)."""
    n = owner.shape[0]
    for a in range(n):
        label[a] = -1
    stack = np.empty(n, dtype=np.int64)
    count = 0
    best = 0
    best_region = -1
    for a in range(n):
        if owner[a] != player or label[a] >= 0:
            continue
        label[a] = count
        stack[0] = a
        top = 1
        size = 0
        while top > 0:
            top -= 1
            x = stack[top]
            size += 1
            for k in range(deg[x]):
                y = adj[x, k]
                if owner[y] == player and label[y] < 0:
                    label[y] = count
                    stack[top] = y
                    top += 1
        if size > best:
            best = size
            best_region = count
        count += 1
    return count, best, best_region


@njit(cache=True)
def largest_region(owner, adj, deg, player):
    label = np.empty(owner.shape[0], dtype=np.int64)
    return regions(owner, adj, deg, player, label)[1]


@njit(cache=True)
def player_dice(owner, dice, player):
    total = 0
    for a in range(owner.shape[0]):
        if owner[a] == player:
            total += dice[a]
    return total


@njit(cache=True)
def list_attacks(owner, dice, adj, deg, player, src_out, dst_out):
    """The legal attacks of ``player`` in the engine's order (source ascending, then target); their count."""
    m = 0
    for a in range(owner.shape[0]):
        if owner[a] == player and dice[a] >= 2:
            for k in range(deg[a]):
                b = adj[a, k]
                if owner[b] != player:
                    src_out[m] = a
                    dst_out[m] = b
                    m += 1
    return m


# --- the rules -------------------------------------------------------------------------------
@njit(cache=True)
def _alive(owner, players):
    count = 0
    for p in range(players):
        for a in range(owner.shape[0]):
            if owner[a] == p:
                count += 1
                break
    return count


@njit(cache=True)
def _owns_any(owner, p):
    for a in range(owner.shape[0]):
        if owner[a] == p:
            return True
    return False


@njit(cache=True)
def reinforce(owner, dice, adj, deg, reserve, player, to_place, rng):
    """Place ``to_place`` dice one at a time on random own areas below 8; the rest goes to the reserve."""
    n = owner.shape[0]
    room = np.empty(n, dtype=np.int64)
    r = 0
    for a in range(n):
        if owner[a] == player and dice[a] < MAX_DICE:
            room[r] = a
            r += 1
    while to_place > 0 and r > 0:
        i = random_below(rng, r)
        a = room[i]
        dice[a] += 1
        to_place -= 1
        if dice[a] >= MAX_DICE:
            room[i] = room[r - 1]
            r -= 1
    reserve[player] = to_place


@njit(cache=True, inline="always")
def advance(owner, dice, reserve, adj, deg, turn, win, rng):
    """Settle what chance decides, in place: a pending battle, the dice to place at the end of a turn
    (then the next player's turn begins), until a player is to decide or the game is over.

    ``turn``: (player, phase (0 play, 1 battle, 2 placing), pending src, pending dst, dice still to
    place, quiet end turns, battles, attacks this turn), a tuple so that it stays in registers.
    Returns (end code: 0 won, 1 stalled, 2 battle limit, -1 not over; winner or -1; the new ``turn``)."""
    n = owner.shape[0]
    players = reserve.shape[0]
    player, phase, psrc, pdst, to_place, quiet, battles, attacks = turn
    code, winner = -1, -1
    while True:
        if phase == 1:  # an attack waits for its outcome
            a_dice = dice[psrc]
            battles += 1
            attacks += 1
            quiet = 0
            if _uniform(rng) < win[a_dice, dice[pdst]]:
                owner[pdst] = player
                dice[pdst] = a_dice - 1
                dice[psrc] = 1
                won = True
                for a in range(n):
                    if owner[a] != player:
                        won = False
                        break
                if won:
                    code, winner = 0, player
                    break
            else:
                dice[psrc] = 1
            phase = 0
            if battles >= MAX_BATTLES:
                code = 2
                break
            continue
        if phase == 2:  # dice still to place at the end of a turn
            reinforce(owner, dice, adj, deg, reserve, player, to_place, rng)
            to_place = 0
            alive = _alive(owner, players)
            if quiet // alive >= QUIET_ROUNDS:
                code = 1
                break
            nxt = (player + 1) % players
            while not _owns_any(owner, nxt):
                nxt = (nxt + 1) % players
            player = nxt
            phase = 0
            attacks = 0
            continue
        break
    return code, winner, (player, phase, psrc, pdst, to_place, quiet, battles, attacks)


@njit(cache=True, inline="always")
def decide(owner, adj, deg, reserve, turn, act):
    """The new ``turn`` (see :func:`advance`) after the decision ``act`` of the player to move: -1 ends
    the turn (reserve + largest region to place, at most 64), ``src * n + dst`` attacks."""
    n = owner.shape[0]
    player, phase, psrc, pdst, to_place, quiet, battles, attacks = turn
    if act < 0:
        to_place = min(reserve[player] + largest_region(owner, adj, deg, player), RESERVE_CAP)
        reserve[player] = 0
        return (player, 2, psrc, pdst, to_place, quiet + 1, battles, 0)
    return (player, 1, act // n, act % n, to_place, quiet, battles, attacks)


@njit(cache=True)
def turn_of(scal):
    """``scal`` (int64[8], the state's scalars in :func:`advance`'s order) as a ``turn``."""
    return (scal[0], scal[1], scal[2], scal[3], scal[4], scal[5], scal[6], scal[7])


@njit(cache=True)
def keep_turn(scal, turn):
    """Write ``turn`` back into ``scal``."""
    scal[0], scal[1], scal[2], scal[3], scal[4], scal[5], scal[6], scal[7] = turn


@njit(cache=True)
def playout(owner, dice, reserve, adj, deg, scal, win, rng, max_actions):
    """Play from the position to the end (or ``max_actions`` decisions) with uniformly random
    decisions, in place (``scal``: the ``turn`` of :func:`advance` as int64[8]); (end code, winner)."""
    turn = turn_of(scal)
    steps = 0
    while True:
        code, winner, turn = advance(owner, dice, reserve, adj, deg, turn, win, rng)
        if code >= 0 or steps >= max_actions:
            break
        steps += 1
        turn = decide(owner, adj, deg, reserve, turn, uniform_action(owner, dice, adj, deg, turn[0], rng))
    keep_turn(scal, turn)
    return code, winner


@njit(cache=True)
def uniform_action(owner, dice, adj, deg, player, rng):
    """A uniformly random decision of ``player``, ending the turn included (the playout policy):
    -1 ends the turn, else ``src * n + dst``."""
    n = owner.shape[0]
    src = np.empty(n * 8, dtype=np.int64)
    dst = np.empty(n * 8, dtype=np.int64)
    m = list_attacks(owner, dice, adj, deg, player, src, dst)
    k = random_below(rng, m + 1)
    return -1 if k == m else src[k] * n + dst[k]


@njit(cache=True)
def deal(owner, dice, players, orig_dice, rng):
    """Ownership round-robin at random, then flat 3 dice or the engine's 'orig' shares."""
    n = owner.shape[0]
    free = np.arange(n)
    left = n
    p = 0
    while left > 0:
        i = random_below(rng, left)
        owner[free[i]] = p
        free[i] = free[left - 1]
        left -= 1
        p = (p + 1) % players
    if not orig_dice:
        for a in range(n):
            dice[a] = 3
        return
    total = 3 * n - random_below(rng, 6)
    room = np.empty(n, dtype=np.int64)
    for p in range(players):
        share = int(np.round(total / (players - p)))  # numpy rounds half to even, as Python's round
        total -= share
        r = 0
        for a in range(n):
            if owner[a] == p:
                dice[a] = 1
                share -= 1
                room[r] = a
                r += 1
        while share > 0 and r > 0:
            i = random_below(rng, r)
            dice[room[i]] += 1
            share -= 1
            if dice[room[i]] >= MAX_DICE:
                room[i] = room[r - 1]
                r -= 1


class DiceWarsKernel:
    """Entry points taking :class:`~boardlab.games.dicewars.state.DiceWarsState` objects."""

    def __init__(self, game) -> None:
        self.game = game
        self._tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def tables(self, board) -> tuple[np.ndarray, np.ndarray]:
        key = board.seed
        if key not in self._tables:
            if len(self._tables) > 512:
                self._tables.clear()
            self._tables[key] = adjacency_table(board.adjacent)
        return self._tables[key]

    def arrays(self, state):
        """The state as the kernel's arrays: owner, dice, reserve, scal."""
        from boardlab.games.dicewars.state import BATTLE, PLACE

        scal = np.zeros(8, dtype=np.int64)
        scal[0] = state.player
        if state.phase == BATTLE:
            scal[1], scal[2], scal[3] = 1, state.pending[0], state.pending[1]
        elif state.phase == PLACE:
            scal[1], scal[4] = 2, state.to_place
        scal[5], scal[6], scal[7] = state.quiet, state.battles, state.attacks
        return (np.array(state.owner, dtype=np.int64), np.array(state.dice, dtype=np.int64),
                np.array(state.reserve, dtype=np.int64), scal)

    def play_out(self, state, rng: np.ndarray) -> tuple[int, int]:
        """(end code, winner) of the game played on from ``state`` by uniformly random decisions."""
        if state.is_terminal():
            return END_CODES.index(state.end), (state.winner() if state.winner() is not None else -1)
        adj, deg = self.tables(state.map)
        owner, dice, reserve, scal = self.arrays(state)
        return playout(owner, dice, reserve, adj, deg, scal, WIN_TABLE, rng, 10**9)

    def playout_returns(self, state, rng: np.ndarray) -> list[float]:
        """Returns of a uniformly random playout from ``state`` (winner +1, others -1; cancelled: all -1)."""
        _, winner = self.play_out(state, rng)
        return [1.0 if p == winner else -1.0 for p in range(self.game.players)]


def reference_playout(state, seed: int):
    """The compiled uniform-random playout (:func:`playout`) in plain Python
    over the rules of :class:`~boardlab.games.dicewars.state.DiceWarsState`, drawing the same numbers from
    the same stream in the same order: the same seed (as given to ``kernel_rng``) ends in the same position."""
    from boardlab.games.dicewars.state import BATTLE, PLACE, PLAY

    rng = [int(kernel_rng(seed)[0])]
    state = state.clone()
    room: list[int] | None = None
    while not state.is_terminal():
        if state.phase == PLAY:
            attacks = state.attacks_of(state.player)
            k = python_random(rng) % (len(attacks) + 1)
            state.apply_action(0 if k == len(attacks) else attacks[k])
            room = None
        elif state.phase == BATTLE:
            src, dst = state.pending
            u = (python_random(rng) >> 11) * (1.0 / 9007199254740992.0)
            state.apply_action(1 if u < WIN_TABLE[state.dice[src], state.dice[dst]] else 0)
        elif state.phase == PLACE:
            if room is None:
                room = state.room(state.player)
            i = python_random(rng) % len(room)
            area = room[i]
            state.apply_action(area)
            if state.dice[area] >= MAX_DICE:
                room[i] = room[-1]
                room.pop()
    return state
