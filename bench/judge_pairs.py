"""Judging a report sentence by sentence against the sources it cites.

`extract` reads the runs a `bench.research_quality --json RUNS.json --keep-runs RUNS.db` round
kept and writes one JSON line per (sentence, cited source) pair of each run's final report:

- sentences are the report's factual sentences as `bench.research_quality.statements` counts them
  (5+ words; headings, source lists and "no evidence" remarks left out);
- a sentence cites source n with "[n]" (or "[n, m]"), numbered 1-based in the order of the run's
  `result.sources`, as the engine writes them; a sentence citing nothing gives no pair (the
  extraction prints how many there were), a number with no source gives a pair with an empty
  title, address and passage (`dangling`);
- with each pair go the source's title, address and stored passage (`snippet`, what the engine
  read) and the findings citing that source (their text, `quote` and `location`, empty for runs
  made before findings had them);
- `label` and `reason` are left empty for a judge: `supported` (the passage or a quote states the
  sentence), `partly` (states part of it; the rest is unstated or goes beyond it), `not_stated`
  (the source does not say it, though it may be true) or `wrong` (the source says otherwise, or the
  sentence misreads it).

`--sample N` keeps a seeded random N pairs per run (in report order) when a run has more.

`summary` counts the labels of a pairs file: overall, per mode (flat, hierarchical) and per
question, with shares of the labelled pairs; when pairs carry `engine_kept` (whether the engine's
own check kept the sentence), it adds the agreement table: of the pairs judged wrong or not_stated,
how many the engine removed, and of those judged supported, how many it kept.

Run:
  .venv/bin/python -m bench.judge_pairs extract --runs-db RUNS.db --json RUNS.json \
      --out bench/judged/ROUND/pairs.jsonl [--sample 12]
  .venv/bin/python -m bench.judge_pairs carry --pairs bench/judged/ROUND/pairs.jsonl
  .venv/bin/python -m bench.judge_pairs summary --pairs bench/judged/ROUND/pairs.jsonl

`carry` fills each unlabelled pair with the label a reader gave the same pair (same sentence, same
page) in an earlier round, newest first, naming that round in `carried_from`.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench.research_quality import statements
from research_core.configuration import LLMSettings
from research_core.runs.errors import RunError
from research_core.runs.records import RunResult
from research_core.runs.runner import Runner
from research_core.synthesis.evidence import question_subjects

LABELS = ("supported", "partly", "not_stated", "wrong")
_CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def cited_numbers(sentence: str) -> list[int]:
    """The source numbers a sentence cites ("[2]", "[1, 3]"), in order of first mention, once each."""
    numbers = (int(n) for group in _CITATION.findall(sentence) for n in group.split(","))
    return list(dict.fromkeys(numbers))


def findings_by_source(result: RunResult) -> dict[str, list[dict[str, str]]]:
    """Every branch's findings, by the id of each source they cite: text, quote and location."""
    found: dict[str, list[dict[str, str]]] = {}
    for branch in result.sub_questions:
        for finding in branch.findings:
            entry = {"branch": branch.id, "text": finding.text, "quote": finding.quote, "location": finding.location}
            for source_id in finding.source_ids:
                found.setdefault(source_id, []).append(entry)
    return found


