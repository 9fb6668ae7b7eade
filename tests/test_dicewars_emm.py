"""dw-emm: the expectiminimax agent for Dice Wars (its search, options, clock policy and trees)."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.bots.dicewars.emm import ste_move
from boardlab.bots.dicewars.emm_search import Pos, Search, Settings, leaf_values
from boardlab.core.errors import BoardlabError, SpecError
from boardlab.core.registry import make
from boardlab.core.rng import sample_chance
from boardlab.games.dicewars.probabilities import WIN

# a hand-made map: a line of areas 0 - 1 - 2 - 3
LINE = [[1], [0, 2], [1, 3], [2]]


def areas_owned(pos: Pos) -> list[float]:
    """A leaf that counts areas (a quarter each: a won game is worth 1): it ignores dice, so the exact
    averages are easy to write down."""
    return [pos.owner.count(p) / 4 for p in range(2)]


def search(**settings) -> Search:
    return Search(LINE, 2, Settings(**{"turns": 1, **settings}), np.random.default_rng(0), None, None, leaf=areas_owned)


@pytest.fixture(scope="module")
def game():
    return make("dicewars")


def test_an_attack_is_worth_the_exact_average_of_its_two_outcomes():
    # player 0: area 0 with 3 dice; player 1: areas 1 (2 dice), 2 and 3
    root = Pos([0, 1, 1, 1], [3, 2, 1, 1], [0, 0], 0, 0)
    move, options = search(attacks=1, lose=0.0).root(root, 1, record=False)
    p = WIN[3, 2]
    values = {o["move"]: o["value"] for o in options}
    assert values[None] == 0.25  # ending the turn keeps one area
    assert values[(0, 1)] == pytest.approx(p * 0.5 + (1 - p) * 0.25, abs=1e-12)
    assert move == (0, 1)


def test_a_second_attack_is_chosen_by_max_inside_each_outcome():
    # after winning 0>1 with 5 dice, area 1 holds 4 dice and may attack area 2 (1 die) in turn
    root = Pos([0, 1, 1, 1], [5, 4, 1, 1], [0, 0], 0, 0)
    _, options = search(attacks=2, lose=0.0, breadth=1, moves="all").root(root, 2, record=False)
    p1, p2 = WIN[5, 4], WIN[4, 1]
    after_win = max(0.5, p2 * 0.75 + (1 - p2) * 0.5)  # attack 1>2 or end the turn, whichever is worth more
    expected = p1 * after_win + (1 - p1) * 0.25  # after a loss area 0 has 1 die: no attack left
    assert {o["move"]: o["value"] for o in options}[(0, 1)] == pytest.approx(expected, abs=1e-12)


def test_the_thresholds_prune_as_the_study_did():
    root = Pos([0, 1, 1, 1], [3, 2, 1, 1], [0, 0], 0, 0)
    p = WIN[3, 2]  # about 0.74
    _, options = search(attacks=1, lose=p + 0.01).root(root, 1, record=False)
    assert [o["move"] for o in options] == [None]  # less likely than the loss-rate threshold: not searched
    _, options = search(attacks=1, lose=0.0, win=p - 0.01).root(root, 1, record=False)
    assert {o["move"]: o["value"] for o in options}[(0, 1)] == 0.5  # more likely than the win-rate one: won


def test_each_player_maximises_its_own_value_in_the_opponents_turn():
    # player 0 ends its turn (its reinforcement: 1 die on area 0, now 2); player 1 (area 1, 6 dice)
    # may take area 0 and win the game: a max node for player 1
    root = Pos([0, 1, 1, 1], [1, 6, 1, 1], [0, 0], 0, 0)
    s = search(attacks=1, turns=2, lose=0.0)
    _, options = s.root(root, 1, record=False)
    assert [o["move"] for o in options] == [None]  # player 0 has no attack (1 die)
    q = WIN[6, 2]
    # player 1 attacks (worth q x 1 + (1 - q) x 0.75 to it, more than 0.75) although that lowers player 0's
    assert options[0]["value"] == pytest.approx((1 - q) * 0.25, abs=1e-12)


def test_replies_as_dt_ste_attack_where_their_own_values_would_end_the_turn():
    # player 0 has no attack; after its turn (1 die onto area 0) player 1's dt.ste attacks 1>0 (6
    # dice against 2). A leaf by which player 1 wants fewer areas makes a max^n player 1 end instead.
    def fewer_for_one(pos: Pos) -> list[float]:
        return [pos.owner.count(0) / 4, 1 - pos.owner.count(1) / 4]

    root = Pos([0, 1, 1, 0], [1, 6, 1, 1], [0, 0], 0, 0)
    q = WIN[6, 2]
    for reply, expected in [("max", 0.5), ("ste", q * 0.25 + (1 - q) * 0.5)]:
        s = Search(LINE, 2, Settings(turns=2, reply=reply, lose=0.0), np.random.default_rng(0), None, None,
                   leaf=fewer_for_one)
        _, options = s.root(root, 1, record=False)
        assert options[0]["value"] == pytest.approx(expected, abs=1e-12)


def test_ordering_by_gain_searches_the_attack_that_joins_a_region_first():
    # player 0 holds areas 0 and 2; dt.ste's order puts 2>3 first (4 dice against 2 rather than 3),
    # while taking area 1 joins its two areas into one region of three
    root = Pos([0, 1, 0, 1], [4, 3, 4, 2], [0, 0], 0, 0)
    searched = {}
    for order in ("ste", "gain"):
        s = Search(LINE, 2, Settings(turns=1, root_breadth=1, order=order), np.random.default_rng(0), None, None)
        _, options = s.root(root, 1, record=False)
        searched[order] = [o["move"] for o in options if o["move"] is not None]
    assert searched == {"ste": [(2, 3)], "gain": [(0, 1)]}


def test_the_score_leaf_is_a_weighted_share_in_0_1(game):
    state = game.new_initial_state(4)
    pos = Pos(list(state.owner), list(state.dice), list(state.reserve), 0, 0)
    values = leaf_values(pos, state.adjacent, 4, range(4), Settings())
    assert all(0.0 < v < 1.0 for v in values)
    # a player with more areas next to it attacked by more dice is worth less with the hold term
    plain = leaf_values(pos, state.adjacent, 4, range(4), Settings(hold_weight=0.0))
    assert all(v <= w for v, w in zip(values, plain))
    # with a rival weight each player's value loses that much of the best other player's
    rival = leaf_values(pos, state.adjacent, 4, range(4), Settings(rival=0.5))
    for p in range(4):
        assert rival[p] == pytest.approx(values[p] - 0.5 * max(values[q] for q in range(4) if q != p), abs=1e-12)


def test_it_plays_whole_games_legally_through_the_protocol(game):
    agent = make_agent("dw-emm:turns=2,max_nodes=200", game)
    record = play_game(game, [agent, make_agent("dw-ste"), make_agent("dw-sdc"), make_agent("dw-wpm")], seed=11)
    assert record.replay().end_reason() in ("won", "stalled", "battle-limit")
    stats = agent.statistics()
    assert stats["decisions"] > 0 and stats["searched"] > 0 and stats["nodes"] >= stats["searched"]


def play_some(game, spec: str, seed: int, decisions: int = 40) -> list[int]:
    """The agent's first moves from seat 0 of a game whose other seats end their turns at once."""
    agent = make_agent(spec, game)
    agent.reset(game, 0, seed)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    moves = []
    while not state.is_terminal() and len(moves) < decisions:
        if state.is_chance_node():
            action = sample_chance(state, rng)
        elif state.current_player() == 0:
            action = agent.step(state)
            moves.append(action)
        else:
            action = 0
        state.apply_action(action)
    return moves


