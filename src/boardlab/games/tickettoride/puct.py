"""Information-set PUCT for Ticket to Ride compiled with numba: the search of
:mod:`boardlab.agents.is_puct` with the rules, the observation tensor and the network's forward pass
in compiled code.

Ticket to Ride registers this engine as the ``boardlab.engines`` entry ``tickettoride.puct`` (a
:class:`boardlab.core.search.PUCTEngine`) for a policy-value MLP given as plain arrays
(:class:`boardlab.core.search.DenseNetwork`, one value row per seat relative to the player to move).
The ``az`` agent and ``train az`` use it instead of the generic search, which crosses from Python
rules into torch at every step of every simulation.

It is the generic search's algorithm, and it reads no more than the generic one:

* every simulation walks a world drawn with ``root.resample(owner, rng)`` in Python (the one part
  left there: the draw follows each card's history, see :mod:`boardlab.games.tickettoride.hidden`),
  packed into the kernel's array (:func:`boardlab.games.tickettoride.kernel.pack`); the true state
  is read only through that call and through the owner's own information state;
* a node is the information state of the player to move, identified by a 64-bit key per seat
  that each move extends with what that seat sees: the action, the face-up row, the discard pile
  and the deck's size after it, and the seat's own hand and ticket offers. At the root a seat's key
  is a hash of its ``information_state_string`` in that world (the owner's is the same in every
  world); two worlds a seat cannot tell apart therefore give it the same key, and two it can tell
  apart give different keys (but for a 64-bit collision, and for the order of the cards of a face-up
  row that three locomotives wiped, which shows only in the discard counts);
* selection, backup and the root's noise are :class:`boardlab.agents.is_puct.InformationSetPUCT`'s:
  only the actions legal in the current world compete (a seat's own legal moves depend only on what
  it sees), ``sqrt(N)`` counts their visits, an action a node did not have when it was first seen
  has prior 0, values are one per seat and the leaf is judged from the mover's observation tensor in
  its world.

The worlds come from the caller's generator, so a search is reproducible from its seed, and two
states the owner cannot tell apart give the same search (``tests/test_ttr_puct.py`` checks it, and
that a search of the true state fails the same check). The compiled search and the generic one draw
their worlds in the same order but are only statistically the same (the tie-breaks of float sums).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from boardlab.core.errors import BoardlabError
from boardlab.core.game import State
from boardlab.core.search import (
    ChildStats,
    DenseNetwork,
    InformationSetResults,
    LazyColumn,
    PUCTSettings,
    SearchSnapshot,
    action_label,
    check_information_set_search,
    dense_verdict,
    grow_rows,
    run_in_chunks,
    unfold_information_states,
)
from boardlab.games.tickettoride.hidden import PackedWorlds
from boardlab.games.tickettoride.kernel import (
    DECKN,
    DISC,
    DOUBLES,
    FACEUP,
    FIRST,
    HANDS,
    LAST,
    NOFFER,
    NPL,
    NTICK,
    OFFERS,
    OWNER,
    PASSES,
    PHASE,
    PLAYER,
    POINTS,
    SIZE,
    TICKETS,
    TLEN,
    TRAINS,
    apply_action,
    legal_actions,
    map_arrays,
    returns,
    tickets_done,
)
from boardlab.games.tickettoride.plan import plan_features
from boardlab.games.tickettoride.state import OVER, SECOND, TicketToRide, TicketToRideState

ROOM = 8192  # legal actions a position can have, as the kernel's legal_actions allows
# node columns (int64): the seat to move, the simulation that created it, its first edge and edge count,
# the node and action that first reached it, and the draw that made the world it was first seen in
N_PLAYER, N_CREATED, N_FIRST, N_COUNT, N_EXTRA, N_UP, N_UP_ACTION, N_WORLD = range(8)
NODE_COLUMNS = 8
# edge columns (int64): action, visits, wins, next extra edge (-1: none); float64: prior, mean
E_ACTION, E_VISITS, E_WINS, E_NEXT = range(4)
E_PRIOR, E_MEAN = range(2)
_MIX = np.uint64(0x9E3779B97F4A7C15)


# --- the position as the network reads it ----------------------------------------------------------
@njit(cache=True)
def observe(S, M, player, x):
    """:meth:`TicketToRideState.observation_tensor` of ``player`` in kernel state ``S``, into ``x``."""
    route_points, deck = M[9], M[10]
    tracks = M[0].shape[0]
    tickets = M[6].shape[0]
    n = S[NPL]
    for i in range(x.shape[0]):
        x[i] = 0.0
    for t in range(tracks):
        o = S[OWNER + t]
        x[t * (n + 1) + (0 if o < 0 else 1 + (o - player) % n)] = 1.0
    at = tracks * (n + 1)
    for c in range(9):
        x[at + c] = np.float32(S[HANDS + 9 * player + c]) / np.float32(deck[c])
    at += 9
    for slot in range(5):
        card = S[FACEUP + slot]
        if card >= 0:
            x[at + slot * 9 + card] = 1.0
    at += 5 * 9
    for c in range(9):
        x[at + c] = np.float32(S[DISC + c]) / np.float32(deck[c])
    at += 9
    held = S[NTICK + player]
    done = np.zeros(max(held, 1), dtype=np.int64)
    tickets_done(S, M, player, done)
    for i in range(held):
        t = S[TICKETS + 30 * player + i]
        x[at + t] = 1.0
        if done[i]:
            x[at + tickets + t] = 1.0
    at += 2 * tickets
    for slot in range(S[NOFFER + player]):
        x[at + slot * tickets + S[OFFERS + 3 * player + slot]] = 1.0
    at += 3 * tickets
    phase = S[PHASE]
    x[at + phase] = 1.0
    at += 5
    if phase == SECOND and S[FIRST] >= 0:
        x[at + S[FIRST]] = 1.0
    at += 8
    trains = float(M[11][0])
    cards = float(deck.sum())
    most = 0.0
    for k in range(1, route_points.shape[0]):
        most = max(most, float(route_points[k]) / k)
    most *= trains
    for k in range(n):
        seat = (player + k) % n
        if phase != OVER and S[PLAYER] == seat:
            x[at] = 1.0
        x[at + 1] = S[TRAINS + seat] / trains
        held_cards = 0
        for c in range(9):
            held_cards += S[HANDS + 9 * seat + c]
        x[at + 2] = held_cards / cards
        x[at + 3] = S[NTICK + seat] / tickets
        x[at + 4] = S[NOFFER + seat] / 3
        x[at + 5] = S[POINTS + seat] / most
        at += 6
    x[at] = S[DECKN] / cards
    x[at + 1] = S[TLEN] / tickets
    if S[LAST] >= 0:
        x[at + 2] = 1.0
        x[at + 3] = S[LAST] / n
    x[at + 4] = min(S[PASSES], n) / n
    at += 5
    if x.shape[0] > at:  # features=plan
        plan_features(S[OWNER:OWNER + tracks], player, S[DOUBLES] == 1, S[TRAINS + player],
                      S[TICKETS + 30 * player:TICKETS + 30 * player + held], done[:held] == 1,
                      S[OFFERS + 3 * player:OFFERS + 3 * player + S[NOFFER + player]], M[0], M[2], M[4], M[5], M[6], M[7],
                      M[8], M[11][2], M[11][0], x[at:])


@njit(cache=True)
def judge(S, M, w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value, x, legal, priors, values):
    """The network's verdict on ``S`` (a player to move): its legal actions in ``legal`` (the rules'
    order; their count is returned), the softmax of their logits in ``priors`` and each seat's value in
    ``values`` (seat order)."""
    mover = S[PLAYER]
    observe(S, M, mover, x)
    count = legal_actions(S, M, legal)
    dense_verdict(w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value, x, legal, count, priors, values,
                  mover)
    return count


# --- what each seat sees -------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _mix(h, v):
    h = (h ^ np.uint64(v & 0xFFFFFFFF)) * _MIX
    return h ^ (h >> np.uint64(29))


@njit(cache=True)
def see(S, actor, action, keys):
    """Extend each seat's key with what it saw of ``action`` (just played by ``actor`` on ``S``)."""
    for p in range(keys.shape[0]):
        h = _mix(keys[p], action + 1)
        for slot in range(5):
            h = _mix(h, S[FACEUP + slot] + 2)
        for c in range(9):
            h = _mix(h, S[DISC + c])
        h = _mix(h, S[DECKN])
        if p == actor:
            for c in range(9):
                h = _mix(h, S[HANDS + 9 * p + c])
            h = _mix(h, S[NOFFER + p] + 7)
            for i in range(S[NOFFER + p]):
                h = _mix(h, S[OFFERS + 3 * p + i])
        keys[p] = h


