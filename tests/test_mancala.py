import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boardlab.cli import app
from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError
from boardlab.core.registry import make
from boardlab.core.rng import kernel_rng
from boardlab.games.mancala import evaluate_store
from boardlab.games.mancala.kernel import reference_playout


def reference_move(south, north, stores, player, pit, empty_capture):
    """Kalah sowing written a second, independent way: the mover's cycle of places
    (own pits, own store, opponent's pits) is walked with a modulo, from the mover's view."""
    mine, theirs = (list(south), list(north)) if player == 0 else (list(north), list(south))
    stores = list(stores)
    n = len(mine)
    cycle = [("m", i) for i in range(n)] + [("s", 0)] + [("t", i) for i in range(n)]
    seeds, mine[pit] = mine[pit], 0
    place = None
    for k in range(1, seeds + 1):
        place = cycle[(pit + k) % len(cycle)]
        kind, i = place
        if kind == "m":
            mine[i] += 1
        elif kind == "s":
            stores[player] += 1
        else:
            theirs[i] += 1
    again = place == ("s", 0)
    if place[0] == "m" and mine[place[1]] == 1:
        across = n - 1 - place[1]  # pits are counted from each owner's left
        if theirs[across] or empty_capture:
            stores[player] += theirs[across] + 1
            theirs[across] = 0
            mine[place[1]] = 0
    south, north = (mine, theirs) if player == 0 else (theirs, mine)
    over = sum(south) == 0 or sum(north) == 0
    if over:
        stores = [stores[0] + sum(south), stores[1] + sum(north)]
        south, north = [0] * n, [0] * n
    return south, north, stores, (player if again else 1 - player), over


games = st.builds(
    lambda pits, seeds, ec: make("mancala", pits=pits, seeds=seeds, empty_capture=ec),
    st.integers(1, 8), st.integers(1, 7), st.booleans(),
)


@given(games, st.randoms(use_true_random=False))
def test_random_play_ends_conserves_seeds_and_matches_reference(game, rnd):
    state = game.new_initial_state()
    total = game.total_seeds()
    for _ in range(10_000):
        if state.is_terminal():
            break
        assert state.seeds_in_play() == total
        assert state.legal_actions() and all(state.pits_of(state.current_player())[a] for a in state.legal_actions())
        player = state.current_player()
        pit = rnd.choice(state.legal_actions())
        expected = reference_move(state.pits_of(0), state.pits_of(1), state.stores(), player, pit, game.empty_capture)
        state.apply_action(pit)
        south, north, stores, to_move, over = expected
        assert (state.pits_of(0), state.pits_of(1), list(state.stores())) == (south, north, stores)
        assert state.is_terminal() == over
        if not over:
            assert state.current_player() == to_move
    assert state.is_terminal() and state.legal_actions() == []
    assert state.seeds_in_play() == total
    s, n = state.stores()
    assert state.returns() == ([1.0, -1.0] if s > n else [-1.0, 1.0] if n > s else [0.0, 0.0])
    # the record of the game replays to the same position, also through JSON
    again = game.state_from_json(state.to_json())
    assert again.board == state.board and again.history == state.history


@settings(max_examples=30)
@given(games, st.integers(0, 2**32))
def test_kernel_plays_the_reference_playout(game, seed):
    state = game.new_initial_state()
    kernel = game.playout_kernel()
    final = kernel.final_board(state, kernel_rng(seed))
    reference = reference_playout(state, seed)
    assert list(final) == reference.board
    assert kernel.playout_returns(state, kernel_rng(seed)) == reference.returns()


def test_last_seed_in_store_gives_another_turn():
    game = make("mancala")
    state = game.state_from_moves("c")  # 4 seeds from c: d, e, f, store
    assert state.stores() == (1, 0)
    assert state.current_player() == 0
    assert "South to move" in str(state)
    state.apply_action(state.string_to_action("f"))  # 5 seeds from f: store, A..D
    assert state.current_player() == 1
    # the same for North, whose store follows its pit F
    state = game.state_from_board([4] * 6, [4, 4, 4, 4, 4, 1], to_move=1)
    state.apply_action(state.string_to_action("F"))
    assert state.stores() == (0, 1) and state.current_player() == 1


def test_capture_takes_the_opposite_pit():
    game = make("mancala")
    # South's a holds 1: it lands in the empty b; opposite b is North's E (5 seeds)
    state = game.state_from_board([1, 0, 0, 0, 0, 2], [1, 1, 1, 1, 5, 1])
    state.apply_action(state.string_to_action("a"))
    assert state.pits_of(0) == [0, 0, 0, 0, 0, 2]
    assert state.pits_of(1) == [1, 1, 1, 1, 0, 1]
    assert state.stores() == (6, 0)
    assert state.current_player() == 1  # a capture ends the turn
    # North captures the same way: from A into the empty B, opposite South's e
    state = game.state_from_board([1, 1, 1, 1, 7, 1], [1, 0, 0, 0, 0, 2], to_move=1)
    state.apply_action(state.string_to_action("A"))
    assert state.pits_of(0) == [1, 1, 1, 1, 0, 1] and state.stores() == (0, 8)


