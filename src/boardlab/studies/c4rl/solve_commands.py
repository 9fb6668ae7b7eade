"""``boardlab solve`` (exact Connect Four scores) and ``boardlab grade`` (share of optimal moves)."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from boardlab.commands.console import console, err_console, print_json
from boardlab.core.errors import BoardlabError
from boardlab.core.files import read_text


def _describe(score: int, stones: int) -> str:
    if score == 0:
        return "draw with perfect play"
    if score > 0:
        return f"the player to move wins with their stone number {22 - score}"
    return f"the player to move loses: the opponent wins with their stone number {22 + score}"


def _progress(label: str, total: int) -> Progress:
    return Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=err_console, transient=True, disable=not err_console.is_terminal,
    )


def _pons(position: str) -> str:
    """``position`` in Pons' notation: the moves as ``boardlab search`` reads them ("4453", "4 4 5 3", "4,4,5,3")."""
    from boardlab.core.registry import make

    moves = make("connect4").split_moves(position)
    for index, move in enumerate(moves):
        if len(move) != 1:
            raise BoardlabError(f"move {index + 1} ({move!r}) of {position!r}: moves are the column digits 1-7")
    return "".join(moves)


def solve(
    position: str = typer.Option(
        None, "--position", "-p", help="Moves from the empty board, columns 1-7: in Pons' notation (4453) or separated by spaces "
        "or commas (\"4 4 5 3\", as boardlab search reads them); empty string: the empty board.",
    ),
    positions: Path = typer.Option(None, "--positions", help="Solve every line of a benchmark file ('MOVES SCORE' or 'MOVES' per line)."),
    book: bool = typer.Option(
        True, "--book/--no-book", help="Use the shipped opening book: its positions are answered, and positions leading into it "
        "solved, with little or no search (--no-book: search everything, e.g. to time the solver).",
    ),
    json_out: bool = typer.Option(
        False, "--json",
        help="With --position: one JSON object {score, moves: {\"1\": score or null when the column is full, ... \"7\"}, nodes, seconds}. "
        "With --positions: one JSON object per line {line, moves, score, expected (null when the file has none), match, nodes, seconds}.",
    ),
) -> None:
    """Exact scores of standard (7x6) Connect Four positions, in Pons' convention.

    A positive score means the player to move wins (22 minus the number of the winning stone), 0 a draw, a negative score a loss. \
Each move's score is the score for the player to move after playing it; nodes counts the positions searched for all of them.
    """
    from boardlab.games.connect4.book import default_book
    from boardlab.games.connect4.solver import Position, Solver, read_positions

    if (position is None) == (positions is None):
        raise BoardlabError("give exactly one of --position MOVES or --positions FILE")
    solver = Solver(book=default_book() if book else None)
    if position is not None:
        pos = Position.from_moves(_pons(position))
        start = time.perf_counter()
        score = solver.solve(pos)
        scores = solver.move_scores(pos)
        seconds = time.perf_counter() - start
        moves = {str(c + 1): s for c, s in scores.items()}
        if json_out:
            print_json({"score": score, "moves": moves, "nodes": solver.nodes, "seconds": seconds})
            return
        console.print(f"position {position or '(empty board)'}: score {score} ({_describe(score, pos.moves)})")
        table = Table("column", "score", "outcome")
        for col, s in moves.items():
            table.add_row(col, "full" if s is None else str(s), "" if s is None else _describe(s, pos.moves + 1).replace("the player to move", "mover"))
        console.print(table)
        console.print(f"{solver.nodes} nodes, {seconds:.3f} s")
        return

    if not positions.exists():
        from boardlab.games.connect4.grading import missing_positions_file

        raise missing_positions_file(positions, "positions file")
    lines = read_positions(read_text(positions, "positions file").splitlines(), str(positions))
    total_seconds = total_nodes = mismatches = checked = 0
    with _progress("solve", len(lines)) as progress:
        task = progress.add_task("solve", total=len(lines))
        for number, (moves, expected) in enumerate(lines, 1):
            try:
                pos = Position.from_moves(moves)
            except BoardlabError as exc:
                raise BoardlabError(f"{positions}, position {number}: {exc}") from None
            solver.reset_nodes()
            start = time.perf_counter()
            score = solver.solve(pos)
            seconds = time.perf_counter() - start
            total_seconds += seconds
            total_nodes += solver.nodes
            match = None if expected is None else score == expected
            if match is not None:
                checked += 1
                mismatches += not match
            if json_out:
                print_json({"line": number, "moves": moves, "score": score, "expected": expected, "match": match,
                            "nodes": solver.nodes, "seconds": seconds})
            progress.advance(task)
    if json_out:
        return
    n = len(lines)
    console.print(f"{positions}: {n} positions solved, {checked} with an expected score, {mismatches} mismatches")
    if n:
        console.print(
            f"mean {1e6 * total_seconds / n:.1f} µs and {total_nodes / n:.1f} nodes per position, "
            f"{n / total_seconds if total_seconds else float('inf'):.0f} positions/s"
        )
    if mismatches:
        raise typer.Exit(1)