@njit(cache=True, inline="always")
def _node_key(keys, player):
    return _mix(keys[player], player + 11) | np.uint64(1)  # never 0: 0 marks an empty slot


@njit(cache=True)
def _find(table_keys, table_nodes, key):
    mask = np.uint64(table_keys.shape[0] - 1)
    slot = np.int64(key & mask)
    while table_keys[slot] != 0:
        if table_keys[slot] == key:
            return table_nodes[slot]
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    return -1


@njit(cache=True)
def _insert(table_keys, table_nodes, key, node):
    mask = np.uint64(table_keys.shape[0] - 1)
    slot = np.int64(key & mask)
    while table_keys[slot] != 0:
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    table_keys[slot] = key
    table_nodes[slot] = node


@njit(cache=True)
def rehash(node_keys, used, table_keys, table_nodes):
    """Fill an empty table with the keys of the first ``used`` nodes."""
    for node in range(used):
        _insert(table_keys, table_nodes, node_keys[node], node)


# --- the tree ------------------------------------------------------------------------------------------
@njit(cache=True)
def new_node(nodes, node_keys, edges, edge_floats, counts, table_keys, table_nodes, key, player, created, up, up_action,
             world, legal, priors, count):
    """A node for information state ``key`` with one edge per legal action, the priors renormalised."""
    node = counts[0]
    counts[0] = node + 1
    first = counts[1]
    counts[1] = first + count
    nodes[node, N_PLAYER] = player
    nodes[node, N_CREATED] = created
    nodes[node, N_FIRST] = first
    nodes[node, N_COUNT] = count
    nodes[node, N_EXTRA] = -1
    nodes[node, N_UP] = up
    nodes[node, N_UP_ACTION] = up_action
    nodes[node, N_WORLD] = world
    node_keys[node] = key
    total = 0.0
    for i in range(count):
        total += priors[i]
    for i in range(count):
        e = first + i
        edges[e, E_ACTION] = legal[i]
        edges[e, E_VISITS] = 0
        edges[e, E_WINS] = 0
        edges[e, E_NEXT] = -1
        edge_floats[e, E_PRIOR] = priors[i] / total if total > 0 else 1.0 / count
        edge_floats[e, E_MEAN] = 0.0
    _insert(table_keys, table_nodes, key, node)
    return node


