"""Plan validation, decomposition bounds, scheduling order and citation mapping."""

from __future__ import annotations

import pytest

from research_core.configuration import build_run_config
from research_core.coordination.scheduling import schedule_steps
from research_core.planning.plan import PlanError, plan_from_decomposition, validate_plan
from research_core.schemas import DecompositionOutput, SubQuestion
from research_core.text.citations import (
    drop_unknown_numbers,
    finding_source_ids,
    global_numbering,
    markers_to_numbered,
    numbered_to_markers,
)
from research_core.tree import BranchTree


def _decomp(*prios: float) -> DecompositionOutput:
    return DecompositionOutput(
        strategy="Comparison",
        sub_questions=[{"question": f"Question number {i}?", "priority": p} for i, p in enumerate(prios)],
    )


def test_more_than_max_keeps_highest_priorities_in_order():
    cfg = build_run_config("general", max_sub_questions=3)
    plan, warnings = plan_from_decomposition("Q", _decomp(0.2, 0.9, 0.5, 1.0, 0.7), cfg)
    assert [sq.priority for sq in plan.sub_questions] == [0.9, 1.0, 0.7]
    assert [sq.id for sq in plan.sub_questions] == ["sq_001", "sq_002", "sq_003"]
    assert plan.strategy == "comparison"
    assert "kept 3" in warnings[0]


def test_trimming_to_the_maximum_keeps_a_part_the_model_left_out():
    """The model rated its three sub-questions above the part the engine added for the clause it
    left out; cutting to three by priority alone dropped that clause from the research."""
    question = (
        "Compare the date and time functions of PostgreSQL and SQLite, "
        "and explain how Python's datetime module represents time zones."
    )
    out = DecompositionOutput(
        strategy="multi-faceted",
        sub_questions=[
            {"question": "What are the date and time functions in PostgreSQL?", "priority": 0.9},
            {"question": "What are the date and time functions in SQLite?", "priority": 0.9},
            {"question": "How do these functions differ in syntax and usage?", "priority": 0.9},
        ],
    )
    plan, warnings = plan_from_decomposition(question, out, build_run_config("general", max_sub_questions=3))
    texts = [sq.question_text for sq in plan.sub_questions]
    assert len(texts) == 3
    assert any("time zones" in t and "Python" in t for t in texts)
    assert "What are the date and time functions in PostgreSQL?" in texts
    assert "What are the date and time functions in SQLite?" in texts
    assert any("left out" in w for w in warnings)


def test_fewer_than_min_warns_and_continues():
    cfg = build_run_config("general", min_sub_questions=2)
    plan, warnings = plan_from_decomposition("Q", _decomp(0.8), cfg)
    assert len(plan.sub_questions) == 1
    assert "fewer than the minimum" in warnings[0]


def test_duplicate_proposals_collapse():
    out = DecompositionOutput(
        strategy="x",
        sub_questions=[{"question": "What is A?", "priority": 1}, {"question": "what is  a?", "priority": 0.5}],
    )
    plan, _ = plan_from_decomposition("Q", out, build_run_config("general"))
    assert len(plan.sub_questions) == 1


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [
                {"id": "a", "question_text": "A?", "parent_id": "b"},
                {"id": "b", "question_text": "B?", "parent_id": "a"},
            ],
            "cycle",
        ),
        ([{"id": "a", "question_text": "A?", "parent_id": "zz"}], "not in the plan"),
        ([{"question_text": "A?", "priority": True}], "number"),
        ([{"question_text": "A?", "priority": float("nan")}], "outside 0-1"),
        (
            [{"question_text": "A?", "priority": None}],
            r"Sub-question 1: the priority is empty; enter a number from 0 to 1\.",
        ),
        ([{"question_text": "x" * 2001}], "longer than"),
        (["not a row"], "must be an object"),
    ],
)
def test_invalid_plans_are_refused_with_a_message(rows, message):
    with pytest.raises(PlanError, match=message):
        validate_plan({"sub_questions": rows}, "Q")


