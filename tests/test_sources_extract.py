"""research_core.sources.extract: main text of the recorded pages (trafilatura), PDFs (pypdf), pages with no text."""

from __future__ import annotations

import pytest

from research_core.errors import ArborError
from research_core.sources.extract import ExtractError, extract_text, html_main_text
from research_core.sources.fetch import FetchedPage
from tests.fakes.local_web import FIXTURE_PAGES
from tests.test_search_library import pdf_bytes


def html_page(path: str, charset: str | None = "utf-8") -> FetchedPage:
    body = (FIXTURE_PAGES / path).read_bytes()
    url = f"http://127.0.0.1/{path}"
    return FetchedPage(url=url, final_url=url, kind="html", body=body, charset=charset)


def test_main_text_without_navigation_scripts_or_footer() -> None:
    page = extract_text(html_page("sqlite/wal.html"))
    assert page.title == "Write-Ahead Logging"
    assert "readers do not block writers and a writer does not block readers" in page.text
    assert "PRAGMA journal_mode=WAL" in page.text
    assert "window.analytics" not in page.text  # scripts never become text
    assert "Download" not in page.text.split("\n")[0]  # the navigation bar is not the lead


@pytest.mark.parametrize(
    "path",
    ["sqlite/when-to-use.html", "postgres/mvcc.html", "postgres/connections.html", "blog/sqlite-vs-postgres.html"],
)
def test_every_recorded_article_has_text(path: str) -> None:
    page = extract_text(html_page(path))
    assert page.title and len(page.text) > 500


def test_a_page_without_text_is_an_extract_error() -> None:
    with pytest.raises(ExtractError) as caught:
        extract_text(html_page("blog/consent-wall.html"))
    assert caught.value.reason == "empty"
    assert isinstance(caught.value, ArborError)  # a user-facing error: its message says why
    assert caught.value.user_message and str(caught.value) == caught.value.user_message


def test_page_markup_never_survives_extraction() -> None:
    page = extract_text(html_page("blog/injection.html"))
    assert "IGNORE ALL PREVIOUS INSTRUCTIONS" in page.text  # the words stay: they are data
    assert "document.location" not in page.text and "attacker.example/frame" not in page.text
    assert "<iframe" not in page.text


def test_bytes_without_a_charset_are_decoded_too() -> None:
    latin = (
        "<html><head><meta charset='iso-8859-1'><title>Caf\xe9</title></head><body><p>"
        + ("Un caf\xe9 cr\xe8me co\xfbte deux euros dans ce quartier de la ville. " * 4)
        + "</p></body></html>"
    )
    page = html_main_text(latin.encode("iso-8859-1"))
    assert "café crème" in page.text


def test_pdf_text() -> None:
    body = pdf_bytes(["Write-ahead logging lets readers continue", "while one writer commits its changes."] * 3)
    page = extract_text(FetchedPage(url="http://x/a.pdf", final_url="http://x/a.pdf", kind="pdf", body=body))
    assert "readers continue" in page.text


def test_a_pdf_without_text_or_a_broken_pdf_is_an_extract_error() -> None:
    with pytest.raises(ExtractError) as caught:
        extract_text(FetchedPage(url="u", final_url="u", kind="pdf", body=pdf_bytes([])))
    assert caught.value.reason == "empty"
    with pytest.raises(ExtractError) as caught:
        extract_text(FetchedPage(url="u", final_url="u", kind="pdf", body=b"%PDF-1.4\n1 0 obj garbage"))
    assert caught.value.reason == "unreadable"