def test_the_same_seed_plays_the_same_moves_with_sampled_reinforcements(game):
    spec = "dw-emm:reinforce=sample,turns=2,max_nodes=300,seed=5"
    first = play_some(game, spec, 8)
    assert first == play_some(game, spec, 8)
    assert any(m != 0 for m in first)


def test_bad_options_are_one_clear_error():
    for spec, word in [("dw-emm:moves=best", "moves"), ("dw-emm:lose=1.5", "lose"), ("dw-emm:root=0", "root"),
                       ("dw-emm:reinforce=mean", "reinforce"), ("dw-emm:max_nodes=0", "max_nodes"), ("dw-emm:depth=2", "depth"),
                       ("dw-emm:reply=min", "reply"), ("dw-emm:order=best", "order")]:
        with pytest.raises(SpecError, match=word):
            make_agent(spec)


def test_a_low_clock_plays_as_dt_ste(game):
    state = game.new_initial_state(2)
    agent = make_agent("dw-emm:clock=true", game)
    agent.reset(game, 0, 2)
    agent.clock = 2.0  # below the study's 3 s mark
    action = agent.step(state)
    ste = ste_move(state, 0)
    assert action == (0 if ste is None else game.attack_action(*ste))
    assert agent.last_search["engine"] == "dw-ste" and agent.statistics()["as_ste"] == 1
    assert agent.clock == pytest.approx(2.0 + 0.25, abs=0.2)  # the increment came back, less the time spent


