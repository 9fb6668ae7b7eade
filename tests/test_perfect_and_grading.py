"""The ``perfect`` agent, grading by share of optimal moves, and the solve/grade commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardlab.agents.registry import make_agent
from boardlab.cli import app
from boardlab.core.errors import FormatError, IllegalActionError, SpecError
from boardlab.core.registry import make
from boardlab.games.connect4.grading import (
    GradedPosition,
    grade,
    label,
    load_grading_set,
    parse_grading_set,
    phase_of,
    write_grading_set,
)
from boardlab.games.connect4.solver import Position, Solver

runner = CliRunner()
GAME = make("connect4")
# Test_L2_R1 line 2: the player to move (O, 23 stones down) wins with its 14th stone
WON_POSITION = ("52753311433677442422121", 8)


def play_from(moves: str, agents, seed: int = 0):
    """Play to the end from ``moves``; returns the final state."""
    state = GAME.state_from_moves(moves)
    for seat, agent in enumerate(agents):
        agent.reset(GAME, seat, seed * 2 + seat)
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].step(state))
    return state


@pytest.mark.parametrize("opponent", ["random", "mcts:iterations=300"])
def test_perfect_converts_a_won_position_no_later_than_predicted(opponent):
    moves, score = WON_POSITION
    to_move = Position.from_moves(moves).moves % 2
    for seed in range(3):
        agents = [make_agent(opponent, GAME), make_agent(opponent, GAME)]
        agents[to_move] = make_agent("perfect", GAME)
        final = play_from(moves, agents, seed)
        assert final.winner == to_move
        winner_stones = bin(final.boards[to_move]).count("1")
        assert winner_stones <= 22 - score  # never slower than perfect play against perfect defence


def test_perfect_plays_only_optimal_moves_and_ties_are_seeded():
    solver = Solver()
    for moves in ["52753311433677442422121", "4455", "3232434"]:
        best, columns = solver.best_moves(moves)
        agent = make_agent("perfect", GAME)
        state = GAME.state_from_moves(moves)
        picks = set()
        for seed in range(8):
            agent.reset(GAME, state.current_player(), seed)
            picks.add(agent.step(state))
        assert picks <= set(columns)
        assert agent.last_choice == (best, columns)


def test_depth_limited_perfect_takes_wins_and_blocks():
    agent = make_agent("perfect:depth=2", GAME)
    agent.reset(GAME, 0, 1)
    assert agent.step(GAME.state_from_moves("445566")) in (2, 6)  # wins at once
    agent.reset(GAME, 1, 1)
    assert agent.step(GAME.state_from_moves("41424")) == 3  # must block column 4


def test_perfect_refuses_other_boards_and_games():
    with pytest.raises(SpecError, match="7 columns, 6 rows"):
        make_agent("perfect", make("connect4", rows=5, cols=6))
    agent = make_agent("perfect")
    with pytest.raises(SpecError, match="7 columns, 6 rows"):
        agent.reset(make("connect4", rows=5, cols=6), 0, 1)
    with pytest.raises(SpecError, match="plays standard Connect Four only"):
        make_agent("perfect", make("mancala"))
    with pytest.raises(SpecError, match="depth"):
        make_agent("perfect:depth=-1", GAME)


DATA = Path(__file__).parent / "data" / "connect4"


def tiny_set(solver: Solver) -> list[GradedPosition]:
    """Six endgame and two (easy) opening positions from Pons' sets, labelled."""
    end = [line.split()[0] for line in (DATA / "Test_L3_R1.head100").read_text().splitlines()[:6]]
    opening = ["7343363417254", "51756773145177"]  # Test_L1_R1 lines whose every move solves fast
    return [label(solver, moves) for moves in end + opening]


