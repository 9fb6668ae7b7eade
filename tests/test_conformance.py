"""The conformance suite over every registered game, and over the example game registered as a
third-party package would register it (one module, one entry point, no other file)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from boardlab.conformance import ConformanceError, check_game
from boardlab.core import plugins
from boardlab.core.errors import BoardlabError, MissingDependencyError
from boardlab.core.registry import game_names, make

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


# the whole check in the full suite; without the arena and the web app, on fewer games, in the fast tier
FULL_OR_QUICK = [pytest.param(False, id="full", marks=pytest.mark.slow), pytest.param(True, id="quick")]


@pytest.mark.parametrize("quick", FULL_OR_QUICK)
@pytest.mark.parametrize("name", game_names())
def test_every_registered_game_conforms(name, quick, tmp_path):
    try:
        make(name)
    except MissingDependencyError as exc:  # openspiel without OpenSpiel installed: skipped, and only then
        pytest.skip(str(exc))
    check_game(name, examples=5 if quick else 15, scratch=tmp_path, quick=quick)


@pytest.mark.parametrize("spec", ["dicewars:players=2,features=odds", "tickettoride:players=2,features=plan"])
def test_a_variant_that_adds_observation_inputs_conforms(spec, tmp_path):
    """Dice Wars' ``features=odds`` and Ticket to Ride's ``features=plan`` change only the observation tensor:
    the whole quick check (its resampled worlds included) holds for them."""
    check_game(spec, examples=5, scratch=tmp_path, quick=True)


@pytest.mark.parametrize("missing", ["hypothesis", "httpx"])
def test_without_its_extra_the_suite_names_what_to_install(missing, monkeypatch):
    monkeypatch.setitem(sys.modules, missing, None)  # import fails as if not installed
    for name in [m for m in sys.modules if m == "boardlab.conformance" or m.startswith("boardlab.conformance.")]:
        monkeypatch.delitem(sys.modules, name)  # imported afresh, and put back afterwards
    with pytest.raises(MissingDependencyError, match=rf"the conformance suite \(boardlab.conformance\): {missing} is not installed "
                                                     r"\(pip install 'boardlab\[conformance\]'\)"):
        importlib.import_module("boardlab.conformance")


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


@pytest.mark.parametrize("quick", FULL_OR_QUICK)
def test_the_example_game_registered_by_one_entry_point_passes_everything(tictactoe_installed, quick, tmp_path):
    assert "tictactoe" in game_names()
    check_game("tictactoe", examples=30, scratch=tmp_path, quick=quick)


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


def test_a_tensor_that_shows_a_hidden_card_fails_the_suite(monkeypatch):
    from boardlab.conformance.views import check_observation_tensor
    from boardlab.games.nothanks import LOW_CARD, STACK, NoThanksState

    honest = NoThanksState.observation_tensor

    def leaky(self, player):
        tensor = honest(self, player)
        if self.pos + 1 < STACK:
            tensor[self.deck[self.pos + 1] - LOW_CARD] = 1.0  # the next card, marked as if face up
        return tensor

    monkeypatch.setattr(NoThanksState, "observation_tensor", leaky)
    with pytest.raises(ConformanceError, match="tensor changes when its hidden part is redrawn"):
        check_observation_tensor(make("nothanks"), games=1, per_game=3)


def test_a_tensor_of_the_wrong_shape_fails_the_suite(monkeypatch):
    from boardlab.conformance.views import check_observation_tensor
    from boardlab.games.connect4 import ConnectFour

    monkeypatch.setattr(ConnectFour, "observation_tensor_shape", lambda self: (2, self.rows, self.cols))
    with pytest.raises(ConformanceError, match=r"has shape \(3, 6, 7\), the game declares \(2, 6, 7\)"):
        check_observation_tensor(make("connect4"), games=1, per_game=2)


def test_observation_tensors_are_seen_from_the_observing_seat():
    c4 = make("connect4").state_from_moves("4453")  # X: d1 e1, O: d2 c1; X to move
    x, o = c4.observation_tensor(0), c4.observation_tensor(1)
    assert x[0, 5, 3] == x[0, 5, 4] == 1 and x[1, 4, 3] == x[1, 5, 2] == 1 and x[:2].sum() == 4
    assert (o[0] == x[1]).all() and (o[1] == x[0]).all()
    assert x[2].min() == 1 and o[2].max() == 0  # X's turn

    kalah = make("mancala").state_from_moves("c")  # South sows c into d e f and its store: South again
    south, north = kalah.observation_tensor(0) * 48, kalah.observation_tensor(1) * 48
    assert south[:7].tolist() == [4, 4, 0, 5, 5, 5, 1] and south[7:14].tolist() == [4] * 6 + [0]
    assert north[:7].tolist() == [4] * 6 + [0] and north[7:14].tolist() == [4, 4, 0, 5, 5, 5, 1]
    assert kalah.observation_tensor(0)[-1] == 1 and kalah.observation_tensor(1)[-1] == 0

    board = make("chess").state_from_moves("e4 d5 exd5 c5")  # White may take en passant on c6
    white, black = board.observation_tensor(0), board.observation_tensor(1)
    assert white[0, 4, 3] == 1 and white[0, 1, 4] == 0  # White's pawn on d5 (rank 5 = row 4), e2 empty
    assert black[6, 3, 3] == 1  # the same pawn, seen by Black: rank 5 is Black's row 3
    assert white[17, 5, 2] == 1 and black[17, 2, 2] == 1 and white[17].sum() == 1  # c6
    assert white[12].min() == 1 and black[12].max() == 0


@pytest.mark.parametrize("spec", ["connect4", "connect4:rows=4,cols=5,k=3", "connect4:rows=5,cols=4,k=3", "connect4:rows=2,cols=6,k=2"])
def test_connect_four_declares_an_exact_mirror_on_every_board(spec):
    from boardlab.conformance import check_symmetries

    game = make(spec)
    assert len(game.symmetries()) == 1
    check_symmetries(game, games=6)


def test_a_wrong_symmetry_fails_the_suite(monkeypatch):
    from boardlab.conformance import check_symmetries
    from boardlab.core.game import Symmetry
    from boardlab.games.connect4 import ConnectFour

    game = make("connect4:rows=4,cols=5,k=3")
    mirror = game.symmetries()[0]
    planes = np.arange(3 * 4 * 5).reshape(3, 4, 5)
    wrong = [
        Symmetry(planes[[1, 0, 2]][:, :, ::-1].reshape(-1), mirror.actions),  # the seats' planes swapped
        Symmetry(mirror.observation, np.roll(np.arange(5), 1)),  # the board mirrored, the moves shifted
        Symmetry(planes[:, ::-1, ::-1].reshape(-1), mirror.actions),  # turned upside down as well
        Symmetry(mirror.observation, np.arange(5)),  # the moves not mirrored
    ]
    for symmetry in wrong:
        monkeypatch.setattr(ConnectFour, "symmetries", lambda self, s=symmetry: [s])
        with pytest.raises(ConformanceError, match="symmetries: symmetry 0: "):
            check_symmetries(game)
    monkeypatch.setattr(ConnectFour, "symmetries", lambda self: [Symmetry(np.arange(10), mirror.actions)])
    with pytest.raises(ConformanceError, match=r"permutation of the 60 entries of a \(3, 4, 5\) tensor"):
        check_symmetries(game)
    with pytest.raises(BoardlabError, match=r"Symmetry: actions must be a permutation of range\(3\), not \[0, 0, 2\]"):
        Symmetry(np.arange(3), [0, 0, 2])


def test_a_symmetry_gathers_tensor_entries_and_scatters_actions():
    """The directions the Symmetry docstring fixes, on permutations that are not their own inverse."""
    from boardlab.core.game import Symmetry

    turn = Symmetry(observation=[2, 0, 1], actions=[1, 2, 0])
    assert turn.observations(np.array([10.0, 20.0, 30.0])).tolist() == [30.0, 10.0, 20.0]  # entry i is entry observation[i]
    assert turn.observations(np.array([[1, 2, 3], [4, 5, 6]])).tolist() == [[3, 1, 2], [6, 4, 5]]  # a batch, row by row
    policy = np.array([0.5, 0.3, 0.2])
    assert turn.action_values(policy).tolist() == [0.2, 0.5, 0.3]  # the mass on action a moves to actions[a]
    assert turn.action_values(np.array([[True, False, False]])).tolist() == [[False, True, False]]
