"""boardlab's Connect Four, Kalah and chess against OpenSpiel's, move for move on random games.

Each game is played at random on boardlab and, through the game's registered
OpenSpiel twin (``boardlab.openspiel_twins``: the action translations the
``openspiel-*`` agents use), on OpenSpiel at the same time. At every ply both
must offer the same legal moves and agree on whether the game is over; at the
end they must give the same returns. 1,000 games per game, fast: legal-move
sets are compared as integers (OpenSpiel's chess actions decoded once per
action and side, then looked up), and the twin's own translations are
checked on the moves played.

Where the rules part (chess draws: OpenSpiel stops at the third repetition and
after 50 moves without a capture or pawn move, boardlab at the fifth, after 75
and at ``max_moves``), a game stops there and the test checks that the reason
is that documented difference and nothing else.

Skipped only when OpenSpiel is not installed (CI installs it).
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from boardlab.adapters.openspiel.twin import twin_of as registered_twin  # noqa: E402
from boardlab.core.registry import make  # noqa: E402

GAMES = 1000


def twin_of(game):
    twin = registered_twin(game)
    assert twin is not None, f"{game.spec()} declares no OpenSpiel twin"
    return twin, pyspiel.load_game(twin.game)


def play_along(game, seed, legal_of, check_every=4):
    """One random game on boardlab and its twin side by side; returns (boardlab state, twin state, plies,
    why it stopped: 'end' or 'diverged')."""
    twin, os_game = twin_of(game)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    start = twin.start(state)
    theirs = os_game.new_initial_state(start) if start is not None else os_game.new_initial_state()
    ply = 0
    while True:
        mine_over, theirs_over = state.is_terminal(), theirs.is_terminal()
        if mine_over != theirs_over:
            assert twin.diverged(state, theirs), f"{game.spec()} seed {seed} ply {ply}: one says over, the other not"
            return state, theirs, ply, "diverged"
        if mine_over:
            returns = theirs.returns()
            assert list(state.returns()) == [returns[twin.seats[p]] for p in range(game.num_players())], (
                f"{game.spec()} seed {seed}: returns {state.returns()} vs OpenSpiel {returns} (seats {twin.seats})")
            return state, theirs, ply, "end"
        legal = state.legal_actions()
        assert theirs.current_player() == twin.seats[state.current_player()], f"{game.spec()} seed {seed} ply {ply}: player to move"
        assert sorted(legal) == legal_of(state, theirs), f"{game.spec()} seed {seed} ply {ply}: legal moves differ"
        action = legal[int(rng.integers(len(legal)))]
        translated = twin.to_openspiel(state, action, theirs)
        if ply % check_every == 0:  # the twin's reverse translation, on the move played
            assert twin.from_openspiel(state, translated, theirs) == action
        theirs.apply_action(translated)
        state.apply_action(action)
        ply += 1


def test_connect_four_agrees_with_openspiel():
    ends = collections.Counter()
    for spec, games in (("connect4", GAMES - 100), ("connect4:rows=5,cols=6,k=4", 50), ("connect4:rows=4,cols=5,k=3", 50)):
        game = make(spec)
        for seed in range(games):
            state, _, plies, why = play_along(game, seed, lambda s, t: sorted(t.legal_actions()))
            assert why == "end"
            ends[tuple(state.returns())] += 1
    assert sum(ends.values()) == GAMES and len(ends) == 3  # wins for each side and draws all seen


def test_kalah_agrees_with_openspiel():
    game = make("mancala")
    twin, _ = twin_of(game)

    def legal(state, theirs):
        mapped = sorted(twin.from_openspiel(state, a, theirs) for a in theirs.legal_actions())
        return mapped

    ends, lengths = collections.Counter(), []
    for seed in range(GAMES):
        state, _, plies, why = play_along(game, seed, legal)
        assert why == "end"
        ends[tuple(state.returns())] += 1
        lengths.append(plies)
    assert len(ends) == 3 and max(lengths) > 60
    # the boards a twin cannot play are refused, not mistranslated
    assert registered_twin(make("mancala:empty_capture=true")) is None
    assert registered_twin(make("mancala:pits=5")) is None


#: starting positions besides the standard one: endings where random play mates, stalemates or runs out
#: of material quickly, castling both ways, en passant, promotions and under-promotions
CHESS_STARTS = [
    "4k3/8/8/8/8/8/8/4K2Q w - - 0 1",
    "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
    "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 8",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/1P4k1/8/8/8/8/5p2/2K5 w - - 0 1",
    "k7/8/8/8/8/8/2q5/K7 b - - 0 1",
    "8/8/3k4/8/3K4/3B4/8/8 w - - 0 1",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 4 5",
]


def test_chess_agrees_with_openspiel_up_to_the_draw_rules():
    decoded: dict[tuple[int, int], int] = {}  # (side to move, OpenSpiel action) -> boardlab action

    def legal(state, theirs):
        side = state.current_player()
        out = []
        for a in theirs.legal_actions():
            found = decoded.get((side, a))
            if found is None:
                import chess

                from boardlab.games.chess import encode_move

                lan = pyspiel.chess.action_to_move(a, theirs.board()).to_lan()
                found = decoded[(side, a)] = encode_move(chess.Move.from_uci(lan))
            out.append(found)
        return sorted(out)

    stops = collections.Counter()
    games = {"chess:max_moves=60": GAMES // 2}
    rest = GAMES - GAMES // 2
    for index, fen in enumerate(CHESS_STARTS):
        games[f"chess:max_moves=60,fen={fen}"] = rest // len(CHESS_STARTS) + (index < rest % len(CHESS_STARTS))
    for spec, count in games.items():
        game = make(spec)
        for seed in range(count):
            state, theirs, plies, why = play_along(game, seed, legal)
            if why == "end":
                stops[state.end_reason()] += 1
            else:  # only the documented difference may part them
                if theirs.is_terminal():
                    board = state.board
                    assert theirs.is_repetition_draw() or board.halfmove_clock >= 100, (
                        f"{spec} seed {seed}: OpenSpiel ended the game for another reason")
                    stops["OpenSpiel's draw rules"] += 1
                else:
                    assert state.end_reason() in ("maximum length", "fivefold repetition", "seventy-five-move rule")
                    stops[state.end_reason()] += 1
    assert sum(stops.values()) == GAMES
    for reason in ("checkmate", "stalemate", "insufficient material", "maximum length"):
        assert stops[reason] > 0, f"no game ended by {reason}: {dict(stops)}"
