"""The grounding check of today's engine against pairs labelled by reading in earlier rounds.

A round's drafts (`research_quality --drafts`) hold every text the engine checked, with the sources
and quotes it checked them against, and what it kept. Each kept sentence became (sentence, cited
source) pairs that a reader labelled (`bench/judged/round-*/pairs-*.jsonl`). Running today's
`grounding.ground_text` over the same drafts shows, without the model, what a change to the check
does to labelled pairs: of those labelled wrong or not stated, how many it now removes; of those
labelled supported, how many it still keeps; and how many of the questions' aspects the checked
texts still name (a check that removes too much also removes what the answer needed).

    .venv/bin/python -m bench.regrade bench/judged/round-2026-11-25q/drafts-*.jsonl.gz [-v]

The subjects a text is checked for are read from its topic by today's engine
(`evidence.question_subjects`), not taken from the draft, so a change to how subjects are found is
measured too.

A pair counts as removed when today's text no longer has that sentence citing that source (a
sentence kept with another citation removes the old pair).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from research_core.synthesis.evidence import question_subjects
from research_core.synthesis.grounding import ground_text
from research_core.text.citations import cited_source_ids
from research_core.text.sentence_ends import SENTENCE_END

_BENCH = Path(__file__).resolve().parent
_MARKER = re.compile(r"\s*\[\[src:[^\]]+\]\]")
_NUMBERS = re.compile(r"\s*\[\d+(?:,\s*\d+)*\]")
_SENTENCE = SENTENCE_END  # as the engine cuts a report (`synthesis.grounding`)
LABELS = ("supported", "partly", "not_stated", "wrong")


def _key(sentence: str) -> str:
    return re.sub(r"\W+", " ", sentence.lower()).strip()


def labelled_pairs(judged: Path = _BENCH / "judged") -> dict[tuple[str, str], str]:
    """(sentence, source address) -> the label a reader gave it, newest round first."""
    labels: dict[tuple[str, str], str] = {}
    for path in sorted(judged.glob("round-*/pairs*.jsonl"), reverse=True):
        for line in path.read_text(encoding="utf-8").splitlines():
            pair = json.loads(line)
            if pair.get("label"):
                labels.setdefault((_key(_NUMBERS.sub("", pair["sentence"])), pair["url"]), pair["label"])
    return labels


def _records(path: Path) -> Iterator[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if isinstance(record.get("sources"), dict):
                yield record


def _pairs(text: str, sources: dict) -> set[tuple[str, str]]:
    """The (sentence, source address) pairs of a checked text."""
    out = set()
    for line in _SENTENCE.split(text):
        bare = _MARKER.sub("", line).strip()
        for sid in cited_source_ids(line):
            out.add((_key(bare), str((sources.get(sid) or {}).get("url") or "")))
    return out


def _branch_of(topic: str, questions: list[dict]) -> str:
    """The branch question of a draft recorded before drafts kept it: a branch answer's topic is its
    question followed by the main one; an overview's topic is the main question alone ("")."""
    question = next((q["question"] for q in questions if topic.endswith(q["question"])), "")
    return topic[: len(topic) - len(question)].strip() if question else ""


def _aspects(text: str, topic: str, questions: list[dict]) -> int:
    question = next((q for q in questions if q["question"] in topic), None)
    lower = text.lower()
    return sum(1 for spellings in question["aspects"] if any(s in lower for s in spellings)) if question else 0


@dataclass
class Regrade:
    """Labelled pairs found in the drafts, those today's check removes, and the aspects the texts name."""

    labelled: Counter = field(default_factory=Counter)
    removed: Counter = field(default_factory=Counter)
    aspect_hits: int = 0
    removed_pairs: list[tuple[str, str, str]] = field(default_factory=list)


def regrade(drafts: list[Path], labels: dict[tuple[str, str], str], questions: list[dict]) -> Regrade:
    """Check every recorded draft again and compare with the labels of the pairs it had produced."""
    out = Regrade()
    for path in drafts:
        for record in _records(path):
            sources = record["sources"]
            checked = ground_text(
                record["draft"],
                sources,
                record.get("quotes"),
                question_subjects(record["topic"]),
                record["topic"],
                record.get("known", ()),
                record.get("branch", _branch_of(record["topic"], questions)),
            )
            out.aspect_hits += _aspects(checked.text, record["topic"], questions)
            now = _pairs(checked.text, sources)
            for pair in _pairs(record["grounded"], sources):
                label = labels.get(pair)
                if label is None:
                    continue
                out.labelled[label] += 1
                if pair not in now:
                    out.removed[label] += 1
                    out.removed_pairs.append((label, *pair))
    return out


def _questions() -> list[dict]:
    found = []
    for name in ("research_quality_questions.json", "research_quality_questions_servers.json"):
        found += json.loads((_BENCH / name).read_text(encoding="utf-8"))["questions"]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("drafts", nargs="+", type=Path, help="research_quality --drafts files (.jsonl or .jsonl.gz)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the labelled pairs the check removes")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.drafts if not p.is_file()]
    if missing:
        parser.error(f"no such drafts file: {', '.join(missing)}")
    result = regrade(args.drafts, labelled_pairs(), _questions())
    for label in LABELS:
        total = result.labelled[label]
        removed = result.removed[label]
        verb = f"keeps {total - removed}" if label == "supported" else f"removes {removed}"
        print(f"{label:<11} {verb} of {total}")
    kept = {label: result.labelled[label] - result.removed[label] for label in LABELS}
    if sum(kept.values()):
        print(
            f"of the labelled pairs it keeps: {kept['supported'] / sum(kept.values()):.1%} supported, "
            f"{kept['wrong'] / sum(kept.values()):.1%} wrong"
        )
    print(f"aspect hits in the checked texts: {result.aspect_hits}")
    if args.verbose:
        for label, sentence, url in result.removed_pairs:
            print(f"removed {label:<11} {sentence[:120]} | {url[-40:]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
