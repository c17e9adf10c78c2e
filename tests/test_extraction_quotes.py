"""Evidence is quoted, not retold: findings carry verbatim quotes of the passage the model was shown,
written findings must be backed by their quote, and navigation pages are never evidence."""

from __future__ import annotations

import json
import re

from research_core.research.extraction import quote_on_topic
from research_core.research.navigation import navigation_reason
from research_core.research.quotes import location, number_sentences, runs_of, statements_of, states_nothing
from research_core.search.library import DocumentLibrary
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, numbered_sentences, serve

FTS = (
    "# SQLite FTS5 Extension\n\nFTS5 is an SQLite virtual table module that provides full-text search. "
    "The built-in bm25 function ranks full-text search results by relevance. "
    "Results are returned best first when the query orders by rank."
)
SITEMAP = (
    "# SQLite Site Map\n\nFull-text search FTS5\nFull-text search FTS3\nSQLite ranking functions\n"
    "SQLite rank bm25\nSQLite search ranking\nSQLite keywords\nSQLite pragmas\nSQLite full-text search index\n"
)
QUESTION = "How does SQLite rank full-text search results?"


def _runner(tmp_path, url):
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_text("fts5.md", FTS, kind="md")
    library.add_text("sitemap.md", SITEMAP, kind="md")
    return make_runner(tmp_path, url, backends=[library])


def _squash(text: str) -> str:
    return " ".join(text.split())


def test_every_finding_quotes_its_source_verbatim_and_says_where(tmp_path):
    with serve(ScriptedLLM()) as (url, _):
        runner = _runner(tmp_path, url)
        snap = runner.start(QUESTION, config(mode="flat", auto_approve=True, search_backends=["library"]))
    result = runner.result(snap.run_id)
    by_id = {s.id: s for s in result.sources}
    findings = result.sub_questions[0].findings
    assert findings
    for f in findings:
        source = by_id[f.source_ids[0]]
        assert f.quote and _squash(f.quote) in _squash(source.snippet)
        assert f.location.startswith(source.url + "#:~:text=")


def test_picked_numbers_that_were_never_shown_make_no_finding(tmp_path):
    ghost = json.dumps({"findings": [{"sentences": [41, 42], "confidence": 0.9}], "reasoning": "r"})
    with serve(ScriptedLLM(script={"extract_findings": [ghost]})) as (url, _):
        runner = _runner(tmp_path, url)
        snap = runner.start(QUESTION, config(mode="flat", auto_approve=True, search_backends=["library"]))
    result = runner.result(snap.run_id)
    first = [f for f in result.sub_questions[0].findings if f.iteration == 1]
    assert first == []
    assert any("picked no sentence shown" in e.message for e in result.log)


def test_a_written_finding_that_names_what_its_quote_does_not_is_refused(tmp_path):
    # shares most words with the FTS5 passage, but ts_rank is PostgreSQL's, not on the page
    written = json.dumps(
        {
            "findings": [
                {"text": "SQLite ranks full-text search results by relevance with ts_rank.", "sources": [1]},
                {"text": "The built-in bm25 function ranks full-text search results by relevance.", "sources": [1]},
            ],
            "reasoning": "r",
        }
    )
    with serve(ScriptedLLM(script={"extract_findings": [written]})) as (url, _):
        runner = _runner(tmp_path, url)
        snap = runner.start(QUESTION, config(mode="flat", auto_approve=True, search_backends=["library"]))
    result = runner.result(snap.run_id)
    first = [f for f in result.sub_questions[0].findings if f.iteration == 1]
    assert [f.text for f in first] == ["The built-in bm25 function ranks full-text search results by relevance."]
    assert "bm25" in first[0].quote
    refused = " ".join(e.message for e in result.log if e.kind == "evidence")
    assert "ts_rank" in refused


def test_a_site_map_is_never_evidence(tmp_path):
    with serve(ScriptedLLM()) as (url, script):
        runner = _runner(tmp_path, url)
        snap = runner.start(QUESTION, config(mode="flat", auto_approve=True, search_backends=["library"]))
        prompts = " ".join(b["messages"][-1]["content"] for t, b in script.calls if t == "extract_findings")
    result = runner.result(snap.run_id)
    assert "Site Map" not in prompts
    assert all("sitemap" not in s.url for s in result.sources)
    assert any("navigation page" in e.message for e in result.log)


