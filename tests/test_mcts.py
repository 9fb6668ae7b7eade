"""The UCT agent: correct moves, multiplayer and chance, determinisation, budgets, reuse and tree export."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardlab.agents.evaluators import get_evaluator, register_evaluator
from boardlab.agents.mcts import MCTSAgent
from boardlab.agents.registry import make_agent
from boardlab.agents.search_tree import preorder_positions
from boardlab.core import plugins
from boardlab.core.engines import uct_engine
from boardlab.core.errors import BoardlabError, SpecError
from boardlab.core.evaluation import Evaluator
from boardlab.core.game import CHANCE, TERMINAL, Game, GameType, State
from boardlab.core.params import Option
from boardlab.core.registry import make
from boardlab.trees import gamelabels

ENGINES = ["compiled", "generic"]


# --- tiny test games -------------------------------------------------------------


class TakeAway(Game):
    """N players take 1 or 2 stones in turn; whoever takes the last stone wins (+1), and the
    player who moved just before the winner (who handed over the win) gets -1, the others 0."""

    game_type = GameType("takeaway", "Take-away", min_players=2, max_players=8, utility="general_sum")
    parameters = {"stones": Option("stones", int, 4, "pile size"), "players": Option("players", int, 3, "players")}

    def num_players(self) -> int:
        return self.params["players"]

    def num_distinct_actions(self) -> int:
        return 3

    def new_initial_state(self, seed=None):
        return TakeAwayState(self, seed)


class TakeAwayState(State):
    def __init__(self, game, seed=None):
        self.game, self.seed, self.history = game, seed, []
        self.stones = game.params["stones"]

    def current_player(self):
        return TERMINAL if self.is_terminal() else len(self.history) % self.game.num_players()

    def legal_actions(self, player=None):
        return [] if self.is_terminal() else [a for a in (1, 2) if a <= self.stones]

    def apply_action(self, action):
        if action not in self.legal_actions():
            raise self._illegal(action)
        self.stones -= action
        self.history.append(action)

    def clone(self):
        other = TakeAwayState(self.game, self.seed)
        other.history, other.stones = list(self.history), self.stones
        return other

    def is_terminal(self):
        return self.stones == 0

    def returns(self):
        n = self.game.num_players()
        out = [0.0] * n
        if self.is_terminal():
            winner = (len(self.history) - 1) % n
            out[(winner - 1) % n] = -1.0
            out[winner] = 1.0
        return out


class Gamble(Game):
    """Player 0 picks safe (0: payoff +0.2) or gamble (1): chance wins +1 with probability p, else -1."""

    game_type = GameType("gamble", "Gamble", chance="explicit")
    parameters = {"p": Option("p", float, 0.8, "winning probability")}

    def num_distinct_actions(self):
        return 2

    def new_initial_state(self, seed=None):
        return GambleState(self, seed)


class GambleState(State):
    def __init__(self, game, seed=None):
        self.game, self.seed, self.history = game, seed, []

    def current_player(self):
        if self.is_terminal():
            return TERMINAL
        return 0 if not self.history else CHANCE

    def legal_actions(self, player=None):
        if self.is_terminal():
            return []
        return [0, 1]

    def chance_outcomes(self):
        p = self.game.params["p"]
        return [(0, 1 - p), (1, p)]

    def apply_action(self, action):
        if action not in self.legal_actions():
            raise self._illegal(action)
        self.history.append(action)

    def clone(self):
        other = GambleState(self.game, self.seed)
        other.history = list(self.history)
        return other

    def is_terminal(self):
        return self.history == [0] or len(self.history) == 2

    def returns(self):
        if self.history == [0]:
            return [0.2, -0.2]
        if len(self.history) == 2:
            x = 1.0 if self.history[1] == 1 else -1.0
            return [x, -x]
        return [0.0, 0.0]


class HiddenCard(Game):
    """Chance deals player 1 a hidden card 0, 1 or 2; player 0, who cannot see it, folds (0: payoff 0.2)
    or bets (1): +0.5 unless the card is 2, then -1. Betting is worth 0 on average."""

    game_type = GameType("hiddencard", "Hidden card", chance="explicit", information="imperfect")

    def num_distinct_actions(self):
        return 3

    def new_initial_state(self, seed=None):
        return HiddenCardState(self, seed)


class HiddenCardState(GambleState):
    def current_player(self):
        if self.is_terminal():
            return TERMINAL
        return CHANCE if not self.history else 0

    def legal_actions(self, player=None):
        if self.is_terminal():
            return []
        return [0, 1, 2] if not self.history else [0, 1]

    def chance_outcomes(self):
        return [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]

    def clone(self):
        other = HiddenCardState(self.game, self.seed)
        other.history = list(self.history)
        return other

    def is_terminal(self):
        return len(self.history) == 2

    def returns(self):
        if len(self.history) < 2:
            return [0.0, 0.0]
        x = 0.2 if self.history[1] == 0 else (-1.0 if self.history[0] == 2 else 0.5)
        return [x, -x]

    def resample(self, player, rng):
        other = self.clone()
        if player == 0 and other.history:
            other.history[0] = int(rng.integers(3))
        return other

    def notation(self):
        # what player 0 sees: whether the card was dealt, and its own move
        return f"dealt={int(bool(self.history))};move={self.history[1] if len(self.history) > 1 else '-'}"


@pytest.fixture(autouse=True)
def toy_games():
    """The toy games, registered while a test of this module runs (saved trees name their game)."""
    with plugins.games.registered("takeaway", f"{__name__}:TakeAway"), \
            plugins.games.registered("gamble", f"{__name__}:Gamble"), \
            plugins.games.registered("hiddencard", f"{__name__}:HiddenCard"):
        yield


def c4_state(moves: str):
    return make("connect4").state_from_moves(moves)


def search(spec: str, state: State) -> MCTSAgent:
    agent = make_agent(spec)
    agent.reset(state.game, state.current_player(), 1)
    agent.chosen = agent.step(state)
    return agent


# --- playing strength ------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "moves, winning",
    [
        ("112233", "4"),  # X completes the bottom row
        ("121212", "1"),  # X completes column 1
        ("1414247", "4"),  # O completes column 4
        ("2334445455", "2"),  # X completes row 2 (3-4-5 plus 2)
    ],
)
def test_finds_a_win_in_one(engine, moves, winning):
    state = c4_state(moves)
    agent = search(f"mcts:iterations=1500,engine={engine}", state)
    assert state.action_to_string(agent.chosen) == winning


@pytest.mark.parametrize("engine", ENGINES)
def test_blocks_an_immediate_loss(engine):
    state = c4_state("141464")  # O threatens to complete column 4; X has no win of its own
    agent = search(f"mcts:iterations=3000,engine={engine}", state)
    assert state.action_to_string(agent.chosen) == "4"


@pytest.mark.parametrize("players", [3, 4])
def test_multiplayer_payoffs_are_per_player(players):
    # 4 stones, player 0 to move. Taking 2 lets player 1 win at once and costs player 0 -1;
    # taking 1 leaves 3, whoever wins then, player 0 is not the one who handed the win: 0.
    game = TakeAway(stones=4, players=players)
    agent = search("mcts:iterations=2000", game.new_initial_state())
    assert agent.chosen == 1
    tree = agent.trees[-1]
    by_move = {tree.move[int(i)]: i for i in tree.children(0)}
    assert tree.mean_payout[by_move["2"]] < -0.8  # (-1 once player 1 finds its win)
    assert tree.mean_payout[by_move["1"]] > -0.25
    # player 1, facing 3 stones after "1", hands the win to player 2 whatever it does: -1 from its view
    below = [i for i in tree.children(by_move["1"])]
    assert below and all(tree.mean_payout[i] < -0.5 for i in below)
    assert all(tree.player[i] == 2 for i in below)


@pytest.mark.parametrize("p, best", [(0.8, 1), (0.3, 0)])
def test_chance_nodes_are_sampled_by_probability(p, best):
    game = Gamble(p=p)
    agent = search("mcts:iterations=3000,c=2", game.new_initial_state())
    assert agent.chosen == best
    tree = agent.trees[-1]
    gamble = [i for i in tree.children(0) if tree.move[int(i)] == "1"][0]
    outcomes = {tree.move[int(i)]: int(tree.visits[i]) for i in tree.children(gamble)}
    share = outcomes.get("1", 0) / (tree.visits[gamble] - 1)
    assert abs(share - p) < 0.1
    assert tree.player[gamble] == CHANCE


def test_hidden_information_is_determinised():
    game = HiddenCard()
    state = game.new_initial_state()
    state.apply_action(0)  # the true card is harmless: a peeking search would bet
    agent = search("mcts:iterations=3000,c=2", state)
    assert agent.chosen == 0  # folds: over the cards player 0 cannot tell apart, betting loses
    tree = agent.trees[-1]
    bet = [i for i in tree.children(0) if tree.move[int(i)] == "1"][0]
    assert tree.mean_payout[bet] == pytest.approx(0.0, abs=0.2)
    assert tree.visits[bet] > 50
    check_tree(tree, 3000)


# --- budgets -------------------------------------------------------------------------


class FakeClock:
    """``time.perf_counter`` that advances a fixed step at every reading, so budgets are tested
    without depending on how busy the machine is."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 1000.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_time_budget_is_respected(monkeypatch):
    budget = 0.4
    game = make("connect4")
    agent = make_agent(f"mcts:time={budget},engine=generic")
    agent.reset(game, 0, 3)
    monkeypatch.setattr(time, "perf_counter", FakeClock(0.001))
    agent.step(c4_state("44"))
    monkeypatch.undo()
    # the search stops at the first clock reading past the deadline (one reading per iteration)
    assert budget <= agent.last_search["seconds"] <= budget + 0.01
    assert agent.last_search["simulations"] > 100


