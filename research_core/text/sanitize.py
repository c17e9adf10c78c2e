"""Make untrusted text safe to show: URLs, web text and the LLM's Markdown.

Titles, snippets and findings come from the web, and the LLM's answers paraphrase them, so
any of it may carry HTML, `javascript:` links, tracking images or secrets pasted by mistake.
The exports and the UI pass everything through these helpers before it reaches a reader.

Two URL helpers exist on purpose: `safe_url` says what may be *shown* (web URLs, local
paths, `library://` ids) and `safe_link` what may be *clicked* (absolute http(s) URLs only).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

# ---- control characters ----------------------------------------------------------------

# Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): invisible, and
# they make text display in another order than it is stored ("Trojan Source").
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
# Unicode category Cc without \t and \n (C0 controls, DEL, the C1 block), and the bidi controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
_NEWLINES = re.compile(r"\r\n?|[\u2028\u2029]")
# Around a URL: whitespace and controls. Inside: controls (browsers drop tabs and newlines
# even within `java\tscript:`) and invisible format characters (soft hyphen, zero-width
# space, bidi overrides, BOM). Inner spaces stay; `safe_link` percent-encodes them.
_URL_EDGES = re.compile(r"^[\s\x00-\x20\x7f-\x9f]+|[\s\x00-\x20\x7f-\x9f]+$")
_URL_INSIDE = re.compile(r"[\x00-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def strip_control_chars(text: str) -> str:
    """Remove control characters and bidi controls (keeping newlines and tabs).

    `\\r\\n`, `\\r`, U+2028/9 become `\\n`; NUL, BEL, ESC, the C1 block and the bidirectional
    embeddings, overrides and isolates go.
    """
    return _CONTROL.sub("", _NEWLINES.sub("\n", text))


# A terminal escape sequence: CSI (ESC [ ... final byte, or the one-byte C1 CSI), OSC, DCS, SOS,
# PM and APC strings up to their terminator (BEL or ESC \\, at the latest the end of the line), and
# the other ESC sequences.
_TERMINAL_ESCAPE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)


def strip_terminal_escapes(text: str) -> str:
    """`text` safe to print on a terminal: escape sequences (colours, window titles, hyperlinks,
    cursor moves) removed with their content, then every other control and bidi character.

    Newlines and tabs stay; a carriage return becomes a newline, so text cannot overwrite a line.
    """
    return strip_control_chars(_TERMINAL_ESCAPE.sub("", text))


# ---- URLs ------------------------------------------------------------------------------

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
_WEB_SCHEMES = frozenset({"http", "https"})
# Shown but never linked: local documents and ids of the document library.
_DISPLAY_ONLY_SCHEMES = frozenset({"library", "file"})
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
# Characters kept as-is when a link target is written out; everything else is %-encoded.
_URL_SAFE_CHARS = "/:?#[]@!$&'()*+,;=%~-._"


def safe_url(url: str) -> str | None:
    """Return `url` cleaned for display, or None if it must not be shown as a location.

    Accepted: absolute http(s) URLs with a host, `library://` ids, `file:` URLs and local
    paths (POSIX, relative or Windows drive paths), with surrounding whitespace and any
    control or invisible characters removed. Rejected: every other scheme (`javascript:`,
    `data:`, `vbscript:`, `mailto:` ...), protocol-relative `//host` and UNC paths, and
    scheme-less text that hides a colon or an HTML character reference.

    Only the http(s) results may become links; use `safe_link` for anything clickable.
    """
    if not isinstance(url, str):
        return None
    cleaned = _URL_INSIDE.sub("", _URL_EDGES.sub("", url))
    if not cleaned:
        return None
    if _WINDOWS_DRIVE.match(cleaned):
        return cleaned
    scheme = _SCHEME.match(cleaned)
    if scheme:
        name = scheme.group(1).lower()
        if name in _WEB_SCHEMES:
            try:
                parts = urlsplit(cleaned)
            except ValueError:
                return None
            return cleaned if parts.hostname and cleaned[len(name) : len(name) + 3] == "://" else None
        if name in _DISPLAY_ONLY_SCHEMES:
            return cleaned
        return None
    if cleaned.startswith(("//", "\\\\", "/\\", "\\/")):
        return None
    if ":" in cleaned or "&#" in cleaned:
        return None
    return cleaned


def safe_link(url: str) -> str | None:
    """Return an absolute http(s) URL fit for an `href` or a Markdown autolink, or None.

    Spaces, quotes, angle brackets and non-ASCII characters are percent-encoded, so the
    result can be written between `<` and `>` in Markdown or into an HTML attribute.
    """
    cleaned = safe_url(url)
    if cleaned is None:
        return None
    scheme = _SCHEME.match(cleaned)
    if not scheme or scheme.group(1).lower() not in _WEB_SCHEMES:
        return None
    return quote(cleaned, safe=_URL_SAFE_CHARS)


def _is_web_target(target: str) -> bool:
    """True if a Markdown link destination is an absolute http(s) URL."""
    return re.match(r"https?://[^\s/?#]", target.strip().lstrip("<"), re.IGNORECASE) is not None


# ---- untrusted plain text --------------------------------------------------------------

_WHITESPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]+")
_ENTITY_LIKE = r"&(?=#[0-9]{1,8};|#[xX][0-9a-fA-F]{1,8};|[A-Za-z][A-Za-z0-9]{1,31};)"
_INLINE_SPECIAL = re.compile(_ENTITY_LIKE + r"|[\\`*_\[\]<>|~]")
_LINE_START_SPECIAL = re.compile(r"^(?:[#+\-=]|(\d{1,9})[.)])")


def _escape_char(match: re.Match[str]) -> str:
    char = match.group(0)
    if char == "<":
        return "&lt;"
    if char == ">":
        return "&gt;"
    return "\\" + char


def escape_markdown(text: str) -> str:
    """Return `text` as one line of Markdown that renders literally.

    Meant for untrusted inline text (titles, questions, snippets, findings, warnings):
    whitespace and control characters collapse to single spaces; `\\ ` * _ [ ] | ~` are
    backslash-escaped; `<` and `>` become `&lt;`/`&gt;` so no HTML tag can form; a `&` that
    would start a character reference is escaped; a leading `#`, `+`, `-`, `=` or `1.` is
    escaped so the text cannot start a heading or list where a caller puts it at a line
    start. `(`, `)`, `!` and `.` elsewhere need no escape: with `[` and `]` escaped they
    cannot form links or images.
    """
    collapsed = _WHITESPACE_OR_CONTROL.sub(" ", text).strip()
    escaped = _INLINE_SPECIAL.sub(_escape_char, collapsed)
    start = _LINE_START_SPECIAL.match(escaped)
    if start:
        if start.group(1) is not None:
            cut = len(start.group(1))
            escaped = escaped[:cut] + "\\" + escaped[cut:]
        else:
            escaped = "\\" + escaped
    return escaped


# ---- the LLM's Markdown ----------------------------------------------------------------

# Elements whose content is never text a reader should see.
_DROP_WITH_CONTENT = re.compile(
    r"<(script|style|iframe|object|embed|noscript|template|textarea|xmp|noembed|noframes|svg|math|title)\b"
    r"[^>]*>.*?</\1\s*>",
    re.IGNORECASE | re.DOTALL,
)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?/?>")
# HTML (and inline SVG/MathML) element names. Tags with other names, such as the `<T>` of
# `Vec<T>`, are kept as literal text instead of being removed.
_HTML_ELEMENTS = frozenset(
    """
    a abbr acronym address applet area article aside audio b base basefont bdi bdo bgsound big blink
    blockquote body br button canvas caption center cite code col colgroup data datalist dd del details
    dfn dialog dir div dl dt em embed fieldset figcaption figure font footer form frame frameset h1 h2
    h3 h4 h5 h6 head header hgroup hr html i iframe image img input ins isindex kbd keygen label legend
    li link listing main map mark marquee menu menuitem meta meter nav nobr noembed noframes noscript
    object ol optgroup option output p param picture plaintext portal pre progress q rb rp rt rtc ruby s
    samp script search section select slot small source spacer span strike strong style sub summary sup
    svg table tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr xmp
    math animate animatemotion animatetransform set use foreignobject
    """.split()  # noqa: SIM905 - a word list reads better than 150 quoted strings
)
_BRACKETED = r"(?:\\.|[^\[\]\\]|\[(?:\\.|[^\[\]\\])*\])*"
_PARENTHESISED = r"(?:\\.|[^()\\]|\((?:\\.|[^()\\])*\))*"
_IMAGE = re.compile(r"!\[(" + _BRACKETED + r")\]\(" + _PARENTHESISED + r"\)")
_LINK = re.compile(
    r"(?<![\\!])\[(" + _BRACKETED + r")\]\(\s*"
    r"(<[^<>\n]*>|(?:\\.|[^()\s\\]|\((?:\\.|[^()\s\\])*\))*)"
    r"(?:\s+(?:\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\((?:\\.|[^()\\])*\)))?\s*\)"
)
# Whatever inline link the pattern above could not parse: break it unless it goes to http(s).
_OTHER_LINK_OPENING = re.compile(r"\]\((?!\s*<?https?://)", re.IGNORECASE)
# `]:` could start a link reference definition, which would retarget `[n]` citations.
_DEFINITION = re.compile(r"\]:")
# A `<` that could still open HTML or a non-web autolink.
_OPENING_ANGLE = re.compile(r"<(?!https?://[^\s<>]*>)(?=[A-Za-z/!?])", re.IGNORECASE)
_MAX_PASSES = 10


def _tag_replacement(match: re.Match[str]) -> str:
    if match.group(1).lower() in _HTML_ELEMENTS:
        return ""
    return "&lt;" + match.group(0)[1:-1] + "&gt;"


def _link_replacement(match: re.Match[str]) -> str:
    target = match.group(2).strip()
    if target.startswith("<"):
        target = target[1:-1]
    return match.group(0) if _is_web_target(target) else match.group(1)


def _until_stable(pattern: re.Pattern[str], replacement: str, text: str) -> str:
    for _ in range(_MAX_PASSES):
        new = pattern.sub(replacement, text)
        if new == text:
            break
        text = new
    return text


def clean_llm_markdown(md: str) -> str:
    """Keep the LLM's Markdown structure but drop what could act on the reader.

    Headings, lists, emphasis, tables, http(s) links and `[n]` citations stay. Raw HTML
    tags are removed (script and style elements with their content); `<` before anything
    else tag-like is escaped; images become their alt text; links to anything but http(s)
    become their text; `]:` is defused so no link reference definition can retarget the
    citations. This works on the Markdown source, so it applies inside code spans too.
    """
    text = strip_control_chars(md)
    text = _until_stable(_DROP_WITH_CONTENT, "", text)
    text = _COMMENT.sub("", text)
    text = _TAG.sub(_tag_replacement, text)
    text = _until_stable(_IMAGE, r"\1", text)
    text = _LINK.sub(_link_replacement, text)
    text = _OTHER_LINK_OPENING.sub("]&#40;", text)
    text = _DEFINITION.sub("]&#58;", text)
    return _OPENING_ANGLE.sub("&lt;", text)


# ---- secrets ---------------------------------------------------------------------------

REDACTED = "[redacted]"
_SECRET = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"sk-[A-Za-z0-9_\-]{20,}"  # OpenAI-style keys (sk-..., sk-proj-..., sk-ant-...)
    r"|AIza[0-9A-Za-z_\-]{35}"  # Google API keys
    r"|gh[pousr]_[A-Za-z0-9]{30,}"  # GitHub tokens
    r"|github_pat_[A-Za-z0-9_]{30,}"
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face tokens
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}"  # Slack tokens
    r"|AKIA[0-9A-Z]{16}"  # AWS access key ids
    r")"
)


def redact_secrets(text: str) -> str:
    """Replace anything that looks like an API key or access token with `[redacted]`."""
    return _SECRET.sub(REDACTED, text)


def redact_data(value: Any, clean: Callable[[str], str] = redact_secrets) -> Any:
    """`value` (JSON-like: dicts, lists, strings) with `clean` applied to every string, keys included."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list | tuple):
        return [redact_data(v, clean) for v in value]
    if isinstance(value, dict):
        return {(clean(k) if isinstance(k, str) else k): redact_data(v, clean) for k, v in value.items()}
    return value