def test_navigation_pages_by_title_address_and_shape():
    assert navigation_reason("SQLite Site Map", "/usr/share/doc/sqlite3/sitemap.html")
    assert navigation_reason("Index", "/usr/share/doc/postgresql-doc-15/html/bookindex.html")
    assert navigation_reason("Index — Python 3.11 documentation", "/x/genindex-all.html")
    assert navigation_reason("Python Module Index", "/x/py-modindex.html")
    assert navigation_reason("E.1. Release 15.1", "/x/release-15-1.html")
    # Sphinx writes a typographic apostrophe: held-out round FF cited four of these as evidence
    assert navigation_reason("What’s New In Python 3.3 — Python 3.11.2 documentation", "/x/whatsnew/3.3.html")
    assert navigation_reason("", "/x/notes.html", "\n".join(f"Link {i}" for i in range(12)))
    # pages about indexes are not indexes
    assert navigation_reason("CREATE INDEX", "/x/sql-createindex.html") is None
    assert navigation_reason("12.9. Preferred Index Types for Text Search", "/x/textsearch-indexes.html") is None
    assert navigation_reason("Write-Ahead Logging", "/usr/share/doc/sqlite3/wal.html") is None


def test_picked_neighbours_become_one_quote_and_the_location_finds_it():
    sentences = number_sentences(["One two three four. Five six seven eight. Nine ten eleven twelve.", "A b c d e."])
    runs = runs_of([1, 2, 4], sentences)
    assert [[s.number for s in run] for run in runs] == [[1, 2], [4]]
    link = location("https://x.org/p.html#top", "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda")
    assert link.startswith("https://x.org/p.html#top:~:text=alpha%20beta") and re.search(r",\w", link)


def test_the_fake_reads_the_numbered_listing():
    listing = "Source 1: T\nu\n(1) One two three four.\n(2) Five six seven eight.\n\nSource 2: U\nv\n(3) Nine ten a b."
    assert [(n, k) for n, k, _ in numbered_sentences(listing)] == [(1, 1), (1, 2), (2, 3)]


def test_menus_and_headings_are_not_offered_as_sentences():
    passage = (
        "Home Menu About Documentation Download License Support Purchase Search About Documentation. "
        "Write-Ahead Logging ► Table Of Contents. "
        "The WAL journal mode is set on all connections to the same database file if it is set on one."
    )
    shown = [s.text for s in number_sentences([passage])]
    assert shown == ["The WAL journal mode is set on all connections to the same database file if it is set on one."]
    # a sentence naming several capitalised levels is still a sentence
    levels = "PostgreSQL supports Read Committed, Repeatable Read and Serializable isolation levels."
    assert [s.text for s in number_sentences([levels])] == [levels]


def test_a_page_title_line_is_not_offered_as_a_sentence():
    """Apache's module pages open with their title lines; the model quoted 'Apache HTTP Server Version 2.4
    Apache MPM event' as a finding and the report printed it as a statement."""
    passage = (
        "Apache HTTP Server Version 2.4\n\nApache MPM event\n\nDefault:\n\nThreadsPerChild 25\n\n"
        "The event MPM is designed to allow more requests to be served simultaneously.\n\n"
        "How the server selects the proper name-based virtual host\n\n"
        "This page last modified on 2022-08-09 12:51:29 UTC"
    )
    shown = [s.text for s in number_sentences([passage])]
    assert shown == [
        "Default: ThreadsPerChild 25",
        "The event MPM is designed to allow more requests to be served simultaneously.",
    ]


def test_a_sentence_that_leads_into_a_table_of_contents_is_not_a_quote():
    from research_core.research.quotes import looks_like_menu

    toc = (
        "A typical implementation is below: Reverse Proxy Simple reverse proxying Clusters and Balancers Balancer "
        "and BalancerMember configuration Failover Balancer Manager Dynamic Health Checks BalancerMember status flags"
    )
    assert looks_like_menu(toc)
    assert looks_like_menu("Reverse Proxy ¶ Related Modules Related Directives mod_proxy ProxyPass")
    assert not looks_like_menu("Note: the ProxyPass directive maps remote servers into the space of the local server.")


