"""The pages a browser opens: the app's own page, and the API's documentation (Swagger UI,
its files served by this server so the page works offline). None of them is in the API's schema."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

from boardlab.web.errors import NotFound

STATIC = Path(__file__).parent.parent / "static"

#: where the documentation page's Swagger UI files are served, and their types
DOCS_FILES = "/api/docs/files"
DOCS_MEDIA = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}

router = APIRouter()


def swagger_file(name: str) -> Path:
    """One of Swagger UI's files, as the fastapi-swagger package ships them (a current Swagger UI 5,
    which reads the OpenAPI 3.1 that FastAPI writes)."""
    if name not in ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"):
        raise NotFound(f"no documentation file {name[:40]!r}")
    try:
        path = Path(str(importlib.resources.files("fastapi_swagger.resources") / name))
    except ModuleNotFoundError:
        raise NotFound("the API's documentation page needs the fastapi-swagger package (pip install fastapi-swagger)") from None
    if not path.is_file():
        raise NotFound(f"fastapi-swagger lacks {name}")
    return path


@router.get("/api/docs", include_in_schema=False)
def api_docs(request: Request) -> Response:
    from fastapi.openapi.docs import get_swagger_ui_html

    return get_swagger_ui_html(
        openapi_url=request.app.openapi_url or "", title="boardlab API", swagger_js_url=f"{DOCS_FILES}/swagger-ui-bundle.js",
        swagger_css_url=f"{DOCS_FILES}/swagger-ui.css", swagger_favicon_url=f"{DOCS_FILES}/favicon-32x32.png",
        # no badge from the public validator: the page asks nothing of any other host
        swagger_ui_parameters={"validatorUrl": None})


@router.get(DOCS_FILES + "/{name}", include_in_schema=False)
def api_docs_file(name: str) -> FileResponse:
    return FileResponse(swagger_file(name), media_type=DOCS_MEDIA[Path(name).suffix])


@router.get("/")
def index() -> FileResponse:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})
