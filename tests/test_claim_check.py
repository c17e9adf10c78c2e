"""A cited sentence must say what its source says: one subject per claim, quoted terms, no reversed
negation, no citation on framing, nothing off-topic. Each case here passed the word-overlap check."""

from __future__ import annotations

from research_core.synthesis.claim_check import check_claim
from research_core.synthesis.evidence import build_evidence
from research_core.synthesis.framing import is_framing
from research_core.synthesis.grounding import ground_text

QUESTION = "How do PostgreSQL and SQLite rank full-text search results?"
NAMES = ("PostgreSQL", "SQLite")

SQLITE_FTS = {
    "title": "SQLite FTS3 and FTS4 Extensions",
    "url": "/usr/share/doc/sqlite3/fts3.html",
    "snippet": "FTS3 and FTS4 full-text search results can be ranked by relevance using the matchinfo function. "
    "The ranking of search results is left to the application.",
}
PG_RANK = {
    "title": "12.3. Controlling Text Search",
    "url": "/usr/share/doc/postgresql-doc-15/html/textsearch-controls.html",
    "snippet": "PostgreSQL provides two predefined ranking functions, ts_rank and ts_rank_cd, for ranking search "
    "results by how relevant the documents are to a query.",
}
PG_SAVEPOINT = {
    "title": "ROLLBACK TO SAVEPOINT",
    "url": "/usr/share/doc/postgresql-doc-15/html/sql-rollback-to.html",
    "snippet": "Roll back all commands that were executed after the savepoint was established. "
    "The changes made after the savepoint are discarded; the savepoint remains valid.",
}
REQUESTS = {
    "title": "Requests: raise_for_status",
    "url": "https://example.org/requests/api.html",
    "snippet": "This is not a check to see if the response code is 200 OK. It raises an error for 4xx and 5xx codes.",
}


def _ground(text: str, sources: dict, quotes: dict | None = None, topic: str = QUESTION, known: tuple = ()):
    return ground_text(text, sources, quotes or {}, NAMES, topic, known)


def test_a_sentence_naming_both_systems_cited_to_one_systems_page_is_removed():
    # "both use ts_rank", cited to SQLite's page: half its words are on that page, ts_rank is not
    text = "PostgreSQL and SQLite both use the ts_rank function for ranking search results [[src:s1]]."
    out = _ground(text, {"s1": SQLITE_FTS})
    assert "ts_rank" not in out.text
    assert out.supported == 0 and out.removed


def test_a_fact_moved_to_the_other_system_is_removed_even_with_the_right_page_available():
    # ts_rank is PostgreSQL's: said of SQLite, no source about SQLite quotes it
    text = "SQLite ranks full-text search results with the ts_rank function [[src:p1]]."
    out = _ground(text, {"s1": SQLITE_FTS, "p1": PG_RANK})
    assert out.text == "" and "ts_rank" in out.removed[0]
    assert "sqlite" in out.reasons[0].lower()


def test_a_comparison_gets_a_source_for_each_side_or_goes():
    text = (
        "PostgreSQL ranks search results with ts_rank, while SQLite ranks search results with the matchinfo "
        "function [[src:p1]]."
    )
    out = _ground(text, {"s1": SQLITE_FTS, "p1": PG_RANK})
    # kept only because the engine cited SQLite's page for the SQLite half
    assert "[[src:p1]]" in out.text and "[[src:s1]]" in out.text
    alone = _ground(text, {"p1": PG_RANK})
    assert alone.text == ""


def test_each_clause_is_checked_against_its_own_side():
    # each term is on some cited page, but matchinfo is said of PostgreSQL
    text = (
        "PostgreSQL ranks search results with matchinfo, while SQLite ranks search results with ts_rank "
        "[[src:p1]][[src:s1]]."
    )
    out = _ground(text, {"s1": SQLITE_FTS, "p1": PG_RANK})
    assert out.text == ""


def test_a_statement_that_reverses_its_quote_is_removed():
    text = "The changes made after the savepoint are not lost when you roll back to the savepoint [[src:r1]]."
    out = _ground(text, {"r1": PG_SAVEPOINT}, topic="What happens to changes after a savepoint on rollback?")
    assert out.text == "" and "negates" in out.reasons[0]


def test_a_moved_not_is_a_reversal():
    text = "It checks if the response status code is not 200 OK [[src:q1]]."
    out = _ground(text, {"q1": REQUESTS}, topic="How does raise_for_status check the response code?")
    assert out.text == ""
    kept = _ground(
        "It is not a check to see if the response code is 200 OK [[src:q1]].",
        {"q1": REQUESTS},
        topic="How does raise_for_status check the response code?",
    )
    assert "[[src:q1]]" in kept.text


SQLITE3_NOT_NONE = {
    "title": "Transactions in the sqlite3 module",
    "url": "https://example.org/python/sqlite3.html",
    "snippet": "If the connection attribute isolation_level is not None, new transactions are implicitly opened "
    "before execute() and executemany() executes INSERT, UPDATE, DELETE, or REPLACE statements.",
}


def test_dropping_the_not_of_not_none_is_a_reversal():
    """Python's None is a value, not a negator: "set to None" is what "is not None" denies. The
    reversed retelling gives way to the quote it retells; the faithful one stays."""
    topic = "Which settings of the sqlite3 module control transactions?"
    sources, quotes = {"p1": SQLITE3_NOT_NONE}, {"p1": [SQLITE3_NOT_NONE["snippet"]]}
    reversed_ = (
        "If isolation_level is set to None, new transactions are implicitly opened before execute() and "
        "executemany() executes INSERT, UPDATE, DELETE, or REPLACE statements [[src:p1]]."
    )
    out = ground_text(reversed_, sources, quotes, (), topic)
    assert "set to None" not in out.text
    assert out.text.startswith("If the connection attribute isolation_level is not None") and out.quoted == 1
    faithful = (
        "If isolation_level is not None, new transactions are implicitly opened before execute() and "
        "executemany() executes INSERT, UPDATE, DELETE, or REPLACE statements [[src:p1]]."
    )
    assert ground_text(faithful, sources, quotes, (), topic).text == faithful