def test_a_name_that_spells_a_topic_word_is_not_that_topic():
    from research_core.research.extraction import quote_on_topic

    focus = "How does PostgreSQL support window functions?"
    assert not quote_on_topic("To register a Windows event log library with the operating system, run regsvr32.", focus)
    assert quote_on_topic("Window functions are evaluated after aggregate functions.", focus)
    assert quote_on_topic("A window function performs a calculation across a set of table rows.", focus)


def test_a_quote_on_the_page_of_the_module_asked_about_is_on_topic():
    """Round OO, ma4: mod_expires's page describes it as "Generation of Expires and Cache-Control HTTP
    headers ..." without its name, and the quote was refused as "not about this sub-question"."""
    from research_core.research.extraction import quote_on_topic

    focus = "What do Apache's mod_deflate and mod_expires each change in a response?"
    quote = "Description: Generation of Expires and Cache-Control HTTP headers according to user-specified criteria"
    assert quote_on_topic(quote, focus, title="mod_expires - Apache HTTP Server Version 2.4")
    assert not quote_on_topic(quote, focus, title="Caching Guide - Apache HTTP Server Version 2.4")
    # the page of the function's module: Node's child_process page on how spawn's output comes back
    spawn = "What is the output of child_process.spawn in Node.js?"
    pipes = "By default, pipes for stdin, stdout, and stderr are established between the parent and the subprocess."
    assert quote_on_topic(pipes, spawn, title="Child process | Node.js v18.20.4 Documentation")
    # a product's name in the title is not enough: every page of its manual has it
    assert not quote_on_topic(pipes, spawn, title="Process | Node.js v18.20.4 Documentation")


def test_a_quote_naming_the_function_or_command_asked_about_is_on_topic():
    from research_core.research.extraction import quote_on_topic

    # held-out round FF, s3 and s7: both ended with no finding, these refused as "not about this sub-question"
    lru = "What does Python's functools.lru_cache decorator do?"
    assert quote_on_topic(
        "The two principal tools for caching methods are functools.cached_property() and functools.lru_cache().", lru
    )
    explain = "What does EXPLAIN ANALYZE show in PostgreSQL?"
    assert quote_on_topic("You can use the EXPLAIN command to see what query plan the planner creates.", explain)
    # the system's name, a word spelled like the keyword, or a short acronym does not make a quote on topic
    assert not quote_on_topic("This part contains reference information for PostgreSQL server applications.", explain)
    assert not quote_on_topic("To explain a failure, the server writes a message to its log file.", explain)
    keep_alive = "What is the default KeepAliveTimeout of the Apache HTTP Server?"
    assert not quote_on_topic("Each HTTP request is written to the access log file.", keep_alive)
    # round HH, s3: the functools page's own words for the name, in any order
    assert quote_on_topic(
        "An LRU (least recently used) cache works best when the most recent calls are the best predictors.", lru
    )
    assert not quote_on_topic("If user_function is specified, it must be a callable.", lru)


def test_a_branch_asking_only_for_the_difference_borrows_the_main_questions_topic():
    """ "What is the difference between fs.readFile and fs.createReadStream in Node.js?" has no topic
    word but its names (and the "js" of "Node.js" is part of a name): the main question's words decide."""
    from research_core.research.extraction import quote_on_topic

    branch = "What is the difference between fs.readFile and fs.createReadStream in Node.js?"
    question = (
        "Compare fs.readFile and fs.createReadStream in Node.js: how does each read a file, and when is "
        "streaming the better choice for memory use?"
    )
    assert quote_on_topic(
        "To minimize memory costs, when possible prefer streaming via fs.createReadStream().", branch, question
    )
    assert not quote_on_topic("The pipeline API also supports async generators in Node.js.", branch, question)
    assert not quote_on_topic("The crypto module of Node.js provides cryptographic functionality.", branch, question)


