import json
import random

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boardlab.cli import app
from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError
from boardlab.core.game import TERMINAL
from boardlab.core.registry import make
from boardlab.games.chess import EVAL_BOUND, NUM_ACTIONS, decode_action, encode_move, evaluate_material

# pawns on the seventh rank for both sides, next to rooks they can take: promotions of
# every kind, straight and capturing both ways, and castling on both wings
PROMOTIONS_FEN = "r3k2r/pPppppPp/8/8/8/8/PpPPPPpP/R3K2R w KQkq - 0 1"


def random_positions(fen, games, seed):
    game = make("chess", fen=fen)
    rnd = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            yield state
            state.apply_action(rnd.choice(state.legal_actions()))


def test_encoding_round_trips_every_legal_move_of_thousands_of_positions():
    positions = 0
    seen_kinds = set()
    for fen, games in ((chess.STARTING_FEN, 12), (PROMOTIONS_FEN, 40)):
        for state in random_positions(fen, games, seed=len(fen)):
            board = state.board
            moves = list(board.legal_moves)
            actions = [encode_move(m) for m in moves]
            assert len(set(actions)) == len(moves)
            assert all(0 <= a < NUM_ACTIONS for a in actions)
            assert sorted(actions) == state.legal_actions()
            for move, action in zip(moves, actions):
                assert decode_action(action, board) == move
                assert state.action_to_move(action) == move
                if move.promotion:
                    seen_kinds.add(("promotion", move.promotion, chess.square_file(move.to_square) - chess.square_file(move.from_square)))
                if board.is_castling(move):
                    seen_kinds.add("castling")
                if board.is_en_passant(move):
                    seen_kinds.add("en passant")
            positions += 1
    assert positions >= 3000
    # every promotion piece in every direction, castling and en passant were among them
    assert {("promotion", p, d) for p in (2, 3, 4, 5) for d in (-1, 0, 1)} <= seen_kinds
    assert {"castling", "en passant"} <= seen_kinds


def test_action_numbers_follow_the_documented_formula():
    board = chess.Board(PROMOTIONS_FEN)
    assert encode_move(chess.Move.from_uci("e1g1")) == chess.E1 * 64 + chess.G1  # castling: the king's move
    assert encode_move(chess.Move.from_uci("b7a8q")) == chess.B7 * 64 + chess.A8
    # b7 takes on a8 and becomes a knight: target a8 -> 0, direction file b - file a + 1 = 2, knight 0
    assert encode_move(chess.Move.from_uci("b7a8n")) == 4096 + (0 * 3 + 2) * 3 + 0
    # black's g2 takes on h1 as a rook: target h1 -> 8 + 7, direction g - h + 1 = 0, rook 2
    assert encode_move(chess.Move.from_uci("g2h1r")) == 4096 + (15 * 3 + 0) * 3 + 2
    assert decode_action(chess.B7 * 64 + chess.B8, board) == chess.Move.from_uci("b7b8q")
    assert NUM_ACTIONS == make("chess").num_distinct_actions() == 4240
    with pytest.raises(IllegalActionError, match="outside"):
        decode_action(NUM_ACTIONS, board)


@settings(max_examples=12)
@given(st.integers(0, 2**32), st.sampled_from([chess.STARTING_FEN, PROMOTIONS_FEN]))
def test_random_play_ends_with_a_consistent_result(seed, fen):
    game = make("chess", fen=fen)
    state = game.new_initial_state()
    rnd = random.Random(seed)
    while not state.is_terminal():
        assert state.current_player() == (0 if state.board.turn else 1)
        state.apply_action(rnd.choice(state.legal_actions()))
    assert len(state.history) <= 300 and state.legal_actions() == []
    reason = state.end_reason()
    board = state.board
    expected = {
        "checkmate": board.is_checkmate(), "stalemate": board.is_stalemate(),
        "insufficient material": board.is_insufficient_material(),
        "seventy-five-move rule": board.is_seventyfive_moves(),
        "fivefold repetition": board.is_fivefold_repetition(), "maximum length": len(state.history) == 300,
    }
    assert expected[reason]
    assert state.returns() == ([0.0, 0.0] if reason != "checkmate" else ([-1.0, 1.0] if board.turn else [1.0, -1.0]))
    result = board.result(claim_draw=False) if reason != "maximum length" else "1/2-1/2"
    assert state.returns() == {"1-0": [1.0, -1.0], "0-1": [-1.0, 1.0], "1/2-1/2": [0.0, 0.0]}[result]
    again = game.state_from_json(state.to_json())
    assert again.fen() == state.fen() and again.end_reason() == reason
    with pytest.raises(IllegalActionError, match="over"):
        state.apply_action(0)