def test_terms_are_checked_against_the_quotes_not_the_whole_passage():
    # the passage names ts_rank_cd, but the finding taken from this source quoted only ts_rank
    text = "PostgreSQL can rank search results with ts_rank_cd [[src:p1]]."
    quotes = {"p1": ["PostgreSQL provides two predefined ranking functions for ranking search results."]}
    assert _ground(text, {"p1": PG_RANK}).supported == 1
    assert _ground(text, {"p1": PG_RANK}, quotes).supported == 0


def test_a_framing_sentence_carries_no_citation_and_is_not_counted():
    text = "PostgreSQL and SQLite differ significantly in how they rank search results [[src:p1]]."
    assert is_framing(text, NAMES)
    out = _ground(text, {"p1": PG_RANK})
    assert "[[src:" not in out.text and "differ" in out.text
    assert out.statements == 0


def test_a_restated_question_carries_no_citation_and_is_not_counted():
    # round U's m7 overview opened on the user's question, cited to two pages that assert none of it
    text = "How do PostgreSQL and SQLite rank full-text search results [[src:p1]] [[src:s1]]?"
    out = _ground(text, {"p1": PG_RANK, "s1": SQLITE_FTS})
    assert "[[src:" not in out.text
    assert out.statements == 0 and out.supported == 0


def test_an_off_topic_sentence_is_removed_even_when_its_source_supports_it():
    source = {
        "title": "faulthandler",
        "url": "/x/faulthandler.html",
        "snippet": "The faulthandler module dumps Python tracebacks explicitly, on a fault, after a timeout.",
    }
    text = "The faulthandler module dumps Python tracebacks explicitly after a timeout [[src:f1]]."
    out = ground_text(text, {"f1": source}, {}, ("PostgreSQL", "SQLite"), "How do PostgreSQL and SQLite lock rows?")
    assert out.text == "" and out.reasons == ["not about the question"]


def test_a_sentence_its_source_backs_keeps_its_citation():
    text = "PostgreSQL provides two ranking functions, ts_rank and ts_rank_cd, for search results [[src:p1]]."
    out = _ground(text, {"p1": PG_RANK})
    assert out.supported == 1 and "[[src:p1]]" in out.text


def test_check_claim_names_the_reason():
    evidence = build_evidence({"s1": SQLITE_FTS}, {}, NAMES)
    why = check_claim("PostgreSQL ranks search results with matchinfo", ["s1"], evidence, NAMES)
    assert why and "postgresql" in why


def test_a_comparison_with_one_side_unevidenced_says_so_plainly(tmp_path):
    from research_core.search.library import DocumentLibrary
    from research_core.synthesis.sides import side_gaps
    from tests.conftest import config, make_runner
    from tests.fakes.llm_server import ScriptedLLM, serve

    assert side_gaps(QUESTION, [SQLITE_FTS]) and "PostgreSQL" in side_gaps(QUESTION, [SQLITE_FTS])[0]
    assert side_gaps(QUESTION, [SQLITE_FTS, PG_RANK]) == []
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_text("sqlite-fts.md", f"# {SQLITE_FTS['title']}\n\n{SQLITE_FTS['snippet']}", kind="md")
    with serve(ScriptedLLM()) as (url, _):
        runner = make_runner(tmp_path, url, backends=[library])
        snap = runner.start(QUESTION, config(mode="flat", auto_approve=True, search_backends=["library"]))
    report = runner.result(snap.run_id).final_answer
    assert "## Limitations" in report and "no source about PostgreSQL was found" in report


def test_a_long_sentence_with_a_framing_word_is_checked_as_a_claim():
    text = (
        "In comparison, write-ahead logging in SQLite allows efficient transaction handling by writing "
        "changes to a separate journal file instead of the database file [[src:s1]]."
    )
    assert not is_framing(text, NAMES)
    out = _ground(text, {"s1": SQLITE_FTS}, topic="What is write-ahead logging in SQLite?")
    assert out.statements == 1 and out.text == ""


def test_what_is_left_of_a_section_whose_statements_went_is_removed():
    text = (
        "#### Ranking\n\nPostgreSQL provides two ranking functions, ts_rank and ts_rank_cd, for search results "
        "[[src:p1]].\n\n**PostgreSQL:**\n\n**SQLite:**\n"
        "SQLite ranks results with the ts_rank_cd function [[src:s1]].\n\n"
        "#### Writing queries\n\n**PostgreSQL:**\nPostgreSQL queries are written in Klingon [[src:p1]].\n"
    )
    out = _ground(text, {"s1": SQLITE_FTS, "p1": PG_RANK})
    assert "ts_rank and ts_rank_cd" in out.text
    assert "**SQLite:**" not in out.text and "**PostgreSQL:**" not in out.text
    assert "Writing queries" not in out.text


def test_a_list_items_label_whose_items_went_does_not_head_the_paragraph_after_the_list():
    # round Z's m3 part 3: the items under "2. **SQLite**:" were unsupported and went; the label stayed
    # above a paragraph about PostgreSQL's weights
    text = (
        "1. **PostgreSQL**:\n   - PostgreSQL provides two ranking functions, ts_rank and ts_rank_cd, for search "
        "results [[src:p1]].\n\n2. **SQLite**:\n   - SQLite ranks results with the ts_rank_cd function [[src:s1]].\n\n"
        "Its ranking functions order search results by how relevant the documents are to a query [[src:p1]].\n"
    )
    out = _ground(text, {"s1": SQLITE_FTS, "p1": PG_RANK})
    assert "**SQLite**" not in out.text
    assert "1. **PostgreSQL**:" in out.text and "how relevant the documents are" in out.text


def test_code_with_an_identifier_no_source_shows_is_removed():
    text = "```sql\nSELECT * FROM documents WHERE document_vector MATCH 'sqlite';\n```"
    source = {**SQLITE_FTS, "snippet": "SELECT * FROM documents WHERE body MATCH 'sqlite'; ranks by relevance."}
    out = _ground(text, {"s1": source})
    assert "document_vector" not in out.text and out.supported == 0