def run_pairs(result: RunResult, row: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """(the (sentence, cited source) pairs of a run's final report, how many sentences cite nothing);
    a sentence the report repeats word for word makes its pairs once."""
    numbered = dict(enumerate(result.sources, start=1))
    findings = findings_by_source(result)
    pairs: list[dict[str, Any]] = []
    uncited = 0
    names = question_subjects(result.question)
    seen: set[str] = set()
    for index, sentence in enumerate(statements(result.final_answer or "", names, result.question)):
        if sentence in seen:
            continue  # the report repeats it (a lead picked from the branch answers): judged once
        seen.add(sentence)
        numbers = cited_numbers(sentence)
        uncited += not numbers
        for number in numbers:
            source = numbered.get(number)
            pairs.append(
                {
                    "run_id": result.run_id,
                    "question": row.get("id"),
                    "mode": result.mode,
                    "asked": row.get("asked"),
                    "reading": row.get("reading"),
                    "sentence_index": index,
                    "sentence": sentence,
                    "source": number,
                    "dangling": source is None,
                    "title": source.title if source else "",
                    "url": source.url if source else "",
                    "passage": source.snippet if source else "",
                    "read": source.read if source else "",
                    "findings": findings.get(source.id, []) if source else [],
                    "label": "",
                    "reason": "",
                }
            )
    return pairs, uncited


def sample(pairs: list[dict[str, Any]], n: int | None, seed: int, run_id: str) -> list[dict[str, Any]]:
    """At most `n` of the pairs, chosen at random with a seed of (`seed`, run) and kept in report order."""
    if n is None or len(pairs) <= n:
        return pairs
    chosen = sorted(random.Random(f"{seed}:{run_id}").sample(range(len(pairs)), n))
    return [pairs[i] for i in chosen]


def extract(args: argparse.Namespace) -> None:
    """Write the pairs of every run of the research_quality JSON that the runs database holds."""
    if args.out.exists() and not args.force and any(json.loads(line).get("label") for line in _lines(args.out)):
        raise SystemExit(f"{args.out} holds labels already; pass --force to overwrite it")
    rows = [r for r in json.loads(args.json.read_text(encoding="utf-8")).get("runs", []) if r.get("run_id")]
    runner = Runner(args.runs_db, llm_settings=LLMSettings(provider="local"))  # reads only: no model starts
    written: list[dict[str, Any]] = []
    for row in rows:
        try:
            result = runner.result(row["run_id"])
        except RunError as exc:
            print(f"{row['run_id']}: {exc}")
            continue
        if result is None:
            print(f"{row['run_id']}: not finished, no report")
            continue
        pairs, uncited = run_pairs(result, row)
        kept = sample(pairs, args.sample, args.seed, result.run_id)
        written += kept
        print(
            f"{row.get('id')} {result.mode:<12} {result.run_id}: {len(pairs)} pairs "
            f"({sum(p['dangling'] for p in pairs)} dangling), {uncited} uncited sentences, {len(kept)} written"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for pair in written:
            f.write(json.dumps(pair, ensure_ascii=False) + "\n")
    print(f"{len(written)} pairs from {len(rows)} runs -> {args.out}")


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def label_counts(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts of each label, of unlabelled pairs, and each label's share of the labelled pairs."""
    counts = Counter(p.get("label") or "" for p in pairs)
    unknown = sorted(k for k in counts if k and k not in LABELS)
    if unknown:
        raise SystemExit(f"unknown labels {unknown}; use one of {', '.join(LABELS)}")
    labelled = sum(counts[label] for label in LABELS)
    out: dict[str, Any] = {"pairs": len(pairs), "labelled": labelled, "unlabelled": counts[""]}
    out.update({label: counts[label] for label in LABELS})
    out.update({f"{label}_share": round(counts[label] / labelled, 3) if labelled else None for label in LABELS})
    return out


def agreement(pairs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """How the engine's keep/remove decisions (`engine_kept`) meet the labels; None when no pair has one."""
    judged = [p for p in pairs if isinstance(p.get("engine_kept"), bool) and p.get("label") in LABELS]
    if not judged:
        return None
    bad = [p for p in judged if p["label"] in ("wrong", "not_stated")]
    good = [p for p in judged if p["label"] == "supported"]
    partly = [p for p in judged if p["label"] == "partly"]
    return {
        "bad": len(bad),
        "bad_removed": sum(not p["engine_kept"] for p in bad),
        "supported": len(good),
        "supported_kept": sum(p["engine_kept"] for p in good),
        "partly": len(partly),
        "partly_kept": sum(p["engine_kept"] for p in partly),
    }


def summary(args: argparse.Namespace) -> None:
    """Print (and with --json write) the label counts and the agreement table of a pairs file."""
    pairs = [json.loads(line) for line in _lines(args.pairs)]
    figures: dict[str, Any] = {"all": label_counts(pairs), "by_mode": {}, "by_question": {}}
    for key, field in (("by_mode", "mode"), ("by_question", "question")):
        for value in sorted({str(p.get(field)) for p in pairs}):
            figures[key][value] = label_counts([p for p in pairs if str(p.get(field)) == value])
    header = f"{'':<20} {'pairs':>5} {'judged':>6} " + " ".join(f"{label:>14}" for label in LABELS)
    print(header)
    rows = [("all", figures["all"])]
    rows += [(f"mode {k}", v) for k, v in figures["by_mode"].items()]
    rows += [(f"question {k}", v) for k, v in figures["by_question"].items()]
    for name, c in rows:
        cells = " ".join(
            f"{c[label]:>5} ({c[label + '_share'] * 100:>4.0f}%)" if c["labelled"] else f"{c[label]:>14}"
            for label in LABELS
        )
        print(f"{name:<20} {c['pairs']:>5} {c['labelled']:>6} {cells}")
    table = agreement(pairs)
    if table:
        figures["agreement"] = table
        print(
            f"engine agreement: of {table['bad']} wrong or not_stated, the engine removed {table['bad_removed']}; "
            f"of {table['supported']} supported, it kept {table['supported_kept']}; "
            f"of {table['partly']} partly, it kept {table['partly_kept']}"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


def pair_key(sentence: str, url: str) -> tuple[str, str]:
    """What makes two pairs the same pair: the sentence's words (citation numbers and case aside) and the page."""
    return re.sub(r"\W+", " ", _CITATION.sub("", sentence).lower()).strip(), url


JUDGED = Path(__file__).resolve().parent / "judged"


def carry(pairs: Path, judged: Path = JUDGED) -> None:
    """Give each unlabelled pair of `pairs` the label and reason a reader gave the same pair in an
    earlier round (newest round first), with `carried_from` naming it; rewrite the file in place."""
    earlier: dict[tuple[str, str], dict[str, str]] = {}
    for path in sorted(judged.glob("round-*/pairs*.jsonl"), reverse=True):
        if path.resolve() == pairs.resolve():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            pair = json.loads(line)
            if pair.get("label"):
                key = pair_key(pair["sentence"], pair["url"])
                earlier.setdefault(
                    key, {"label": pair["label"], "reason": pair.get("reason", ""), "round": path.parent.name}
                )
    rows = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines()]
    carried = 0
    for row in rows:
        found = None if row.get("label") else earlier.get(pair_key(row["sentence"], row["url"]))
        if found:
            row.update(label=found["label"], reason=found["reason"], carried_from=found["round"])
            carried += 1
    pairs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    left = sum(1 for r in rows if not r.get("label"))
    print(f"{carried} of {len(rows)} pairs carried from earlier rounds; {left} left to read")


def main(argv: list[str] | None = None) -> None:
    """`extract` pairs from kept runs, or `summary` of a labelled pairs file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("extract", help="write (sentence, cited source) pairs of kept runs")
    ex.add_argument("--runs-db", type=Path, required=True, help="the database research_quality --keep-runs kept")
    ex.add_argument("--json", type=Path, required=True, help="the research_quality --json file of the same round")
    ex.add_argument("--out", type=Path, required=True, help="bench/judged/<round>/pairs.jsonl")
    ex.add_argument("--sample", type=int, default=None, help="at most N pairs per run, chosen at random")
    ex.add_argument("--seed", type=int, default=0)
    ex.add_argument("--force", action="store_true", help="overwrite a file that holds labels")
    ca = sub.add_parser("carry", help="fill unlabelled pairs from earlier rounds' labels of the same pair")
    ca.add_argument("--pairs", type=Path, required=True)
    su = sub.add_parser("summary", help="label counts (and engine agreement) of a pairs file")
    su.add_argument("--pairs", type=Path, required=True)
    su.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = parser.parse_args(argv)
    if args.command == "extract":
        if not args.runs_db.is_file():
            sys.exit(f"{args.runs_db} does not exist")
        extract(args)
    elif args.command == "carry":
        carry(args.pairs)
    else:
        summary(args)


if __name__ == "__main__":
    main()
