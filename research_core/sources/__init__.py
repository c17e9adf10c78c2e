"""Reading what search found: safe page fetching, text extraction, passage selection and the page cache.

`reader.read_sources` is the one entry point the research loop calls; the modules below it are
leaves that can be used (and tested) alone: `fetch` (SSRF-safe HTTP), `extract` (HTML and PDF
to text), `passages` (splitting and BM25 ranking) and `cache` (page text by URL in the run
database).
"""
