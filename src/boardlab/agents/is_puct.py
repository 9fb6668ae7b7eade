"""PUCT for games with hidden information: every simulation in a world the searching seat cannot rule out.

The search never reads what the seat that searches (the *owner*, the player to
move at the root) cannot see. Each simulation starts from a fresh world drawn
with ``root.resample(owner, rng)``: the owner's own cards and everything public
stay, the hidden rest (opponents' cards, the deck's order) is drawn anew. The
simulation walks down that world; at each decision the node is the
*information state* of the player to move there (``(player,
information_state_string(player))`` of the world), so the statistics of every
world that player cannot tell apart are shared, as in information-set MCTS
(Cowling, Powley and Whitehouse 2012), here with PUCT's priors. A node never
seen before is the leaf: the network judges it from the mover's observation
tensor in that world (never the true state's), and its priors and values are
backed up as in :mod:`boardlab.agents.puct`. Chance nodes of the world are
sampled with their probabilities.

At a node, only the actions legal in the current world compete (a seat's own
legal moves depend on its own cards only, but an opponent node of one world may
offer moves another lacks); ``sqrt(N)`` counts the visits of those actions only,
as ISMCTS's *availability*. Values are vectors, one per seat; an edge's mean is
from the view of the player choosing it.

Two states the owner cannot tell apart (same information state, different hidden
cards) give the same worlds for the same generator, so the same decision:
``tests/test_is_puct.py`` checks that, and that a search peeking at the true
state fails the same check.

The root's contract is :class:`boardlab.agents.puct.PUCTSearch`'s (``select`` /
``resolve`` for lockstep batches, ``choose``, ``policy``, ``snapshot``); the
snapshot unfolds each information state under the edge that first reached it.
"""

from __future__ import annotations

import math

import numpy as np

from boardlab.core.errors import BoardlabError
from boardlab.core.game import CHANCE, TERMINAL, State
from boardlab.core.rng import sample_chance
from boardlab.core.search import (
    ChildStats,
    InformationSetResults,
    PUCTSettings,
    SearchSnapshot,
    action_label,
    check_information_set_search,
    unfold_information_states,
)


class _Node:
    """One information state: its player, priors over the actions legal when it was first seen, and per
    action the visits and mean value (for that player) of the simulations that took it."""

    __slots__ = ("player", "priors", "visits", "mean", "wins", "parent_edge", "created", "notation")

    def __init__(self, player: int, priors: dict[int, float], parent_edge: tuple[int, int] | None, created: int,
                 notation: str) -> None:
        self.player = player
        self.priors = priors
        self.visits: dict[int, int] = {}
        self.mean: dict[int, float] = {}
        self.wins: dict[int, int] = {}
        self.parent_edge = parent_edge  # (node, action) that first reached it: where the snapshot shows it
        self.created = created
        self.notation = notation