def test_a_sentence_under_a_systems_heading_is_about_that_system():
    # names no system itself, but sits under "### SQLite" and cites PostgreSQL's page
    text = "### SQLite\n\nThe ts_rank function ranks search results by relevance [[src:p1]]."
    out = _ground(text, {"s1": SQLITE_FTS, "p1": PG_RANK})
    assert "ts_rank" not in out.text
    under_pg = _ground(
        "**PostgreSQL:**\nThe ts_rank function ranks search results by relevance [[src:p1]].", {"p1": PG_RANK}
    )
    assert "[[src:p1]]" in under_pg.text


def test_a_repeated_statement_is_said_once():
    sentence = "PostgreSQL provides two ranking functions, ts_rank and ts_rank_cd, for search results [[src:p1]]."
    out = _ground(f"### PostgreSQL\n\n{sentence}\n\n### Summary\n\n{sentence}", {"p1": PG_RANK})
    assert out.text.count("ts_rank_cd") == 1
    overview = _ground(sentence, {"p1": PG_RANK}, known=[sentence])
    assert overview.text == ""


SQLITE_WINDOW = {
    "title": "Window Functions",
    "url": "/usr/share/doc/sqlite3/windowfunctions.html",
    "snippet": "SQLite supports window functions through its built-in window functions, which take their "
    "input values from a window of rows.",
}
PG_WINDOW = {
    "title": "3.5. Window Functions",
    "url": "/usr/share/doc/postgresql-doc-15/html/tutorial-window.html",
    "snippet": "A window function performs a calculation across a set of table rows that are somehow related "
    "to the current row.",
}
PG_EVENT_LOG = {
    "title": "19.12. Registering Event Log on Windows",
    "url": "/usr/share/doc/postgresql-doc-15/html/event-log-registration.html",
    "snippet": "To register a Windows event log library with the operating system, issue this command.",
}
WINDOW_QUESTION = "How do PostgreSQL and SQLite support window functions?"


def test_a_page_that_only_names_a_system_cannot_lend_it_another_pages_words():
    # the words are on SQLite's page; PostgreSQL comes only from a page about the Windows event log
    text = "PostgreSQL supports window functions through its built-in window functions [[src:bb01]] [[src:ee01]]."
    evidence = build_evidence({"bb01": SQLITE_WINDOW, "ee01": PG_EVENT_LOG}, {}, NAMES)
    assert "source about postgresql holds" in (check_claim(text, ["bb01", "ee01"], evidence, NAMES) or "")
    out = _ground(text, {"bb01": SQLITE_WINDOW, "ee01": PG_EVENT_LOG}, topic=WINDOW_QUESTION)
    assert out.text == "" and out.supported == 0


def test_a_citation_the_sentence_does_not_need_is_dropped():
    text = (
        "A window function performs a calculation across a set of table rows related to the current row in "
        "PostgreSQL [[src:aa01]] [[src:ee01]]."
    )
    out = _ground(text, {"aa01": PG_WINDOW, "ee01": PG_EVENT_LOG}, topic=WINDOW_QUESTION)
    assert out.supported == 1
    assert "[[src:aa01]]" in out.text and "[[src:ee01]]" not in out.text


def test_a_long_sentence_that_restates_the_question_carries_no_citation():
    question = (
        "How do PostgreSQL and SQLite differ in full-text search: how documents are indexed, how queries "
        "are written, and how results are ranked?"
    )
    text = (
        "Full-text search in PostgreSQL and SQLite differ in how documents are indexed, queries written, and "
        "results ranked [[src:aa01]] [[src:bb01]]."
    )
    assert is_framing(text.split(" [[")[0], NAMES, question)
    out = _ground(text, {"aa01": PG_RANK, "bb01": SQLITE_FTS}, topic=question)
    assert "[[src:" not in out.text and out.statements == 0


NODE_FS = {
    "title": "File system | Node.js v18.20.4 Documentation",
    "url": "/usr/share/doc/nodejs/api/fs.html",
    "snippet": "The node:fs module enables interacting with the file system.",
}
FS_QUOTE = (
    "The fs.readFile() method asynchronously reads the contents of a file into memory one chunk at a time, "
    "allowing the event loop to turn between each chunk."
)


def test_a_quote_that_names_an_option_makes_its_page_a_source_about_that_option():
    # the page's title names Node.js only; the quote the finding took from it names fs.readFile
    names = ("fs.readFile", "fs.createReadStream", "Node.js")
    text = "The fs.readFile() method reads the contents of a file into memory one chunk at a time [[src:fa01]]."
    out = ground_text(text, {"fa01": NODE_FS}, {"fa01": [FS_QUOTE]}, names, "How does fs.readFile read a file?")
    assert out.supported == 1 and "[[src:fa01]]" in out.text
    # a sentence about the option the quotes never name still goes
    text = "The fs.createReadStream() method reads the contents of a file into memory one chunk at a time [[src:fa01]]."
    out = ground_text(text, {"fa01": NODE_FS}, {"fa01": [FS_QUOTE]}, names, "How does fs.readFile read a file?")
    assert out.supported == 0


AUTOINCREMENT_QUOTE = (
    "If no negative ROWID values are inserted explicitly, then automatically generated ROWID values will "
    "always be greater than zero, and not a ROWID of an existing row. "
    "AUTOINCREMENT guarantees that automatically chosen ROWIDs will be increasing but not that they will be sequential."
)


def test_a_statement_keeping_its_quotes_not_is_not_called_a_reversal():
    from research_core.text.negation import polarity_conflict

    verbatim = AUTOINCREMENT_QUOTE.split(". ")[-1]
    assert polarity_conflict(verbatim, AUTOINCREMENT_QUOTE) is None  # the other sentence denies "ROWID", not this one
    retold = "AUTOINCREMENT guarantees that chosen ROWIDs will be increasing, but not necessarily sequential."
    assert polarity_conflict(retold, AUTOINCREMENT_QUOTE) is None
    assert polarity_conflict("AUTOINCREMENT guarantees that ROWIDs will be sequential.", AUTOINCREMENT_QUOTE)


