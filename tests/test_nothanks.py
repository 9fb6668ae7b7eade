"""No Thanks! rules: property tests over random play, scoring, hidden information."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.core.errors import IllegalActionError, SpecError
from boardlab.core.records import GameRecord
from boardlab.core.registry import make
from boardlab.games.nothanks import (
    ALL_CARDS,
    PASS,
    REMOVED,
    STACK,
    TAKE,
    card_mask,
    card_points,
    format_cards,
    starting_chips,
)

seeds = st.integers(0, 2**63 - 1)
player_counts = st.integers(3, 7)


def random_play(state, rng, stop=None):
    while not state.is_terminal() and (stop is None or len(state.history) < stop):
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    return state


@given(seeds, player_counts, st.integers(0, 2**32 - 1))
def test_random_play_ends_and_conserves_cards_and_chips(seed, players, play_seed):
    game = make("nothanks", players=players)
    state = game.new_initial_state(seed)
    total_chips = players * starting_chips(players)
    assert sorted(state.deck + state.removed) == list(ALL_CARDS)
    assert len(state.deck) == STACK == 24 and len(state.removed) == REMOVED == 9
    rng = np.random.default_rng(play_seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.chips[state.current_player()] == 0:
            assert legal == [TAKE]  # PASS impossible without chips
            with pytest.raises(IllegalActionError):
                state.clone().apply_action(PASS)
        state.apply_action(legal[int(rng.integers(len(legal)))])
        assert sum(state.chips) + state.pot == total_chips
        taken = [c for p in range(players) for c in state.hand(p)]
        assert len(taken) == len(set(taken)) == state.pos
        assert min(state.chips) >= 0
    taken = sorted(c for p in range(players) for c in state.hand(p))
    assert taken == sorted(state.deck)  # all 24 dealt ...
    assert not set(taken) & set(state.removed)  # ... and the 9 removed never seen
    assert state.pot == 0 and sum(state.chips) == total_chips
    assert len(state.history) <= game.max_game_length()
    assert abs(sum(state.returns()) - 1.0) < 1e-12


def test_scoring_example_from_the_rules():
    assert card_points(card_mask([3, 10, 11, 12, 13, 20])) - 5 == 28
    assert format_cards([3, 10, 11, 12, 13, 20]) == "3 10-13 20"
    assert card_points(card_mask([35])) == 35 and card_points(0) == 0
    assert card_points(card_mask(range(3, 36))) == 3


def test_scores_and_shared_win_on_a_built_end_position():
    game = make("nothanks", players=3)
    state = game.new_initial_state(5)
    state.pos = STACK
    state.hands = [card_mask([3, 10, 11, 12, 13, 20]), card_mask([33]), card_mask([34])]
    state.chips = [5, 0, 6]  # 28, 33, 28
    assert state.scores() == [28, 33, 28]
    assert state.winners() == [0, 2]
    assert state.returns() == [0.5, 0.0, 0.5]
    assert "tie between Player 1, Player 3" in str(state)
    assert state.observation(1)["board"]["removed"] == state.removed  # shown once the game is over


def test_take_keeps_the_turn_and_pass_moves_it():
    state = make("nothanks").new_initial_state(3)
    first = state.card()
    state.apply_action(PASS)
    assert state.current_player() == 1 and state.pot == 1 and state.chips[0] == 10
    state.apply_action(TAKE)
    assert state.current_player() == 1 and state.hand(1) == [first] and state.chips[1] == 12
    assert state.card() == state.deck[1] and state.pot == 0


def test_parameters_and_chip_counts():
    assert [make("nothanks", players=n).num_players() for n in range(3, 8)] == [3, 4, 5, 6, 7]
    assert [starting_chips(n) for n in range(3, 8)] == [11, 11, 11, 9, 7]
    assert make("nothanks:players=6").new_initial_state(0).chips == [9] * 6
    for bad in ("nothanks:players=2", "nothanks:players=8"):
        with pytest.raises(SpecError, match="players"):
            make(bad)


@given(seeds, st.integers(0, 200), st.integers(0, 2**32 - 1))
def test_resample_keeps_the_information_state(seed, depth, draw):
    game = make("nothanks", players=4)
    state = random_play(game.new_initial_state(seed), np.random.default_rng(draw), stop=depth)
    player = state.current_player() if not state.is_terminal() else 0
    sample = state.resample(player, np.random.default_rng(draw))
    for p in range(4):
        assert sample.information_state_string(p) == state.information_state_string(p)
    assert sample.deck[: state.pos + 1] == state.deck[: state.pos + 1]
    assert sorted(sample.deck + sample.removed) == list(ALL_CARDS)
    # the sample plays on as a game of its own, leaving the original untouched
    before = state.to_json()
    random_play(sample, np.random.default_rng(draw))
    assert state.to_json() == before


def test_resample_actually_varies_the_hidden_cards():
    state = make("nothanks").new_initial_state(11)
    rng = np.random.default_rng(0)
    decks = {tuple(state.resample(0, rng).deck) for _ in range(20)}
    assert len(decks) == 20
    assert all(d[0] == state.card() for d in decks)


def test_information_state_hides_the_stack():
    a = make("nothanks").new_initial_state(1)
    b = make("nothanks").new_initial_state(2)
    b.deck = [a.card()] + [c for c in b.deck if c != a.card()][:23]
    assert a.information_state_string(0) == b.information_state_string(0)
    assert str(a.deck[1]) not in a.information_state_string(0).split("card=")[1].split(";")[0]


def test_record_replays_exactly_and_unseeded_games_get_a_seed():
    game = make("nothanks", players=5)
    record = play_game(game, [make_agent("random") for _ in range(5)], seed=42)
    again = GameRecord.from_dict(record.to_dict())
    final = again.replay()
    assert final.returns() == record.returns
    unseeded = game.new_initial_state()
    assert unseeded.seed is not None
    assert game.new_initial_state(unseeded.seed).deck == unseeded.deck
    state = random_play(game.new_initial_state(7), np.random.default_rng(1))
    assert game.state_from_json(state.to_json()).to_dict() == state.to_dict()


def test_moves_text_and_views():
    game = make("nothanks", players=3)
    state = game.state_from_moves("pass pass t p")
    assert [state.action_to_string(a) for a in state.history] == ["pass", "pass", "take", "pass"]
    with pytest.raises(IllegalActionError, match="take or pass"):
        state.string_to_action("jump")
    seen = state.observation(0)
    view = seen["board"]
    assert view["card"] == state.card() and view["pot"] == 1 and len(view["players"]) == 3
    assert view["players"][2]["cards"] == [state.deck[0]] and view["players"][2]["chips"] == 11 + 2 - 1
    assert "removed" not in view and "seed" not in seen  # hidden until the end
    assert seen == state.observation(2) == state.observation(None)  # nothing is private to one seat
    text = str(state)
    assert f"card {state.card()} with 1 chip;" in text and "Player 1*" in text
    broke = game.new_initial_state(0)
    broke.chips[0] = 0
    with pytest.raises(IllegalActionError, match="must take"):
        broke.string_to_action("pass")
