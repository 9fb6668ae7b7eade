"""Monte Carlo tree search (UCT) for every game of the State API.

``mcts:iterations=2000,c=1.41`` or ``mcts:time=0.5``. Each iteration walks
down the tree by UCB1 (``w/n + c*sqrt(ln N / n)``), adds one node, plays the
game out (or asks a leaf evaluator) and adds the payoffs along the path.

Statistics, as exported in :class:`~boardlab.trees.model.Tree`:

* payoffs are per player (2 to 8 players); a node's ``mean_payout`` is from the
  view of the player who made the move into it, and UCB at a node compares its
  children from the view of the player to move there. Chance outcomes count
  from the view of the player who moved into the chance node. The root of a
  fresh search counts from the view of its player to move; a root kept by tree
  reuse keeps the view of the player whose move led to it;
* ``visits2`` counts *wins* of that player: playouts where its payoff is the
  maximum of all players' payoffs and strictly above the minimum (an all-equal
  draw is nobody's win; players sharing the top payoff all win);
* ``visits``: every iteration through a node counts once. A new node gets one
  visit from the playout that created it, so an internal node's visits equal
  its children's visits plus one, except the root of a fresh search, whose
  visits equal its children's (it has no creating playout) and equal the
  number of iterations; a terminal node collects every visit itself;
* ``created``: the iteration (1-based, per search) that added the node; 0 for
  the root and for nodes kept from the previous move's tree;
* ``player``: the player to move at the node, CHANCE at a chance node,
  TERMINAL once the game is over (the codes of :mod:`boardlab.core.game`);
* ``state``: the node's position in the game's own notation
  (``state.notation()``: a move string for Connect Four, FEN for chess...);
  the root's label starts with the game spec in brackets,
  ``"[mancala] 4,4,4,4,4,4/0/4,4,4,4,4,4/0 S"``, so that a saved tree knows
  its game (:mod:`boardlab.trees.gamelabels`). In a determinised search a
  node's label is the public notation of the state it was first reached in.

Chance nodes are sampled: each visit draws an outcome with its probability.
Games with hidden information are determinised: every iteration searches a
state drawn by ``state.resample(player, rng)`` (a tree over action sequences;
at each node only the actions legal in that iteration's state compete).
Leaves are judged by the game's default evaluator (``game.default_evaluator()``,
chess's material count) unless ``eval=`` names another or ``eval=none``;
without an evaluator, playouts use the game's compiled kernel when it provides
``compiled_playouts`` (``game.playout_kernel()``), else uniformly random Python
moves. When the game provides a whole compiled search (``compiled_uct``, found
by :func:`boardlab.core.engines.uct_engine`: Connect Four's) and no evaluator is
used, that engine runs instead of the generic one.
"""

from __future__ import annotations

import gc
import math
import random
import threading
import time
from collections.abc import Sequence
from itertools import compress
from typing import Any

import numpy as np

from boardlab.agents.base import Agent
from boardlab.agents.evaluators import check_evaluator_name, evaluator_for
from boardlab.agents.search_tree import SearchTreeHandle
from boardlab.core.engines import uct_engine
from boardlab.core.errors import BoardlabError, SpecError
from boardlab.core.game import CHANCE, TERMINAL, State
from boardlab.core.params import Option, non_negative, one_of, positive
from boardlab.core.rng import kernel_rng
from boardlab.core.search import ChildStats, SearchEngine, SearchSnapshot, subtree_mask
from boardlab.trees.model import Tree

#: iterations per move when neither ``iterations`` nor ``time`` is given
DEFAULT_ITERATIONS = 1000