def grade(
    agent: str = typer.Argument(..., help="Agent spec, e.g. mcts:iterations=2000 or perfect:depth=4."),
    positions: Path = typer.Option(
        None, "--positions",
        help="Grading set file (MOVES BEST S1..S7 per line) or one of Pascal Pons' benchmark files (MOVES SCORE per line: "
             "the chosen move is then solved, seconds per position in the hardest sets; not shipped: Test_L3_R1 ... Test_L1_R3 "
             "from http://blog.gamesolver.org/solving-connect-four/02-test-protocol/); default: the set shipped with boardlab."),
    limit: int = typer.Option(None, "--limit", min=1, help="Grade only the first N positions of the file.", show_default=False),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="Seed of the agent's choices."),
    kept_only: bool = typer.Option(
        False, "--kept-only",
        help="With one of Pons' files: solve each chosen move only as far as its result (won, drawn, lost), not its exact score: "
             "only the share of moves that keep the result (AlphaZero.jl's measure), many times faster in the opening; optimal is then null."),
    json_out: bool = typer.Option(
        False, "--json",
        help="Print one JSON object: agent, positions, optimal, share (null with --kept-only), kept, "
        "kept_share (moves that keep the position's result: won, drawn or lost), "
        "phases {opening, middle, end: {positions, optimal, share, kept, kept_share}}, mean_seconds_per_move.",
    ),
) -> None:
    """Share of positions where AGENT plays an optimal move (standard 7x6 Connect Four).

    Optimal: the move's solved score is the best (the quickest win, else a draw, else the slowest
    loss). Beside it, the share of moves that keep the result (won stays won, drawn not lost):
    what AlphaZero.jl counts as optimal on Pons' benchmark sets.
    Phases: opening up to 14 stones on the board, middle 15-28, end more than 28.
    """
    from boardlab.agents.registry import make_agent
    from boardlab.core.registry import make
    from boardlab.games.connect4.grading import grade as run_grade
    from boardlab.games.connect4.grading import load_grading_set

    graded = load_grading_set(positions)[:limit]
    game = make("connect4")
    the_agent = make_agent(agent, game)
    with _progress("grade", len(graded)) as progress:
        task = progress.add_task("grade", total=len(graded))
        result = run_grade(the_agent, game, graded, seed, on_position=lambda *_: progress.advance(task), kept_only=kept_only)
    if json_out:
        print_json(result.to_dict())
        return
    if result.share is None:
        console.print(f"{result.agent}: {result.kept} of {result.positions} moves keep the result ({100 * result.kept_share:.1f} %); "
                      f"optimal moves not counted (--kept-only)")
    else:
        console.print(f"{result.agent}: {result.optimal} optimal moves in {result.positions} positions ({100 * result.share:.1f} %); "
                      f"{result.kept} keep the result ({100 * result.kept_share:.1f} %)")
    table = Table("phase", "stones", "positions", "optimal", "share %", "result kept %")
    for name, stones in (("opening", "<= 14"), ("middle", "15-28"), ("end", "> 28")):
        phase = result.phases[name]
        table.add_row(name, stones, str(phase.positions), "-" if phase.share is None else str(phase.optimal),
                      "-" if phase.share is None else f"{100 * phase.share:.1f}",
                      "-" if phase.kept_share is None else f"{100 * phase.kept_share:.1f}")
    console.print(table)
    console.print(f"mean time per move: {1000 * result.mean_seconds:.1f} ms")
