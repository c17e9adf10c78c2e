"""A sentence may not swap the two things its quote relates ("A act as B" from "B act as A")."""

from research_core.synthesis.grounding import ground_text
from research_core.synthesis.swapped_roles import swapped_roles

WINDOW = {
    "title": "9.22. Window Functions",
    "url": "/usr/share/doc/postgresql-doc-15/html/functions-window.html",
    "snippet": "",
}
QUOTE = (
    "Aggregate functions act as window functions only when an OVER clause follows the call; otherwise they act "
    "as plain aggregates and return a single row for the entire set."
)
TOPIC = "How do PostgreSQL and SQLite support window functions?"
NAMES = ("PostgreSQL", "SQLite")


def test_the_two_kinds_of_function_swapped_around_their_relation_are_removed():
    text = (
        "In PostgreSQL, window functions act as aggregate functions only when an OVER clause follows the call "
        "[[src:a]]."
    )
    out = ground_text(text, {"a": WINDOW}, {"a": [QUOTE]}, NAMES, TOPIC)
    assert "window functions act as aggregate functions" not in out.text
    # the quote itself, cited to its page, stands in its place
    assert "Aggregate functions act as window functions only when an OVER clause follows the call" in out.text


def test_the_relation_as_the_quote_states_it_passes():
    clause = "In PostgreSQL, an aggregate function acts as a window function only when an OVER clause follows the call"
    assert swapped_roles(clause, QUOTE) is None


def test_a_list_retold_in_another_order_is_not_a_swap():
    quote = "The ANALYZE command collects statistics about tables, indexes and views for the planner."
    clause = "The ANALYZE command collects statistics about views, indexes and tables for the planner"
    assert swapped_roles(clause, quote) is None


def test_the_refusal_says_which_way_the_quote_has_it():
    reason = swapped_roles("Window functions act as aggregate functions", QUOTE)
    assert reason == "turns its quote around: the quote has 'aggre ... windo', not the other way round"
