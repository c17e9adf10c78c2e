"""extract_findings: the model points at passage sentences; the engine quotes and checks them.

Rules, enforced by code whatever the model answers:
1. A finding's quote is copied from the passage the model was shown (`research.quotes`): the
   sentences it picked, or, for a finding written in the model's words, the neighbouring sentences
   of its cited passage that best support the text.
2. A written finding is kept only if its quote backs it: half of its content words, every
   distinctive term (`text.terms`) and every negation (`text.negation`) are in the quote.
3. A quote must be about the branch: it shares a topic word (not a name) with the branch's
   question; a quote of a few words is not a fact; and it is not far in meaning from the user's
   question (`research.far_quotes`).
4. A finding that nearly repeats one already kept is merged into it (dropped, with a note).
5. A branch about one side of a comparison takes no fact from the other side's manual
   (`research.other_side`).
6. A quote opening on a sentence that leans on the one before ("This adds latency ...",
   `text.anaphora`) starts with that sentence (`quotes.with_antecedents`); when the passage does
   not hold it, the quote is refused: nobody can tell what "this" is, and a report retelling it
   hands the fact to whatever it was writing about.
"""

from __future__ import annotations

import re

from research_core.llm.client import StructuredOutputError
from research_core.llm.prompts import render_prompt
from research_core.planning.hypotheses import research_focus
from research_core.planning.question_shape import products, subjects, topic_words
from research_core.research.engine_picks import engine_picks, field_picks
from research_core.research.evidence import duplicate_of
from research_core.research.far_quotes import far_quotes
from research_core.research.other_side import other_sides_quote
from research_core.research.quotes import (
    MIN_QUOTE_WORDS,
    NumberedSentence,
    best_run,
    listing,
    location,
    number_sentences,
    quote_text,
    runs_of,
    statements_of,
)
from research_core.schemas import ExtractedFinding, Finding, FindingsOutput, LogEntry, Source, SubQuestion, stable_id
from research_core.services import Services
from research_core.text.anaphora import leans_back
from research_core.text.names import named_in, names_asked
from research_core.text.negation import polarity_conflict
from research_core.text.support import SUPPORT_BAR, same_stem, support_share
from research_core.text.terms import missing_terms
from research_core.text.windows import best_window
from research_core.text.words import content_words, looks_english

# words meet on their first letters: "locking" and "locks", "concurrency" and "concurrent"


def _written_quote(
    item: ExtractedFinding, sentences: list[NumberedSentence], count: int
) -> tuple[list[NumberedSentence], str | None]:
    """The quote behind a finding written in the model's words, or why there is none (rule 2)."""
    text = " ".join(item.text.split())
    cited = [n - 1 for n in dict.fromkeys(item.sources) if 1 <= n <= count]
    best: list[NumberedSentence] = []
    share = 0.0
    # the sources the model cited first, then any shown source (a small model often cites the wrong number)
    for pool in (cited, [i for i in range(count) if i not in cited]):
        for run in (best_run(text, sentences, index) for index in pool):
            run_share = support_share(text, quote_text(run)) if run else 0.0
            if run_share > share:
                best, share = run, run_share
        if share >= SUPPORT_BAR:
            break
    if share < SUPPORT_BAR:
        return [], f"unsupported by its sources ({share:.0%} of its words)"
    run, quote = best, quote_text(best)
    missing = missing_terms(text, quote)
    if missing:
        return [], f"names {', '.join(missing[:3])}, which its quote does not"
    conflict = polarity_conflict(text, quote)
    if conflict:
        return [], f"{conflict}"
    return run, None


def _topical(text: str) -> tuple[list[str], set[str]]:
    """The subjects `text` names, and its topic words that are not part of a name ("Node" takes
    the "js" of "Node.js" along)."""
    names = subjects(text)
    named_words = [w for w in text.split() if any(n.lower() in w.lower() for n in names)]
    return names, topic_words(text) - content_words(" ".join([*names, *named_words]))