def test_a_fact_about_one_function_is_not_moved_to_another_documented_on_the_same_page():
    # Node's file-system page documents both functions; the quote is readFile's: said of
    # createReadStream, it is a fact moved to the other side of the comparison
    names = ("fs.readFile", "fs.createReadStream", "Node.js")
    page = {
        "title": "File system | Node.js v18.20.4 Documentation",
        "url": "/usr/share/doc/nodejs/api/fs.html",
        "snippet": FS_QUOTE + " To minimize memory costs, when possible prefer streaming via fs.createReadStream().",
    }
    # under its heading, the sentence is about fs.createReadStream without naming it
    text = (
        "### fs.createReadStream\n\nIt reads the contents of a file into memory one chunk at a time, "
        "allowing the event loop to turn between each chunk [[src:fa02]]."
    )
    out = ground_text(text, {"fa02": page}, {"fa02": [FS_QUOTE]}, names, "How does fs.createReadStream read a file?")
    assert out.supported == 0 and "[[src:fa02]]" not in out.text


FS_PAGE = {
    "title": "File system | Node.js v18.20.4 Documentation",
    "url": "/usr/share/doc/nodejs/api/fs.html",
    "snippet": "",
}
FS_QUOTES = {
    "fs": [
        "The fs.readFile() method asynchronously reads the contents of a file into memory one chunk at a time, "
        "allowing the event loop to turn between each chunk. This allows the read operation to have less impact "
        "on other activity that may be using the underlying libuv thread pool.",
        "fs.createReadStream() returns a new ReadStream object that reads the file.",
    ]
}
APACHE_TUNING = {
    "title": "Apache Performance Tuning - Apache HTTP Server Version 2.4",
    "url": "/usr/share/doc/apache2-doc/manual/en/misc/perf-tuning.html",
    "snippet": "",
}
APACHE_QUOTES = {
    "t": ["Prior to Apache 1.3, HostnameLookups defaulted to On. In Apache 1.3 this setting defaults to Off."]
}


def _ground_on(text: str, sources: dict, quotes: dict, names: tuple, topic: str):
    return ground_text(text, sources, quotes, names, topic)


def test_a_fact_the_page_states_of_one_function_is_not_given_to_another():
    topic = "How do fs.readFile and fs.createReadStream in Node.js differ in memory use?"
    moved = (
        "fs.createReadStream() reads the contents of a file one chunk at a time, which allows the read "
        "operation to have less impact on other activity [[src:fs]]."
    )
    out = _ground_on(moved, {"fs": FS_PAGE}, FS_QUOTES, ("Node.js",), topic)
    assert out.text == ""
    assert "fs.readFile()" in out.reasons[0]
    right = (
        "fs.readFile() reads the contents of a file one chunk at a time, which allows the read operation "
        "to have less impact on other activity [[src:fs]]."
    )
    assert _ground_on(right, {"fs": FS_PAGE}, FS_QUOTES, ("Node.js",), topic).text.startswith("fs.readFile()")


AUTOVACUUM_PAGE = {
    "title": "20.10. Automatic Vacuuming",
    "url": "/usr/share/doc/postgresql-doc-15/html/runtime-config-autovacuum.html",
    "snippet": "autovacuum_vacuum_scale_factor (floating point) Specifies a fraction of the table size to add to "
    "autovacuum_vacuum_threshold when deciding whether to trigger a VACUUM.",
}
AUTOVACUUM_QUOTES = {
    "a": [
        "autovacuum_vacuum_scale_factor (floating point) Specifies a fraction of the table size to add to "
        "autovacuum_vacuum_threshold when deciding whether to trigger a VACUUM."
    ]
}


def test_a_parameters_description_is_not_given_to_the_parameter_it_mentions():
    """The description under autovacuum_vacuum_scale_factor names autovacuum_vacuum_threshold; the
    model wrote that the threshold is the fraction (every word of it is in the quote)."""
    topic = "Why does PostgreSQL need VACUUM, how does autovacuum work, and which settings tune it?"
    moved = "`autovacuum_vacuum_threshold`: This is the fraction of the table size that triggers a VACUUM [[src:a]]."
    out = _ground_on(moved, {"a": AUTOVACUUM_PAGE}, AUTOVACUUM_QUOTES, ("PostgreSQL",), topic)
    assert out.text == ""
    assert "autovacuum_vacuum_scale_factor" in out.reasons[0]
    right = (
        "`autovacuum_vacuum_scale_factor` specifies a fraction of the table size to add to "
        "autovacuum_vacuum_threshold when deciding whether to trigger a VACUUM [[src:a]]."
    )
    kept = _ground_on(right, {"a": AUTOVACUUM_PAGE}, AUTOVACUUM_QUOTES, ("PostgreSQL",), topic)
    assert kept.text.startswith("`autovacuum_vacuum_scale_factor` specifies")


FOREIGN_TABLE_PAGE = {
    "title": "CREATE FOREIGN TABLE",
    "url": "/usr/share/doc/postgresql-doc-15/html/sql-createforeigntable.html",
    "snippet": "Constraints on foreign tables (such as CHECK or NOT NULL clauses) are not enforced by the core "
    "PostgreSQL system, and most foreign data wrappers do not attempt to enforce them either.",
}


def test_the_questions_term_is_not_grafted_onto_what_the_quote_is_about():
    """Round HH, m12: the model copied the predicate of a sentence about foreign tables and gave it the
    question's subject, foreign keys; every other word is in the quote."""
    topic = "How do PostgreSQL and SQLite enforce foreign key constraints, and what must be done in SQLite?"
    quotes = {"f": [FOREIGN_TABLE_PAGE["snippet"]]}
    grafted = "Foreign key constraints are not enforced by the core PostgreSQL system [[src:f]]."
    out = _ground_on(grafted, {"f": FOREIGN_TABLE_PAGE}, quotes, ("PostgreSQL", "SQLite"), topic)
    assert "not enforced" not in out.text
    assert "Foreign key constraints" in out.reasons[0]
    kept = "Constraints on foreign tables are not enforced by the core PostgreSQL system [[src:f]]."
    assert "not enforced" in _ground_on(kept, {"f": FOREIGN_TABLE_PAGE}, quotes, ("PostgreSQL", "SQLite"), topic).text