def test_a_quote_location_keeps_the_page_of_a_file():
    from research_core.research.quotes import location

    assert location("library://report.pdf#page=12", "Revenue grew by a tenth in 2025.") == (
        "library://report.pdf#page=12:~:text=Revenue%20grew%20by%20a%20tenth%20in%202025."
    )
    assert location("https://example.org/a.html", "Three words here.").startswith("https://example.org/a.html#:~:text=")


def test_a_quote_that_leans_on_the_sentence_before_takes_its_subject_along():
    # picked alone, "this setting" would leave the reader to guess which setting defaults to Off
    passage = (
        "Prior to Apache 1.3, HostnameLookups defaulted to On. In Apache 1.3 this setting defaults to Off. "
        "KeepAliveTimeout sets the number of seconds to wait for the next request."
    )
    sentences = number_sentences([passage])
    [run] = runs_of([2], sentences)
    assert [s.number for s in run] == [1, 2]
    assert "HostnameLookups" in " ".join(s.text for s in run)
    # a sentence that names its own subject is quoted alone
    assert [[s.number for s in r] for r in runs_of([3], sentences)] == [[3]]


def test_a_quote_about_this_effect_takes_the_sentence_that_describes_it():
    """Rounds NN-QQ, ma4: "mod_expires may be used to control this effect" was quoted alone, and the
    report read it as what mod_expires does to every response; the effect is a cached page served
    past its time window, which the sentence before it says."""
    passage = (
        "Caches may keep a rewritten page past the time window it was made for. "
        "mod_expires may be used to control this effect. "
        "The DEFLATE filter compresses responses before they are sent."
    )
    sentences = number_sentences([passage])
    [run] = runs_of([2], sentences)
    assert [s.number for s in run] == [1, 2]


def test_pointers_and_api_headers_are_not_offered_as_sentences():
    passage = (
        "The SQL standard and PostgreSQL-implemented transaction isolation levels are described in Table 13.1. "
        "For a full treatment, please see [berenson95]. "
        "Class: Worker# Added in: v10.5.0 Extends: <EventEmitter>\n"
        "Read Committed is the default isolation level in PostgreSQL."
    )
    assert [s.text for s in number_sentences([passage])] == [
        "Read Committed is the default isolation level in PostgreSQL."
    ]


def test_the_few_hundred_characters_a_small_model_sees_are_statements_not_the_page_menu():
    from research_core.text.windows import best_window

    question = "What are window functions, and does SQLite support the OVER clause?"
    menu = ["Small. Fast. Reliable.", "Choose any three.", "Home", "Menu", "About", "Documentation", "Download"]
    contents = ["Window Functions", "► Table Of Contents", "1. Introduction to Window Functions"]
    contents += ["2. Aggregate Window Functions", "2.1. The PARTITION BY Clause", "3. Built-in Window Functions"]
    page = "\n\n".join([*menu, *contents]) + (
        "\n\nA window function is an SQL function where the input values are taken from a window of rows. "
        "Window functions are distinguished from other SQL functions by the presence of an OVER clause."
    )
    shown = best_window(statements_of(page), question, 350)
    assert "A window function is an SQL function" in shown and "OVER clause" in shown
    assert "Table Of Contents" not in shown and "Aggregate Window Functions" not in shown


def test_a_leaning_quote_finds_its_antecedent_in_the_page_when_the_prompt_showed_only_it():
    page = (
        "Prior to Apache 1.3, HostnameLookups defaulted to On. This adds latency to every request "
        "because it requires a DNS lookup. In Apache 1.3 this setting defaults to Off."
    )
    shown = number_sentences(["This adds latency to every request because it requires a DNS lookup."])
    [run] = runs_of([1], shown, [statements_of(page)])
    assert " ".join(s.text for s in run).startswith("Prior to Apache 1.3, HostnameLookups defaulted to On.")


