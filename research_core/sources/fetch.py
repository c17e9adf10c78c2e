"""Fetch one web page safely, for reading: HTML and PDF only, bounded in size and time.

The rules, all enforced here:
- http(s) only. The host is resolved here and every address it resolves to is checked: private,
  loopback, link-local, shared, reserved and other non-public addresses are refused unless the
  policy allows private addresses (`RunConfig.fetch_private_addresses`); unspecified and
  multicast addresses are always refused. The connection then goes to the checked address (the
  URL's host stays in the Host header and in TLS's server name), so a second DNS answer cannot
  swap in another address.
- Redirects are followed by hand, at most `max_redirects`, and every target is checked again.
- Nothing identifying is sent: no cookies (the jar is emptied before every request), no Referer,
  no credentials from the URL, no proxy or netrc settings from the environment, no API key.
- One deadline per page (or the caller's, if sooner), checked after every network read and
  bounding every socket wait; a size cap enforced while the body streams in, and again on the
  decoded body (`research_core.net.transfer`: gzip and deflate are decoded within the cap, other
  encodings refused). A page is at most `max_bytes` raw plus `max_bytes` decoded in memory.
- A body that says it is HTML but is binary (NUL bytes, an image or archive signature) is refused.
- Whether any hop was served from a non-public address is recorded (`FetchedPage.private`,
  `FetchError.private`), so the page cache can keep the address rule.

Every failure is a `FetchError` with a short `user_message` and a `reason` the reader counts.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import urljoin

import httpx

from research_core.errors import ArborError
from research_core.net.transfer import TransferError, read_body, size_label, timeout_until

MAX_PAGE_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 3
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 10.0
PAGE_DEADLINE_S = 20.0
USER_AGENT = "Mozilla/5.0 (compatible; ArborResearch/1.0; reads pages a research run found)"

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
# Types that say nothing; the body's first bytes decide.
GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream", "application/unknown"})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Answers that will not change if asked again soon (the page cache keeps them).
PERMANENT_STATUSES = frozenset({401, 403, 404, 410, 451})
# First bytes of binary formats a server may mislabel as HTML (PNG, GIF, JPEG, ZIP, gzip, 7z, ELF).
BINARY_SIGNATURES = (b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b", b"7z\xbc\xaf", b"\x7fELF")

PageKind = Literal["html", "pdf"]
FetchReason = Literal[
    "bad_url",
    "refused_address",
    "dns",
    "connect",
    "timeout",
    "http_status",
    "too_many_redirects",
    "too_big",
    "not_html_or_pdf",
    "encoding",
    "stopped",
]
Resolver = Callable[[str, int], list[str]]


class FetchError(ArborError):
    """A page could not be fetched. `user_message` says why in a few words; `reason` is its category.

    `permanent` failures (a 404, a refused type, an oversized page) would fail again if retried,
    so the page cache may keep them; the others (timeouts, 5xx, connection errors) may not.
    """

    def __init__(self, reason: FetchReason, user_message: str, *, permanent: bool = False):
        super().__init__(user_message)
        self.reason: FetchReason = reason
        self.permanent = permanent
        self.private = False  # set when a hop before the failure was on a non-public address


@dataclass(frozen=True)
class FetchPolicy:
    """The limits of one page fetch."""

    allow_private: bool = False
    max_bytes: int = MAX_PAGE_BYTES
    max_redirects: int = MAX_REDIRECTS
    connect_timeout_s: float = CONNECT_TIMEOUT_S
    read_timeout_s: float = READ_TIMEOUT_S
    deadline_s: float = PAGE_DEADLINE_S


@dataclass(frozen=True)
class FetchedPage:
    """The raw body of a fetched page and what the server said about it."""

    url: str
    final_url: str
    kind: PageKind
    body: bytes
    charset: str | None = None
    private: bool = False  # some hop was served from a non-public address (allowed by the policy)


# ---- addresses -------------------------------------------------------------------------------------


def address_refusal(address: str, allow_private: bool) -> str | None:
    """Why fetching from `address` is refused (e.g. "a loopback address"), or None if it is allowed.

    IPv4 addresses mapped into or embedded in IPv6 (::ffff:a.b.c.d, 6to4, Teredo) are judged by
    the IPv4 address they carry.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is not None:
            return address_refusal(str(embedded), allow_private)
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_multicast:
        return "a multicast address"
    if allow_private:
        return None
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_private:
        return "a private address"
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:
        return "a non-public address"
    return None


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (IPv4 and IPv6), in the system's order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def media_type(content_type: str | None) -> str:
    """`text/html; charset=utf-8` -> `text/html`."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def charset_of(content_type: str | None) -> str | None:
    """The charset parameter of a Content-Type header, if any."""
    for part in (content_type or "").split(";")[1:]:
        name, _, value = part.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def sniff_kind(body: bytes) -> PageKind | None:
    """html or pdf from a body's first bytes, or None."""
    head = body[:1024].lstrip().lower()
    if head.startswith(b"%pdf-"):
        return "pdf"
    if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")) or b"<html" in head:
        return "html"
    return None


