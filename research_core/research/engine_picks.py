"""Engine picks: the sentence of a shown source most about the branch, where the model picked none.

A small model picks one or two sentences from five sources and passes over the one that states
the branch's answer ("Unlike the 16 KiB default highWaterMark for a <stream.Readable>, the stream
returned by this method has a default highWaterMark of 64 KiB."); a run of ten steps then
ends with five findings, and the report can say only what they hold. So, after the model has
answered, the engine adds for each shown source it picked nothing from the sentence closest in
meaning to the branch's question (`text.embedding`, the question's subjects left out of both:
every sentence of the right manual names its system; but not the function, option or command asked
about, `text.names.is_asked_name`), when that sentence is at least
`ENGINE_PICK_BAR` close, at most `MAX_ENGINE_PICKS` a step, best first. A pick is a finding
like the model's: it goes through every rule of `extraction`, and its confidence says the model
did not choose it. Without the embedding model there are no engine picks.

A manual's definition table answers "What is the default X?" in a field too short for that rule:
"Default: KeepAliveTimeout 5" (`quotes.split_sentences` joins the label to its value). So a shown
field whose label is a word of the branch's question and whose value names one of its subjects is
picked too (`field_picks`), whether or not the model picked from its source.
"""

from __future__ import annotations

import logging

from research_core.planning.question_shape import subjects
from research_core.research.quotes import FIELD, NumberedSentence
from research_core.schemas import ExtractedFinding
from research_core.text import embedding
from research_core.text.anaphora import leans_back
from research_core.text.names import is_asked_name, without_names
from research_core.text.words import content_words

logger = logging.getLogger(__name__)

# cosine similarity, names left out, a sentence needs to the branch's question; on round I's shown
# passages, picks at 0.5 and above were about the question's topic and those below 0.45 mostly not
ENGINE_PICK_BAR = 0.5
MAX_ENGINE_PICKS = 2
ENGINE_PICK_CONFIDENCE = 0.5
MIN_PICK_WORDS = 8  # shorter sentences are headings, labels or fragments more often than facts


def engine_picks(
    focus: str, sentences: list[NumberedSentence], picked: list[ExtractedFinding]
) -> list[ExtractedFinding]:
    """One pick per shown source the model picked nothing from (see the module's rule), best first."""
    chosen_sources = {s.source for item in picked for s in sentences if s.number in item.sentences}
    candidates = [
        s
        for s in sentences
        if s.source not in chosen_sources and len(s.text.split()) >= MIN_PICK_WORDS and not leans_back(s.text)
    ]
    if not candidates or not embedding.available():
        return []
    names = [n for n in subjects(focus) if not is_asked_name(n)]
    try:
        scores = embedding.similarities(without_names(focus, names), [without_names(s.text, names) for s in candidates])
    except Exception as exc:  # the picks are extra evidence: a failure leaves the model's picks alone
        logger.warning("engine picks skipped: %r", exc)
        return []
    best: dict[int, tuple[float, NumberedSentence]] = {}
    for sentence, score in zip(candidates, scores, strict=True):
        if score >= ENGINE_PICK_BAR and score > best.get(sentence.source, (-1.0, sentence))[0]:
            best[sentence.source] = (score, sentence)
    ranked = sorted(best.values(), key=lambda pair: -pair[0])[:MAX_ENGINE_PICKS]
    return [ExtractedFinding(sentences=[s.number], confidence=ENGINE_PICK_CONFIDENCE) for _, s in ranked]


MAX_FIELD_PICKS = 1


def field_picks(
    focus: str, sentences: list[NumberedSentence], picked: list[ExtractedFinding]
) -> list[ExtractedFinding]:
    """The shown fields the branch's question asks for (see the module's rule), not picked already on
    their own: a field the model picked with its neighbours ("Syntax: ... Default: KeepAliveTimeout 5")
    is picked alone too, as the run may be refused where the field is not."""
    chosen = {item.sentences[0] for item in picked if len(item.sentences) == 1}
    asked = content_words(focus)
    names = [n.lower() for n in subjects(focus)]
    out: list[ExtractedFinding] = []
    for sentence in sentences:
        field = FIELD.match(sentence.text)
        if not field or sentence.number in chosen:
            continue
        label = content_words(field.group("label"))
        if label and label <= asked and any(n in field.group("value").lower() for n in names):
            out.append(ExtractedFinding(sentences=[sentence.number], confidence=ENGINE_PICK_CONFIDENCE))
    return out[:MAX_FIELD_PICKS]