def test_a_quote_reaches_back_past_another_leaning_sentence_to_the_entry_it_is_about():
    """ "This parameter can only be set at server start" leans on "The default is three", which names no
    parameter either: the quote reaches back to the entry's description, which does (a window chosen by
    meaning showed the last two alone, and the report printed them without the parameter)."""
    page = (
        "autovacuum_max_workers (integer)\n"
        "Specifies the maximum number of autovacuum processes that may be running at any one time. "
        "The default is three. This parameter can only be set at server start."
    )
    shown = number_sentences(["The default is three. This parameter can only be set at server start."])
    [run] = runs_of([2], shown, [statements_of(page)])
    quote = " ".join(s.text for s in run)
    assert quote.startswith("autovacuum_max_workers (integer) Specifies the maximum number of autovacuum processes")
    assert quote.endswith("This parameter can only be set at server start.")


def test_code_declarations_and_version_notes_are_not_offered_as_sentences():
    passage = "int sqlite3_blob_close(sqlite3_blob *);\nNew in version 3.2.\nThis function closes an open BLOB handle."
    assert [s.text for s in number_sentences([passage])] == ["This function closes an open BLOB handle."]


def test_a_quote_leaning_on_a_sentence_the_passage_does_not_hold_makes_no_finding(tmp_path):
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_text(
        "tuning.md",
        "# DNS\n\nThis adds latency to every SQLite full-text search request because it requires a DNS lookup.",
        kind="md",
    )
    library.add_text("fts5.md", FTS, kind="md")
    with serve(ScriptedLLM()) as (url, _):
        runner = make_runner(tmp_path, url, backends=[library])
        snap = runner.start(QUESTION, config(mode="flat", auto_approve=True, search_backends=["library"]))
    result = runner.result(snap.run_id)
    quotes = [f.quote for f in result.sub_questions[0].findings]
    assert quotes and not any(q.startswith("This adds latency") for q in quotes)
    assert any("leans on a sentence the passage does not show" in e.reasoning + e.message for e in result.log)


def test_a_program_copied_from_a_page_is_not_offered_as_a_sentence():
    program = (
        "const { pipeline } = require('node:stream/promises'); const fs = require('node:fs'); "
        "async function run() { await pipeline(fs.createReadStream('archive.tar'), fs.createWriteStream('a.gz')); }"
    )
    assert states_nothing(program)
    assert not states_nothing("highWaterMark <integer> Default: 64 * 1024 sets how much a stream reads at once.")
    assert not states_nothing("The fs.readFile() function buffers the entire file.")
    # held-out round FF, m9: an interactive session and an SQL table with its comments became findings
    assert states_nothing('>>> sqlite3.enable_callback_tracebacks(True) >>> con = sqlite3.connect(":memory:")')
    assert states_nothing(
        "CREATE TABLE t1( t TEXT, -- text affinity by rule 2 nu NUMERIC, -- numeric affinity by rule 5 "
        "i INTEGER, -- integer affinity by rule 1 r REAL, -- real affinity by rule 4"
    )
    assert not states_nothing("The value -- once stored -- keeps the storage class it was given.")


def test_a_breadcrumb_trail_is_not_offered_as_a_sentence():
    assert states_nothing("Apache HTTP Server Version 2.4 Apache > HTTP Server > Documentation > Version 2.4 > Modules")
    assert not states_nothing("The server waits 5 seconds when KeepAliveTimeout > 0 is set for a connection.")


def test_a_definition_tables_default_is_offered_as_a_sentence_with_its_label():
    # how a manual's directive table reads once its cells are lines: each line alone says nothing
    passage = (
        "KeepAliveTimeout Directive ¶\n\nDescription:\n\nAmount of time the server will wait for subsequent "
        "requests on a persistent connection\n\nSyntax:\n\nKeepAliveTimeout num[ms]\n\nDefault:\n\n"
        "KeepAliveTimeout 5\n\nContext:\n\nserver config, virtual host\n\nModule:\n\ncore\n\n"
        "The number of seconds Apache httpd will wait for a subsequent request before closing the connection."
    )
    shown = [s.text for s in number_sentences([passage])]
    assert "Default: KeepAliveTimeout 5" in shown
    assert "Syntax: KeepAliveTimeout num[ms]" in shown
    assert "Default:" not in shown and "KeepAliveTimeout 5" not in shown and "Module: core" not in shown
    assert shown[-1].startswith("The number of seconds")