def test_depth_limit():
    rows = [{"id": "a", "question_text": "A?"}]
    for i in range(4):
        rows.append({"id": f"c{i}", "question_text": f"C{i}?", "parent_id": rows[-1]["id"]})
    with pytest.raises(PlanError, match="levels deep"):
        validate_plan({"sub_questions": rows}, "Q", max_depth=3)


def test_nested_plan_gets_depths_and_tree_order():
    plan = validate_plan(
        {
            "sub_questions": [
                {"id": "sq_001", "question_text": "A?"},
                {"id": "sq_002", "question_text": "B?"},
                {"id": "sq_001.1", "question_text": "A1?", "parent_id": "sq_001"},
            ]
        },
        "Q",
    )
    depths = {sq.id: sq.depth for sq in plan.sub_questions}
    assert depths == {"sq_001": 0, "sq_002": 0, "sq_001.1": 1}
    branches = {sq.id: sq.model_dump() for sq in plan.sub_questions}
    assert BranchTree(branches, [sq.id for sq in plan.sub_questions]).depth_first() == ["sq_001", "sq_001.1", "sq_002"]


def test_new_rows_get_fresh_ids():
    plan = validate_plan({"sub_questions": [{"id": "sq_001", "question_text": "A?"}, {"question_text": "B?"}]}, "Q")
    assert [sq.id for sq in plan.sub_questions] == ["sq_001", "sq_002"]


def test_citations_map_to_sources_and_fabricated_ones_vanish():
    text, removed = numbered_to_markers("A [1]. B [2, 3]. C [7].", {1: "aa", 2: "bb", 3: "cc"})
    assert removed == 1
    assert text == "A [[src:aa]]. B [[src:bb]][[src:cc]]. C ."
    numbering = global_numbering(["x [[src:cc]]", text])
    assert numbering == {"cc": 1, "aa": 2, "bb": 3}
    assert markers_to_numbered(text, numbering) == "A [2]. B [3][1]. C ."
    cleaned, dropped = drop_unknown_numbers("See [1] and [4] and [0].", 3)
    assert cleaned == "See [1] and  and ." and dropped == 2


def test_scheduling_sequential_and_parallel():
    fields = {
        "a": {"priority": 0.5, "status": "pending"},
        "b": {"priority": 0.9, "status": "pending"},
        "c": {"priority": 0.7, "status": "researching"},
        "d": {"priority": 1.0, "status": "researching", "research_done": True},
    }
    branches = {bid: SubQuestion(id=bid, question_text=f"Question {bid}?", **f) for bid, f in fields.items()}
    one = schedule_steps(branches, ["a", "b", "c", "d"], {}, 1)
    assert one.synthesize == ["d"] and one.research == []
    three = schedule_steps(branches, ["a", "b", "c", "d"], {}, 3)
    assert three.synthesize == ["d"] and three.research == ["c", "b"]
    assert three.updates == {"b": {"status": "researching"}}
    stopped = schedule_steps(branches, ["a", "b", "c", "d"], {"c": 2}, 2, stop_requested=True)
    assert stopped.updates["a"]["status"] == "skipped" and stopped.updates["c"]["research_done"]
    assert stopped.synthesize == ["c", "d"]


def test_word_overlap_check_reads_japanese_and_chinese():
    """The fallback citation check splits unspaced scripts into character pairs instead of one 'word'."""
    from research_core.synthesis.verification import lexical_support

    source = "量子コンピュータは、量子ビットを利用して計算を行う装置である。"
    assert lexical_support("量子コンピュータは量子ビットを使って計算する。", source)
    assert not lexical_support("ReactはUIを作るためのライブラリです。", source)
    assert lexical_support("深度学习需要大量数据。", "深度学习模型的训练需要大量的数据。")
    assert lexical_support("React uses a virtual DOM for rendering.", "React renders through a virtual DOM.")


