"""A branch as the pages, the CLI and the exports read it: `BranchRow`, one per branch of a run.

`RunSnapshot.branches` and `RunResult.sub_questions` are these rows, in plan-tree order: the
branch's `SubQuestion` fields and its findings as `Finding` records. In a result the answer's
citations are the report's numbers ([n]); in a snapshot they are still the engine's markers.

The rules:
- Written by code, a row refuses a field it does not have (`extra="forbid"`), and so does each of
  its findings: a misspelled field fails where it is written, a misspelled read is an AttributeError.
- Read back from the run store (validation context `STORED`), a row of an older Arbor opens: the
  fields it lacks take their defaults, keys this version does not know are dropped, and findings
  that are not objects are skipped.
- A row is serialized once, at an edge (the stored result, the JSON export), as its dump: the
  `SubQuestion` fields in their order, then `findings`, the keys the rows always had.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ConfigDict, Field, ValidationInfo, model_validator

from research_core.runs.hypothesis_notes import HypothesisNotes, hypothesis_notes
from research_core.schemas import Finding, SubQuestion

# The validation context of data read back from a store: older shapes are read tolerantly.
STORED: dict[str, bool] = {"stored": True}


def is_stored(info: ValidationInfo) -> bool:
    """Whether the data being validated was read back from a store (context `STORED`)."""
    return bool(isinstance(info.context, Mapping) and info.context.get("stored"))


def known_fields(model: type[Finding] | type[SubQuestion], data: Mapping[str, Any]) -> dict[str, Any]:
    """`data` without the keys `model` has no field for."""
    return {key: value for key, value in data.items() if key in model.model_fields}


def stored_findings(findings: Iterable[Any]) -> list[dict[str, Any]]:
    """Findings as a store kept them, fit to validate: objects only, each without unknown keys."""
    return [known_fields(Finding, f) for f in findings if isinstance(f, Mapping)]


def findings_of(values: Mapping[str, Any]) -> list[Finding]:
    """The findings of a run's state (or checkpoint) as records, read as stored ones are."""
    return [Finding.model_validate(f) for f in stored_findings(values.get("findings") or [])]


class BranchRow(SubQuestion):
    """One branch of a run as it is shown and exported: its record and its findings.

    Refuses unknown fields when written; reads older stored rows tolerantly (the module's rules).
    """

    model_config = ConfigDict(extra="forbid")

    findings: list[Finding] = Field(default_factory=list, description="The branch's findings, in the run's order")

    @property
    def notes(self) -> HypothesisNotes:
        """The branch's hypothesis notes as a record (empty for a question branch)."""
        return hypothesis_notes(self.hypothesis)

    @model_validator(mode="before")
    @classmethod
    def _older_row(cls, data: Any, info: ValidationInfo) -> Any:
        """A stored row loses the keys this version does not know, and its non-object findings."""
        if not is_stored(info) or not isinstance(data, Mapping):
            return data
        row = known_fields(cls, data)
        findings = row.get("findings")
        row["findings"] = stored_findings(findings) if isinstance(findings, list) else []
        return row


def branch_rows(
    branches: Mapping[str, SubQuestion], order: Iterable[str], findings: Iterable[Finding] = ()
) -> list[BranchRow]:
    """The rows of `branches` in `order`, each with its findings (those naming it, in their order)."""
    by_branch: dict[str, list[Finding]] = {}
    for finding in findings:
        by_branch.setdefault(finding.sub_question_id, []).append(finding)
    return [BranchRow(**branches[bid].model_dump(), findings=by_branch.get(bid, [])) for bid in order]
