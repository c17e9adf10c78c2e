"""Bounded HTTP transfers: one deadline checked while bytes arrive, one size cap before and after decoding.

The rules, for every body Arbor reads from a server it does not control (web pages, SearXNG):
- The body is read raw (`iter_raw`: each network read as it comes, never decoded by httpx), and
  after every read the deadline, the size cap and the process's stop flag are checked. A server
  that trickles one byte at a time is cut at the deadline, not when a 64 KiB chunk fills.
- Every socket wait is bounded by what is left of the deadline (`timeout_until`), so a silent
  server cannot hold a read past it either.
- Content-Encoding gzip and deflate are decoded here, with zlib's `max_length`, so the decoded
  body is bounded by the same cap as the raw one (a decompression bomb stops at the cap). Any
  other encoding (br, zstd, compress) is refused: callers ask for identity or gzip/deflate only.
  Peak memory of one body: the raw bytes (at most the cap) plus the decoded bytes (at most the cap).
- `stop_transfers()` (Ctrl-C, SIGTERM) makes every transfer under way end at its next read.
"""

from __future__ import annotations

import threading
import time
import zlib
from typing import Literal

import httpx

TransferReason = Literal["too_big", "timeout", "stopped", "encoding", "transfer"]
DECODED_ENCODINGS = ("gzip", "x-gzip", "deflate")
ACCEPT_DECODED = "gzip, deflate"
# zlib's window bits: 16 + 15 reads a gzip header, 15 a zlib header, -15 raw deflate.
_GZIP_WBITS = 16 + zlib.MAX_WBITS

_STOPPING = threading.Event()


class TransferError(Exception):
    """A body could not be read within its limits; `reason` says which limit, `str()` says it in words."""

    def __init__(self, reason: TransferReason, message: str):
        super().__init__(message)
        self.reason: TransferReason = reason


def stop_transfers() -> None:
    """From now on every bounded transfer of this process ends at its next read (the process is stopping)."""
    _STOPPING.set()


def allow_transfers() -> None:
    """Undo `stop_transfers`."""
    _STOPPING.clear()


def transfers_stopped() -> bool:
    """True after `stop_transfers` (until `allow_transfers`)."""
    return _STOPPING.is_set()


def remaining(deadline: float) -> float:
    """Seconds left until the monotonic `deadline` (never below zero)."""
    return max(0.0, deadline - time.monotonic())


def timeout_until(deadline: float, connect_s: float, read_s: float) -> httpx.Timeout:
    """httpx timeouts no longer than what is left of `deadline` (at least 10 ms, so httpx accepts them)."""
    left = max(0.01, remaining(deadline))
    read = min(read_s, left)
    return httpx.Timeout(connect=min(connect_s, left), read=read, write=read, pool=min(1.0, left))


def size_label(cap: int) -> str:
    """5242880 -> "5 MB", 65536 -> "64 KB"."""
    return f"{cap / 1024 / 1024:g} MB" if cap >= 1024 * 1024 else f"{cap // 1024} KB"


def read_body(response: httpx.Response, max_bytes: int, deadline: float) -> bytes:
    """The decoded body of a streamed response, read within `deadline` and `max_bytes` (raw and decoded).

    Raises TransferError: too_big, timeout (the deadline passed while bytes arrived, or a read
    waited too long), stopped (`stop_transfers`), encoding (an encoding not decoded here, or a
    corrupt one), transfer (the connection broke).
    """
    if response.is_stream_consumed:  # an in-memory transport (tests) hands over a body already read
        if len(response.content) > max_bytes:
            raise TransferError("too_big", f"larger than {size_label(max_bytes)}")
        return response.content
    encodings = content_encodings(response.headers.get("content-encoding"))
    for name in encodings:
        if name not in DECODED_ENCODINGS:
            raise TransferError("encoding", f"the server sent it {name}-encoded, which Arbor does not decode")
    raw = _read_raw(response, max_bytes, deadline)
    for name in reversed(encodings):
        raw = decompress(raw, name, max_bytes)
    return raw


def content_encodings(header: str | None) -> list[str]:
    """The codings of a Content-Encoding header, in the order they were applied, identity left out."""
    names = [part.strip().lower() for part in (header or "").split(",")]
    return [name for name in names if name and name != "identity"]


def _read_raw(response: httpx.Response, max_bytes: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    total = 0
    try:
        for chunk in response.iter_raw():
            total += len(chunk)
            if total > max_bytes:
                raise TransferError("too_big", f"larger than {size_label(max_bytes)}")
            if _STOPPING.is_set():
                raise TransferError("stopped", "stopped: the process is shutting down")
            if time.monotonic() > deadline:
                raise TransferError("timeout", "not received in time")
            chunks.append(chunk)
    except httpx.TimeoutException:
        raise TransferError("timeout", "the server stopped sending in time") from None
    except httpx.HTTPError as exc:
        raise TransferError("transfer", f"the transfer failed ({type(exc).__name__})") from None
    return b"".join(chunks)


def decompress(data: bytes, encoding: str, max_bytes: int) -> bytes:
    """`data` decoded from gzip or deflate, at most `max_bytes` of it; TransferError beyond that or if corrupt."""
    if encoding in ("gzip", "x-gzip"):
        return _inflate(data, _GZIP_WBITS, max_bytes)
    try:
        return _inflate(data, zlib.MAX_WBITS, max_bytes)
    except TransferError as exc:
        if exc.reason == "too_big":
            raise
        return _inflate(data, -zlib.MAX_WBITS, max_bytes)  # "deflate" sent without its zlib header


def _inflate(data: bytes, wbits: int, max_bytes: int) -> bytes:
    decoder = zlib.decompressobj(wbits)
    try:
        out = decoder.decompress(data, max_bytes + 1)
    except zlib.error:
        raise TransferError("encoding", "its compressed body is corrupt") from None
    if len(out) > max_bytes or decoder.unconsumed_tail:
        raise TransferError("too_big", f"larger than {size_label(max_bytes)} once decompressed")
    return out
