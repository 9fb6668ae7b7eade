"""``boardlab games`` and ``boardlab agents``: what there is and what it takes."""

from __future__ import annotations

import typer
from rich.table import Table

from boardlab.agents.registry import agent_class, agent_names
from boardlab.cli.app import command
from boardlab.commands.console import JSON_HELP, console, print_json
from boardlab.core.registry import game_class, game_names


def _options(options) -> list[dict]:
    return [
        {"name": o.name, "type": o.type.__name__, "default": o.default, "help": o.help} for o in options.values()
    ]


@command("games")
def games(json_out: bool = typer.Option(False, "--json", help=JSON_HELP + " Keys: name, long_name, players [min, max], "
                                        "parameters [{name, type, default, help}].")) -> None:
    """List the games and their parameters (pass them as [b]connect4:rows=5,cols=6[/])."""
    rows = []
    for name in game_names():
        cls = game_class(name)
        rows.append(
            {
                "name": name,
                "long_name": cls.long_name,
                "players": [cls.min_players, cls.max_players],
                "parameters": _options(cls.parameters),
            }
        )
    if json_out:
        print_json(rows)
        return
    table = Table("game", "name", "players", "parameters (default)")
    for row in rows:
        players = "{}".format(row["players"][0]) if row["players"][0] == row["players"][1] else "{}-{}".format(*row["players"])
        params = "\n".join(f"{p['name']}={p['default']}  {p['help']}" for p in row["parameters"]) or "-"
        table.add_row(row["name"], row["long_name"], players, params)
    console.print(table)


@command("agents")
def agents(json_out: bool = typer.Option(False, "--json", help=JSON_HELP + " Keys: name, summary, games, options [{name, type, default, help}].")) -> None:
    """List the agents and their options (pass them as [b]mcts:iterations=2000,c=1.4[/])."""
    rows = []
    for name in agent_names():
        cls = agent_class(name)
        rows.append({"name": name, "summary": cls.summary, "games": list(cls.games) if cls.games else None, "options": _options(cls.options)})
    if json_out:
        print_json(rows)
        return
    table = Table("agent", "what it does", "games", "options (default)")
    for row in rows:
        options = "\n".join(f"{o['name']}={o['default']}  {o['help']}" for o in row["options"]) or "-"
        table.add_row(row["name"], row["summary"], ", ".join(row["games"]) if row["games"] else "all", options)
    console.print(table)
