"""What a tree-search engine offers, so that a game can ship a compiled one.

:class:`~boardlab.agents.mcts.MCTSAgent` runs either its generic engine over
the State API or one that the game registers (a game that provides
``compiled_uct`` registers a factory ``(state, seed, c) -> SearchEngine`` as the
``boardlab.engines`` entry ``GAME.uct``, e.g. Connect Four's numba UCT; see
:mod:`boardlab.core.engines`). Both follow :class:`SearchEngine` and hand back
the same shapes: :class:`ChildStats` for the root's moves and a
:class:`SearchSnapshot` of every node for the tree viewer and the tree files.

Likewise the ``az`` agent and self-play run :class:`~boardlab.agents.puct.PUCTSearch`
or a game's compiled PUCT (``compiled_puct``: the entry ``GAME.puct``, a factory
``(state, network, settings, rng) -> PUCTEngine`` taking a :class:`DenseNetwork`
and the :class:`PUCTSettings`), which must search exactly as the generic one does.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Protocol, Sequence, overload

import numpy as np
from numba import njit

from boardlab.core.errors import BoardlabError

if TYPE_CHECKING:
    import threading

    from boardlab.core.game import Game, State


@dataclass(frozen=True)
class ChildStats:
    """One move of the search root: how often it was tried and what it brought.

    ``wins`` counts playouts won by the player who made the move; ``mean`` is
    the mean payout from that player's view.
    """

    action: int
    visits: int
    wins: int
    mean: float


@dataclass
class SearchSnapshot:
    """Every node of a search tree, indexed by the engine's node id (``parent[i] < i``; node 0 is the root).

    ``player`` uses the game's codes (a seat, CHANCE, TERMINAL); ``created`` is
    the iteration that added a node (0: there before this search). Labels:

    * ``moves``: the label of the move into each node (``action_to_string`` where
      it was played); None means ``move_table[actions[i]]``;
    * ``states``: each node's position in the game's notation when the engine
      noted it; None means the exporter derives them, by joining move labels
      to ``root_notation`` with ``path_separator`` when that is set (a notation
      that is a move list, as Connect Four's), else by replaying ``actions``
      from ``root``.
    """

    root: "State"
    parent: np.ndarray
    actions: np.ndarray
    visits: np.ndarray
    wins: np.ndarray
    mean: np.ndarray
    player: np.ndarray
    created: np.ndarray
    moves: Sequence[str | None] | None = None
    move_table: Sequence[str] = ()
    states: Sequence[str | None] | None = None
    path_separator: str | None = None
    root_notation: str = ""
    engine: str = ""
    extra: dict = field(default_factory=dict)


class SearchEngine(Protocol):
    """One growing UCT tree rooted at a state."""

    #: a short name shown to users ("generic", "compiled")
    engine: str
    #: the actions from the game's start (or set-up position) to the root
    root_history: list[int]

    def run(self, iterations: int | None, deadline: float | None, stop: "threading.Event | None" = None,
            max_nodes: int | None = None) -> int:
        """Iterate until ``iterations`` more are done, ``time.perf_counter()`` passes ``deadline``,
        ``stop`` is set or the tree holds ``max_nodes`` nodes (at least one iteration runs);
        return how many ran."""

    def root_visits(self) -> int: ...

    def root_children(self) -> list[ChildStats]: ...

    def reroot(self, actions: list[int], state: "State") -> bool:
        """Keep the subtree reached from the root by ``actions`` (now at ``state``);
        False when that subtree was never visited (the caller starts afresh)."""

    def snapshot(self) -> SearchSnapshot:
        """A copy of the tree as it is now (cheap: labels are derived only on export)."""


class PUCTEngine(Protocol):
    """One PUCT tree rooted at a state, searched whole in compiled code: what the ``az`` agent and
    self-play call on a game's compiled PUCT. It searches as :class:`boardlab.agents.puct.PUCTSearch`
    does (the same selection, backup, visit contract, first-play value, proofs, and draws from the
    caller's generator: the root noise, then the move), so both give the same trees; where chance
    is drawn, an engine may draw it from its own stream and group outcomes (Dice Wars' whole
    reinforcements), and then the trees are the same in law, not node for node."""

    #: a short name shown to users ("compiled-puct")
    engine: str
    #: the settings' discount (the agent reports it)
    discount: float
    #: simulations run so far
    simulations: int

    def run(self, simulations: int | None, deadline: float | None = None, stop: "threading.Event | None" = None) -> int:
        """Simulate until ``simulations`` more are done, ``time.perf_counter()`` passes ``deadline`` or ``stop``
        is set (the root is always evaluated); return how many ran."""

    def root_visits(self) -> int: ...

    def root_children(self) -> list[ChildStats]: ...

    def root_priors(self) -> dict[int, float]: ...

    def root_proofs(self) -> dict[int, tuple[int, int]]:
        """The root's proven moves: action -> (result for the player to move, plies to the end after it)."""

    def root_value(self) -> float:
        """The mean value of the simulations for the player to move at the root (0 before any)."""

    def immediate_wins(self) -> list[int]:
        """The root's moves that end the game at once with the mover first."""

    def policy(self, actions: int) -> np.ndarray:
        """The root's visit shares over all ``actions`` of the game (:func:`visit_policy`)."""

    def choose(self, temperature: float) -> int:
        """The move to play (:func:`choose_by_visits`)."""

    def snapshot(self) -> SearchSnapshot: ...


def run_in_chunks(simulate: "Callable[[int], int]", simulations: int | None, deadline: float | None = None,
                  stop: "threading.Event | None" = None) -> int:
    """A compiled engine's ``run``: call ``simulate(k)`` (run up to k simulations in compiled code, return how
    many ran) in chunks until ``simulations`` are done, ``time.perf_counter()`` passes ``deadline`` or ``stop``
    is set. Chunks double while there is no deadline; with one, each takes about a tenth of the time left,
    so the clock is read often enough without leaving compiled code for every simulation."""
    done = 0
    chunk = 16
    while simulations is None or done < simulations:
        if (stop is not None and stop.is_set()) or (deadline is not None and time.perf_counter() >= deadline):
            break
        want = chunk if simulations is None else min(chunk, simulations - done)
        start = time.perf_counter()
        n = simulate(want)
        done += n
        if n == 0:  # the engine could not go on (it never should: it makes room first)
            break
        now = time.perf_counter()
        if deadline is not None:
            left = deadline - now
            if left <= 0:
                break
            rate = n / max(now - start, 1e-9)
            chunk = int(max(1, min(1 << 12, rate * left / 10)))
        else:
            chunk = min(chunk * 2, 1 << 12)
    return done


def grow_rows(arr: np.ndarray, need: int) -> np.ndarray:
    """``arr`` with at least ``need`` rows, by doubling (the used part kept, the rest zero); ``arr``
    itself when it has them already."""
    size = len(arr)
    while size < need:
        size *= 2
    if size == len(arr):
        return arr
    grown = np.zeros((size, *arr.shape[1:]), dtype=arr.dtype)
    grown[: len(arr)] = arr
    return grown


def grow_columns(columns: dict[str, np.ndarray], need: int) -> None:
    """Grow every array of a compiled engine's columnar tree to at least ``need`` entries, by
    doubling (the same length for all, the used part kept, the rest zero)."""
    for name, arr in columns.items():
        columns[name] = grow_rows(arr, need)


@njit(cache=True)
def subtree_mask(parent: np.ndarray, root: int) -> np.ndarray:
    """Nodes of the subtree under ``root`` in a flat tree where ``parent[i] < i`` (for re-rooting)."""
    n = parent.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    keep[root] = True
    for i in range(root + 1, n):
        p = parent[i]
        if p >= 0 and keep[p]:
            keep[i] = True
    return keep


# --- PUCT (AlphaZero) search: what a game's compiled engine shares with the generic one -----------
@njit(cache=True)
def dense_verdict(w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value, x, legal, count, priors, values,
                  mover):
    """A :class:`DenseNetwork`'s verdict in compiled code, as torch gives it: from the observation ``x`` of
    the player ``mover``, the softmax of the logits of ``legal[:count]`` into ``priors`` (in float32, as
    torch's masked one, then float64) and each seat's value into ``values`` (seat order; one row per seat
    of the network, relative to the mover)."""
    zero = np.float32(0.0)
    h = np.maximum(np.dot(w_in, x) + b_in, zero)
    for layer in range(w_hidden.shape[0]):
        h = np.maximum(np.dot(w_hidden[layer], h) + b_hidden[layer], zero)
    logits = np.empty(count, dtype=np.float32)
    top = -np.inf
    for i in range(count):
        logit = np.dot(w_policy[legal[i]], h) + b_policy[legal[i]]
        logits[i] = logit
        if logit > top:
            top = logit
    total = np.float32(0.0)
    for i in range(count):
        e = np.float32(math.exp(logits[i] - top))
        logits[i] = e
        total += e
    for i in range(count):
        priors[i] = np.float64(logits[i] / total)
    v = np.dot(w_value, h) + b_value
    players = values.shape[0]
    for j in range(v.shape[0]):
        values[(mover + j) % players] = np.float64(np.float32(math.tanh(v[j])))


def value_outputs(game: "Game") -> int:
    """How many values a policy-value network gives: 1 for a two-player zero-sum game (the value of
    the player to move; the other's is its negation), else one per player."""
    players = game.num_players()
    return 1 if players == 2 and game.game_type.utility == "zero_sum" else players


@dataclass(frozen=True)
class DenseNetwork:
    """A policy-value MLP as plain float32 arrays, for a game's compiled PUCT engine (no torch inside).

    ``h = relu(w_in @ x + b_in)``, then ``h = relu(w_hidden[i] @ h + b_hidden[i])`` for each
    hidden layer after the first, ``logits = w_policy @ h + b_policy`` and
    ``values = tanh(w_value @ h + b_value)``: :func:`value_outputs` rows, the value of the player to
    move in a two-player zero-sum game, else one per seat, row ``i`` for seat ``(to_move + i) % players``.
    ``x`` is the flattened observation tensor of the player to move.
    """

    w_in: np.ndarray  # (hidden, inputs)
    b_in: np.ndarray  # (hidden,)
    w_hidden: np.ndarray  # (layers - 1, hidden, hidden)
    b_hidden: np.ndarray  # (layers - 1, hidden)
    w_policy: np.ndarray  # (actions, hidden)
    b_policy: np.ndarray  # (actions,)
    w_value: np.ndarray  # (values, hidden)
    b_value: np.ndarray  # (values,)

    def __post_init__(self) -> None:
        # once here, not for every search: compiled kernels take C-contiguous float32
        for name in ("w_in", "b_in", "w_hidden", "b_hidden", "w_policy", "b_policy", "w_value", "b_value"):
            object.__setattr__(self, name, np.ascontiguousarray(getattr(self, name), dtype=np.float32))

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order compiled kernels take them."""
        return (self.w_in, self.b_in, self.w_hidden, self.b_hidden, self.w_policy, self.b_policy, self.w_value, self.b_value)


#: what a PUCT search takes an unvisited child's Q to be: 0 (the AlphaZero paper), or the
#: visit-weighted mean of its visited siblings ("mean"), so that in a won position the other
#: moves still get tried
FIRST_PLAY_VALUES = ("zero", "mean")


def check_first_play_value(fpu: str) -> str:
    """``fpu`` if it is one of :data:`FIRST_PLAY_VALUES`, else a clear error."""
    if fpu not in FIRST_PLAY_VALUES:
        raise BoardlabError(f"puct: fpu must be one of {', '.join(FIRST_PLAY_VALUES)}, not {fpu!r}")
    return fpu


@dataclass(frozen=True)
class PUCTSettings:
    """How a PUCT search runs, generic or compiled: ``Q + c * P * sqrt(N) / (1 + n)`` at each decision.

    ``noise`` is ``(Dirichlet alpha, weight)`` mixed into the root's priors (self-play), or None;
    a value found k plies below a node counts ``discount**k`` there, fading toward ``discount_toward``
    (``toward + (value - toward) * discount**k``: with 0 far wins and far losses both count less, with the
    loss's value only wins fade, so that no seat gains by losing later); ``fpu`` is what an unvisited
    child is worth (:data:`FIRST_PLAY_VALUES`); ``solve`` proves results as the search reaches them
    (two-player zero-sum games without chance or hidden information: :func:`solvable`).
    """

    c: float = 1.5
    noise: tuple[float, float] | None = None
    discount: float = 1.0
    fpu: str = "zero"
    solve: bool = False
    discount_toward: float = 0.0

    def __post_init__(self) -> None:
        check_first_play_value(self.fpu)


def visit_policy(children: list[ChildStats], actions: int) -> np.ndarray:
    """The root's visit shares over all ``actions`` of the game (the policy head's training target)."""
    out = np.zeros(actions, dtype=np.float32)
    for ch in children:
        out[ch.action] = ch.visits
    total = out.sum()
    return out / total if total > 0 else out


def q_tilted_policy(children: list[ChildStats], actions: int, beta: float) -> np.ndarray:
    """The root's visit shares tilted toward the moves that did best: ``visits * exp(beta * (mean - best
    mean))`` over the visited moves, normalised (``beta`` 0: :func:`visit_policy`).

    Why: with a few hundred simulations PUCT shares its visits out by the priors among moves whose
    values differ by a few hundredths (the quicker of two wins under a discount), so a policy trained
    on the visits learns its own priors back; weighting them by the searched values teaches it the
    better move, as the completed-Q targets of Gumbel AlphaZero do (Danihelka et al., 2022)."""
    visited = [ch for ch in children if ch.visits > 0]
    out = np.zeros(actions, dtype=np.float32)
    if not visited:
        return out
    best = max(ch.mean for ch in visited)
    for ch in visited:
        out[ch.action] = ch.visits * math.exp(beta * (ch.mean - best))
    return out / out.sum()


def choose_by_visits(children: list[ChildStats], priors: dict[int, float], simulations: int, temperature: float,
                     rng: np.random.Generator, proofs: dict[int, tuple[int, int]] | None = None) -> int:
    """The most visited root move (ties: the better mean, then the lower action) when
    ``temperature`` is 0, else a move drawn with probability proportional to visits^(1/T).
    With no simulation done, the prior's favourite. With the root's ``proofs`` (a search
    that proves results), a move :func:`proven_choice` decides comes first at temperature 0."""
    if temperature <= 0:
        proven = proven_choice(children, proofs) if proofs is not None else None
        if proven is not None:
            return proven
        if simulations == 0:
            return max(children, key=lambda ch: (priors[ch.action], -ch.action)).action
        return max(children, key=lambda ch: (ch.visits, ch.mean, -ch.action)).action
    counts = np.array([ch.visits for ch in children], dtype=np.float64)
    if counts.sum() == 0:
        counts[:] = 1.0
    weights = counts ** (1.0 / temperature)
    return children[int(rng.choice(len(children), p=weights / weights.sum()))].action


# --- proving results (MCTS-Solver) -------------------------------------------------
# A PUCT search with ``solve`` proves the result of a node when its children settle it:
# a finished game is proven at once, a node whose player to move has a proven win among
# its moves is a proven win (the quickest one found), and a node whose every move is
# proven takes the best of them (a draw before a loss, the slowest loss). Backing up a
# proven node's exact result instead of the network's guess sharpens the values near the
# end of the game, and lets the player pick the quickest win the search has proven
# (Winands, Björnsson and Saito, "Monte-Carlo Tree Search Solver", 2008, with distances).
# A proof is (result, plies): -1, 0 or 1 for the player to move into the node, and the
# plies from the node to the end of the game with best play.


def solvable(game) -> str | None:
    """Why PUCT cannot prove results in ``game``, or None when it can: two players,
    zero-sum, no chance and nothing hidden, so that a result is one number."""
    kind = game.game_type
    if kind.chance != "deterministic" or kind.information != "perfect":
        return f"{game.name} has chance or hidden information"
    if game.num_players() != 2 or kind.utility != "zero_sum":
        return f"{game.spec()} is not a two-player zero-sum game"
    return None


def settled_result(children: Sequence[tuple[int, int] | None]) -> tuple[int, int] | None:
    """The proof that a node's children settle, from the view of the player choosing there
    (each child's proof is from that player's view too, or None when unproven), or None."""
    wins = [proof[1] for proof in children if proof is not None and proof[0] == 1]
    if wins:
        return 1, min(wins) + 1
    proven = [proof for proof in children if proof is not None]
    if len(proven) < len(children):  # a child is unproven
        return None
    result = max(proof[0] for proof in proven)
    plies = [p for r, p in proven if r == result]
    return result, (max(plies) if result < 0 else plies[0]) + 1


def proven_choice(children: list[ChildStats], proofs: dict[int, tuple[int, int]]) -> int | None:
    """The root move the proofs decide, or None to leave it to the visits: the quickest
    proven win (ties: more visits, then the lower action); when every move is proven, the
    best result (a draw before a loss, the slowest loss); when the most visited move is
    proven lost, the most visited move that is not."""
    if not children:
        return None
    wins = [ch for ch in children if proofs.get(ch.action, (None,))[0] == 1]
    if wins:
        return min(wins, key=lambda ch: (proofs[ch.action][1], -ch.visits, ch.action)).action
    if all(ch.action in proofs for ch in children):
        return max(children, key=lambda ch: (proofs[ch.action][0], proofs[ch.action][1] if proofs[ch.action][0] < 0 else 0,
                                             ch.visits, -ch.action)).action
    lost = {a for a, (result, _) in proofs.items() if result == -1}
    top = max(children, key=lambda ch: (ch.visits, ch.mean, -ch.action))
    if top.action not in lost:
        return None
    return max((ch for ch in children if ch.action not in lost), key=lambda ch: (ch.visits, ch.mean, -ch.action)).action


# --- information-set search: what the generic search and compiled ones share ---------------------------
@dataclass
class InformationStateRows:
    """The rows of a tree of information states as :class:`SearchSnapshot` takes them; ``origin`` is the
    index of the information state each row's edge leaves (-1 for the root row)."""

    parent: list[int] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    visits: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)
    mean: list[float] = field(default_factory=list)
    player: list[int] = field(default_factory=list)
    created: list[int] = field(default_factory=list)
    origin: list[int] = field(default_factory=list)

    def snapshot(self, root: State, moves: Sequence[str | None], states: Sequence[str | None], root_notation: str,
                 engine: str) -> SearchSnapshot:
        return SearchSnapshot(
            root=root,
            parent=np.asarray(self.parent, dtype=np.int64),
            actions=np.asarray(self.actions, dtype=np.int64),
            visits=np.asarray(self.visits, dtype=np.int64),
            wins=np.asarray(self.wins, dtype=np.int64),
            mean=np.asarray(self.mean, dtype=np.float64),
            player=np.asarray(self.player, dtype=np.int8),
            created=np.asarray(self.created, dtype=np.int64),
            moves=moves,
            states=states,
            root_notation=root_notation,
            engine=engine,
        )


