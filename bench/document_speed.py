"""Documents in and out: export times of a long report, library indexing speed per format, HTML extraction.

`.venv/bin/python -m bench.document_speed [export|index|html ...]` (all three by default)

1. export: a long hierarchical report (12 branches, 80 sources, about 17,000 words, quotes behind
   every citation) exported as Markdown, HTML, PDF (WeasyPrint) and Word (python-docx): seconds
   each (best of 3) and the PDF's pages.
2. index: `DocumentLibrary.add_bytes` on generated files (a 200-page PDF, a Word file of 200
   sections of about a page each, a 200-slide deck, a 50,000-row workbook and CSV) and on the PDF
   manuals Debian installs under /usr/share/doc: pages (slides, rows) per second.
3. html: the library's HTMLParser (`html_to_text`) against the fetched-page extractor (trafilatura
   with the HTMLParser as fallback, `html_main_text`) on the HTML manuals under /usr/share/doc
   (PostgreSQL 15, SQLite, Python 3.11). Each page's reference text is its main content (the
   manual's own content element, navigation removed); "kept" is the share of the reference's words
   the extractor kept, "noise" the share of its words that are not in the reference (menus,
   navigation bars, footers), both counted as word bags over all pages; and pages per second.

Figures only; nothing fails on timing. The machine's load average is printed first.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import lxml.etree
import lxml.html

from research_core.documents.html_text import html_to_text
from research_core.runs.records import RunResult
from research_core.schemas import CostTotals, Finding, Source, SubQuestion, SynthesisSummary
from research_core.search.library import DocumentLibrary

MANUALS = {
    "PostgreSQL 15": (Path("/usr/share/doc/postgresql-doc-15/html"), "//div[@class='navheader' or @class='navfooter']"),
    "SQLite": (Path("/usr/share/doc/sqlite3"), "//div[contains(@class,'nosearch') or contains(@class,'menu')]"),
    "Python 3.11": (Path("/usr/share/doc/python3.11/html"), "//a[@class='headerlink']"),
}
PDF_MANUALS = [
    Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"),
]
WORD = re.compile(r"\w+")
PARAGRAPH = (
    "Write-ahead logging lets readers continue while one writer commits, and checkpoints move the "
    "log back into the database file; a busy timeout makes a second writer wait instead of failing. "
)


def best_of(runs: int, job: Callable[[], object]) -> tuple[float, object]:
    """The fastest of `runs` timings of `job`, and its last result."""
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = job()
        times.append(time.perf_counter() - start)
    return min(times), result


# ---- 1. export -----------------------------------------------------------------------------------


def long_report(branches: int = 12, sources_per_branch: int = 7) -> RunResult:
    """A finished hierarchical run with long branch answers, many sources and a quote behind each citation."""
    sources = [
        Source.make(
            f"https://docs.example.org/page-{n}", f"Manual page {n}", PARAGRAPH, 0.8, "ddg", f"sq_{n % branches:03d}"
        )
        for n in range(1, branches * sources_per_branch + 1)
    ][:80]
    subs = []
    for b in range(branches):
        cited = range(b * 6 + 1, b * 6 + 7)
        synthesis = "\n\n".join(
            f"### Part {p}\n\n"
            + " ".join(f"{PARAGRAPH.strip()} [{n}]" for n in cited)
            + "\n\n- A point [1]\n- Another [2]"
            for p in range(1, 4)
        )
        findings = [
            Finding(
                id=f"f_{b}_{n}",
                sub_question_id=f"sq_{b:03d}",
                text=PARAGRAPH,
                confidence=0.7,
                source_ids=[sources[n - 1].id],
                quote=PARAGRAPH[:150],
                location=sources[n - 1].url,
            ).model_dump()
            for n in cited
        ]
        sq = SubQuestion(
            id=f"sq_{b:03d}",
            question_text=f"Branch question {b}?",
            priority=0.5,
            status="completed",
            synthesis=synthesis,
            confidence=0.7,
            allocated_iterations=3,
            iteration_count=3,
        )
        subs.append(sq.model_dump() | {"findings": findings})
    answer = "\n\n".join(f"## Section {s}\n\n" + (PARAGRAPH + f"[{s}] ") * 6 for s in range(1, 11))
    return RunResult(
        run_id="bench-long",
        question="How do SQLite and PostgreSQL handle concurrent writers?",
        status="completed",
        mode="hierarchical",
        final_answer=answer,
        hierarchical_synthesis=answer,
        synthesis=SynthesisSummary(
            approach="hierarchical",
            decomposition_strategy="comparison",
            sub_questions_count=branches,
            total_iterations=36,
            total_findings=72,
            total_sources=len(sources),
            sub_syntheses=[],
        ),
        sub_questions=subs,
        sources=sources,
        costs=CostTotals(
            total_usd=0.05,
            tokens_in=90000,
            tokens_out=20000,
            llm_calls=40,
            by_node={},
            by_branch={},
            by_model={},
            entries=[],
        ),
        warnings=[],
        log=[],
        started_at="2026-11-24T10:00:00+00:00",
        finished_at="2026-11-24T10:20:00+00:00",
        duration_s=1200.0,
    )


def bench_export() -> None:
    from pypdf import PdfReader

    from research_core.output.export import render_export, to_markdown

    result = long_report()
    words = len(to_markdown(result).split())
    print(
        f"\n## Export of a long report ({len(result.sub_questions)} branches, {len(result.sources)} sources, "
        f"{words:,} words of Markdown)"
    )
    render_export(result, "pdf")  # WeasyPrint's first use loads fonts: not counted
    for fmt in ("md", "html", "pdf", "docx"):
        seconds, content = best_of(3, lambda fmt=fmt: render_export(result, fmt))
        size = len(content) if isinstance(content, bytes) else len(content.encode())
        extra = f", {len(PdfReader(io.BytesIO(content)).pages)} pages" if fmt == "pdf" else ""
        print(f"{fmt:>5}: {seconds:6.2f} s  ({size / 1024:,.0f} KB{extra})")


# ---- 2. index ------------------------------------------------------------------------------------


def generated_files() -> list[tuple[str, bytes, int, str]]:
    """(name, bytes, units, unit) of each generated file."""
    from tests.office_files import docx_file, pdf_file, pptx_file, xlsx_file

    page = (PARAGRAPH * 14).strip()  # about 2,900 characters: a page of text
    rows = [["id", "region", "product", "units", "note"]] + [
        [n, f"region {n % 17}", f"product {n % 101}", n * 3, "shipped on time"] for n in range(50_000)
    ]
    csv_text = "\n".join(",".join(str(c) for c in row) for row in rows).encode()
    return [
        ("generated.pdf", pdf_file([f"Page {n}. {page}" for n in range(200)]), 200, "pages"),
        ("generated.docx", docx_file({f"Section {n}": [page] for n in range(200)}), 200, "sections"),
        ("generated.pptx", pptx_file([(f"Slide {n}", PARAGRAPH * 3) for n in range(200)]), 200, "slides"),
        ("generated.xlsx", xlsx_file({"Data": rows}), 50_000, "rows"),
        ("generated.csv", csv_text, 50_000, "rows"),
    ]


def bench_index() -> None:
    from pypdf import PdfReader

    files = generated_files()
    for path in PDF_MANUALS:
        if path.is_file():
            data = path.read_bytes()
            files.append((path.name, data, len(PdfReader(io.BytesIO(data)).pages), "pages"))
    print("\n## Library indexing speed (add_bytes: read, chunk, store in FTS5; best of 3)")
    with tempfile.TemporaryDirectory() as tmp:
        library = DocumentLibrary(Path(tmp) / "bench.db")
        for name, data, units, unit in files:
            seconds, doc = best_of(3, lambda name=name, data=data: library.add_bytes(name, data))
            print(
                f"{name:>28}: {units:>6,} {unit:<8} {seconds:6.2f} s  {units / seconds:8,.0f} {unit}/s  "
                f"({len(data) / 1024:,.0f} KB, {doc.chunks:,} passages){'  note: ' + doc.note if doc.note else ''}"
            )


# ---- 3. html -------------------------------------------------------------------------------------


def reference_text(raw: str, boilerplate: str) -> str:
    """A manual page's main content: its content element, navigation and scripts removed."""
    try:
        root = lxml.html.document_fromstring(raw.encode("utf-8"))
    except (lxml.etree.ParserError, ValueError):
        return ""
    for node in root.xpath(boilerplate + " | //script | //style | //head"):
        node.getparent().remove(node)
    main = root.xpath("//div[@role='main']")
    return (main[0] if main else root).text_content()