def test_the_compiled_engine_stops_at_its_deadline_and_when_told():
    import threading

    engine = uct_engine(make("connect4"))(c4_state("44"), 1, 1.4)
    # a deadline already past: the first chunk of iterations, then stop (one always runs)
    done = engine.run(None, time.perf_counter() - 1.0)
    assert 1 <= done <= 64
    stop = threading.Event()
    stop.set()
    assert 1 <= engine.run(None, None, stop) <= 64  # told to stop: likewise
    assert engine.run(None, None, None, max_nodes=10) <= 64  # a full tree: likewise


@pytest.mark.parametrize("engine", ENGINES)
def test_iterations_and_time_whichever_ends_first(engine):
    agent = search(f"mcts:iterations=300,time=30,engine={engine}", c4_state(""))
    assert agent.last_search["simulations"] == 300
    assert agent.last_search["seconds"] < 10


def test_default_is_1000_iterations():
    agent = search("mcts", c4_state("4"))
    assert agent.last_search["root_visits"] == 1000


def test_bad_options_are_clear_errors():
    with pytest.raises(SpecError, match="final"):
        make_agent("mcts:final=best")
    with pytest.raises(SpecError, match="known evaluators: .*chess_material.*mancala_store"):
        make_agent("mcts:eval=nosuch")
    with pytest.raises(SpecError, match="iterations"):
        make_agent("mcts:iterations=0")
    agent = make_agent("mcts:engine=compiled")
    game = TakeAway()
    agent.reset(game, 0, 1)
    with pytest.raises(SpecError, match="takeaway offers no compiled search"):
        agent.step(game.new_initial_state())
    with pytest.raises(BoardlabError):
        agent.step(c4_state("1212121"))  # X has won: nothing to search


