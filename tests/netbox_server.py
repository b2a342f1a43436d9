"""A NetBox REST API replaying a recording on 127.0.0.1, for tests of `netcfg inventory from-netbox`.

The recording holds, per path and query (without limit and offset), the full list of objects NetBox
served. The server pages through it as NetBox does (`?limit=&offset=`, `count`, `next`, `previous`,
PAGINATE_COUNT and MAX_PAGE_SIZE set small so every list takes several pages), answers `/api/` with
its API-Version header, and refuses a request without `Authorization: Token <token>` as NetBox does
(403 and its detail JSON)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

RECORDING = Path(__file__).parent / "fixtures" / "netbox" / "lab-multi.json"
PAGINATE_COUNT, MAX_PAGE_SIZE = 5, 10


@contextmanager
def netbox_server(recording: dict, token: str) -> Iterator[tuple[str, list[str]]]:
    """(base URL, the request lines it answered, with their Authorization headers)."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            auth = self.headers.get("Authorization", "")
            seen.append(f"{self.path} | {auth}")
            if auth not in (f"Token {token}", f"Bearer {token}"):
                self._json(403, {"detail": "Invalid token"})
                return
            parts = urlsplit(self.path)
            if parts.path == "/api/":
                self._json(200, {"dcim": f"{self._base()}/api/dcim/"})
                return
            query = parse_qs(parts.query)
            limit = min(int(query.pop("limit", [PAGINATE_COUNT])[0]) or MAX_PAGE_SIZE, MAX_PAGE_SIZE)
            offset = int(query.pop("offset", ["0"])[0])
            query.pop("brief", None)
            for response in recording["responses"]:
                if response["path"] == parts.path and _same(response["query"], query):
                    self._page(parts.path, query, response["results"], limit, offset)
                    return
            self._json(200, {"count": 0, "next": None, "previous": None, "results": []})

        def _page(self, path: str, query: dict, results: list, limit: int, offset: int) -> None:
            def link(at: int) -> str:
                params = [(k, v) for k, vs in query.items() for v in vs] + [("limit", limit), ("offset", at)]
                return f"{self._base()}{path}?{urlencode(params)}"

            page = results[offset : offset + limit]
            more = offset + limit < len(results)
            self._json(
                200,
                {
                    "count": len(results),
                    "next": link(offset + limit) if more else None,
                    "previous": link(max(0, offset - limit)) if offset else None,
                    "results": page,
                },
            )

        def _base(self) -> str:
            host, port = self.server.server_address[:2]
            return f"http://{host}:{port}"

        def _json(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("API-Version", recording["netbox_version"].rsplit(".", 1)[0])
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _same(recorded: dict[str, list[str]], asked: dict[str, list[str]]) -> bool:
    return {k: sorted(v) for k, v in recorded.items()} == {k: sorted(v) for k, v in asked.items()}


def load_recording() -> dict:
    return json.loads(RECORDING.read_text(encoding="utf-8"))
