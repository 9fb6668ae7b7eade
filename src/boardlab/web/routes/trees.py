"""The search trees of a game's AI moves, for the viewer: the list, one tree packed, one
node's details, and a tree as a file."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from boardlab.web.context import Context, ServerContext
from boardlab.web.errors import NotFound
from boardlab.web.treeviews import FORMAT, TreeSource, details, export, packed_body, tree_source

router = APIRouter()


@router.get("/api/games/{game_id}/trees")
def list_trees(game_id: str, ctx: Context) -> list[dict[str, Any]]:
    found = ctx.session(game_id)
    found.open_trees()
    ctx.kept.note(found)
    with found.lock:
        return [
            {"index": k, "ply": t.ply, "player": t.player, "player_name": found.game.player_name(t.player),
             "agent": t.agent, "move": t.move, "nodes": t.nodes}
            for k, t in enumerate(found.trees)
        ]


def game_tree(ctx: ServerContext, game_id: str, index: int) -> tuple[TreeSource, TreeSource | None]:
    """Tree ``index`` of a game's AI moves, with the one before it (for the diff)."""
    found = ctx.session(game_id)
    found.open_trees()
    ctx.kept.note(found)
    with found.lock:
        if not 0 <= index < len(found.trees):
            why = f" ({found.trees_note})" if found.trees_note else ""
            raise NotFound(f"game {game_id[:40]} has {len(found.trees)} search trees; no tree {index}{why}")
        entries = [found.trees[index]] + ([found.trees[index - 1]] if index > 0 else [])
        # the moves between the previous search's root and this one's, as labels
        prefix = found.tree_prefix(entries[1], entries[0]) if len(entries) > 1 else []
    sources = []
    for entry in entries:
        source = tree_source(
            entry.tree, f"move {entry.ply + 1}: {entry.agent} plays {entry.move}",
            {"ply": entry.ply, "player": entry.player, "agent": entry.agent, "move": entry.move},
        )
        if entry is entries[0]:
            source.prefix = tuple(prefix)
        sources.append(source)
    return sources[0], (sources[1] if len(sources) > 1 else None)


@router.get("/api/games/{game_id}/trees/{index}/data")
async def game_tree_data(game_id: str, index: int, ctx: Context) -> Response:
    source, previous = await ctx.in_pool(game_tree, ctx, game_id, index)
    body = await packed_body(ctx, source, previous)
    return Response(body, media_type="application/octet-stream")


@router.get("/api/games/{game_id}/trees/{index}/nodes/{node}")
async def game_tree_node(game_id: str, index: int, node: int, ctx: Context) -> dict[str, Any]:
    source = (await ctx.in_pool(game_tree, ctx, game_id, index))[0]
    return await ctx.in_pool(details, source, node)


@router.get("/api/games/{game_id}/trees/{index}/export")
async def game_tree_export(game_id: str, index: int, ctx: Context, format: FORMAT = "csv") -> Response:
    source = (await ctx.in_pool(game_tree, ctx, game_id, index))[0]
    # the page's names: <game>-move<N> (the move the search chose)
    return await export(ctx, source, format, f"{(source.game.name if source.game else 'tree')}-move{source.meta['ply'] + 1}")