def looks_binary(body: bytes, charset: str | None) -> bool:
    """True for a body that is not text: a known binary signature, or NUL bytes in its first 4 KB.

    UTF-16 and UTF-32 text has NUL bytes, so a body whose charset names them is judged by its signature only.
    """
    head = body[:4096]
    if head.startswith(BINARY_SIGNATURES):
        return True
    wide = (charset or "").lower().replace("-", "").startswith(("utf16", "utf32"))
    return not wide and b"\x00" in head


def kind_for_type(content_type: str) -> PageKind | None:
    """html or pdf for a media type, else None."""
    if content_type in HTML_TYPES:
        return "html"
    if content_type in PDF_TYPES:
        return "pdf"
    return None


# ---- fetching --------------------------------------------------------------------------------------


class PageFetcher:
    """Fetches pages under a `FetchPolicy`; thread-safe (each fetch uses its own HTTP client).

    `resolver` and `transport` are for tests: a resolver maps (host, port) to addresses, and an
    httpx transport (e.g. `httpx.MockTransport`) answers instead of the network.
    """

    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        resolver: Resolver | None = None,
        transport: httpx.BaseTransport | None = None,
    ):
        self.policy = policy or FetchPolicy()
        self.resolver = resolver or system_resolver
        self.transport = transport

    def fetch(self, url: str, until: float | None = None) -> FetchedPage:
        """Fetch `url` (following at most `max_redirects` checked redirects); FetchError on failure.

        The fetch ends by the policy's deadline, or by `until` (a `time.monotonic()` value) if sooner.
        """
        deadline = time.monotonic() + self.policy.deadline_s
        deadline = min(deadline, until) if until is not None else deadline
        hops: list[str] = []
        try:
            return self._follow(url, deadline, hops)
        except FetchError as exc:
            exc.private = any(address_refusal(a, allow_private=False) for a in hops)
            raise

    def _follow(self, url: str, deadline: float, hops: list[str]) -> FetchedPage:
        """Request `url`, then each redirect's target, appending every checked address to `hops`."""
        current = url
        with httpx.Client(transport=self.transport, follow_redirects=False, trust_env=False) as client:
            for hop in range(self.policy.max_redirects + 1):
                target = self._parse(current)
                address = self._checked_address(target, hop)
                hops.append(address)
                client.cookies.clear()
                response = self._send(client, target, address, deadline)
                try:
                    location = response.headers.get("location")
                    if response.status_code in REDIRECT_STATUSES and location:
                        current = urljoin(current, location.strip())
                        continue
                    page = self._read(response, url, current, deadline)
                finally:
                    response.close()
                private = any(address_refusal(a, allow_private=False) for a in hops)
                return replace(page, private=private)
        raise FetchError("too_many_redirects", f"more than {self.policy.max_redirects} redirects", permanent=True)

    # -- steps

    @staticmethod
    def _parse(url: str) -> httpx.URL:
        try:
            parsed = httpx.URL(url)
        except (httpx.InvalidURL, ValueError, TypeError) as exc:
            raise FetchError("bad_url", f"not a valid URL ({exc})", permanent=True) from None
        if parsed.scheme not in ("http", "https") or not parsed.host:
            raise FetchError("bad_url", "not an http(s) URL", permanent=True)
        return parsed

    def _checked_address(self, target: httpx.URL, hop: int) -> str:
        """Resolve the target's host and check every address; the first one is where to connect."""
        host = target.raw_host.decode("ascii")
        port = target.port or (443 if target.scheme == "https" else 80)
        try:
            addresses = self.resolver(host.strip("[]"), port)  # an address literal resolves to itself
        except (OSError, UnicodeError) as exc:
            raise FetchError("dns", f"the host name did not resolve ({type(exc).__name__})") from None
        if not addresses:
            raise FetchError("dns", "the host name did not resolve")
        for address in addresses:
            why = address_refusal(address, self.policy.allow_private)
            if why is not None:
                where = "redirects to" if hop else "is on"
                hint = "" if self.policy.allow_private else "; set fetch_private_addresses to allow it"
                raise FetchError("refused_address", f"refused: the page {where} {why} ({address}){hint}")
        return addresses[0].split("%", 1)[0]

    def _send(self, client: httpx.Client, target: httpx.URL, address: str, deadline: float) -> httpx.Response:
        host_header = target.raw_host.decode("ascii") + (f":{target.port}" if target.port else "")
        pinned = target.copy_with(host=address, username=None, password=None, fragment=None)
        headers = {
            "Host": host_header,
            "User-Agent": USER_AGENT,
            "Accept": "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.1",
            "Accept-Language": "en;q=0.9,*;q=0.5",
            "Accept-Encoding": "identity",
        }
        extensions = {"sni_hostname": target.raw_host.decode("ascii")} if target.scheme == "https" else {}
        if time.monotonic() >= deadline:
            raise FetchError("timeout", f"no answer within {self.policy.deadline_s:g} s")
        policy = self.policy
        timeout = timeout_until(deadline, policy.connect_timeout_s, policy.read_timeout_s)
        request = client.build_request("GET", pinned, headers=headers, extensions=extensions, timeout=timeout)
        try:
            return client.send(request, stream=True)
        except httpx.TimeoutException:
            raise FetchError("timeout", "the server did not answer in time") from None
        except httpx.HTTPError as exc:
            raise FetchError("connect", f"the connection failed ({type(exc).__name__})") from None
        except httpx.InvalidURL:  # httpx reads a redirect's Location itself (javascript:, data:, a bad host)
            message = "the page redirects to an address that is not an http(s) URL"
            raise FetchError("bad_url", message, permanent=True) from None

    def _read(self, response: httpx.Response, url: str, final_url: str, deadline: float) -> FetchedPage:
        status = response.status_code
        if status in REDIRECT_STATUSES:
            raise FetchError("http_status", f"HTTP {status} without a target", permanent=True)
        if not 200 <= status < 300:
            raise FetchError("http_status", f"HTTP {status}", permanent=status in PERMANENT_STATUSES)
        content_type = response.headers.get("content-type")
        declared = media_type(content_type)
        kind = kind_for_type(declared)
        if kind is None and declared not in GENERIC_TYPES:
            raise FetchError("not_html_or_pdf", f"{declared} is not HTML or PDF", permanent=True)
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > self.policy.max_bytes:
            raise FetchError("too_big", f"larger than {size_label(self.policy.max_bytes)}", permanent=True)
        charset = charset_of(content_type)
        body = self._body(response, deadline)
        sniffed = sniff_kind(body)
        if kind is None:
            if sniffed is None:
                raise FetchError("not_html_or_pdf", "the content is neither HTML nor PDF", permanent=True)
            kind = sniffed
        elif kind == "html" and sniffed == "pdf":
            kind = "pdf"
        if kind == "html" and looks_binary(body, charset):
            raise FetchError("not_html_or_pdf", "binary content served as HTML", permanent=True)
        return FetchedPage(url=url, final_url=final_url, kind=kind, body=body, charset=charset)

    def _body(self, response: httpx.Response, deadline: float) -> bytes:
        try:
            return read_body(response, self.policy.max_bytes, deadline)
        except TransferError as exc:
            if exc.reason == "timeout":
                raise FetchError("timeout", f"not received within {self.policy.deadline_s:g} s") from None
            reason: FetchReason = "connect" if exc.reason == "transfer" else exc.reason
            raise FetchError(reason, str(exc), permanent=exc.reason in ("too_big", "encoding")) from None
