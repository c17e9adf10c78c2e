"""The visible text and title of an HTML page, navigation apart (standard library parser only).

The library reads HTML files with it, and page extraction falls back on it when trafilatura finds
no main text.
"""

from __future__ import annotations

from html.parser import HTMLParser


class _HTMLText(HTMLParser):
    """Collects the visible text and the <title> of an HTML page, navigation apart.

    Navigation (`<nav>`, or an element with role navigation or search) is collected on its own and
    left out of the text, unless that leaves under `MIN_MAIN_CHARS` characters (an unclosed `<nav>`
    swallowing the rest of the page, or a page that is all links).
    """

    SKIP = frozenset({"script", "style", "noscript", "template", "svg"})
    NAVIGATION_ROLES = frozenset({"navigation", "search"})
    MIN_MAIN_CHARS = 200  # less text than this outside navigation: keep the navigation's text too
    VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})
    BLOCKS = frozenset(
        {
            "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
            "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
            "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
        }
    )  # fmt: skip
    BREAK = "\x1e"
    HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
    # opens a heading's block; a private-use character, since str.split() counts \x1c-\x1f as spaces
    HEADING_MARK = "\ue000"

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self.h1_parts: list[str] = []
        self.navigation_parts: list[str] = []
        self._skip = 0
        self._nav_tag: str | None = None
        self._nav_depth = 0
        self._in_title = False
        self._in_h1 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = not self._skip and not self.title_parts
        elif tag in self.SKIP:
            self._skip += 1
        elif tag == "h1":
            self._in_h1 = True
        self._enter_navigation(tag, attrs)
        if tag in self.BLOCKS:
            self._out().append(self.BREAK)
        if tag in self.HEADINGS:
            self._out().append(self.HEADING_MARK)

    def _enter_navigation(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._nav_tag is not None:
            self._nav_depth += tag == self._nav_tag
        elif tag not in self.VOID and (tag == "nav" or dict(attrs).get("role") in self.NAVIGATION_ROLES):
            self._nav_tag, self._nav_depth = tag, 1

    def _out(self) -> list[str]:
        return self.navigation_parts if self._nav_tag is not None else self.parts

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self.SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag == "h1":
            self._in_h1 = False
        if tag in self.BLOCKS:
            self._out().append(self.BREAK)
        if tag == self._nav_tag:
            self._nav_depth -= 1
            if self._nav_depth <= 0:
                self._nav_tag = None

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.BLOCKS:
            self._out().append(self.BREAK)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
            return
        if self._skip:
            return
        data = data.replace(self.BREAK, " ").replace(self.HEADING_MARK, " ")
        self._out().append(data)
        if self._in_h1:
            self.h1_parts.append(data)

    def text(self) -> str:
        return "\n\n".join(text for _, text in self.blocks())

    def blocks(self) -> list[tuple[bool, str]]:
        """(is a heading, text) of each block of visible text, in order."""
        main = self._blocks(self.parts)
        if self.navigation_parts and len("\n\n".join(t for _, t in main)) < self.MIN_MAIN_CHARS:
            return self._blocks([*self.parts, self.BREAK, *self.navigation_parts])
        return main

    def _blocks(self, parts: list[str]) -> list[tuple[bool, str]]:
        out = []
        for raw in "".join(parts).split(self.BREAK):
            heading = self.HEADING_MARK in raw
            text = " ".join(raw.replace(self.HEADING_MARK, " ").split())
            if text:
                out.append((heading, text))
        return out

    def title(self) -> str:
        return " ".join("".join(self.title_parts).split()) or " ".join("".join(self.h1_parts).split())


def html_to_text(html: str) -> tuple[str, str]:
    """(title, visible text) of an HTML page; scripts and styles are dropped."""
    parser = _parsed(html)
    return parser.title(), parser.text()


def html_blocks(html: str) -> tuple[str, list[tuple[bool, str]]]:
    """(title, [(is a heading, text)]) of an HTML page: its visible text block by block, headings
    (`<h1>`-`<h6>`) marked, so the library can cut the page into sections."""
    parser = _parsed(html)
    return parser.title(), parser.blocks()


def _parsed(html: str) -> _HTMLText:
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return parser