def play(state, *moves):
    for text in moves:
        state.apply_action(state.string_to_action(text))
    return state


def test_checkmate_and_draw_rules_on_hand_made_positions():
    game = make("chess")
    mated = game.state_from_moves("f3 e5 g4 Qh4#")
    assert mated.end_reason() == "checkmate" and mated.returns() == [-1.0, 1.0] and mated.result() == "0-1"
    assert mated.current_player() < 0 and "0-1 (checkmate)" in str(mated)

    stalemate = game.state_from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stalemate.end_reason() == "stalemate" and stalemate.returns() == [0.0, 0.0]

    bare_kings = game.state_from_fen("8/8/8/4k3/8/8/8/4K3 w - - 0 1")
    assert bare_kings.end_reason() == "insufficient material"
    assert game.state_from_fen("8/8/8/4k3/8/8/8/4KN2 w - - 0 1").is_terminal()
    last_piece = game.state_from_fen("8/8/8/4k3/8/8/4r3/4K3 w - - 0 1")
    assert not last_piece.is_terminal()
    play(last_piece, "Kxe2")
    assert last_piece.end_reason() == "insufficient material" and last_piece.returns() == [0.0, 0.0]

    # 75-move rule: the 150th ply without capture or pawn move ends the game ...
    quiet = game.state_from_fen("8/8/8/4k3/8/8/8/R3K3 w - - 149 80")
    assert not quiet.is_terminal()
    play(quiet, "Ra2")
    assert quiet.end_reason() == "seventy-five-move rule" and quiet.returns() == [0.0, 0.0]
    # ... unless it mates, and a capture resets the count
    assert play(game.state_from_fen("7k/8/6K1/8/8/8/8/R7 w - - 149 80"), "Ra8#").returns() == [1.0, -1.0]
    assert not play(game.state_from_fen("7k/8/6K1/8/8/8/8/R5n1 w - - 149 80"), "Rxg1").is_terminal()

    # fivefold repetition: the start position a fifth time ends the game; threefold does not
    dance = game.new_initial_state()
    for _cycle in range(4):
        assert not dance.is_terminal()
        play(dance, "Nf3", "Nf6", "Ng1", "Ng8")
    assert dance.end_reason() == "fivefold repetition" and dance.returns() == [0.0, 0.0]
    assert len(dance.history) == 16

    short = make("chess", max_moves=4).state_from_moves("e4 e5 Nf3")
    assert not short.is_terminal()
    play(short, "Nc6")
    assert short.end_reason() == "maximum length" and short.legal_actions() == []
    with pytest.raises(IllegalActionError, match="over"):
        short.string_to_action("Bb5")


def test_moves_in_san_and_uci():
    game = make("chess")
    state = game.new_initial_state()
    assert state.string_to_action("Nf3") == state.string_to_action("g1f3") == chess.G1 * 64 + chess.F3
    assert state.action_to_string(chess.G1 * 64 + chess.F3) == "Nf3"
    for text, message in [("Nf4", "not a legal move"), ("e2e5", "not a legal move"), ("0000", "not a legal move"),
                          ("hello", "not a legal move")]:
        with pytest.raises(IllegalActionError, match=message):
            state.string_to_action(text)
    knights = game.state_from_fen("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1")
    with pytest.raises(IllegalActionError, match="ambiguous"):
        knights.string_to_action("Nd2")
    assert knights.action_to_string(knights.string_to_action("Nbd2")) == "Nbd2"
    promo = game.state_from_fen(PROMOTIONS_FEN)
    assert promo.action_to_string(promo.string_to_action("b7a8")) == "bxa8=Q#"  # UCI without a piece: queen
    under = promo.string_to_action("bxa8=N")
    assert under >= 4096 and promo.action_to_move(under) == chess.Move.from_uci("b7a8n")
    castle = game.state_from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert castle.action_to_string(castle.string_to_action("O-O-O")) == "O-O-O"
    assert castle.string_to_action("e1c1") == chess.E1 * 64 + chess.C1
    with pytest.raises(IllegalActionError, match="not legal"):
        castle.apply_action(chess.E1 * 64 + chess.E3)


