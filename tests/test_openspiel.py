"""OpenSpiel's games as boardlab games and OpenSpiel's bots as boardlab agents.

Skipped only when OpenSpiel is not installed (it is part of the dev set-up that CI uses).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from typer.testing import CliRunner  # noqa: E402

from boardlab.agents.registry import make_agent  # noqa: E402
from boardlab.arena import duel, play_game  # noqa: E402
from boardlab.cli import app  # noqa: E402
from boardlab.conformance import check_game  # noqa: E402
from boardlab.core import plugins  # noqa: E402
from boardlab.core.errors import BoardlabError, SpecError  # noqa: E402
from boardlab.core.records import GameRecord  # noqa: E402
from boardlab.core.registry import make  # noqa: E402
from boardlab.trees import gamelabels  # noqa: E402
from boardlab.trees.io import load_tree, save_tree  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
runner = CliRunner()


# --- openspiel:GAME ----------------------------------------------------------------------
def test_spec_forms_read_back_to_one_canonical_spec():
    canonical = "openspiel:hex:board_size=7"
    for spec in (canonical, "openspiel:hex(board_size=7)", "openspiel:name=hex,board_size=7", " openspiel:hex:board_size=7 "):
        game = make(spec)
        assert game.spec() == canonical and make(game.spec()) == game
        assert str(game.pyspiel_game) == str(pyspiel.load_game("hex(board_size=7)"))
    assert make("openspiel").spec() == "openspiel:tic_tac_toe"
    assert make("openspiel:hex:board_size=11").spec() == "openspiel:hex"  # defaults are left out
    assert make("openspiel:hex:swap=true,board_size=5").spec() == "openspiel:hex:board_size=5,swap=true"  # sorted
    nested = make("openspiel:turn_based_simultaneous_game:game=goofspiel(num_cards=4,points_order=descending)")
    assert make(nested.spec()) == nested and "]" not in nested.spec()
    assert nested.num_players() == 2 and nested.game_type.information == "imperfect"


@pytest.mark.parametrize("spec, message", [
    ("openspiel:hexx", "no OpenSpiel game 'hexx' (did you mean hex?)"),
    ("openspiel:hex:foo=1", "unknown parameter 'foo' (parameters: board_size, num_cols"),
    ("openspiel:hex:board_size=x", "parameter board_size must be an integer, not 'x'"),
    ("openspiel:hex:swap=maybe", "parameter swap must be true or false"),
    ("openspiel:goofspiel", "not a turn-based game (simultaneous moves); boardlab plays turns: try openspiel:turn_based"),
    ("openspiel:hex(board_size=7", "unbalanced parentheses"),
    ("openspiel:hex(board_size=7):board_size=5", "parameter 'board_size' given twice"),
])
def test_bad_specs_are_one_clear_error(spec, message):
    with pytest.raises(SpecError, match=None) as caught:
        make(spec)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_command_line_reports_a_bad_spec_in_one_line():
    result = runner.invoke(app, ["duel", "random", "random", "--game", "openspiel:hexx"])
    assert result.exit_code == 2 and "no OpenSpiel game 'hexx'" in result.output and "Traceback" not in result.output


def test_declared_facts_come_from_openspiel():
    hex5 = make("openspiel:hex:board_size=5")
    assert (hex5.game_type.chance, hex5.game_type.information, hex5.game_type.utility) == ("deterministic", "perfect", "zero_sum")
    assert hex5.num_distinct_actions() == 25 and hex5.max_game_length() == 25 and hex5.name == "openspiel"
    kuhn = make("openspiel:kuhn_poker:players=3")
    assert (kuhn.game_type.chance, kuhn.game_type.information) == ("explicit", "imperfect") and kuhn.num_players() == 3
    # chance outcomes and actions share one range: the larger of the two counts
    assert kuhn.num_distinct_actions() == max(kuhn.pyspiel_game.num_distinct_actions(), kuhn.pyspiel_game.max_chance_outcomes())
    assert kuhn.observation_tensor_shape() == tuple(kuhn.pyspiel_game.observation_tensor_shape())
    # what each game provides and its utility range are OpenSpiel's too
    assert kuhn.provides == {"observation_tensor", "information_state_string", "compiled_playouts"}
    assert (kuhn.game_type.min_utility, kuhn.game_type.max_utility) == (kuhn.pyspiel_game.min_utility(), kuhn.pyspiel_game.max_utility())
    assert hex5.provides == {"observation_tensor", "compiled_playouts"} and hex5.game_type.max_utility == 1.0


def test_states_follow_openspiel_and_refuse_illegal_moves_without_damage():
    game = make("openspiel:hex:board_size=5")
    state = game.new_initial_state()
    state.apply_action(12)
    assert state.current_player() == 1 and 12 not in state.legal_actions()
    assert state.notation() == "1:12" and game.state_from_notation("1:12").history == [12]
    for bad in (12, 25, -1, 2.5):
        with pytest.raises(BoardlabError):
            state.apply_action(bad)
    assert state.history == [12] and str(state.pyspiel_state) == str(game.state_from_history([12]).pyspiel_state)
    with pytest.raises(BoardlabError, match="after these actions it is 1's turn"):
        game.state_from_notation("0:12")


def test_hidden_information_stays_hidden_in_notation_views_and_redraws():
    game = make("openspiel:kuhn_poker")
    state = game.state_from_history([2, 0, 1])  # cards K to seat 0, J to seat 1; seat 0 bets
    assert state.notation() == "1:b"  # OpenSpiel's public view: seat 0 bet; no card
    assert state.observation(None)["text"] == "b" and game.player_of_notation(state.notation()) == 1
    for seat in (0, 1):
        seen = state.observation(seat)
        for k in range(5):
            draw = state.resample(seat, np.random.default_rng(k))
            assert draw.observation(seat) == seen and draw.information_state_string(seat) == state.information_state_string(seat)
            assert np.array_equal(draw.observation_tensor(seat), state.observation_tensor(seat))
    # seat 1 holds the jack; a redraw for it deals seat 0 the queen or the king, never the jack
    assert {state.resample(1, np.random.default_rng(k)).history[0] for k in range(40)} == {1, 2}
    with pytest.raises(BoardlabError, match="fixes no state"):
        game.state_from_notation(state.notation())


def test_a_game_openspiel_cannot_resample_is_redrawn_by_replay():
    game = make("openspiel:liars_dice")
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    while len(state.history) < 4:
        outcomes = state.chance_outcomes() if state.is_chance_node() else [(a, 1.0) for a in state.legal_actions()]
        state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
    mine = state.information_state_string(0)
    draws = {tuple(state.resample(0, np.random.default_rng(k)).history) for k in range(20)}
    assert len(draws) > 1 and all(game.state_from_history(list(h)).information_state_string(0) == mine for h in draws)


def test_records_replay_and_json_round_trips():
    game = make("openspiel:leduc_poker")
    agents = [make_agent("random"), make_agent("mcts:iterations=30")]
    record = play_game(game, agents, seed=4)
    again = GameRecord.from_dict(json.loads(record.to_json()))
    assert again.game == "openspiel" and again.params == {"name": "leduc_poker"}
    assert again.replay().returns() == record.returns
    state = game.state_from_history(record.actions[:5])
    assert game.state_from_json(state.to_json()).history == state.history


@pytest.mark.parametrize("spec", [
    "openspiel:hex:board_size=5",                        # perfect information
    "openspiel:kuhn_poker",                              # hidden cards, OpenSpiel's resample
    "openspiel:leduc_poker:players=3",                   # three seats
    "openspiel:liars_dice",                              # hidden dice, resampled by replay
    "openspiel:pig:winscore=20",                         # chance nodes with perfect information
    "openspiel:turn_based_simultaneous_game:game=goofspiel(num_cards=4)",  # a game as a parameter
])
def test_openspiel_games_pass_the_conformance_suite(spec, tmp_path):
    check_game(spec, examples=8, scratch=tmp_path)


def test_mcts_trees_of_an_openspiel_game_reopen_with_their_game(tmp_path):
    game = make("openspiel:hex:board_size=5")
    agent = make_agent("mcts:iterations=200,seed=1", game)
    state = game.state_from_history([12, 7])
    agent.step(state)
    tree = agent.last_tree().tree()
    assert tree.state[0] == "[openspiel:hex:board_size=5] 0:12 7"
    for suffix in (".tree", ".csv"):
        save_tree(tree, tmp_path / f"t{suffix}")
        again = load_tree(tmp_path / f"t{suffix}")
        assert gamelabels.identify(again)[0] == game
        assert np.array_equal(again.player, tree.player)
    assert gamelabels.state_at(tree, 1, game).history[:2] == [12, 7]


# --- OpenSpiel's bots --------------------------------------------------------------------
@pytest.fixture()
def tictactoe_example(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    with plugins.games.registered("tictactoe", "tictactoe:TicTacToe"):
        yield make("tictactoe")
    sys.modules.pop("tictactoe", None)


def test_bots_play_where_openspiel_can_follow(tictactoe_example):
    for spec, where in (("connect4", "twin"), ("mancala", "twin"), ("chess:max_moves=30", "twin"),
                        ("openspiel:hex:board_size=5", "pyspiel")):
        game = make(spec)
        bot = make_agent("openspiel-mcts:iterations=50", game)
        record = play_game(game, [bot, make_agent("openspiel-random", game)], seed=2)
        assert bot.last_search["where"] == where, spec
        record.replay()
    bot = make_agent("openspiel-mcts:iterations=200", tictactoe_example)
    play_game(tictactoe_example, [make_agent("random"), bot], seed=1).replay()
    assert bot.last_search["where"] == "python"  # OpenSpiel's Python MCTSBot on boardlab's rules


def test_bots_are_seeded_by_the_arena():
    game = make("connect4")
    first = play_game(game, [make_agent("openspiel-mcts:iterations=300"), make_agent("openspiel-random")], seed=5)
    again = play_game(game, [make_agent("openspiel-mcts:iterations=300"), make_agent("openspiel-random")], seed=5)
    other = play_game(game, [make_agent("openspiel-mcts:iterations=300"), make_agent("openspiel-random")], seed=6)
    assert first.actions == again.actions and first.actions != other.actions


def test_openspiel_mcts_is_strong_on_the_twin():
    result = duel(make("connect4"), "openspiel-mcts:iterations=1000", "random", 10, seed=3)
    assert result.wins == 10


def test_a_twin_that_parts_from_boardlab_hands_the_game_to_the_python_bot():
    # threefold repetition: OpenSpiel's chess is drawn, boardlab's goes on (it stops at the fifth)
    game = make("chess:fen=7k/8/8/8/8/8/8/KR6 w - - 0 1")
    state = game.state_from_moves("Rb2 Kg8 Rb1 Kh8 Rb2 Kg8 Rb1 Kh8")
    assert not state.is_terminal()
    bot = make_agent("openspiel-mcts:iterations=20", game)
    bot.reset(game, 0, 1)
    assert bot.step(state) in state.legal_actions() and bot.last_search["where"] == "python"


def test_search_bots_refuse_what_they_would_cheat_at():
    for spec in ("nothanks", "openspiel:kuhn_poker"):
        with pytest.raises(SpecError, match="would see what is hidden"):
            make_agent("openspiel-mcts", make(spec))
    with pytest.raises(SpecError, match="plays OpenSpiel games"):
        make_agent("openspiel-ismcts", make("nothanks"))
    with pytest.raises(SpecError, match="needs a model: openspiel-az:path="):
        make_agent("openspiel-az", make("connect4"))


def test_openspiel_ismcts_plays_hidden_information_games():
    # (OpenSpiel's ISMCTSBot is not reproducible from one process to the next, so its strength is
    # measured on enough games: about +0.24 chips a game against random play, 200 games)
    game = make("openspiel:kuhn_poker")
    total = 0.0
    for seed in range(200):
        seat = seed % 2
        agents = [make_agent("random"), make_agent("random")]
        agents[seat] = make_agent("openspiel-ismcts:iterations=300", game)
        total += play_game(game, agents, seed=seed).returns[seat]
    assert total / 200 > 0.05


def test_openspiel_az_says_what_is_missing(tmp_path):
    agent = make_agent(f"openspiel-az:path={tmp_path}", make("openspiel"))
    agent.reset(make("openspiel"), 0, 1)
    with pytest.raises(BoardlabError, match="not an OpenSpiel alpha_zero run"):
        agent.step(make("openspiel").new_initial_state())


def test_a_tournament_puts_boardlab_and_openspiel_agents_in_one_table(tmp_path):
    store = str(tmp_path / "results.sqlite")
    result = runner.invoke(app, ["tournament", "--game", "openspiel:hex:board_size=4", "--agents", "mcts:iterations=50",
                                 "openspiel-mcts:iterations=50", "openspiel-random", "--games", "4", "--workers", "2",
                                 "--store", store, "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    summary = lines[-1]
    assert summary["config"]["game"] == "openspiel:hex:board_size=4" and summary["played"] == 12
    assert {row["agent"] for row in summary["agent_table"]} == {"mcts:iterations=50", "openspiel-mcts:iterations=50", "openspiel-random"}
    report = runner.invoke(app, ["report", store, "--json", "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    seats = json.loads(report.output)["tournaments"][0]["seat_table"]
    assert seats


def test_openspiel_az_plays_with_a_model_from_an_openspiel_alpha_zero_run(tmp_path):
    """Needs JAX (OpenSpiel's AlphaZero runs on it), which boardlab does not install: skipped without it."""
    pytest.importorskip("flax")
    from open_spiel.python.algorithms.alpha_zero import utils

    game = pyspiel.load_game("tic_tac_toe")
    config = {"game": "tic_tac_toe", "nn_model": "mlp", "nn_width": 32, "nn_depth": 2, "weight_decay": 1e-4,
              "learning_rate": 1e-3, "observation_shape": list(game.observation_tensor_shape()),
              "output_size": game.num_distinct_actions(), "nn_api_version": "nnx"}
    model = utils.api_selector("nnx").Model.build_model(
        config["nn_model"], config["observation_shape"], config["output_size"], config["nn_width"], config["nn_depth"],
        config["weight_decay"], config["learning_rate"], str(tmp_path))
    model.save_checkpoint(-1)  # an untrained network, saved as alpha_zero.py saves its latest
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = duel(make("openspiel"), f"openspiel-az:path={tmp_path},iterations=50", "random", 2, seed=1)
    assert result.games == 2
    other = make("openspiel:hex:board_size=3")
    agent = make_agent(f"openspiel-az:path={tmp_path}", other)
    agent.reset(other, 0, 1)
    with pytest.raises(BoardlabError, match="trained on tic_tac_toe"):
        agent.step(other.new_initial_state())


def test_playing_a_hidden_card_game_in_the_terminal_shows_only_the_players_view():
    result = runner.invoke(app, ["play", "openspiel:kuhn_poker", "--agent", "random", "--seed", "2", "--seat", "2"],
                           input="Bet\nPass\nBet\n")
    assert result.exit_code == 0, result.output
    assert not [line for line in result.output.splitlines() if "Deal" in line]  # no card is ever named
    assert "chance moved" in result.output and "result:" in result.output


def test_games_and_states_pickle_for_worker_processes():
    import pickle

    for spec in ("openspiel:hex:board_size=5", "openspiel:kuhn_poker"):
        game = make(spec)
        game.playout_kernel()  # holds pyspiel objects, made again on the other side
        state = game.state_from_history([0, 1] if game.has_hidden_information else [12, 7])
        again = pickle.loads(pickle.dumps(state))
        assert again.game == game and again.history == state.history and again.notation() == state.notation()
        drawn = state.resample(0, np.random.default_rng(3)) if game.has_hidden_information else state
        assert pickle.loads(pickle.dumps(drawn)).history == drawn.history


def test_the_web_server_caps_openspiel_bots_without_turning_iterations_into_a_time():
    # OpenSpiel's C++ bots search for max_time whatever max_simulations says: the server's usual
    # "iterations, and the time limit as well" would make every move take the server's whole limit
    from boardlab.web.limits import ServerLimits, server_caps

    limits = ServerLimits()
    assert server_caps("mcts", {"iterations": 1000, "time": None}, limits)["time"] == limits.max_ai_seconds
    for name in ("openspiel-mcts", "openspiel-ismcts"):
        assert "time" not in server_caps(name, make_agent(name).config, limits)
    game = make("openspiel:tic_tac_toe")
    agent = make_agent("openspiel-mcts:iterations=50", game)
    agent.reset(game, 0, seed=1)
    state = game.new_initial_state()
    assert agent.step(state) in state.legal_actions()
