"""research_core.sources.pdf: a PDF's first pages within page, time and character limits."""

from __future__ import annotations

import pytest

from research_core.sources.pdf import PdfUnreadable, bounded_pdf_text
from tests.fakes.hostile import many_page_pdf


def test_only_the_first_pages_are_read() -> None:
    text = bounded_pdf_text(many_page_pdf(40, words=5), max_chars=1_000_000, max_pages=10)
    assert text.text.count("word0") == 10 and text.cut


def test_reading_stops_at_the_character_budget_and_the_time_limit() -> None:
    by_chars = bounded_pdf_text(many_page_pdf(40, words=5), max_chars=60)
    assert by_chars.text.count("word0") < 40 and by_chars.cut
    by_time = bounded_pdf_text(many_page_pdf(40, words=5), max_chars=1_000_000, time_s=0.0)
    assert by_time.cut


def test_a_short_pdf_is_read_whole() -> None:
    text = bounded_pdf_text(many_page_pdf(3, words=5), max_chars=1_000_000)
    assert text.text.count("word4") == 3 and not text.cut


def test_garbage_is_unreadable() -> None:
    with pytest.raises(PdfUnreadable) as caught:
        bounded_pdf_text(b"%PDF-1.4\n1 0 obj garbage", max_chars=100)
    assert not caught.value.empty
