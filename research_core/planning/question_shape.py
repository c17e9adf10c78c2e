"""The shape of a question, read by code: its parts, its named subjects, and whether it has several parts.

These signals do not depend on the LLM, so a small model's bias cannot talk a multi-part question
down to flat research, and a sub-question that lost its subject ("When should each option be
used?") can be made to stand alone again.
"""

from __future__ import annotations

import re
from itertools import pairwise

from research_core.text.names import is_asked_name
from research_core.text.words import content_words

# Words that open a question clause, in English.
_WH = r"(?:what|how|which|why|when|where|who|whom|whose|is|are|does|do|can|should|explain|describe|list)"
# Comparison or multi-aspect wording, each with the name of the signal it gives.
_SIGNALS: list[tuple[str, str]] = [
    (r"\bcompar(e|es|ed|ing|ison)\b", "asks for a comparison"),
    (r"\b(vs\.?|versus)\b", "names options to weigh against each other"),
    (r"\bdiffer(s|ence|ences|ent)?\b.*\b(and|from|between)\b", "asks how named options differ"),
    (r"\bbetween\b\s+\S+.*\band\b", "asks about the relation between named options"),
    (r"\bpros and cons\b|\badvantages and disadvantages\b|\bstrengths and weaknesses\b", "weighs pros and cons"),
    (r"\btrade-?offs?\b", "asks for trade-offs"),
    (r"\bcauses?\b.*\b(effects?|consequences?|impact)\b", "asks for causes and effects"),
    (r"\b(competing|opposing)\b|\bboth sides\b|\barguments? for and against\b", "weighs competing positions"),
    (r"\bevaluate\b.*\b(positions?|views?|claims?|arguments?)\b", "weighs competing positions"),
    (r"比較|違い|それぞれ|対比|長所と短所", "asks for a comparison"),
]
_LIST = re.compile(r"\w[^,;:]*,\s*[^,;:]+,?\s+(and|or)\s+\w", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(
    rf"\?\s*|？|;\s*|:\s+(?={_WH}\b)|,\s*(?:and\s+|or\s+|then\s+)?(?={_WH}\b)|\s+and\s+(?=(?:what|how|which|why|when|where|who)\b)",
    re.IGNORECASE,
)
_JA_CLAUSE_SPLIT = re.compile(r"[、。]\s*(?=.*(?:説明|比較|教えて|述べ))|し、")
_NAME = re.compile(
    r"(?<![A-Za-z0-9_.])([A-Z][A-Za-z0-9_.+#-]*[A-Z0-9][A-Za-z0-9_.+#-]*|[A-Z][a-z]{2,}\b(?:\s+[A-Z][a-z]{2,}\b)*"
    r"|[A-Za-z0-9_]*[_.][A-Za-z0-9_.]+[A-Za-z0-9_]|\d{3,4})"
)
_NOT_NAMES = frozenset(
    [
        "What",
        "How",
        "Which",
        "Why",
        "When",
        "Where",
        "Who",
        "Whom",
        "Whose",
        "Is",
        "Are",
        "Does",
        "Do",
        "Can",
        "Should",
        "Compare",
        "Explain",
        "Describe",
        "List",
        "Give",
        "Evaluate",
        "Discuss",
        "I",
        "The",
        "A",
        "An",
        "In",
        "On",
        "For",
        "Of",
        "And",
        "Or",
    ]
)

# Question words that carry no topic: a source sharing only these with the question is off-topic.
GENERIC_WORDS = frozenset(
    [
        "compare",
        "comparison",
        "differ",
        "difference",
        "different",
        "handle",
        "handled",
        "work",
        "works",
        "working",
        "support",
        "supported",
        "provide",
        "provided",
        "offer",
        "offered",
        "mean",
        "means",
        "use",
        "used",
        "using",
        "usage",
        "way",
        "ways",
        "does",
        "can",
        "could",
        "should",
        "would",
        "will",
        "main",
        "key",
        "important",
        "role",
        "feature",
        "features",
        "aspect",
        "aspects",
        "option",
        "options",
        "each",
        "both",
        "other",
        "explain",
        "describe",
        "list",
        "give",
        "example",
        "examples",
        "best",
        "better",
        "good",
        "general",
        "overview",
        "kind",
        "kinds",
        "type",
        "types",
        "approach",
        "approaches",
        "affect",
        "effect",
        "happen",
        "help",
        "make",
        "made",
        "need",
        "needs",
        "new",
        "old",
        "also",
        "into",
        "than",
        "then",
        "there",
        "their",
        "them",
        "they",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "which",
        "while",
        "like",
        "get",
        "set",
        "many",
        "much",
        "more",
        "most",
        "some",
        "such",
        "same",
        "own",
        "well",
    ]
)


def topic_words(question: str) -> set[str]:
    """The question's content words less the generic question vocabulary."""
    return {w for w in content_words(question) if w not in GENERIC_WORDS}


def question_parts(question: str) -> list[str]:
    """The question split into its clauses ("what …, how …, and which …"), each trimmed; at least one."""
    text = " ".join(question.split())
    pieces = (
        _CLAUSE_SPLIT.split(text)
        if not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text)
        else (_JA_CLAUSE_SPLIT.split(text))
    )
    parts = [p.strip(" ,.;:?？。、") for p in pieces if p and len(content_words(p)) >= 2]
    return parts or [text]


