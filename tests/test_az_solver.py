"""PUCT with proofs (MCTS-Solver): proven results are exact, the quickest proven win is played, lost moves are not."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from az_helpers import neutral_model
from typer.testing import CliRunner

from boardlab.agents.puct import PUCTSearch, run_simulations
from boardlab.agents.registry import make_agent
from boardlab.cli import app
from boardlab.core.engines import puct_engine
from boardlab.core.errors import BoardlabError, SpecError
from boardlab.core.registry import make
from boardlab.core.search import ChildStats, PUCTSettings, proven_choice, settled_result, solvable
from boardlab.nn.az_net import Evaluator, dense_network, new_network


def test_settled_result_needs_one_win_or_every_move():
    # (result for the player choosing, plies to the end after the move), None: not proven
    assert settled_result([None, (1, 4), (1, 2), None]) == (1, 3)  # the quickest proven win, one ply up
    assert settled_result([(-1, 1), None]) is None  # a move still open might save the game
    assert settled_result([(-1, 1), (-1, 5), (-1, 3)]) == (-1, 6)  # all lost: the slowest loss
    assert settled_result([(-1, 7), (0, 4), (0, 2)]) == (0, 5)  # a draw before any loss


def test_proven_choice_takes_the_quickest_win_and_avoids_proven_losses():
    children = [ChildStats(0, 50, 0, 0.2), ChildStats(1, 30, 0, 0.1), ChildStats(2, 20, 0, 0.0)]
    assert proven_choice(children, {}) is None  # nothing proven: the visits decide
    assert proven_choice(children, {1: (1, 5), 2: (1, 3)}) == 2  # the quicker win, whatever the visits
    assert proven_choice(children, {0: (-1, 1)}) == 1  # the favourite is lost: the next most visited
    assert proven_choice(children, {0: (-1, 1), 1: (-1, 9), 2: (-1, 3)}) == 1  # all lost: the slowest loss
    assert proven_choice(children, {0: (-1, 1), 1: (0, 9), 2: (-1, 3)}) == 1
    assert proven_choice(children, {1: (0, 2)}) is None  # a proven draw does not overrule the visits


def test_only_two_player_zero_sum_games_without_chance_are_solvable():
    assert solvable(make("connect4")) is None and solvable(make("mancala")) is None
    assert "chance" in solvable(make("dicewars"))
    assert "chance" in solvable(make("dicewars:players=2"))
    assert "hidden" in solvable(make("nothanks"))


@pytest.mark.parametrize("engine", ["generic", "compiled"])
def test_a_win_at_once_is_proven_before_any_simulation_and_played(engine, tmp_path):
    """X wins at once in column 1, but the network puts nearly all its prior on column 2: with fpu=zero the
    search never tries column 1. The solver proves it at the root and plays it; without, the visits decide."""
    game = make("connect4")
    state = game.state_from_moves("1 2 1 2 1 2")
    path = neutral_model(game, tmp_path / "favourite.pt", [0.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    chosen = {}
    for solver in ("on", "off"):
        agent = make_agent(f"az:path={path},simulations=100,engine={engine},solver={solver},take_wins=false", game)
        agent.reset(game, 0, 0)
        chosen[solver] = agent.step(state)
        proofs = {c["action"]: c["proof"] for c in agent.last_search["children"]}
        assert agent.last_search["solver"] == (solver == "on")
        if solver == "on":
            assert proofs[0] == [1, 0]  # a win, the game over after it
    assert chosen == {"on": 0, "off": 1}


@pytest.mark.parametrize("engine", ["generic", "compiled"])
@pytest.mark.parametrize("fpu", ["zero", "mean"])
def test_moves_that_let_the_other_win_at_once_are_proven_lost_and_not_played(engine, fpu, tmp_path):
    """O must block X's three in column 1; the network favours column 7. Each other move is proven lost the
    first time it is tried (X then wins at once) and never tried again; also where a move not yet tried
    counts as its tried siblings' mean (without proofs that search never tries the block)."""
    game = make("connect4")
    state = game.state_from_moves("1 4 1 6 1")
    path = neutral_model(game, tmp_path / "wrong.pt", [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 6.0])
    agent = make_agent(f"az:path={path},simulations=100,engine={engine},fpu={fpu}", game)
    agent.reset(game, 1, 0)
    assert agent.step(state) == 0
    children = {c["action"]: c for c in agent.last_search["children"]}
    if fpu == "zero":  # every other move looks better than a lost one until it is tried
        assert set(children) == set(range(7))
    tried = [column for column in children if column != 0]
    for column in tried:
        assert children[column]["proof"] == [-1, 1] and children[column]["visits"] == 1
    assert children[0]["visits"] == 100 - len(tried)


