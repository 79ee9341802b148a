"""The monitor's web application (Starlette, served by uvicorn).

Pages are static HTML and scripts (`static/`): they fetch the JSON API and build the page
with DOM calls (`textContent`, never markup from data), and a Content-Security-Policy allows
scripts from the monitor only, so nothing a message carries can run in the page. Live
updates come as server-sent events on `/api/stream`: the name of the table that changed.

    GET /                                   the room: every table
    GET /tables/<id>                        one table: hands, roads, statistics, history
    GET /api/tables                         the room page's data
    GET /api/tables/<id>                    the table page's data
    GET /api/tables/<id>/shoes/<n>[.csv]    one shoe (JSON, or its rounds as CSV); of an
                                            earlier journal with ?journal=<its id>
    GET /api/tables/<id>/anchor             the newest signed head that passed (?journal=)
    GET /api/monitor                        the monitor itself: its broker connection
    GET /api/stream                         server-sent events: {"table", "received", "ts"},
                                            or {"broker"} when the connection changes
"""

from __future__ import annotations

import asyncio
import json
from importlib import resources

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.monitor.room import shoe_csv
from controller.monitor.service import MonitorService
from controller.surveillance.messages import JOURNAL_ID, TABLE_ID

STATIC = {"monitor.css": "text/css", "monitor.js": "text/javascript",
          "room.html": "text/html", "table.html": "text/html"}
SECURITY = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "connect-src 'self'; img-src 'self'; base-uri 'none'; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _static(name: str) -> bytes:
    return resources.files("controller.monitor").joinpath("static", name).read_bytes()


def create_app(service: MonitorService, *, clock=None) -> Starlette:
    clock = clock or service.clock
    files = {name: _static(name) for name in STATIC}

    def page(name: str) -> Response:
        return Response(files[name], media_type=STATIC[name], headers=SECURITY)

    async def ask(function):
        return await asyncio.to_thread(service.query, function)

    async def room_page(request: Request) -> Response:
        return page("room.html")

    async def table_page(request: Request) -> Response:
        if not TABLE_ID.match(request.path_params["table"]):
            return PlainTextResponse("no such table", 404, headers=SECURITY)
        return page("table.html")

    async def static_file(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC or name.endswith(".html"):
            return PlainTextResponse("not found", 404, headers=SECURITY)
        return page(name)

    async def api_tables(request: Request) -> Response:
        now = clock()
        return _json(await ask(lambda room: room.summary(now)))

    async def api_table(request: Request) -> Response:
        table = request.path_params["table"]
        now = clock()
        detail = await ask(lambda room: room.tables[table].detail(now)
                           if table in room.tables else None)
        return _json(detail) if detail is not None else _missing(f"no table {table!r}")

    async def api_monitor(request: Request) -> Response:
        return _json({"broker": await ask(lambda room: dict(service.broker))})

    async def api_anchor(request: Request) -> Response:
        """The table's newest signed head that passed, one JSON line: what `sabot verify
        JOURNAL --anchor FILE` checks a journal against."""
        table = request.path_params["table"]
        journal = _journal_asked(request)
        if journal is False:
            return _bad_journal()
        anchor = await ask(lambda room: room.tables[table].anchor(journal)
                           if table in room.tables else None)
        if anchor is None:
            of = f" of journal {journal}" if journal else ""
            return _missing(f"no signed head of table {table!r}{of}")
        line = json.dumps(anchor, sort_keys=True, separators=(",", ":")) + "\n"
        return Response(line, media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="{table}.anchor"'})

    async def api_shoe(request: Request) -> Response:
        table, name = request.path_params["table"], request.path_params["shoe"]
        as_csv = name.endswith(".csv")
        number_text = name.removesuffix(".csv").removesuffix(".json")
        if not number_text.isdigit():
            return _missing(f"{name!r} is not a shoe number")
        number = int(number_text)
        journal = _journal_asked(request)
        if journal is False:
            return _bad_journal()
        detail = await ask(lambda room: room.tables[table].shoe_detail(number, journal)
                           if table in room.tables else None)
        if detail is None:
            of = f" in journal {journal}" if journal else ""
            return _missing(f"table {table!r} has no shoe {number}{of}")
        file = f"{table}-{journal}-shoe-{number}" if journal else f"{table}-shoe-{number}"
        if as_csv:
            return Response(shoe_csv(detail), media_type="text/csv", headers={
                **SECURITY, "Content-Disposition": f'attachment; filename="{file}.csv"'})
        if name.endswith(".json"):
            return _json(detail, download=f"{file}.json")
        return _json(detail)

    async def stream(request: Request) -> Response:
        inbox: asyncio.Queue = asyncio.Queue(maxsize=1000)
        loop = asyncio.get_running_loop()
        service.updates.listen(loop, inbox)

        async def events():
            try:
                yield "retry: 2000\n\n"
                while True:
                    try:
                        item = await asyncio.wait_for(inbox.get(), 15)
                    except TimeoutError:
                        yield ": still here\n\n"  # keeps proxies from closing the stream
                        continue
                    yield f"data: {json.dumps(item)}\n\n"
            finally:
                service.updates.forget(inbox)

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={**SECURITY, "Cache-Control": "no-store"})

    routes = [
        Route("/", room_page),
        Route("/tables/{table}", table_page),
        Route("/static/{name}", static_file),
        Route("/api/tables", api_tables),
        Route("/api/monitor", api_monitor),
        Route("/api/tables/{table}", api_table),
        Route("/api/tables/{table}/anchor", api_anchor),
        Route("/api/tables/{table}/shoes/{shoe}", api_shoe),
        Route("/api/stream", stream),
    ]
    return Starlette(routes=routes, middleware=[Middleware(QueryMustBeText)])


class QueryMustBeText:
    """Refuses (400) a request whose query string is not UTF-8. Starlette decodes it to
    redirect a path with a trailing slash (`/api/tables/`), and such a request ended in a
    500 there (found by the fault campaign's fuzzer, `bench.faults`)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            try:
                scope.get("query_string", b"").decode("utf-8")
            except UnicodeDecodeError:
                refusal = PlainTextResponse("the query is not UTF-8", 400, headers=SECURITY)
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _json(body, download: str | None = None) -> Response:
    headers = dict(SECURITY)
    if download:
        headers["Content-Disposition"] = f'attachment; filename="{download}"'
    return JSONResponse(body, headers=headers)


def _journal_asked(request: Request) -> str | None | bool:
    """The `journal` the query names (None: none; False: not a journal's id)."""
    journal = request.query_params.get("journal")
    if journal is None:
        return None
    return journal if JOURNAL_ID.match(journal) else False


def _bad_journal() -> Response:
    return JSONResponse({"error": "journal: give the 16 hex digits of a journal's id"},
                        status_code=400, headers=SECURITY)


def _missing(what: str) -> Response:
    return JSONResponse({"error": what}, status_code=404, headers=SECURITY)
