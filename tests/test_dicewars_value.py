"""The trained Dice Wars board value: the compiled and plain functions, the greedy bot, dw-emm's
leaf=value, the weights file and its recipe (``boardlab train dicewars-value``)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from boardlab.agents.registry import make_agent
from boardlab.bots.dicewars import compiled as K
from boardlab.bots.dicewars import value as V
from boardlab.bots.dicewars.emm_search import Pos
from boardlab.cli.app import app
from boardlab.core.errors import BoardlabError
from boardlab.core.registry import make
from boardlab.core.rng import kernel_rng

# weights of every sign on every term, so that a term computed wrongly in either version shows
WEIGHTS = [1.0, 0.2, -0.5, 0.6, -0.4, -0.45, 0.03, 0.02, -0.2, -0.1, -0.1]


def write_model(path, weights=WEIGHTS, players=("2", "4")):
    path.write_text(json.dumps({"format": V.FORMAT, "version": 1, "terms": list(V.TERMS),
                                "players": {k: {"weights": list(weights)} for k in players}}))
    return path


def positions(game, games: int, seed: int = 0):
    """Positions to move in of games where the compiled VALUE bot plays every seat."""
    bots = K.CompiledBots(game)
    table = V.bot_weights({"players": {"2": {"weights": WEIGHTS}, "4": {"weights": WEIGHTS}}})
    rng = random.Random(seed)
    for g in range(games):
        state = game.new_initial_state(seed + g)
        while not state.is_terminal() and state.move_number() < 600:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
                continue
            yield state
            state.apply_action(bots.choose(K.VALUE, state, weights=table) if rng.random() < 0.9 else rng.choice(state.legal_actions()))


@pytest.mark.parametrize("players", [2, 4])
def test_the_compiled_and_the_plain_value_agree_on_positions_of_real_games(players):
    game = make(f"dicewars:players={players}")
    kern = game.playout_kernel()
    w = np.array(WEIGHTS)
    checked = 0
    for state in positions(game, 3):
        adj, deg = kern.tables(state.map)
        owner, dice, _, _ = kern.arrays(state)
        scratch = np.empty(len(owner), np.int64), np.zeros(players, np.int64), np.zeros(players, np.int64)
        alive = sorted(set(state.owner))
        plain = V.board_values(state.owner, state.dice, state.adjacent, players, alive, WEIGHTS)
        for p in alive:
            assert plain[p] == pytest.approx(K.board_value(owner, dice, adj, deg, p, players, K.WIN_TABLE, w, *scratch), abs=1e-12)
            checked += 1
    assert checked > 300


@pytest.mark.parametrize("players", [2, 4])
def test_the_observation_odds_are_the_terms_the_tuned_value_weighs(players):
    """``features=odds`` hands the network each seat's expected losses, largest-region losses and
    regions: the tuned value's terms 2, 8 and 9 (its own implementation, seat by seat), rotated to
    the viewer, after everything the counts tensor holds, which stays as it was."""
    game, counts = make(f"dicewars:players={players},features=odds"), make(f"dicewars:players={players}")
    width = int(np.prod(counts.observation_tensor_shape()))
    assert game.observation_tensor_shape() == (width + 3 * players,)
    kern = game.playout_kernel()
    checked = 0
    for state in positions(game, 2):
        n, viewer = len(state.owner), state.current_player()
        x = state.observation_tensor(viewer)
        np.testing.assert_array_equal(x[:width], counts.state_from_notation(state.notation()).observation_tensor(viewer))
        adj, deg = kern.tables(state.map)
        owner, dice, _, _ = kern.arrays(state)
        scratch = np.empty(n, np.int64), np.zeros(players, np.int64), np.zeros(players, np.int64)
        for k in range(players):
            seat = (viewer + k) % players
            if seat not in state.owner:
                assert x[width + 3 * k: width + 3 * k + 3].tolist() == [0.0, 0.0, 0.0]
                continue
            expected = [K.board_value(owner, dice, adj, deg, seat, players, K.WIN_TABLE, np.eye(len(V.TERMS))[V.TERMS.index(t)],
                                      *scratch) for t in ("expected_losses", "region_losses", "regions")]
            np.testing.assert_allclose(x[width + 3 * k: width + 3 * k + 3], expected, rtol=1e-6, atol=1e-7)
            checked += 1
    assert checked > 100


def test_the_value_counts_what_it_says_on_a_hand_made_board():
    # a line 0 - 1 - 2 - 3 - 4: player 0 owns 0, 1 and 3; player 1 owns 2 and 4
    line = [[1], [0, 2], [1, 3], [2, 4], [3]]
    owner, dice = [0, 0, 1, 0, 1], [2, 3, 4, 1, 1]
    one = lambda i: [1.0 if k == i else 0.0 for k in range(len(V.TERMS))]  # noqa: E731
    value = lambda i, p=0: V.board_values(owner, dice, line, 2, [p], one(i))[p]  # noqa: E731
    assert value(0) == 2 / 5  # largest region: areas 0 and 1
    assert value(1) == 3 / 5
    assert value(3) == 6 / 11  # 6 of the 11 dice
    assert value(4) == 1 / 5 and value(10) == 1 / 5  # player 1's regions are single areas
    assert value(9) == 2 / 5  # two regions: {0, 1} and {3}
    # expected losses: only area 2 (4 dice) can attack; it borders areas 1 (3 dice) and 3 (1 die)
    from boardlab.games.dicewars.probabilities import WIN

    assert value(2) == pytest.approx((WIN[4, 3] + WIN[4, 1]) / 5)
    assert value(8) == pytest.approx(WIN[4, 3] / 5)  # the largest region {0, 1}: area 1 alone is exposed
    assert value(5) == 5 / 11  # the other player holds 4 + 1 dice


@pytest.mark.parametrize("players", [2, 4])
def test_dw_emm_of_one_attack_searched_plays_as_the_compiled_greedy_bot(players, tmp_path):
    game = make(f"dicewars:players={players}")
    kern = game.playout_kernel()
    model = write_model(tmp_path / "w.json")
    table = V.bot_weights(V.read_model(model))
    agent = make_agent(f"dw-emm:leaf=value,value={model},turns=1,attacks=1,root=1000,moves=all,lose=0")
    compared = 0
    for state in positions(game, 3, seed=10):
        adj, deg = kern.tables(state.map)
        owner, dice, _, _ = kern.arrays(state)
        chosen = K.choose(K.VALUE, owner, dice, adj, deg, state.player, state.attacks, players,
                          np.arange(players), K.WIN_TABLE, table, kernel_rng(0))
        expected = 0 if chosen < 0 else game.attack_action(chosen // len(owner), chosen % len(owner))
        agent.reset(game, state.player)
        got = agent.step(state)
        if got != expected:  # only an exact tie may part them (the search takes its candidates in another order)
            values = {o["move"]: o["value"] for o in agent.last_search["children"]}
            label = lambda a: "end" if a == 0 else "{}>{}".format(*(x + 1 for x in game.attack_of(a)))  # noqa: E731
            assert values[label(got)] == pytest.approx(values[label(expected)], abs=1e-12)
        compared += 1
    assert compared > 200


def test_the_greedy_bot_takes_the_last_area_whatever_its_weights_say():
    game = make("dicewars:players=2")
    state = game.state_from_notation(game.new_initial_state(3).notation())
    owner = [0] * len(state.owner)
    owner[5] = 1
    state.owner[:] = owner
    state.dice[:] = [2] * len(owner)
    state.player = 0
    attack_cost_high = [0.0] * len(V.TERMS)
    attack_cost_high[V.ATTACK_COST] = 10.0  # no board gain (a few units at most) pays for an attack...
    table = V.bot_weights({"players": {"2": {"weights": attack_cost_high}}})
    kern = game.playout_kernel()
    adj, deg = kern.tables(state.map)
    o, d, _, _ = kern.arrays(state)
    act = K.choose(K.VALUE, o, d, adj, deg, 0, 0, 2, np.arange(2), K.WIN_TABLE, table, kernel_rng(0))
    assert act >= 0 and act % len(o) == 5  # ...but the game's end does


def test_leaf_value_makes_winning_best_and_dying_worst():
    line = [[1], [0, 2], [1, 3], [2]]
    leaf = V.ValueLeaf(line, 3, WEIGHTS)
    assert leaf(Pos([0, 0, 0, 0], [1, 2, 3, 4], [0, 0, 0], 0, 0)) == [V.WON, V.OUT, V.OUT]
    values = leaf(Pos([0, 0, 1, 1], [1, 2, 3, 4], [0, 0, 0], 0, 0))
    assert values[2] == V.OUT and all(V.OUT < v < V.WON for v in values[:2])


def test_a_bad_weights_file_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(BoardlabError, match="bad.json"):
        V.read_model(bad)
    for data, message in (({"format": "x"}, "not a Dice Wars value model"),
                          ({"format": V.FORMAT, "terms": ["a"], "players": {}}, "terms"),
                          ({"format": V.FORMAT, "terms": list(V.TERMS), "players": {"4": {"weights": [1, 2]}}}, "11 finite numbers"),
                          ({"format": V.FORMAT, "terms": list(V.TERMS), "players": {"9": {"weights": WEIGHTS}}}, "from 2 to 8")):
        bad.write_text(json.dumps(data))
        with pytest.raises(BoardlabError, match=message):
            V.read_model(bad)
    with pytest.raises(BoardlabError, match="no value model"):
        make_agent(f"dw-emm:leaf=value,value={tmp_path / 'missing.json'}")
    with pytest.raises(BoardlabError, match="give leaf=value"):
        make_agent(f"dw-emm:leaf=score,value={write_model(tmp_path / 'w.json')}")


def test_weights_for_a_number_of_players_not_trained_are_the_nearest():
    model = {"players": {"2": {"weights": [2.0] * 11}, "4": {"weights": [4.0] * 11}}}
    assert V.weights_for(model, 3)[0] == 2.0  # 2 and 4 are as near: the smaller
    assert V.weights_for(model, 6)[0] == 4.0
    assert V.bot_weights(model)[2, K.VALUE_COLUMN] == 2.0
    assert (V.bot_weights(model)[4, : K.VALUE_COLUMN] == K.WPM_TABLE[4, : K.VALUE_COLUMN]).all()  # dt.wpm_c's untouched


def test_dw_emm_with_the_value_leaf_plays_whole_games_and_names_its_model(tmp_path):
    from boardlab.arena.play import play_game

    model = write_model(tmp_path / "w.json")
    game = make("dicewars")
    agents = [make_agent(f"dw-emm:leaf=value,value={model}"), make_agent("dw-ste"), make_agent("dw-sdc"), make_agent("dw-wpm")]
    record = play_game(game, agents, seed=5)
    assert record.replay().end_reason() == "won"
    stats = agents[0].statistics()
    assert stats["searched"] > 0 and stats["nodes"] >= stats["searched"]
    assert agents[0].model_files(game) == {"value": model}
    assert make_agent("dw-emm").model_files(game) == {"value": V.DEFAULT_MODEL}


def test_the_recipe_trains_resumes_and_refuses_other_settings(tmp_path):
    runner = CliRunner()
    out = tmp_path / "value.json"
    small = ["--population", "4", "--elite", "2", "--boards", "2", "--validation-boards", "2", "--maps", "2"]
    first = runner.invoke(app, ["train", "dicewars-value", "--out", str(out), "--generations", "1", *small, "--json"])
    assert first.exit_code == 0, first.output
    rows = [json.loads(line) for line in first.output.splitlines()]
    assert [r["generation"] for r in rows[:-1]] == [1] and rows[-1]["players"] == 4
    state = json.loads((tmp_path / "value.run-4p.json").read_text())
    assert state["generation"] == 1
    # the same command with more generations goes on from the saved generation
    again = runner.invoke(app, ["train", "dicewars-value", "--out", str(out), "--generations", "2", *small, "--json"])
    assert again.exit_code == 0, again.output
    assert [json.loads(line)["generation"] for line in again.output.splitlines()[:-1]] == [2]
    # other settings against the saved run: refused, the run untouched
    other = runner.invoke(app, ["train", "dicewars-value", "--out", str(out), "--generations", "3", *small[:-2], "--maps", "3"])
    assert other.exit_code != 0 and "maps" in other.output
    assert json.loads((tmp_path / "value.run-4p.json").read_text())["generation"] == 2
    # a duel's weights go into the same file beside the 4-player ones
    duel = runner.invoke(app, ["train", "dicewars-value", "--out", str(out), "--players", "2", "--generations", "1", *small])
    assert duel.exit_code == 0, duel.output
    model = V.read_model(out)
    assert sorted(model["players"]) == ["2", "4"]
    assert model["players"]["2"]["opponents"] == ["dw-ste"]
    assert "--players 2" in model["players"]["2"]["command"]
    assert (tmp_path / "value-4p.png").read_bytes()[:4] == b"\x89PNG"
    shown = runner.invoke(app, ["evaluate", str(out), "--json"])
    assert shown.exit_code == 0, shown.output
    assert set(json.loads(shown.output)) == {"2", "4"}


def test_the_recipe_names_a_wrong_lineup():
    result = CliRunner().invoke(app, ["train", "dicewars-value", "--players", "4", "--opponent", "dw-ste"])
    assert result.exit_code != 0 and "4 players need 3 opponents" in result.output
    result = CliRunner().invoke(app, ["train", "dicewars-value", "--players", "2", "--opponent", "dw-emm"])
    assert result.exit_code != 0 and "no compiled twin" in result.output
