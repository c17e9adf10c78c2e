"""research_core.sources.fetch: the address rule, and every way a fetch can fail, over real HTTP on 127.0.0.1.

Redirects towards other hosts use an httpx MockTransport with a scripted resolver, so no request
ever leaves the machine.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from research_core.errors import ArborError
from research_core.sources.fetch import (
    MAX_PAGE_BYTES,
    FetchError,
    FetchPolicy,
    PageFetcher,
    address_refusal,
    charset_of,
    sniff_kind,
)
from tests.fakes.local_web import LocalWeb, Route, serve_local_web

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture
def web() -> Iterator[LocalWeb]:
    with serve_local_web() as served:
        yield served


def local(**policy) -> PageFetcher:
    return PageFetcher(FetchPolicy(allow_private=True, **policy))


def failure(fetcher: PageFetcher, url: str) -> FetchError:
    with pytest.raises(FetchError) as caught:
        fetcher.fetch(url)
    return caught.value


# ---- the address rule ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "a loopback address"),
        ("::1", "a loopback address"),
        ("10.1.2.3", "a private address"),
        ("172.16.0.9", "a private address"),
        ("192.168.1.1", "a private address"),
        ("169.254.169.254", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("fe80::1%eth0", "a link-local address"),
        ("::ffff:127.0.0.1", "a loopback address"),
        ("::ffff:10.0.0.1", "a private address"),
        ("2002:0a00:0001::1", "a private address"),  # 6to4 around 10.0.0.1
        ("fc00::1", "a private address"),
        ("100.64.0.1", "a non-public address"),
        ("240.0.0.1", "a private address"),
    ],
)
def test_non_public_addresses_are_refused_unless_allowed(address: str, why: str) -> None:
    assert address_refusal(address, allow_private=False) == why
    assert address_refusal(address, allow_private=True) is None


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "224.0.0.1", "ff02::1"])
def test_unspecified_and_multicast_addresses_are_always_refused(address: str) -> None:
    assert address_refusal(address, allow_private=True) is not None


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:4700:4700::1111", "8.8.8.8"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert address_refusal(address, allow_private=False) is None


def test_content_type_helpers() -> None:
    assert charset_of("text/html; charset=ISO-8859-1") == "ISO-8859-1"
    assert charset_of("text/html") is None
    assert sniff_kind(b"  <!DOCTYPE html><html>") == "html"
    assert sniff_kind(b"%PDF-1.7\n") == "pdf"
    assert sniff_kind(PNG) is None


# ---- fetching from the local web ----------------------------------------------------------------


def test_fetches_an_html_page(web: LocalWeb) -> None:
    page = local().fetch(web.url("sqlite/wal.html"))
    assert page.kind == "html" and page.charset == "utf-8"
    assert b"readers do not block writers" in page.body
    assert page.final_url == page.url == web.url("sqlite/wal.html")


def test_loopback_is_refused_by_default(web: LocalWeb) -> None:
    error = failure(PageFetcher(), web.url("sqlite/wal.html"))
    assert error.reason == "refused_address"
    assert "loopback" in error.user_message and "fetch_private_addresses" in error.user_message
    assert web.fetches("sqlite/wal.html") == 0  # refused before any request


def test_not_found_is_a_permanent_http_error(web: LocalWeb) -> None:
    error = failure(local(), web.url("missing.html"))
    assert (error.reason, error.user_message, error.permanent) == ("http_status", "HTTP 404", True)
    assert isinstance(error, ArborError) and str(error) == "HTTP 404"  # a user-facing error


def test_a_server_error_is_not_permanent(web: LocalWeb) -> None:
    web.route("broken.html", Route(status=503, body=b"busy"))
    error = failure(local(), web.url("broken.html"))
    assert (error.reason, error.permanent) == ("http_status", False)


def test_a_slow_server_times_out(web: LocalWeb) -> None:
    web.route("slow.html", Route(body=b"<html>late</html>", delay_s=3))
    started = time.monotonic()
    error = failure(local(read_timeout_s=0.3), web.url("slow.html"))
    assert error.reason == "timeout" and not error.permanent
    assert time.monotonic() - started < 2.5


def test_an_oversized_page_is_cut_off_while_streaming(web: LocalWeb) -> None:
    assert MAX_PAGE_BYTES == 5 * 1024 * 1024
    web.route("huge.html", Route(size=400_000))  # no Content-Length: only the stream shows the size
    error = failure(local(max_bytes=100_000), web.url("huge.html"))
    assert error.reason == "too_big" and error.permanent
    assert "larger than 97 KB" in error.user_message


def test_a_declared_oversized_page_is_refused_before_reading(web: LocalWeb) -> None:
    web.route("declared.html", Route(body=b"x" * 2000))  # sent with its Content-Length
    error = failure(local(max_bytes=1000), web.url("declared.html"))
    assert error.reason == "too_big"


@pytest.mark.parametrize(
    ("content_type", "body"),
    [("image/png", PNG), ("application/zip", b"PK\x03\x04rest"), ("application/octet-stream", PNG)],
)
def test_binary_content_is_refused(web: LocalWeb, content_type: str, body: bytes) -> None:
    web.route("file.bin", Route(body=body, content_type=content_type))
    error = failure(local(), web.url("file.bin"))
    assert error.reason == "not_html_or_pdf" and error.permanent


def test_an_untyped_body_is_judged_by_its_first_bytes(web: LocalWeb) -> None:
    web.route("untyped", Route(body=b"<!doctype html><html><p>hello</p></html>", content_type=""))
    web.route("untyped.pdf", Route(body=b"%PDF-1.4\n...", content_type="application/octet-stream"))
    assert local().fetch(web.url("untyped")).kind == "html"
    assert local().fetch(web.url("untyped.pdf")).kind == "pdf"


def test_redirects_are_followed_and_bounded(web: LocalWeb) -> None:
    web.route("old.html", Route(status=301, location="/sqlite/wal.html"))
    page = local().fetch(web.url("old.html"))
    assert page.final_url == web.url("sqlite/wal.html") and page.url == web.url("old.html")

    for n in range(5):
        web.route(f"hop{n}", Route(status=302, location=f"/hop{n + 1}"))
    error = failure(local(), web.url("hop0"))
    assert error.reason == "too_many_redirects"
    assert web.fetches("hop3") == 1 and web.fetches("hop4") == 0  # the first request and 3 redirects


# ---- other hosts, through a mock transport -------------------------------------------------------

PUBLIC = "93.184.216.34"


def resolver(table: dict[str, list[str]]):
    """Names from `table`; an address literal resolves to itself, as with getaddrinfo."""

    def resolve(host: str, port: int) -> list[str]:
        if host in table:
            return table[host]
        if host.replace(".", "").isdigit() or ":" in host:
            return [host]
        raise OSError("no such host")

    return resolve


class Recorder:
    """A MockTransport handler that answers from a script by path and records every request."""

    def __init__(self, answers: dict[str, httpx.Response]):
        self.answers = answers
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers.get(request.url.path, httpx.Response(404))


def test_a_redirect_to_a_private_address_is_refused() -> None:
    answers = Recorder({"/article": httpx.Response(302, headers={"Location": "http://intranet.example/admin"})})
    fetcher = PageFetcher(
        resolver=resolver({"news.example": [PUBLIC], "intranet.example": ["10.0.0.5"]}),
        transport=httpx.MockTransport(answers),
    )
    error = failure(fetcher, "http://news.example/article")
    assert error.reason == "refused_address"
    assert error.user_message.startswith("refused: the page redirects to a private address (10.0.0.5)")
    assert [str(r.url) for r in answers.requests] == [f"http://{PUBLIC}/article"]  # never asked the intranet


def test_a_redirect_to_a_loopback_literal_is_refused() -> None:
    answers = Recorder({"/a": httpx.Response(307, headers={"Location": "http://127.0.0.1:8080/"})})
    fetcher = PageFetcher(resolver=resolver({"site.example": [PUBLIC]}), transport=httpx.MockTransport(answers))
    assert "loopback" in failure(fetcher, "http://site.example/a").user_message
    assert len(answers.requests) == 1


def test_a_host_with_any_private_address_is_refused() -> None:
    answers = Recorder({})
    fetcher = PageFetcher(
        resolver=resolver({"mixed.example": [PUBLIC, "192.168.0.10"]}), transport=httpx.MockTransport(answers)
    )
    assert failure(fetcher, "http://mixed.example/").reason == "refused_address"
    assert answers.requests == []


def test_connects_to_the_checked_address_and_sends_nothing_identifying() -> None:
    html = b"<html><body><p>the page</p></body></html>"
    answers = Recorder(
        {
            "/start": httpx.Response(302, headers={"Location": "/page", "Set-Cookie": "session=abc; Path=/"}),
            "/page": httpx.Response(200, headers={"Content-Type": "text/html"}, content=html),
        }
    )
    fetcher = PageFetcher(resolver=resolver({"docs.example": [PUBLIC]}), transport=httpx.MockTransport(answers))
    page = fetcher.fetch("https://user:secret@docs.example/start")
    assert page.body == html and page.final_url == "https://user:secret@docs.example/page"
    first, _second = answers.requests
    assert str(first.url) == f"https://{PUBLIC}/start" and first.headers["host"] == "docs.example"
    assert first.extensions["sni_hostname"] == "docs.example"  # TLS still checks the host's certificate
    for request in answers.requests:
        assert "cookie" not in request.headers and "referer" not in request.headers
        assert "authorization" not in request.headers


def test_only_http_urls_are_fetched() -> None:
    for url in ("file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "http://"):
        assert failure(PageFetcher(), url).reason == "bad_url"


def test_an_unresolvable_host_fails_as_dns() -> None:
    fetcher = PageFetcher(resolver=resolver({}), transport=httpx.MockTransport(Recorder({})))
    assert failure(fetcher, "http://nowhere.example/").reason == "dns"