@njit(cache=True)
def _edge(nodes, edges, node, action, guess):
    """The edge of ``node`` for ``action`` (-1: none); ``guess`` is where it is when the world's legal
    actions are the node's, as they nearly always are."""
    first, count = nodes[node, N_FIRST], nodes[node, N_COUNT]
    if 0 <= guess < count and edges[first + guess, E_ACTION] == action:
        return first + guess
    for e in range(first, first + count):
        if edges[e, E_ACTION] == action:
            return e
    e = nodes[node, N_EXTRA]
    while e >= 0:
        if edges[e, E_ACTION] == action:
            return e
        e = edges[e, E_NEXT]
    return -1


@njit(cache=True)
def simulations(worlds, root_keys, draws, M, w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value,
                nodes, node_keys, edges, edge_floats, counts, table_keys, table_nodes, done_before, c, fpu_mean):
    """One simulation per world (row of ``worlds``, its seats' root keys in ``root_keys``, its draw number
    in ``draws``), from the root (node 0, made already); stop before a simulation the arrays could not
    hold; return the number done."""
    players = root_keys.shape[1]
    node_room = nodes.shape[0]
    edge_room = edges.shape[0]
    S = np.empty(SIZE, dtype=np.int64)
    keys = np.empty(players, dtype=np.uint64)
    x = np.empty(w_in.shape[1], dtype=np.float32)
    legal = np.empty(ROOM, dtype=np.int64)
    priors = np.empty(ROOM, dtype=np.float64)
    values = np.empty(players, dtype=np.float64)
    path = np.empty(64, dtype=np.int64)  # edges taken
    path_nodes = np.empty(64, dtype=np.int64)
    done = 0
    for sim in range(worlds.shape[0]):
        if counts[0] + 1 > node_room:
            break
        S[:] = worlds[sim]
        keys[:] = root_keys[sim]
        depth = 0
        up, up_action = -1, -1
        room = True
        while True:
            if S[PHASE] == OVER:
                returns(S, M, values)
                break
            player = S[PLAYER]
            key = _node_key(keys, player)
            node = _find(table_keys, table_nodes, key)
            count = legal_actions(S, M, legal)
            if node < 0:
                if counts[1] + count > edge_room:
                    room = False
                    break
                judge(S, M, w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value, x, legal, priors,
                      values)
                new_node(nodes, node_keys, edges, edge_floats, counts, table_keys, table_nodes, key, player,
                         done_before + done + 1, up, up_action, draws[sim], legal, priors, count)
                break
            # the edge to follow: ISMCTS's availability, the first best in the world's order
            available = 0
            weighted = 0.0
            for i in range(count):
                e = _edge(nodes, edges, node, legal[i], i)
                if e >= 0:
                    available += edges[e, E_VISITS]
                    weighted += edge_floats[e, E_MEAN] * edges[e, E_VISITS]
            scale = c * math.sqrt(max(available, 1))
            unvisited = weighted / available if fpu_mean and available else 0.0
            best, best_edge, best_score = legal[0], -1, -np.inf
            for i in range(count):
                e = _edge(nodes, edges, node, legal[i], i)
                n = edges[e, E_VISITS] if e >= 0 else 0
                prior = edge_floats[e, E_PRIOR] if e >= 0 else 0.0
                score = (edge_floats[e, E_MEAN] if n else unvisited) + scale * prior / (1 + n)
                if score > best_score:
                    best, best_edge, best_score = legal[i], e, score
            if best_edge < 0:  # an action this information state did not have when first seen: prior 0
                if counts[1] + 1 > edge_room:
                    room = False
                    break
                best_edge = counts[1]
                counts[1] = best_edge + 1
                edges[best_edge, E_ACTION] = best
                edges[best_edge, E_VISITS] = 0
                edges[best_edge, E_WINS] = 0
                edges[best_edge, E_NEXT] = nodes[node, N_EXTRA]
                edge_floats[best_edge, E_PRIOR] = 0.0
                edge_floats[best_edge, E_MEAN] = 0.0
                nodes[node, N_EXTRA] = best_edge
            if depth == path.shape[0]:
                longer = np.empty(2 * depth, dtype=np.int64)
                longer[:depth] = path
                path = longer
                longer_nodes = np.empty(2 * depth, dtype=np.int64)
                longer_nodes[:depth] = path_nodes
                path_nodes = longer_nodes
            path[depth] = best_edge
            path_nodes[depth] = node
            depth += 1
            up, up_action = node, best
            apply_action(S, M, best)
            see(S, player, best, keys)
        if not room:
            break
        top = values.max()
        bottom = values.min()
        for d in range(depth):
            e = path[d]
            r = values[nodes[path_nodes[d], N_PLAYER]]
            if r == top and r > bottom:
                edges[e, E_WINS] += 1
            visits = edges[e, E_VISITS] + 1
            edges[e, E_VISITS] = visits
            edge_floats[e, E_MEAN] += (r - edge_floats[e, E_MEAN]) / visits
        done += 1
    return done


