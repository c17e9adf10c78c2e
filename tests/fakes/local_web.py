"""A local web on 127.0.0.1 for tests and benchmarks: a folder of pages and a SearXNG-format search over them.

`GET /<path>` serves a page of the folder (or one added in memory) with its content type;
`GET /search?q=...&format=json` answers like SearXNG's JSON API, ranking the HTML pages with
SQLite FTS5's bm25 and quoting the best-matching part of each as its `content` snippet. Routes
can be scripted (`LocalWeb.route`) to answer with an error, a delay, a redirect, a huge or binary
body, so every failure of page reading can be provoked for real, over HTTP. The server counts
requests per path, so a test can tell whether a page was fetched again.

Run standalone: `python -m tests.fakes.local_web [--root DIR] [--port N]` prints its base URL.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from research_core.documents.html_text import html_to_text
from research_core.text.fts_query import query_terms, word_match

FIXTURE_PAGES = Path(__file__).resolve().parent.parent / "fixtures" / "web"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".pdf": "application/pdf",
    ".txt": "text/plain; charset=utf-8",
    ".png": "image/png",
}
MAX_SEARCH_RESULTS = 10
SNIPPET_TOKENS = 24


@dataclass
class Route:
    """A scripted answer for one path.

    `size` streams that many filler bytes instead of `body` (an oversized page without holding it
    in memory); `delay_s` waits before answering (a slow server); `location` makes it a redirect.
    `drip_s` sends `body` one byte at a time, `drip_s` apart, for at most `drip_for_s` seconds (a
    server that keeps a connection alive with a trickle of bytes; bounded, so no test hangs).
    """

    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    size: int | None = None
    location: str | None = None
    drip_s: float = 0.0
    drip_for_s: float = 10.0


class _Index:
    """FTS5 over the HTML pages: (path, title, text), ranked with bm25."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.execute(
            "CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, title, text, tokenize='porter unicode61')"
        )
        self._lock = threading.Lock()

    def add(self, path: str, html: str) -> None:
        title, text = html_to_text(html)
        with self._lock:
            self._conn.execute("DELETE FROM pages WHERE path = ?", [path])
            self._conn.execute("INSERT INTO pages(path, title, text) VALUES (?, ?, ?)", [path, title or path, text])

    def search(self, query: str, limit: int) -> list[tuple[str, str, str, float]]:
        terms = query_terms(query)
        if not terms:
            return []
        with self._lock:
            rows = self._conn.execute(
                f"SELECT path, title, snippet(pages, 2, '', '', '…', {SNIPPET_TOKENS}), bm25(pages) "
                "FROM pages WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT ?",
                [word_match(terms), limit],
            ).fetchall()
        return [(path, title, snippet, round(-score, 4)) for path, title, snippet, score in rows]


