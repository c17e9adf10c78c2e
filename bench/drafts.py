"""The model's drafts before the engine's grounding check, and what the check kept of them.

A report shows only what the grounding check kept, so judging its sentences says nothing about the
sentences the check removed. `recording(path)` wraps the check (`ground_text`, as the branch
synthesis and the overview call it) and appends one JSON line per call: the draft, the grounded
text, the sources the draft could cite (title, address, passage) and the quotes findings took from
them. `python -m bench.drafts pairs` turns those lines into (sentence, cited source) pairs in the
format of `bench/judge_pairs.py`, each with `engine_kept`: whether the sentence, citations aside,
is still in the grounded text (None for a sentence left out as a repeat of one already made, which
`engine_action` calls "repeat"; `engine_reason` says why a removed one went). Labelled by
reading, they show how the check meets a reader: of the pairs labelled wrong or not stated,
how many it removed; of those labelled supported, how many it kept. A removed sentence the model
cited nothing for is paired with the source that holds most of its words (`cited: false`), the
first one the check would have tried.

    .venv/bin/python -m bench.research_quality ... --drafts R-drafts.jsonl
    .venv/bin/python -m bench.drafts pairs --drafts R-drafts.jsonl --out bench/judged/ROUND/pairs-drafts.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.judge_pairs import cited_numbers
from bench.research_quality import statements
from research_core.synthesis import grounding, meta, synthesize
from research_core.synthesis.evidence import question_subjects
from research_core.text.support import support_share

_MARKER = re.compile(r"\[\[src:([^\]]+)\]\]")
_NUMBER = re.compile(r"\[\d+(?:,\s*\d+)*\]")


def _source_record(source: Mapping) -> dict[str, str]:
    return {key: str(source.get(key) or "") for key in ("title", "url", "snippet")}


@contextmanager
def recording(path: Path) -> Iterator[None]:
    """While open, every grounding check of a branch answer or an overview is appended to `path`."""
    original = grounding.ground_text
    lock = threading.Lock()

    def recorded(text: str, sources: Mapping[str, Mapping], quotes=None, names=(), topic="", known=(), branch=""):
        names = tuple(names)
        out = original(text, sources, quotes, names, topic, known, branch)
        line = {
            "topic": topic,
            "branch": branch,
            "names": list(names),
            "draft": text,
            "grounded": out.text,
            "removed": list(zip(out.removed, out.reasons, strict=False)),
            "sources": {sid: _source_record(s) for sid, s in sources.items()},
            "quotes": {sid: list(q) for sid, q in (quotes or {}).items()},
        }
        with lock, path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
        return out

    patched = [synthesize, meta]
    for module in patched:
        module.ground_text = recorded
    try:
        yield
    finally:
        for module in patched:
            module.ground_text = original


def _bare(text: str) -> str:
    return " ".join(_NUMBER.sub("", _MARKER.sub("", text)).split()).strip(" .").lower()


def best_source(bare: str, record: dict[str, Any]) -> str:
    """The id of the draft's source whose title, passage and quotes hold most of the sentence's words."""

    def held(sid: str) -> float:
        source = record["sources"][sid]
        text = " ".join([source["title"], source["snippet"], *record["quotes"].get(sid, [])])
        return support_share(bare, text)

    return max(record["sources"], key=held, default="")


def draft_pairs(record: dict[str, Any], index: int) -> list[dict[str, Any]]:
    """The (sentence, cited source) pairs of one recorded draft, each with `engine_kept`."""
    ids = list(dict.fromkeys(_MARKER.findall(record["draft"])))
    number = {sid: n for n, sid in enumerate(ids, start=1)}
    numbered = _MARKER.sub(lambda m: f"[{number[m.group(1)]}]", record["draft"])
    kept_text = _bare(record["grounded"])
    names = tuple(record.get("names") or question_subjects(record.get("topic", "")))
    why_removed = {_bare(sentence): why for sentence, why in record.get("removed", [])}
    pairs = []
    for position, sentence in enumerate(statements(numbered, names, record.get("topic", ""))):
        bare = _bare(sentence)
        kept = bare in kept_text
        removed = why_removed.get(bare)
        # neither kept nor removed as unsupported: said already (by an earlier sentence or a branch answer)
        action = "kept" if kept else ("removed" if removed is not None else "repeat")
        chosen = [(n, ids[n - 1] if 0 < n <= len(ids) else "") for n in cited_numbers(sentence)]
        if not chosen and action == "removed":
            chosen = [(0, best_source(bare, record))]
        for n, sid in chosen:
            source = record["sources"].get(sid, {})
            pairs.append(
                {
                    "draft": index,
                    "question": record.get("topic", ""),
                    "sentence_index": position,
                    "sentence": sentence,
                    "source": n,
                    "dangling": not source,
                    "cited": n > 0,
                    "title": source.get("title", ""),
                    "url": source.get("url", ""),
                    "passage": source.get("snippet", ""),
                    "findings": [{"quote": q} for q in record["quotes"].get(sid, [])],
                    "engine_kept": kept if action != "repeat" else None,
                    "engine_action": action,
                    "engine_reason": removed or "",
                    "label": "",
                    "reason": "",
                }
            )
    return pairs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.drafts")
    sub = parser.add_subparsers(dest="command", required=True)
    pairs = sub.add_parser("pairs", help="write the drafts' (sentence, cited source) pairs for labelling")
    pairs.add_argument("--drafts", type=Path, required=True)
    pairs.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    records = [json.loads(line) for line in args.drafts.read_text(encoding="utf-8").splitlines() if line.strip()]
    written = [pair for i, record in enumerate(records) for pair in draft_pairs(record, i)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for pair in written:
            f.write(json.dumps(pair, ensure_ascii=False) + "\n")
    actions = {a: sum(p["engine_action"] == a for p in written) for a in ("kept", "removed", "repeat")}
    print(f"{len(written)} pairs from {len(records)} drafts ({actions}) -> {args.out}")


if __name__ == "__main__":
    main()
