"""The embedded Qwen2.5-Coder-1.5B model for real: a decomposition through its llama.cpp server.

Slow (the model loads in seconds but writes about 26 tokens/s on 2 cores); marked `real_model`.
"""

from __future__ import annotations

import re

import pytest

from research_core.configuration import LLMSettings, build_run_config
from research_core.runs.runner import Runner

# About 200 s for the whole run on two quiet cores. In the full suite the model shares those cores with
# three other test workers and has been 4-5x slower; the bound only has to catch a hang.
pytestmark = [pytest.mark.real_model, pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def local_runner(tmp_path_factory):
    progress: list[str] = []
    runner = Runner(
        tmp_path_factory.mktemp("real") / "arbor.db",
        # A slow call on a busy machine is waited for: an HTTP retry after a client timeout would only
        # queue behind the abandoned request, which the server goes on answering.
        llm_settings=LLMSettings(provider="local", timeout_s=900, max_retries=0),
        progress=progress.append,
    )
    runner.progress_messages = progress  # type: ignore[attr-defined]
    yield runner
    from research_core.llm.local_model import stop_shared_server

    stop_shared_server()


def test_real_decomposition_through_the_embedded_server(local_runner):
    question = "Compare React, Vue, and Angular for building web applications"
    plan, _warnings = local_runner.propose_plan(question, build_run_config("comparison", question))
    # the first start says what it does instead of hanging silently
    assert any("Loading the local model" in m for m in local_runner.progress_messages)
    assert 1 <= len(plan.sub_questions) <= 5
    for sq in plan.sub_questions:
        assert len(sq.question_text) > 8
        assert 0.0 <= sq.priority <= 1.0
    assert [sq.id for sq in plan.sub_questions] == [f"sq_{i:03d}" for i in range(1, len(plan.sub_questions) + 1)]
    text = " ".join(sq.question_text.lower() for sq in plan.sub_questions)
    assert sum(name in text for name in ("react", "vue", "angular")) >= 2, text
    assert local_runner.llm.is_local and local_runner.llm.price("work") == (0.0, 0.0)


DOCS = {
    "react.md": "# React\n\nReact is a JavaScript library for building user interfaces from components. It uses JSX "
    "and a virtual DOM. React has the largest ecosystem of third-party libraries and the most job listings.",
    "vue.md": "# Vue\n\nVue is a progressive JavaScript framework with reactive templates and single-file "
    "components. Vue is known for a gentle learning curve and clear documentation.",
    "performance.md": "# Framework performance\n\nIn the js-framework-benchmark, Vue and React have similar "
    "rendering speed; Vue uses slightly less memory. Bundle sizes are comparable after tree shaking.",
}


def test_real_hierarchical_run_with_drill_down_on_the_library(local_runner, tmp_path):
    """One whole run on the embedded model: plan, research on the local library, depth check, report."""
    from research_core.search.library import DocumentLibrary

    library = DocumentLibrary(local_runner.db_path)
    for name, text in DOCS.items():
        library.add_bytes(name, text.encode())
    question = "Compare React and Vue for building web applications"
    config = build_run_config(
        "comparison",
        question,
        search_backends=["library"],
        auto_approve=True,
        parallel=1,
        min_sub_questions=2,
        max_sub_questions=2,
        # a branch comparing React and Vue researches until each has a finding of its own (up to its
        # 2 iterations), and the drill-down still needs room for its child: 12 funds both
        max_iterations=12,
        sub_question_min_iterations=1,
        sub_question_max_iterations=2,
        findings_for_stop=2,
        drill_down_priority=0.0,  # every top-level branch gets its depth judged
        drill_down_on="adequate",  # and drills down unless the model calls its findings deep
        max_depth=2,
        max_children=1,
        drill_down_iterations=1,
        adaptive_plan=False,
        coverage_check=False,
        verify_citations=False,
    )
    snap = local_runner.start(question, config)
    assert snap.status in ("completed", "completed_with_fallback"), snap.error
    result = local_runner.result(snap.run_id)
    top = [sq for sq in result.sub_questions if not sq.parent_id]
    assert len(top) >= 1
    # the first branch always has budget left for a depth check; later ones only if the budget allows
    assert top[0].depth_assessment in ("superficial", "adequate", "deep")
    depth_log = [e.message for e in result.log if e.branch == top[0].id and e.kind == "drill_down"]
    assert depth_log and depth_log[0].startswith("Depth: ")
    # A shallow verdict always drills down: when the 1.5B model proposes no narrower question
    # (it often does not), the engine proposes one.
    if top[0].depth_assessment != "deep":
        # a real drill-down: a child researched and synthesized before its parent's bottom-up synthesis
        children = [c for c in result.sub_questions if c.parent_id == top[0].id]
        assert children and top[0].drill_status == "approved", top[0]
        assert all(c.id.startswith(top[0].id + ".") and c.status == "completed" for c in children)
        assert all(c.iteration_count >= 1 and c.synthesis for c in children)
        assert top[0].synthesis
        # the order answers were made in (by the log: the embedded model's answers are quotes, not calls)
        order = [e.branch for e in result.log if e.node == "synthesize_branch"]
        answered = [c for c in children if c.findings]
        if answered:
            assert order.index(answered[0].id) < order.index(top[0].id), order
        else:  # the evidence gates kept nothing: the child says so instead of asking the model
            assert all(c.synthesis.startswith("No evidence found") for c in children)
    for sq in top:
        children = [c for c in result.sub_questions if c.parent_id == sq.id]
        # a superficial branch drills down one level; nothing goes deeper than max_depth
        assert (sq.drill_status == "approved") == bool(children)
        assert all(c.depth == 1 and not any(g.parent_id == c.id for g in result.sub_questions) for c in children)
    assert result.sources and all(s.backend == "library" for s in result.sources)
    assert result.synthesis.total_findings >= 1
    assert len(result.final_answer) > 100
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", result.final_answer)}
    assert all(1 <= n <= len(result.sources) for n in cited)
    assert result.costs.total_usd == 0 and result.costs.llm_calls >= 5


def test_real_multi_part_question_goes_hierarchical_in_auto_mode(local_runner):
    """Auto mode with the embedded model: a three-part question is decomposed, not researched flat."""
    question = "What causes table bloat in PostgreSQL, how does autovacuum work, and which settings tune it?"
    snap = local_runner.start(question, build_run_config(None, question, mode="auto", search_backends=["library"]))
    assert snap.mode == "hierarchical" and snap.status == "awaiting_review", snap.log[-3:]
    assert len(snap.pending["sub_questions"]) >= 2
    local_runner.delete(snap.run_id)


UNRELATED = (
    "# Vaccines\n\nEdward Jenner developed the smallpox vaccine in 1796. Vaccines train the immune system "
    "to recognise a pathogen; concurrent vaccination campaigns reached millions of readers of public notices."
)
LOCKING = (
    "# SQLite locking\n\nSQLite allows many concurrent readers but only one writer at a time. A writer takes a "
    "RESERVED lock, then a PENDING lock, then an EXCLUSIVE lock to commit. In WAL mode readers do not block "
    "the writer and the writer does not block readers."
)


def test_real_run_never_reports_an_unrelated_library_document(local_runner):
    from research_core.search.library import DocumentLibrary

    library = DocumentLibrary(local_runner.db_path)
    library.add_text("sqlite-locking.md", LOCKING, kind="md")
    library.add_text("vaccines.md", UNRELATED, kind="md")
    question = "How does SQLite handle concurrent readers and writers?"
    config = build_run_config(
        None, question, mode="flat", search_backends=["library"], auto_approve=True, max_iterations=3
    )
    snap = local_runner.start(question, config)
    assert snap.status in ("completed", "completed_with_fallback"), snap.error
    result = local_runner.result(snap.run_id)
    by_id = {s.id: s for s in result.sources}
    cited = {by_id[sid].url for sq in result.sub_questions for f in sq.findings for sid in f.source_ids}
    assert "library://vaccines.md" not in cited
    assert "vaccin" not in result.final_answer.lower() and "Jenner" not in result.final_answer
    # every factual statement of the report is counted, and the kept ones are supported
    s = result.synthesis
    assert s.statements_supported <= s.statements_checked
