import json
import re

import pytest
from c4_reference import ReferenceConnectFour
from hypothesis import given
from hypothesis import strategies as st

from boardlab.core.errors import IllegalActionError, SpecError
from boardlab.games import make

sizes = st.sampled_from([(6, 7, 4), (4, 5, 3), (7, 8, 4), (5, 5, 5), (6, 9, 4), (3, 3, 3), (8, 6, 5), (2, 2, 2)])


def random_game(game, choices):
    """Play the game using the drawn integers as choices among legal actions."""
    state = game.new_initial_state()
    for choice in choices:
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[choice % len(legal)])
    return state


@given(size=sizes, choices=st.lists(st.integers(0, 1000), min_size=100, max_size=100))
def test_random_play_ends_with_exactly_one_result(size, choices):
    rows, cols, k = size
    game = make("connect4", rows=rows, cols=cols, k=k)
    state = random_game(game, choices)
    assert len(state.history) <= rows * cols
    assert state.is_terminal()  # 100 choices cover every board here (at most 64 cells)
    returns = state.returns()
    assert sum(returns) == 0
    won = returns[0] != 0
    tie = state.result() == "tie"
    assert won != tie
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError):
        state.apply_action(0)


@given(size=sizes, choices=st.lists(st.integers(0, 1000), min_size=1, max_size=80))
def test_bitboard_matches_reference(size, choices):
    rows, cols, k = size
    game = make("connect4", rows=rows, cols=cols, k=k)
    state = game.new_initial_state()
    ref = ReferenceConnectFour(rows, cols, k)
    for choice in choices:
        assert state.legal_actions() == ref.legal()
        assert state.is_terminal() == ref.terminal()
        if ref.terminal():
            break
        legal = ref.legal()
        action = legal[choice % len(legal)]
        state.apply_action(action)
        ref.play(action)
        assert state.grid() == ref.grid()
        assert state.winner == ref.winner


@given(choices=st.lists(st.integers(0, 1000), min_size=50, max_size=50))
def test_mirror_mirrors_board_and_keeps_result(choices):
    game = make("connect4")
    state = random_game(game, choices)
    mirrored = state.mirror()
    assert mirrored.grid() == [row[::-1] for row in state.grid()]
    assert mirrored.returns() == state.returns()
    assert mirrored.mirror().grid() == state.grid()


@given(choices=st.lists(st.integers(0, 1000), min_size=50, max_size=50))
def test_switch_players_swaps_winner(choices):
    game = make("connect4")
    state = random_game(game, choices)
    switched = state.switch_players()
    assert switched.grid() == [[-1 if v < 0 else 1 - v for v in row] for row in state.grid()]
    assert switched.returns() == state.returns()[::-1]
    assert switched.switch_players().grid() == state.grid()


def test_switch_players_hands_the_move_to_the_other_colour():
    state = make("connect4").state_from_moves("44")
    switched = state.switch_players()
    assert state.current_player() == 0 and switched.current_player() == 1
    switched.apply_action(0)
    assert switched.cell(0, 0) == 1


def test_vertical_horizontal_and_diagonal_wins():
    game = make("connect4")
    assert game.state_from_moves("4545454").result() == "Red (X) wins"
    assert game.state_from_moves("1122334").result() == "Red (X) wins"
    rising = game.state_from_grid(["......."] * 2 + ["...X...", "..XO...", ".XOO...", "XOOX..."])
    assert rising.result() == "Red (X) wins"
    falling = game.state_from_grid(["......."] * 2 + ["O......", "XO.....", "XXO....", "XXXO..O"])
    assert falling.result() == "Yellow (O) wins"
    assert game.state_from_grid(["......."] * 5 + ["XXX.OOO"]).result() == "in play"


def test_full_board_without_line_is_a_tie():
    game = make("connect4", rows=3, cols=3, k=3)
    state = game.state_from_grid(["XOX", "XOX", "OXO"], to_move=0)
    assert state.is_terminal() and state.result() == "tie" and state.returns() == [0.0, 0.0]


def test_json_round_trip_and_moves_notation():
    game = make("connect4")
    state = game.state_from_moves("4453")
    copy = game.state_from_json(state.to_json())
    assert copy.grid() == state.grid() and copy.history == [3, 3, 4, 2]
    assert state.notation() == "4453" and state.observation()["to_move"] == 0
    switched = state.switch_players()
    assert json.loads(switched.to_json())["start"] == "......./......./......./......./...X.../..XOO.. O"
    again = game.state_from_json(switched.to_json())
    assert again.grid() == switched.grid() and again.current_player() == switched.current_player()
    assert game.state_from_notation(switched.notation()).grid() == switched.grid()


def test_illegal_moves_are_explained():
    game = make("connect4", rows=2, cols=3, k=2)
    state = game.state_from_moves("11")
    with pytest.raises(IllegalActionError, match="column 1 is full"):
        state.string_to_action("1")
    with pytest.raises(IllegalActionError, match="does not exist"):
        state.string_to_action("9")
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply_action(0)
    with pytest.raises(IllegalActionError, match="move 3"):
        game.state_from_moves("111")


def test_too_large_board_names_the_limit():
    with pytest.raises(SpecError, match="at most 64"):
        make("connect4", rows=8, cols=9)
    with pytest.raises(SpecError, match="cannot fit"):
        make("connect4", rows=3, cols=3, k=4)
    with pytest.raises(SpecError, match="unknown option 'size'"):
        make("connect4", size=3)
    make("connect4", rows=7, cols=8)  # 8 * 8 = 64 bits: the largest width at this height


def test_text_rendering():
    text = str(make("connect4").state_from_moves("44"))
    lines = text.splitlines()
    assert lines[-3] == ". . . X . . ."
    assert lines[-4] == ". . . O . . ."
    assert lines[-2] == "1 2 3 4 5 6 7"
    assert lines[-1] == "Red (X) to move"
    assert str(make("connect4").state_from_moves("445")).splitlines()[-1] == "Yellow (O) to move"
    assert str(make("connect4").state_from_moves("4545454")).splitlines()[-1] == "Red (X) wins"


def test_the_terminal_names_each_player_one_way():
    """search and play name the players as the game declares them (Red, Yellow), on the board's lines too."""
    from typer.testing import CliRunner

    from boardlab.cli import app

    runner = CliRunner()
    searched = runner.invoke(app, ["search", "--game", "connect4", "--position", "4,4,5", "--agent", "mcts:iterations=50"])
    assert searched.exit_code == 0, searched.output
    assert "Yellow (O) to move" in searched.stdout and "(Yellow to move)" in searched.stdout
    # a person playing Red fills the columns from the left (a full one is refused and the next typed): the game ends
    played = runner.invoke(app, ["play", "connect4", "--agent", "random:seed=1", "--seed", "3"],
                           input="".join(f"{column}\n" * 6 for column in range(1, 8)))
    final = played.stdout.split("result:")[0].rstrip().splitlines()[-1]
    assert final in ("Red (X) wins", "Yellow (O) wins", "tie"), played.output
    assert "Red (X) to move" in played.stdout  # the board the person is shown before each move
    for output in (searched.stdout, played.stdout):
        assert not re.search(r"^[XO] (to move|wins)", output, re.MULTILINE)  # a glyph alone never names a player


def test_clone_is_independent():
    state = make("connect4").state_from_moves("4")
    copy = state.clone()
    copy.apply_action(0)
    assert state.history == [3] and copy.history == [3, 0]