def test_it_refuses_a_chance_node(game):
    state = game.new_initial_state(2)
    state.apply_action(state.attacks_of(0)[0])
    with pytest.raises(BoardlabError, match="no move"):
        make_agent("dw-emm", game).step(state)


def test_its_tree_opens_in_the_viewer_with_chance_nodes(game):
    state = game.new_initial_state(3)
    agent = make_agent("dw-emm:attacks=1", game)
    agent.reset(game, 0, 3)
    agent.step(state)
    tree = agent.last_tree().tree()
    assert len(tree) == agent.last_search["nodes"]  # every searched node, the root included
    tree.check()
    moves = set(tree.move.to_list())
    assert {"end", "win", "loss"} <= moves
    assert tree.meta["engine"] == "dw-emm"


def test_a_tournament_reports_its_decisions_nodes_and_time(tmp_path):
    from boardlab.arena.store import ResultStore
    from boardlab.studies.dicewars.tournament import configure, full_report, markdown_table, run

    config = configure(boards=1, agents=("dw-emm:turns=1,attacks=3,max_nodes=100,clock=true", "dw-ste", "dw-sdc", "dw-wpm"), seed=3)
    with ResultStore(tmp_path / "t.sqlite") as store:
        run(config, store)
        report = full_report(store, config)
    rows = {r["agent"]: r for r in report["bots"]}
    emm = config.agents[0]
    facts = rows[emm]["search"]
    assert facts["decisions"] >= facts["searched"] > 0 and facts["nodes"] >= facts["searched"]
    # the first iteration (own turn, one attack: about 20 nodes) completes; deeper ones stop at the budget
    assert facts["max_nodes"] <= 101
    assert "timeouts" in facts and facts["clock_min"] is not None
    assert "search" not in rows["dw-ste"]
    assert f"| {emm} |" in markdown_table(report)


def result(index: int, seats: tuple[int, ...], winner_seat: int | None):
    from boardlab.arena.store import GameResult

    returns = [1.0 if s == winner_seat else -1.0 for s in range(len(seats))]
    return GameResult(index, 0, list(seats), [], returns, None, {"end": "won" if winner_seat is not None else "stalled"}, 0.0)


def test_the_paired_difference_counts_boards_as_samples():
    from boardlab.studies.dicewars.emm_experiment import paired_difference

    # two boards of 2 rotations; agent 0 sits in seat 0 then seat 1
    base = [result(0, (0, 1), 1), result(1, (1, 0), 1), result(2, (0, 1), 1), result(3, (1, 0), None)]
    other = [result(0, (0, 1), 0), result(1, (1, 0), 1), result(2, (0, 1), 0), result(3, (1, 0), 1)]
    p = paired_difference(base, other, 2)
    # agent 0 won games 1 (base) and 0, 1, 2, 3 (other): board 0 gains 1 of 2, board 1 gains 2 of 2
    assert (p["base_wins"], p["wins"], p["boards"], p["games_changed"]) == (1, 4, 2, 3)
    assert p["difference"] == pytest.approx(0.75)
    assert p["low"] < 0.75 < p["high"]  # two boards: a wide t interval around the mean
    assert paired_difference(base, other[:3], 2)["boards"] == 1  # board 1 not finished in both: left out