def test_fen_in_and_out_and_json_round_trips():
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    game = make("chess", fen=fen)
    assert game.spec().startswith("chess:fen=") and make(game.spec()).fen == fen
    assert game.new_initial_state().fen() == fen
    state = game.state_from_moves("Bb5 a6")
    again = game.state_from_json(state.to_json())
    assert again.fen() == state.fen() and again.history == state.history
    seen = state.observation(1)
    view = seen["board"]
    assert view["fen"] == state.fen() == state.notation() and seen["to_move"] == 0 and view["turn"] == "white"
    assert view["last_move"] == {"uci": "a7a6", "san": "a6"} and view["check"] is False
    assert seen["result"] == "*" and seen["reason"] is None
    # a state of its own from a FEN keeps its start in JSON
    standard = make("chess")
    position = play(standard.state_from_fen(fen), "Bc4", "Nf6")
    doc = json.loads(position.to_json())
    assert doc["start"] == fen
    back = standard.state_from_json(doc)
    assert back.fen() == position.fen() and back.history == position.history
    mate = play(standard.state_from_fen("7k/8/6K1/8/8/8/8/R7 w - - 0 1"), "Ra8")
    assert mate.observation()["result"] == "1-0" and mate.observation()["board"]["check"] is True
    assert standard.player_of_notation(mate.notation()) == TERMINAL
    with pytest.raises(SpecError, match="not a FEN"):
        make("chess", fen="not a fen")
    with pytest.raises(SpecError, match="not a legal position"):
        make("chess", fen="8/8/8/8/8/8/8/8 w - - 0 1")
    with pytest.raises(BoardlabError, match="not a FEN"):
        standard.state_from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w")
    with pytest.raises(IllegalActionError, match="move 2 of the history"):
        standard.state_from_json({"game": "chess", "params": standard.params, "history": [chess.E2 * 64 + chess.E4, 0]})


def test_clone_is_independent_and_keeps_repetition_history():
    state = make("chess").state_from_moves("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1")
    copy = state.clone()
    play(copy, "Ng8")
    assert copy.end_reason() == "fivefold repetition" and not state.is_terminal()
    assert len(state.history) == 15 and state.fen() != copy.fen()


