"""Going deep: drill-down trees, bottom-up synthesis, adaptive plans and the coverage check."""

from __future__ import annotations

import json
import time

from research_core.synthesis.coverage import merge_gaps
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, default_reply, serve

QUESTION = "Compare React, Vue, and Angular for building web applications"


def _sub_question(body: dict) -> str:
    text = body["messages"][-1]["content"]
    return text.split("<sub_question>")[1].split("</sub_question>")[0] if "<sub_question>" in text else ""


def superficial(body: dict) -> str:
    sq = _sub_question(body)
    return json.dumps(
        {
            "depth": "superficial",
            "reasoning": "only generic statements",
            "drill_into": [f"What benchmarks exist for: {sq[:40]}?", f"What do case studies show for: {sq[:40]}?"],
        }
    )


def test_drill_down_adds_children_to_depth_two_and_not_beyond(tmp_path):
    with serve(ScriptedLLM(script={"evaluate_depth": superficial})) as (url, script):
        runner = make_runner(tmp_path, url)
        # room for three branches and four children at their two-step minimum each
        snap = runner.start(
            QUESTION, config(auto_approve=True, parallel=2, max_depth=2, adaptive_plan=False, max_iterations=30)
        )
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    ids = [sq.id for sq in result.sub_questions]
    # priorities 1.0 / 0.8 / 0.6: the two above 0.7 drill down, the third does not
    assert ids == ["sq_001", "sq_001.1", "sq_001.2", "sq_002", "sq_002.1", "sq_002.2", "sq_003"]
    children = [sq for sq in result.sub_questions if sq.parent_id]
    assert all(sq.depth == 1 and sq.status == "completed" and sq.findings for sq in children)
    assert script.count("evaluate_depth") == 2  # children are at the depth limit and are not evaluated
    parent = result.sub_questions[0]
    assert parent.depth_assessment == "superficial" and parent.drill_status == "approved"
    # bottom-up: each parent is synthesized after its children, from their answers
    synth_order = [_sub_question(b) for t, b in script.calls if t == "synthesize_branch"]
    first_parent = synth_order.index(parent.question_text)
    assert all(synth_order.index(c.question_text) < first_parent for c in children[:2])
    parent_call = next(
        b for t, b in script.calls if t == "synthesize_branch" and _sub_question(b) == parent.question_text
    )
    narrower = parent_call["messages"][-1]["content"].split("<narrower_answers>")[1].split("</narrower_answers>")[0]
    assert "benchmarks exist" in narrower and "[" in narrower
    # the meta-synthesis sees the tree with section numbers
    meta = next(b for t, b in script.calls if t == "meta_synthesis")["messages"][-1]["content"]
    assert "### 1 " in meta and "### 1.1 " in meta and "### 2.2 " in meta and "### 3 " in meta
    assert any(e.kind == "drill_down" and e.reasoning == "only generic statements" for e in result.log)