def test_grading_counts_optimal_moves_by_phase(tmp_path):
    solver = Solver()
    positions = tiny_set(solver)
    path = tmp_path / "set.txt"
    write_grading_set(path, positions, ["made by a test"])
    again = load_grading_set(path)
    assert again == positions
    perfect = grade(make_agent("perfect", GAME), GAME, again)
    assert (perfect.positions, perfect.optimal, perfect.share) == (8, 8, 1.0)
    assert perfect.phases["end"].positions == 6 and perfect.phases["opening"].positions == 2
    assert perfect.phases["opening"].share == 1.0
    assert perfect.phases["middle"].share is None
    # an agent that always plays the leftmost legal column is optimal exactly where that column is
    first = sum(1 for p in again if p.scores[min(c for c, s in enumerate(p.scores) if s is not None)] == p.best)
    data = grade(_Leftmost(), GAME, again).to_dict()
    assert data["optimal"] == first
    assert set(data) == {"agent", "positions", "optimal", "share", "kept", "kept_share", "phases", "mean_seconds_per_move"}
    sign = lambda score: (score > 0) - (score < 0)  # noqa: E731
    kept = sum(1 for p in again if sign(p.scores[min(c for c, s in enumerate(p.scores) if s is not None)]) == sign(p.best))
    assert data["kept"] == kept >= first and data["kept_share"] == kept / 8
    assert sum(phase["kept"] for phase in data["phases"].values()) == kept
    assert perfect.kept == 8


def test_keeping_the_result_is_not_the_quickest_win():
    """A won position where a slower win is available: the slower win keeps the result but is not optimal."""
    graded = parse_grading_set(["4455 18 18 17 -2 0 5 4 3"], "hand-made")
    result = grade(_Leftmost(), GAME, graded).to_dict()
    assert (result["optimal"], result["kept"]) == (1, 1)
    slower = grade(_Rightmost(), GAME, graded).to_dict()
    assert (slower["optimal"], slower["kept"], slower["phases"]["opening"]["kept_share"]) == (0, 1, 1.0)


def test_pons_files_grade_the_chosen_move_like_a_labelled_set():
    """Pons' 'MOVES SCORE' lines carry no move scores: the solver scores the chosen move, to the same result."""
    solver = Solver()
    labelled = tiny_set(solver)
    pons = parse_grading_set([f"{p.moves} {p.best}" for p in labelled], "pons")
    assert [p.scores for p in pons] == [None] * len(labelled)
    assert [p.to_line() for p in pons] == [f"{p.moves} {p.best}" for p in labelled]
    for agent in (_Leftmost(), _Rightmost(), make_agent("perfect", GAME)):
        expected = grade(agent, GAME, labelled).to_dict()
        got = grade(agent, GAME, pons, solver=solver).to_dict()
        for result in (expected, got):
            result.pop("mean_seconds_per_move")
        assert got == expected


def test_kept_only_grading_of_a_pons_file_counts_the_same_kept_moves_and_no_optimal_ones():
    """The sign-only check (a weak solve of the chosen move, none where the position is lost) keeps the same count."""
    solver = Solver()
    labelled = tiny_set(solver)
    pons = parse_grading_set([f"{p.moves} {p.best}" for p in labelled], "pons")
    for agent in (_Leftmost(), _Rightmost(), make_agent("perfect", GAME)):
        expected = grade(agent, GAME, labelled).to_dict()
        got = grade(agent, GAME, pons, solver=solver, kept_only=True).to_dict()
        assert (got["kept"], got["kept_share"], got["positions"]) == (expected["kept"], expected["kept_share"], expected["positions"])
        assert got["optimal"] is None and got["share"] is None
        assert all(phase["optimal"] is None and phase["share"] is None for phase in got["phases"].values())
        assert [phase["kept"] for phase in got["phases"].values()] == [phase["kept"] for phase in expected["phases"].values()]
    shown = runner.invoke(app, ["grade", "perfect", "--positions", str(DATA / "Test_L3_R1.head100"), "--limit", "3", "--kept-only"])
    assert shown.exit_code == 0 and "3 of 3 moves keep the result (100.0 %); optimal moves not counted" in shown.output


def test_a_pons_file_whose_score_is_too_low_is_refused():
    moves, score = WON_POSITION
    wrong = parse_grading_set([f"{moves} {score - 3}"], "f")
    with pytest.raises(FormatError, match=f"'{moves}'.*scores {score}, above the file's score {score - 3}"):
        grade(make_agent("perfect", GAME), GAME, wrong, solver=Solver())


def test_move_score_of_one_column():
    solver = Solver()
    assert [solver.move_score("4455", c) for c in range(7)] == [solver.move_scores("4455")[c] for c in range(7)]
    with pytest.raises(IllegalActionError, match="column 8"):
        solver.move_score("4455", 7)
    with pytest.raises(IllegalActionError, match="column 1 is full"):
        solver.move_score("111111", 0)


