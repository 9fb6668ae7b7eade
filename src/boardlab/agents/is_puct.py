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
from boardlab.core.search import ChildStats, PUCTSettings, SearchSnapshot, choose_by_visits, visit_policy


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


class InformationSetPUCT:
    """One search for the player to move in ``state``; ``settings`` as :class:`PUCTSettings` (no solver, no
    discount), ``rng`` draws the worlds, chance outcomes, root noise and drawn moves."""

    engine = "is-puct"

    def __init__(self, state: State, settings: PUCTSettings, rng: np.random.Generator) -> None:
        if state.is_terminal() or state.is_chance_node():
            raise BoardlabError("is-puct: there is no move to choose in this state (terminal or chance node)")
        if settings.solve:
            raise BoardlabError("is-puct: cannot prove results in a game with hidden information")
        if settings.discount != 1.0:
            raise BoardlabError(f"is-puct: values are not discounted in games with hidden information (discount "
                                f"{settings.discount})")
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

    def root_value(self) -> float:
        """The visit-weighted mean value of the root's moves for the owner (0 before any simulation)."""
        children = self.root_children()
        total = sum(ch.visits for ch in children)
        return sum(ch.mean * ch.visits for ch in children) / total if total else 0.0

    def root_proofs(self) -> dict[int, tuple[int, int]]:
        return {}

    def immediate_wins(self) -> list[int]:
        return []  # a move that ends the game may win in one world and not in another

    def policy(self, actions: int) -> np.ndarray:
        return visit_policy(self.root_children(), actions)

    def choose(self, temperature: float) -> int:
        return choose_by_visits(self.root_children(), self.root_priors(), self.simulations, temperature, self.rng)

    def snapshot(self) -> SearchSnapshot:
        """The information states as a tree: node 0 the root, each edge a node, and each information state's
        edges under the edge that first reached it (a state reached again by another path is shown once).
        An edge's ``player`` is the player of the information state it first led to (until one is known,
        the player who chose it); its ``states`` entry is the notation of the world that created its node."""
        parent, actions, visits, wins, mean, player, created = [-1], [-1], [0], [0], [0.0], [self.owner], [0]
        moves: list[str | None] = [None]
        states: list[str | None] = [self._state.notation()]
        edge_id: dict[tuple[int, int], int] = {}
        for index, key in enumerate(self.order):
            node = self.nodes[key]
            if index == 0:
                above = 0
            elif node.parent_edge is not None and node.parent_edge in edge_id:
                above = edge_id[node.parent_edge]
            else:
                continue
            if index:
                player[above] = node.player
            for action in node.priors:
                edge_id[(index, action)] = len(parent)
                parent.append(above)
                actions.append(action)
                visits.append(node.visits.get(action, 0))
                wins.append(node.wins.get(action, 0))
                mean.append(node.mean.get(action, 0.0))
                player.append(node.player)  # until an information state below it is known
                created.append(node.created)
                moves.append(_label(self._state, action))
                states.append(node.notation)
            if index == 0:
                visits[0] = sum(node.visits.values())
        return SearchSnapshot(
            root=self._state.clone(),
            parent=np.asarray(parent, dtype=np.int64),
            actions=np.asarray(actions, dtype=np.int64),
            visits=np.asarray(visits, dtype=np.int64),
            wins=np.asarray(wins, dtype=np.int64),
            mean=np.asarray(mean, dtype=np.float64),
            player=np.asarray(player, dtype=np.int8),
            created=np.asarray(created, dtype=np.int64),
            moves=moves,
            states=states,
            root_notation=self._state.notation(),
            engine=self.engine,
        )


def _label(state: State, action: int) -> str:
    try:
        return state.action_to_string(action)
    except Exception:  # an action of another world that the root's position cannot name
        return str(action)

