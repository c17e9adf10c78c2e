"""Research quality with the embedded model on a corpus nobody here wrote: Debian's HTML manuals.

Two corpora (`--corpus`), each with its own manuals, apt packages, questions and cached index:
- `databases` (default): `postgresql-doc-15`, `sqlite3-doc`, `python3.11-doc`, ~2,500 pages,
  questions in `bench/research_quality_questions.json`, index `~/.cache/arbor/bench/manuals.db`;
- `servers`: `apache2-doc` (the httpd 2.4 manual, English pages only) and `nodejs-doc` (the Node.js
  API manual), questions in `bench/research_quality_questions_servers.json`, index
  `~/.cache/arbor/bench/servers.db`.

Setup (once, cached): installs the corpus's packages with apt if they are missing, and indexes
its pages through the product's own `python -m research_core library add` (indexing speed and
search latency are reported).

Then, for the corpus's questions:
1. Mode: each question through the engine's classify step in auto mode (one LLM call each);
   right when a question with several parts goes hierarchical and a single fact goes flat.
2. Runs (questions marked "run"): single facts in auto mode; multi-part questions once flat and
   once hierarchical at the same budget, the library as the only search backend, plans
   auto-approved. Per run: on-topic evidence (findings whose sources all lie in the manuals the
   question is about), statements supported / uncited in the report, aspects named, approved
   branches dropped, LLM calls, tokens, wall time.

A statement is a sentence of the report of five or more words (headings, bold titles, lead-ins
ending in a colon, code blocks, source lists and "no evidence" sentences excluded). It is
supported when one of the sources it cites contains at least half of its content words anywhere
in the whole indexed page, which is deliberately looser than the engine's own check (against the
passage read) so the benchmark does not simply restate it.

With `--search web` the same runs go through the web path instead of the library: a local web on
127.0.0.1 serves the manuals' pages and answers SearXNG-format searches over them
(`tests/fakes/local_web.py`), the engine searches it with its `searxng` backend and, with
`--read-pages on`, fetches each kept result, extracts it with trafilatura and gives the model the
passages that answer the branch; with `--read-pages off` the model sees only the search snippets.
`--read-pages both` runs every question both ways.

Each question also lists the `pages` a careful researcher would cite (paths relative to its
manual's folder, "manual:path" where two manuals hold the same path); `bench/retrieval.py`
measures how many of them the library searches return, and each run row carries the run's
`source_urls` so it can count how many the run cited.

Takes tens of minutes on 2 cores. Run: .venv/bin/python -m bench.research_quality [--corpus servers] [--questions m1,s1]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench.harness import machine
from research_core.configuration import LLMSettings, RunConfig, build_run_config
from research_core.llm.local_model import stop_shared_server
from research_core.planning.classify import classify_question
from research_core.runs.runner import Runner
from research_core.search.library import DocumentLibrary
from research_core.services import Services
from research_core.synthesis.evidence import question_subjects
from research_core.synthesis.framing import is_framing
from research_core.text.sentence_ends import NOT_AN_ABBREVIATION
from tests.fakes.local_web import LocalWeb, serve_local_web

CACHE_DIR = Path(os.environ.get("ARBOR_CACHE_DIR", Path.home() / ".cache" / "arbor")) / "bench"
_HTML_LANG = re.compile(rb"<html\b[^>]*?\blang\s*=\s*[\"']?([A-Za-z-]+)", re.IGNORECASE)


def any_page(path: Path) -> bool:
    """Every HTML page of the manual is indexed but Sphinx's `_static` assets."""
    return "_static" not in path.parts


def english_page(path: Path) -> bool:
    """A page is indexed when its `<html lang>` is English or absent, and it is not a whole-manual copy.

    Debian's apache2-doc fills `manual/en/` with the Portuguese page where the English one is
    missing (6 pages of 244: bind, filter, install, invoking, upgrading, new_features_2_4), so the
    folder alone does not make a page English. Node's `all.html` concatenates every other page of
    its manual (5.8 MB); indexed, it would compete with each page it copies.
    """
    if path.name == "all.html" or "_static" in path.parts:
        return False
    with path.open("rb") as f:
        match = _HTML_LANG.search(f.read(4096))
    return match is None or match.group(1).lower().split(b"-")[0] == b"en"


