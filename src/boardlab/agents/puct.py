"""PUCT search guided by a policy-value network (AlphaZero), one simulation at a time so many trees share a batch.

A simulation walks down from the root choosing, at each decision node, the
child of highest ``Q + c * P * sqrt(N) / (1 + n)`` (``P`` the network's prior,
``Q`` the child's mean value from the view of the player choosing, 0 before its
first visit), until it reaches a node never visited. That node's position is
what the network must judge: :meth:`PUCTSearch.select` hands it back instead of
evaluating it, and :meth:`PUCTSearch.resolve` takes the priors and values once
a caller has evaluated the leaves of many searches in one forward pass (the
lockstep self-play of :mod:`boardlab.agents.az_selfplay`, or one leaf at a time
for a single game). A finished game is judged by its returns, without the network.

With ``discount`` below 1, a value found k plies below a node counts
``discount**k`` there (the targets of a network trained with the same
discount), so that of two wins the search prefers the nearer one, and of two
losses the farther. Values fade toward ``discount_toward`` (0 by default); with
the loss's value there, only wins fade, and losing later gains nothing.

An unvisited child counts as worth 0 (``fpu="zero"``, the AlphaZero paper's
choice), or as worth the visit-weighted mean of its visited siblings
(``fpu="mean"``, close to the parent's own value, as Leela Zero's first-play
urgency): with 0, a move with a tiny prior is never tried in a position whose
other moves all look won, even when it wins at once.

Values are vectors, one entry per seat, so that more than two players work:
a node's ``mean`` is from the view of the player who moved into it (as in
:mod:`boardlab.agents.mcts`). Chance nodes are sampled: a simulation that
reaches one draws an outcome with its probability and goes on below it, so
the network only ever judges positions where a player is to move. Games with
hidden information are searched by :mod:`boardlab.agents.is_puct` instead,
which never reads the hidden state.

With ``solve`` (two-player zero-sum games without chance), results are proven
as the search finds them (MCTS-Solver, see :mod:`boardlab.core.search`): a
proven node backs up its exact result, discounted by its distance to the end,
instead of being searched further, moves proven lost are not tried again, and
:func:`~boardlab.core.search.proven_choice` can pick the quickest proven win.

Visit counts follow MCTS's contract for the tree viewer: the root's visits are
the number of simulations (its own evaluation, which gives the priors, is not
one) and equal the sum of its children's; any other decision node has one
visit from its evaluation plus its children's; a terminal node collects every
visit; a chance node's visits are its children's. With ``solve``, a node
collects every visit after its result is proven, as a terminal node does. ``visits2`` counts the
simulations whose value made the mover strictly the best-placed seat.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from boardlab.agents.is_puct import InformationSetPUCT
from boardlab.core.errors import BoardlabError
from boardlab.core.game import CHANCE, TERMINAL, State
from boardlab.core.search import (
    ChildStats,
    PUCTSettings,
    SearchSnapshot,
    choose_by_visits,
    settled_result,
    solvable,
    visit_policy,
)


class PUCTSearch:
    """One search tree rooted at ``state`` (a decision node), in parallel lists with one entry per node;
    ``settings`` say how it searches, ``rng`` draws the root noise, chance outcomes and the move."""

    engine = "puct"

    def __init__(self, state: State, settings: PUCTSettings, rng: np.random.Generator) -> None:
        if state.is_terminal() or state.is_chance_node():
            raise BoardlabError("puct: there is no move to choose in this state (terminal or chance node)")
        if settings.solve and solvable(state.game):
            raise BoardlabError(f"puct: cannot prove results: {solvable(state.game)}")
        self.solve = bool(settings.solve)
        self.root = state.clone()
        self.root_history = list(state.history)
        self.c = float(settings.c)
        self.rng = rng
        self.noise = settings.noise  # (dirichlet alpha, weight) mixed into the root's priors, or None
        self.discount = float(settings.discount)  # a value found k plies below a node counts discount**k there
        self.discount_toward = float(settings.discount_toward)
        self.fpu = settings.fpu
        self.players = state.num_players()
        self.parent = [-1]
        self.action = [-1]
        self.mover = [state.current_player()]
        self.prior = [1.0]
        self.visits = [0]
        self.mean = [0.0]
        self.wins = [0]
        self.player = [state.current_player()]
        self.first = [-1]
        self.nch = [0]
        self.created = [0]
        self.label: list[str | None] = [None]
        self.states: list[State | None] = [self.root]
        self.final: dict[int, list[float]] = {}
        self.proof: list[tuple[int, int] | None] = [None]  # (result for the mover, plies to the end) once proven
        self.simulations = 0
        self._pending: tuple[int, list[int]] | None = None

    # --- one simulation ----------------------------------------------------------
    def select(self) -> State | None:
        """Walk down to a leaf. Returns the position the network must judge (then call
        :meth:`resolve`), or None when the simulation ended without one (a finished game)."""
        if self._pending is not None:
            raise BoardlabError("puct: select() again before resolve()")
        if self.first[0] < 0:  # the root's own evaluation gives the priors
            self._pending = (0, [])
            return self.root
        node, path = 0, [0]
        visits, mean, prior, first, nch, player = self.visits, self.mean, self.prior, self.first, self.nch, self.player
        while True:
            f, k = first[node], nch[node]
            if player[node] == CHANCE:
                best = self._sample_outcome(f, k)
            else:
                scale = self.c * math.sqrt(max(visits[node], 1))
                unvisited = self._first_play_value(f, k)
                best, best_score = f, -math.inf
                for ch in range(f, f + k):
                    if self.solve and (proof := self.proof[ch]) is not None and proof[0] == -1:
                        continue  # proven lost for the player choosing: never worth a simulation
                    n = visits[ch]
                    score = (mean[ch] if n else unvisited) + scale * prior[ch] / (1 + n)
                    if score > best_score:
                        best, best_score = ch, score
            path.append(best)
            if visits[best] == 0 and self.states[best] is None:
                state = self._create(best)
                if state.is_terminal():
                    self._backup(path, self.final[best])
                    return None
                if state.is_chance_node():
                    self._expand_chance(best, state)
                    node = best
                    continue
                if self.solve:
                    # the player to move there wins at once, or loses at once whatever they play: proven,
                    # with no need of the network
                    result, plies = (1, 1) if _wins_at_once(state) else (-1, 2) if _loses_at_once(state) else (0, 0)
                    if result:
                        to_move = state.current_player()
                        self.proof[best] = (result if self.mover[best] == to_move else -result, plies)
                        self._backup(path, [result if seat == to_move else -result for seat in range(self.players)], plies)
                        return None
                self._pending = (best, path)
                return state
            if self.solve and (known := self.proof[best]) is not None:  # its result is known: back it up as a finished game's
                result, plies = known
                mover = self.mover[best]
                self._backup(path, [result if seat == mover else -result for seat in range(self.players)], plies)
                return None
            if self.player[best] == TERMINAL:
                self._backup(path, self.final[best])
                return None
            node = best

    def _first_play_value(self, f: int, k: int) -> float:
        """The value an unvisited child is taken to have: 0, or the visit-weighted mean of its
        visited siblings (from the view of the player choosing; 0 while none is visited)."""
        if self.fpu == "zero":
            return 0.0
        seen, total = 0, 0.0
        for ch in range(f, f + k):
            seen += self.visits[ch]
            total += self.mean[ch] * self.visits[ch]
        return total / seen if seen else 0.0

    def resolve(self, priors: np.ndarray, values: np.ndarray) -> None:
        """The network's verdict on the position :meth:`select` returned: expand it, back the values up."""
        if self._pending is None:
            raise BoardlabError("puct: resolve() without a pending leaf")
        node, path = self._pending
        self._pending = None
        self._expand(node, priors, root=not path)
        if path:
            self._backup(path, values)

    # --- tree building -------------------------------------------------------------
    def _create(self, node: int) -> State:
        parent_state = self.states[self.parent[node]]
        assert parent_state is not None  # a node's parent is created before it
        state = parent_state.clone()
        a = self.action[node]
        self.label[node] = parent_state.action_to_string(a)
        state.apply_action(a)
        self.states[node] = state
        self.created[node] = self.simulations + 1
        if state.is_terminal():
            self.player[node] = TERMINAL
            self.final[node] = [float(r) for r in state.returns()]
            if self.solve:
                mine = self.final[node][self.mover[node]]
                self.proof[node] = ((mine > 0) - (mine < 0), 0)
        else:
            self.player[node] = state.current_player()
        return state

    def _add_children(self, node: int, actions: list[int], priors: list[float], mover: int) -> None:
        k = len(actions)
        if k == 0:
            raise BoardlabError(f"{self.root.game.name}: a state in play has no legal action")
        self.first[node] = len(self.parent)
        self.nch[node] = k
        self.parent.extend([node] * k)
        self.action.extend(actions)
        self.mover.extend([mover] * k)
        self.prior.extend(priors)
        columns: tuple[tuple[list[Any], Any], ...] = (
            (self.visits, 0), (self.mean, 0.0), (self.wins, 0), (self.player, -1), (self.first, -1), (self.nch, 0),
            (self.created, -1), (self.label, None), (self.states, None), (self.proof, None))
        for column, value in columns:
            column.extend([value] * k)

    def _expand(self, node: int, priors: np.ndarray, root: bool) -> None:
        state = self.states[node]
        assert state is not None  # the pending leaf's state, created when select() reached it
        actions = list(state.legal_actions())
        p = np.asarray(priors, dtype=np.float64)[actions]
        total = p.sum()
        p = p / total if total > 0 else np.full(len(actions), 1.0 / len(actions))
        if root and self.noise is not None and len(actions) > 1:
            alpha, weight = self.noise
            p = (1 - weight) * p + weight * self.rng.dirichlet(np.full(len(actions), alpha))
        self._add_children(node, actions, p.tolist(), state.current_player())
        if root and self.solve:  # the root's moves that win at once are proven before any simulation
            for ch, action in enumerate(actions, self.first[node]):
                if _wins_at_once(state, [action]):
                    self.proof[ch] = (1, 0)

    def _expand_chance(self, node: int, state: State) -> None:
        outcomes = state.chance_outcomes()
        weight = sum(p for _, p in outcomes)
        # a chance outcome counts from the view of the player who moved into the chance node
        self._add_children(node, [a for a, _ in outcomes], [p / weight for _, p in outcomes], self.mover[node])

    def _sample_outcome(self, f: int, k: int) -> int:
        u = self.rng.random()
        acc = 0.0
        for ch in range(f, f + k):
            acc += self.prior[ch]
            if u < acc:
                return ch
        return f + k - 1

    def _backup(self, path: list[int], values, beyond: int = 0) -> None:
        """Back ``values`` (one per seat, found ``beyond`` plies below the path's end) up the path."""
        values = [float(v) for v in values]
        top, bottom = max(values), min(values)
        visits, mean, wins, mover = self.visits, self.mean, self.wins, self.mover
        last = len(path) - 1
        for depth, nd in enumerate(path):
            r = values[mover[nd]]
            if r == top and r > bottom:
                wins[nd] += 1
            if self.discount != 1.0:
                toward = self.discount_toward
                r = toward + (r - toward) * self.discount ** (last - depth + beyond)
            n = visits[nd] + 1
            visits[nd] = n
            mean[nd] += (r - mean[nd]) / n
        self.simulations += 1
        if self.solve and self.proof[path[-1]] is not None:
            for nd in reversed(path[:-1]):
                if not self._prove(nd):
                    break

    def _prove(self, node: int) -> bool:
        """Prove ``node`` if its children's proofs settle it; returns whether they did."""
        f, k = self.first[node], self.nch[node]
        settled = settled_result(self.proof[f:f + k])
        if settled is None:
            return False
        result, plies = settled
        self.proof[node] = (result if self.mover[node] == self.player[node] else -result, plies)
        return True

    # --- results -----------------------------------------------------------------------
    def has_priors(self) -> bool:
        """Whether the root has been judged (its moves have priors)."""
        return self.first[0] >= 0

    def root_visits(self) -> int:
        return self.visits[0]

    def root_children(self) -> list[ChildStats]:
        f = self.first[0]
        ids = range(f, f + self.nch[0]) if f >= 0 else []
        return [ChildStats(self.action[ch], self.visits[ch], self.wins[ch], self.mean[ch]) for ch in ids]

    def immediate_wins(self) -> list[int]:
        """The root's moves that the search found to end the game at once with the mover first."""
        f = self.first[0]
        out = []
        for ch in range(f, f + self.nch[0]) if f >= 0 else []:
            if self.player[ch] == TERMINAL:
                values = self.final[ch]
                mine = values[self.mover[ch]]
                if mine == max(values) and mine > min(values):
                    out.append(self.action[ch])
        return out

    def root_value(self) -> float:
        """The mean value of the simulations for the player to move at the root (0 before any)."""
        return float(self.mean[0])

    def root_proofs(self) -> dict[int, tuple[int, int]]:
        """The root's proven moves: action -> (result for the player to move, plies to the end after it)."""
        f = self.first[0]
        return {self.action[ch]: proof for ch in range(f, f + self.nch[0])
                if (proof := self.proof[ch]) is not None} if f >= 0 else {}

    def root_priors(self) -> dict[int, float]:
        f = self.first[0]
        return {self.action[ch]: self.prior[ch] for ch in range(f, f + self.nch[0])} if f >= 0 else {}

    def policy(self, actions: int) -> np.ndarray:
        """The root's visit shares over all ``actions`` of the game (the policy head's training target)."""
        return visit_policy(self.root_children(), actions)

    def choose(self, temperature: float) -> int:
        """The move to play: see :func:`boardlab.core.search.choose_by_visits`."""
        return choose_by_visits(self.root_children(), self.root_priors(), self.simulations, temperature, self.rng,
                                self.root_proofs() if self.solve else None)

    def snapshot(self) -> SearchSnapshot:
        return SearchSnapshot(
            root=self.root.clone(),
            parent=np.asarray(self.parent, dtype=np.int64),
            actions=np.asarray(self.action, dtype=np.int64),
            visits=np.asarray(self.visits, dtype=np.int64),
            wins=np.asarray(self.wins, dtype=np.int64),
            mean=np.asarray(self.mean, dtype=np.float64),
            player=np.asarray(self.player, dtype=np.int8),
            created=np.asarray(self.created, dtype=np.int64),
            moves=list(self.label),
            root_notation=self.root.notation(),
            engine=self.engine,
            extra={"priors": np.asarray(self.prior, dtype=np.float64)},
        )


