"""What reading one document may cost, and the checks that keep it there.

A document is untrusted input: a zip bomb named .xlsx, a PDF of thousands of pages, a sheet of a
million rows. Office files are zip containers, so their declared member sizes are checked before
any is read (Python's zipfile never inflates a member past its declared size, so the check holds);
then every reader stops at a deadline or once it has `MAX_TEXT_CHARS`, and keeps what it read
with a note saying so.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

READ_TIME_S = 30.0  # seconds one document may take to read (checked between pages, slides, rows)
MAX_TEXT_CHARS = 4_000_000  # characters kept of one document
MAX_PAGES = 2000  # pages of a PDF read
MAX_ZIP_MEMBERS = 10_000
MAX_MEMBER_BYTES = 64 * 1024 * 1024  # one part of an Office file, inflated
MAX_UNZIPPED_BYTES = 256 * 1024 * 1024  # all parts, inflated
MAX_RATIO = 200  # inflated / compressed size of a part over 1 MB


class DocumentError(Exception):
    """A document that cannot be read; the message is one line saying why and what to do."""


@dataclass
class Budget:
    """The time and characters left for reading one document; `cut` says why reading stopped early."""

    deadline: float = field(default_factory=lambda: time.monotonic() + READ_TIME_S)
    chars_left: int = MAX_TEXT_CHARS
    cut: str = ""

    def spent(self) -> bool:
        """True once the time or the characters are used up (and `cut` says which)."""
        if not self.cut and time.monotonic() > self.deadline:
            self.cut = f"the {READ_TIME_S:g} s reading limit was reached"
        elif not self.cut and self.chars_left <= 0:
            self.cut = f"the {MAX_TEXT_CHARS:,}-character limit was reached"
        return bool(self.cut)

    def take(self, text: str) -> str:
        """Count `text` against the characters left; return it, cut to what is left."""
        kept = text[: max(0, self.chars_left)]
        self.chars_left -= len(text)
        return kept

    @property
    def note(self) -> str:
        """What the reader says of a document a limit cut short ("" when it was read whole)."""
        return f"indexed in part: {self.cut}." if self.cut else ""


@contextmanager
def damaged_as(name: str, what: str) -> Iterator[None]:
    """Turn whatever a reader library raises on a damaged file into one DocumentError line
    (`what` with its article: "a Word document")."""
    try:
        yield
    except DocumentError:
        raise
    except Exception as exc:  # the Office readers raise many kinds on a damaged file
        raise DocumentError(f"'{name}' is damaged: it could not be read as {what} ({type(exc).__name__}).") from None


def check_zip(name: str, data: bytes, what: str) -> None:
    """Refuse an Office file whose zip container is not one, or would inflate past the limits."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DocumentError(f"'{name}' is damaged: it is not a readable {what} ({exc}).") from None
    if len(members) > MAX_ZIP_MEMBERS:
        raise DocumentError(f"'{name}' holds {len(members):,} parts; a {what} this large is refused.")
    total = 0
    for member in members:
        total += member.file_size
        bomb = member.file_size > 1024 * 1024 and member.file_size > MAX_RATIO * max(1, member.compress_size)
        if bomb or member.file_size > MAX_MEMBER_BYTES:
            raise DocumentError(
                f"'{name}' has a part that would inflate to {member.file_size / 1024 / 1024:,.0f} MB "
                "(a zip bomb?); refused without reading it."
            )
        if total > MAX_UNZIPPED_BYTES:
            raise DocumentError(
                f"'{name}' would inflate to more than {MAX_UNZIPPED_BYTES // 1024 // 1024} MB; "
                "refused without reading it."
            )