@dataclass(frozen=True)
class Corpus:
    """A set of Debian manuals to research: where each lives (name -> folder), the apt packages that
    install them, which of their HTML files are pages (`keep`), the questions and the cached index."""

    name: str
    manuals: dict[str, str]
    apt_packages: tuple[str, ...]
    questions: Path
    library: Path
    keep: Callable[[Path], bool]


CORPORA = {
    "databases": Corpus(
        name="databases",
        manuals={
            "postgresql": "/usr/share/doc/postgresql-doc-15/html",
            "sqlite": "/usr/share/doc/sqlite3",
            "python": "/usr/share/doc/python3.11/html",
        },
        apt_packages=("postgresql-doc-15", "sqlite3-doc", "python3.11-doc"),
        questions=Path(__file__).with_name("research_quality_questions.json"),
        library=CACHE_DIR / "manuals.db",
        keep=any_page,
    ),
    "servers": Corpus(
        name="servers",
        manuals={"apache": "/usr/share/doc/apache2-doc/manual/en", "nodejs": "/usr/share/doc/nodejs/api"},
        apt_packages=("apache2-doc", "nodejs-doc"),
        questions=Path(__file__).with_name("research_quality_questions_servers.json"),
        library=CACHE_DIR / "servers.db",
        keep=english_page,
    ),
}
# the default corpus, under the names this module had before it had two
QUESTIONS = CORPORA["databases"].questions
MANUALS = CORPORA["databases"].manuals
APT_PACKAGES = list(CORPORA["databases"].apt_packages)
DEFAULT_LIBRARY = CORPORA["databases"].library
STOP = set(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "in",
        "on",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "what",
        "which",
        "who",
        "how",
        "why",
        "when",
        "where",
        "does",
        "do",
        "did",
        "with",
        "by",
        "from",
        "about",
        "between",
        "vs",
        "versus",
        "its",
        "it",
        "their",
        "this",
        "that",
        "these",
        "those",
        "as",
        "at",
        "can",
        "could",
        "may",
        "might",
        "must",
        "should",
        "would",
        "will",
        "shall",
        "not",
        "no",
        "than",
        "then",
        "there",
        "here",
        "each",
        "both",
        "also",
        "such",
        "into",
        "over",
        "under",
        "more",
        "most",
        "other",
        "some",
        "any",
        "all",
        "only",
        "very",
        "use",
        "used",
        "uses",
        "using",
        "has",
        "have",
        "had",
        "one",
        "two",
    ]
)
# a line that is all bold ("**How is each configured?**") is a title, as the engine reads it
BOLD_TITLE = re.compile(r"^\*\*[^*]+\*\*\s*[.:]?$")
HEDGES = re.compile(
    r"no (evidence|findings|sources?)|not (found|covered|answered)|unanswered|could not|remains? open|"
    r"unsupported|rests on (a single|one) source",
    re.IGNORECASE,
)


# ---- corpus -----------------------------------------------------------------------------


def ensure_manuals(corpus: Corpus = CORPORA["databases"]) -> list[Path]:
    """The corpus's HTML pages (those its `keep` rule accepts), installing its Debian packages first
    if a manual's folder is missing."""
    if not all(Path(d).is_dir() for d in corpus.manuals.values()):
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run([*sudo, "apt-get", "install", "-y", *corpus.apt_packages], check=True, env=env)
    pages: list[Path] = []
    for folder in corpus.manuals.values():
        pages += sorted(p for p in Path(folder).rglob("*.html") if p.is_file() and corpus.keep(p))
    return pages


def load_questions(corpus: Corpus) -> list[dict[str, Any]]:
    """The corpus's questions, as written in its questions file."""
    return json.loads(corpus.questions.read_text(encoding="utf-8"))["questions"]


