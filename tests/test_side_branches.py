"""A comparison's sides each get a branch of their own when the model's plan is lopsided."""

from __future__ import annotations

from research_core.configuration import build_run_config
from research_core.planning.plan import plan_from_decomposition
from research_core.planning.side_branches import side_question
from research_core.schemas import DecompositionOutput, ProposedSubQuestion

FTS = (
    "Compare full-text search in PostgreSQL and SQLite: how are documents indexed, how are queries written, "
    "and how are results ranked?"
)
PROXY = (
    "Compare reverse proxying with mod_proxy's ProxyPass directive and with mod_rewrite's [P] flag: how is each "
    "configured, and when does the manual recommend one over the other?"
)


def _plan(question: str, *subs: str):
    output = DecompositionOutput(
        strategy="comparison",
        sub_questions=[
            ProposedSubQuestion(question=text, priority=0.9 - i / 10, rationale="r") for i, text in enumerate(subs)
        ],
    )
    return plan_from_decomposition(question, output, build_run_config("general"))


def test_a_plan_that_researches_one_side_alone_gets_a_branch_for_the_other():
    plan, warnings = _plan(
        FTS,
        "How are documents indexed in PostgreSQL?",
        "What is the difference between B-Tree and GiST indexes?",
        "How do queries written in PostgreSQL for full-text search look like?",
    )
    texts = [sq.question_text for sq in plan.sub_questions]
    assert texts[-1] == (
        "Full-text search in SQLite: how are documents indexed, how are queries written, and how are results ranked?"
    )
    assert any("each option the question compares is researched on its own" in w for w in warnings)


def test_the_added_branch_names_the_option_in_the_question_s_own_words():
    plan, _ = _plan(PROXY, "What is reverse proxying?", "How does mod_proxy's ProxyPass directive work?")
    assert plan.sub_questions[-1].question_text.startswith("Reverse proxying with mod_rewrite's [P] flag: how is")


def test_a_plan_with_each_side_alone_or_all_sides_together_is_left_as_it_is():
    for subs in (
        ("How does PostgreSQL index documents?", "How does SQLite index documents?"),
        ("How do PostgreSQL and SQLite index documents?", "How are results ranked?"),
    ):
        plan, warnings = _plan(FTS, *subs)
        assert not any("compares" in w for w in warnings)
        # a clause the plan left out is added under the whole frame, both sides named; no side gets one alone
        sided = ("Full-text search in PostgreSQL:", "Full-text search in SQLite:")
        assert not any(sq.question_text.startswith(sided) for sq in plan.sub_questions)


def test_no_branch_is_added_when_nothing_is_left_to_ask_of_one_option():
    assert side_question("Which is faster, React or Vue?", "Vue") is None
    assert (
        side_question(
            "How do PostgreSQL and SQLite implement auto-incrementing primary keys, and how do SERIAL and "
            "AUTOINCREMENT differ?",
            "SQLite",
        )
        == "How does SQLite implement auto-incrementing primary keys?"
    )


def test_a_branch_about_pythons_sqlite3_module_is_not_sqlites_side():
    # the embedded model planned PostgreSQL's upsert and Python's sqlite3 module; SQLite's upsert had no branch
    question = (
        "How do PostgreSQL and SQLite write an upsert with ON CONFLICT, and how does Python's sqlite3 module "
        "report how many rows a statement changed?"
    )
    plan, warnings = _plan(
        question,
        "What is the syntax for an upsert with ON CONFLICT in PostgreSQL?",
        "How does Python's sqlite3 module handle the result of an upsert statement?",
    )
    texts = [sq.question_text for sq in plan.sub_questions]
    assert texts[-1] == "How does SQLite write an upsert with ON CONFLICT?"
    assert any("each option the question compares is researched on its own" in w for w in warnings)