def test_the_experiment_plays_every_measurement_and_pairs_them(tmp_path):
    import json

    from typer.testing import CliRunner

    from boardlab.cli import app

    args = ["experiment", "dicewars-emm", "--boards", "1", "--agent", "dw-emm:turns=1", "--ablation", "dw-emm:turns=1,moves=all",
            "--store", str(tmp_path / "s.sqlite"), "--workers", "1", "--json", "--markdown", str(tmp_path / "t.md")]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data["tournaments"]) == {"course", "course-baseline", "four-player", "duel", "paired-baseline", "paired-agent",
                                        "ablation:dw-emm:turns=1,moves=all"}
    assert data["tournaments"]["four-player"]["games"] == 4 and data["tournaments"]["duel"]["games"] == 2
    # graded as the course graded a student's bot: in every game, with three of the five reference bots
    course = data["reports"]["course"]
    assert data["tournaments"]["course"]["games"] == 4 and course["bots"][0]["games"] == 4
    assert sum(row["games"] for row in course["bots"][1:]) == 12 and data["tournaments"]["course-baseline"]["agent"] == "dw-ste"
    assert data["tournaments"]["four-player"]["search"]["decisions"] > 0
    assert data["paired"]["paired-agent"]["games"] == 4
    again = json.loads(CliRunner().invoke(app, args).output)
    assert again["played"] == 0  # resumed from the store
    assert "in place of dt.ste" in (tmp_path / "t.md").read_text()
    bad = CliRunner().invoke(app, args[:6] + ["--ablation", "dw-ste", "--store", str(tmp_path / "s.sqlite")])
    assert bad.exit_code != 0 and "ablation" in bad.output


# --- leaf=rollout -------------------------------------------------------------------------------
def test_continuations_are_the_kernel_s_playouts_seed_by_seed(game):
    from boardlab.bots.dicewars import compiled as K
    from boardlab.core.rng import kernel_rng
    from boardlab.games.dicewars.kernel import WIN_TABLE, DiceWarsKernel

    kern = DiceWarsKernel(game)
    bots = K.CompiledBots(game)
    state = game.new_initial_state(7)
    adj, deg = kern.tables(state.map)
    policies = np.full(4, K.STE, dtype=np.int64)
    seeds = range(5, 45)
    starts = np.array([kernel_rng(s)[0] for s in seeds], dtype=np.uint64)
    wins = np.zeros(4, dtype=np.int64)
    owner, dice, reserve, scal = kern.arrays(state)
    won = K.continuations(owner, dice, reserve, scal, adj, deg, policies, 4, WIN_TABLE, K.WPM_TABLE, starts, wins)
    expected = np.zeros(4, dtype=np.int64)
    for seed in seeds:
        code, winner = bots.play_out(state, kernel_rng(int(seed)), policies)
        if code == 0:
            expected[winner] += 1
    assert wins.tolist() == expected.tolist() and won == expected.sum()
    assert kern.arrays(state)[0].tolist() == owner.tolist()  # the position itself is left as it was


def test_a_rollout_leaf_is_each_seat_s_share_of_wins_and_a_won_board_is_worth_1(game):
    from boardlab.bots.dicewars import compiled as K
    from boardlab.bots.dicewars.emm_rollout import TIE_BREAK, RolloutLeaf

    state = game.new_initial_state(7)
    leaf = RolloutLeaf(state.adjacent, 4, 64, [K.STE] * 4, seed=11, tie_break=lambda pos: [0.0] * 4)
    pos = Pos(list(state.owner), list(state.dice), list(state.reserve), 0, 0, 0, 0)
    values = leaf(pos)
    assert len(values) == 4 and all(0 <= v <= 1 for v in values) and sum(values) == pytest.approx(1.0)
    assert all(v * 64 == round(v * 64) for v in values)  # shares of 64 games
    assert leaf(pos) == values  # the same seeds for every leaf of a decision: the same games
    won = Pos([2] * len(state.owner), [1] * len(state.owner), [0] * 4, 2, 0, 0, 0)
    assert leaf(won)[2] > 1.0 + TIE_BREAK and leaf(won)[:2] == [0.0, 0.0]  # more than every game won on a board not yet won
    # saturated shares (every game won) are told apart by the score leaf, a tie-break far below one game
    ranked = RolloutLeaf(state.adjacent, 4, 64, [K.STE] * 4, seed=11, tie_break=lambda pos: [pos.owner.count(p) / 29 for p in range(4)])
    tied = ranked(pos)
    assert all(0 <= t - v <= TIE_BREAK for t, v in zip(tied, values)) and tied != values


