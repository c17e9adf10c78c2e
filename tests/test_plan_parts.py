"""A clause of the question counts as planned only when a sub-question asks what the clause asks,
not when it merely names the same system."""

from __future__ import annotations

from research_core.configuration import build_run_config
from research_core.planning.plan import plan_from_decomposition
from research_core.planning.trim import part_covered
from research_core.schemas import DecompositionOutput, ProposedSubQuestion

UPSERT = (
    "How do PostgreSQL and SQLite write an upsert with ON CONFLICT, and how does Python's sqlite3 module "
    "report how many rows a statement changed?"
)


def _texts(question: str, *subs: str, **limits) -> tuple[list[str], list[str]]:
    """(the plan's sub-questions, its warnings) when the model proposes `subs`, all at one priority."""
    output = DecompositionOutput(
        strategy="comparison",
        sub_questions=[ProposedSubQuestion(question=text, priority=0.9, rationale="r") for text in subs],
    )
    plan, warnings = plan_from_decomposition(question, output, build_run_config("general", **limits))
    return [sq.question_text for sq in plan.sub_questions], warnings


def test_a_sub_question_naming_the_clauses_module_but_not_what_it_asks_leaves_the_clause_unplanned():
    # rounds KK and MM, hierarchical m14: the embedded model asked how the module "handles the result of an
    # upsert statement"; no branch asked how many rows changed, and neither report named Cursor.rowcount
    texts, warnings = _texts(
        UPSERT,
        "What is the syntax for an upsert with ON CONFLICT in PostgreSQL?",
        "How does Python's sqlite3 module handle the result of an upsert statement?",
        "How does SQLite write an upsert with ON CONFLICT?",
    )
    assert "How does Python's sqlite3 module report how many rows a statement changed?" in texts
    assert any("part(s) of the question the model left out" in w for w in warnings)


def test_a_sub_question_asking_the_clause_in_other_words_covers_it():
    clause = "how does Python's sqlite3 module report how many rows a statement changed"
    assert part_covered(clause, ["How does the sqlite3 module report the rows changed by a statement?"])
    assert not part_covered(clause, ["How does Python's sqlite3 module handle the result of an upsert statement?"])
    # a clause with little besides its names still counts them: "types" and "differently" ask it
    assert part_covered(
        "how PostgreSQL's type system differs", ["How does PostgreSQL handle data types differently from SQLite?"]
    )
    texts, warnings = _texts(
        UPSERT,
        "What is the syntax for an upsert with ON CONFLICT in PostgreSQL?",
        "How does SQLite write an upsert with ON CONFLICT?",
        "How does Python's sqlite3 module report the number of rows a statement changed?",
    )
    assert len(texts) == 3 and not warnings


def test_the_head_that_frames_the_clauses_needs_no_sub_question_of_its_own():
    # round OO, hierarchical m13: a branch added for "Compare common table expressions in PostgreSQL and
    # SQLite" pushed the model's recursive-query branch out of a three-branch plan
    question = (
        "Compare common table expressions in PostgreSQL and SQLite: how is a WITH query written, and how does "
        "a recursive query work in each?"
    )
    subs = [
        "What is the syntax for a WITH query in PostgreSQL?",
        "What is the syntax for a WITH query in SQLite?",
        "How does a recursive query work in PostgreSQL and SQLite?",
    ]
    texts, warnings = _texts(question, *subs, max_sub_questions=3)
    assert texts == subs
    assert not warnings
