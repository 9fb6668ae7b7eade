"""Dice Wars: maps, battle odds, the rules, the compiled engine, the reference bots, seat-fair tournaments."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.arena.schedule import make_schedule
from boardlab.arena.store import ResultStore
from boardlab.bots.dicewars import compiled as B
from boardlab.conformance.playing import random_game, random_move
from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError
from boardlab.core.game import CHANCE, TERMINAL
from boardlab.core.registry import make
from boardlab.core.rng import kernel_rng
from boardlab.games.dicewars import kernel as K
from boardlab.games.dicewars.mapgen import generate
from boardlab.games.dicewars.probabilities import WIN, dice_for_outcome, sum_counts, win_probability
from boardlab.games.dicewars.state import BATTLE, END_TURN, PLACE

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))
SEEDS = st.integers(min_value=0, max_value=2**31 - 1)


@pytest.fixture(scope="module")
def game():
    return make("dicewars")


def states_of(game, seed, every=7):
    """Copies of states along one random game."""
    return [s.clone() for k, s in enumerate(random_game(game, seed)) if k % every == 0]


# --- maps -------------------------------------------------------------------------------------
@SETTINGS
@given(SEEDS)
def test_every_generated_map_has_29_connected_areas_of_12_or_more_hexes(seed):
    board = generate(seed)
    assert board.areas == 29
    assert board.is_connected()
    n, _ = connected_components(board.adjacency_matrix(), directed=False)
    assert n == 1
    for hexes, grown in zip(board.hexes, board.grown):
        assert 12 <= grown <= 18  # grown to randint(12, 18) ...
        assert len(hexes) >= grown  # ... and only hole filling adds more
    # adjacency is by shared hex edge, symmetric, and every hex belongs to exactly one area
    cells = {h: a for a, hexes in enumerate(board.hexes) for h in hexes}
    assert len(cells) == sum(len(h) for h in board.hexes)
    m = board.adjacency_matrix()
    assert (m == m.T).all() and not m.diagonal().any()
    from boardlab.games.dicewars.mapgen import neighbours

    for a, hexes in enumerate(board.hexes):
        touching = {cells[nb] for x, y in hexes for nb in neighbours(x, y, board.width, board.height) if nb in cells} - {a}
        assert touching == set(board.adjacent[a])


def test_the_same_seed_gives_the_same_map_and_disconnected_attempts_are_named():
    assert generate(5) == generate.__wrapped__(5)
    rejected = [r for s in range(40) for r in generate(s).rejected]
    assert rejected, "some attempts among 40 maps were disconnected (the course engine would have kept them)"
    assert set(rejected) <= {"disconnected"} | {r for r in rejected if r.startswith(("no room", "area"))}


def test_the_web_preset_has_32_areas_and_orig_dice():
    g = make("dicewars:preset=web,players=8")
    s = g.new_initial_state(3)
    assert len(s.owner) == 32 and g.dice_rule == "orig"
    counts = [s.owner.count(p) for p in range(8)]
    assert max(counts) - min(counts) <= 1  # dealt round-robin
    assert all(1 <= d <= 8 for d in s.dice)
    total = sum(s.dice)
    assert 3 * 32 - 5 <= total <= 3 * 32


def test_bad_parameters_are_one_clear_error():
    with pytest.raises(SpecError, match="players"):
        make("dicewars:players=9")
    with pytest.raises(SpecError, match="preset"):
        make("dicewars:preset=nope")


# --- battle odds ----------------------------------------------------------------------------
def test_win_probabilities_are_exact():
    for a, d in itertools.product(range(1, 4), range(1, 4)):
        wins = sum(1 for x in itertools.product(range(1, 7), repeat=a) for y in itertools.product(range(1, 7), repeat=d)
                   if sum(x) > sum(y))
        assert win_probability(a, d) == wins / 6 ** (a + d)
    # the course's table (8 decimals)
    for (a, d), p in {(2, 1): 0.83796296, (3, 3): 0.45357510, (8, 8): 0.47109073, (2, 8): 0.00000473,
                      (5, 4): 0.71807842, (4, 7): 0.02544975}.items():
        assert abs(WIN[a, d] - p) < 5e-9
    assert sum(sum_counts(5)) == 6 ** 5


@SETTINGS
@given(st.integers(2, 8), st.integers(1, 8), st.booleans(), SEEDS)
def test_dice_shown_agree_with_the_outcome(a, d, won, seed):
    if (won and WIN[a, d] == 0) or (not won and WIN[a, d] == 1):
        return
    fa, fd = dice_for_outcome(a, d, won, np.random.default_rng(seed))
    assert len(fa) == a and len(fd) == d and all(1 <= f <= 6 for f in fa + fd)
    assert (sum(fa) > sum(fd)) == won


def _dice_drawn_by_choice(attack, defend, won, rng):
    """The dice as they were first drawn (numpy's choice over freshly built weights): games saved then show
    the dice of their records, so the faster draw must give the same faces from the same stream."""
    a, d = np.array(sum_counts(attack), dtype=float), np.array(sum_counts(defend), dtype=float)
    joint = np.outer(a, d)
    s, t = np.indices(joint.shape)
    joint[(s > t) != won] = 0.0
    pick = int(rng.choice(joint.size, p=joint.ravel() / joint.sum()))
    faces = []
    for n, total in zip((attack, defend), divmod(pick, joint.shape[1])):
        for left in range(n, 0, -1):
            rest = sum_counts(left - 1)
            w = np.array([rest[total - f] if 0 <= total - f < len(rest) else 0 for f in range(1, 7)], dtype=float)
            faces.append(int(rng.choice(6, p=w / w.sum())) + 1)
            total -= faces[-1]
    return faces[:attack], faces[attack:]


@SETTINGS
@given(st.integers(1, 8), st.integers(1, 8), st.booleans(), SEEDS)
def test_the_dice_of_a_battle_replay_as_they_were_first_drawn(a, d, won, seed):
    if (won and WIN[a, d] == 0) or (not won and WIN[a, d] == 1):
        with pytest.raises(ValueError, match=f"{a} dice against {d} cannot"):
            dice_for_outcome(a, d, won, np.random.default_rng(seed))
        return
    fast, slow = np.random.default_rng(seed), np.random.default_rng(seed)
    assert dice_for_outcome(a, d, won, fast) == _dice_drawn_by_choice(a, d, won, slow)
    assert fast.random() == slow.random()  # and the stream is left where it was


def test_conditioned_dice_keep_the_dice_distribution():
    """Outcome drawn with its probability, then faces given the outcome: the attacker's sum has the law of 3d6."""
    rng = np.random.default_rng(1)
    sums = np.zeros(19)
    trials = 6000
    for _ in range(trials):
        won = rng.random() < WIN[3, 2]
        fa, _ = dice_for_outcome(3, 2, won, rng)
        sums[sum(fa)] += 1
    expected = np.array(sum_counts(3), dtype=float) / 6 ** 3 * trials
    chi2 = ((sums[3:] - expected[3:]) ** 2 / expected[3:]).sum()
    assert chi2 < 45  # 15 degrees of freedom: p < 1e-4 only if the law were wrong


# --- rules ----------------------------------------------------------------------------------
@SETTINGS
@given(SEEDS)
def test_dice_are_accounted_for_through_every_attack(seed):
    g = make("dicewars")
    rng = np.random.default_rng(seed)
    state = g.new_initial_state(seed)
    battles = 0
    while not state.is_terminal() and battles < 60:
        if state.phase == BATTLE:
            src, dst = state.pending
            attacker, defender = state.player, state.owner[dst]
            a, d = state.dice[src], state.dice[dst]
            before = (state.player_dice(attacker), state.player_dice(defender), sum(state.dice))
            outcome = random_move(state, rng)
            state.apply_action(outcome)
            battles += 1
            if outcome == 1:  # the winner moves in with all dice but one, the loser's dice are lost
                assert state.owner[dst] == attacker and state.dice[dst] == a - 1 and state.dice[src] == 1
                assert state.player_dice(attacker) == before[0]
                assert state.player_dice(defender) == before[1] - d
                assert sum(state.dice) == before[2] - d
            else:  # the attacker keeps one die on its source, the defender loses nothing
                assert state.owner[dst] == defender and state.dice[dst] == d and state.dice[src] == 1
                assert state.player_dice(attacker) == before[0] - (a - 1)
                assert state.player_dice(defender) == before[1]
        else:
            state.apply_action(random_move(state, rng))


@SETTINGS
@given(SEEDS)
def test_reinforcement_respects_8_per_area_and_64_in_reserve(seed):
    g = make("dicewars:players=2")
    rng = np.random.default_rng(seed)
    state = g.new_initial_state(seed)
    while not state.is_terminal():
        if state.current_player() >= 0 and rng.random() < 0.5 and state.legal_actions() != [END_TURN]:
            state.apply_action(state.legal_actions()[1 + int(rng.integers(len(state.legal_actions()) - 1))])
            continue
        if state.current_player() >= 0:
            p = state.player
            due = min(state.reserve[p] + state.largest_region(p), 64)
            room = sum(8 - state.dice[a] for a in range(len(state.owner)) if state.owner[a] == p)
            dice_before = state.player_dice(p)
            state.apply_action(END_TURN)
            while state.is_chance_node():
                assert state.phase == PLACE
                outcomes = state.chance_outcomes()
                assert all(state.owner[a] == p and state.dice[a] < 8 for a, _ in outcomes)
                state.apply_action(random_move(state, rng))
            placed = state.player_dice(p) - dice_before
            assert placed == min(due, room)
            assert state.reserve[p] == due - placed <= 64
        else:
            state.apply_action(random_move(state, rng))
        assert all(1 <= d <= 8 for d in state.dice)
        assert all(0 <= r <= 64 for r in state.reserve)


@SETTINGS
@given(SEEDS)
def test_largest_region_is_computed_right_on_generated_maps(seed):
    g = make("dicewars")
    kern = g.playout_kernel()
    for state in states_of(g, seed, every=97):
        adj, deg = kern.tables(state.map)
        owner = np.array(state.owner, dtype=np.int64)
        matrix = state.map.adjacency_matrix()
        for p in range(4):
            mine = owner == p
            if not mine.any():
                assert state.largest_region(p) == 0
                continue
            _, labels = connected_components(matrix[np.ix_(mine, mine)], directed=False)
            expected = int(np.bincount(labels).max())
            assert state.largest_region(p) == expected == K.largest_region(owner, adj, deg, p)


def test_chance_nodes_carry_the_exact_battle_odds(game):
    state = game.new_initial_state(11)
    attack = state.legal_actions()[1]
    p = state.attack_probabilities()[attack]
    assert state.action_info(attack)["win_probability"] == round(p, 6)
    state.apply_action(attack)
    assert state.current_player() == CHANCE
    assert dict(state.chance_outcomes()) == pytest.approx({0: 1 - p, 1: p})
    with pytest.raises(IllegalActionError):
        state.apply_action(5)


def test_no_battle_for_8_rounds_cancels_the_game_and_everybody_loses(game):
    state = game.new_initial_state(2)
    ends = 0
    rng = np.random.default_rng(0)
    while not state.is_terminal():  # everybody only ends turns
        if state.current_player() >= 0:
            ends += 1
        state.apply_action(END_TURN if state.current_player() >= 0 else random_move(state, rng))
        if ends > 40:
            break
    assert state.is_terminal() and state.end_reason() == "stalled" and ends == 32
    assert state.returns() == [-1.0] * 4 and state.current_player() == TERMINAL


def test_the_10000th_battle_cancels_the_game(game):
    state = game.new_initial_state(2)
    state = game.state_from_notation(state.notation().replace(" b=0 ", " b=9999 "))
    state.apply_action(state.legal_actions()[1])
    state.apply_action(0)
    assert state.end_reason() == "battle-limit" and state.returns() == [-1.0] * 4


def test_notation_reads_back_at_every_stage(game):
    for state in states_of(game, 3, every=5):
        again = game.state_from_notation(state.notation())
        assert again.notation() == state.notation()
        assert again.current_player() == state.current_player() == game.player_of_notation(state.notation())
    with pytest.raises(BoardlabError, match="dw"):
        game.state_from_notation("4,4/0 S")


def test_the_rolls_shown_replay_from_the_seed_and_match_the_outcomes(game):
    record = play_game(game, [make_agent("dw-rand") for _ in range(4)], seed=9)
    a = record.replay()
    b = record.replay()
    assert a.observation(0)["board"]["last_battle"] == b.observation(0)["board"]["last_battle"]
    state = game.new_initial_state(9)
    for action in record.actions[:400]:
        state.apply_action(action)
        battle = state.observation(None)["board"]["last_battle"]
        if battle is not None:
            assert (battle["attack_sum"] > battle["defence_sum"]) == battle["won"]


def test_a_state_is_a_perfect_information_state_with_scores(game):
    state = game.new_initial_state(4)
    assert state.scores() == [float(state.largest_region(p)) for p in range(4)]
    view = state.observation(1)
    assert view["board"]["owner"] == state.owner and view == state.observation(None)
    assert "seed" not in str(view)


# --- the compiled engine and the bots ------------------------------------------------------------
def test_the_compiled_bots_choose_as_the_python_bots(game):
    bots = B.CompiledBots(game)
    names = {"dw-sdc": B.SDC, "dw-ste": B.STE, "dw-stei": B.STEI, "dw-wpm": B.WPM, "dw-wpm:quirks=false": B.WPM_FIXED}
    agents = {name: make_agent(name, game) for name in names}
    for agent in agents.values():
        agent.reset(game, 0, 1)
    checked = 0
    for seed in (1, 2):
        for state in states_of(game, seed, every=3):
            if state.current_player() < 0:
                continue
            for name, agent in agents.items():
                agent.player = state.current_player()
                assert agent.step(state) == bots.choose(names[name], state), (name, state.notation())
                checked += 1
    assert checked > 200


def test_the_wpm_quirks_change_its_choices(game):
    quirky, fixed = make_agent("dw-wpm", game), make_agent("dw-wpm:quirks=false", game)
    quirky.reset(game, 0, 1)
    fixed.reset(game, 0, 1)
    differ = 0
    for state in states_of(game, 5, every=2):
        if state.current_player() >= 0:
            quirky.player = fixed.player = state.current_player()
            differ += quirky.step(state) != fixed.step(state)
    assert differ > 0


@pytest.mark.parametrize("name", ["dw-rand", "dw-sdc", "dw-ste", "dw-stei", "dw-wpm", "dw-template"])
def test_each_bot_plays_whole_games_legally(game, name):
    record = play_game(game, [make_agent(name, game), make_agent("dw-rand"), make_agent("dw-sdc"), make_agent("dw-template")], seed=3)
    final = record.replay()
    assert final.end_reason() in ("won", "stalled", "battle-limit")


def test_the_template_bot_attacks_at_most_twice_per_turn(game):
    counts = []
    state = game.new_initial_state(6)
    bot = make_agent("dw-template", game)
    bot.reset(game, 0, 6)
    rng = np.random.default_rng(6)
    attacks = 0
    while not state.is_terminal() and len(counts) < 30:
        if state.current_player() == 0:
            action = bot.step(state)
            if action == END_TURN:
                counts.append(attacks)
                attacks = 0
            else:
                attacks += 1
        else:
            action = random_move(state, rng) if state.is_chance_node() else END_TURN
        state.apply_action(action)
    assert max(counts) == 2


def test_compiled_games_keep_the_rules_invariants(game):
    kern = game.playout_kernel()
    for seed in range(20):
        state = game.new_initial_state(seed)
        adj, deg = kern.tables(state.map)
        owner, dice, reserve, scal = kern.arrays(state)
        code, winner = B.play(owner, dice, reserve, adj, deg, scal, np.array([B.STE, B.SDC, B.WPM, B.RAND]), 4,
                              K.WIN_TABLE, B.WPM_TABLE, kernel_rng(seed), 10**9)
        assert code in (0, 1, 2)
        assert (dice >= 1).all() and (dice <= 8).all() and (reserve <= 64).all() and (reserve >= 0).all()
        if code == 0:
            assert (owner == winner).all()
    result = B.CompiledBots(game).bot_games([generate(s) for s in range(3)], 30, [B.UNIFORM] * 4, seed=1)
    assert sum(result["wins"]) + result["ends"]["stalled"] + result["ends"]["battle-limit"] == 30


def test_mcts_uses_the_compiled_playouts(game):
    agent = make_agent("mcts:iterations=60,seed=1", game)
    state = game.new_initial_state(1)
    agent.reset(game, 0, 1)
    assert agent.step(state) in state.legal_actions()
    tree = agent.last_tree().tree()
    assert (tree.player == CHANCE).any()  # attacks lead to chance nodes in the tree


# --- seat-fair tournaments ---------------------------------------------------------------------
def test_rotations_play_every_rotation_of_one_group_on_one_seed_per_board():
    schedule = make_schedule(5, 4, 25, "rotations", seed=3)
    assert len(schedule) == 100
    played = [0] * 5
    for board in range(25):
        games = schedule[4 * board: 4 * board + 4]
        assert len({g.seed for g in games}) == 1
        first = games[0].seats
        assert [g.seats for g in games] == [first[k:] + first[:k] for k in range(4)]
        for a in first:
            played[a] += 4
    assert max(played) - min(played) <= 8  # the fewest-games-first pick keeps the pool within two boards
    assert len({g.seed for g in schedule}) == 25


def test_a_small_course_tournament_reports_wins_intervals_and_endings(tmp_path):
    from boardlab.studies.dicewars.tournament import configure, full_report, markdown_table, run

    config = configure(boards=2, seed=1)
    with ResultStore(tmp_path / "t.sqlite") as store:
        assert run(config, store) == (0, 8)
        assert run(config, store) == (8, 0)  # resumed: nothing left to play
        report = full_report(store, config)
    assert report["games"] == 8 and sum(report["endings"].values()) == 8
    assert sum(r["wins"] for r in report["bots"]) == report["endings"]["won"]
    for row in report["bots"]:
        assert row["games"] in (4, 8) and 0 <= row["win_low"] <= row["win_high"] <= 1
    assert report["arena"]["endings"] and "dw-ste (dt.ste)" in markdown_table(report)
    with pytest.raises(BoardlabError, match="boards"):
        configure(boards=0)


def test_the_compiled_map_growth_is_its_plain_python_reference():
    from boardlab.games.dicewars.mapgen import _table, grow

    table = _table(32, 28)
    for seed in range(4):
        results = []
        for fn in (grow, grow.py_func):
            owner = np.empty(32 * 28, dtype=np.int64)
            sizes = np.zeros(29, dtype=np.int64)
            status = fn(29, 12, 18, table, kernel_rng(seed + 1), owner, sizes)
            results.append((status, owner.tolist(), sizes.tolist()))
        assert results[0] == results[1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_compiled_playout_is_its_plain_python_reference(game, seed):
    """Same stream, same draws: the compiled rules and the Python rules reach the same final position."""
    kern = game.playout_kernel()
    for start in (game.new_initial_state(seed), states_of(game, seed, every=50)[3]):
        adj, deg = kern.tables(start.map)
        owner, dice, reserve, scal = kern.arrays(start)
        code, winner = K.playout(owner, dice, reserve, adj, deg, scal, K.WIN_TABLE, kernel_rng(seed), 10**9)
        final = K.reference_playout(start, seed)
        assert final.end_reason() == K.END_CODES[code]
        assert final.owner == owner.tolist() and final.dice == dice.tolist() and final.reserve == reserve.tolist()
        assert final.battles == scal[6]
        assert (final.winner() if final.winner() is not None else -1) == winner
