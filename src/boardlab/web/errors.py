"""How the web app answers a mistake: every user error is a 4xx whose ``detail`` is one line.

:func:`add_error_handlers` turns boardlab's errors, request bodies that do not fit their
models and Starlette's own HTTP errors into ``{"detail": "..."}``; anything else is a 500 that
names the exception's type and leaves the traceback to the server's log.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from boardlab.core.errors import BoardlabError
from boardlab.web.aipool import Busy, Cancelled, WorkerFailed
from boardlab.web.gamestore import GameNotFound
from boardlab.web.sessions import ConflictError
from boardlab.web.uploads import QuotaFull, TooLarge, UploadNotFound

log = logging.getLogger("boardlab.web")


class NotFound(BoardlabError):
    pass


class ErrorDetail(BaseModel):
    detail: str = Field(..., description="what went wrong, in one line")


#: the error answers every operation may give, for the OpenAPI description
ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorDetail, "description": text} for code, text in (
    (400, "a request the server cannot do (the detail says why)"), (404, "no such game, tree or upload"),
    (409, "not now: the game is over, another player's turn, or the AI move was cancelled"),
    (413, "a file over the upload limit"), (503, "every AI worker is busy, or the search was ended"),
    (507, "the upload quota is full"))}


#: pydantic's names of the branches of a union, as people say them
_BRANCHES = {"bool": "true or false", "int": "an integer", "float": "a number", "str": "a string",
             "constrained-str": "a string", "none": "null"}


def _is_branch(part: Any) -> bool:
    return isinstance(part, str) and ("[" in part or part in _BRANCHES)


def validation_message(exc: RequestValidationError) -> str:
    """The first problem of a request that does not fit its model, in one line.

    Where a field may take several shapes (``ai``: an object or a list; an option value:
    a number, true/false, a word), pydantic reports each shape's complaint: the one for the
    shape that was sent is kept, or the shapes are named."""
    errors = exc.errors()
    if not errors:
        return "malformed request"
    if errors[0].get("type") == "json_invalid":
        return "the body is not valid JSON"

    def place(error: Any) -> str:
        parts = [str(p) for p in error.get("loc", ()) if p != "body" and not _is_branch(p)]
        return ".".join(parts) or "body"

    def fits(error: Any) -> int:
        loc = list(error.get("loc", ()))
        branches = [i for i, p in enumerate(loc) if _is_branch(p)]
        if not branches:
            return 2
        tag, deeper = str(loc[branches[0]]), len(loc) > branches[0] + 1
        if tag.startswith("list["):
            return 2 if deeper or isinstance(error.get("input"), list) else 0
        return 1 if deeper or not isinstance(error.get("input"), list) else 0

    first = max(errors, key=fits)
    where = place(first)
    same = [e for e in errors if place(e) == where]
    kinds = [_BRANCHES[str(e["loc"][-1])] for e in same if e.get("loc") and str(e["loc"][-1]) in _BRANCHES]
    if len(kinds) > 1 and len(kinds) == len(same):
        kinds = list(dict.fromkeys(kinds))
        message = "must be " + ", ".join(kinds[:-1]) + " or " + kinds[-1]
    else:
        message = str(first.get("msg", "invalid")).replace("Value error, ", "")
    # problems elsewhere in the request (other shapes of the same field are no problem of it)
    others = len({place(e) for e in errors if fits(e) == fits(first)} - {where})
    more = f" (and {others} more problem{'s' if others > 1 else ''})" if others else ""
    return " ".join(f"{where}: {message}{more}".split())[:500]


def one_line(text: str) -> str:
    return " ".join(str(text).split())[:2000]


def status_of(exc: BoardlabError) -> int:
    for kind, status in ((NotFound, 404), (GameNotFound, 404), (UploadNotFound, 404), (ConflictError, 409),
                         (Cancelled, 409), (TooLarge, 413), (QuotaFull, 507), (Busy, 503), (WorkerFailed, 503)):
        if isinstance(exc, kind):
            return status
    return 400


def add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(BoardlabError)
    async def _user_error(request: Request, exc: BoardlabError) -> JSONResponse:
        status = status_of(exc)
        headers = {"Retry-After": "2"} if isinstance(exc, Busy) else None
        return JSONResponse({"detail": one_line(str(exc))}, status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_message(exc)}, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"detail": one_line(exc.detail)}, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected error in %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"detail": f"internal error ({type(exc).__name__}); the server's log has the details"}, status_code=500)