def test_a_looser_retelling_may_not_complete_the_questions_term_from_half_of_it():
    """Round II, m12: "PostgreSQL does not enforce foreign key constraints", cited to the same page about
    foreign tables: no run of its words is copied, but the page never says "key"."""
    topic = "How do PostgreSQL and SQLite enforce foreign key constraints, and what must be done in SQLite?"
    quotes = {"f": [FOREIGN_TABLE_PAGE["snippet"]]}
    loose = "PostgreSQL does not enforce foreign key constraints [[src:f]]."
    out = _ground_on(loose, {"f": FOREIGN_TABLE_PAGE}, quotes, ("PostgreSQL", "SQLite"), topic)
    # the sentence goes; what stands in its place is the page's own sentence about foreign tables
    assert "foreign key" not in out.text and out.text.startswith("Constraints on foreign tables")
    sqlite_page = {
        "title": "SQLite Foreign Key Support",
        "url": "/usr/share/doc/sqlite3/foreignkeys.html",
        "snippet": "Foreign key constraints are disabled by default, so must be enabled for each connection.",
    }
    right = "In SQLite, foreign key constraints are disabled by default [[src:s]]."
    kept = _ground_on(right, {"s": sqlite_page}, {"s": [sqlite_page["snippet"]]}, ("PostgreSQL", "SQLite"), topic)
    assert kept.text.startswith("In SQLite, foreign key constraints are disabled")


def test_this_setting_must_be_the_setting_the_quote_is_about():
    topic = "What is the default KeepAliveTimeout of the Apache HTTP Server?"
    under_keepalive = "### KeepAliveTimeout\n\nThis setting defaults to Off in Apache 1.3 [[src:t]]."
    out = _ground_on(under_keepalive, {"t": APACHE_TUNING}, APACHE_QUOTES, ("Apache",), topic)
    assert "defaults to Off" not in out.text
    assert "HostnameLookups" in out.reasons[0]
    after_its_name = (
        "Prior to Apache 1.3, HostnameLookups defaulted to On [[src:t]]. "
        "This setting defaults to Off in Apache 1.3 [[src:t]]."
    )
    kept = _ground_on(after_its_name, {"t": APACHE_TUNING}, APACHE_QUOTES, ("Apache",), topic)
    assert "This setting defaults to Off in Apache 1.3" in kept.text


def test_sentences_about_the_report_itself_carry_no_citation():
    text = (
        "The main question compares fs.readFile and fs.createReadStream in Node.js [[src:fs]]. "
        "These findings are supported by the documentation provided in the File system page [[src:fs]]. "
        "The findings indicate that fs.readFile() reads the contents of a file one chunk at a time [[src:fs]]."
    )
    out = _ground_on(text, {"fs": FS_PAGE}, FS_QUOTES, ("Node.js",), "How does Node.js read files?")
    framing, fact = out.text.split(". The findings")
    assert "main question" in framing and "supported by the documentation" in framing
    assert "[[src:" not in framing  # no page is lent to a sentence about the report
    assert "one chunk at a time [[src:fs]]" in fact and out.statements == 1


def test_a_page_title_written_as_a_sentence_is_removed():
    text = "File system | Node.js v18.20.4 Documentation [[src:fs]]."
    out = _ground_on(text, {"fs": FS_PAGE}, FS_QUOTES, ("Node.js",), "How does Node.js read files?")
    assert out.text == "" and "title" in out.reasons[0]


def test_a_leaning_sentence_that_fuses_another_directives_quote_is_removed():
    # the model wrote the KeepAliveTimeout answer, then "this setting" with HostnameLookups' DNS latency
    quotes = {
        "t": [
            "Prior to Apache 1.3, HostnameLookups defaulted to On. This adds latency to every request because "
            "it requires a DNS lookup to complete before the request is finished. In Apache 1.3 this setting "
            "defaults to Off.",
            "The default KeepAliveTimeout of 5 seconds attempts to minimize this effect. The tradeoff here is "
            "between network bandwidth and server resources.",
        ]
    }
    text = (
        "The default KeepAliveTimeout of the Apache HTTP Server is 5 seconds [[src:t]]. This setting attempts to "
        "minimize latency by reducing the number of DNS lookups required for each request, which can be costly "
        "in terms of network bandwidth and server resources [[src:t]]."
    )
    out = _ground_on(text, {"t": APACHE_TUNING}, quotes, ("Apache",), "What is the default KeepAliveTimeout?")
    assert "5 seconds" in out.text and "DNS" not in out.text
    assert "HostnameLookups" in out.reasons[0]


WINDOWS_PAGE = {"title": "Window Functions", "url": "/usr/share/doc/sqlite3/windowfunctions.html", "snippet": ""}


def test_a_fact_a_page_states_of_one_system_is_not_given_to_the_system_it_compares_with():
    quotes = {
        "w": [
            "As well as aggregate window functions, SQLite features a set of built-in window functions based on "
            "those supported by PostgreSQL."
        ]
    }
    topic = "What are window functions, how does PostgreSQL support them, and does SQLite support the OVER clause?"
    moved = (
        "PostgreSQL supports window functions, which are a set of built-in window functions based on those "
        "supported by PostgreSQL [[src:w]]."
    )
    out = _ground_on(moved, {"w": WINDOWS_PAGE}, quotes, NAMES, topic)
    assert out.text == "" and "sqlite" in out.reasons[0]
    right = "SQLite features a set of built-in window functions based on those supported by PostgreSQL [[src:w]]."
    assert "[[src:w]]" in _ground_on(right, {"w": WINDOWS_PAGE}, quotes, NAMES, topic).text
    turned = "PostgreSQL features a set of built-in window functions based on those supported by SQLite [[src:w]]."
    out = _ground_on(turned, {"w": WINDOWS_PAGE}, quotes, NAMES, topic)
    # the reader gets the quote, which says it the right way round, not the turned sentence
    assert "PostgreSQL features" not in out.text
    assert out.text.startswith("As well as aggregate window functions, SQLite")
    assert out.quoted == 1
    evidence = build_evidence({"w": WINDOWS_PAGE}, quotes, NAMES)
    assert "not the other way round" in (check_claim(turned, ["w"], evidence, NAMES) or "")


