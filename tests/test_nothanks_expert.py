"""The study's expert, rule by rule, and the state generator."""

import pytest

from boardlab.bots.nothanks.expert import RULES, expert_decision, expert_value, generate_states
from boardlab.core.errors import BoardlabError
from boardlab.core.registry import make
from boardlab.games.nothanks import ALL_CARDS, PASS, TAKE, card_mask


def table(card, pot, chips, hands=None, me=0):
    """A 4-player state with ``card`` face up carrying ``pot`` chips, ``me`` to move."""
    state = make("nothanks", players=4).new_initial_state(0)
    hands = hands or [[], [], [], []]
    held = {c for h in hands for c in h}
    rest = [c for c in ALL_CARDS if c != card and c not in held]
    state.deck = sorted(held) + [card] + rest[: 24 - len(held) - 1]
    state.pos = len(held)
    state.pot = pot
    state.chips = list(chips)
    state.hands = [card_mask(h) for h in hands]
    state.player = me
    return state


def check(state, value, rule):
    decision = expert_decision(state)
    assert decision.rule == rule
    assert decision.value == pytest.approx(value)
    assert expert_value(state) == pytest.approx(value)
    assert decision.action == (PASS if value > 0.5 else TAKE)


def test_rule_1_no_chips_forces_take_before_everything():
    check(table(20, 30, [0, 5, 5, 5], [[21], [], [], []]), 0.0, "no-chips")


def test_rule_2_card_fits_own_run_says_pass():
    check(table(20, 0, [5, 5, 5, 5], [[19], [], [], []]), 1.0, "fits-own-run")
    check(table(20, 0, [5, 5, 5, 5], [[21], [], [], []]), 1.0, "fits-own-run")
    # an opponent's neighbour does not count
    assert expert_decision(table(20, 0, [5, 5, 5, 5], [[], [21], [], []])).rule != "fits-own-run"


def test_rule_3_more_chips_than_the_card():
    check(table(10, 11, [5, 5, 5, 5]), 1.0, "chips-exceed-card")
    assert expert_decision(table(10, 10, [5, 5, 5, 5])).rule == "half-few-chips"  # equal is not more


def test_rules_4_and_5_half_the_value_split_at_ten_own_chips():
    check(table(20, 10, [9, 5, 5, 5]), 0.95, "half-few-chips")
    check(table(20, 10, [10, 5, 5, 5]), 0.75, "half-many-chips")
    assert expert_decision(table(20, 9, [9, 5, 5, 5])).rule != "half-few-chips"


def test_rule_6_opponent_without_chips_who_would_gain():
    # player 2 has no chips and holds 21: taking 20 with 3 chips lowers their score by 4
    check(table(20, 3, [9, 5, 0, 5], [[], [], [21], []]), 0.9, "broke-opponent-gains")
    # without a neighbour and with few chips on the card, taking costs them: rule 6 is silent
    assert expert_decision(table(20, 3, [9, 5, 0, 5], [[25], [], [30], []])).rule == "under-20"


def test_rule_7_few_own_chips_and_forty_percent():
    check(table(20, 8, [4, 5, 5, 5]), 0.75, "few-chips-40")
    assert expert_decision(table(20, 8, [5, 5, 5, 5])).rule == "scaled"


def test_rule_8_is_shadowed_by_rules_4_and_5():
    # more than 18 chips and 60 %: the study's rule 8 would say 0.9, but rule 5 comes first
    check(table(20, 12, [19, 5, 5, 5]), 0.75, "half-many-chips")
    assert "rich-60" in RULES  # kept in the study's order


def test_rule_9_far_behind_the_next_worst():
    # me: 35 + 30 - 6 = 59; worst opponent: 33 - 5 = 28 -> 31 worse
    hands = [[35, 30], [33], [], []]
    check(table(20, 6, [6, 5, 5, 5], hands), 0.9, "far-behind-30")
    assert expert_decision(table(20, 5, [6, 5, 5, 5], hands)).rule != "far-behind-30"  # 25 % only


def test_rule_10_far_ahead_of_someone_and_under_forty_percent():
    # me: -11; player 1: 35 - 5 = 30
    hands = [[], [35], [], []]
    check(table(20, 7, [11, 5, 5, 5], hands), 0.2, "far-ahead-under-40")
    assert expert_decision(table(20, 8, [11, 5, 5, 5], hands)).rule == "scaled"  # 40 % is not under


def test_rule_11_under_twenty_percent():
    check(table(20, 3, [5, 5, 5, 5]), 0.1, "under-20")


def test_rule_12_scaled_between_point_three_and_point_seven():
    check(table(20, 4, [5, 5, 5, 5]), 0.3, "scaled")
    check(table(20, 5, [5, 5, 5, 5]), 0.3 + 0.4 * (0.25 - 0.2) / 0.3, "scaled")
    check(table(20, 9, [5, 5, 5, 5]), 0.3 + 0.4 * (0.45 - 0.2) / 0.3, "scaled")


def test_expert_refuses_a_finished_game():
    state = table(20, 0, [5, 5, 5, 5])
    state.pos = 24
    with pytest.raises(BoardlabError, match="over"):
        expert_decision(state)


def test_generator_is_seeded_varied_and_mid_game():
    states = generate_states(400, seed=3)
    assert [s.to_json() for s in generate_states(20, seed=3)] == [s.to_json() for s in states[:20]]
    assert [s.to_json() for s in generate_states(20, seed=4)] != [s.to_json() for s in states[:20]]
    assert not any(s.is_terminal() for s in states)
    assert len({s.pos for s in states}) == 24  # every depth
    assert max(s.pot / s.card() for s in states) > 1.0 and min(s.pot for s in states) == 0
    rules = {expert_decision(s).rule for s in states}
    assert rules >= set(RULES) - {"rich-60", "broke-opponent-gains", "few-chips-40"}
    share = sum(expert_value(s) > 0.5 for s in states) / len(states)
    assert 0.25 < share < 0.75  # both decisions are common
    assert all(s.game.players == 5 for s in generate_states(3, seed=1, players=5))


def test_random_generator_and_unknown_generator():
    states = generate_states(200, seed=3, play="random")
    assert not any(s.is_terminal() for s in states)
    assert [s.to_json() for s in states[:5]] != [s.to_json() for s in generate_states(5, seed=3)]
    with pytest.raises(BoardlabError, match="unknown state generator 'smart'"):
        generate_states(1, seed=0, play="smart")
