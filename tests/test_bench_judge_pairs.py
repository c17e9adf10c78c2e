"""The (sentence, cited source) pairs a reader labels: each sentence of a report once."""

from __future__ import annotations

from bench.judge_pairs import run_pairs
from research_core.runs.records import RunResult
from research_core.schemas import Source

LEAD = "FTS5 ranks full-text search results with the built-in bm25 function [1]."


def _finished(question: str, mode: str, report: str, sources: list[Source]) -> RunResult:
    """A finished run with only what the pairs are made from."""
    return RunResult.model_construct(
        run_id="r1", question=question, mode=mode, final_answer=report, sources=sources, sub_questions=[]
    )


def test_a_sentence_the_report_repeats_is_one_pair_to_judge():
    # the lead the engine picks from a branch answer repeats that answer's sentence
    report = f"{LEAD}\n\n## 1 How does SQLite rank results?\n\n{LEAD} Ranking in PostgreSQL uses ts_rank [2]."
    sources = [
        Source(id="a1", url="/usr/share/doc/sqlite3/fts5.html", title="SQLite FTS5 Extension", backend="library"),
        Source(id="b2", url="/usr/share/doc/postgresql/textsearch.html", title="Text Search", backend="library"),
    ]
    result = _finished("How do PostgreSQL and SQLite rank full-text search results?", "hierarchical", report, sources)
    pairs, uncited = run_pairs(result, {"id": "m3"})
    assert [(p["sentence"], p["source"]) for p in pairs] == [
        (LEAD, 1),
        ("Ranking in PostgreSQL uses ts_rank [2].", 2),
    ]
    assert uncited == 0


def test_a_sentence_naming_two_things_with_vs_is_one_statement_with_its_citation():
    """The benchmark cuts a report as the engine does: "Name-based vs. IP-based Virtual Hosts" is one
    sentence, and its citation covers all of it (cut at "vs.", the first half was counted uncited)."""
    sentence = "Most users should read about Name-based vs. IP-based Virtual Hosts to decide which type to use [1]."
    sources = [
        Source(id="a1", url="/usr/share/doc/apache2-doc/manual/en/vhosts/index.html", title="Vhosts", backend="library")
    ]
    result = _finished("How are name-based and IP-based virtual hosts configured in Apache?", "flat", sentence, sources)
    pairs, uncited = run_pairs(result, {"id": "ma3"})
    assert [(p["sentence"], p["source"]) for p in pairs] == [(sentence, 1)]
    assert uncited == 0


def test_a_pair_read_in_an_earlier_round_carries_its_label_and_a_new_one_is_left_to_read(tmp_path):
    import json

    from bench.judge_pairs import carry

    judged = tmp_path / "judged"
    (judged / "round-a").mkdir(parents=True)
    url = "/usr/share/doc/sqlite3/fts5.html"
    earlier = {"sentence": LEAD, "url": url, "label": "supported", "reason": "fts5.html: bm25 ranks results"}
    (judged / "round-a" / "pairs.jsonl").write_text(json.dumps(earlier) + "\n", encoding="utf-8")
    new = tmp_path / "pairs.jsonl"
    rows = [
        {"sentence": LEAD.replace("[1]", "[3]"), "url": url, "label": "", "reason": ""},
        {"sentence": LEAD, "url": "/usr/share/doc/sqlite3/fts3.html", "label": "", "reason": ""},
    ]
    new.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    carry(new, judged)
    out = [json.loads(line) for line in new.read_text(encoding="utf-8").splitlines()]
    assert out[0]["label"] == "supported" and out[0]["carried_from"] == "round-a"
    assert out[1]["label"] == "" and "carried_from" not in out[1]
