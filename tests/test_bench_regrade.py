"""Today's grounding check over recorded drafts, scored against pairs labelled by reading."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bench.regrade import main, regrade

SOURCES = {
    "aaaa1111": {
        "title": "SQLite FTS3 and FTS4 Extensions",
        "url": "/usr/share/doc/sqlite3/fts3.html",
        "snippet": "FTS3 and FTS4 full-text search results can be ranked by relevance using the matchinfo function.",
    },
}
GOOD = "FTS3 and FTS4 full-text search results can be ranked by relevance using the matchinfo function"
WRONG = "PostgreSQL and SQLite both use the ts_rank function for ranking search results"
TOPIC = "How do PostgreSQL and SQLite rank full-text search results?"


def _drafts(path: Path) -> Path:
    # what an older engine kept: both sentences, each citing SQLite's page
    text = f"{GOOD} [[src:aaaa1111]]. {WRONG} [[src:aaaa1111]]."
    record = {
        "topic": TOPIC,
        "names": ["PostgreSQL", "SQLite"],
        "draft": text,
        "grounded": text,
        "sources": SOURCES,
        "quotes": {},
    }
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    return path


def test_a_labelled_wrong_pair_the_check_now_removes_is_counted(tmp_path: Path) -> None:
    url = SOURCES["aaaa1111"]["url"]
    labels = {
        (GOOD.lower().replace("-", " "), url): "supported",
        (WRONG.lower(), url): "wrong",
    }
    questions = [{"question": TOPIC, "aspects": [["matchinfo"], ["bm25"]]}]
    result = regrade([_drafts(tmp_path / "d.jsonl.gz")], labels, questions)
    assert result.labelled == {"supported": 1, "wrong": 1}
    assert result.removed == {"wrong": 1}  # ts_rank is not on SQLite's page
    assert result.aspect_hits == 1  # matchinfo is still named


def test_a_missing_drafts_file_is_one_clear_line(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "nope.jsonl")])
    assert exit_.value.code == 2
    assert "no such drafts file" in capsys.readouterr().err