def test_step_mode_drill_down_waits_for_approval_and_takes_edits(tmp_path):
    with serve(ScriptedLLM(script={"evaluate_depth": [superficial]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(step_mode=True, parallel=1, adaptive_plan=False))
        snap = runner.resume(snap.run_id, "approve")
        assert snap.status == "awaiting_step"
        assert snap.pending["kind"] == "drill_down"
        assert snap.pending["branch"]["id"] == "sq_001"
        assert len(snap.pending["proposals"]) == 2
        assert snap.pending["reasoning"] == "only generic statements"  # the model's reason, shown at the gate
        bad = runner.resume(snap.run_id, {"action": "approve", "children": [{"question_text": " "}]})
        assert bad.pending["kind"] == "drill_down" and "empty" in bad.pending["error"]
        snap = runner.resume(
            snap.run_id, {"action": "approve", "children": [{"question_text": "Edited child?", "priority": 0.5}]}
        )
        while snap.status == "awaiting_step":
            snap = runner.resume(snap.run_id, "continue" if snap.pending["kind"] == "step" else "reject")
    assert snap.status == "completed", snap.error
    ids = {sq.id: sq for sq in runner.result(snap.run_id).sub_questions}
    assert ids["sq_001.1"].question_text == "Edited child?"
    assert "sq_001.2" not in ids


def test_revisions_are_capped_and_duplicates_refused(tmp_path):
    topics = iter(
        [
            "How do the licensing terms differ?",
            "Which has the larger hiring market for licensing staff?",
            "How mature is licensing of mobile tooling?",
            "What licensing of server rendering exists?",
        ]
    )

    def add_one(body: dict) -> str:
        return json.dumps(
            {
                "add": [
                    {"question": next(topics), "priority": 0.5},
                    # a near-duplicate of the first planned sub-question: always refused
                    {"question": "What are the core facts about Compare React, Vue, and Angular?", "priority": 0.9},
                ],
                "drop": [],
                "reprioritize": {},
                "reasoning": "licensing matters",
            }
        )

    with serve(ScriptedLLM(script={"revise_plan": add_one})) as (url, script):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, parallel=1, max_revisions=2))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    added = [sq for sq in result.sub_questions if "licensing" in sq.question_text]
    assert len(added) == 2  # max_revisions
    assert script.count("revise_plan") == 2  # no call once the cap is reached
    assert all(sq.status == "completed" for sq in added)
    refused = [e for e in result.log if e.kind == "revision" and "refused duplicate" in e.message]
    assert len(refused) == 2, [e.message for e in result.log if e.node == "revise_plan"]
    applied = [e for e in result.log if e.message.startswith("Applied revision")]
    assert applied and applied[0].reasoning == "licensing matters"


