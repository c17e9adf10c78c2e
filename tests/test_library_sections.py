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


def _page_with_contents() -> str:
    line = "about parsing documents into lexemes, one step after another."
    filler = "".join(f"<p>Paragraph {i} {line}</p>" for i in range(18))
    return (
        "<html><head><title>12.3. Controlling Text Search</title></head><body>"
        "<h2>12.3. Controlling Text Search</h2>"
        "<dl><dt><a href='#a'>12.3.1. Parsing Documents</a></dt><dt><a href='#b'>12.3.2. Parsing Queries</a></dt>"
        "<dt><a href='#c'>12.3.3. Ranking Search Results</a></dt></dl>"
        "<p>To implement text searching there must be a function to create a document vector.</p>"
        f"<h3 id='a'>12.3.1. Parsing Documents</h3>{filler}"
        f"<h3 id='b'>12.3.2. Parsing Queries</h3>{filler.replace('documents', 'queries')}"
        "<h3 id='c'>12.3.3. Ranking Search Results</h3>"
        "<p>Ranking attempts to measure how relevant documents are to a particular query, so that when "
        "there are many matches the most relevant ones can be shown first.</p>"
        "</body></html>"
    )


def test_a_pages_own_table_of_contents_is_left_out_of_its_passages():
    parsed = parse_document("textsearch-controls.html", _page_with_contents().encode())
    passages = [text for _, text in located_chunks(parsed)]
    opening = passages[0]
    assert "To implement text searching" in opening
    assert "Ranking Search Results" not in opening and "Parsing Queries" not in opening
    # each heading still opens its own section
    assert any(p.startswith("12.3.3. Ranking Search Results\n\nRanking attempts") for p in passages)


def test_a_search_for_a_sections_topic_finds_that_section_not_the_pages_contents(tmp_path):
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_bytes("textsearch-controls.html", _page_with_contents().encode())
    hits = library.search("ranking search results", 1)
    assert hits and hits[0].snippet.startswith("12.3.3. Ranking Search Results")


def test_a_parameters_term_is_never_cut_from_its_description():
    """PostgreSQL's runtime-config pages set each parameter's term on a line of its own (a <dt>), above
    its description; a passage ending at the term left the next passage's "Specifies a fraction of the
    table size to add to autovacuum_vacuum_threshold" without its parameter, and the model gave it to
    autovacuum_vacuum_threshold."""
    entries = "".join(
        f"<dl><dt>setting_number_{i} (integer)</dt><dd><p>Sets the value of number {i}. {FILLER}</p></dd></dl>"
        for i in range(8)
    )
    page = f"<html><head><title>Settings</title></head><body><h2>20.10. Settings</h2>{entries}</body></html>"
    passages = [text for _, text in located_chunks(parse_document("settings.html", page.encode()))]
    assert len(passages) >= 3
    for passage in passages:
        assert not passage.rstrip().endswith("(integer)")
    for i in range(8):
        holding = [p for p in passages if f"Sets the value of number {i}." in p]
        assert holding and f"setting_number_{i} (integer)" in holding[0]
