"""The capabilities a game declares (``GameType.provides``, the utility range) are held against what it does:
broken games, each wrong in one way, fail the suite with a message that says how."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from boardlab.conformance import ConformanceError
from boardlab.conformance.capabilities import check_capabilities, check_information_state, check_playouts
from boardlab.conformance.playing import sampled_states
from boardlab.conformance.rules import check_declaration, check_random_play
from boardlab.core import plugins
from boardlab.core.engines import grading_engine, puct_engine, uct_engine
from boardlab.core.errors import BoardlabError
from boardlab.core.game import GameType, Symmetry
from boardlab.core.registry import make
from boardlab.games.connect4 import ConnectFour
from boardlab.games.connect4.search import CompiledConnect4Search
from boardlab.games.mancala import Mancala
from boardlab.games.nothanks import NoThanks, NoThanksState


class HalfUCT(CompiledConnect4Search):
    """A compiled UCT that runs half the iterations it is asked for."""

    def run(self, iterations, deadline, stop=None, max_nodes=None):
        return super().run(max(1, iterations // 2), deadline, stop, max_nodes)


class WildKernel:
    """Playouts that pay more than a win is worth."""

    def playout_returns(self, state, rng):
        return [2.0, -2.0]


def declaring(monkeypatch, cls, **changes):
    """``cls`` declaring something else in its GameType for the test."""
    monkeypatch.setattr(cls, "game_type", replace(cls.game_type, **changes))


def test_a_declaration_names_known_capabilities_and_a_range():
    with pytest.raises(ValueError, match="provides 'tensor': not a capability"):
        GameType("toy", "Toy", provides=frozenset({"tensor"}))
    with pytest.raises(ValueError, match="provides symmetries without observation_tensor"):
        GameType("toy", "Toy", provides=frozenset({"symmetries"}))
    with pytest.raises(ValueError, match="utility range 1.0..-1.0 is not a range"):
        GameType("toy", "Toy", min_utility=1.0, max_utility=-1.0)
    assert GameType("toy", "Toy", provides=("observation_tensor",)).provides == frozenset({"observation_tensor"})


def test_the_built_in_games_declare_what_they_offer():
    assert {"observation_tensor", "symmetries", "compiled_uct", "compiled_puct", "grading_solver"} <= make("connect4").provides
    assert make("mancala").provides == {"observation_tensor", "compiled_playouts"}
    assert make("nothanks").game_type.min_utility == 0.0 and make("chess").game_type.max_utility == 1.0
    # the engines are found by the declaration, never by the game's name
    assert uct_engine(make("connect4")) is CompiledConnect4Search and puct_engine(make("connect4")) is not None
    assert uct_engine(make("mancala")) is None and puct_engine(make("chess")) is None


def test_connect_four_grades_on_the_standard_board_only():
    assert grading_engine(make("connect4")) is not None
    small = make("connect4:rows=5,cols=6")
    assert "grading_solver" not in small.provides and "grading_solver" in small.game_type.provides
    assert grading_engine(small) is None
    check_capabilities(small, games=1, per_game=3)


def test_a_tensor_offered_but_not_declared_fails_the_suite(monkeypatch):
    monkeypatch.setattr(ConnectFour, "provides", property(lambda self: frozenset({"compiled_playouts"})))
    with pytest.raises(ConformanceError, match="offers an observation tensor but does not provide observation_tensor"):
        check_capabilities(make("connect4"), games=1, per_game=2)


def test_symmetries_offered_but_not_declared_fail_the_suite(monkeypatch):
    monkeypatch.setattr(Mancala, "symmetries", lambda self: [Symmetry(np.arange(15), np.arange(6))])
    with pytest.raises(ConformanceError, match="offers symmetries but does not provide symmetries"):
        check_capabilities(make("mancala"), games=1, per_game=2)


def test_returns_outside_the_declared_range_fail_the_suite(monkeypatch):
    declaring(monkeypatch, ConnectFour, min_utility=0.0)  # as if a loss were worth nothing
    with pytest.raises(ConformanceError, match=r"leave the declared utility range \[0.0, 1.0\]"):
        check_random_play(make("connect4"), examples=5)


def test_playouts_outside_the_declared_range_fail_the_suite(monkeypatch):
    monkeypatch.setattr(Mancala, "playout_kernel", lambda self: WildKernel())
    game = make("mancala")
    with pytest.raises(ConformanceError, match=r"a playout returns \[2.0, -2.0\], not one return per seat within \[-1.0, 1.0\]"):
        check_playouts(game, sampled_states(game, 0, 3))


def test_an_engine_registered_but_not_declared_fails_the_suite():
    with plugins.engines.registered("mancala.uct", f"{__name__}:HalfUCT"), \
            pytest.raises(ConformanceError, match="registers the boardlab.engines entry 'mancala.uct' but does not provide compiled_uct"):
        check_capabilities(make("mancala"), games=1, per_game=2)


def test_an_engine_declared_but_not_registered_fails_the_suite(monkeypatch):
    declaring(monkeypatch, Mancala, provides=Mancala.game_type.provides | {"compiled_uct"})
    with pytest.raises(ConformanceError, match="provides compiled_uct but registers no boardlab.engines entry 'mancala.uct'"):
        check_capabilities(make("mancala"), games=1, per_game=2)


def test_a_registered_engine_that_does_not_search_as_asked_fails_the_suite():
    with plugins.engines.registered("connect4.uct", f"{__name__}:HalfUCT"), \
            pytest.raises(ConformanceError, match=r"compiled UCT: run\(64\) ran 32 iterations"):
        check_capabilities(make("connect4:rows=4,cols=5,k=3"), games=1, per_game=2)


def test_an_information_state_declared_but_the_protocols_own_fails_the_suite(monkeypatch):
    declaring(monkeypatch, Mancala, provides=Mancala.game_type.provides | {"information_state_string"})
    with pytest.raises(ConformanceError, match="provides information_state_string but writes the protocol's own"):
        check_capabilities(make("mancala"), games=1, per_game=3)


def test_an_information_state_that_leaves_out_what_a_seat_sees_fails_the_suite(monkeypatch):
    monkeypatch.setattr(NoThanksState, "information_state_string", lambda self, player=None: "nothing")
    game = make("nothanks")
    with pytest.raises(ConformanceError, match="the string leaves out what the seat sees"):
        check_information_state(game, [state for seed in range(3) for state in sampled_states(game, seed, 12)])


def test_hidden_information_without_an_information_state_fails_the_suite(monkeypatch):
    declaring(monkeypatch, NoThanks, provides=frozenset({"observation_tensor"}))
    with pytest.raises(ConformanceError, match="a game with hidden information must provide information_state_string"):
        check_declaration(make("nothanks"))


def test_what_a_game_does_not_provide_is_refused_with_the_reason():
    with pytest.raises(BoardlabError, match="chess has no compiled playouts"):
        make("chess").playout_kernel()