def unfold_information_states(owner: int, nodes: Iterable[tuple[tuple[int, int] | None, int, int,
                                                                     list[tuple[int, int, int, float]]]]) -> InformationStateRows:
    """A tree of information states, in creation order (the first the root), as rows: node 0 the root, each
    edge a row under the edge that first reached its information state (one reached again by another path
    is shown once; one whose first edge is not shown is left out). Each node is ``(parent_edge, player,
    created, edges)``: the (node index, action) that first reached it, the seat to move there, the
    simulation that made it and its edges ``(action, visits, wins, mean)``. An edge's ``player`` is the
    seat of the information state it first led to (until one is known, the seat that chose it)."""
    rows = InformationStateRows([-1], [-1], [0], [0], [0.0], [owner], [0], [-1])
    edge_row: dict[tuple[int, int], int] = {}
    for index, (parent_edge, player, created, edges) in enumerate(nodes):
        if index == 0:
            above = 0
        elif parent_edge is not None and parent_edge in edge_row:
            above = edge_row[parent_edge]
            rows.player[above] = player
        else:
            continue
        for action, visits, wins, mean in edges:
            edge_row[(index, action)] = len(rows.parent)
            rows.parent.append(above)
            rows.actions.append(action)
            rows.visits.append(visits)
            rows.wins.append(wins)
            rows.mean.append(mean)
            rows.player.append(player)  # until an information state below it is known
            rows.created.append(created)
            rows.origin.append(index)
        if index == 0:
            rows.visits[0] = sum(rows.visits[1:])
    return rows