# --- tree export -----------------------------------------------------------------------


def assert_preorder(parent: np.ndarray) -> None:
    """Depth-first preorder: every node's parent is on the path from the root to the previous node."""
    assert parent[0] == -1
    stack = [0]
    for i in range(1, len(parent)):
        assert parent[i] < i
        while stack and stack[-1] != parent[i]:
            stack.pop()
        assert stack, f"node {i} breaks preorder"
        stack.append(i)


def check_tree(tree, iterations: int, fresh: bool = True) -> None:
    n = len(tree)
    assert_preorder(tree.parent)
    counts = np.bincount(tree.parent[1:], minlength=n)
    assert np.array_equal(counts, tree.child_count)
    if fresh:
        assert tree.visits[0] == iterations
    assert np.all(tree.visits >= 1)
    assert np.all(tree.visits2 <= tree.visits) and np.all(tree.visits2 >= 0)
    assert np.all(np.abs(tree.mean_payout) <= 1 + 1e-9)
    child_visits = np.bincount(tree.parent[1:], weights=tree.visits[1:], minlength=n).astype(np.int64)
    inner = tree.child_count > 0
    expected = tree.visits - 1
    if fresh:
        expected[0] = tree.visits[0]  # the root of a fresh search has no creating playout
    assert np.array_equal(child_visits[inner], expected[inner])
    # created: root 0, one node per iteration at most, children after their parents
    assert tree.created[0] == 0
    if fresh:
        later = tree.created[1:]
        assert len(np.unique(later)) == len(later) and later.min() >= 1 and later.max() <= iterations
        assert np.all(tree.created[1:] > tree.created[tree.parent[1:]])
    # labels: the root names its game; every label is the node's position in the game's notation,
    # from which the game reads the same player to move (or chance, or the end) as the search saw
    game, _ = gamelabels.identify(tree)
    assert game is not None and tree.state[0].startswith(f"[{game.spec()}] ")
    if not game.has_hidden_information:
        for i in range(0, n, max(1, n // 200)):
            assert game.player_of_notation(gamelabels.node_notation(tree, i)) == tree.player[i]


@pytest.mark.parametrize("engine", ENGINES)
def test_export_invariants_connect4(engine):
    state = c4_state("4433")
    agent = search(f"mcts:iterations=3000,engine={engine}", state)
    tree = agent.trees[-1]
    check_tree(tree, 3000)
    assert tree.state[0] == "[connect4] 4433"
    game = make("connect4")
    for i in range(1, len(tree), 97):  # a node's label is its parent's with its move appended
        assert tree.state[i] == gamelabels.node_notation(tree, int(tree.parent[i])) + tree.move[i]
        replay = game.state_from_notation(tree.state[i])
        assert tree.player[i] == replay.current_player()
    assert tree.meta["game"] == "connect4" and tree.meta["move_number"] == 4
    assert tree.meta["agent"] == agent.spec and tree.meta["engine"] == engine


def test_export_invariants_multiplayer_and_chance():
    agent = search("mcts:iterations=500", TakeAway(stones=7, players=3).new_initial_state())
    check_tree(agent.trees[-1], 500)
    agent = search("mcts:iterations=500", Gamble().new_initial_state())
    check_tree(agent.trees[-1], 500)


def test_wins_count_the_player_who_moved():
    state = c4_state("112233")
    agent = search("mcts:iterations=1000,engine=generic", state)
    tree = agent.trees[-1]
    win = [i for i in tree.children(0) if tree.move[int(i)] == "4"][0]
    assert tree.visits2[win] == tree.visits[win]  # X wins every time it plays 4
    assert tree.mean_payout[win] == 1.0 and tree.player[win] == TERMINAL


@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=60))
def test_preorder_positions_match_a_recursive_walk(choices):
    parent = [-1] + [c % (i + 1) for i, c in enumerate(choices)]  # parent[i] < i
    parent = np.array(parent, dtype=np.int64)
    expected = []

    def walk(node):
        expected.append(node)
        for child in np.flatnonzero(parent == node):
            if child != node:
                walk(int(child))

    walk(0)
    pos = preorder_positions(parent)
    order = np.empty_like(pos)
    order[pos] = np.arange(len(pos))
    assert order.tolist() == expected