def test_a_lead_in_is_checked_and_carries_no_citation():
    quotes = {
        "t": ["Prior to Apache 1.3, HostnameLookups defaulted to On. In Apache 1.3 this setting defaults to Off."]
    }
    backed = (
        "### HostnameLookups\n\nPrior to Apache 1.3, HostnameLookups defaulted to On, and in Apache 1.3 as follows "
        "[[src:t]]:\n\n- Off"
    )
    out = _ground_on(backed, {"t": APACHE_TUNING}, quotes, ("Apache",), "What does HostnameLookups default to?")
    assert out.text.endswith("as follows:\n\n- Off") and "[[src:" not in out.text and out.statements == 0
    invented = "The manual recommends turning HostnameLookups on for several security reasons [[src:t]]:"
    gone = _ground_on(invented, {"t": APACHE_TUNING}, quotes, ("Apache",), "What does HostnameLookups default to?")
    assert gone.text == "" and gone.removed


PY_SQLITE3 = {
    "title": "sqlite3 — DB-API 2.0 interface for SQLite databases — Python 3.11.2 documentation",
    "url": "/usr/share/doc/python3.11/html/library/sqlite3.html",
    "snippet": "",
}
PY_SQLITE3_QUOTES = {
    "py": [
        "Use the commit() and rollback() methods to respectively commit and roll back pending transactions. "
        "You can choose the underlying SQLite transaction behaviour with the isolation_level attribute."
    ]
}


def test_a_python_method_on_pythons_page_about_sqlite_is_not_given_to_sqlite():
    names = ("PostgreSQL", "SQLite", "Python")
    topic = "How does SQLite isolate transactions, and how does Python's sqlite3 module control them?"
    wrong = (
        "SQLite handles transactions by using the commit() and rollback() methods to respectively commit and "
        "roll back pending transactions [[src:py]]."
    )
    out = _ground_on(wrong, {"py": PY_SQLITE3}, PY_SQLITE3_QUOTES, names, topic)
    assert out.text == "" and "do not say which" in out.reasons[0]
    right = (
        "Python's sqlite3 module uses the commit() and rollback() methods to respectively commit and roll back "
        "pending transactions [[src:py]]."
    )
    out = _ground_on(right, {"py": PY_SQLITE3}, PY_SQLITE3_QUOTES, names, topic)
    assert out.text == right and out.supported == 1
    named = "You can choose the underlying SQLite transaction behaviour with the isolation_level attribute [[src:py]]."
    assert _ground_on(named, {"py": PY_SQLITE3}, PY_SQLITE3_QUOTES, names, topic).text == named


def test_the_result_of_a_query_is_a_claim_not_a_sentence_about_the_report():
    sentence = 'The result of this query will return true if the document contains both "fat" and "rat".'
    assert not is_framing(sentence, ("PostgreSQL",), "How are full-text queries written in PostgreSQL?")
    assert not is_framing("The result will show the total sales for each product.", ("PostgreSQL",), "")
    assert is_framing("The findings show how both systems differ.", ("PostgreSQL",), "")


def test_a_sentence_about_different_options_is_a_claim_not_framing():
    names = ("PostgreSQL", "SQLite")
    assert not is_framing("However, it can be configured with different options such as its starting value.", names)
    assert is_framing("However, they use different mechanisms to achieve this.", names)
    assert is_framing("PostgreSQL and SQLite differ in how they number rows.", names)


def test_a_sentence_about_both_systems_needs_a_source_about_each():
    fileformat = {"title": "Database File Format", "url": "/usr/share/doc/sqlite3/fileformat.html", "snippet": ""}
    quotes = {"ff": ["When the auto-vacuum mode is enabled, the freelist pages are moved to the end of the file."]}
    text = (
        "Both systems move the freelist pages to the end of the file when the auto-vacuum mode is enabled [[src:ff]]."
    )
    out = _ground_on(text, {"ff": fileformat}, quotes, ("PostgreSQL", "SQLite"), "auto-vacuum in PostgreSQL and SQLite")
    assert out.text == "" and "speaks of both" in out.reasons[0]


def test_what_a_sentence_says_of_one_side_must_be_in_that_side_s_sources():
    # the savepoints are in PostgreSQL's tutorial, cited beside Python's page
    sources = {
        "py": PY_SQLITE3,
        "pg": {"title": "3.4. Transactions", "url": "/usr/share/doc/postgresql-doc-15/html/tutorial-transactions.html"},
    }
    quotes = {
        "py": ["The isolation_level attribute controls the transaction handling performed by the sqlite3 module."],
        "pg": ["There is a lot of control possible in a transaction block through the use of savepoints."],
    }
    text = "Python's sqlite3 module allows control of transactions through the use of savepoints [[src:py]] [[src:pg]]."
    out = _ground_on(text, sources, quotes, ("PostgreSQL", "SQLite", "Python"), "transactions in Python's sqlite3")
    assert "savepoints [[src" not in out.text


def test_a_retelling_that_gives_a_quote_to_another_named_thing_is_removed():
    numeric = {"title": "8.1. Numeric Types", "url": "/usr/share/doc/postgresql-doc-15/html/datatype-numeric.html"}
    quotes = {
        "n": [
            "The data types smallserial, serial and bigserial are not true types, but merely a notational "
            "convenience for creating unique identifier columns."
        ]
    }
    topic = "How are unique identifier columns created in PostgreSQL?"
    moved = (
        "The data type `numeric` is not a true type but merely a notational convenience for creating unique "
        "identifier columns [[src:n]]."
    )
    out = _ground_on(moved, {"n": numeric}, quotes, ("PostgreSQL",), topic)
    assert out.text == "" and "does not name numeric" in out.reasons[0]
    kept = (
        "The data types `smallserial`, `serial` and `bigserial` are not true types, but merely a notational "
        "convenience for creating unique identifier columns [[src:n]]."
    )
    assert _ground_on(kept, {"n": numeric}, quotes, ("PostgreSQL",), topic).text == kept