def bench_html(limit: int) -> None:
    from research_core.sources.extract import html_main_text

    print("\n## HTML: the library's HTMLParser against trafilatura (the fetched-page extractor)")
    for manual, (folder, boilerplate) in MANUALS.items():
        pages = sorted(folder.rglob("*.html"))[:limit]
        if not pages:
            print(f"{manual}: not installed ({folder})")
            continue
        raws = [p.read_text(encoding="utf-8", errors="replace") for p in pages]
        reference = Counter(w for raw in raws for w in WORD.findall(reference_text(raw, boilerplate).lower()))
        for name, extract in (
            ("HTMLParser", lambda raw: html_to_text(raw)[1]),
            ("trafilatura", lambda raw: html_main_text(raw, "file:///manual.html").text),
        ):
            start = time.perf_counter()
            texts = [extract(raw) for raw in raws]
            seconds = time.perf_counter() - start
            got = Counter(w for text in texts for w in WORD.findall(text.lower()))
            shared = sum((got & reference).values())
            kept, noise = shared / max(1, sum(reference.values())), 1 - shared / max(1, sum(got.values()))
            print(
                f"{manual:>13} {name:<11}: {len(pages):4} pages  kept {kept:6.1%}  noise {noise:6.1%}  "
                f"{len(pages) / seconds:7.1f} pages/s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("parts", nargs="*", help="export, index and/or html (default: all three)")
    parser.add_argument("--pages", type=int, default=2000, help="at most this many HTML pages per manual")
    args = parser.parse_args()
    unknown = set(args.parts) - {"export", "index", "html"}
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    args.parts = args.parts or ["export", "index", "html"]
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if "export" in args.parts:
        bench_export()
    if "index" in args.parts:
        bench_index()
    if "html" in args.parts:
        bench_html(args.pages)


if __name__ == "__main__":
    main()