# --- reuse, kept trees, seeds ---------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_reuse_keeps_the_subtree_of_the_moves_played(engine):
    game = make("connect4")
    agent = make_agent(f"mcts:iterations=2000,reuse=true,engine={engine}")
    agent.reset(game, 0, 5)
    state = c4_state("44")
    mine = agent.step(state)
    first = agent.trees[-1]
    state.apply_action(mine)
    # the opponent answers with its most visited reply in our tree
    node = [i for i in first.children(0) if first.move[int(i)] == state.action_to_string(mine)][0]
    replies = first.children(node)
    reply = replies[np.argmax(first.visits[replies])]
    kept_visits = int(first.visits[reply])
    state.apply_action(state.string_to_action(first.move[int(reply)]))
    agent.step(state)
    second = agent.trees[-1]
    assert second.visits[0] == kept_visits + 2000
    assert np.sum(second.created == 0) >= 2  # nodes kept from the first tree
    check_tree(second, 2000, fresh=False)
    assert gamelabels.node_notation(second, 0) == first.state[int(reply)]


@pytest.mark.parametrize("engine", ENGINES)
def test_keep_trees_bounds_the_list(engine):
    game = make("connect4")
    agent = make_agent(f"mcts:iterations=200,keep_trees=2,engine={engine}")
    agent.reset(game, 0, 1)
    state = game.new_initial_state()
    for _ in range(4):
        state.apply_action(agent.step(state))
    assert len(agent.trees) == 2
    assert [t.meta["move_number"] for t in agent.trees] == [2, 3]
    none = make_agent("mcts:iterations=50,keep_trees=0")
    none.step(c4_state(""))
    assert none.trees == []


