"""Hostile bodies for the local web: decompression bombs, a PDF of thousands of pages, a page of only links.

Each is small on the wire and costly to read naively, so a test can serve it on 127.0.0.1 and
measure what reading it costs (`peak_rss_mb` runs a snippet in a fresh interpreter and reports
its peak memory, which an in-process measure would blur with the test's own allocations).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.pdf_file import assemble_pdf

REPO = Path(__file__).resolve().parents[2]
MB = 1024 * 1024


def gzip_bomb(size: int = 256 * MB) -> bytes:
    """`size` zero bytes, gzip-compressed (about a thousandth of the size)."""
    return gzip.compress(b"\0" * size, compresslevel=9)


def zstd_bomb(size: int = 512 * MB) -> bytes:
    """`size` zero bytes, zstd-compressed (a few KB)."""
    import zstandard

    return zstandard.ZstdCompressor(level=19).compress(b"\0" * size)


def many_page_pdf(pages: int, words: int = 60) -> bytes:
    """A PDF of `pages` pages that all show the same text (one shared content stream)."""
    text = " ".join(f"word{n}" for n in range(words))
    content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    first_page = 5
    kids = " ".join(f"{first_page + n} 0 R" for n in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
    )
    objects += [page] * pages
    return assemble_pdf(objects)


def links_page(links: int) -> bytes:
    """An HTML page of a short paragraph and then `links` links (a site map gone wild)."""
    intro = "<p>" + "Write-ahead logging lets readers continue while a writer commits. " * 4 + "</p>"
    items = "".join(f'<li><a href="/p{n}">page {n}</a></li>' for n in range(links))
    return f"<html><head><title>Links</title></head><body>{intro}<ul>{items}</ul></body></html>".encode()


_MEASURE = """
import json, resource, sys, time
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
cpu_started = time.process_time()
outcome = "ok"
try:
    exec(sys.argv[1])
except Exception as exc:
    outcome = f"{type(exc).__name__}: {exc}"
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({
    "grew_mb": (after - before) / 1024,
    "seconds": time.monotonic() - started,
    "cpu_seconds": time.process_time() - cpu_started,
    "outcome": outcome,
}))
"""


def peak_rss_mb(code: str, setup: str = "", timeout: float = 60) -> dict:
    """Run `setup` then `code` in a fresh interpreter; how much its peak memory grew during `code` (MB),
    how long `code` took (wall clock, and its own CPU time, which other processes sharing the machine
    do not change), and "ok" or the exception it raised."""
    script = setup + "\n" + _MEASURE
    done = subprocess.run(
        [sys.executable, "-c", script, code], cwd=REPO, capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])
