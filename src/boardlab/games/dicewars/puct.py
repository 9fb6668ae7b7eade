"""PUCT (AlphaZero's search) for Dice Wars compiled whole with numba: the rules, the observation tensor
and the network's forward pass, with one value per seat and chance sampled from the kernel's stream.

Dice Wars registers this engine as the ``boardlab.engines`` entry ``dicewars.puct`` (a
:class:`boardlab.core.search.PUCTEngine`) for a policy-value MLP given as plain arrays
(:class:`boardlab.core.search.DenseNetwork` with one value row per seat, relative to the player to
move as :mod:`boardlab.nn.az_net` trains it). The ``az`` agent and ``train az`` use it instead of the
generic :class:`boardlab.agents.puct.PUCTSearch`, which clones a Python state and crosses into torch
at every step of every simulation.

It is the generic search's algorithm: the same selection (``Q + c * P * sqrt(N) / (1 + n)``, the
first best child in action order, ``fpu``), the same backup of one value per seat (``discount``
included), the same visit contract and the same tree shape at decisions and battles: every attack
leads to a chance node with the outcomes ``win`` and ``loss`` (an impossible one never appears),
sampled with their exact probabilities. Two things differ, both in how chance is drawn:

* a whole reinforcement is **one** chance node, whose children are the placements drawn so far
  (each a distinct set of dice on the areas; a new one is added when a simulation draws it). The
  generic tree has one chance node per die, 29 outcomes each: the same law, drawn die by die;
* chance comes from the kernel's xorshift stream (:mod:`boardlab.core.rng`) seeded by one draw from
  the caller's generator when the engine is made; then the root's noise and the move are drawn
  from the caller's generator, as the generic search does. So the two engines grow trees of the
  same shape from different samples, and only statistically the same.

Each simulation replays its path from the root's arrays (a position is a few dozen integers), so no
position is stored: a chance child is matched by its outcome (the battle's result, or the dice after
the placement, kept in a side table), and that makes every node one exact position.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from boardlab.core.errors import BoardlabError
from boardlab.core.game import CHANCE, TERMINAL, State
from boardlab.core.rng import kernel_rng
from boardlab.core.search import (
    ChildStats,
    DenseNetwork,
    LazyColumn,
    PUCTSettings,
    SearchSnapshot,
    choose_by_visits,
    dense_verdict,
    grow_rows,
    run_in_chunks,
    solvable,
    visit_policy,
)
from boardlab.games.dicewars.kernel import (
    MAX_BATTLES,
    MAX_DICE,
    QUIET_ROUNDS,
    RESERVE_CAP,
    WIN_TABLE,
    advance,
    decide,
    list_attacks,
    regions,
)
from boardlab.games.dicewars.state import ODDS_PER_SEAT, TENSOR_STAGES, DiceWarsState, upper_adjacency

UNSEEN = -2  # ``player`` of a node no simulation has reached yet (CHANCE is -1, TERMINAL -4)
STAGES = len(TENSOR_STAGES)

# the int32 columns of the tree, one row per node
PARENT, FIRST, NEXT, NCH, ACTION, VISITS, WINS, CREATED, MOVER, PLAYER, WINNER, ROW = range(12)
INT_COLUMNS = 12
# the float64 columns
PRIOR, MEAN = range(2)


# --- the position as the network reads it ----------------------------------------------------------
@njit(cache=True)
def observe(owner, dice, reserve, turn, adj, deg, upper, x):
    """:meth:`DiceWarsState.observation_tensor` of the player to move in a position where a player is
    to move (``turn`` as :func:`boardlab.games.dicewars.kernel.advance` keeps it), into ``x``."""
    n = owner.shape[0]
    players = reserve.shape[0]
    viewer = turn[0]
    width = players + 3
    for i in range(x.shape[0]):
        x[i] = 0.0
    owned = np.zeros(players, dtype=np.int64)
    total = np.zeros(players, dtype=np.int64)
    for a in range(n):
        x[a * width + (owner[a] - viewer) % players] = 1.0
        x[a * width + players] = np.float32(dice[a]) / np.float32(MAX_DICE)
        owned[owner[a]] += 1
        total[owner[a]] += dice[a]
    base = n * width
    for i in range(upper.shape[0]):
        x[base + i] = upper[i]
    base += upper.shape[0]
    label = np.empty(n, dtype=np.int64)
    odds = base + 6 * players + STAGES + 3  # where features=odds' entries start
    with_odds = x.shape[0] > odds  # features=odds: its tensor is the longer one
    alive = 0
    for k in range(players):
        seat = (k + viewer) % players
        row = base + 6 * k
        if k == 0:  # the viewer is the player to move
            x[row] = 1.0
        if owned[seat] > 0:
            x[row + 1] = 1.0
            alive += 1
        x[row + 2] = np.float32(owned[seat] / n)
        x[row + 3] = np.float32(total[seat] / (MAX_DICE * n))
        count, largest_size, largest = regions(owner, adj, deg, seat, label)
        x[row + 4] = np.float32(largest_size) / np.float32(n)
        x[row + 5] = np.float32(reserve[seat]) / np.float32(RESERVE_CAP)
        if with_odds:
            _seat_odds(owner, dice, adj, deg, seat, label, largest, count, x, odds + ODDS_PER_SEAT * k)
    base += 6 * players
    x[base] = 1.0  # the stage: play
    x[base + STAGES] = np.float32(turn[4]) / np.float32(RESERVE_CAP)
    x[base + STAGES + 1] = np.float32(min(1.0, turn[5] / (QUIET_ROUNDS * max(1, alive))))
    x[base + STAGES + 2] = np.float32(min(1.0, turn[6] / MAX_BATTLES))


@njit(cache=True)
def _seat_odds(owner, dice, adj, deg, seat, label, largest, count, x, row):
    """``seat``'s three entries of ``features=odds`` into ``x[row:row + 3]`` (see
    :meth:`DiceWarsState._seat_odds`); ``label``, ``largest``, ``count``: its regions, as
    :func:`boardlab.games.dicewars.kernel.regions` left them."""
    n = owner.shape[0]
    losses = 0.0
    region_losses = 0.0
    for a in range(n):
        if owner[a] != seat:
            continue
        keep = 1.0
        for j in range(deg[a]):
            b = adj[a, j]
            if owner[b] != seat and dice[b] > 1:
                keep *= 1.0 - WIN_TABLE[dice[b], dice[a]]
        losses += 1.0 - keep
        if label[a] == largest:
            region_losses += 1.0 - keep
    x[row] = np.float32(losses / n)
    x[row + 1] = np.float32(region_losses / n)
    x[row + 2] = np.float32(count / n)


@njit(cache=True)
def judge(owner, dice, reserve, turn, adj, deg, upper, w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value,
          b_value, x, legal, priors, values):
    """The network's verdict on a position where a player is to move: its legal actions in ``legal``
    (end the turn, then the attacks in the game's order; their count is returned), the softmax of
    their logits in ``priors`` and each seat's value in ``values`` (seat order)."""
    n = owner.shape[0]
    mover = turn[0]
    observe(owner, dice, reserve, turn, adj, deg, upper, x)
    src = np.empty(n * 8, dtype=np.int64)
    dst = np.empty(n * 8, dtype=np.int64)
    m = list_attacks(owner, dice, adj, deg, mover, src, dst)
    legal[0] = 0
    for i in range(m):
        legal[1 + i] = 1 + src[i] * n + dst[i]
    count = m + 1
    dense_verdict(w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value, x, legal, count, priors, values,
                  mover)
    return count


# --- the search --------------------------------------------------------------------------------------
@njit(cache=True)
def _room(owner, dice, player):
    for a in range(owner.shape[0]):
        if owner[a] == player and dice[a] < MAX_DICE:
            return True
    return False


@njit(cache=True)
def _new_node(ints, floats, used, parent, action, mover, prior):
    node = used[0]
    used[0] = node + 1
    ints[node, PARENT] = parent
    ints[node, FIRST] = -1
    ints[node, NEXT] = -1
    ints[node, NCH] = 0
    ints[node, ACTION] = action
    ints[node, VISITS] = 0
    ints[node, WINS] = 0
    ints[node, CREATED] = -1
    ints[node, MOVER] = mover
    ints[node, PLAYER] = UNSEEN
    ints[node, WINNER] = -1
    ints[node, ROW] = -1
    floats[node, PRIOR] = prior
    floats[node, MEAN] = 0.0
    return node


@njit(cache=True)
def _expand(ints, floats, used, node, legal, priors, count, mover):
    """Give ``node`` its children (the legal actions, in order) with the priors renormalised over them."""
    total = 0.0
    for i in range(count):
        total += priors[i]
    previous = -1
    for i in range(count):
        p = priors[i] / total if total > 0 else 1.0 / count
        ch = _new_node(ints, floats, used, node, legal[i], mover, p)
        if previous < 0:
            ints[node, FIRST] = ch
        else:
            ints[previous, NEXT] = ch
        previous = ch
    ints[node, NCH] = count


@njit(cache=True)
def _outcome_child(ints, floats, used, pool, rows, node, battle, won, dice, prior):
    """The child of chance node ``node`` for the outcome just drawn (the battle's result, or the dice
    after a placement), added when no simulation drew it before."""
    ch = ints[node, FIRST]
    last = -1
    while ch >= 0:
        if battle:
            if ints[ch, ACTION] == won:
                return ch
        else:
            row = ints[ch, ROW]
            same = True
            for a in range(dice.shape[0]):
                if pool[row, a] != dice[a]:
                    same = False
                    break
            if same:
                return ch
        last = ch
        ch = ints[ch, NEXT]
    ch = _new_node(ints, floats, used, node, won if battle else -1, ints[node, MOVER], prior)
    if not battle:
        row = rows[0]
        rows[0] = row + 1
        for a in range(dice.shape[0]):
            pool[row, a] = dice[a]
        ints[ch, ROW] = row
    if last < 0:
        ints[node, FIRST] = ch
    else:
        ints[last, NEXT] = ch
    ints[node, NCH] += 1
    return ch


@njit(cache=True)
def puct_simulations(owner0, dice0, reserve0, scal0, adj, deg, win, upper,
                     w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value,
                     ints, floats, used, pool, rows, rng, simulations, done_before, c, discount, toward, fpu_mean,
                     room_per_sim):
    """Run up to ``simulations`` simulations from the root (node 0, already expanded); stop early
    when the tree's arrays could not hold another; return the number done."""
    n = owner0.shape[0]
    players = reserve0.shape[0]
    capacity = ints.shape[0]
    owner = np.empty_like(owner0)
    dice = np.empty_like(dice0)
    reserve = np.empty_like(reserve0)
    x = np.empty(w_in.shape[1], dtype=np.float32)
    legal = np.empty(n * 8 + 1, dtype=np.int64)
    priors = np.empty(n * 8 + 1, dtype=np.float64)
    values = np.empty(players, dtype=np.float64)
    path = np.empty(256, dtype=np.int64)
    done = 0
    for sim in range(simulations):
        if used[0] + room_per_sim > capacity or rows[0] + 1 > pool.shape[0]:
            break
        owner[:] = owner0
        dice[:] = dice0
        reserve[:] = reserve0
        turn = (scal0[0], scal0[1], scal0[2], scal0[3], scal0[4], scal0[5], scal0[6], scal0[7])
        node = 0
        path[0] = 0
        depth = 1
        while True:
            if ints[node, PLAYER] == CHANCE:
                player, battle, src, dst = turn[0], turn[1] == 1, turn[2], turn[3]
                p_win = win[dice[src], dice[dst]] if battle else 0.0
                code, winner, turn = advance(owner, dice, reserve, adj, deg, turn, win, rng)
                won = 1 if battle and owner[dst] == player else 0
                best = _outcome_child(ints, floats, used, pool, rows, node, battle, won, dice,
                                      (p_win if won else 1.0 - p_win) if battle else 0.0)
            else:
                f = ints[node, FIRST]
                scale = c * math.sqrt(max(ints[node, VISITS], 1))
                unvisited = 0.0
                if fpu_mean:  # the visit-weighted mean of the visited siblings, as the generic search
                    seen = 0
                    total = 0.0
                    ch = f
                    while ch >= 0:
                        seen += ints[ch, VISITS]
                        total += floats[ch, MEAN] * ints[ch, VISITS]
                        ch = ints[ch, NEXT]
                    if seen:
                        unvisited = total / seen
                best = f
                best_score = -np.inf
                ch = f
                while ch >= 0:
                    visits = ints[ch, VISITS]
                    score = (floats[ch, MEAN] if visits else unvisited) + scale * floats[ch, PRIOR] / (1 + visits)
                    if score > best_score:
                        best = ch
                        best_score = score
                    ch = ints[ch, NEXT]
                act = ints[best, ACTION]
                turn = decide(owner, adj, deg, reserve, turn, -1 if act == 0 else act - 1)
                code, winner = -1, -1
                if act == 0 and (turn[4] == 0 or not _room(owner, dice, turn[0])):
                    # nothing to place: the next turn begins at once, as the rules' state goes on
                    code, winner, turn = advance(owner, dice, reserve, adj, deg, turn, win, rng)
                elif ints[best, PLAYER] == UNSEEN:
                    ints[best, PLAYER] = CHANCE
                    ints[best, CREATED] = done_before + sim + 1
            if depth == path.shape[0]:
                longer = np.empty(2 * depth, dtype=np.int64)
                longer[:depth] = path
                path = longer
            path[depth] = best
            depth += 1
            kind = ints[best, PLAYER]
            if kind == CHANCE:
                node = best
                continue
            if kind == UNSEEN:
                ints[best, CREATED] = done_before + sim + 1
                if code >= 0:
                    ints[best, PLAYER] = TERMINAL
                    ints[best, WINNER] = winner if code == 0 else -1
                    kind = TERMINAL
                else:
                    ints[best, PLAYER] = turn[0]
                    count = judge(owner, dice, reserve, turn, adj, deg, upper, w_in, b_in, w_hidden, b_hidden,
                                  w_policy, b_policy, w_value, b_value, x, legal, priors, values)
                    _expand(ints, floats, used, best, legal, priors, count, turn[0])
            if kind == TERMINAL:
                w = ints[best, WINNER]
                for s in range(players):
                    values[s] = 1.0 if s == w else -1.0  # a cancelled game is lost by everybody
            elif kind != UNSEEN:
                node = best
                continue
            break
        top = values.max()
        bottom = values.min()
        for d in range(depth):
            nd = path[d]
            r = values[ints[nd, MOVER]]
            if r == top and r > bottom:
                ints[nd, WINS] += 1
            if discount != 1.0:
                r = toward + (r - toward) * discount ** (depth - 1 - d)
            visits = ints[nd, VISITS] + 1
            ints[nd, VISITS] = visits
            floats[nd, MEAN] += (r - floats[nd, MEAN]) / visits
        done += 1
    return done


class CompiledDiceWarsPUCT:
    """One PUCT tree rooted at ``state`` (a player to move), in numpy arrays grown by doubling; the
    API of :class:`boardlab.agents.puct.PUCTSearch` that the ``az`` agent and self-play use."""

    engine = "compiled-puct"

    def __init__(self, state: DiceWarsState, network: DenseNetwork, settings: PUCTSettings,
                 rng: np.random.Generator) -> None:
        if state.is_terminal() or state.is_chance_node():
            raise BoardlabError("puct: there is no move to choose in this state (terminal or chance node)")
        game = state.game
        if settings.solve and solvable(game):
            raise BoardlabError(f"puct: cannot prove results: {solvable(game)}")
        weights = network.arrays()
        inputs, actions, players = int(np.prod(game.observation_tensor_shape())), game.num_distinct_actions(), game.players
        if weights[0].shape[1] != inputs or weights[4].shape[0] != actions or weights[6].shape[0] != players:
            raise BoardlabError(f"puct: this network does not fit {game.spec()} (inputs {weights[0].shape[1]}, actions "
                                f"{weights[4].shape[0]}, values {weights[6].shape[0]}; the game needs {inputs}, "
                                f"{actions} and one value per seat, {players})")
        self.weights = weights
        self.game = game
        kernel = game.playout_kernel()
        self.adj, self.deg = kernel.tables(state.map)
        self.owner, self.dice, self.reserve, self.scal = kernel.arrays(state)
        self.upper = upper_adjacency(state.adjacent)
        self.c = float(settings.c)
        self.rng = rng
        self.stream = kernel_rng(int(rng.integers(1, 2**62)))  # chance draws, before the root's noise
        self.noise = settings.noise
        self.discount = float(settings.discount)
        self.discount_toward = float(settings.discount_toward)
        self.fpu = settings.fpu
        self.root = state.clone()
        self.root_history = list(state.history)
        self.room_per_sim = 2 + int(self.deg.sum())  # an expansion's children and one drawn outcome
        self.ints = np.zeros((64, INT_COLUMNS), dtype=np.int32)
        self.floats = np.zeros((64, 2), dtype=np.float64)
        self.pool = np.zeros((16, len(state.owner)), dtype=np.int8)
        self.used = np.ones(1, dtype=np.int64)
        self.rows = np.zeros(1, dtype=np.int64)
        self.ints[0] = (-1, -1, -1, 0, -1, 0, 0, 0, state.player, state.player, -1, -1)
        self.floats[0] = (1.0, 0.0)
        self.simulations = 0

    def _evaluate_root(self) -> None:
        """The root's own evaluation (no simulation): its children's priors, with the noise mixed in."""
        n = len(self.owner)
        legal = np.empty(n * 8 + 1, dtype=np.int64)
        priors = np.empty(n * 8 + 1, dtype=np.float64)
        values = np.empty(self.game.players, dtype=np.float64)
        x = np.empty(self.weights[0].shape[1], dtype=np.float32)
        turn = tuple(int(v) for v in self.scal)
        count = judge(self.owner, self.dice, self.reserve, turn, self.adj, self.deg, self.upper, *self.weights, x, legal,
                      priors, values)
        p = priors[:count] / priors[:count].sum()
        if self.noise is not None and count > 1:
            alpha, weight = self.noise
            p = (1 - weight) * p + weight * self.rng.dirichlet(np.full(count, alpha))
        self.ints = grow_rows(self.ints, 1 + count)
        self.floats = grow_rows(self.floats, 1 + count)
        _expand(self.ints, self.floats, self.used, 0, legal, p, count, self.root.player)

    def run(self, simulations: int | None, deadline: float | None = None, stop=None) -> int:
        """Simulate until ``simulations`` more are done, ``deadline`` (perf_counter) passes or ``stop``
        (a threading.Event) is set; the root is always evaluated first."""
        if self.ints[0, FIRST] < 0:
            self._evaluate_root()
        return run_in_chunks(self._simulate, simulations, deadline, stop)

    def _simulate(self, want: int) -> int:
        self.ints = grow_rows(self.ints, int(self.used[0]) + self.room_per_sim * (want + 1))
        self.floats = grow_rows(self.floats, len(self.ints))
        self.pool = grow_rows(self.pool, int(self.rows[0]) + want + 1)
        done = puct_simulations(self.owner, self.dice, self.reserve, self.scal, self.adj, self.deg, WIN_TABLE, self.upper,
                                *self.weights, self.ints, self.floats, self.used, self.pool, self.rows, self.stream, want,
                                self.simulations, self.c, self.discount, self.discount_toward, self.fpu == "mean",
                                self.room_per_sim)
        self.simulations += done
        return done

    # --- results, as PUCTSearch gives them -------------------------------------------
    def _children(self, node: int) -> list[int]:
        out = []
        ch = int(self.ints[node, FIRST])
        while ch >= 0:
            out.append(ch)
            ch = int(self.ints[ch, NEXT])
        return out

    def root_visits(self) -> int:
        return int(self.ints[0, VISITS])

    def root_children(self) -> list[ChildStats]:
        i, f = self.ints, self.floats
        return [ChildStats(int(i[ch, ACTION]), int(i[ch, VISITS]), int(i[ch, WINS]), float(f[ch, MEAN]))
                for ch in self._children(0)]

    def immediate_wins(self) -> list[int]:
        return []  # every move of Dice Wars goes through a battle or the placements: none ends the game at once

    def root_value(self) -> float:
        return float(self.floats[0, MEAN])

    def root_proofs(self) -> dict[int, tuple[int, int]]:
        return {}

    def root_priors(self) -> dict[int, float]:
        return {int(self.ints[ch, ACTION]): float(self.floats[ch, PRIOR]) for ch in self._children(0)}

    def policy(self, actions: int) -> np.ndarray:
        return visit_policy(self.root_children(), actions)

    def choose(self, temperature: float) -> int:
        return choose_by_visits(self.root_children(), self.root_priors(), self.simulations, temperature, self.rng)

    def position(self, node: int) -> State:
        """``node``'s position as the rules' state, replayed from the root."""
        return Replay(self.root, self.ints, self.pool).position(node)

    def positions(self) -> list[State]:
        """Every node's position as the rules' state, replayed from the root (node order)."""
        return Replay(self.root, self.ints[: int(self.used[0])], self.pool).positions()

    def snapshot(self) -> SearchSnapshot:
        """The tree's arrays; its move labels and positions are replayed through the rules only when
        someone reads them (the ``az`` agent snapshots every move, the tree viewer reads few)."""
        used = int(self.used[0])
        i = self.ints[:used].copy()
        replay = Replay(self.root, i, self.pool[: int(self.rows[0])].copy())
        player = i[:, PLAYER].astype(np.int8)
        player[player == UNSEEN] = CHANCE  # never reached: as the generic tree marks its untried children
        return SearchSnapshot(
            root=self.root.clone(),
            parent=i[:, PARENT].astype(np.int64),
            actions=i[:, ACTION].astype(np.int64),
            visits=i[:, VISITS].astype(np.int64),
            wins=i[:, WINS].astype(np.int64),
            mean=self.floats[:used, MEAN].copy(),
            player=player,
            created=i[:, CREATED].astype(np.int64),
            moves=LazyColumn(len(i), replay.labels),
            states=LazyColumn(len(i), replay.notations),
            root_notation=self.root.notation(),
            engine=self.engine,
            extra={"priors": self.floats[:used, PRIOR].copy()},
        )


class Replay:
    """A tree's positions, labels and notations, replayed from its root through the rules once asked for."""

    def __init__(self, root: DiceWarsState, ints: np.ndarray, pool: np.ndarray) -> None:
        self.root, self.ints, self.pool = root, ints, pool
        self._positions: list[State] | None = None
        self._labels: list[str | None] | None = None

    def _step(self, state: State, node: int) -> None:
        """Play the move or the chance outcome into ``node`` on its parent's position ``state``."""
        action = int(self.ints[node, ACTION])
        if action >= 0:  # a decision, or a battle's outcome
            state.apply_action(action)
            return
        gain = self.pool[int(self.ints[node, ROW])].astype(np.int64) - np.asarray(state.dice)  # type: ignore[attr-defined]
        for area in np.flatnonzero(gain):  # a placement: the dice it added, area by area
            for _ in range(int(gain[area])):
                state.apply_action(int(area))

    def position(self, node: int) -> State:
        path = []
        while node > 0:
            path.append(node)
            node = int(self.ints[node, PARENT])
        state = self.root.clone()
        for step in reversed(path):
            self._step(state, step)
        return state

    def positions(self) -> list[State]:
        if self._positions is None:
            states: list[State] = [self.root.clone()]
            for node in range(1, len(self.ints)):
                state = states[int(self.ints[node, PARENT])].clone()
                self._step(state, node)
                states.append(state)
            self._positions = states
        return self._positions

    def labels(self) -> list[str | None]:
        """The move into each node: ``end``, ``3>7``, ``win`` or ``loss``, or the placement ``+3 +3 +12``."""
        if self._labels is None:
            states = self.positions()
            labels: list[str | None] = [None]
            for node in range(1, len(self.ints)):
                parent = states[int(self.ints[node, PARENT])]
                action = int(self.ints[node, ACTION])
                if action >= 0:
                    labels.append(parent.action_to_string(action))
                else:
                    gain = np.asarray(states[node].dice) - np.asarray(parent.dice)  # type: ignore[attr-defined]
                    labels.append(" ".join(f"+{area + 1}" for area in np.flatnonzero(gain) for _ in range(int(gain[area]))))
            self._labels = labels
        return self._labels

    def notations(self) -> list[str | None]:
        return [state.notation() for state in self.positions()]