@pytest.mark.parametrize("empty_capture", [False, True])
def test_capture_against_an_empty_pit_depends_on_the_variant(empty_capture):
    game = make("mancala", empty_capture=empty_capture)
    state = game.state_from_board([1, 0, 0, 0, 0, 2], [1, 1, 1, 1, 0, 1])
    state.apply_action(0)
    if empty_capture:
        assert state.pits_of(0) == [0, 0, 0, 0, 0, 2] and state.stores() == (1, 0)
    else:
        assert state.pits_of(0) == [0, 1, 0, 0, 0, 2] and state.stores() == (0, 0)
    assert state.pits_of(1) == [1, 1, 1, 1, 0, 1]
    assert state.current_player() == 1


def test_a_lap_sows_into_the_origin_pit_and_skips_the_opponents_store():
    game = make("mancala")
    # 13 seeds from a: b..f, store, A..F, (not North's store), a again, which was empty -> capture
    state = game.state_from_board([13, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 2])
    state.apply_action(0)
    # North's F (opposite a) got one seed and held 3; the last seed in a captures them
    assert state.pits_of(0) == [0, 1, 1, 1, 1, 1]
    assert state.pits_of(1) == [1, 1, 1, 1, 1, 0]
    assert state.stores() == (1 + 3 + 1, 0)
    # 14 seeds end one past the origin, in b (which got a seed in the lap: no capture)
    state = game.state_from_board([14, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    state.apply_action(0)
    assert state.pits_of(0) == [1, 2, 1, 1, 1, 1] and state.stores() == (1, 0)
    assert state.pits_of(1) == [2, 1, 1, 1, 1, 1]


def test_known_endgames():
    game = make("mancala")
    # South's last seed goes into its store: South's side is empty, the game ends
    # even though South would move again; North sweeps its 9 seeds: 21 + 1 vs 17 + 9
    state = game.state_from_board([0, 0, 0, 0, 0, 1], [4, 0, 0, 0, 0, 5], (21, 17))
    state.apply_action(state.string_to_action("f"))
    assert state.is_terminal() and state.current_player() < 0
    assert state.stores() == (22, 26) and state.returns() == [-1.0, 1.0]
    assert str(state).splitlines()[-1] == "North wins 26-22"
    # a capture that empties North's side ends it; South sweeps the rest
    state = game.state_from_board([1, 0, 0, 0, 0, 3], [0, 0, 0, 0, 4, 0], (20, 20))
    state.apply_action(0)
    assert state.is_terminal() and state.stores() == (28, 20) and state.returns() == [1.0, -1.0]
    assert str(state).splitlines()[-1] == "South wins 28-20"
    # chained extra turns: e ends in the store, then f does, and South's side is empty
    state = game.state_from_board([0, 0, 0, 0, 2, 0], [0, 0, 0, 0, 0, 1], (23, 22))
    state.apply_action(4)
    assert not state.is_terminal() and state.current_player() == 0 and state.stores() == (24, 22)
    state.apply_action(5)
    assert state.is_terminal() and state.stores() == (25, 23) and state.returns() == [1.0, -1.0]
    state = game.state_from_board([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 2], (22, 23))
    state.apply_action(5)
    assert state.stores() == (23, 25) and state.returns() == [-1.0, 1.0]
    state = game.state_from_board([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 1, 0], (23, 23))
    state.apply_action(5)  # an equal split is a draw
    assert state.is_terminal() and state.stores() == (24, 24) and state.returns() == [0.0, 0.0]
    assert state.observation()["result"] == "draw" and str(state).splitlines()[-1] == "draw 24-24"
    # a position with an empty side is over from the start
    assert game.state_from_board([0] * 6, [1] * 6, (20, 21)).returns() == [-1.0, 1.0]


def test_labels_errors_and_parameters():
    game = make("mancala:pits=4,seeds=3")
    state = game.new_initial_state()
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["a", "b", "c", "d"]
    assert state.string_to_action("B") == state.string_to_action("2") == 1
    for text, message in [("e", "not a pit"), ("9", "does not exist"), ("xx", "not a pit")]:
        with pytest.raises(IllegalActionError, match=message):
            state.string_to_action(text)
    state.apply_action(0)  # a: b, c, d -> North to move
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["A", "B", "C", "D"]
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply_action(7)
    empty = game.state_from_board([1, 1, 1, 1], [0, 2, 2, 2], to_move=1)
    with pytest.raises(IllegalActionError, match="pit A is empty"):
        empty.string_to_action("a")
    with pytest.raises(IllegalActionError):
        empty.apply_action(0)
    for spec, message in [("mancala:pits=0", "between 1 and 26"), ("mancala:seeds=0", "between 1 and 100"), ("mancala:seeds=1000000000", "between 1 and 100"),
                          ("mancala:empty_capture=maybe", "true or false"), ("mancala:holes=6", "unknown option")]:
        with pytest.raises(SpecError, match=message):
            make(spec)
    with pytest.raises(BoardlabError, match="6 pits per side"):
        make("mancala").state_from_board([1] * 5, [1] * 6)
    assert make("mancala", empty_capture="true").spec() == "mancala:empty_capture=True"


def test_board_view_and_json_round_trip():
    game = make("mancala")
    state = game.state_from_moves("c a")
    view = state.observation(1)
    assert view["board"] == {"pits": [[0, 5, 1, 6, 6, 5], [4, 4, 4, 4, 4, 4]], "stores": [1, 0]}
    assert view["to_move"] == 1 and view["result"] == "in play" and view == state.observation(0)
    assert state.notation() == "0,5,1,6,6,5/1/4,4,4,4,4,4/0 N"
    again = game.state_from_json(state.to_json())
    assert again.board == state.board and again.current_player() == 1
    custom = game.state_from_board([0, 0, 2, 0, 0, 1], [3, 0, 0, 0, 0, 1], (10, 31), to_move=1)
    custom.apply_action(0)
    doc = json.loads(custom.to_json())
    assert doc["start"] == "0,0,2,0,0,1/10/3,0,0,0,0,1/31 N"
    again = game.state_from_json(doc)
    assert again.board == custom.board and again.history == [0] and again.current_player() == custom.current_player()
    with pytest.raises(BoardlabError, match="parameters"):
        make("mancala", empty_capture=True).state_from_json(doc)
    text = str(custom)
    # North's A sowed B, C, D; D was empty and South's c (2 seeds) lies opposite: 31 + 3
    assert custom.pits_of(0) == [0, 0, 0, 0, 0, 1] and custom.pits_of(1) == [0, 1, 1, 0, 0, 1]
    assert "North" in text and "South to move" in text and "34" in text


def test_evaluate_store_sign_range_and_exact_values():
    game = make("mancala")
    assert evaluate_store(game.new_initial_state()) == [0.0, 0.0]
    ahead = game.state_from_board([4, 4, 4, 4, 0, 0], [4, 4, 4, 4, 4, 0], (10, 2))
    v = evaluate_store(ahead)
    assert 0 < v[0] < 1 and v[1] == -v[0]
    # equal stores: seeds left on a side count half a seed against their owner (SIDE_WEIGHT)
    hoard = evaluate_store(game.state_from_board([4] * 6, [1] * 6, (10, 10)))
    assert hoard[0] == pytest.approx(math.tanh(3 * (-0.5 * (24 - 6)) / 50)) and hoard[1] == -hoard[0]
    assert evaluate_store(game.state_from_board([1] * 6, [1] * 6, (25, 11))) == [1.0, -1.0]  # > half banked
    over = game.state_from_board([0] * 6, [1] * 6, (20, 22))
    assert evaluate_store(over) == over.returns() == [-1.0, 1.0]
    state = game.new_initial_state()
    rng = kernel_rng(5)
    kernel = game.playout_kernel()
    while not state.is_terminal():
        value = evaluate_store(state)
        assert -1.0 <= value[0] <= 1.0 and value[0] == -value[1]
        legal = state.legal_actions()
        state.apply_action(legal[int(kernel.final_board(state, rng)[0]) % len(legal)])


runner = CliRunner()


def test_play_mancala_in_the_terminal(tmp_path):
    record = tmp_path / "game.json"
    # always try pits a..f (and 1..6) in turn: empty pits are refused with a message
    moves = "\n".join(["z"] + list("abcdef123456") * 40) + "\n"
    result = runner.invoke(app, ["play", "mancala", "--agent", "random", "--seed", "2", "--record", str(record)], input=moves)
    assert result.exit_code == 0, result.output
    assert "illegal move" in result.output and "not a pit" in result.output
    assert "South to move" in result.output and "result:" in result.output
    replayed = runner.invoke(app, ["replay", str(record), "--json"])
    final = json.loads(replayed.output)["final"]
    assert sum(final["board"]["stores"]) == 48 and final["result"] != "in play" and final["notation"].endswith(" -")


def test_duel_random_random_mancala():
    result = runner.invoke(app, ["duel", "random", "random", "--game", "mancala:empty_capture=true", "-n", "40", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["wins"] + data["draws"] + data["losses"] == 40
