"""Tree files a person uploads for the viewer: the upload (streamed, within the server's
limits and quota), then the same views as a game's trees."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from boardlab.web.context import Context, ServerContext
from boardlab.web.treeviews import FORMAT, TreeSource, details, export, packed_body, tree_source
from boardlab.web.uploads import Upload

router = APIRouter()


async def parse_upload(ctx: ServerContext, upload: Upload) -> TreeSource:
    """Parse a stored upload in the tree worker (so one at a time), from a mapping of the file."""
    tree = await ctx.tree_job("parse", {"path": str(upload.path), "name": upload.name})
    return tree_source(tree, upload.name, {"upload": upload.id, "name": upload.name})


async def upload_source(ctx: ServerContext, upload_id: str) -> TreeSource:
    upload = ctx.uploads.find(upload_id)
    found = ctx.uploads.cached(upload.id)
    if found is not None:
        return found[0]
    source = await parse_upload(ctx, upload)
    ctx.uploads.cache(upload.id, source, len(source.tree))
    return source


@router.post("/api/uploads")
async def upload(request: Request, ctx: Context, name: Annotated[str, Query(max_length=255)] = "tree.tree") -> dict[str, Any]:
    """Upload a ``.tree`` or ``.csv`` tree file (the request body is the file)."""
    declared = request.headers.get("content-length")
    size = int(declared) if declared is not None and declared.isdigit() and len(declared) < 19 else None
    incoming = ctx.uploads.begin(name, size)
    try:
        async for chunk in request.stream():
            if incoming.add(chunk):
                await ctx.in_pool(incoming.flush)
        stored = await ctx.in_pool(incoming.finish)
    except BaseException:
        incoming.abort()
        raise
    try:
        source = await parse_upload(ctx, stored)
    except BaseException:
        ctx.uploads.forget(stored.id)
        raise
    ctx.uploads.cache(stored.id, source, len(source.tree))
    return {"id": stored.id, "name": name, "nodes": len(source.tree), "bytes": stored.size, "game": source.meta["game"]}


@router.get("/api/uploads/{upload_id}/data")
async def upload_data(upload_id: str, ctx: Context, prev: Annotated[str | None, Query(max_length=64)] = None) -> Response:
    source = await upload_source(ctx, upload_id)
    previous = await upload_source(ctx, prev) if prev else None
    body = await packed_body(ctx, source, previous)
    return Response(body, media_type="application/octet-stream")


@router.get("/api/uploads/{upload_id}/nodes/{node}")
async def upload_node(upload_id: str, node: int, ctx: Context) -> dict[str, Any]:
    source = await upload_source(ctx, upload_id)
    return await ctx.in_pool(details, source, node)


@router.get("/api/uploads/{upload_id}/export")
async def upload_export(upload_id: str, ctx: Context, format: FORMAT = "csv") -> Response:
    source = await upload_source(ctx, upload_id)
    stem = "".join(c for c in Path(source.title).stem if c.isalnum() or c in "-_.")[:80] or "tree"
    return await export(ctx, source, format, stem)  # the uploaded file's own name, as the page names it