def labelled_pages(question: dict[str, Any], manuals: dict[str, str]) -> list[str]:
    """The full paths of the question's `pages`. A page is a path relative to the folder of one of the
    question's manuals, written "manual:path" when more than one of them holds that path (SQLite and
    PostgreSQL both have a `wal.html`); ValueError names a page no manual holds, or one that is ambiguous."""
    paths = []
    for page in question.get("pages", []):
        name, _, rest = page.partition(":")
        candidates = [name] if rest and name in manuals else question["manuals"]
        relative = rest if rest and name in manuals else page
        found = [f"{manuals[m]}/{relative}" for m in candidates if Path(manuals[m], relative).is_file()]
        if len(found) != 1:
            held = "none" if not found else "more than one"
            raise ValueError(f"{question['id']}: labelled page {page!r} is in {held} of {candidates}")
        paths.append(found[0])
    return paths


def build_library(db: Path, pages: list[Path]) -> dict[str, Any]:
    """Index the pages with the product's CLI (cached); returns indexing figures."""
    if db.exists() and DocumentLibrary(db).count() >= len(pages) * 0.95:
        return {"pages": DocumentLibrary(db).count(), "cached": True}
    db.parent.mkdir(parents=True, exist_ok=True)
    db.unlink(missing_ok=True)
    started = time.perf_counter()
    for i in range(0, len(pages), 500):
        batch = [str(p) for p in pages[i : i + 500]]
        subprocess.run(
            [sys.executable, "-m", "research_core", "library", "add", *batch, "--db", str(db)],
            check=False,
            stdout=subprocess.DEVNULL,
        )
    seconds = time.perf_counter() - started
    count = DocumentLibrary(db).count()
    return {"pages": count, "seconds": round(seconds, 1), "pages_per_s": round(count / seconds, 1), "cached": False}