def subjects(question: str) -> list[str]:
    """Names a question is about: capitalised terms past its first word, code-like names, years.

    A plain capitalised first word ("Fast", "Explain") is not a name; a first word with inner
    capitals or digits ("SQLite", "PostgreSQL") is.
    """
    found: dict[str, None] = {}
    lead = len(question) - len(question.lstrip())
    for match in _NAME.finditer(question):
        words = match.group(1).strip(".").split()
        if match.start() == lead and words and re.fullmatch(r"[A-Z][a-z]+", words[0]):
            words = words[1:]  # a sentence's capitalised first word is not a name
        words = [w for w in words if w not in _NOT_NAMES]
        name = re.sub(r"['’]s$", "", " ".join(words))
        if name:
            found.setdefault(name, None)
    return list(found)


# a product's name: capitalised, with a lower-case letter ("Python", "PostgreSQL", "Node"); not an
# acronym ("SQL", "ON") or an acronym's plural ("MPMs")
_PRODUCT = re.compile(r"^(?![A-Z]{2,}s$)[A-Z][\w.+#-]*[a-z][\w.+#-]*$")


def products(text: str) -> list[str]:
    """The products `text` names among its subjects: "PostgreSQL", "SQLite", "Python", not "ON" or "MPMs"."""
    return [name for name in subjects(text) if _PRODUCT.match(name)]


def coordinated_names(question: str) -> list[str]:
    """Names the question joins as options ("PostgreSQL and SQLite", "React vs Vue"), in order; [] when none."""
    text = " ".join(question.split())
    found: dict[str, None] = {}
    for a, b in pairwise(subjects(text)):
        if re.search(rf"{re.escape(a)}\W+(?:\w+\W+)?(and|or|vs\.?|versus|,)\s+(?:\w+\W+)?{re.escape(b)}", text):
            found.setdefault(a, None)
            found.setdefault(b, None)
    return list(found)


def multi_part_signals(question: str) -> list[str]:
    """Reasons, read from the wording alone, that the question has several distinct parts (empty: none)."""
    text = " ".join(question.split())
    reasons: list[str] = []
    for pattern, reason in _SIGNALS:
        if re.search(pattern, text, re.IGNORECASE) and reason not in reasons:
            reasons.append(reason)
    if coordinated_names(text) and "asks how named options differ" not in reasons:
        reasons.append("asks about several named options")
    if text.count("?") + text.count("？") > 1:
        reasons.append("asks several questions")
    parts = question_parts(text)
    if len(parts) > 1:
        reasons.append(f"has {len(parts)} clauses")
    elif _LIST.search(text):
        reasons.append("lists several aspects or options")
    return reasons


def stand_alone(sub_question: str, question: str) -> str:
    """The sub-question, with the main question's subjects added when it names no subject at all, and
    the question's products when it names some but no product (`_unnamed_products`).

    "When should each option be used?" under "Compare PostgreSQL and SQLite" becomes
    "When should each option be used (PostgreSQL, SQLite)?", so it can be searched on its own.
    """
    own = subjects(sub_question)
    names = subjects(question) if not own else _unnamed_products(own, question)
    lowered = sub_question.lower()
    if not names or any(n.lower() in lowered for n in names):
        return sub_question
    body = sub_question.rstrip().rstrip("?？").rstrip()
    return f"{body} ({', '.join(names[:4])})?"


def _unnamed_products(own: list[str], question: str) -> list[str]:
    """The question's products (`products`) when every name a sub-question gives (`own`) is a command,
    an acronym or code ("VACUUM", "JSON", "fs.readFile"): "What is VACUUM and why does it need to be
    run?" under a PostgreSQL question was answered from SQLite's VACUUM page; [] when it names a
    product, a person or anything else of its own."""
    return products(question) if all(n.isupper() or is_asked_name(n) for n in own) else []


_FRAME = re.compile(rf"^(?P<head>[^:?？]{{3,200}}?):\s+(?={_WH}\b)", re.IGNORECASE)


