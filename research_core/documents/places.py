"""Where in a document a passage is: a page of a PDF, a slide of a deck, rows of a sheet, a section.

A place travels with a library passage as a URL fragment (`report.pdf#page=12`), so two passages
of one document at different places are two sources, each cited at its own place, and its label
("p. 12") is added to the source's title, which every view of a source shows. PDF viewers open
`#page=12` at that page.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import parse_qs, quote

from pydantic import BaseModel, ConfigDict, Field

PlaceKind = Literal["page", "slide", "sheet", "section"]


class Place(BaseModel):
    """A page or slide (by number), a sheet (by name, with its first and last row), or a section (by heading)."""

    model_config = ConfigDict(frozen=True)

    kind: PlaceKind
    number: int | None = Field(default=None, description="page or slide number, from 1")
    name: str = Field(default="", description="sheet name or section heading")
    first_row: int | None = None
    last_row: int | None = None

    def fragment(self) -> str:
        """The URL fragment (without `#`): `page=12`, `slide=3`, `sheet=Sales&rows=2-41`, `section=Setup`."""
        if self.kind in ("page", "slide"):
            return f"{self.kind}={self.number}"
        parts = [f"{self.kind}={quote(self.name, safe='')}"] if self.name or self.kind == "section" else []
        if self.first_row is not None:
            parts.append(f"rows={self.first_row}-{self.last_row or self.first_row}")
        return "&".join(parts)

    def label(self) -> str:
        """How a reader names the place: `p. 12`, `slide 3`, `sheet Sales, rows 2–41`, `section “Setup”`."""
        if self.kind == "page":
            return f"p. {self.number}"
        if self.kind == "slide":
            return f"slide {self.number}"
        if self.kind == "section":
            return f"section “{self.name}”"
        rows = ""
        if self.first_row is not None:
            last = self.last_row or self.first_row
            rows = f"row {self.first_row}" if last == self.first_row else f"rows {self.first_row}–{last}"
        sheet = f"sheet {self.name}" if self.name else ""
        return ", ".join(part for part in (sheet, rows) if part)


class Segment(BaseModel):
    """A stretch of a document's text and the place it comes from (None: no finer place than the file)."""

    place: Place | None = None
    text: str


def place_from_fragment(fragment: str) -> Place | None:
    """The place a fragment written by `Place.fragment` names, or None for any other fragment."""
    try:
        fields = {key: values[0] for key, values in parse_qs(fragment, keep_blank_values=True).items()}
    except ValueError:
        return None
    rows = fields.get("rows", "")
    first, _, last = rows.partition("-")
    first_row = int(first) if first.isdigit() else None
    last_row = int(last) if last.isdigit() else first_row
    for kind in ("page", "slide"):
        if fields.get(kind, "").isdigit():
            return Place(kind=kind, number=int(fields[kind]))
    if "section" in fields:
        return Place(kind="section", name=fields["section"])
    if "sheet" in fields or first_row is not None:
        return Place(kind="sheet", name=fields.get("sheet", ""), first_row=first_row, last_row=last_row)
    return None
