import pytest

from boardlab.agents import make_agent
from boardlab.agents.human import HumanAgent
from boardlab.arena import duel, play_game
from boardlab.arena.play import DEFAULT_MOVE_CAP, move_cap
from boardlab.core.errors import BoardlabError, SpecError
from boardlab.core.params import parse_spec
from boardlab.core.records import GameRecord
from boardlab.games import make


def test_spec_parsing():
    assert parse_spec("mcts:iterations=2000,c=1.41") == ("mcts", {"iterations": "2000", "c": "1.41"})
    assert parse_spec("random") == ("random", {})
    with pytest.raises(SpecError, match="key=value"):
        parse_spec("random:seed")
    with pytest.raises(SpecError, match="twice"):
        parse_spec("random:seed=1,seed=2")


def test_spec_parsing_with_a_positional_option_and_parentheses():
    from boardlab.core.params import Option, format_spec, spec_name

    assert parse_spec("fam:hex:board_size=7", "name") == ("fam", {"name": "hex", "board_size": "7"})
    assert parse_spec("fam:hex", "name") == ("fam", {"name": "hex"})
    assert parse_spec("fam:name=hex,board_size=7", "name") == ("fam", {"name": "hex", "board_size": "7"})
    # parentheses keep their commas, colons and equals signs: a value may be a whole spec
    assert parse_spec("fam:hex(board_size=7,swap=true)", "name") == ("fam", {"name": "hex(board_size=7,swap=true)"})
    assert parse_spec("fam:tb:game=g(a=1,b=2),x=3", "name") == ("fam", {"name": "tb", "game": "g(a=1,b=2)", "x": "3"})
    assert parse_spec("qnet:path=C:/models/a.pt,seed=1") == ("qnet", {"path": "C:/models/a.pt", "seed": "1"})
    assert spec_name("fam:hex:board_size=7") == "fam"
    with pytest.raises(SpecError, match="key=value"):
        parse_spec("connect4:foo")  # no positional declared: as before
    with pytest.raises(SpecError, match="unbalanced"):
        parse_spec("fam:hex(board_size=7", "name")
    options = {"name": Option("name", str, "tic_tac_toe", "member", positional=True), "size": Option("size", int, 11, "size")}
    assert format_spec("fam", {"name": "tic_tac_toe", "size": 11}, options) == "fam:tic_tac_toe"  # always written
    assert format_spec("fam", {"name": "hex", "size": 7}, options) == "fam:hex:size=7"
    assert parse_spec("fam:hex:size=7", "name") == ("fam", {"name": "hex", "size": "7"})


def test_agent_specs_are_checked():
    assert make_agent("random:seed=3").config["seed"] == 3
    assert make_agent("random:seed=3").spec == "random:seed=3"
    with pytest.raises(SpecError, match="must be int"):
        make_agent("random:seed=x")
    with pytest.raises(SpecError, match="unknown agent 'nope'"):
        make_agent("nope")


def test_random_agent_is_uniform_and_seeded():
    game = make("connect4")
    state = game.new_initial_state()
    agent = make_agent("random")
    agent.reset(game, 0, seed=11)
    first = [agent.step(state) for _ in range(7000)]
    agent.reset(game, 0, seed=11)
    assert [agent.step(state) for _ in range(7000)] == first
    counts = [first.count(c) for c in range(7)]
    assert min(counts) > 850 and max(counts) < 1150


def test_human_agent_rejects_illegal_input_and_asks_again():
    answers = iter(["x", "9", "4"])
    said = []
    human = HumanAgent(ask=lambda prompt: next(answers), say=said.append)
    state = make("connect4").new_initial_state()
    assert human.step(state) == 3
    assert "1 2 3 4 5 6 7" in said[0]  # the board is shown before asking
    assert len(said) == 3 and "illegal move" in said[1] and "does not exist" in said[2]


def test_play_game_record_replays_exactly():
    game = make("connect4")
    record = play_game(game, [make_agent("random"), make_agent("random:seed=2")], seed=42)
    again = play_game(game, [make_agent("random"), make_agent("random:seed=2")], seed=42)
    assert record.actions == again.actions
    loaded = GameRecord.from_dict(record.to_dict())
    final = loaded.replay()
    assert final.returns() == record.returns and final.history == record.actions
    assert loaded.agents == ["random", "random:seed=2"]


def test_tampered_record_is_refused():
    game = make("connect4")
    record = play_game(game, [make_agent("random"), make_agent("random")], seed=1)
    record.returns = [r * -1 + 0.5 for r in record.returns]
    with pytest.raises(BoardlabError, match="differ"):
        record.replay()
    record.actions = record.actions[:3]
    with pytest.raises(BoardlabError, match="not over"):
        record.replay()


def test_duel_counts_alternate_seats_and_reproduce():
    game = make("connect4")
    result = duel(game, "random", "random", 200, seed=5)
    assert result.wins + result.draws + result.losses == 200
    assert result.by_seat[0].games == result.by_seat[1].games == 100
    again = duel(game, "random", "random", 200, seed=5)
    timed = lambda r: {k: v for k, v in r.to_dict().items() if k != "seconds_per_move"}  # noqa: E731  (wall time varies)
    assert timed(again) == timed(result) and again.moves == result.moves
    assert duel(game, "random", "random", 200, seed=6).to_dict() != result.to_dict()


def test_duel_refuses_humans():
    with pytest.raises(BoardlabError, match="needs a person"):
        duel(make("connect4"), "human", "random", 2)


def test_agents_and_compiled_matches_have_a_readable_repr():
    from boardlab.agents.base import CompiledMatch

    assert repr(make_agent("mcts:iterations=50")) == "<agent mcts:iterations=50>"
    assert repr(CompiledMatch(actions=[1, 2], statistics=[None])) == "CompiledMatch(actions=[1, 2], statistics=[None])"


def test_a_game_may_run_as_long_as_its_rules_allow_and_no_longer():
    """The move cap is the game's own max_game_length() where that is longer than 100,000 (a Dice Wars
    game of 10,000 battles may pass 100,000 moves), 100,000 for a game that declares none; past the
    cap a caller sets, an error names the game."""
    import arena_toy

    dicewars = make("dicewars:players=2")
    assert move_cap(dicewars) == dicewars.max_game_length() > DEFAULT_MOVE_CAP
    assert move_cap(make("connect4")) == DEFAULT_MOVE_CAP
    assert move_cap(arena_toy.SumRace()) == DEFAULT_MOVE_CAP  # max_game_length() not implemented
    game = make("connect4:rows=4,cols=4,k=4")
    agents = [make_agent("random", game), make_agent("random", game)]
    with pytest.raises(BoardlabError, match="connect4.*did not end within 3 moves"):
        play_game(game, agents, seed=3, max_moves=3)