def test_a_cited_claim_is_the_whole_sentence_not_the_part_after_an_abbreviation():
    """The citation check reads "(e.g. event or worker)" inside its sentence, as the report is cut: cut at
    "e.g.", the claim checked was "event or worker), MaxRequestWorkers restricts ..." and a removed
    citation could not be found again."""
    from research_core.synthesis.verification import _remove_citation, claims_with_citations

    text = (
        "For threaded servers (e.g. event or worker), MaxRequestWorkers limits the threads [[src:ab12]]. "
        "Name-based vs. IP-based hosts differ [[src:cd34]]."
    )
    claims = claims_with_citations(text)
    assert claims == [
        ("For threaded servers (e.g. event or worker), MaxRequestWorkers limits the threads .", "ab12"),
        ("Name-based vs. IP-based hosts differ .", "cd34"),
    ]
    removed = _remove_citation(text, claims[0][0], "ab12")
    assert "[[src:ab12]]" not in removed and "[[src:cd34]]" in removed
    assert removed.startswith("For threaded servers (e.g. event or worker), MaxRequestWorkers")


def test_a_branch_cites_each_source_once_in_the_order_its_findings_first_cite_it() -> None:
    findings = [
        {"text": "a", "source_ids": ["src_3", "src_1"]},
        {"text": "b"},
        {"text": "c", "source_ids": ["src_1", "src_2", "src_3"]},
    ]
    assert finding_source_ids(findings) == ["src_3", "src_1", "src_2"]
    assert finding_source_ids([]) == []


def _rows(top: int, children: int = 0) -> dict:
    rows = [{"id": f"sq_{i:03d}", "question_text": f"Question {i}?", "priority": 0.5} for i in range(1, top + 1)]
    rows += [{"question_text": f"Child {c}?", "parent_id": "sq_001"} for c in range(children)]
    return {"sub_questions": rows}


def test_plan_limits_apply_to_supplied_and_edited_plans():
    cfg = build_run_config("general")  # max_sub_questions 5, max_total_sub_questions 8
    assert len(validate_plan(_rows(5, children=3), "Q", config=cfg).sub_questions) == 8
    with pytest.raises(PlanError, match=r"6 top-level sub-questions; the limit is 5 \(max_sub_questions\)"):
        validate_plan(_rows(6), "Q", config=cfg)
    with pytest.raises(PlanError, match=r"9 sub-questions; the limit is 8 \(max_total_sub_questions\)"):
        validate_plan(_rows(5, children=4), "Q", config=cfg)
    assert len(validate_plan(_rows(6), "Q").sub_questions) == 6  # without a config: no limits


def test_plan_texts_lose_control_and_bidi_characters():
    plan = validate_plan(
        {"sub_questions": [{"question_text": "What\x00 is\x07 WAL?\u202e", "rationale": "r\x1b[31m", "priority": 1}]},
        "Q",
    )
    assert plan.sub_questions[0].question_text == "What is WAL?"
    assert plan.sub_questions[0].rationale == "r[31m"


def test_a_clause_added_for_the_model_keeps_the_head_that_frames_it():
    """ "How is each configured?" alone says neither what nor each of what: the plan searched it as
    "How is each configured (IP-based, Apache)?" and read about IP-based hosts only."""
    question = (
        "Compare name-based and IP-based virtual hosts in Apache: how is each configured, "
        "and how does the server choose the virtual host that answers a request?"
    )
    out = DecompositionOutput(
        strategy="comparison",
        sub_questions=[
            {
                "question": "What are the main differences between name-based and IP-based virtual hosts?",
                "priority": 0.9,
            },
            {"question": "How do you configure name-based virtual hosts in Apache?", "priority": 0.8},
        ],
    )
    plan, _ = plan_from_decomposition(question, out, build_run_config("general", max_sub_questions=3))
    texts = [sq.question_text for sq in plan.sub_questions]
    assert "Name-based and IP-based virtual hosts in Apache: how is each configured?" in texts
    assert (
        "Name-based and IP-based virtual hosts in Apache: how does the server choose the virtual host that "
        "answers a request?" in texts
    )