@pytest.mark.parametrize("engine", ENGINES)
def test_same_seed_same_search(engine):
    def run(seed):
        agent = make_agent(f"mcts:iterations=700,seed={seed},engine={engine}")
        move = agent.step(c4_state("4"))
        return move, agent.trees[-1]

    (m1, t1), (m2, t2), (_, t3) = run(7), run(7), run(8)
    assert m1 == m2
    for column in ("parent", "visits", "visits2", "mean_payout", "player", "created"):
        assert np.array_equal(getattr(t1, column), getattr(t2, column))
    assert t1.move == t2.move and t1.state == t2.state
    assert not (len(t1) == len(t3) and np.array_equal(t1.visits, t3.visits))


def test_compiled_and_generic_engines_agree():
    # the same algorithm: the same choice and similar statistics where the right move is clear
    state = c4_state("141464")  # X must block column 4
    shares, values = {}, {}
    for engine in ENGINES:
        for seed in range(3):
            agent = make_agent(f"mcts:iterations=2000,engine={engine},seed={seed}")
            assert state.action_to_string(agent.step(state)) == "4"
            assert agent.last_search["engine"] == engine
            block = agent.last_search["children"][0]
            shares.setdefault(engine, []).append(block["visits"] / 2000)
            values.setdefault(engine, []).append(block["mean"])
    assert abs(np.mean(shares["compiled"]) - np.mean(shares["generic"])) < 0.1
    assert abs(np.mean(values["compiled"]) - np.mean(values["generic"])) < 0.1


def test_final_mean_picks_the_best_mean():
    agent = search("mcts:iterations=400,final=mean", Gamble(p=0.8).new_initial_state())
    tree = agent.trees[-1]
    children = tree.children(0)
    assert tree.move[int(children[np.argmax(tree.mean_payout[children])])] == str(agent.chosen)


# --- evaluators and playout kernels ---------------------------------------------------------------


CALLS: list[int] = []


def stones_left_evaluator(state):
    """Test evaluator for TakeAway: the player to move is doomed at stones % 3 == 0."""
    CALLS.append(state.stones)
    assert not state.is_terminal()
    n = state.game.num_players()
    to_move = state.current_player()
    good = 1.0 if state.stones % 3 else -1.0
    return [good if p == to_move else -good / (n - 1) for p in range(n)]