# ---- credentials in URLs -----------------------------------------------------------------

# Query parameters whose name contains one of these words are dropped from a shown URL
# (api_key, key, access_token, token, client_secret, password, sig, auth ...).
_SECRET_QUERY_WORDS = ("key", "token", "secret", "password", "passwd", "sig", "auth")
# A URL inside free text (an error message, a log line): scheme://... up to whitespace or a quote.
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s<>\"'`]+")


def strip_url_secrets(url: str) -> str:
    """`url` without user:password@ and without query parameters that look like credentials.

    The one helper for every URL that goes into a message, a log line, the database or a page.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return _strip_userinfo(url)
    if "@" not in parts.netloc and not parts.query:
        return url
    query = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not any(word in k.lower() for word in _SECRET_QUERY_WORDS)
    ]
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query), parts.fragment))


def _strip_userinfo(url: str) -> str:
    """Fallback for a URL `urlsplit` refuses: drop everything between `//` and the last `@` of the host part."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    host_end = len(rest)
    for mark in "/?#":
        found = rest.find(mark)
        if found >= 0:
            host_end = min(host_end, found)
    return scheme + sep + rest[:host_end].rsplit("@", 1)[-1] + rest[host_end:]


def strip_url_secrets_in_text(text: str) -> str:
    """`text` with `strip_url_secrets` applied to every URL in it (messages, errors, log lines)."""
    if "://" not in text:
        return text
    return _URL_IN_TEXT.sub(_strip_found_url, text)


def _strip_found_url(match: re.Match[str]) -> str:
    url = match.group(0)
    trail = len(url) - len(url.rstrip(".,;:!?)]}"))
    return strip_url_secrets(url[: len(url) - trail]) + url[len(url) - trail :]
