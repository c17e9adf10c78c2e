"""Retrieval on its own: do the library searches the engine makes before any model call return the
pages a careful researcher would cite?

For each question of a corpus (`bench/research_quality.py`, `--corpus databases|servers`), the
searches are the ones the engine writes by code for a branch's first iteration with the local
model (`research_core/research/step.py`):
- the question as a flat run's branch: `first_queries` of its evidence topic (the question, then
  one keyword query per named option), with the question's frame words (`with_frame`);
- for a multi-part question (`parts` > 1), also one branch per clause (`question_parts`), since
  the plan gives every clause a sub-question of its own (`planning/plan.py` `cover_question_parts`):
  the clause made to stand alone with the question's subjects and frame words (`evidence_topic`),
  its `first_queries`, with the frame words appended.
Each query goes through `DocumentLibrary(db).search(query, k)`; `k` defaults to the engine's
`max_results_per_query` (5). No model is started. "kept" counts the labelled pages a branch's first
step would show the embedded model: its queries' results merged best first, less those the
relevance gate refuses, cut at the embedded model's `sources_per_prompt` (5).

Per question: how many of its `aspects` occur in the returned passages and in the part of each
passage an extraction prompt for the embedded model shows, how many of its labelled `pages` any
of these searches returned (recall), from the
question's own queries alone ("flat") and with the clauses' ("all"); for each page missed, its best
rank over the same queries at the deepest the library serves (20; "-" when never); and among the
distinct results, the navigation pages (indexes, site maps, tables of contents, change logs: judged
on title and address alone) and the other results whose returned passage the detector calls
navigation (judged on the passage's text too: "link lists"), with the labelled pages among them.
The detector is the engine's `research_core.research.navigation.navigation_reason` when it exists,
else the local `fallback_navigation_reason`, which reads no text (the output says which).

`--runs FILE.json` (written by `bench.research_quality --json`): per run, how many of its
question's labelled pages the run cited (the row's `source_urls`, which older files lack), and how
many the first steps of the run's own sub-questions, as its model wrote them, would show the model
with today's searches ("kept" for that decomposition).

Run: nice -n 19 .venv/bin/python -m bench.retrieval --corpus databases [--k 5] [--runs FILE.json] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from bench.research_quality import CORPORA, Corpus, labelled_pages, load_questions
from research_core.configuration import RunConfig
from research_core.llm.model_settings import EMBEDDED_MODEL_SETTINGS
from research_core.planning.question_shape import frame_terms, question_parts, with_frame
from research_core.research.first_queries import first_queries
from research_core.research.own_documentation import question_products
from research_core.research.quotes import statements_of
from research_core.research.searching import keep_relevant, run_searches
from research_core.research.step import evidence_topic
from research_core.schemas import FLAT_BRANCH_ID, SubQuestion
from research_core.search.base import MAX_RESULTS_PER_QUERY
from research_core.search.library import DocumentLibrary
from research_core.services import Services
from research_core.text.windows import best_window
from research_core.text.words import folded

_FALLBACK_TITLE = re.compile(
    r"\b(site ?map|table of contents|contents|index|change ?logs?|release notes|what'?s new)\b", re.IGNORECASE
)
_FALLBACK_FILE = re.compile(
    r"^(gen|book|site|py-mod|mod)?index|^sitemap|^toc|^contents|^changes|^changelog|^release", re.IGNORECASE
)


def fallback_navigation_reason(title: str, url: str, text: str = "") -> str | None:
    """A page is navigation when its title names an index, site map, contents or change log, or its
    file name is one of the usual names for such a page; `text` is not read."""
    if _FALLBACK_TITLE.search(title):
        return f"title {title[:60]!r}"
    stem = PurePosixPath(url).name.split(".")[0]
    if _FALLBACK_FILE.match(stem):
        return f"file {stem}"
    return None


def navigation_detector() -> tuple[Callable[[str, str, str], str | None], str]:
    """The engine's navigation detector when it has one, else the local fallback; with its name."""
    try:
        from research_core.research.navigation import navigation_reason
    except ImportError:
        return fallback_navigation_reason, "local fallback pattern (bench/retrieval.py)"
    return navigation_reason, "research_core.research.navigation.navigation_reason"


