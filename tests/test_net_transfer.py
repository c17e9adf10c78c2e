"""research_core.net.transfer: bounded decoding, the encodings it reads, deadlines that shrink timeouts."""

from __future__ import annotations

import gzip
import time
import zlib

import httpx
import pytest

from research_core.net.transfer import (
    TransferError,
    allow_transfers,
    content_encodings,
    decompress,
    read_body,
    size_label,
    stop_transfers,
    timeout_until,
    transfers_stopped,
)

TEXT = b"readers continue while a writer commits " * 100


@pytest.mark.parametrize(
    ("encoded", "name"),
    [
        # mtime=0: the same bytes, so the same test ids, in every worker process
        (gzip.compress(TEXT, mtime=0), "gzip"),
        (gzip.compress(TEXT, mtime=0), "x-gzip"),
        (zlib.compress(TEXT), "deflate"),
        (zlib.compress(TEXT)[2:-4], "deflate"),  # raw deflate, sent without its zlib header
    ],
)
def test_gzip_and_deflate_are_decoded(encoded: bytes, name: str) -> None:
    assert decompress(encoded, name, 1_000_000) == TEXT


def test_decoding_stops_at_the_cap() -> None:
    bomb = gzip.compress(b"\0" * 10_000_000)
    with pytest.raises(TransferError) as caught:
        decompress(bomb, "gzip", 1_000_000)
    assert caught.value.reason == "too_big" and "once decompressed" in str(caught.value)
    assert decompress(gzip.compress(b"\0" * 1_000_000), "gzip", 1_000_000) == b"\0" * 1_000_000  # exactly the cap


def test_a_corrupt_body_is_an_encoding_error() -> None:
    with pytest.raises(TransferError) as caught:
        decompress(b"not gzip at all", "gzip", 1000)
    assert caught.value.reason == "encoding"


def test_content_encodings_in_the_order_applied() -> None:
    assert content_encodings(None) == [] and content_encodings("identity") == []
    assert content_encodings(" GZIP , deflate") == ["gzip", "deflate"]


def test_other_encodings_are_refused_before_reading() -> None:
    response = httpx.Response(200, headers={"Content-Encoding": "br"}, stream=httpx.ByteStream(b"x"))
    with pytest.raises(TransferError) as caught:
        read_body(response, 100, time.monotonic() + 5)
    assert caught.value.reason == "encoding" and "br-encoded" in str(caught.value)


def test_a_raw_body_over_the_cap_is_refused() -> None:
    response = httpx.Response(200, stream=httpx.ByteStream(b"x" * 101))
    with pytest.raises(TransferError) as caught:
        read_body(response, 100, time.monotonic() + 5)
    assert caught.value.reason == "too_big" and str(caught.value) == "larger than 0 KB"


def test_a_stop_ends_a_transfer() -> None:
    response = httpx.Response(200, stream=httpx.ByteStream(b"x"))
    stop_transfers()
    try:
        assert transfers_stopped()
        with pytest.raises(TransferError) as caught:
            read_body(response, 100, time.monotonic() + 5)
        assert caught.value.reason == "stopped"
    finally:
        allow_transfers()
    assert not transfers_stopped()


def test_timeouts_never_outlast_the_deadline() -> None:
    timeout = timeout_until(time.monotonic() + 2.0, connect_s=5.0, read_s=10.0)
    assert timeout.connect is not None and timeout.connect <= 2.0 and timeout.read is not None and timeout.read <= 2.0
    spent = timeout_until(time.monotonic() - 1, connect_s=5.0, read_s=10.0)
    assert spent.read == 0.01  # a passed deadline still gives httpx a valid (tiny) timeout
    far = timeout_until(time.monotonic() + 60, connect_s=5.0, read_s=10.0)
    assert (far.connect, far.read) == (5.0, 10.0)


def test_size_labels() -> None:
    assert size_label(5 * 1024 * 1024) == "5 MB" and size_label(64 * 1024) == "64 KB"