# --- the engine ------------------------------------------------------------------------------------------
def _hash64(text: str) -> np.uint64:
    """64 bits of a hash of ``text``, the same in every process."""
    return np.uint64(int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") | 1)


def information_key(state: State, player: int) -> np.uint64:
    """A seat's root key from its information state."""
    return _hash64(state.information_state_string(player))


def _private_key(player: int, private: tuple) -> np.uint64:
    """An opponent's root key in a drawn world from what only it knows there (every world of one search
    shares the public part of its information state)."""
    return _hash64(f"{player}:{private}")


class CompiledTicketToRidePUCT(InformationSetResults):
    """One information-set PUCT search for the player to move in ``state``, its tree in numpy arrays grown by
    doubling; the API of :class:`boardlab.agents.is_puct.InformationSetPUCT` that the ``az`` agent and
    self-play use (``run`` instead of ``select``/``resolve``)."""

    engine = "compiled-is-puct"

    def __init__(self, state: TicketToRideState, network: DenseNetwork, settings: PUCTSettings,
                 rng: np.random.Generator) -> None:
        check_information_set_search(state, settings)
        game = state.game
        assert isinstance(game, TicketToRide)  # a Ticket to Ride state's
        weights = network.arrays()
        inputs, actions, players = int(np.prod(game.observation_tensor_shape())), game.num_distinct_actions(), game.num_players()
        if weights[0].shape[1] != inputs or weights[4].shape[0] != actions or weights[6].shape[0] != players:
            raise BoardlabError(f"is-puct: this network does not fit {game.spec()} (inputs {weights[0].shape[1]}, actions "
                                f"{weights[4].shape[0]}, values {weights[6].shape[0]}; the game needs {inputs}, "
                                f"{actions} and one value per seat, {players})")
        self.weights = weights
        self.game = game
        self.map = map_arrays(game)
        self._state = state  # read only to draw worlds for the owner (PackedWorlds, resample) and for its information state
        self.owner = state.current_player()
        self.players = players
        self.owner_key = information_key(state, self.owner)
        self.root_history = list(state.history)
        self.c = float(settings.c)
        self.noise = settings.noise
        self.discount = 1.0
        self.fpu = settings.fpu
        self.rng = rng
        self._source = PackedWorlds(state, self.owner)
        self._before: list[Mapping[str, Any]] = []  # the generator's state before each world was drawn (to redraw it for the tree)
        self.nodes = np.zeros((64, NODE_COLUMNS), dtype=np.int64)
        self.node_keys = np.zeros(64, dtype=np.uint64)
        self.edges = np.zeros((1024, 4), dtype=np.int64)
        self.edge_floats = np.zeros((1024, 2), dtype=np.float64)
        self.counts = np.zeros(2, dtype=np.int64)  # nodes and edges in use
        self.table_keys = np.zeros(128, dtype=np.uint64)
        self.table_nodes = np.zeros(128, dtype=np.int64)
        self.simulations = 0

    def _draw_world(self) -> tuple[np.ndarray, np.ndarray]:
        """A world the owner cannot tell from the true one, drawn afresh: its kernel array and each seat's
        root key there."""
        S, private = self._source.draw(self.rng)
        keys = np.empty(self.players, dtype=np.uint64)
        for p in range(self.players):
            keys[p] = self.owner_key if p == self.owner else _private_key(p, private[p])
        return S, keys

    def _world(self, draw: int) -> State:
        """The world of draw number ``draw`` as the rules' state: :func:`resample` from the generator as it
        was before that draw gives the same world."""
        rng = np.random.Generator(type(self.rng.bit_generator)())
        rng.bit_generator.state = self._before[draw]
        return self._state.resample(self.owner, rng)

    def _draw(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``count`` worlds as kernel arrays, each seat's root key in them and their draw numbers."""
        arrays = np.empty((count, SIZE), dtype=np.int64)
        keys = np.empty((count, self.players), dtype=np.uint64)
        draws = np.arange(len(self._before), len(self._before) + count, dtype=np.int64)
        for i in range(count):
            self._before.append(self.rng.bit_generator.state)
            arrays[i], keys[i] = self._draw_world()
        return arrays, keys, draws

    def _make_room(self, nodes: int, edges: int) -> None:
        self.nodes = grow_rows(self.nodes, nodes)
        self.node_keys = grow_rows(self.node_keys, len(self.nodes))
        self.edges = grow_rows(self.edges, edges)
        self.edge_floats = grow_rows(self.edge_floats, len(self.edges))
        if len(self.table_keys) < 2 * len(self.nodes):
            self.table_keys = np.zeros(2 * len(self.nodes), dtype=np.uint64)
            self.table_nodes = np.zeros(2 * len(self.nodes), dtype=np.int64)
            rehash(self.node_keys, int(self.counts[0]), self.table_keys, self.table_nodes)

    def _evaluate_root(self) -> None:
        """The root's own evaluation (no simulation): its edges' priors, with the noise mixed in."""
        arrays, _, draws = self._draw(1)
        legal = np.empty(ROOM, dtype=np.int64)
        priors = np.empty(ROOM, dtype=np.float64)
        values = np.empty(self.players, dtype=np.float64)
        x = np.empty(self.weights[0].shape[1], dtype=np.float32)
        count = judge(arrays[0], self.map, *self.weights, x, legal, priors, values)
        p = priors[:count] / priors[:count].sum()
        if self.noise is not None and count > 1:
            alpha, weight = self.noise
            p = (1 - weight) * p + weight * self.rng.dirichlet(np.full(count, alpha))
        self._make_room(1, count)
        key = np.uint64(_node_key(np.array([self.owner_key] * self.players, dtype=np.uint64), self.owner))
        new_node(self.nodes, self.node_keys, self.edges, self.edge_floats, self.counts, self.table_keys, self.table_nodes,
                 key, self.owner, 1, -1, -1, int(draws[0]), legal[:count], p, count)

    def run(self, simulations: int | None, deadline: float | None = None, stop=None) -> int:
        """Simulate until ``simulations`` more are done, ``deadline`` (perf_counter) passes or ``stop``
        (a threading.Event) is set; the root is always evaluated first."""
        if self.counts[0] == 0:
            self._evaluate_root()
        return run_in_chunks(self._simulate, simulations, deadline, stop)

    def _simulate(self, want: int) -> int:
        arrays, keys, draws = self._draw(want)
        done = 0
        edge_room = 64 * want
        while done < want:
            self._make_room(int(self.counts[0]) + want - done + 1, int(self.counts[1]) + edge_room)
            ran = simulations(arrays[done:], keys[done:], draws[done:], self.map, *self.weights, self.nodes,
                              self.node_keys, self.edges, self.edge_floats, self.counts, self.table_keys,
                              self.table_nodes, self.simulations + done, self.c, self.fpu == "mean")
            done += ran
            edge_room = 2 * edge_room + ROOM  # a simulation stopped for want of edges: give it more
        self.simulations += done
        return done

    # --- results, as InformationSetPUCT gives them ------------------------------------------
    def _edges_of(self, node: int) -> list[int]:
        first, count = int(self.nodes[node, N_FIRST]), int(self.nodes[node, N_COUNT])
        out = list(range(first, first + count))
        extra = int(self.nodes[node, N_EXTRA])
        while extra >= 0:
            out.append(extra)
            extra = int(self.edges[extra, E_NEXT])
        return out

    def _root_edges(self) -> list[int]:
        """The root's edges of the actions it had when first seen (as the generic search lists its priors)."""
        if self.counts[0] == 0:
            return []
        first, count = int(self.nodes[0, N_FIRST]), int(self.nodes[0, N_COUNT])
        return list(range(first, first + count))

    def root_visits(self) -> int:
        return int(sum(self.edges[e, E_VISITS] for e in self._edges_of(0))) if self.counts[0] else 0

    def root_children(self) -> list[ChildStats]:
        e, f = self.edges, self.edge_floats
        return [ChildStats(int(e[i, E_ACTION]), int(e[i, E_VISITS]), int(e[i, E_WINS]), float(f[i, E_MEAN]))
                for i in self._root_edges()]

    def root_priors(self) -> dict[int, float]:
        return {int(self.edges[i, E_ACTION]): float(self.edge_floats[i, E_PRIOR]) for i in self._root_edges()}

    def snapshot(self) -> SearchSnapshot:
        """The information states as a tree, as :meth:`InformationSetPUCT.snapshot` draws it: node 0 the root,
        each edge a node, each information state's edges under the edge that first reached it; an edge's
        ``states`` entry is the position of the world that first saw its information state (replayed
        when read)."""
        def node(index: int) -> tuple:
            up = (int(self.nodes[index, N_UP]), int(self.nodes[index, N_UP_ACTION]))
            edges = [(int(self.edges[e, E_ACTION]), int(self.edges[e, E_VISITS]), int(self.edges[e, E_WINS]),
                      float(self.edge_floats[e, E_MEAN])) for e in self._edges_of(index)]
            return (up if index else None), int(self.nodes[index, N_PLAYER]), int(self.nodes[index, N_CREATED]), edges

        rows = unfold_information_states(self.owner, (node(i) for i in range(int(self.counts[0]))))
        moves: list[str | None] = [None] + [action_label(self._state, a) for a in rows.actions[1:]]
        states = LazyColumn(len(rows.origin), lambda: self._notations(rows.origin))
        return rows.snapshot(self._state.clone(), moves, states, self._state.notation(), self.engine)

    def _notations(self, origin: list[int]) -> list[str | None]:
        """Each row's position: the root's, or that of the information state its edge leaves."""
        notations = {node: self.node_position(node).notation() for node in set(origin) - {-1}}
        return [self._state.notation() if node < 0 else notations[node] for node in origin]

    def node_position(self, node: int) -> State:
        """The position of the world that first saw ``node``'s information state: that world played along
        the actions from the root (an information state holds its whole history, so every world that
        reached it took the same actions)."""
        world = int(self.nodes[node, N_WORLD])
        path = []
        while node > 0:
            path.append(int(self.nodes[node, N_UP_ACTION]))
            node = int(self.nodes[node, N_UP])
        state = self._world(world)
        for action in reversed(path):
            state.apply_action(action)
        return state