def branch_queries(question: str, branch_text: str, branch_id: str) -> list[str]:
    """The first queries the engine writes by code for a branch asking `branch_text` under `question`
    (`research_step`'s first iteration with the local model)."""
    branch = SubQuestion(id=branch_id, question_text=branch_text, priority=1.0)
    queries = first_queries(evidence_topic(branch, question))
    return with_frame(queries, frame_terms(branch_text, question))


def branch_topics(question: dict[str, Any]) -> list[tuple[str, str]]:
    """(branch id, the branch's question) for the flat branch and, for a multi-part question, each clause."""
    text = question["question"]
    parts = question_parts(text) if question["parts"] > 1 else []
    return [(FLAT_BRANCH_ID, text), *((f"sq_{i:03d}", part) for i, part in enumerate(parts, start=1))]


def kept_pages(
    library: DocumentLibrary, question: dict[str, Any], k: int, sub_questions: list[str] | None = None
) -> set[str]:
    """The addresses a branch's first step shows its extraction prompt, over the question's branches (or
    over a run's own `sub_questions`): each branch's first queries searched, merged best relevance first
    (`searching.run_searches`), then the relevance gate and the embedded model's `sources_per_prompt`
    (`searching.keep_relevant`)."""
    kept: set[str] = set()
    limit = EMBEDDED_MODEL_SETTINGS["sources_per_prompt"]
    services = Services(llm=None, backends=[library], config=RunConfig())  # type: ignore[arg-type]
    branches = (
        [(f"sq_{i:03d}", text) for i, text in enumerate(sub_questions, start=1)]
        if sub_questions
        else branch_topics(question)
    )
    for branch_id, text in branches:
        branch = SubQuestion(id=branch_id, question_text=text, priority=1.0)
        queries = branch_queries(question["question"], text, branch_id)
        names = question_products(text, question["question"])
        ranked, _, _ = run_searches(services, queries, k, branch_id, products=names)
        sources, _ = keep_relevant(evidence_topic(branch, question["question"]), ranked, limit, branch_id, [library])
        kept |= {s.url for s in sources}
    return kept


def engine_queries(question: dict[str, Any]) -> dict[str, list[str]]:
    """{"flat": the question's own first queries, "branches": the clauses' not searched already (multi-part
    questions only; a query counts as searched when it folds to one before, as the engine compares them)}."""
    text = question["question"]
    (flat_id, _), *clauses = branch_topics(question)
    flat = branch_queries(text, text, flat_id)
    branches: list[str] = []
    for branch_id, part in clauses:
        seen = {folded(q) for q in flat + branches}
        branches += [q for q in branch_queries(text, part, branch_id) if folded(q) not in seen]
    return {"flat": flat, "branches": branches}


def measure_question(
    library: DocumentLibrary,
    question: dict[str, Any],
    corpus: Corpus,
    k: int,
    navigation: Callable[[str, str, str], str | None],
) -> dict[str, Any]:
    """Recall of the question's labelled pages over the engine's first searches, and navigation results."""
    labelled = labelled_pages(question, corpus.manuals)
    queries = engine_queries(question)
    found: dict[str, set[str]] = {"flat": set(), "all": set()}
    results: dict[str, tuple[str, str]] = {}  # url -> (title, passage)
    passages: list[str] = []
    for group, texts in queries.items():
        for query in texts:
            for source in library.search(query, k):
                results.setdefault(source.url, (source.title, source.snippet))
                passages.append(source.snippet)
                found["all"].add(source.url)
                if group == "flat":
                    found["flat"].add(source.url)
    missed = [p for p in labelled if p not in found["all"]]
    kept = kept_pages(library, question, k)
    ranks: dict[str, list[int]] = {page: [] for page in missed}
    for query in [q for group in queries.values() for q in group] if missed else []:
        for rank, source in enumerate(library.search(query, MAX_RESULTS_PER_QUERY), start=1):
            if source.url in ranks:
                ranks[source.url].append(rank)
    nav = {url: why for url, (title, _) in results.items() if (why := navigation(title, url, ""))}
    lists = {
        url: why
        for url, (title, passage) in results.items()
        if url not in nav and (why := navigation(title, url, passage))
    }
    return {
        "id": question["id"],
        "parts": question["parts"],
        "queries": len(queries["flat"]) + len(queries["branches"]),
        "query_texts": queries,
        "labelled": len(labelled),
        "found_flat": sum(p in found["flat"] for p in labelled),
        "found": len(labelled) - len(missed),
        "kept": sum(p in kept for p in labelled),
        "missed": {short(p, corpus): min(ranks[p], default=None) for p in missed},
        "results": len(results),
        "navigation": len(nav),
        "navigation_pages": {short(url, corpus): why for url, why in nav.items()},
        "link_lists": len(lists),
        "link_list_pages": {short(url, corpus): why for url, why in lists.items()},
        "labelled_flagged": [short(p, corpus) for p in labelled if p in nav or p in lists],
        **aspects_in(question, passages),
        **{f"window_{k}": v for k, v in aspects_in(question, shown_windows(passages, question["question"])).items()},
    }