def search_latency(db: Path, questions: list[dict]) -> dict[str, float]:
    """Median and worst library search time over the questions (5 results each, 3 passes)."""
    library = DocumentLibrary(db)
    times = []
    for _ in range(3):
        for q in questions:
            started = time.perf_counter()
            library.search(q["question"], 5)
            times.append((time.perf_counter() - started) * 1000)
    return {"median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1)}


def page_texts(db: Path) -> dict[str, str]:
    """Full indexed text of every page, by URL (for the support check)."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT d.url, group_concat(c.text, ' ') FROM library_documents AS d "
            "JOIN library_chunks AS c ON c.doc_id = d.id GROUP BY d.id"
        ).fetchall()
    return {url: text.lower() for url, text in rows}


# web address prefix -> manual folder, while the local web serves the manuals
WEB_FOLDERS: dict[str, str] = {}


def page_path(url: str) -> str:
    """The manual file behind a URL: library URLs are paths already, local web URLs map to their folder."""
    for prefix, folder in WEB_FOLDERS.items():
        if url.startswith(prefix):
            return folder + url[len(prefix) - 1 :]
    return url


def manual_of(url: str, manuals: dict[str, str] = MANUALS) -> str | None:
    """Which of `manuals` a page belongs to (by its folder), or None."""
    url = page_path(url)
    for name, folder in manuals.items():
        if url.startswith(folder + "/"):
            return name
    return None


# ---- measures -----------------------------------------------------------------------------


def content_words(text: str) -> set[str]:
    """Lower-cased words of 3+ characters that are not stop words, a trailing plural 's' removed."""
    words = set()
    for w in re.findall(r"[a-z0-9_]+", text.lower()):
        if len(w) < 3 or w in STOP:
            continue
        words.add(w[:-1] if len(w) > 4 and w.endswith("s") else w)
    return words


def statements(report: str, names: tuple[str, ...] = (), question: str = "") -> list[str]:
    """The report's factual sentences (see the module docstring). Given the question's subjects
    (`names`), framing sentences ("X and Y differ in ...", a restatement of `question`: the engine's
    `is_framing`) are left out: they state no fact and carry no citation by design."""
    out = []
    in_code = False
    for line in report.splitlines():
        line = line.strip()
        if line.startswith(("```", "~~~")):
            in_code = not in_code  # a code block is checked whole by the engine and cited after it
            continue
        if in_code or not line or line.startswith("#") or re.match(r"^(\*\*)?(sources|references)\b", line, re.I):
            continue
        if re.match(r"^\[\d+\]\s", line):  # a source list entry
            continue
        line = re.sub(r"^([-*+]|\d+\.)\s+", "", line)
        for sentence in re.split(rf"(?<=[.!?]){NOT_AN_ABBREVIATION}\s+(?=[A-Z\[*])", line):
            bare = re.sub(r"\[\d+(?:,\s*\d+)*\]", "", sentence)
            if len(re.findall(r"\w+", bare)) < 5 or HEDGES.search(sentence) or BOLD_TITLE.match(bare.strip()):
                continue
            if bare.strip().endswith(":"):  # a lead-in: the engine checks it and gives it no citation
                continue
            if names and is_framing(bare, names, question):
                continue
            out.append(sentence)
    return out


def supported_by(sentence: str, text: str) -> bool:
    """Half or more of the sentence's content words occur in the source text."""
    words = content_words(re.sub(r"\[\d+(?:,\s*\d+)*\]", "", sentence))
    if not words:
        return True
    return sum(1 for w in words if w in text) / len(words) >= 0.5


def measure(result: Any, question: dict, texts: dict[str, str], manuals: dict[str, str] = MANUALS) -> dict[str, Any]:
    """Quality figures of one finished run (`manuals`: the corpus's, for the on-topic count)."""
    report = result.final_answer or ""
    numbered = {n: s for n, s in enumerate(result.sources, start=1)}
    cited = supported = 0
    sents = statements(report, question_subjects(result.question), result.question)
    for sentence in sents:
        numbers = {int(n) for group in re.findall(r"\[(\d+(?:,\s*\d+)*)\]", sentence) for n in group.split(",")}
        refs = [numbered[n] for n in numbers if n in numbered]
        if not refs:
            continue
        cited += 1
        if any(supported_by(sentence, texts.get(page_path(s.url), s.snippet.lower())) for s in refs):
            supported += 1
    by_id = {s.id: s for s in result.sources}
    findings = [f for b in result.sub_questions for f in b.findings]
    on_topic = 0
    for f in findings:
        found_in = {manual_of(by_id[sid].url, manuals) for sid in f.source_ids if sid in by_id}
        if found_in and found_in <= set(question["manuals"]):
            on_topic += 1
    lower = report.lower()
    aspects = sum(1 for spellings in question["aspects"] if any(s in lower for s in spellings))
    top = [b for b in result.sub_questions if not b.parent_id]
    dropped = sum(1 for b in top if b.status == "skipped")
    costs = result.costs
    return {
        "mode": result.mode,
        "status": result.status,
        "branches": len(top),
        "statements": len(sents),
        "cited": cited,
        "supported": supported,
        "uncited": len(sents) - cited,
        "findings": len(findings),
        "on_topic": on_topic,
        "aspects": aspects,
        "aspects_total": len(question["aspects"]),
        "dropped": dropped,
        "llm_calls": len(costs.entries),
        "tokens": costs.tokens_in + costs.tokens_out,
        "wall_s": round(result.duration_s, 1),
        "llm_by_task": llm_by_task(costs.entries),
    }


def llm_by_task(entries: list[Any]) -> dict[str, list[float]]:
    """Calls, seconds and output tokens per LLM task (plan_queries, extract_findings, ...): where a run's time goes."""
    table: dict[str, list[float]] = {}
    for e in entries:
        row = table.setdefault(e.task, [0, 0.0, 0])
        row[0] += 1
        row[1] = round(row[1] + e.latency_s, 1)
        row[2] += e.tokens_out
    return table


# ---- the two parts ------------------------------------------------------------------------


def mode_check(runner: Runner, questions: list[dict]) -> list[dict[str, Any]]:
    """Each question through classify_question in auto mode."""
    config = RunConfig(mode="auto")
    services = Services(llm=runner.llm, backends=[], config=config)
    rows = []
    for q in questions:
        state = {"question": q["question"], "config": config.model_dump()}
        started = time.perf_counter()
        update = classify_question(state, SimpleNamespace(context=services))  # type: ignore[arg-type]
        want = "hierarchical" if q["parts"] > 1 else "flat"
        rows.append(
            {
                "id": q["id"],
                "want": want,
                "got": update["mode"],
                "right": update["mode"] == want,
                "seconds": round(time.perf_counter() - started, 1),
                "why": update["log"][-1]["message"],
            }
        )
        print(f"mode {q['id']:>4}: want {want:<12} got {update['mode']:<12} {rows[-1]['why']}", flush=True)
    return rows


def run_config(question: str, mode: str, max_iterations: int, reading: dict[str, Any] | None = None) -> RunConfig:
    """The benchmark's budget, the same for flat and hierarchical runs; `reading` picks the web path."""
    return build_run_config(
        "general",
        question,
        mode=mode,
        **(reading or {"search_backends": ["library"]}),
        auto_approve=True,
        max_iterations=max_iterations,
        sub_question_min_iterations=2,
        sub_question_max_iterations=max_iterations,
        min_sub_questions=2,
        max_sub_questions=3,
        max_total_sub_questions=4,
    )


def research_runs(
    db: Path,
    questions: list[dict],
    texts: dict[str, str],
    max_iterations: int,
    modes: list[str],
    readings: dict[str, dict[str, Any] | None],
    manuals: dict[str, str] = MANUALS,
) -> list[dict[str, Any]]:
    """The questions marked "run", researched for real, once per reading setup ({label: config fields});
    each row carries the run's source URLs (`source_urls`, in the report's [n] order)."""
    runner = Runner(db, llm_settings=LLMSettings(provider="local", timeout_s=900))
    rows = []
    for q in questions:
        for mode in modes if q["parts"] > 1 else ["auto"]:
            for label, reading in readings.items():
                snap = runner.start(q["question"], run_config(q["question"], mode, max_iterations, reading))
                result = runner.result(snap.run_id)
                head = {"id": q["id"], "asked": mode, "reading": label}
                if result is None:
                    rows.append({**head, "status": snap.status, "error": snap.error})
                    print(f"run  {q['id']:>4} {mode} {label}: {snap.status} {snap.error}", flush=True)
                    continue
                row = {**head, "run_id": snap.run_id, **measure(result, q, texts, manuals)}
                row["pages_read"] = sum(b.pages_read for b in result.sub_questions)
                row["pages_failed"] = sum(b.pages_failed for b in result.sub_questions)
                print(f"run  {q['id']:>4} {mode} {label}: {json.dumps(row)}", flush=True)
                row["report"] = result.final_answer
                row["sub_questions"] = [b.question_text for b in result.sub_questions]
                row["source_urls"] = [page_path(source.url) for source in result.sources]
                rows.append(row)
    return rows


def web_readings(web: LocalWeb, choice: str) -> dict[str, dict[str, Any] | None]:
    """Config fields for the web path through the local web: pages read, snippets only, or both."""
    base = {"search_backends": ["searxng"], "searxng_url": web.base_url, "fetch_private_addresses": True}
    both = {"pages": {**base, "read_pages": True}, "snippets": {**base, "read_pages": False}}
    return {"on": {"pages": both["pages"]}, "off": {"snippets": both["snippets"]}, "both": both}[choice]


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Summed figures and the goal ratios."""
    ok = [r for r in rows if "statements" in r]
    s = {k: sum(r[k] for r in ok) for k in ("statements", "cited", "supported", "uncited", "findings", "on_topic")}
    s.update({k: sum(r[k] for r in ok) for k in ("aspects", "aspects_total", "dropped", "llm_calls", "tokens")})
    s.update({k: sum(r.get(k, 0) for r in ok) for k in ("pages_read", "pages_failed")})
    s["runs"] = len(ok)
    s["supported_share"] = round(s["supported"] / s["statements"], 3) if s["statements"] else None
    s["uncited_share"] = round(s["uncited"] / s["statements"], 3) if s["statements"] else None
    s["on_topic_share"] = round(s["on_topic"] / s["findings"], 3) if s["findings"] else None
    s["aspects_share"] = round(s["aspects"] / s["aspects_total"], 3) if s["aspects_total"] else None
    s["wall_s"] = round(sum(r["wall_s"] for r in ok), 1)
    return s


def drafts_recorded(path: Path | None) -> contextlib.AbstractContextManager:
    """Record the drafts before grounding into `path` (`bench.drafts`), or nothing."""
    if path is None:
        return contextlib.nullcontext()
    from bench.drafts import recording  # bench.drafts reads this module's statement rules

    return recording(path)


def main() -> None:
    """Measure and print the figures for bench/README.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="databases", help="which manuals and questions")
    parser.add_argument("--questions", default=None, help="comma-separated ids (default: all)")
    parser.add_argument("--library", type=Path, default=None, help="cached index (default: the corpus's)")
    parser.add_argument("--max-iterations", type=int, default=6)
    parser.add_argument("--modes", default="flat,hierarchical", help="modes for multi-part questions")
    parser.add_argument("--skip-mode", action="store_true")
    parser.add_argument("--skip-runs", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep-runs", type=Path, default=None, help="keep the runs' database here (for the logs)")
    parser.add_argument("--drafts", type=Path, default=None, help="record drafts before grounding")
    parser.add_argument("--search", choices=["library", "web"], default="library", help="library, or the local web")
    parser.add_argument("--read-pages", choices=["on", "off", "both"], default="both", help="with --search web")
    args = parser.parse_args()
    corpus = CORPORA[args.corpus]
    args.library = args.library or corpus.library
    spec = load_questions(corpus)
    chosen = [q for q in spec if args.questions is None or q["id"] in args.questions.split(",")]
    print(f"# research_quality  {time.strftime('%Y-%m-%d %H:%M')}  corpus {corpus.name}  {machine()}", flush=True)
    figures: dict[str, Any] = {"machine": machine(), "corpus": corpus.name}
    pages = ensure_manuals(corpus)
    figures["library"] = build_library(args.library, pages)
    figures["library"]["search"] = search_latency(args.library, spec)
    print("library:", json.dumps(figures["library"]), flush=True)
    texts = page_texts(args.library)
    try:
        with tempfile.TemporaryDirectory() as tmp, drafts_recorded(args.drafts):
            db = Path(tmp) / "arbor.db"
            shutil.copy(args.library, db)
            if not args.skip_mode:
                runner = Runner(db, llm_settings=LLMSettings(provider="local", timeout_s=900))
                figures["mode"] = mode_check(runner, chosen)
                right = sum(r["right"] for r in figures["mode"])
                print(f"mode: {right}/{len(figures['mode'])} right", flush=True)
            if args.keep_runs:
                db = args.keep_runs
                shutil.copy(args.library, db)
            if not args.skip_runs:
                run_questions = [q for q in chosen if q.get("run") or args.questions]
                modes = args.modes.split(",")
                if args.search == "web":
                    started = time.perf_counter()
                    with serve_local_web(LocalWeb(corpus.manuals)) as web:
                        WEB_FOLDERS.update({f"{web.base_url}/{n}/": folder for n, folder in corpus.manuals.items()})
                        print(f"local web: {web.base_url} ({time.perf_counter() - started:.0f} s to index)", flush=True)
                        readings = web_readings(web, args.read_pages)
                        figures["runs"] = research_runs(
                            db, run_questions, texts, args.max_iterations, modes, readings, corpus.manuals
                        )
                else:
                    readings = {"library": None}
                    figures["runs"] = research_runs(
                        db, run_questions, texts, args.max_iterations, modes, readings, corpus.manuals
                    )
                groups = [(f"{m} {r}", m, r) for r in readings for m in ("flat", "hierarchical", "auto")]
                for label, mode, reading in [*groups, ("all", None, None)]:
                    rows = [x for x in figures["runs"] if mode is None or (x["asked"], x["reading"]) == (mode, reading)]
                    if rows:
                        figures.setdefault("totals", {})[label] = totals(rows)
                        print(f"totals {label}: {json.dumps(figures['totals'][label])}", flush=True)
    finally:
        stop_shared_server()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