def new_search(state: State, settings: PUCTSettings, rng: np.random.Generator) -> PUCTSearch | InformationSetPUCT:
    """The generic search for ``state``'s game: over resampled worlds where something is hidden, else the tree."""
    if state.game.has_hidden_information:
        return InformationSetPUCT(state, settings, rng)
    return PUCTSearch(state, settings, rng)


def _wins_at_once(state: State, actions: list[int] | None = None) -> bool:
    """Whether the player to move in ``state`` has a move (among ``actions``, by default the
    legal ones) that ends the game with them strictly first."""
    me = state.current_player()
    for action in state.legal_actions() if actions is None else actions:
        child = state.clone()
        child.apply_action(action)
        if child.is_terminal():
            values = child.returns()
            if values[me] == max(values) and values[me] > min(values):
                return True
    return False


def _loses_at_once(state: State) -> bool:
    """Whether every move of the player to move in ``state`` (who has none that wins at once)
    lets the next player win at once, the next player being the other of two."""
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.is_terminal() or child.current_player() == state.current_player() or not _wins_at_once(child):
            return False
    return True


def run_simulations(searches: list[Any], simulations: int, evaluate: Any, stop=None,
                    deadline: float | None = None) -> None:
    """Bring every search (a :class:`PUCTSearch` or an :class:`~boardlab.agents.is_puct.InformationSetPUCT`)
    to ``simulations`` simulations, judging all their pending leaves
    together: one ``evaluate(states) -> (priors, values)`` call per round. ``stop`` (an event)
    or ``time.perf_counter()`` passing ``deadline`` ends the rounds early, once every root has its priors."""
    active = list(searches)
    while active:
        pending, leaves = [], []
        for search in active:
            state = search.select()
            if state is not None:
                pending.append(search)
                leaves.append(state)
        if leaves:
            priors, values = evaluate(leaves)
            for i, search in enumerate(pending):
                search.resolve(priors[i], values[i])
        active = [s for s in active if not s.has_priors() or s.simulations < simulations]
        if (stop is not None and stop.is_set()) or (deadline is not None and time.perf_counter() >= deadline):
            if all(s.has_priors() for s in searches):
                break