def shown_windows(passages: list[str], focus: str) -> list[str]:
    """The part of each passage an extraction prompt for the embedded model shows: its statements'
    best window of `snippet_chars` about `focus` (`research.extraction`)."""
    chars = EMBEDDED_MODEL_SETTINGS["snippet_chars"]
    return [best_window(statements_of(passage), focus, chars) for passage in passages]


def aspects_in(question: dict[str, Any], passages: list[str]) -> dict[str, Any]:
    """How many of the question's aspects (each a list of alternative phrasings, as the research-quality
    benchmark scores reports) occur in the passages its searches returned: what a run can quote at best."""
    text = " ".join(passages).lower()
    aspects = question.get("aspects", [])
    missing = [a[0] for a in aspects if not any(alt.lower() in text for alt in a)]
    return {"aspects": len(aspects) - len(missing), "aspects_total": len(aspects), "aspects_missing": missing}


def short(path: str, corpus: Corpus) -> str:
    """A page's path relative to its manual's folder, prefixed with the manual's name."""
    for name, folder in corpus.manuals.items():
        if path.startswith(folder + "/"):
            return f"{name}:{path[len(folder) + 1 :]}"
    return path


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Summed recall (labelled pages found / labelled) and navigation share over `rows`."""
    labelled = sum(r["labelled"] for r in rows)
    found = sum(r["found"] for r in rows)
    flat = sum(r["found_flat"] for r in rows)
    kept = sum(r["kept"] for r in rows)
    results = sum(r["results"] for r in rows)
    nav = sum(r["navigation"] for r in rows)
    lists = sum(r["link_lists"] for r in rows)
    return {
        "questions": len(rows),
        "labelled": labelled,
        "found_flat": flat,
        "found": found,
        "recall_flat": round(flat / labelled, 3) if labelled else None,
        "recall": round(found / labelled, 3) if labelled else None,
        "kept": kept,
        "recall_kept": round(kept / labelled, 3) if labelled else None,
        "results": results,
        "navigation": nav,
        "navigation_share": round(nav / results, 3) if results else None,
        "link_lists": lists,
        "labelled_flagged": sum(len(r["labelled_flagged"]) for r in rows),
        "aspects_in_passages": sum(r["aspects"] for r in rows),
        "aspects_total": sum(r["aspects_total"] for r in rows),
        "aspects_in_windows": sum(r["window_aspects"] for r in rows),
    }


def cited_pages(
    runs_file: Path, questions: list[dict[str, Any]], corpus: Corpus, library: DocumentLibrary, k: int
) -> list[dict[str, Any]]:
    """Per run of a `research_quality --json` file: how many of its question's labelled pages it cited,
    and how many the first steps of its own sub-questions (as its model wrote them) would show the
    model (`kept_pages`): what today's first searches make of that decomposition."""
    by_id = {q["id"]: q for q in questions}
    rows = []
    for run in json.loads(runs_file.read_text(encoding="utf-8")).get("runs", []):
        head = {
            "id": run.get("id"),
            "asked": run.get("asked"),
            "reading": run.get("reading"),
            "run_id": run.get("run_id"),
        }
        question = by_id.get(run.get("id"))
        if question is None:
            rows.append({**head, "note": f"not a question of the {corpus.name} corpus"})
        elif "source_urls" not in run:
            rows.append({**head, "note": "no source_urls (file written before they were recorded)"})
        else:
            labelled = labelled_pages(question, corpus.manuals)
            urls = set(run["source_urls"])
            cited = [p for p in labelled if p in urls]
            kept = kept_pages(library, question, k, run.get("sub_questions") or [question["question"]])
            rows.append(
                {
                    **head,
                    "labelled": len(labelled),
                    "cited": len(cited),
                    "sources": len(urls),
                    "kept_by_sub_questions": sum(p in kept for p in labelled),
                    "not_cited": [short(p, corpus) for p in labelled if p not in urls],
                }
            )
    return rows