def test_evaluate_material_sign_and_range():
    game = make("chess")
    assert evaluate_material(game.new_initial_state()) == [0.0, 0.0]
    white_up_queen = game.state_from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1")
    v = evaluate_material(white_up_queen)
    assert 0.6 < v[0] < EVAL_BOUND and v[1] == -v[0]
    black_up_knight = game.state_from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1")
    v = evaluate_material(black_up_knight)
    assert -0.5 < v[0] < -0.2 and v[1] == -v[0]
    # mirrored position, colours swapped: the value changes sign
    pos = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    mirrored = pos.mirror()
    assert evaluate_material(game.state_from_fen(pos.fen()))[0] == pytest.approx(-evaluate_material(game.state_from_fen(mirrored.fen()))[0])
    # a lone queen against a bare king is a big lead, but less than a mate
    assert EVAL_BOUND > evaluate_material(game.state_from_fen("7k/8/8/8/8/8/8/1Q5K w - - 0 1"))[0] > 0.6
    assert evaluate_material(game.state_from_moves("f3 e5 g4 Qh4#")) == [-1.0, 1.0]
    assert evaluate_material(game.state_from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == [0.0, 0.0]
    for state in random_positions(chess.STARTING_FEN, 3, seed=7):
        value = evaluate_material(state)
        assert -EVAL_BOUND < value[0] < EVAL_BOUND and value[1] == -value[0]


runner = CliRunner()


def test_play_chess_in_the_terminal(tmp_path):
    record = tmp_path / "game.json"
    fen = "7k/8/6K1/8/8/8/8/R7 w - - 0 1"
    result = runner.invoke(app, ["play", f"chess:fen={fen}", "--agent", "random", "--record", str(record)],
                           input="Ra9\nRa8#\n")
    assert result.exit_code == 0, result.output
    assert "illegal move" in result.output and "'Ra9' is not a legal move" in result.output
    assert "1-0 (checkmate)" in result.output and "you win" in result.output
    data = json.loads(runner.invoke(app, ["replay", str(record), "--json"]).output)
    assert data["moves"] == ["Ra8#"] and data["returns"] == [1.0, -1.0]
    # as Black, answering a random White in UCI and SAN until the length limit
    result = runner.invoke(app, ["play", "chess:max_moves=2", "--seat", "2", "--seed", "1"],
                           input="\n".join(["a7a6", "Nf6", "h6"]) + "\n")
    assert result.exit_code == 0, result.output
    assert "1/2-1/2 (maximum length)" in result.output and "draw" in result.output


def test_duel_random_random_chess():
    result = runner.invoke(app, ["duel", "random", "random", "--game", "chess:max_moves=80", "-n", "4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["wins"] + data["draws"] + data["losses"] == 4


MATE_IN_ONE = [
    "7k/8/6K1/8/8/8/8/R7 w - - 0 1",  # Ra8#
    "6k1/5ppp/8/8/8/8/8/4R1K1 w - - 0 1",  # Re8#, back rank
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",  # Qxf7#, scholar's mate
    "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2",  # Qh4#, fool's mate
    "6k1/8/6K1/8/8/8/8/7Q w - - 0 1",  # Qa8# (Qh7+ lets the king out to f8)
    "k7/8/1K6/8/8/8/8/7R w - - 0 1",  # Rh8#
    "6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1",  # Nf7#, smothered
    "3k4/8/3K4/8/8/8/8/5Q2 w - - 0 1",  # Qf8#
    "2kr4/ppp5/8/8/8/8/5PPP/3R2K1 b - - 0 1",  # Rxd1#
    "r5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1",  # Ra1#
    "4k3/8/4K3/8/8/8/8/1R6 w - - 0 1",  # Rb8#
    "rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3",  # Qh5#
    "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1",  # Qd8#
]


@pytest.mark.parametrize("index", range(len(MATE_IN_ONE)))
def test_uct_with_material_evaluation_finds_mate_in_one(index):
    from boardlab.agents.registry import make_agent

    game = make("chess")
    state = game.state_from_fen(MATE_IN_ONE[index])
    agent = make_agent("mcts:iterations=300,eval=chess_material", game)
    agent.reset(game, state.current_player(), seed=index)
    action = agent.step(state)
    after = state.clone()
    after.apply_action(action)
    assert after.end_reason() == "checkmate", f"{state.action_to_string(action)} does not mate in {MATE_IN_ONE[index]}"
    # and the position was not a trivial one: most moves do not mate
    assert len(state.legal_actions()) >= 5


def test_mcts_judges_chess_by_material_by_default():
    from boardlab.agents.registry import make_agent

    state = make("chess").state_from_moves("e4 d5")  # exd5 wins a pawn
    agent = make_agent("mcts:iterations=300,seed=1")
    move = agent.step(state)
    children = agent.last_search["children"]
    assert sum(c["wins"] for c in children) > 0  # leaves are judged, so searches see wins
    assert state.action_to_string(move) == "exd5"
    tree = agent.last_tree().tree()
    assert tree.meta["engine"] == "generic" and tree.state[0].startswith("[chess] ")
    random_playouts = make_agent("mcts:iterations=30,seed=1,eval=none")
    random_playouts.step(state)
    assert random_playouts.last_search["simulations"] == 30


def test_default_mcts_beats_random_at_chess():
    from boardlab.arena.duel import duel

    result = duel(make("chess"), "mcts:iterations=100", "random", 2, seed=0)
    assert result.wins == 2