STONES = Evaluator("takeaway", stones_left_evaluator, "test: the stones left")


def test_leaf_evaluator_replaces_playouts():
    with plugins.evaluators.registered("test_stones", f"{__name__}:STONES"):
        assert get_evaluator("test_stones") is STONES
        CALLS.clear()
        game = TakeAway(stones=10, players=2)
        agent = search("mcts:iterations=300,eval=test_stones", game.new_initial_state())
        assert CALLS and len(CALLS) <= 300
        assert agent.chosen == 1  # leave 9 stones: a multiple of 3 for the opponent
        assert agent.last_search["engine"] == "generic"
        CALLS.clear()
        search("mcts:iterations=300,eval=test_stones,eval_plies=2", game.new_initial_state())
        assert CALLS and min(CALLS) >= 0


def test_evaluator_names_and_errors():
    from boardlab.agents.evaluators import evaluator_for, evaluator_names

    assert {"chess_material", "mancala_store"} <= set(evaluator_names())
    assert evaluator_names(make("chess")) == ["chess_material"]
    assert evaluator_for(make("chess"), None) is get_evaluator("chess_material")  # the game's default
    assert evaluator_for(make("chess"), "none") is None
    assert evaluator_for(make("connect4"), None) is None
    with pytest.raises(SpecError, match="unknown evaluator 'x'"):
        evaluator_for(make("chess"), "x")
    with pytest.raises(SpecError, match="module:object"):
        register_evaluator("bad", "no_colon")


def test_another_games_evaluator_is_a_clear_error():
    agent = make_agent("mcts:eval=chess_material,iterations=50")
    with pytest.raises(SpecError, match="judges chess positions, not connect4"):
        agent.reset(make("connect4"), 0, 1)


def test_connect4_playout_kernel_returns():
    from boardlab.core.rng import kernel_rng

    game = make("connect4")
    kernel = game.playout_kernel()
    assert game.playout_kernel() is kernel
    rng = kernel_rng(3)
    results = [tuple(kernel.playout_returns(c4_state("44"), rng)) for _ in range(200)]
    assert set(results) <= {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)} and len(set(results)) >= 2
    won = c4_state("1212121")
    assert kernel.playout_returns(won, rng) == [1.0, -1.0]


# --- the CLI -----------------------------------------------------------------------------------


def test_search_cli_json_and_save(tmp_path):
    from typer.testing import CliRunner

    from boardlab.cli import app
    from boardlab.trees.io import load_tree

    path = tmp_path / "t.tree"
    result = CliRunner().invoke(
        app, ["search", "--game", "connect4", "--position", "1,1,2,2,3,3", "--agent", "mcts:iterations=800",
              "--save", str(path), "--json"],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["best_move"] == "4" and doc["simulations"] == 800 and doc["player"] == 0
    assert sum(c["visits"] for c in doc["children"]) == 800
    tree = load_tree(path)
    assert len(tree) == doc["tree_nodes"] and tree.visits[0] == 800 and tree.state[0] == "[connect4] 112233"
    text = CliRunner().invoke(app, ["search", "--position", "1 1 2 2 3 3", "--agent", "mcts:iterations=300"])
    assert text.exit_code == 0 and "best move: 4" in text.stdout
    bad = CliRunner().invoke(app, ["search", "--position", "1 1 9"])
    assert bad.exit_code == 2 and "column 9" in bad.output


def test_the_compiled_engine_keeps_near_its_node_cap():
    engine = uct_engine(make("connect4"))(c4_state(""), 2, 1.4)
    engine.run(None, time.perf_counter() + 30.0, None, max_nodes=5000)  # a far deadline: the cap ends it
    assert 5000 <= int(engine.used[0]) < 5000 + 7 * 70  # at most one chunk's worth of expansions past it
