"""The conformance suite over every registered game, and over the example game registered as a
third-party package would register it (one module, one entry point, no other file)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from boardlab.conformance import ConformanceError, check_game
from boardlab.core import plugins
from boardlab.core.registry import game_names, make

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("name", game_names())
def test_every_registered_game_conforms(name, tmp_path):
    check_game(name, examples=15, scratch=tmp_path)


@pytest.fixture()
def tictactoe_installed(tmp_path, monkeypatch):
    """examples/tictactoe.py installed as a package would be: a dist-info folder with one entry point."""
    dist = tmp_path / "site" / "tictactoe_example-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tictactoe-example\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text('[boardlab.games]\ntictactoe = tictactoe:TicTacToe\n')
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    plugins.games.reload()
    yield
    monkeypatch.undo()
    sys.modules.pop("tictactoe", None)
    plugins.games.reload()


def test_the_example_game_registered_by_one_entry_point_passes_everything(tictactoe_installed, tmp_path):
    assert "tictactoe" in game_names()
    check_game("tictactoe", examples=30, scratch=tmp_path)


def test_the_example_game_plays_by_its_rules(tictactoe_installed):
    state = make("tictactoe").state_from_moves("b2 a3 c3 a1 a2")  # X: centre, then the a-file threat
    assert state.notation() == "b2 a3 c3 a1 a2" and state.current_player() == 1
    state.apply_action(state.string_to_action("c1"))  # O blocks the diagonal
    state.apply_action(state.string_to_action("c2"))  # X completes the middle row
    assert state.is_terminal() and state.returns() == [1.0, -1.0]



def test_a_view_that_leaks_a_hidden_card_fails_the_suite(monkeypatch):
    from boardlab.conformance.views import check_views
    from boardlab.games.nothanks import STACK, NoThanksState

    honest = NoThanksState.observation

    def leaky(self, player=None):
        seen = honest(self, player)
        seen["board"]["next"] = self.deck[self.pos + 1] if self.pos + 1 < STACK else None
        return seen

    monkeypatch.setattr(NoThanksState, "observation", leaky)
    with pytest.raises(ConformanceError, match="observation shows hidden information"):
        check_views(make("nothanks"), games=2, per_game=3)


def test_a_redraw_that_peeks_at_the_truth_fails_the_suite(monkeypatch):
    from boardlab.conformance.views import check_views
    from boardlab.games.nothanks import NoThanksState

    def peeking(self, player, rng):
        return self.clone()  # "redraws" by copying the true deck

    monkeypatch.setattr(NoThanksState, "resample", peeking)
    with pytest.raises(ConformanceError, match="no redraw ever differed"):
        check_views(make("nothanks"), games=2, per_game=3)