def test_auto_revision_adds_within_the_ceiling_but_never_drops_or_starves_an_approved_branch(tmp_path):
    def revise(body: dict) -> str:
        return json.dumps(
            {
                "add": [
                    {"question": "A brand new angle on tooling?", "priority": 0.4},
                    {"question": "Another new angle on hiring?", "priority": 0.4},
                ],
                "drop": ["sq_003", "sq_001"],  # sq_001 is completed by then: refused
                "reprioritize": {"sq_002": 0.2},
                "reasoning": "r",
            }
        )

    with serve(ScriptedLLM(script={"revise_plan": [revise]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, parallel=1, max_total_sub_questions=4))
    result = runner.result(snap.run_id)
    by_id = {sq.id: sq for sq in result.sub_questions}
    # approved means approved: without the user, a drop is only a suggestion, and a priority has a floor
    assert by_id["sq_003"].status == "completed" and by_id["sq_003"].synthesis
    assert any("Suggestion" in e.message and "drop sq_003" in e.message for e in result.log)
    assert by_id["sq_002"].priority == 0.3
    assert len(by_id) == 4  # ceiling: only one of the two additions
    assert any("ceiling" in e.message for e in result.log)


def test_step_mode_revision_is_a_proposal_the_user_can_reject(tmp_path):
    proposal = json.dumps({"add": [], "drop": ["sq_003"], "reprioritize": {}, "reasoning": "not needed"})
    with serve(ScriptedLLM(script={"revise_plan": [proposal]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(step_mode=True, parallel=1))
        snap = runner.resume(snap.run_id, "approve")
        assert snap.pending["kind"] == "step"
        snap = runner.resume(snap.run_id, "continue")
        assert snap.pending["kind"] == "revision"
        assert snap.pending["changes"]["drop"] == ["sq_003"]
        snap = runner.resume(snap.run_id, "reject")
        while snap.status == "awaiting_step":
            snap = runner.resume(snap.run_id, "continue" if snap.pending["kind"] == "step" else "reject")
    result = runner.result(snap.run_id)
    assert {sq.id: sq.status for sq in result.sub_questions}["sq_003"] == "completed"


def test_coverage_gaps_reach_the_report(tmp_path):
    gaps = json.dumps({"covered": ["features"], "gaps": ["licensing costs"], "sufficient": True, "reasoning": "ok"})
    with serve(ScriptedLLM(script={"assess_coverage": [gaps]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True))
    result = runner.result(snap.run_id)
    assert result.coverage["gaps"] == ["licensing costs"]
    limitations = result.final_answer.split("## Limitations", 1)[1]
    assert "Not covered: licensing costs" in limitations


def test_a_part_answered_from_evidence_is_not_listed_as_not_covered(tmp_path):
    with serve(ScriptedLLM()) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True))
        answered = [sq.question_text for sq in runner.result(snap.run_id).sub_questions if sq.status == "completed"]
    assert answered
    gaps = json.dumps({"covered": [], "gaps": [answered[0], "licensing costs"], "sufficient": False, "reasoning": ""})
    with serve(ScriptedLLM(script={"assess_coverage": [gaps]})) as (url, _):
        runner = make_runner(tmp_path / "second", url)
        snap = runner.start(QUESTION, config(auto_approve=True))
    result = runner.result(snap.run_id)
    limitations = result.final_answer.split("## Limitations", 1)[1]
    # the model's gap that restates an answered part goes; its other gap stays
    assert f"Not covered: {answered[0]}" not in limitations
    assert "Not covered: licensing costs" in limitations
    assert f"## 1 {answered[0]}" in result.final_answer


def test_iteration_budget_is_a_ceiling_for_the_whole_run(tmp_path):
    grind = {"findings_for_stop": 50, "confidence_for_stop": 1.0}  # branches use their whole allocation
    with serve(ScriptedLLM(script={"evaluate_depth": superficial})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, parallel=1, max_iterations=10, **grind))
    result = runner.result(snap.run_id)
    research = sum(sq.iteration_count for sq in result.sub_questions)
    assert research <= 10 - (1 + 3 + 1)  # decomposition, three branch syntheses and the meta-synthesis
    assert any("Iteration budget spent" in w for w in result.warnings)
    assert not any(sq.parent_id for sq in result.sub_questions)  # no budget left for a drill-down
    assert result.final_answer


def test_a_branch_still_researching_is_not_held_back_by_the_others_finishing(tmp_path):
    """One branch needs three iterations, the others one: it researches on without waiting for
    the plan revision their completion triggers (their answers are written in their own chains,
    beside it), and the revision still happens after."""
    received: list[tuple[str, str, float]] = []

    def record(task: str, reply):
        def answer(body: dict) -> str:
            received.append((task, _sub_question(body), time.monotonic()))
            return reply(body) if callable(reply) else default_reply(task, body)

        return answer

    def slow_branch_extraction(body: dict) -> str:
        if "core facts" not in _sub_question(body):
            return default_reply("extract_findings", body)
        # one weak finding per iteration: the first branch needs three iterations, the others one
        return json.dumps({"findings": [{"text": "A weak hint.", "confidence": 0.5, "sources": [1]}], "reasoning": ""})

    # the plan leaves the question's last clause (licences) without a branch, so the reviser has work
    question = f"{QUESTION}, and how do their licences differ?"
    plan = [
        {"question": f"What are the core facts about {QUESTION}?", "priority": 1.0, "rationale": "Foundation."},
        {"question": f"What evidence compares the options in {QUESTION}?", "priority": 0.8, "rationale": "Core."},
        {"question": f"What do practitioners recommend for {QUESTION}?", "priority": 0.6, "rationale": "Use."},
    ]
    decomposition = json.dumps({"strategy": "multi-faceted", "reasoning": "scripted", "sub_questions": plan})
    scripted = ScriptedLLM(
        script={
            "decompose": [decomposition],
            "plan_queries": record("plan_queries", None),
            "extract_findings": slow_branch_extraction,
            "revise_plan": record("revise_plan", None),
            "synthesize_branch": record("synthesize_branch", None),
        },
        latency_by_task={"revise_plan": 0.6, "synthesize_branch": 0.4},
    )
    with serve(scripted) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(question, config(auto_approve=True, parallel=3, max_depth=1))
    assert snap.status == "completed", snap.error
    core = [t for task, sq, t in received if task == "plan_queries" and "core facts" in sq]
    assert len(core) >= 3
    revisions = [t for task, _, t in received if task == "revise_plan"]
    others_answered = [t for task, sq, t in received if task == "synthesize_branch" and "core facts" not in sq]
    assert revisions and len(others_answered) >= 2
    assert max(core[:3]) < min(revisions), received
    assert runner.result(snap.run_id).sub_questions[0].iteration_count >= 3


def adequate(body: dict) -> str:
    sq = _sub_question(body)
    drill = [f"Which numbers back: {sq[:40]}?"]
    return json.dumps({"depth": "adequate", "reasoning": "answers it, few specifics", "drill_into": drill})


def test_adequate_branches_drill_down_only_when_asked_to(tmp_path):
    """By default only superficial branches go deeper; `drill_down_on='adequate'` digs into adequate ones too."""
    outcomes = {}
    for setting in ("superficial", "adequate"):
        with serve(ScriptedLLM(script={"evaluate_depth": adequate})) as (url, script):
            runner = make_runner(tmp_path / setting, url)
            snap = runner.start(
                QUESTION,
                config(auto_approve=True, parallel=1, adaptive_plan=False, drill_down_on=setting, max_iterations=30),
            )
        assert snap.status == "completed", snap.error
        prompt = next(b for t, b in script.calls if t == "evaluate_depth")["messages"][0]["content"]
        outcomes[setting] = (
            [sq.id for sq in runner.result(snap.run_id).sub_questions if sq.parent_id],
            "If the depth is superficial or adequate" in prompt,
        )
    assert outcomes["superficial"] == ([], False)
    assert outcomes["adequate"] == (["sq_001.1", "sq_002.1"], True)


def test_rejected_revision_proposals_count_toward_the_cap(tmp_path):
    """In step mode a proposal the user rejects uses up a revision: with max_revisions=1 they are asked once."""
    proposal = json.dumps({"add": [], "drop": ["sq_003"], "reprioritize": {}, "reasoning": "not needed"})
    with serve(ScriptedLLM(script={"revise_plan": proposal})) as (url, script):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(step_mode=True, parallel=1, max_revisions=1))
        snap = runner.resume(snap.run_id, "approve")
        kinds = []
        while snap.status == "awaiting_step":
            kinds.append(snap.pending["kind"])
            snap = runner.resume(snap.run_id, "reject" if snap.pending["kind"] == "revision" else "continue")
    assert snap.status == "completed", snap.error
    assert kinds.count("revision") == 1 and script.count("revise_plan") == 1
    assert {sq.id: sq.status for sq in runner.result(snap.run_id).sub_questions}["sq_003"] == "completed"


def test_a_clause_of_the_question_is_not_a_gap_when_every_part_was_answered():
    question = (
        "Compare full-text search in PostgreSQL and SQLite: how are documents indexed, how are queries written, "
        "and how are results ranked?"
    )
    parts = [
        "How are documents indexed in PostgreSQL and SQLite?",
        "How are queries written for PostgreSQL and SQLite?",
        "What are the ranking methods used by PostgreSQL and SQLite for full-text search results?",
    ]
    proposed = ["How are results ranked?", "Phrase search in SQLite"]
    # every part answered from evidence: the reworded clause is answered by part 3, the other gap stays
    assert merge_gaps([], proposed, parts, question) == ["Phrase search in SQLite"]
    # a part without evidence, or a flat run's single part, may leave the clause open
    own = [f"{parts[2]} (no evidence found)"]
    assert merge_gaps(own, proposed, parts[:2], question) == [*own, *proposed]
    assert merge_gaps([], proposed, [question], question) == proposed
