"""The `gates` command: what each gate accepts as an answer, as one line each or as JSON schema."""

from __future__ import annotations

import argparse
import json

from research_core.gates import (
    DRILL_ANSWERS,
    GATE_KINDS,
    REVIEW_ANSWERS,
    REVISION_ANSWERS,
    STEP_ANSWERS,
    answer_schema,
)

ANSWER_LINES = {
    "review": REVIEW_ANSWERS,
    "step": STEP_ANSWERS,
    "revision": REVISION_ANSWERS,
    "drill_down": DRILL_ANSWERS,
}


def gates(args: argparse.Namespace) -> int:
    """Print what one gate (or each of the four) accepts: its answer forms, or with --schema its typed answer's
    JSON schema. An answer written as that schema says may be given to `resume --answer`, inline or as a FILE.json.
    """
    kinds = [args.kind] if args.kind else list(GATE_KINDS)
    if args.schema:
        schemas = {kind: answer_schema(kind) for kind in kinds}
        print(json.dumps(schemas[args.kind] if args.kind else schemas, indent=2, ensure_ascii=False))
        return 0
    for kind in kinds:
        print(f"{kind}: {ANSWER_LINES[kind]}")
    return 0