def test_a_fact_from_one_systems_manual_is_not_given_to_the_other_system_it_mentions():
    # SQLite's page names PostgreSQL once (its model for window functions); what it says of window
    # functions is SQLite's, and a sentence giving it to PostgreSQL is removed
    windows = {"title": "Window Functions", "url": "/usr/share/doc/sqlite3/windowfunctions.html"}
    quotes = {
        "w": [
            "The SQLite developers used the PostgreSQL window function documentation as their primary reference.",
            "Window functions come in two varieties: aggregate window functions and built-in window functions.",
        ]
    }
    names = ("PostgreSQL", "SQLite")
    topic = "What are window functions, how does PostgreSQL support them, and does SQLite support the same OVER clause?"
    moved = (
        "In PostgreSQL, window functions come in two varieties: aggregate window functions and built-in "
        "window functions [[src:w]]."
    )
    assert _ground_on(moved, {"w": windows}, quotes, names, topic).text == ""
    own = "Window functions come in two varieties: aggregate window functions and built-in window functions [[src:w]]."
    assert _ground_on(own, {"w": windows}, quotes, names, topic).text == own
    # naming the manual's own system later in the sentence does not make the fact PostgreSQL's
    quotes["w"].append("Window function support was first added to SQLite with release version 3.25.0 (2018-09-15).")
    garbled = (
        "PostgreSQL supports window functions by first adding support to SQLite with release version 3.25.0 "
        "(2018-09-15) [[src:w]]."
    )
    assert _ground_on(garbled, {"w": windows}, quotes, names, topic).text == ""
    # what the page says of PostgreSQL itself may be given to PostgreSQL
    said = (
        "The SQLite developers used the PostgreSQL window function documentation as their primary reference [[src:w]]."
    )
    assert _ground_on(said, {"w": windows}, quotes, names, topic).text == said


def test_a_quote_about_one_named_option_does_not_back_a_sentence_giving_it_to_another():
    avoid = {"title": "When not to use mod_rewrite - Apache HTTP Server", "url": "/manual/en/rewrite/avoid.html"}
    quotes = {
        "a": [
            "However, in many cases, when there is no actual pattern matching needed, as in the example shown "
            "above, the ProxyPass directive is a better choice."
        ]
    }
    names = ("mod_proxy", "ProxyPass", "mod_rewrite")
    topic = "Compare reverse proxying with mod_proxy's ProxyPass directive and with mod_rewrite's [P] flag"
    swapped = "When there is no actual pattern matching needed, mod_rewrite is a better choice [[src:a]]."
    assert _ground_on(swapped, {"a": avoid}, quotes, names, topic).text == ""
    kept = "When there is no actual pattern matching needed, the ProxyPass directive is a better choice [[src:a]]."
    assert _ground_on(kept, {"a": avoid}, quotes, names, topic).text == kept


def test_a_term_from_one_systems_page_is_not_given_to_the_other_because_its_page_is_cited_too():
    # the PostgreSQL page makes the sentence cite a source about PostgreSQL; its release number is
    # only on SQLite's page, which names PostgreSQL but says the number of SQLite
    sources = {
        "w": {"title": "Window Functions", "url": "/usr/share/doc/sqlite3/windowfunctions.html"},
        "p": {"title": "SELECT", "url": "/usr/share/doc/postgresql-doc-15/html/sql-select.html"},
    }
    quotes = {
        "w": [
            "Window function support was first added to SQLite with release version 3.25.0 (2018-09-15). The SQLite "
            "developers used the PostgreSQL window function documentation as their primary reference."
        ],
        "p": [
            "However, the WINDOW clause saves typing when the same window definition is needed for more than one "
            "window function.",
            "The optional WINDOW clause has the general form WINDOW window_name AS ( window_definition ) where "
            "window_name is a name that can be referenced from OVER clauses or subsequent window definitions.",
        ],
    }
    names = ("PostgreSQL", "SQLite", "OVER")
    topic = "What are window functions, how does PostgreSQL support them, and does SQLite support the same OVER clause?"
    moved = "PostgreSQL supports window functions since its release version 3.25.0 (2018-09-15) [[src:w]] [[src:p]]."
    out = _ground_on(moved, sources, quotes, names, topic)
    assert out.text == "" and out.removed
    own = "Window function support was first added to SQLite with release version 3.25.0 (2018-09-15) [[src:w]]."
    assert _ground_on(own, sources, quotes, names, topic).text == own


def test_what_a_page_says_of_one_side_is_not_given_to_the_other_after_a_difference_lead_in():
    # cluster.html says worker_threads runs threads in one instance; "The difference between X and Y
    # is that" names both sides, so it does not make that true of the cluster module
    sources = {
        "c": {"title": "Cluster | Node.js v18.20.4 Documentation", "url": "/usr/share/doc/nodejs/api/cluster.html"},
        "w": {
            "title": "Worker threads | Node.js v18.20.4 Documentation",
            "url": "/usr/share/doc/nodejs/api/worker_threads.html",
        },
    }
    quotes = {
        "c": [
            "When process isolation is not needed, use the worker_threads module instead, which allows running "
            "multiple application threads within a single Node.js instance."
        ],
        "w": ["The node:worker_threads module enables the use of threads that execute JavaScript in parallel."],
    }
    names = ("Node", "worker_threads")
    topic = "What is the difference between Node.js's cluster module and worker_threads?"
    moved = (
        "The difference between Node.js's cluster module and worker_threads is that the cluster module allows "
        "running multiple application threads within a single Node.js instance, while worker_threads enables the "
        "use of threads that execute JavaScript in parallel [[src:c]] [[src:w]]."
    )
    out = _ground_on(moved, sources, quotes, names, topic)
    assert "cluster module allows running" not in out.text and out.removed
    right = (
        "Node.js's cluster documentation says to use the worker_threads module when process isolation is not "
        "needed, which allows running multiple application threads within a single Node.js instance [[src:c]]."
    )
    assert _ground_on(right, sources, quotes, names, topic).text == right


