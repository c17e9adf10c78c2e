"""The gates' protocol: what each `interrupt()` shows (payload) and what the user may answer.

A run pauses at four gates: plan review (`planning/review.py`), and the step, revision and
drill-down gates (`coordination/gates.py`). Each has one payload model, whose `model_dump()`
is the exact dict the graph hands to `interrupt()` (and that the UI, the CLI and stored
checkpoints read back with `read_payload`), and one typed answer, discriminated by `action` where
the answer has variants.

The pages and the CLI build typed answers; the Runner sends them as `model_dump(mode="json")`, so
checkpoints hold plain JSON. One parse function per gate reads what arrives, whether a typed
answer, its dump, or the plain strings and dicts older callers send (`resume --answer continue`, an
`--answer FILE.json`), and returns the typed answer, or raises `PlanError` with the message the gate
shows the user as its `error`. The pages and the CLI run the same parser before they send, so a
refused answer is said where it was typed.
"""

from research_core.gates.answers import (
    ANSWER_TYPES,
    DRILL_ANSWERS,
    GATE_KINDS,
    REVIEW_ANSWERS,
    REVISION_ANSWERS,
    STEP_ANSWERS,
    DrillAnswer,
    DrillApprove,
    DrillReject,
    GateAnswer,
    GateKind,
    ReviewAnswer,
    ReviewApprove,
    ReviewCancel,
    RevisionAccept,
    RevisionAnswer,
    RevisionReject,
    StepAnswer,
    answer_schema,
    answers_help,
)
from research_core.gates.parsing import (
    parse_answer,
    parse_drill_answer,
    parse_review_answer,
    parse_revision_answer,
    parse_step_answer,
    plain_answer,
)
from research_core.gates.payloads import (
    DrillDownPayload,
    GatePayload,
    ReviewPayload,
    RevisionPayload,
    StepPayload,
    read_payload,
)

__all__ = [
    "ANSWER_TYPES",
    "DRILL_ANSWERS",
    "GATE_KINDS",
    "REVIEW_ANSWERS",
    "REVISION_ANSWERS",
    "STEP_ANSWERS",
    "DrillAnswer",
    "DrillApprove",
    "DrillDownPayload",
    "DrillReject",
    "GateAnswer",
    "GateKind",
    "GatePayload",
    "ReviewAnswer",
    "ReviewApprove",
    "ReviewCancel",
    "ReviewPayload",
    "RevisionAccept",
    "RevisionAnswer",
    "RevisionPayload",
    "RevisionReject",
    "StepAnswer",
    "StepPayload",
    "answer_schema",
    "answers_help",
    "parse_answer",
    "parse_drill_answer",
    "parse_review_answer",
    "parse_revision_answer",
    "parse_step_answer",
    "plain_answer",
    "read_payload",
]