class InformationSetPUCT(InformationSetResults):
    """One search for the player to move in ``state``; ``settings`` as :class:`PUCTSettings` (no solver, no
    discount), ``rng`` draws the worlds, chance outcomes, root noise and drawn moves."""

    engine = "is-puct"

    def __init__(self, state: State, settings: PUCTSettings, rng: np.random.Generator) -> None:
        check_information_set_search(state, settings)
        self._state = state  # read only through _world(): resample(owner) and the owner's information state
        self.owner = state.current_player()
        self.discount = 1.0
        self.root_history = list(state.history)
        self.root_key = (self.owner, state.information_state_string(self.owner))
        self.c = float(settings.c)
        self.noise = settings.noise
        self.fpu = settings.fpu
        self.rng = rng
        self.players = state.num_players()
        self.nodes: dict[tuple[int, str], _Node] = {}
        self.order: list[tuple[int, str]] = []  # node keys in creation order (the snapshot's ids)
        self.ids: dict[tuple[int, str], int] = {}
        self.simulations = 0
        self._pending: tuple[State, tuple[int, str], list[tuple[_Node, int]], tuple[int, int] | None] | None = None

    def _world(self) -> State:
        """A world the owner cannot tell from the true one, drawn afresh."""
        return self._state.resample(self.owner, self.rng)

    def has_priors(self) -> bool:
        return self.root_key in self.nodes

    # --- one simulation -------------------------------------------------------------
    def select(self) -> State | None:
        """Walk one world down to an information state never seen; return that world's state for the
        network (then call :meth:`resolve`), or None when the world ended first (its returns backed up)."""
        if self._pending is not None:
            raise BoardlabError("is-puct: select() again before resolve()")
        world = self._world()
        path: list[tuple[_Node, int]] = []
        edge: tuple[int, int] | None = None
        while True:
            player = world.current_player()
            if player == TERMINAL:
                self._backup(path, [float(r) for r in world.returns()])
                return None
            if player == CHANCE:
                world.apply_action(sample_chance(world, self.rng))
                continue
            key = (player, world.information_state_string(player))
            node = self.nodes.get(key)
            if node is None:
                self._pending = (world, key, path, edge)
                return world
            action = self._choose_edge(node, world.legal_actions())
            path.append((node, action))
            edge = (self.ids[key], action)
            world.apply_action(action)

    def _choose_edge(self, node: _Node, legal: list[int]) -> int:
        visits, mean, priors = node.visits, node.mean, node.priors
        available = sum(visits.get(a, 0) for a in legal)
        scale = self.c * math.sqrt(max(available, 1))
        unvisited = 0.0
        if self.fpu == "mean" and available:
            unvisited = sum(mean.get(a, 0.0) * visits.get(a, 0) for a in legal) / available
        best, best_score = legal[0], -math.inf
        for a in legal:
            n = visits.get(a, 0)
            score = (mean[a] if n else unvisited) + scale * priors.get(a, 0.0) / (1 + n)
            if score > best_score:
                best, best_score = a, score
        return best

    def resolve(self, priors: np.ndarray, values: np.ndarray) -> None:
        """The network's verdict on the world :meth:`select` returned: a new node, values backed up."""
        if self._pending is None:
            raise BoardlabError("is-puct: resolve() without a pending leaf")
        world, key, path, edge = self._pending
        self._pending = None
        legal = list(world.legal_actions())
        p = np.asarray(priors, dtype=np.float64)[legal]
        total = p.sum()
        p = p / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
        root = key == self.root_key
        if root and self.noise is not None and len(legal) > 1:
            alpha, weight = self.noise
            p = (1 - weight) * p + weight * self.rng.dirichlet(np.full(len(legal), alpha))
        self.nodes[key] = _Node(key[0], dict(zip(legal, p.tolist())), edge, self.simulations + 1, world.notation())
        self.ids[key] = len(self.order)
        self.order.append(key)
        if path:  # the root's own evaluation gives its priors and is no simulation
            self._backup(path, values)

    def _backup(self, path: list[tuple[_Node, int]], values) -> None:
        values = [float(v) for v in values]
        top, bottom = max(values), min(values)
        for node, action in path:
            r = values[node.player]
            n = node.visits.get(action, 0) + 1
            node.visits[action] = n
            node.mean[action] = node.mean.get(action, 0.0) + (r - node.mean.get(action, 0.0)) / n
            if r == top and r > bottom:
                node.wins[action] = node.wins.get(action, 0) + 1
        self.simulations += 1

    # --- results ----------------------------------------------------------------------
    def _root(self) -> _Node | None:
        return self.nodes.get(self.root_key)

    def root_visits(self) -> int:
        root = self._root()
        return sum(root.visits.values()) if root else 0

    def root_children(self) -> list[ChildStats]:
        root = self._root()
        if root is None:
            return []
        return [ChildStats(a, root.visits.get(a, 0), root.wins.get(a, 0), root.mean.get(a, 0.0)) for a in root.priors]

    def root_priors(self) -> dict[int, float]:
        root = self._root()
        return dict(root.priors) if root else {}

    def snapshot(self) -> SearchSnapshot:
        """The information states as a tree: node 0 the root, each edge a node, and each information state's
        edges under the edge that first reached it (a state reached again by another path is shown once).
        An edge's ``player`` is the player of the information state it first led to (until one is known,
        the player who chose it); its ``states`` entry is the notation of the world that created its node."""
        rows = unfold_information_states(self.owner, (
            (node.parent_edge, node.player, node.created,
             [(a, node.visits.get(a, 0), node.wins.get(a, 0), node.mean.get(a, 0.0)) for a in node.priors])
            for node in (self.nodes[key] for key in self.order)))
        moves: list[str | None] = [None] + [action_label(self._state, a) for a in rows.actions[1:]]
        states: list[str | None] = [self._state.notation()]
        states += [self.nodes[self.order[i]].notation for i in rows.origin[1:]]
        return rows.snapshot(self._state.clone(), moves, states, self._state.notation(), self.engine)
