"""The window of a long passage shown to a small model is the part that answers the question."""

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