class GenericSearch:
    """One UCT tree over the State API, kept in parallel Python lists (one entry per node).

    Perfect-information games allocate all children of a node together when it
    is expanded (in a random order, so untried moves are tried in random
    order); determinised search adds children as actions turn up.
    """

    engine = "generic"

    def __init__(
        self,
        state: State,
        seed: int,
        c: float,
        root_player: int,
        evaluator=None,
        eval_plies: int = 0,
        hidden: bool = False,
    ) -> None:
        self.game = state.game
        self.root = state.clone()
        self.root_history = list(state.history)
        self.root_player = root_player
        self.c = float(c)
        self.py = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.evaluator = evaluator
        self.eval_plies = eval_plies
        self.hidden = hidden
        self.kernel = self.game.playout_kernel() if evaluator is None and "compiled_playouts" in self.game.provides else None
        self.krng = kernel_rng(seed)
        terminal = state.is_terminal()
        # one entry per node in each column
        self.parent = [-1]
        self.action = [-1]
        self.mover = [max(state.current_player(), 0)]
        self.visits = [0]
        self.mean = [0.0]  # mean payout (the sum is mean * visits)
        self.explore = [0.0]  # 1 / sqrt(visits), likewise
        self.wins = [0]
        self.created = [0]
        self.player = [state.current_player()]
        self.first = [-1]  # first child (children of a node are contiguous), -1 before expansion
        self.nch = [0]
        self.tried = [0]  # children tried so far: they are first..first+tried-1
        self.prob = [0.0]  # probability of a chance outcome
        self.label: list[str | None] = [None]
        #: notation of each node's state, noted at its first visit (determinised search only)
        self.notation: list[str | None] = [state.notation() if hidden else None]
        self.term = [terminal]
        #: state of each expanded node (perfect information), so that a descent applies no moves
        self.states: list[State | None] = [self.root]
        #: returns of terminal nodes
        self.final: dict[int, Any] = {0: state.returns()} if terminal else {}
        self.kids: list[dict[int, int] | None] = [None]  # determinised search only
        self.iterations = 0
        self.inv_sqrt = [0.0] + [1.0 / math.sqrt(n) for n in range(1, 1024)]

    COLUMNS = ("parent", "action", "mover", "visits", "mean", "explore", "wins", "created", "player",
               "first", "nch", "tried", "prob", "label", "notation", "term", "states", "kids")

    # --- the search ------------------------------------------------------------
    def run(self, iterations: int | None, deadline: float | None, stop: threading.Event | None = None,
            max_nodes: int | None = None) -> int:
        iterate = self._iterate_hidden if self.hidden else self._iterate
        done = 0
        clock = time.perf_counter
        inv_sqrt = self.inv_sqrt
        parent = self.parent
        while iterations is None or done < iterations:
            # (one iteration always runs, so that there is a move to choose)
            if done > 0 and (
                (deadline is not None and clock() >= deadline)
                or (max_nodes is not None and len(parent) >= max_nodes)
                or (stop is not None and done % 64 == 0 and stop.is_set())
            ):
                break
            if self.visits[0] + 2 >= len(inv_sqrt):
                inv_sqrt.extend(1.0 / math.sqrt(n) for n in range(len(inv_sqrt), 2 * len(inv_sqrt)))
            self.iterations += 1
            iterate(self.iterations)
            done += 1
        return done

    def _state_of(self, node: int) -> State:
        """The state of a node about to be expanded: its parent's (always kept) plus one move."""
        state = self.states[node]
        if state is None:
            parent_state = self.states[self.parent[node]]
            assert parent_state is not None  # a parent's state is always kept
            state = parent_state.clone()
            state.apply_action(self.action[node])
            self.states[node] = state
        return state

    def _expand(self, node: int) -> None:
        state = self._state_of(node)
        mover = self.mover[node]
        if self.player[node] == CHANCE:
            outcomes = state.chance_outcomes()
            actions = [a for a, _ in outcomes]
            weight = sum(p for _, p in outcomes)
            probs = [p / weight for _, p in outcomes]
        else:
            actions = list(state.legal_actions())
            self.py.shuffle(actions)
            probs = [0.0] * len(actions)
            mover = self.player[node]
        k = len(actions)
        if k == 0:
            raise BoardlabError(f"{self.game.name}: a state in play has no legal action")
        f = len(self.parent)
        self.parent.extend([node] * k)
        self.action.extend(actions)
        self.mover.extend([mover] * k)
        self.prob.extend(probs)
        for name, value in (("visits", 0), ("mean", 0.0), ("explore", 0.0), ("wins", 0),
                            ("created", -1), ("player", -1), ("first", -1), ("nch", 0), ("tried", 0),
                            ("label", None), ("notation", None), ("term", False), ("states", None), ("kids", None)):
            getattr(self, name).extend([value] * k)
        self.first[node] = f
        self.nch[node] = k

    def _iterate(self, iteration: int) -> None:
        visits, first, nch, tried, term, player = self.visits, self.first, self.nch, self.tried, self.term, self.player
        mean, explore, c = self.mean, self.explore, self.c
        sqrt, log = math.sqrt, math.log
        node = 0
        path = [0]
        while True:
            if term[node]:
                ret = self.final[node]
                break
            f = first[node]
            if f < 0:
                self._expand(node)
                f = first[node]
            k = nch[node]
            if player[node] == CHANCE:
                u = self.py.random()
                best = f
                prob = self.prob
                acc = prob[f]
                last = f + k - 1
                while acc < u and best < last:
                    best += 1
                    acc += prob[best]
            else:
                t = tried[node]
                if t < k:  # an untried move first (their order was shuffled at expansion)
                    best = f + t
                    tried[node] = t + 1
                else:
                    scale = c * sqrt(log(visits[node]))
                    end = f + k
                    values = [m + scale * e for m, e in zip(mean[f:end], explore[f:end])]
                    best = f + values.index(max(values))
            path.append(best)
            if visits[best] == 0:
                node_state = self.states[node]
                assert node_state is not None  # kept since the node was expanded
                ret = self._first_visit(best, node_state.clone(), iteration)
                break
            node = best
        self._backpropagate(path, ret)

    def _first_visit(self, node: int, state: State, iteration: int):
        """Play the move into a new node on ``state`` (its parent's), note what the node is, evaluate it."""
        a = self.action[node]
        self.label[node] = state.action_to_string(a)
        state.apply_action(a)
        self.created[node] = iteration
        if self.hidden:
            self.notation[node] = state.notation()
        if state.is_terminal():
            self.term[node] = True
            self.player[node] = TERMINAL
            ret = self.final[node] = state.returns()
            return ret
        self.player[node] = state.current_player()
        return self._simulate(state)

    def _iterate_hidden(self, iteration: int) -> None:
        visits, mean, kids = self.visits, self.mean, self.kids
        state = self.root.resample(self.root_player, self.np_rng)
        node = 0
        path = [0]
        while True:
            if state.is_terminal():
                ret = state.returns()
                break
            children = kids[node]
            if children is None:
                children = kids[node] = {}
            player = state.current_player()
            if player == CHANCE:
                a = self._chance_action(state)
                best = children.get(a)
                if best is None:
                    best = children[a] = self._add_child(node, a, self.mover[node])
            else:
                untried = []
                best, best_value = -1, -math.inf
                nv = visits[node]
                scale = self.c * math.sqrt(math.log(nv)) if nv > 0 else 0.0
                for a in state.legal_actions():
                    ch = children.get(a)
                    if ch is None:
                        untried.append(a)
                    elif not untried:
                        value = mean[ch] + scale / math.sqrt(visits[ch])
                        if value > best_value:
                            best_value, best = value, ch
                if untried:
                    a = untried[self.py.randrange(len(untried))]
                    best = children[a] = self._add_child(node, a, player)
            path.append(best)
            if visits[best] == 0:
                ret = self._first_visit(best, state, iteration)
                break
            state.apply_action(self.action[best])
            node = best
        self._backpropagate(path, ret)

    def _add_child(self, node: int, a: int, mover: int) -> int:
        index = len(self.parent)
        defaults = {"parent": node, "action": a, "mover": mover, "visits": 0, "mean": 0.0,
                    "explore": 0.0, "wins": 0, "created": -1, "player": -1, "first": -1, "nch": 0, "tried": 0,
                    "prob": 0.0, "label": None, "notation": None, "term": False, "states": None, "kids": None}
        for name in self.COLUMNS:
            getattr(self, name).append(defaults[name])
        return index

    def _backpropagate(self, path: list[int], ret) -> None:
        visits, mean, explore, wins, mover = self.visits, self.mean, self.explore, self.wins, self.mover
        inv_sqrt = self.inv_sqrt
        top, bottom = max(ret), min(ret)
        for nd in path:
            r = ret[mover[nd]]
            n = visits[nd] + 1
            visits[nd] = n
            mean[nd] += (r - mean[nd]) / n
            explore[nd] = inv_sqrt[n]
            if r == top and r > bottom:
                wins[nd] += 1

    def _chance_action(self, state: State) -> int:
        outcomes = state.chance_outcomes()
        u = self.py.random() * sum(p for _, p in outcomes)
        acc = 0.0
        for a, p in outcomes:
            acc += p
            if u < acc:
                return a
        return outcomes[-1][0]

    def _simulate(self, state: State):
        if self.evaluator is not None:
            for _ in range(self.eval_plies):
                if state.is_terminal():
                    break
                self._random_move(state)
            return state.returns() if state.is_terminal() else self.evaluator(state)
        if self.kernel is not None:
            return self.kernel.playout_returns(state, self.krng)
        while not state.is_terminal():
            self._random_move(state)
        return state.returns()

    def _random_move(self, state: State) -> None:
        if state.is_chance_node():
            state.apply_action(self._chance_action(state))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(self.py.random() * len(legal))])

    # --- results, reuse, export --------------------------------------------------
    def root_visits(self) -> int:
        return self.visits[0]

    def root_children(self) -> list[ChildStats]:
        ids: Sequence[int]
        if self.hidden:
            ids = sorted((self.kids[0] or {}).values())
        else:
            f = self.first[0]
            ids = range(f, f + self.nch[0]) if f >= 0 else []
        return [ChildStats(self.action[ch], self.visits[ch], self.wins[ch], self.mean[ch]) for ch in ids]

    def reroot(self, actions: list[int], state: State) -> bool:
        """Keep the subtree reached by ``actions`` from the root; False when it was never visited."""
        if self.hidden:
            return False
        node = 0
        for act in actions:
            f, k = self.first[node], self.nch[node]
            match = [ch for ch in range(f, f + k) if self.action[ch] == act] if f >= 0 else []
            if not match or self.visits[match[0]] == 0:
                return False
            node = match[0]
        keep = subtree_mask(np.asarray(self.parent, dtype=np.int64), node)
        new_id = np.cumsum(keep) - 1
        keep_list = keep.tolist()
        for name in self.COLUMNS:
            setattr(self, name, list(compress(getattr(self, name), keep_list)))
        self.final = {int(new_id[k]): v for k, v in self.final.items() if keep_list[k]}
        self.parent = [int(new_id[p]) if p >= 0 else -1 for p in self.parent]
        self.parent[0] = -1
        self.first = [int(new_id[f]) if f >= 0 else -1 for f in self.first]
        self.created = [0] * len(self.created)
        self.root = self.states[0] = state.clone()
        self.root_history = list(state.history)
        self.iterations = 0
        return True

    def snapshot(self) -> SearchSnapshot:
        root_notation = self.notation[0] if self.hidden else self.root.notation()
        assert root_notation is not None  # a determinised search notes its root's notation when it starts
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
            states=list(self.notation) if self.hidden else None,
            root_notation=root_notation,
            engine=self.engine,
        )