def action_label(state: State, action: int) -> str:
    """``state.action_to_string(action)``, or the number for an action of another world that ``state`` cannot name."""
    try:
        return state.action_to_string(action)
    except Exception:  # noqa: BLE001 - a game may raise anything for an action it does not know
        return str(action)


class LazyColumn(Sequence[str | None]):
    """A snapshot's column of labels or positions that ``compute()`` gives all at once, on first access (an
    agent snapshots every move; a viewer reads few of them)."""

    def __init__(self, length: int, compute: Callable[[], list[str | None]]) -> None:
        self._length, self._compute = length, compute
        self._values: list[str | None] | None = None

    def _all(self) -> list[str | None]:
        if self._values is None:
            self._values = self._compute()
        return self._values

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> str | None: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str | None]: ...

    def __getitem__(self, index):
        return self._all()[index]


def check_information_set_search(state: State, settings: PUCTSettings) -> None:
    """Refuse what an information-set search cannot do: search a state with no move to choose, prove
    results or discount values (a result is not known in every world alike)."""
    if state.is_terminal() or state.is_chance_node():
        raise BoardlabError("is-puct: there is no move to choose in this state (terminal or chance node)")
    if settings.solve:
        raise BoardlabError("is-puct: cannot prove results in a game with hidden information")
    if settings.discount != 1.0:
        raise BoardlabError(f"is-puct: values are not discounted in games with hidden information (discount "
                            f"{settings.discount})")


class InformationSetResults:
    """What an information-set search reports from its root's edges (``root_children``, ``root_priors``,
    ``simulations`` and ``rng`` come from the search): shared by the generic search and compiled ones."""

    simulations: int
    rng: np.random.Generator

    def root_children(self) -> list[ChildStats]:
        raise NotImplementedError

    def root_priors(self) -> dict[int, float]:
        raise NotImplementedError

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

