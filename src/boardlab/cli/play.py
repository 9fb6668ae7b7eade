"""``boardlab play`` (a person against an agent in the terminal) and ``boardlab replay``."""

from __future__ import annotations

from pathlib import Path

import typer

from boardlab.agents.human import HumanAgent
from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.cli.app import command
from boardlab.commands.console import console, print_json
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_file
from boardlab.core.records import GameRecord
from boardlab.core.registry import make


@command("play")
def play(
    game: str = typer.Argument("connect4", help="Game spec, e.g. connect4, mancala, chess, connect4:rows=5."),
    agent: str = typer.Option("random", "--agent", "-a", help="The opponent's spec, e.g. mcts:time=2."),
    seat: int = typer.Option(1, "--seat", help="Your seat: 1 moves first, 2 second."),
    seed: int = typer.Option(None, "--seed", min=0, help="Seed for the opponent and for chance."),
    record: Path = typer.Option(None, "--record", help="Save the finished game's record to this JSON file."),
) -> None:
    """Play GAME against an agent in the terminal; type moves as the board labels them."""
    if record is not None:
        check_output_file(record, "--record")  # before the game, not after it
    the_game = make(game)
    players = the_game.num_players()
    if not 1 <= seat <= players:
        raise BoardlabError(f"--seat must be between 1 and {players}")
    opponent_spec = agent
    seats = []
    for index in range(players):
        seats.append(HumanAgent() if index == seat - 1 else make_agent(opponent_spec, the_game))

    def show(state, player, action) -> None:
        # the person sees the board when asked; report the other seats' moves
        if player != seat - 1:
            who = "chance" if player < 0 else seats[player].spec
            if state.game.has_hidden_information:  # a card dealt or a hidden move: the person's view shows what is theirs
                console.print(f"{who} moved\n")
            else:
                console.print(f"{who} plays {state.action_to_string(action)}\n")

    try:
        result = play_game(the_game, seats, seed, on_move=show)
    except KeyboardInterrupt:
        console.print("game abandoned")
        raise typer.Exit(1) from None
    final = result.replay()
    console.print(str(final), highlight=False)
    mine = result.returns[seat - 1]
    best = max(result.returns)
    verdict = "you win" if mine == best and result.returns.count(best) == 1 else ("draw" if mine == best else "you lose")
    console.print(f"result: {verdict} (returns {result.returns})")
    if record is not None:
        result.save(record)
        console.print(f"record saved to {record}")


@command("replay")
def replay(
    record: Path = typer.Argument(..., help="A game record (JSON) written by play, duel --records or the web app."),
    rerun: bool = typer.Option(False, "--rerun", help="Also replay the agents from the seed and check they choose the same moves."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object: game, params, seed, agents, moves, returns, "
                                  "final (the final position: notation and its public observation, to_move, text, board...), agents_agree (with --rerun)."),
) -> None:
    """Replay a game record move by move and check it ends with the recorded returns."""
    rec = GameRecord.load(record)
    final = rec.replay()
    agree = None
    if rerun:
        game = make(rec.game, **rec.params)
        agents = [make_agent(spec, game) for spec in rec.agents]
        people = [agent.spec for agent in agents if agent.interactive]
        if people:
            raise BoardlabError("this game had a person playing; only agents' moves can be re-run from the seed")
        again = play_game(game, agents, rec.seed)
        agree = again.actions == rec.actions
        if not agree:
            raise BoardlabError(f"re-running the agents from seed {rec.seed} gave different moves: {again.moves}")
    if json_out:
        print_json({
            "game": rec.game, "params": rec.params, "seed": rec.seed, "agents": rec.agents,
            "moves": rec.moves, "returns": rec.returns, "final": {"notation": final.notation(), **final.observation(None)},
            "agents_agree": agree,
        })
        return
    for number, (mover, text) in enumerate(final.history_moves(), start=1):
        who = "chance" if mover < 0 else rec.agents[mover]
        console.print(f"{number:3d}. {who}: {text}")
    console.print(str(final), highlight=False)
    console.print(f"returns {rec.returns} (checked)" + (" ; agents re-run from the seed chose the same moves" if agree else ""))
