"""The drafts recorder of the research-quality benchmark: what the grounding check removed is judged too."""

from __future__ import annotations

import json
from pathlib import Path

from bench.drafts import draft_pairs, recording
from research_core.synthesis import synthesize

SOURCES = {
    "aaaa1111": {
        "title": "Write-Ahead Logging",
        "url": "/doc/wal.html",
        "snippet": "WAL lets readers continue while one writer commits.",
    },
    "bbbb2222": {"title": "VACUUM", "url": "/doc/vacuum.html", "snippet": "VACUUM rebuilds the database file."},
}


def test_a_removed_sentence_is_a_pair_the_engine_did_not_keep(tmp_path: Path) -> None:
    path = tmp_path / "drafts.jsonl"
    draft = (
        "WAL lets readers continue while one writer commits [[src:aaaa1111]]. "
        "WAL uses the ts_rank function to rank every search result [[src:bbbb2222]]. "
        "VACUUM rebuilds the database file in the ts_rank order."
    )
    with recording(path):
        grounded = synthesize.ground_text(draft, SOURCES, {}, ("WAL",), "How does WAL let readers continue?")
    assert synthesize.ground_text.__name__ == "ground_text"  # restored after the block
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["grounded"] == grounded.text
    pairs = draft_pairs(record, 0)
    kept = {p["sentence"].split(" [")[0].rstrip("."): p["engine_kept"] for p in pairs}
    assert kept == {
        "WAL lets readers continue while one writer commits": True,
        "WAL uses the ts_rank function to rank every search result": False,
        "VACUUM rebuilds the database file in the ts_rank order": False,
    }
    assert [p["title"] for p in pairs] == ["Write-Ahead Logging", "VACUUM", "VACUUM"]
    # the uncited one is paired with the source holding most of its words, and says so
    assert [p["cited"] for p in pairs] == [True, True, False]
    assert all(p["engine_reason"] for p in pairs[1:])