def test_a_short_word_the_stem_of_a_topic_word_does_not_make_a_quote_on_topic():
    focus = "What is the difference between SERIAL, identity columns and AUTOINCREMENT in PostgreSQL?"
    ident = "Some ident servers have a nonstandard option that causes the returned user name to be encrypted."
    assert not quote_on_topic(ident, focus)
    assert quote_on_topic("An identity column has an implicit sequence attached to it.", focus)
    # a whole short word still matches its inflected forms
    assert quote_on_topic("Each index entry points at a row.", "How are documents indexed in PostgreSQL?")
    assert quote_on_topic("SQLite allows only one writer at a time.", "What is SQLite's write-ahead log?")


def test_the_window_a_small_model_is_shown_keeps_a_tables_fields_apart():
    from research_core.text.windows import best_window

    page = statements_of(
        "KeepAliveTimeout Directive ¶\n\nDescription:\n\nAmount of time the server will wait for subsequent "
        "requests on a persistent connection\n\nSyntax:\n\nKeepAliveTimeout num[ms]\n\nDefault:\n\nKeepAliveTimeout 5"
        "\n\nContext:\n\nserver config, virtual host\n\nThe number of seconds Apache httpd will wait for a subsequent "
        "request before closing the connection. Setting KeepAliveTimeout to a high value may cause performance "
        "problems in heavily loaded servers. The higher the timeout, the more server processes will be kept "
        "occupied waiting on connections with idle clients."
    )
    question = "What is the default KeepAliveTimeout of the Apache HTTP Server?"
    window = best_window(page, question, 350, "\n")
    assert len(window) <= 350
    assert "Default: KeepAliveTimeout 5" in [s.text for s in number_sentences([window])]


def test_a_picked_lead_in_is_not_quoted_without_what_it_leads_into():
    from research_core.research.extraction import picked_quotes
    from research_core.schemas import ExtractedFinding

    sentences = number_sentences(
        [
            "A window function call always contains an OVER clause directly following the function's name. "
            "The syntax of a window function call is one of the following:\n\n"
            "function_name ([expression [, expression ... ]]) OVER window_name"
        ]
    )
    assert [s.text for s in sentences][1] == "The syntax of a window function call is one of the following:"
    quoted, refused = picked_quotes(ExtractedFinding(sentences=[1, 2], confidence=0.9), sentences, 1)
    assert [text for text, _ in quoted] == [
        "A window function call always contains an OVER clause directly following the function's name."
    ]
    quoted, refused = picked_quotes(ExtractedFinding(sentences=[2], confidence=0.9), sentences, 1)
    assert quoted == [] and refused and "lead-in" in refused[0]


def test_a_heading_ending_in_its_anchor_link_is_not_offered_as_a_sentence():
    passage = (
        "How it works#\n\nThe worker processes are spawned using the child_process.fork() method, so that they "
        "can communicate with the parent via IPC.\n\nExample: Read file stream line-by-Line#\n\n"
        "Written in C# and F#, the tool runs anywhere.\n\nchild_process.fork(modulePath[, args][, options])#"
    )
    assert [s.text for s in number_sentences([passage])] == [
        "The worker processes are spawned using the child_process.fork() method, so that they can communicate "
        "with the parent via IPC.",
        "Written in C# and F#, the tool runs anywhere.",
    ]


def test_a_description_is_shown_with_the_term_it_describes():
    """Python's "class zoneinfo.ZoneInfo(key)¶" and PostgreSQL's "autovacuum_vacuum_scale_factor (floating
    point)" head their descriptions; shown alone, "A concrete datetime.tzinfo subclass ..." was reported
    as what datetime.tzinfo is."""
    passage = (
        "autovacuum_vacuum_scale_factor (floating point)\n\nSpecifies a fraction of the table size to add to "
        "autovacuum_vacuum_threshold when deciding whether to trigger a VACUUM.\n\nclass zoneinfo.ZoneInfo(key)¶\n\n"
        "A concrete datetime.tzinfo subclass that represents an IANA time zone.\n\nIntroduction\n\n"
        "The module provides a concrete time zone implementation."
    )
    assert [s.text for s in number_sentences([passage])] == [
        "autovacuum_vacuum_scale_factor (floating point) Specifies a fraction of the table size to add to "
        "autovacuum_vacuum_threshold when deciding whether to trigger a VACUUM.",
        "class zoneinfo.ZoneInfo(key) A concrete datetime.tzinfo subclass that represents an IANA time zone.",
        "The module provides a concrete time zone implementation.",
    ]


