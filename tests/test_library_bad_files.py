"""Bad files in the library: each is refused (or indexed in part) with one clear line, fast, and the batch goes on."""

from __future__ import annotations

import io
import time
import tracemalloc
import zipfile

import pypdf
import pytest

from research_core.cli.main import main
from research_core.documents import limits
from research_core.search.library import DocumentLibrary, LibraryError
from tests.office_files import docx_file, pdf_file, pptx_file, xlsx_file
from tests.test_app_pages import app, button, no_exception, open_page, texts

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def encrypted_pdf(user_password: str = "secret", algorithm: str = "AES-256") -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(pdf_file(["Confidential salaries."])))
    writer.encrypt(user_password, owner_password="owner", algorithm=algorithm)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def scanned_pdf(pages: int) -> bytes:
    """A PDF of blank pages: no text layer, as a scan without OCR."""
    writer = pypdf.PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def zip_bomb(inflated_mb: int = 300) -> bytes:
    """A tiny .xlsx-shaped zip whose sheet inflates to `inflated_mb` MB of spaces."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member:
            block = b" " * (1024 * 1024)
            for _ in range(inflated_mb):
                member.write(block)
    return out.getvalue()


def truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def refusal(name: str, data: bytes) -> tuple[str, float, int]:
    """The one-line message a file is refused with, the seconds it took, and the peak memory (bytes) traced."""
    tracemalloc.start()
    start = time.monotonic()
    try:
        with pytest.raises(LibraryError) as caught:
            from research_core.documents.parsing import parse_document

            parse_document(name, data)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    message = str(caught.value)
    assert "\n" not in message and name in message
    return message, time.monotonic() - start, peak


@pytest.mark.parametrize("algorithm", ["AES-256", "AES-128", "RC4-128"])
def test_an_encrypted_pdf_is_refused(algorithm: str) -> None:
    message, seconds, _ = refusal("salaries.pdf", encrypted_pdf(algorithm=algorithm))
    assert message == "'salaries.pdf' is password-protected; save an unprotected copy and add that." and seconds < 5


def test_a_pdf_that_only_restricts_printing_is_indexed(tmp_path) -> None:
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_bytes("restricted.pdf", encrypted_pdf(user_password=""))
    assert library.search("confidential salaries", 1)[0].url == "library://restricted.pdf#page=1"


def test_a_corrupt_docx_is_refused() -> None:
    message, _, _ = refusal("minutes.docx", truncated(docx_file({"Minutes": ["We met."]})))
    assert "is damaged" in message and "Word document" in message


def test_a_docx_zip_without_a_document_is_refused() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("hello.txt", "not a Word document")
    message, _, _ = refusal("fake.docx", out.getvalue())
    assert "is damaged: it could not be read as a Word document" in message


def test_a_password_protected_office_file_is_refused() -> None:
    message, _, _ = refusal("budget.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)
    assert "password-protected or in the old Excel workbook format" in message


def test_a_500_page_scan_without_text_is_refused_quickly() -> None:
    message, seconds, _ = refusal("archive-scan.pdf", scanned_pdf(500))
    assert "no text layer on any of its 500 page(s)" in message and "OCR" in message
    assert seconds < 20


def test_a_zip_bomb_named_xlsx_is_refused_without_inflating_it() -> None:
    bomb = zip_bomb()
    assert len(bomb) < 2 * 1024 * 1024
    message, seconds, peak = refusal("quarter.xlsx", bomb)
    assert "zip bomb" in message and "refused without reading it" in message
    assert seconds < 2 and peak < 20 * 1024 * 1024


def test_a_file_of_another_type_with_a_pdf_extension_is_refused() -> None:
    message, _, _ = refusal("invoice.pdf", PNG)
    assert "is not a PDF: it looks like a PNG image" in message
    message, _, _ = refusal("deck.pptx", pdf_file(["not a deck"]))
    assert "is not a PowerPoint deck: its content does not match its extension" in message


def mixed_pdf() -> bytes:
    """Four pages: text, two without a text layer, text."""
    typed = pypdf.PdfReader(io.BytesIO(pdf_file(["Typed page about tides.", "Typed page about moons."])))
    writer = pypdf.PdfWriter()
    writer.add_page(typed.pages[0])
    writer.add_blank_page(612, 792)
    writer.add_blank_page(612, 792)
    writer.add_page(typed.pages[1])
    mixed = io.BytesIO()
    writer.write(mixed)
    return mixed.getvalue()


def test_a_pdf_with_some_scanned_pages_is_indexed_with_a_note(tmp_path) -> None:
    library = DocumentLibrary(tmp_path / "arbor.db")
    doc = library.add_bytes("mixed.pdf", mixed_pdf())
    assert doc.note == "2 of 4 page(s) have no text layer (scanned?) and were skipped."
    assert library.search("moons", 1)[0].url.endswith("#page=4")


def test_a_document_over_the_page_limit_is_indexed_in_part_with_a_note(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_PAGES", 2)
    monkeypatch.setattr("research_core.documents.pdf_pages.MAX_PAGES", 2)
    library = DocumentLibrary(tmp_path / "arbor.db")
    doc = library.add_bytes("long.pdf", pdf_file(["alpha page", "bravo page", "charlie page"]))
    assert doc.note == "indexed 2 page(s) with text up to p. 2 of 3: only the first 2 pages are read."
    assert library.search("charlie", 5) == []


def test_the_time_limit_stops_reading_and_keeps_what_was_read(monkeypatch) -> None:
    budget = limits.Budget(deadline=time.monotonic() - 1)
    assert budget.spent() and budget.cut == f"the {limits.READ_TIME_S:g} s reading limit was reached"
    monkeypatch.setattr(limits, "READ_TIME_S", 0.0)
    rows = [["n", "word"]] + [[n, f"word{n}"] for n in range(2000)]
    with pytest.raises(LibraryError, match=r"has no text to add|indexed in part"):
        from research_core.documents.parsing import parse_document

        parse_document("big.xlsx", xlsx_file({"Data": rows}))


def test_a_batch_with_bad_files_indexes_the_good_ones(tmp_path, capsys) -> None:
    files = {
        "good.pdf": pdf_file(["Tidal energy in the Severn estuary."]),
        "salaries.pdf": encrypted_pdf(),
        "minutes.docx": truncated(docx_file({"Minutes": ["We met."]})),
        "scan.pdf": scanned_pdf(3),
        "quarter.xlsx": zip_bomb(),
        "invoice.pdf": PNG,
        "good.pptx": pptx_file([("Wind", "Offshore wind farms in the North Sea.")]),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    db = tmp_path / "arbor.db"
    code = main(["library", "add", *(str(tmp_path / name) for name in files), "--db", str(db)])
    captured = capsys.readouterr()
    assert code == 2
    assert len(captured.out.splitlines()) == 2 and "good.pdf" in captured.out and "good.pptx" in captured.out
    errors = captured.err.strip().splitlines()
    assert len(errors) == 5 and all(line.startswith("arbor: ") for line in errors)
    library = DocumentLibrary(db)
    assert sorted(d.name for d in library.list_documents()) == ["good.pdf", "good.pptx"]
    assert library.search("offshore wind", 1)[0].url.endswith("good.pptx#slide=1")


def test_the_library_page_adds_the_good_uploads_and_says_what_happened_to_the_others(env: dict) -> None:
    at = open_page(app(), "app_pages/library.py")
    at.get("file_uploader")[0].set_value(
        [
            ("wind.pptx", pptx_file([("Wind", "Offshore wind farms.")]), "application/octet-stream"),
            ("quarter.xlsx", zip_bomb(), "application/octet-stream"),
            ("mixed.pdf", mixed_pdf(), "application/pdf"),
        ]
    )
    at.run()
    button(at, "Add to library").click().run()
    no_exception(at)
    assert "Added wind.pptx" in texts(at.success) and "Added mixed.pdf" in texts(at.success)
    assert "zip bomb" in texts(at.error)
    assert "mixed.pdf: 2 of 4 page(s) have no text layer" in texts(at.warning)
    assert DocumentLibrary(env["db"]).count() == 5
    notes = dict(zip(at.dataframe[0].value["title"], at.dataframe[0].value["note"], strict=True))
    assert notes["wind"] == "" and notes["Typed page about tides."].startswith("2 of 4 page(s) have no text layer")
