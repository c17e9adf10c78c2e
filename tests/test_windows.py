"""The window of a long passage shown to a small model is the part that answers the question."""

import pytest

from research_core.text.windows import best_window


def test_the_window_holds_the_sentences_about_the_question():
    text = (
        "This chapter has many sections. It was revised in 2021. Formatting follows the style guide. "
        "Autovacuum launches workers that vacuum tables whose dead tuples exceed the threshold. "
        "The appendix lists other material."
    )
    window = best_window(text, "How does autovacuum decide which tables to vacuum?", 120)
    assert window.startswith("Autovacuum launches workers") and len(window) <= 120
    assert best_window("Short text.", "anything", 120) == "Short text."


def test_a_word_every_sentence_has_counts_less_than_the_one_asked_about():
    # the page's own names are in most of its sentences; the option asked about is in one
    text = " ".join(
        [
            "Node.js runs child_process commands in a shell.",
            "Node.js child_process returns output to a callback.",
            "Node.js child_process kills a command on timeout.",
            "Node.js child_process sets the working directory.",
            "The maxBuffer option limits the bytes of output.",
            "Node.js child_process passes the environment.",
            "Node.js child_process emits an exit event.",
        ]
    )
    question = "What does the maxBuffer option of child_process.exec limit in Node.js, and how is output returned?"
    assert best_window(text, question, 60) == "The maxBuffer option limits the bytes of output."


def test_a_window_is_not_cut_after_an_abbreviation():
    """Round QQ, ma2: the window cut Apache's MaxRequestWorkers sentence at "(e.g.", and the report
    quoted "For threaded and hybrid servers (e.g." as a sentence of its own."""
    text = (
        "The MaxRequestWorkers directive sets the limit on the number of simultaneous requests that will be served.\n"
        "For threaded and hybrid servers (e.g. event or worker), MaxRequestWorkers restricts the total number of "
        "threads that will be available to serve clients.\n" + "Unrelated filler about log files and rotation. " * 8
    )
    window = best_window(text, "Which directive limits the threads of the worker MPM?", 350, "\n")
    assert "For threaded and hybrid servers (e.g. event or worker), MaxRequestWorkers restricts" in window
    assert not any(line.endswith("(e.g.") for line in window.splitlines())


FOREIGN_KEYS = (
    "In order to use foreign key constraints in SQLite, the library must be compiled with neither "
    "SQLITE_OMIT_FOREIGN_KEY nor SQLITE_OMIT_TRIGGER defined. If SQLITE_OMIT_TRIGGER is defined but "
    "SQLITE_OMIT_FOREIGN_KEY is not, then SQLite behaves as it did prior to version 3.6.19 (2009-10-14) - "
    "foreign key definitions are parsed and may be queried using PRAGMA foreign_key_list, but foreign key "
    "constraints are not enforced. The PRAGMA foreign_keys command is a no-op in this configuration. "
    "If OMIT_FOREIGN_KEY is defined, then foreign key definitions cannot even be parsed (attempting to "
    "specify a foreign key definition is a syntax error).\n"
    "Assuming the library is compiled with foreign key constraints enabled, it must still be enabled by the "
    "application at runtime, using the PRAGMA foreign_keys command. For example:\n"
    "sqlite> PRAGMA foreign_keys = ON;\n"
    "Foreign key constraints are disabled by default (for backwards compatibility), so must be enabled "
    "separately for each database connection. (Note, however, that future releases of SQLite might change "
    "so that foreign key constraints enabled by default."
)


def test_the_window_is_the_part_that_answers_in_meaning_not_the_one_repeating_a_rare_word():
    """Words alone chose the build options ("... foreign key constraints are not enforced"), whose rare
    word "enforced" the question shares; what must be done is to turn the pragma on for each connection."""
    from research_core.text import embedding

    if not embedding.available():
        pytest.skip("the bundled embedding model is not installed")
    question = "What must be done in SQLite before foreign key constraints can be enforced?"
    window = best_window(FOREIGN_KEYS, question, 350, "\n")
    assert "PRAGMA foreign_keys = ON" in window and "enabled separately for each database connection" in window
    assert "SQLITE_OMIT_TRIGGER" not in window