class LocalWeb:
    """What the local web serves; the running server's address once started (`base_url`)."""

    def __init__(
        self,
        root: Path | str | Mapping[str, Path | str] | None = FIXTURE_PAGES,
        pages: dict[str, str | bytes] | None = None,
    ):
        """Serve the folder `root`, or several folders under URL prefixes ({"sqlite": "/usr/share/doc/sqlite3"}),
        plus `pages` from memory (path -> content)."""
        if root is None:
            self.roots: dict[str, Path] = {}
        elif isinstance(root, Mapping):
            self.roots = {prefix.strip("/"): Path(folder) for prefix, folder in root.items()}
        else:
            self.roots = {"": Path(root)}
        self.base_url = ""
        self.hits: Counter[str] = Counter()
        self.queries: list[str] = []
        self.requests: list[str] = []  # every request's path and query string, as sent
        self.in_flight = 0
        self.peak_in_flight = 0  # most requests answered at the same time
        self._routes: dict[str, Route] = {}
        self._memory: dict[str, bytes] = {}
        self._index = _Index()
        self._lock = threading.Lock()
        for prefix, folder in self.roots.items():
            for file in sorted(folder.rglob("*")):
                if file.suffix.lower() in (".html", ".htm") and file.is_file():
                    path = "/".join(part for part in (prefix, file.relative_to(folder).as_posix()) if part)
                    self._index.add(path, file.read_text(encoding="utf-8", errors="replace"))
        for path, content in (pages or {}).items():
            self.add_page(path, content)

    def url(self, path: str) -> str:
        """The absolute URL of a path on this server."""
        return f"{self.base_url}/{path.lstrip('/')}"

    def add_page(self, path: str, content: str | bytes) -> None:
        """Serve (and, for HTML, index) a page from memory."""
        path = path.lstrip("/")
        data = content.encode("utf-8") if isinstance(content, str) else content
        with self._lock:
            self._memory[path] = data
        if path.endswith((".html", ".htm")):
            self._index.add(path, data.decode("utf-8", errors="replace"))

    def route(self, path: str, route: Route) -> None:
        """Answer `path` (e.g. "slow.html" or "search") with a scripted route."""
        with self._lock:
            self._routes[path.lstrip("/")] = route

    def fetches(self, path: str) -> int:
        """How many times `path` was requested."""
        with self._lock:
            return self.hits[path.lstrip("/")]

    def search_json(self, query: str) -> dict[str, Any]:
        """The SearXNG JSON answer to a query."""
        results = [
            {
                "url": self.url(path),
                "title": title,
                "content": snippet,
                "engine": "localweb",
                "engines": ["localweb"],
                "score": score,
                "category": "general",
                "positions": [rank],
            }
            for rank, (path, title, snippet, score) in enumerate(self._index.search(query, MAX_SEARCH_RESULTS), 1)
        ]
        return {
            "query": query,
            "number_of_results": len(results),
            "results": results,
            "answers": [],
            "corrections": [],
            "infoboxes": [],
            "suggestions": [],
            "unresponsive_engines": [],
        }

    # -- answering (called by the handler)

    def _record(self, path: str, raw: str = "") -> Route | None:
        with self._lock:
            self.hits[path] += 1
            self.requests.append(raw or path)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            return self._routes.get(path)

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _file(self, path: str) -> tuple[bytes, str] | None:
        suffix = Path(path).suffix.lower()
        content_type = CONTENT_TYPES.get(suffix, "application/octet-stream")
        with self._lock:
            if path in self._memory:
                return self._memory[path], content_type
        for prefix, folder in self.roots.items():
            if prefix and not path.startswith(prefix + "/"):
                continue
            file = (folder / path[len(prefix) + 1 if prefix else 0 :]).resolve()
            if file.is_relative_to(folder.resolve()) and file.is_file():
                return file.read_bytes(), content_type
        return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64
    web: LocalWeb


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        with suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)

    def _scripted(self, route: Route) -> None:
        if route.delay_s:
            time.sleep(route.delay_s)
        headers = dict(route.headers)
        if route.location is not None:
            headers["Location"] = route.location
        if route.drip_s:
            self._drip(route, headers)
            return
        if route.size is None:
            self._answer(route.status, route.body, route.content_type, headers)
            return
        self.send_response(route.status)
        self.send_header("Content-Type", route.content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        chunk = b"<p>" + b"filler " * 9000 + b"</p>\n"
        sent = 0
        with suppress(BrokenPipeError, ConnectionResetError):
            while sent < route.size:
                part = chunk[: route.size - sent]
                self.wfile.write(part)
                sent += len(part)

    def _drip(self, route: Route, headers: dict[str, str]) -> None:
        self.send_response(route.status)
        self.send_header("Content-Type", route.content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        stop = time.monotonic() + route.drip_for_s
        with suppress(BrokenPipeError, ConnectionResetError, OSError):
            for byte in route.body:
                if time.monotonic() >= stop:
                    break
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(route.drip_s)

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        path = unquote(parts.path).lstrip("/")
        route = self.server.web._record(path, self.path)
        try:
            self._get(path, parts.query, route)
        finally:
            self.server.web._done()

    def _get(self, path: str, query_string: str, route: Route | None) -> None:
        web = self.server.web
        if route is not None:
            self._scripted(route)
            return
        if path == "search":
            params = parse_qs(query_string)
            query = " ".join(params.get("q", [""])[0].split())
            with web._lock:
                web.queries.append(query)
            if params.get("format", [""])[0] != "json":
                self._answer(403, b"Forbidden", "text/plain")
                return
            self._answer(200, json.dumps(web.search_json(query)).encode(), "application/json")
            return
        found = web._file(path)
        if found is None:
            self._answer(404, b"<html><body><h1>Not found</h1></body></html>", "text/html; charset=utf-8")
            return
        self._answer(200, found[0], found[1])


@contextmanager
def serve_local_web(web: LocalWeb | None = None, port: int = 0) -> Iterator[LocalWeb]:
    """Run the local web on 127.0.0.1 in a background thread; yields it with `base_url` set."""
    web = web if web is not None else LocalWeb()
    server = _Server(("127.0.0.1", port), _Handler)
    server.web = web
    web.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="arbor-local-web", daemon=True)
    thread.start()
    try:
        yield web
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    """Serve until killed; prints the base URL (SearXNG URL) on the first line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=FIXTURE_PAGES, help="folder of pages to serve")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with serve_local_web(LocalWeb(args.root), args.port) as web:
        print(web.base_url, flush=True)
        with suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
