"""A manual page is indexed section by section: a passage starts at a heading, a long section's
later passages open with its heading, and a search for an entry's name finds the entry's own text."""

from __future__ import annotations

from research_core.documents.chunks import CHUNK_CHARS, section_passages
from research_core.documents.parsing import located_chunks, parse_document
from research_core.search.library import DocumentLibrary

FILLER = "This paragraph describes the options of the entry in some detail, one after another. " * 4


def _page() -> str:
    read_file = "<h3>fs.readFile(path)</h3><p>Asynchronously reads the entire contents of a file.</p>"
    options = "".join(f"<p>Option {i}: {FILLER}</p>" for i in range(12))
    stream = (
        "<h3>fs.createReadStream(path[, options])</h3>"
        f"{options}"
        "<p>Unlike the 16 KiB default highWaterMark for a readable stream, the stream returned by this "
        "method has a default highWaterMark of 64 KiB.</p>"
    )
    return f"<html><head><title>File system</title></head><body><h1>File system</h1>{read_file}{stream}</body></html>"


def test_a_long_sections_later_passages_open_with_its_heading():
    parsed = parse_document("fs.html", _page().encode())
    passages = [text for _, text in located_chunks(parsed)]
    stream = [p for p in passages if "highWaterMark" in p or "Option" in p]
    assert len(stream) >= 3
    assert all(p.startswith("fs.createReadStream(path[, options])") for p in stream)
    assert all(len(p) <= CHUNK_CHARS for p in passages)
    # the short entry before it is not cut off from its heading, nor run into the long one
    assert any(p.startswith("File system") and "fs.readFile(path)" in p and "Option" not in p for p in passages)


def test_a_search_for_an_entry_finds_its_passage_under_its_name(tmp_path):
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_bytes("fs.html", _page().encode())
    hits = library.search("createReadStream highWaterMark", 1)
    assert hits and hits[0].snippet.startswith("fs.createReadStream(path[, options])")
    assert "64 KiB" in hits[0].snippet


def test_small_sections_are_packed_and_text_before_the_first_heading_is_kept():
    blocks = [(False, "Intro."), (True, "A"), (False, "one"), (True, "B"), (False, "two")]
    assert section_passages(blocks, 40) == ["Intro.\n\nA\n\none\n\nB\n\ntwo"]
    assert section_passages(blocks, 12) == ["Intro.", "A\n\none", "B\n\ntwo"]
