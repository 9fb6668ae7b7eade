"""``boardlab search``: run a search agent on one position and show what it found."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from boardlab.agents.registry import make_agent
from boardlab.cli.app import command
from boardlab.commands.console import console, print_json
from boardlab.core.errors import BoardlabError
from boardlab.core.files import check_output_file
from boardlab.core.registry import make


def _proven(proof: list[int] | None) -> str:
    """A proof ``[result, plies]`` (for the player to move, plies to the end after the move) in words."""
    if not proof:
        return ""
    result, plies = proof
    if result == 0:
        return "draw"
    return f"{'win' if result > 0 else 'loss'}, game over {plies + 1} plies from here" if plies else "wins at once"


@command("search")
def search(
    game: str = typer.Option("connect4", "--game", "-g", help="Game spec, e.g. connect4 or connect4:rows=5."),
    position: str = typer.Option("", "--position", "-p", help="Moves from the start, as the game writes them, separated by commas or spaces (e.g. \"4,4,5\")."),
    agent: str = typer.Option("mcts", "--agent", "-a", help="Search agent spec, e.g. mcts:iterations=20000 or mcts:time=1."),
    seed: int = typer.Option(0, "--seed", "-s", min=0, help="Seed of the search (an explicit seed= in the agent spec is mixed in)."),
    save: Path = typer.Option(None, "--save", help="Write the search tree to this file (.tree binary or .csv)."),
    json_out: bool = typer.Option(
        False, "--json",
        help="Print one JSON object: game, position, agent, player, best_move, best_action, engine, simulations, "
        "seconds, simulations_per_second, tree_nodes, saved (path or null), children [{move, action, visits, wins, mean}] "
        "(most visited first; wins: playouts won by the player to move, mean: its mean payout; az adds prior and proof: "
        "[result, plies] with result 1, 0 or -1 for the player to move and the plies to the end after the move, or null).",
    ),
) -> None:
    """Search one position of GAME with a search agent; print the chosen move and the root's children."""
    if save is not None:
        from boardlab.trees.io import tree_format

        tree_format(save)  # a bad extension or a missing folder is refused before the search
        check_output_file(save, "--save")
    the_game = make(game)
    state = the_game.state_from_moves(position)
    if state.is_terminal():
        raise BoardlabError(f"position {position!r} is already over: there is nothing to search")
    if state.is_chance_node():
        raise BoardlabError(f"position {position!r} waits for a chance outcome, not for a player's move")
    the_agent = make_agent(agent, the_game)
    if not the_agent.searches:
        raise BoardlabError(f"agent {the_agent.spec!r} is not a search agent (try mcts)")
    player = state.current_player()
    the_agent.reset(the_game, player, seed)
    action = the_agent.step(state)
    info = the_agent.last_search
    handle = the_agent.last_tree()
    tree = handle.tree() if handle is not None else None
    if save is not None:
        if tree is None:
            raise BoardlabError("the agent kept no tree to save (keep_trees=0?)")
        from boardlab.trees.io import save_tree

        save_tree(tree, save)
    if json_out:
        print_json({
            "game": the_game.spec(),
            "position": position,
            "agent": the_agent.spec,
            "player": player,
            "best_move": state.action_to_string(action),
            "best_action": action,
            "engine": info["engine"],
            "simulations": info["simulations"],
            "seconds": info["seconds"],
            "simulations_per_second": info["simulations_per_second"],
            "tree_nodes": len(tree) if tree is not None else None,
            "saved": str(save) if save is not None else None,
            "children": info["children"],
        })
        return
    console.print(str(state), highlight=False)
    console.print(f"best move: [bold]{state.action_to_string(action)}[/] ({the_game.player_name(player)} to move)")
    proofs = any(child.get("proof") for child in info["children"])  # az with its solver
    table = Table("move", "visits", "wins", "win %", "mean payout", *(["proven"] if proofs else []))
    for child in info["children"]:
        row = [child["move"], str(child["visits"]), str(child["wins"]),
               f"{100 * child['wins'] / child['visits']:.1f}" if child["visits"] else "-", f"{child['mean']:+.3f}"]
        if proofs:
            row.append(_proven(child.get("proof")))
        table.add_row(*row)
    console.print(table)
    rate = info["simulations_per_second"]
    console.print(
        f"{info['simulations']} simulations in {info['seconds']:.3f} s ({rate:,.0f}/s, {info['engine']} engine)"
        + (f"; tree of {len(tree)} nodes" if tree is not None else "")
    )
    if save is not None:
        console.print(f"tree saved to {save}")
