"""Trees the viewer can show, whether a game's AI searched them or a person uploaded them:
their packed form (:mod:`boardlab.web.treepack`, made in the tree worker and kept a while),
one node's details with its board, and their export as a file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Query
from fastapi.responses import Response

from boardlab.core.errors import BoardlabError
from boardlab.core.game import TERMINAL, Game
from boardlab.trees import gamelabels
from boardlab.trees.model import Tree
from boardlab.web import treepack
from boardlab.web.context import ServerContext
from boardlab.web.errors import NotFound

#: an export format in a query
FORMAT = Annotated[str, Query(max_length=8, description="csv, tree or png")]


@dataclass
class TreeSource:
    """One tree with what is needed to draw its nodes' states."""

    tree: Tree
    title: str
    meta: dict[str, Any]
    #: the game the tree was searched in (from its root label), for boards; None: labels only
    game: Game | None = None
    #: the moves from the previous tree's root to this one's (for the diff)
    prefix: tuple[str, ...] = ()


def tree_source(tree: Tree, title: str, meta: dict[str, Any]) -> TreeSource:
    """A tree for the viewer, with its game when its root label names one."""
    game, why = gamelabels.identify(tree)
    meta = dict(meta, game=game.spec() if game is not None else None)
    if game is None:
        meta["no_game"] = why
    return TreeSource(tree=tree, title=title, meta=meta, game=game)


async def packed_body(ctx: ServerContext, source: TreeSource, previous: TreeSource | None) -> bytes:
    """The tree packed for the viewer, with its differences from ``previous``."""
    key = (id(source.tree), id(previous.tree) if previous else None)
    kept = ctx.packed.get(key)
    if kept is not None:
        return kept
    tree = await ctx.in_pool(lambda: source.tree)  # a search's tree is exported on first use
    meta = dict(source.meta, title=source.title, has_previous=previous is not None)
    payload = {"tree": tree, "meta": meta, "game": source.game.spec() if source.game is not None else None,
               "previous": previous.tree if previous is not None else None, "prefix": list(source.prefix)}
    body = bytes(await ctx.tree_job("pack", payload))
    ctx.packed.put(key, body)
    return body


def details(source: TreeSource, node: int) -> dict[str, Any]:
    if not 0 <= node < len(source.tree):
        raise NotFound(f"the tree has {len(source.tree)} nodes; no node {node}")
    info = treepack.node_details(source.tree, node)
    info["player_name"] = source.game.player_name(info["player"]) if source.game and info["player"] >= 0 else None
    info["notation"] = gamelabels.node_notation(source.tree, node)
    info["board"] = None
    game = source.game
    if game is not None:
        # the spectator's view: a tree may be looked at by anyone its game is shown to, so its
        # boards show only what every seat sees (in games of hidden information, the notation's public view)
        try:
            observation = game.observation_from_notation(info["notation"], None)
        except (BoardlabError, ValueError):
            observation = None  # a label the game cannot read back (a foreign tree): no board
        if observation is not None:
            to_move = observation.get("to_move")
            info["board"] = {"game": game.name, "spec": game.spec(), "params": dict(game.params),
                             "board": observation.get("board"), "text": observation.get("text", ""),
                             "to_move": to_move,
                             # a new game can start only where the notation fixes the whole state
                             "playable": not game.has_hidden_information and to_move != TERMINAL}
    return info


async def export(ctx: ServerContext, source: TreeSource, fmt: str, stem: str) -> Response:
    treepack.check_format(fmt)
    done = await ctx.tree_job("export", {"tree": source.tree, "format": fmt})
    return Response(bytes(done["data"]), media_type=done["media"],
                    headers={"Content-Disposition": f'attachment; filename="{stem}.{done["suffix"]}"'})