def _exact(state, memo: dict) -> int:
    """The exact result for the player to move (1, 0 or -1) by brute force over clones, for any game
    of two players, one of whom may move several times in a row."""
    key = str(state) + f"/{state.current_player()}"
    if key not in memo:
        me = state.current_player()
        best = -1
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            if child.is_terminal():
                value = int(np.sign(child.returns()[me]))
            else:
                value = _exact(child, memo) * (1 if child.current_player() == me else -1)
            best = max(best, value)
        memo[key] = best
    return memo[key]


@pytest.mark.parametrize("engine", ["generic", "compiled"])
def test_every_proof_is_the_exact_result(engine):
    """On a 4x5 board (three in a row wins), from positions of random play, every result the search proves
    for a root move is the one brute force finds, and a proven win is never quicker than the quickest."""
    game = make("connect4:rows=4,cols=5,k=3")
    torch.manual_seed(3)
    net = new_network(game, {"kind": "mlp", "hidden": 16, "layers": 1}).eval()
    evaluator, dense = Evaluator(net), dense_network(net)
    rng = np.random.default_rng(5)
    checked, memo = 0, {}
    for k in range(25):
        state = game.new_initial_state()
        moves = []
        for _ in range(int(rng.integers(4, 12))):
            legal = state.legal_actions()
            action = int(legal[rng.integers(len(legal))])
            child = state.clone()
            child.apply_action(action)
            if child.is_terminal():
                break
            state = child
            moves.append(str(action + 1))
        if engine == "generic":
            search = PUCTSearch(state, PUCTSettings(c=1.5, discount=0.9, solve=True), np.random.default_rng(k))
            run_simulations([search], 200, evaluator.evaluate)
        else:
            search = puct_engine(game)(state, dense, PUCTSettings(c=1.5, discount=0.9, solve=True), np.random.default_rng(k))
            search.run(200)
        for action, (result, plies) in search.root_proofs().items():
            after = state.clone()
            after.apply_action(action)
            if after.is_terminal():
                assert (result, plies) == (int(np.sign(after.returns()[state.current_player()])), 0)
            else:
                assert result == -_exact(after, memo)
                assert plies >= 1
            checked += 1
    assert checked >= 20


def test_proofs_are_exact_where_a_player_moves_again():
    """Mancala (a sowing that ends in one's store gives another move): near the end of random games, every
    result the generic search proves for a root move is the one brute force finds."""
    game = make("mancala")
    torch.manual_seed(3)
    evaluator = Evaluator(new_network(game, {"kind": "mlp", "hidden": 16, "layers": 1}).eval())
    rng = np.random.default_rng(2)
    checked, memo = 0, {}
    for k in range(40):
        state = game.new_initial_state()
        while not state.is_terminal() and sum(state.board[:6]) + sum(state.board[7:13]) > 9:
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
        if state.is_terminal():
            continue
        search = PUCTSearch(state, PUCTSettings(c=1.5, solve=True), np.random.default_rng(k))
        run_simulations([search], 100, evaluator.evaluate)
        me = state.current_player()
        for action, (result, _) in search.root_proofs().items():
            after = state.clone()
            after.apply_action(action)
            if after.is_terminal():
                exact = int(np.sign(after.returns()[me]))
            else:
                exact = _exact(after, memo) * (1 if after.current_player() == me else -1)
            assert result == exact, (str(state), action)
            checked += 1
    assert checked >= 20


def test_the_solver_refuses_games_with_chance_when_asked_for_and_is_off_there_by_default(tmp_path):
    game = make("dicewars")
    path = neutral_model(game, tmp_path / "dice.pt")
    with pytest.raises(SpecError, match="solver=on.*chance"):
        make_agent(f"az:path={path},solver=on", game).reset(game, 0, 0)
    agent = make_agent(f"az:path={path},simulations=5", game)
    agent.reset(game, 0, 0)
    assert agent._solve is False
    state = game.new_initial_state(1)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(BoardlabError, match="cannot prove"):
        PUCTSearch(state, PUCTSettings(c=1.5, solve=True), np.random.default_rng(0))


def test_search_shows_what_the_solver_proved(tmp_path):
    runner = CliRunner()
    # a neutral network (uniform priors, every position judged 0): the search tries every column whatever a
    # trained network would prefer, so it reaches the losing moves as well as the winning one
    path = neutral_model(make("connect4"), tmp_path / "neutral.pt")
    args = ["search", "--game", "connect4", "--position", "1 2 1 2 1 2", "--agent", f"az:path={path},take_wins=false"]
    data = json.loads(runner.invoke(app, [*args, "--json"]).output)
    assert data["best_action"] == 0
    proofs = {child["action"]: child["proof"] for child in data["children"]}
    assert proofs[0] == [1, 0] and proofs[2] == [-1, 1]  # column 3 lets O win in column 2
    text = runner.invoke(app, args)
    assert text.exit_code == 0 and "wins at once" in text.output and "loss, game over 2 plies from here" in text.output