def quote_on_topic(quote: str, focus: str, question: str = "", title: str = "") -> bool:
    """Rule 3: the quote itself shares a topic word (by stem, `support.same_stem`) with the branch's
    question, not counting the names of its subjects (a page about the right system also says things
    about other topics), or names the function, option or command the question asks about
    (`text.names.names_asked`: "You can use the EXPLAIN command to see what query plan the planner
    creates" is about "What does EXPLAIN ANALYZE show?" though it does not say "show"), or stands on
    a page whose `title` names it or its module (`_page_of_asked`: mod_expires's page says
    "Generation of Expires and Cache-Control HTTP headers" without its name, and was refused for "What
    do mod_deflate and mod_expires each change in a response?"), or names two of its subjects. A
    branch question whose only words are its names and its frame ("What is the difference between
    fs.readFile and fs.createReadStream in Node.js?") borrows the topic words of the main `question`
    ("read a file", "streaming", "memory use")."""
    names, topical = _topical(focus)
    if not topical and question:
        topical = _topical(question)[1]
    if not topical or not looks_english(focus):
        return True
    if names_asked(quote, names) or _page_of_asked(title, names, focus):
        return True
    if len(named_in(quote, names)) >= 2:
        return True  # a sentence setting two of the question's subjects side by side is what a comparison needs
    said = content_words(_without_names(quote, focus))
    return any(same_stem(word, other) for word in topical for other in said)


def _page_of_asked(title: str, names: list[str], focus: str) -> bool:
    """Whether a page's title names the function, module or command `focus` asks about, or the module
    of a function it asks about ("Child process" for child_process.spawn); a product's name ("Node.js")
    is in the title of every page of its manual, so it does not count."""
    if not title:
        return False
    asked = [n for n in names if n not in products(focus)]
    modules = [n.rsplit(".", 1)[0] for n in asked if "." in n.strip(".")]
    return bool(names_asked(title, asked) or named_in(title, modules))


def _without_names(quote: str, focus: str) -> str:
    """The quote without the words it capitalises mid-sentence where the question writes them in lower
    case: "Windows" the system is not the "window" of "window functions"."""
    lower = {w.rstrip("s") for w in re.findall(r"\b[a-z][a-z-]+\b", focus)}
    words = quote.split()
    kept = [
        w
        for i, w in enumerate(words)
        if i == 0 or not w[:1].isupper() or w.strip(".,;:()").lower().rstrip("s") not in lower
    ]
    return " ".join(kept)


def picked_quotes(
    item: ExtractedFinding, sentences: list[NumberedSentence], count: int, pages: list[str] | None = None
) -> tuple[list[tuple[str, list[NumberedSentence]]], list[str]]:
    """[(finding text, quoted run)] for one answer item, and why parts of it were refused (`pages`:
    each source's statements, `quotes.statements_of`, where a quote finds the sentence it leans on)."""
    if item.sentences:
        runs = runs_of(item.sentences, sentences, pages)
        if runs:
            return [(quote_text(run), run) for run in runs], []
        picked = set(item.sentences)
        shown = [s.text for s in sentences if s.number in picked]
        if shown:
            return [], [f"quoted only a lead-in to what it does not quote: {shown[0][:120]!r}"]
        return [], [f"picked no sentence shown ({item.sentences[:5]})"]
    text = " ".join(item.text.split())
    if not text:
        return [], []
    run, why = _written_quote(item, sentences, count)
    if why:
        return [], [f"{why}: {text[:120]!r}"]
    return [(text, run)], []


def refusal(
    text: str, quote: str, known_texts: list[str], focus: str | None, question: str = "", title: str = ""
) -> str | None:
    """Why a picked quote is not kept as a finding, or None: too short to state a fact, off the
    sub-question (`focus`; None for a hypothesis, a claim to test whose evidence may use none of its
    words; `title`: its page's), or a repeat of a finding already kept."""
    if len(quote.split()) < MIN_QUOTE_WORDS:
        return f"too short to state a fact: {quote!r}"
    if focus is not None and not quote_on_topic(quote, focus, question, title):
        return f"not about this sub-question: {quote[:120]!r}"
    twin = duplicate_of(text, known_texts)
    if twin is not None:
        return f"merged into an earlier finding ({twin[:80]!r}): {text[:80]!r}"
    return None


def extraction_log(branch_id: str, kept: int, refused: list[str], reasoning: str) -> list[dict]:
    """The step's log: how many findings were kept and, when some were refused, why."""
    message = f"{kept} new findings"
    if refused:
        message += f"; {len(refused)} dropped (no sentence shown, unsupported, off-topic or duplicate)"
    log = [LogEntry(node="research_step", branch=branch_id, message=message, reasoning=reasoning).model_dump()]
    if refused:
        log.append(
            LogEntry(
                node="research_step",
                branch=branch_id,
                kind="evidence",
                message=f"Refused {len(refused)} finding(s): " + "; ".join(refused[:8]),
            ).model_dump()
        )
    return log