def main() -> None:
    """Measure and print retrieval recall per question and in total."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="databases")
    parser.add_argument("--k", type=int, default=RunConfig.model_fields["max_results_per_query"].default)
    parser.add_argument("--library", type=Path, default=None, help="the corpus's index (default: its cached one)")
    parser.add_argument("--questions", default=None, help="comma-separated ids (default: all)")
    parser.add_argument("--runs", type=Path, default=None, help="a research_quality --json file: pages cited per run")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each question's queries")
    args = parser.parse_args()
    corpus = CORPORA[args.corpus]
    db = args.library or corpus.library
    if not db.exists():
        raise SystemExit(
            f"{db} does not exist: index the corpus first (python -m bench.research_quality --corpus "
            f"{corpus.name} --skip-mode --skip-runs)"
        )
    questions = [q for q in load_questions(corpus) if args.questions is None or q["id"] in args.questions.split(",")]
    library = DocumentLibrary(db)
    navigation, detector = navigation_detector()
    print(
        f"# retrieval  {time.strftime('%Y-%m-%d %H:%M')}  corpus {corpus.name}  k={args.k}  "
        f"{library.count()} pages  navigation: {detector}"
    )
    started = time.perf_counter()
    rows = [measure_question(library, q, corpus, args.k, navigation) for q in questions]
    seconds = time.perf_counter() - started
    print(
        f"{'id':>4} {'parts':>5} {'queries':>7} {'flat':>6} {'all':>6} {'kept':>6} {'nav':>7} {'lists':>5} "
        f"{'flagged':>7}  "
        "aspects (passages, windows)  missed (best rank at 20)"
    )
    for r in rows:
        missed = ", ".join(f"{page} ({rank or '-'})" for page, rank in r["missed"].items())
        print(
            f"{r['id']:>4} {r['parts']:>5} {r['queries']:>7} {r['found_flat']:>3}/{r['labelled']:<2} "
            f"{r['found']:>3}/{r['labelled']:<2} {r['kept']:>3}/{r['labelled']:<2} "
            f"{r['navigation']:>3}/{r['results']:<3} {r['link_lists']:>5} "
            f"{len(r['labelled_flagged']):>7}  {r['aspects']}/{r['aspects_total']} "
            f"{r['window_aspects']}/{r['aspects_total']}  {missed}"
        )
        if args.verbose:
            for group, texts in r["query_texts"].items():
                for text in texts:
                    print(f"{'':>10}{group}: {text}")
            for page, why in [*r["navigation_pages"].items(), *r["link_list_pages"].items()]:
                print(f"{'':>10}navigation: {page}: {why}")
    figures: dict[str, Any] = {"corpus": corpus.name, "k": args.k, "navigation_detector": detector, "questions": rows}
    figures["totals"] = {
        "single": totals([r for r in rows if r["parts"] == 1]),
        "multi": totals([r for r in rows if r["parts"] > 1]),
        "all": totals(rows),
    }
    for label, t in figures["totals"].items():
        print(f"totals {label}: {json.dumps(t)}")
    print(f"searches took {seconds:.1f} s")
    if args.runs:
        figures["runs"] = cited_pages(args.runs, load_questions(corpus), corpus, library, args.k)
        for run in figures["runs"]:
            if "note" in run:
                print(f"run {run['id']} {run['asked']} {run['reading']}: {run['note']}")
            else:
                print(
                    f"run {run['id']} {run['asked']} {run['reading']}: cited {run['cited']}/{run['labelled']} "
                    f"labelled pages ({run['sources']} sources), {run['kept_by_sub_questions']} shown by the first "
                    f"steps of its sub-questions; not cited: {', '.join(run['not_cited']) or '-'}"
                )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