class MCTSAgent(Agent):
    name = "mcts"
    searches = True
    summary = "UCT Monte Carlo tree search (the game's evaluator, compiled or random playouts)"
    options = {
        "iterations": Option("iterations", int, None, f"iterations per move (default {DEFAULT_ITERATIONS}, unlimited when time is given)", positive),
        "time": Option("time", float, None, "seconds per move; with iterations, whichever ends first", positive),
        "c": Option("c", float, math.sqrt(2), "UCB exploration constant", non_negative),
        "final": Option("final", str, "visits", "move chosen: most-visited child (visits) or best mean payout (mean)", one_of("visits", "mean")),
        "seed": Option("seed", int, None, "seed of the search (default: from the game seed)", non_negative),
        "reuse": Option(
            "reuse",
            bool,
            False,
            "keep the subtree of the moves actually played for the next search (perfect-information games; determinised searches start afresh)",
        ),
        "keep_trees": Option("keep_trees", int, 8, "number of last moves' trees kept in agent.trees", non_negative),
        "eval": Option(
            "eval",
            str,
            None,
            "leaf evaluator: default the game's own (chess: chess_material), none for random playouts, or a name from 'boardlab agents'",
        ),
        "eval_plies": Option("eval_plies", int, 0, "random plies played before the evaluator is asked", non_negative),
        "engine": Option(
            "engine",
            str,
            "auto",
            "auto (the game's compiled search when it offers one and no evaluator is used), compiled or generic",
            one_of("auto", "compiled", "generic"),
        ),
        "max_nodes": Option("max_nodes", int, None, "stop a search once its tree holds this many nodes (default: no limit)", positive),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if self.config["eval"] not in (None, "none"):
            check_evaluator_name(self.config["eval"])
        self._search: SearchEngine | None = None
        self._search_key: Any = None
        self._trees: list[Any] = []

    def reset(self, game, player: int, seed: int | None = None) -> None:
        super().reset(game, player, seed)
        self._search = None
        self._trees = []
        self._evaluator = evaluator_for(game, self.config["eval"])  # refuses another game's evaluator now
        self._warm_up(game)

    def _warm_up(self, game) -> None:
        """Load the compiled code this game's searches will use now, not in the first move's time."""
        if self._evaluator is not None:
            return
        state = game.new_initial_state(0)
        if state.is_terminal() or state.is_chance_node():
            return
        factory = uct_engine(game) if self.config["engine"] != "generic" else None
        if factory is not None:
            factory(state, 0, 1.0).run(1, None)
            return
        if "compiled_playouts" in game.provides:
            game.playout_kernel().playout_returns(state, kernel_rng(0))

    def play_budget(self) -> dict[str, Any]:
        """The options, with the ``DEFAULT_ITERATIONS`` a search runs when neither ``iterations`` nor ``time`` is given
        (with a time alone the iterations are unlimited and stay None)."""
        unset = self.config["iterations"] is None and self.config["time"] is None
        return {**self.config, "iterations": DEFAULT_ITERATIONS if unset else self.config["iterations"]}

    # --- choosing a move ---------------------------------------------------------
    def step(self, state: State) -> int:
        start = time.perf_counter()
        player = state.current_player()
        if state.is_terminal() or player < 0:
            raise BoardlabError("mcts: there is no move to choose in this state (terminal or chance node)")
        if self.game is None or state.game != self.game:
            self.reset(state.game, player)
        budget = self.config["time"]
        iterations = self.play_budget()["iterations"]
        deadline = None if budget is None else start + budget
        search = self._reused(state) or self._new_search(state, player)
        search_start = time.perf_counter()
        # the search's lists hold no reference cycles; a full collection over a big tree
        # would only stall the clock (seen: a 0.4 s budget overrun by a second)
        collecting = gc.isenabled()
        gc.disable()
        try:
            done = search.run(iterations, deadline, self.stop, self.config["max_nodes"])
        finally:
            if collecting:
                gc.enable()
        end = time.perf_counter()
        seconds = end - search_start
        children = search.root_children()
        visited = [ch for ch in children if ch.visits > 0]
        if not visited:
            raise BoardlabError("mcts: the search ended before trying any move (time budget too small?)")
        if self.config["final"] == "mean":
            key = lambda ch: (ch.mean, ch.visits)  # noqa: E731
        else:
            key = lambda ch: (ch.visits, ch.mean)  # noqa: E731
        action = max(visited, key=key).action
        self.last_search = {
            "engine": search.engine,
            "simulations": done,
            "seconds": seconds,
            "simulations_per_second": done / seconds if seconds > 0 else None,
            "root_visits": search.root_visits(),
            "stopped": self.stop.is_set(),
            "children": [
                {"action": ch.action, "move": state.action_to_string(ch.action), "visits": ch.visits,
                 "wins": ch.wins, "mean": ch.mean}
                for ch in sorted(visited, key=lambda ch: -ch.visits)
            ],
            "action": action,
            "move": state.action_to_string(action),
        }
        if self.config["keep_trees"] > 0:
            meta = {
                "game": state.game.spec(),
                "agent": self.spec,
                "move_number": state.move_number(),
                "player": player,
                "engine": search.engine,
                "iterations": done,
                "seconds": seconds,
                "chosen": state.action_to_string(action),
            }
            self._trees.append(SearchTreeHandle(search.snapshot(), meta))
            del self._trees[: -self.config["keep_trees"]]
        self._search = search if self.config["reuse"] else None
        self._search_key = (state.game, state.seed, state.start_position())
        # the whole step, setup (tree reuse, first use of compiled code) and bookkeeping included
        self.last_search["step_seconds"] = time.perf_counter() - start
        return action

    def _new_search(self, state: State, player: int) -> SearchEngine:
        game = state.game
        engine = self.config["engine"]
        seed = int(self.rng.integers(1 << 62))
        factory = uct_engine(game) if self._evaluator is None and engine != "generic" else None
        if factory is not None:
            return factory(state, seed, self.config["c"])
        if engine == "compiled":
            why = "uses a leaf evaluator (add eval=none)" if self._evaluator is not None else "offers no compiled search"
            raise SpecError(f"agent 'mcts': engine=compiled is not possible here: {game.name} {why}")
        return GenericSearch(
            state, seed, self.config["c"], player, self._evaluator, self.config["eval_plies"],
            hidden=game.has_hidden_information,
        )

    def _reused(self, state: State) -> SearchEngine | None:
        search = self._search
        if search is None or self._search_key != (state.game, state.seed, state.start_position()):
            return None
        old, new = search.root_history, list(state.history)
        if len(new) <= len(old) or new[: len(old)] != old:
            return None
        return search if search.reroot(new[len(old):], state) else None

    # --- trees -----------------------------------------------------------------
    @property
    def trees(self) -> list[Tree]:
        """The trees of the last ``keep_trees`` moves, oldest first (exported on first access)."""
        return [handle.tree() for handle in self._trees]

    def last_tree(self) -> SearchTreeHandle | None:
        return self._trees[-1] if self._trees else None