def extract_findings(
    services: Services,
    branch: SubQuestion,
    sources: list[Source],
    known: list[dict],
    iteration: int,
    topic: str | None = None,
    chars: int = 350,
    question: str = "",
) -> tuple[list[dict], list[Source], dict]:
    """Ask the model which passage sentences answer the branch; keep the quotes that pass the rules above.

    Returns (findings, the sources they cite, {"costs", "log"}).
    """
    focus = topic or branch.question_text
    pages = [statements_of(s.snippet) for s in sources]
    passages = [best_window(page, focus, chars, "\n") for page in pages]
    sentences = number_sentences(passages)
    system, user = render_prompt(
        "extract_findings", sub_question=research_focus(branch), sources=listing(sources, passages, sentences)
    )
    try:
        out, entries = services.llm.structured(
            "extract_findings", FindingsOutput, system, user, node="research_step", branch=branch.id, max_tokens=400
        )
    except StructuredOutputError as exc:
        entry = LogEntry(
            node="research_step",
            branch=branch.id,
            kind="fallback",
            message="Finding extraction failed for this iteration; no findings recorded.",
            reasoning=exc.user_message,
        )
        return [], [], {"costs": [c.model_dump() for c in exc.costs], "log": [entry.model_dump()]}
    picks = (
        [*engine_picks(focus, sentences, out.findings), *field_picks(focus, sentences, out.findings)]
        if services.config.engine_picks
        else []
    )
    if picks:
        out = out.model_copy(update={"findings": [*out.findings, *picks]})
    findings, cited, refused = _checked_findings(
        branch, out, sentences, sources, pages, known, iteration, focus, question
    )
    log = extraction_log(branch.id, len(findings), refused, out.reasoning)
    return findings, cited, {"costs": [c.model_dump() for c in entries], "log": log}


def _all_picks(
    out: FindingsOutput, sentences: list[NumberedSentence], sources: list[Source], pages: list[str]
) -> tuple[list[tuple[ExtractedFinding, str, list[NumberedSentence]]], list[str]]:
    """Every (answer item, finding text, quoted run) of the model's answer, and why parts were refused."""
    picks: list[tuple[ExtractedFinding, str, list[NumberedSentence]]] = []
    refused: list[str] = []
    for item in out.findings:
        quoted, why = picked_quotes(item, sentences, len(sources), pages)
        refused += why
        picks += [(item, text, run) for text, run in quoted]
    return picks, refused


def _checked_findings(
    branch: SubQuestion,
    out: FindingsOutput,
    sentences: list[NumberedSentence],
    sources: list[Source],
    pages: list[str],
    known: list[dict],
    iteration: int,
    focus: str,
    question: str = "",
) -> tuple[list[dict], list[Source], list[str]]:
    """The findings of the model's picks that pass the rules above: (findings, their sources, why
    each refused pick was refused)."""
    known_texts = [f["text"] for f in known]
    findings: list[dict] = []
    cited: dict[str, Source] = {}
    picks, refused = _all_picks(out, sentences, sources, pages)
    on_question = branch.kind == "question"
    far = far_quotes([quote_text(run) for _, _, run in picks], question, focus) if on_question else set()
    for index, (item, text, run) in enumerate(picks):
        source = sources[run[0].source]
        quote = quote_text(run)
        why_not = refusal(text, quote, known_texts, focus if on_question else None, question, source.title)
        if why_not is None and index in far:
            why_not = f"far in meaning from the question: {quote[:100]!r}"
        if why_not is None and on_question:
            why_not = other_sides_quote(quote, source, focus, question, sources)
        if why_not is None and leans_back(run[0].text):
            # with_antecedents found no sentence before it: what "this setting" is, the page does not show
            why_not = f"leans on a sentence the passage does not show: {quote[:100]!r}"
        if why_not:
            refused.append(why_not)
            continue
        known_texts.append(text)
        cited[source.id] = source
        findings.append(
            Finding(
                id=stable_id(branch.id, text),
                sub_question_id=branch.id,
                text=text,
                confidence=item.confidence,
                source_ids=[source.id],
                iteration=iteration,
                quote=quote,
                location=location(source.url, quote),
            ).model_dump()
        )
    return findings, list(cited.values()), refused
