"""The gates' protocol: what each `interrupt()` shows (payload) and what the user may answer.

A run pauses at four gates: plan review (`planning/review.py`), and the step, revision and
drill-down gates (`coordination/gates.py`). Each has one payload model, whose `model_dump()`
is the exact dict the graph hands to `interrupt()` (and that the UI, the CLI and stored
checkpoints read back with `read_payload`), and one typed answer, discriminated by `action` where
the answer has variants.

An answer has one shape from the edge to the node. The pages and the CLI turn what the user typed
(table edits, words, JSON) into the gate's typed answer once, with `parse_answer`, which checks it
against the run or raises `GateAnswerError` (an `ArborError`, one line) where it was typed. The Runner
sends the typed answer as `plain_answer(answer)`; the gate reads it back with `answer_from_resume`
(the model, validated from its dump, not parsed again) inside `ask_until_valid`, the one loop every
gate runs. Words and older dict shapes (older callers, checkpoints written before the typed answers)
are read there by the gate's parser, so they are still accepted or refused with the gate reopened.
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
    GateAnswerError,
    GateKind,
    ReviewAnswer,
    ReviewApprove,
    ReviewCancel,
    RevisionAccept,
    RevisionAnswer,
    RevisionReject,
    StepAnswer,
    answer_from_resume,
    answer_schema,
    answers_help,
    plain_answer,
)
from research_core.gates.asking import ask_until_valid
from research_core.gates.parsing import (
    branch_statuses,
    check_step_targets,
    parse_answer,
    parse_drill_answer,
    parse_review_answer,
    parse_revision_answer,
    parse_step_answer,
    proposed_part,
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
    "GateAnswerError",
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
    "answer_from_resume",
    "answer_schema",
    "answers_help",
    "ask_until_valid",
    "branch_statuses",
    "check_step_targets",
    "parse_answer",
    "parse_drill_answer",
    "parse_review_answer",
    "parse_revision_answer",
    "parse_step_answer",
    "plain_answer",
    "proposed_part",
    "read_payload",
]
