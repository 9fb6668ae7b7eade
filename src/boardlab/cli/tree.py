"""``boardlab tree ...``: inspect, convert, lay out, diff and draw search-tree files (.tree / .csv)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import typer
from rich.table import Table

from boardlab.cli.app import command, command_group
from boardlab.commands.console import JSON_HELP, at_least, console, positive_number, print_json
from boardlab.core.files import check_output_file

tree_app = command_group("tree", "Search-tree files (.tree binary, .csv): info, convert, layout, diff, render.")


def _root_children(tree) -> list[dict]:
    children = np.flatnonzero(np.asarray(tree.parent) == 0)
    return [
        {
            "move": tree.move[int(c)],
            "visits": int(tree.visits[c]),
            "wins": int(tree.visits2[c]),
            "mean_payout": float(tree.mean_payout[c]),
            "subtree_nodes": int(_subtree_size(tree, int(c))),
        }
        for c in children
    ]


def _subtree_size(tree, index: int) -> int:
    from boardlab.trees.model import _subtree_end

    return _subtree_end(np.asarray(tree.child_count, dtype=np.int64), index) - index


@command("info", group=tree_app, help="Node count, depth, the game the tree was searched in, nodes by player to move and the root's children. "
         "JSON keys: file, format, game (spec or null), nodes, depth, leaves, root_state (the root's position in the game's notation), root_visits, "
         "players ({label: nodes}), children (move, visits, wins, mean_payout, subtree_nodes).")
def info(file: Path = typer.Argument(..., help="A .tree or .csv file."), json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    from boardlab.trees.colors import Palette
    from boardlab.trees.gamelabels import identify, node_notation
    from boardlab.trees.io import load_tree, tree_format

    tree = load_tree(file)
    depth = tree.depth()
    game, why = identify(tree)
    palette = Palette.for_game(game)
    codes, counts = np.unique(tree.player, return_counts=True)
    order = sorted(range(len(codes)), key=lambda k: (codes[k] < 0, abs(int(codes[k]))))  # seats, then the rest
    codes, counts = codes[order], counts[order]
    result = {
        "file": str(file),
        "format": tree_format(file),
        "game": game.spec() if game is not None else None,
        "nodes": len(tree),
        "depth": int(depth.max()),
        "leaves": int(np.count_nonzero(tree.child_count == 0)),
        "root_state": node_notation(tree, 0),
        "root_visits": int(tree.visits[0]),
        "players": {palette.label(int(c)): int(n) for c, n in zip(codes, counts)},
        "children": _root_children(tree),
    }
    if json:
        print_json(result)
        return
    console.print(f"{file} ({result['format']}): {result['nodes']:,} nodes, depth {result['depth']}, {result['leaves']:,} leaves")
    console.print(f"game: {result['game']}" if game is not None else f"game: unknown ({why})")
    console.print("nodes by player to move: " + ", ".join(f"{label} {n:,}" for label, n in result["players"].items()))
    console.print(f"root state: {result['root_state']!r}, visits {result['root_visits']:,}")
    table = Table("move", "visits", "wins", "mean payout", "subtree nodes")
    for child in sorted(result["children"], key=lambda c: -c["visits"]):
        table.add_row(child["move"], f"{child['visits']:,}", f"{child['wins']:,}", f"{child['mean_payout']:.4f}", f"{child['subtree_nodes']:,}")
    console.print(table)


@command("convert", group=tree_app, help="Convert between formats, chosen by extension (.tree, .csv). JSON keys: input, output, nodes.")
def convert(
    source: Path = typer.Argument(..., help="Input .tree or .csv file."),
    target: Path = typer.Argument(..., help="Output .tree or .csv file (written atomically)."),
    json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    from boardlab.trees.io import load_tree, save_tree, tree_format

    tree_format(target)  # refuse a bad extension or a missing folder before reading a large file
    check_output_file(target)
    tree = load_tree(source)
    save_tree(tree, target)
    if json:
        print_json({"input": str(source), "output": str(target), "nodes": len(tree)})
    else:
        console.print(f"wrote {target} ({len(tree):,} nodes)")


@command("layout", group=tree_app, help="Tidy layout as CSV rows index,parent,depth,x,y (preorder, with that header). "
         "JSON keys: input, output, nodes, width, depth.")
def layout(
    file: Path = typer.Argument(..., help="A .tree or .csv file."),
    output: Path = typer.Option(..., "-o", "--output", help="CSV file to write."),
    separation: float = typer.Option(1.0, help="Least horizontal distance between nodes of a row."),
    level_height: float = typer.Option(1.0, help="Vertical distance between rows."),
    max_depth: Optional[int] = typer.Option(None, help="Drop nodes deeper than this first."),
    min_visits: Optional[int] = typer.Option(None, help="Drop nodes with fewer visits first (with their subtrees)."),
    json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    from boardlab.core.records import write_atomic
    from boardlab.trees.io import load_tree
    from boardlab.trees.layout import cut, tidy_layout

    positive_number(separation, "--separation")
    positive_number(level_height, "--level-height")
    at_least(max_depth, 0, "--max-depth")
    at_least(min_visits, 0, "--min-visits")
    check_output_file(output, "-o")
    tree, kept = cut(load_tree(file), max_depth=max_depth, min_visits=min_visits)
    x, y = tidy_layout(tree, separation=separation, level_height=level_height)
    depth = tree.depth()
    rows = map(",".join, zip(map(str, range(len(tree))), map(str, tree.parent.tolist()), map(str, depth.tolist()),
                             map(repr, x.tolist()), map(repr, y.tolist())))
    write_atomic(output, "index,parent,depth,x,y\n" + "\n".join(rows) + "\n")
    result = {"input": str(file), "output": str(output), "nodes": len(tree), "width": float(x.max()), "depth": int(depth.max())}
    if json:
        print_json(result)
    else:
        console.print(f"wrote {output}: {len(tree):,} nodes, width {result['width']:g}, depth {result['depth']}")


@command("diff", group=tree_app, help="Compare a later tree B with an earlier tree A (nodes matched by move paths). "
         "JSON keys: nodes_before, nodes_after, matched, added, gone, changed, root_visits_delta, old_root, notes.")
def diff_command(
    before: Path = typer.Argument(..., help="The earlier tree."),
    after: Path = typer.Argument(..., help="The later tree."),
    via: Optional[str] = typer.Option(None, help="Comma-separated moves from A's root to the node B's root continues (subtree reuse)."),
    json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    from boardlab.trees.diff import diff
    from boardlab.trees.io import load_tree

    result = diff(load_tree(before), load_tree(after), via=via.split(",") if via else None).summary()
    if json:
        print_json(result)
        return
    console.print(
        f"{before} -> {after}: {result['matched']:,} matched, {result['added']:,} added, {result['gone']:,} gone, "
        f"{result['changed']:,} with changed visits; root visits +{result['root_visits_delta']:,}"
    )
    for note in result["notes"]:
        console.print(f"note: {note}")


@command("render", group=tree_app, help="Draw the tree as a PNG (nodes by player, edges by visits, legend). "
         "JSON keys: input, output, nodes, nodes_drawn, width, height, by_depth_parity.")
def render(
    file: Path = typer.Argument(..., help="A .tree or .csv file."),
    output: Path = typer.Option(..., "-o", "--output", help="PNG file to write."),
    width: int = typer.Option(4000, help="Image width in pixels (200 to 20,000)."),
    height: Optional[int] = typer.Option(None, help="Image height in pixels (100 to 20,000; default 0.6 x width); at most 100 million pixels in all."),
    max_depth: Optional[int] = typer.Option(None, help="Draw only nodes up to this depth."),
    min_visits: Optional[int] = typer.Option(None, help="Draw only nodes with at least this many visits."),
    diff_with: Optional[Path] = typer.Option(None, "--diff", help="An earlier tree: ring nodes added (green) and changed (gold) since."),
    title: Optional[str] = typer.Option(None, help="Title (default: game, root state, nodes drawn)."),
    json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    from boardlab.core.errors import BoardlabError
    from boardlab.trees.diff import diff
    from boardlab.trees.io import load_tree
    from boardlab.trees.render import picture_size, render_png

    if output.suffix.lower() != ".png":
        raise BoardlabError(f"{output}: the output of tree render is a .png file")
    width, height = picture_size(width, height, ("--width", "--height"))
    at_least(max_depth, 0, "--max-depth")
    at_least(min_visits, 0, "--min-visits")
    check_output_file(output, "-o")
    tree = load_tree(file)
    changes = diff(load_tree(diff_with), tree) if diff_with else None
    info = render_png(tree, output, width=width, height=height, max_depth=max_depth, min_visits=min_visits, diff=changes, title=title)
    result = {
        "input": str(file),
        "output": str(output),
        "nodes": len(tree),
        "nodes_drawn": int(len(info.kept)),
        "width": info.width,
        "height": info.height,
        "by_depth_parity": info.by_depth_parity,
    }
    if json:
        print_json(result)
    else:
        console.print(f"wrote {output} ({info.width}x{info.height}): {result['nodes_drawn']:,} of {len(tree):,} nodes drawn")
