"""A branch about one side of a comparison keeps its side: a sentence naming only the compared topic
("JSON") may not rest on the other side's manual."""

from research_core.synthesis.branch_side import branch_side, unnamed_side
from research_core.synthesis.evidence import build_evidence, question_subjects
from research_core.synthesis.grounding import ground_text
from research_core.synthesis.synthesize import ground_branch_answer

QUESTION = (
    "How do PostgreSQL and SQLite differ in their JSON support: which functions does each provide, "
    "and how are JSON values stored?"
)
BRANCH = "How are JSON values stored in PostgreSQL?"
TOPIC = f"{BRANCH} {QUESTION}"
SOURCES = {
    "flex": {
        "title": "The Advantages Of Flexible Typing",
        "url": "/usr/share/doc/sqlite3/flextypegood.html",
        "snippet": "",
    },
    "pgjson": {
        "title": "8.14. JSON Types",
        "url": "/usr/share/doc/postgresql-doc-15/html/datatype-json.html",
        "snippet": "",
    },
}
QUOTES = {
    "flex": [
        'The "value" column output from the json_tree virtual tables The json_tree and json_each table-valued '
        'functions that are built into SQLite both have a "value" column that can hold values of type INTEGER, '
        "REAL, or TEXT depending on the type of the corresponding JSON field."
    ],
    "pgjson": [
        "Because the json type stores an exact copy of the input text, it will preserve semantically-insignificant "
        "white space between tokens, as well as the order of keys within JSON objects."
    ],
}
# held-out round FF, m2 hierarchical: printed under "## 2 How are JSON values stored in PostgreSQL?"
OTHER_SIDES_FACT = (
    'The "value" column from the json_tree and json_each table-valued functions can hold values of type '
    "INTEGER, REAL, or TEXT depending on the type of the corresponding JSON field [[src:flex]]."
)
OWN_FACT = (
    "The json type stores an exact copy of the input text, preserving semantically-insignificant white space "
    "between tokens [[src:pgjson]]."
)


def _names():
    return question_subjects(TOPIC)


def test_a_branch_naming_one_documented_side_is_about_that_side():
    evidence = build_evidence(SOURCES, QUOTES, _names())
    assert branch_side(BRANCH, TOPIC, evidence, _names()) == ("postgresql",)
    # the flat branch (the whole question) and an overview are about every side: no side of their own
    assert branch_side(QUESTION, QUESTION, evidence, _names()) == ()
    assert branch_side("", QUESTION, evidence, _names()) == ()


def test_a_sentence_naming_a_side_keeps_its_own_subject():
    evidence = build_evidence(SOURCES, QUOTES, _names())
    assert unnamed_side("SQLite stores JSON as text.", ["postgresql"], evidence, _names()) == []
    assert unnamed_side("JSON values are stored as text.", ["postgresql"], evidence, _names()) == ["postgresql"]


def test_the_other_sides_fact_is_removed_from_a_one_side_branch():
    text = f"{OTHER_SIDES_FACT} {OWN_FACT}"
    out = ground_text(text, SOURCES, QUOTES, _names(), TOPIC, branch=BRANCH)
    assert "json_tree" not in out.text
    assert "exact copy of the input text" in out.text
    # the same sentence in the flat answer, which is about both systems, stays: it is true of SQLite
    flat = ground_text(text, SOURCES, QUOTES, question_subjects(QUESTION), QUESTION, branch=QUESTION)
    assert "json_tree" in flat.text


def test_the_branch_answer_passes_its_question_to_the_check():
    findings = [
        {"id": "f1", "text": QUOTES["flex"][0], "quote": QUOTES["flex"][0], "source_ids": ["flex"]},
        {"id": "f2", "text": QUOTES["pgjson"][0], "quote": QUOTES["pgjson"][0], "source_ids": ["pgjson"]},
    ]
    sources = [{"id": sid, **s} for sid, s in SOURCES.items()]
    text, _, _ = ground_branch_answer(
        f"{OTHER_SIDES_FACT} {OWN_FACT}", findings, sources, {1: "flex", 2: "pgjson"}, "", TOPIC, BRANCH
    )
    assert (
        "can hold values of type INTEGER, REAL, or TEXT depending on the type of the corresponding JSON field"
        not in text.split("Also found")[0]
    )


def test_a_branch_naming_a_module_of_another_system_needs_a_source_about_one_of_them():
    # round CC-EE regrade: the sqlite3 branch of m4 names Python and, through "sqlite3", SQLite; Python's
    # own page about the module must be enough for a sentence naming neither
    question = (
        "What transaction isolation levels does PostgreSQL offer, how does SQLite isolate transactions, and which "
        "settings of Python's sqlite3 module control transactions?"
    )
    branch = "Which settings of Python's sqlite3 module control transactions?"
    sources = {
        "py": {
            "title": "sqlite3 — DB-API 2.0 interface for SQLite databases — Python 3.11.2 documentation",
            "url": "/usr/share/doc/python3.11/html/library/sqlite3.html",
            "snippet": "",
        },
        "pg": {
            "title": "13.2. Transaction Isolation",
            "url": "/usr/share/doc/postgresql-doc-15/html/transaction-iso.html",
            "snippet": "",
        },
        "plpy": {
            "title": "46.8. Transaction Management",
            "url": "/usr/share/doc/postgresql-doc-15/html/plpython-transactions.html",
            "snippet": "",
        },
    }
    quotes = {
        "py": ["These methods allow you to commit or roll back pending transactions respectively."],
        "pg": ["Read Committed is the default isolation level in PostgreSQL."],
        "plpy": ["To commit the current transaction, call plpy.commit()."],
    }
    names = question_subjects(f"{branch} {question}")
    text = (
        "These methods allow you to commit or roll back pending transactions respectively [[src:py]]. "
        "To commit the current transaction, call plpy.commit() [[src:plpy]]."
    )
    out = ground_text(text, sources, quotes, names, f"{branch} {question}", branch=branch)
    assert "These methods allow you to commit or roll back" in out.text
    # PL/Python's transaction call is PostgreSQL's, not the sqlite3 module's
    assert "plpy.commit" not in out.text