def test_an_attribute_named_by_one_word_is_shown_with_its_description():
    """Python's sqlite3 page heads the description "Read-only attribute that provides the number of
    modified rows ..." with "rowcount¶" alone; a one-word name is not written as code, so the name was
    dropped as a heading, and a report on how the module counts changed rows never named rowcount."""
    passage = (
        "Cursor objects¶\n\nThe initial value of lastrowid is None.\n\nrowcount¶\n\nRead-only attribute that "
        "provides the number of modified rows for INSERT, UPDATE, DELETE, and REPLACE statements.\n\n"
        "Introduction¶\n\nThe module provides a DB-API interface."
    )
    assert [s.text for s in number_sentences([passage])] == [
        "The initial value of lastrowid is None.",
        "rowcount Read-only attribute that provides the number of modified rows for INSERT, UPDATE, DELETE, "
        "and REPLACE statements.",
        "The module provides a DB-API interface.",
    ]


def test_a_sentence_leading_into_a_list_is_shown_with_the_lists_items():
    """SQLite's date and time page lists its six functions under "SQLite supports six date and time
    functions as follows:"; the lead-in alone was refused as promising what it does not quote, and each
    item was too short to quote, so no report of either mode named julianday() or strftime()."""
    passage = (
        "1. Overview\n\nSQLite supports six date and time functions as follows:\n\n"
        "date(time-value, modifier, modifier, ...)\n\njulianday(time-value, modifier, modifier, ...)\n\n"
        "strftime(format, time-value, modifier, modifier, ...)\n\nAll six date and time functions take an "
        "optional time value as an argument.\n\nTo read the current date back, run:\n\nSELECT date('now')\n\n"
        "Compatibility"
    )
    assert [s.text for s in number_sentences([passage])] == [
        "SQLite supports six date and time functions as follows: date(time-value, modifier, modifier, ...) "
        "julianday(time-value, modifier, modifier, ...) strftime(format, time-value, modifier, modifier, ...)",
        "All six date and time functions take an optional time value as an argument.",
        "To read the current date back, run: SELECT date('now')",  # the next section's heading is not an item
    ]


def test_a_heading_or_index_entry_ending_in_an_aside_is_not_quoted():
    """Round QQ, m13: PostgreSQL's chapter page gave "WITH Queries (Common Table Expressions)" as a
    finding; its closing bracket read as the end of a sentence. Apache's pages list "Multi-Processing
    Modules (MPMs)" the same way."""
    passage = (
        "WITH Queries (Common Table Expressions)\n\nMulti-Processing Modules (MPMs)\n\n"
        "WITH provides a way to write auxiliary statements for use in a larger query (a CTE)."
    )
    assert [s.text for s in number_sentences([passage])] == [
        "WITH provides a way to write auxiliary statements for use in a larger query (a CTE)."
    ]


def test_an_abbreviation_does_not_end_a_sentence_and_a_barred_list_is_a_menu():
    """Apache's vhosts page: "Most users should read about Name-based vs. IP-based Virtual Hosts to decide
    ..." was cut at "vs.", and "Available Languages: en | fr | ko | tr" was quoted as a fact."""
    passage = (
        "Available Languages: en | fr | ko | tr\n\nMost users should read about Name-based vs. IP-based "
        "Virtual Hosts to decide which type they want to use, e.g. the simpler one. Modules | Directives | FAQ"
    )
    assert [s.text for s in number_sentences([passage])] == [
        "Most users should read about Name-based vs. IP-based Virtual Hosts to decide which type they want to "
        "use, e.g. the simpler one."
    ]