# generic words that end a compound term after a lower-case topic word: the "key" of "foreign key"
# is the topic, the "key" of "the key differences" is not
_COMPOUND_TAILS = frozenset({"key", "keys"})


def keywords(text: str, leave_out: set[str]) -> list[str]:
    """The topic words of `text` as written there, in order, once each, less those in `leave_out`;
    a compound's generic tail ("foreign key") is kept with its head."""
    wanted = topic_words(text) - leave_out
    tokens = re.findall(r"[\w'.+#-]+", text)
    words = [
        w
        for i, w in enumerate(tokens)
        if content_words(w) & wanted
        or (w.lower() in _COMPOUND_TAILS and i and tokens[i - 1].islower() and content_words(tokens[i - 1]) & wanted)
    ]
    return list(dict.fromkeys(w.strip(".'") for w in words))


def frame_head(question: str) -> str:
    """The head that frames a question's clauses ("Compare X in A and B" in "Compare X in A and B: how
    ..., how ...?"), or "" when the question has no such head."""
    match = _FRAME.match(" ".join(question.split()))
    return match.group("head").strip() if match else ""


def _name_words(text: str) -> set[str]:
    """The words of the names `text` mentions (`subjects`), lower-cased: what a frame leaves to `stand_alone`."""
    return {w.lower() for n in subjects(text) for w in content_words(n)}


_DEFINED = re.compile(
    rf"^(?:what|who)\s+(?:is|are)\s+(?P<topic>[^,;:?？]{{3,120}}?)\s*[,;]\s*(?:and\s+)?(?={_WH}\b)",
    re.IGNORECASE,
)
# a defined topic of more words than this is a clause of its own ("the pros and cons of ..."), not a frame
MAX_DEFINED_WORDS = 3


def defined_topic(question: str) -> str:
    """The topic a question opens by asking to define ("window functions" in "What are window functions,
    how does PostgreSQL support them, and does SQLite support the same OVER clause?"), less any name;
    "" when the question does not open so, or the topic is longer than a short term.

    The clauses after such an opening are about that topic even where they do not repeat it ("them",
    "the same OVER clause"), so it frames them as a "head:" does (`frame_terms`).
    """
    match = _DEFINED.match(" ".join(question.split()))
    if not match:
        return ""
    topic = match.group("topic")
    words = keywords(topic, _name_words(topic))
    return " ".join(words) if len(words) <= MAX_DEFINED_WORDS else ""


def frame_terms(sub_question: str, question: str) -> str:
    """The words of the main question's frame that the sub-question lacks ("" when none).

    In "Compare full-text search in PostgreSQL and SQLite: how are documents indexed, how are
    queries written, ...", the head before the colon frames every clause. A sub-question such as
    "How are documents indexed in PostgreSQL and SQLite?" lost "full-text search", and searched
    as written it finds pages about B-tree indexes. The missing frame words, in the head's order
    and spelling, are what its searches and its evidence must add. Names are left to
    `stand_alone`. A question that opens by asking to define its topic ("What are window
    functions, how ...?", `defined_topic`) is framed by that topic.
    """
    head = frame_head(question) or defined_topic(question)
    if not head:
        return ""
    return " ".join(keywords(head, content_words(sub_question) | _name_words(head)))


def with_frame(queries: list[str], frame: str) -> list[str]:
    """Each query, with the question's frame words appended when it has none of them (see `frame_terms`)."""
    if not frame:
        return queries
    wanted = content_words(frame)
    return [q if content_words(q) & wanted else f"{q} {frame}" for q in queries]


_COMPARED = re.compile(
    r"^(?:compare|contrast)\s+(?P<topic>.+?)\s+(?:in|with|of|between|across|among|for|on)\s", re.IGNORECASE
)


def compared_topic(question: str) -> str:
    """What a "Compare T in A and B: how ...?" question compares (T), less any name, or "".

    Every query of such a question belongs to T: the model's "How are queries written in SQLite?"
    for "Compare full-text search in PostgreSQL and SQLite: ..., how are queries written, ..." finds
    pages about SQL queries in general. Only a head that opens with the comparison verb counts; in
    "How do A's cluster module and B differ: ..." the head's words are the options themselves, and
    so are they in a coordinated T ("name-based and IP-based virtual hosts"), which gives nothing.
    """
    match = _COMPARED.match(frame_head(question))
    if not match or re.match(rf"{_WH}\b|.*(?:\band\b|\bor\b|,|/)", match.group("topic"), re.IGNORECASE):
        return ""
    topic = match.group("topic")
    return " ".join(keywords(topic, _name_words(topic)))