def test_with_rollouts_the_turn_goes_on_after_the_searched_attack(game):
    # the leaf of an attack is asked while the attacker is still to move (the rollout carries its turn on),
    # the leaf of ending the turn after the reinforcement, with the next player to move
    seen = []

    def leaf(pos):
        seen.append((pos.player, pos.attacks))
        return [0.25] * 4

    state = game.new_initial_state(3)
    root = Pos(list(state.owner), list(state.dice), list(state.reserve), 0, 0, 0, 0)
    s = Search(state.adjacent, 4, Settings(turns=1, root_breadth=3, lose=0.0), np.random.default_rng(0), None, None,
               leaf=leaf, leaf_in_turn=True)
    _, options = s.root(root, 1, record=False)
    attacks = len(options) - 1
    assert attacks >= 1 and seen[0] == (1, 0)  # ending the turn: player 1 moves next
    assert set(seen[1:]) == {(0, 1)} and len(seen) == 1 + 2 * attacks  # each attack's two outcomes, player 0 still to move


def test_dw_emm_with_rollouts_plays_legal_reproducible_games(game):
    spec = "dw-emm:leaf=rollout,turns=1,rollouts=8,seed=4"
    first = play_some(game, spec, 12, decisions=30)
    assert play_some(game, spec, 12, decisions=30) == first and any(m != 0 for m in first)
    record = play_game(game, [make_agent(spec, game)] + [make_agent(b, game) for b in ("dw-ste", "dw-sdc", "dw-wpm")], seed=12)
    assert record.replay().end_reason() in ("won", "stalled", "battle-limit")
    agent = make_agent(spec, game)
    state = game.new_initial_state(3)
    agent.reset(game, 0, 3)
    action = agent.step(state)
    assert action in state.legal_actions()
    assert agent.last_search["rollout_leaves"] >= 1
    agent.last_tree().tree().check()
    with pytest.raises(SpecError, match="rollout_policy"):
        make_agent("dw-emm:leaf=rollout,rollout_policy=mcts")
    for spec in ("dw-emm:rollouts=8", "dw-emm:leaf=net,rollout_policy=model"):
        with pytest.raises(BoardlabError, match="give leaf=rollout"):
            make_agent(spec)


def test_the_opponent_model_tells_each_reference_bot_from_its_moves(game):
    from boardlab.bots.dicewars.opponents import OpponentModel

    bots = ["dw-sdc", "dw-wpm", "dw-template"]
    agents = [make_agent("dw-ste", game)] + [make_agent(b, game) for b in bots]
    seen = {}

    def watch(state, player, action):
        if player == 0 and state.phase == 0 and len(state.history) > 150 and "names" not in seen:
            model = OpponentModel(game, 0)
            model.update(state)
            model.update(state)  # nothing new: the same answer
            seen["names"], seen["policies"] = model.seat_names(), model.policies().tolist()

    play_game(game, agents, seed=21, on_move=watch)
    assert seen["names"] == [None, *bots]  # its own seat is not modelled
    from boardlab.bots.dicewars import compiled as K

    assert seen["policies"] == [K.STE, K.SDC, K.WPM, K.TEMPLATE]


def test_a_game_that_does_not_replay_from_its_seed_leaves_every_seat_to_dt_ste(game):
    from boardlab.bots.dicewars import compiled as K
    from boardlab.bots.dicewars.opponents import OpponentModel

    state = game.new_initial_state(4)
    for _ in range(3):
        state.apply_action(0)  # three players end their turns
    other = game.new_initial_state(5)
    other.history = list(state.history)
    other.player = 3  # a position set up by hand: its history is not where its seed leads
    model = OpponentModel(game, 3)
    model.update(other)
    assert model.broken and model.policies().tolist() == [K.STE] * 4


def test_dw_emm_rollouts_with_the_opponent_model_play_whole_games(game):
    agent = make_agent("dw-emm:leaf=rollout,turns=1,rollouts=8,rollout_policy=model", game)
    record = play_game(game, [agent] + [make_agent(b, game) for b in ("dw-sdc", "dw-wpm", "dw-ste")], seed=5)
    assert record.replay().end_reason() in ("won", "stalled", "battle-limit")
    assert agent._opponents is not None and agent._opponents.seat_names()[1:] == ["dw-sdc", "dw-wpm", "dw-ste"]