class _Leftmost:
    spec = "leftmost"

    def reset(self, game, player, seed=None):
        pass

    def step(self, state):
        return state.legal_actions()[0]


class _Rightmost(_Leftmost):
    spec = "rightmost"

    def step(self, state):
        return state.legal_actions()[-1]


def test_phases():
    assert [phase_of(n) for n in (0, 14, 15, 28, 29, 41)] == ["opening", "opening", "middle", "middle", "end", "end"]


def test_grading_set_errors_name_the_line():
    with pytest.raises(FormatError, match="line 2.*9 fields"):
        parse_grading_set(["4455 18 1 1 1 1 1 1 18", "44 0 0"], "f")
    with pytest.raises(FormatError, match="line 1.*not the largest"):
        parse_grading_set(["4455 3 1 1 1 1 1 1 18"], "f")
    with pytest.raises(FormatError, match="line 1.*move 3"):
        parse_grading_set(["448 3 1 1 1 1 1 1 3"], "f")
    with pytest.raises(FormatError, match="no positions"):
        parse_grading_set(["# only a comment"], "f")


def test_shipped_grading_set_covers_every_phase():
    positions = load_grading_set()
    counts = {p: sum(1 for g in positions if phase_of(g.stones) == p) for p in ("opening", "middle", "end")}
    assert all(n >= 20 for n in counts.values()), counts
    solver = Solver()
    for graded in positions[-10:]:  # endgame lines: cheap to re-check
        assert label(solver, graded.moves) == graded


# --- commands -------------------------------------------------------------------
def test_solve_json_shape():
    # Test_L3_R1 line 1: columns 1 to 5 are full
    result = runner.invoke(app, ["solve", "--position", "2252576253462244111563365343671351441", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"score", "moves", "nodes", "seconds"}
    assert list(data["moves"]) == [str(c) for c in range(1, 8)]
    assert [data["moves"][c] for c in "12345"] == [None] * 5  # full columns
    assert data["score"] == -1
    assert data["score"] == max(s for s in data["moves"].values() if s is not None)


def test_solve_positions_file_reports_matches(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("4455 18\n44455554221 -15\n44455554221 3\n")
    result = runner.invoke(app, ["solve", "--positions", str(path), "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["match"] for r in rows] == [True, True, False]
    assert set(rows[0]) == {"line", "moves", "score", "expected", "match", "nodes", "seconds"}
    text = runner.invoke(app, ["solve", "--positions", str(path)])
    assert text.exit_code == 1 and "1 mismatches" in text.output


def test_grade_command_json(tmp_path):
    path = tmp_path / "set.txt"
    write_grading_set(path, tiny_set(Solver()))
    result = runner.invoke(app, ["grade", "random", "--positions", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["positions"] == 8 and set(data["phases"]) == {"opening", "middle", "end"}


def test_grade_command_reads_a_pons_file_and_limits_it():
    result = runner.invoke(app, ["grade", "perfect", "--positions", str(DATA / "Test_L3_R1.head100"), "--limit", "5", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["positions"], data["optimal"], data["kept"]) == (5, 5, 5)
    assert data["phases"]["end"]["positions"] == 5


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", "--position", "448"], "move 3"),
        (["solve", "--position", "4455667"], "is over"),
        (["solve"], "exactly one"),
        (["grade", "random", "--positions", "/nonexistent/set.txt"], "does not exist"),
        (["grade", "perfect:depth=x"], "depth"),
    ],
)
def test_bad_input_is_one_line(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output


@pytest.mark.parametrize("command", ["grade random", "solve"])
def test_a_missing_pons_benchmark_file_says_what_it_is_and_where_to_get_it(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # 'Test_L1_R2' as the docs once wrote it: a file in the current folder
    for given in ("Test_L1_R2", str(tmp_path / "pons" / "Test_L1_R3")):
        result = runner.invoke(app, [*command.split(), "--positions", given])
        assert result.exit_code == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and given in lines[0], result.stderr
        assert "Pascal Pons' Connect Four benchmark files" in lines[0] and "boardlab does not ship" in lines[0]
        assert "http://blog.gamesolver.org/solving-connect-four/02-test-protocol/" in lines[0]
        assert all(name in lines[0] for name in ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3"))
    other = runner.invoke(app, [*command.split(), "--positions", "my-set.txt"])
    assert other.exit_code == 2 and "does not exist" in other.stderr and "Pons" not in other.stderr