def test_a_sentence_stitched_from_two_quotes_is_removed():
    # the opening of the window-function page and the WITH page's rule, joined: neither says SQLite
    # supports recursive common table expressions "as well as aggregate window functions"
    sources = {
        "w": {"title": "Window Functions", "url": "/usr/share/doc/sqlite3/windowfunctions.html"},
        "c": {"title": "The WITH Clause", "url": "/usr/share/doc/sqlite3/lang_with.html"},
    }
    quotes = {
        "w": ["As well as aggregate window functions, SQLite features a set of built-in window functions."],
        "c": [
            "Common Table Expressions or CTEs act like temporary views that exist only for the duration of a single "
            "SQL statement.",
            "Common table expressions are created by prepending a WITH clause in front of a SELECT, INSERT, DELETE, "
            "or UPDATE statement.",
        ],
    }
    names = ("PostgreSQL", "SQLite")
    topic = "What are window functions and common table expressions in SQLite?"
    stitched = (
        "As well as aggregate window functions, SQLite supports recursive common table expressions created by "
        "prepending a WITH clause [[src:w]] [[src:c]]."
    )
    out = _ground_on(stitched, sources, quotes, names, topic)
    assert "As well as aggregate window functions, SQLite supports" not in out.text
    one = (
        "In SQLite, common table expressions are created by prepending a WITH clause in front of a SELECT, INSERT, "
        "DELETE, or UPDATE statement [[src:c]]."
    )
    assert _ground_on(one, sources, quotes, names, topic).text == one


def test_a_comparison_retold_past_its_quotes_gives_way_to_each_sides_own_quote():
    # no page is about both systems, so the retelling cannot give way to one quote; each side that
    # a quote holds keeps that quote, cited to its own page
    sources = {"s1": SQLITE_FTS, "p1": PG_RANK}
    quotes = {
        "s1": ["The ranking of search results is left to the application."],
        "p1": [
            "PostgreSQL provides two predefined ranking functions, ts_rank and ts_rank_cd, for ranking search "
            "results by how relevant the documents are to a query."
        ],
    }
    retold = (
        "PostgreSQL offers ranking functions such as ts_rank and ts_rank_cd that score documents cleverly, "
        "while SQLite has nothing comparable built in [[src:p1]] [[src:s1]]."
    )
    out = _ground(retold, sources, quotes)
    assert "cleverly" not in out.text
    assert "PostgreSQL provides two predefined ranking functions, ts_rank and ts_rank_cd" in out.text
    assert out.text.count("[[src:p1]]") == 1 and "[[src:s1]]" not in out.text.split("ts_rank_cd")[0]


def test_in_both_systems_needs_each_sides_own_source_to_say_it():
    # a source about each side is cited, but only SQLite's says what MATCH's operand is
    sources = {
        "s": {"title": "SQLite FTS3 and FTS4 Extensions", "url": "/usr/share/doc/sqlite3/fts3.html"},
        "p": {"title": "12.1. Introduction", "url": "/usr/share/doc/postgresql-doc-15/html/textsearch-intro.html"},
    }
    quotes = {
        "s": [
            "In all of the full-text queries above, the right-hand operand of the MATCH operator is a string "
            "consisting of a single term."
        ],
        "p": [
            "Full text searching in PostgreSQL is based on the match operator @@, which returns true if a tsvector "
            "(document) matches a tsquery (query)."
        ],
    }
    both = (
        "In both systems, the right-hand operand of the MATCH operator is a string consisting of a single term "
        "[[src:s]] [[src:p]]."
    )
    out = _ground(both, sources, quotes, topic="How do PostgreSQL and SQLite match full-text queries?")
    assert "In both systems" not in out.text and out.removed


def test_a_quote_comparing_two_systems_word_for_word_is_kept():
    # each clause of the quote names its own system; the quote's own words move nothing
    sources = {"c": {"title": "comparison", "url": "library://comparison.txt"}}
    quotes = {
        "c": [
            "Comparing SQLite and PostgreSQL: practitioners recommend SQLite for small web apps, prototypes and "
            "single-server deployments, and PostgreSQL once concurrent writes, several app servers or strict access "
            "control matter."
        ]
    }
    quote = (
        "Comparing SQLite and PostgreSQL: practitioners recommend SQLite for small web apps, prototypes and "
        "single-server deployments, and PostgreSQL once concurrent writes, several app servers or strict access "
        "control matter [[src:c]]."
    )
    out = _ground(quote, sources, quotes, topic="Compare SQLite and PostgreSQL for small web apps")
    assert out.text == quote and out.supported == 1


def test_a_fact_with_a_framing_word_is_checked_as_a_claim():
    # uncited "framing" sentences of recorded reports that state facts no source backs
    topic = "How do SERIAL, identity columns and AUTOINCREMENT differ in PostgreSQL and SQLite?"
    names = ("PostgreSQL", "SQLite", "SERIAL", "AUTOINCREMENT")
    assert not is_framing("Identity columns are similar to SERIAL but can have a larger range of values.", names, topic)
    window = (
        "What are window functions, how does PostgreSQL support them, and does SQLite support the same OVER clause?"
    )
    instead = "Instead, it uses subqueries and common table expressions (CTEs) to achieve similar functionality."
    assert not is_framing(instead, ("PostgreSQL", "SQLite", "OVER"), window)
    text = f"SQLite has window functions [[src:s1]]. {instead}"
    sqlite_window = {
        "title": "Window Functions",
        "url": "/usr/share/doc/sqlite3/windowfunctions.html",
        "snippet": "SQLite has window functions. A window function is a special SQL function.",
    }
    out = ground_text(text, {"s1": sqlite_window}, {}, ("PostgreSQL", "SQLite", "OVER"), window)
    assert "subqueries" not in out.text
    # sentences that only announce the comparison stay framing, uncited and uncounted
    assert is_framing(
        "PostgreSQL and SQLite both support window functions, but with some differences in implementation.",
        ("PostgreSQL", "SQLite", "OVER"),
        window,
    )
    assert is_framing("However, there are some differences between the two systems.", names, topic)
