"""Pydantic models shared by the engine, the CLI and the UI.

Two families live here: the records Arbor keeps (SubQuestion, Finding, Source, CostEntry,
LogEntry, Plan, and the parts of a run's result, whose record `RunResult` is in `runs/records.py`
beside its branch rows) and the structured-output schemas the LLM must answer with
(ClassificationOutput, DecompositionOutput, QueryPlanOutput, FindingsOutput).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

BranchStatus = Literal["pending", "researching", "completed", "skipped", "failed"]
# A branch in one of these is done with: nothing more is scheduled for it.
FINAL_STATUSES = frozenset({"completed", "skipped", "failed"})
RunStatus = Literal[
    "created",
    "queued",
    "running",
    "awaiting_review",
    "awaiting_step",
    "completed",
    "completed_with_fallback",
    "failed",
    "interrupted",
    "cancelled",
]
Mode = Literal["flat", "hierarchical", "hypothesis"]

FLAT_BRANCH_ID = "sq_000"


def utc_now() -> str:
    """Return the current time as an ISO-8601 UTC string."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def stable_id(*parts: str, length: int = 12) -> str:
    """Return a short, deterministic id for the given parts (same input, same id)."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return digest[:length]


class SubQuestion(BaseModel):
    """One node of the research tree: the record of a branch, as the run's state holds it
    (`state.ResearchState.branches`) and the tasks carry it (`task_records`)."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(description="Stable id: sq_001, sq_002 ... children sq_001.1")
    question_text: str = Field(min_length=1, description="The sub-question as asked.")
    priority: float = Field(ge=0.0, le=1.0, description="Importance 0.0-1.0.")
    rationale: str = ""
    status: BranchStatus = "pending"
    depth: int = Field(default=0, ge=0)
    parent_id: str | None = None
    allocated_iterations: int = 0
    iteration_count: int = 0
    synthesis: str | None = None
    confidence: float | None = None
    stop_reason: str | None = None
    research_done: bool = False
    queries: list[str] = Field(default_factory=list)
    kind: Literal["question", "hypothesis"] = "question"
    # drill-down
    depth_assessment: str | None = None
    depth_reasoning: str | None = None
    drill_proposal: list[dict] | None = None
    drill_status: str | None = None
    # smarter retries: per-backend outcomes for this branch, and backends dropped for it
    backend_stats: dict[str, dict[str, int]] = Field(default_factory=dict)
    dropped_backends: list[str] = Field(default_factory=list)
    last_outcome: str | None = None
    # verified citations
    citations_checked: int = 0
    citations_supported: int = 0
    # grounded writing: factual statements of the answer, and those a cited source supports
    statements_checked: int = 0
    statements_supported: int = 0
    # hypothesis mode
    hypothesis: dict | None = None
    # reading sources: web results whose page was read, and those left with their snippet (by reason)
    pages_read: int = 0
    pages_failed: int = 0
    pages_not_read: dict[str, int] = Field(default_factory=dict)
    # passages already shown to the extraction prompt (`research/shown_passages.py`)
    shown_passages: list[str] = Field(default_factory=list)

    @field_validator("question_text")
    @classmethod
    def _strip_text(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("question text is empty")
        return value


class Source(BaseModel):
    """A search result from any backend, tagged with the branch that found it."""

    model_config = ConfigDict(extra="ignore")

    id: str
    url: str = Field(description="http(s) URL or a local document path")
    title: str = ""
    snippet: str = ""
    relevance: float = 0.0
    backend: str
    sub_question_id: str | None = None
    read: Literal["page", "snippet"] = Field(
        default="snippet", description="page: `snippet` holds passages of the fetched page; snippet: the search teaser"
    )
    read_note: str = Field(default="", description="How the page was read, or why only the snippet was used")

    @classmethod
    def make(
        cls,
        url: str,
        title: str,
        snippet: str,
        relevance: float,
        backend: str,
        sub_question_id: str | None = None,
    ) -> Source:
        """Build a Source whose id depends only on its URL (so duplicates collapse)."""
        return cls(
            id=stable_id(url),
            url=url,
            title=title,
            snippet=snippet,
            relevance=relevance,
            backend=backend,
            sub_question_id=sub_question_id,
        )


class Finding(BaseModel):
    """A fact extracted from sources for one branch: the one definition of a finding's fields.

    Findings live in the state (and so in checkpoints) as this model's dump, and in run results as
    this record. A field it does not have is refused (a misspelled field fails where it is written);
    findings read back from a store are cleaned of unknown keys first (`runs/rows.py`).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    sub_question_id: str
    text: str
    confidence: float = Field(ge=0.0, le=1.0)
    source_ids: list[str] = Field(default_factory=list)
    iteration: int = 0
    quote: str = Field(default="", description="The exact span of the cited source's passage the finding rests on")
    location: str = Field(
        default="", description="Where the quote is: the source's address with a text fragment (#:~:text=...)"
    )


class CostEntry(BaseModel):
    """One LLM call: what it cost and which node and branch it served."""

    node: str
    task: str
    branch: str | None = None
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    ok: bool = True
    timestamp: str = Field(default_factory=utc_now)


class LogEntry(BaseModel):
    """One entry of the run's execution log (decisions, warnings, errors)."""

    node: str
    kind: str = "decision"
    branch: str | None = None
    message: str
    reasoning: str = ""
    timestamp: str = Field(default_factory=utc_now)


class Plan(BaseModel):
    """A research plan: the tree of sub-questions the user reviews."""

    question: str
    strategy: str = "multi-faceted"
    sub_questions: list[SubQuestion]


class SubSynthesisSummary(BaseModel):
    """The per-branch entry of RunResult.synthesis.sub_syntheses."""

    id: str
    question: str
    priority: float
    confidence: float | None
    synthesis_length: int


class SynthesisSummary(BaseModel):
    """The `synthesis` block of the result: how the run was approached and what it gathered."""

    approach: Mode
    decomposition_strategy: str | None
    sub_questions_count: int
    total_iterations: int
    total_findings: int
    total_sources: int
    citations_checked: int = 0
    citations_supported: int = 0
    statements_checked: int = Field(default=0, description="Factual statements the report's writer made")
    statements_supported: int = Field(default=0, description="Of those, statements kept with a supporting source")
    sub_syntheses: list[SubSynthesisSummary]


class CostTotals(BaseModel):
    """Totals and breakdowns of the cost entries of a run."""

    total_usd: float
    tokens_in: int
    tokens_out: int
    llm_calls: int
    by_node: dict[str, float]
    by_branch: dict[str, float]
    by_model: dict[str, float]
    entries: list[CostEntry]


# ---- structured outputs the LLM answers with -------------------------------------------


class ClassificationOutput(BaseModel):
    """How complex the question is."""

    complexity: Literal["simple", "complex"] = Field(
        description="simple: one fact or definition; complex: several aspects to research"
    )
    reasoning: str = Field(default="", description="One or two sentences on why.")


class ProposedSubQuestion(BaseModel):
    """A sub-question as the LLM proposes it."""

    question: str = Field(min_length=3, description="A focused, researchable question.")
    priority: float = Field(ge=0.0, le=1.0, description="Importance from 0.0 to 1.0.")
    rationale: str = Field(default="", description="Why this part matters.")


class DecompositionOutput(BaseModel):
    """The LLM's decomposition of a question."""

    strategy: str = Field(description="comparison, multi-faceted, causal, temporal, evaluative or another word")
    sub_questions: list[ProposedSubQuestion] = Field(min_length=1)
    reasoning: str = Field(default="", description="One sentence on the split.")


class QueryPlanOutput(BaseModel):
    """Search queries for one research iteration."""

    queries: list[str] = Field(min_length=1, max_length=3, description="1-3 search queries")
    reasoning: str = ""


class ExtractedFinding(BaseModel):
    """One finding the LLM picked: the numbers of the passage sentences that state it.

    `text` and `sources` are the older, written form (a fact in the model's words and the numbers
    of its sources); they are accepted from endpoints that answer that way, but not asked for: the
    engine then quotes the cited passage's sentences that best support the text.
    """

    sentences: list[int] = Field(default_factory=list, description="Numbers of 1-3 neighbouring sentences")
    confidence: float = Field(default=0.7, ge=0.0, le=1.0, description="0.0-1.0 how plainly they state it")
    text: SkipJsonSchema[str] = ""
    sources: SkipJsonSchema[list[int]] = Field(default_factory=list)


class DepthAssessmentOutput(BaseModel):
    """How deeply a branch's findings answer it, and where to dig if they do not."""

    depth: Literal["superficial", "adequate", "deep"] = Field(description="How well the findings answer it")
    reasoning: str = Field(default="", description="One or two sentences on why.")
    drill_into: list[str] = Field(default_factory=list, description="Up to 3 narrower questions to research")


class PlanRevisionOutput(BaseModel):
    """Changes to the pending part of the plan after a branch finished."""

    add: list[ProposedSubQuestion] = Field(default_factory=list, description="New important sub-questions")
    drop: list[str] = Field(default_factory=list, description="Ids of pending sub-questions no longer needed")
    reprioritize: dict[str, float] = Field(default_factory=dict, description="id -> new priority 0-1")
    reasoning: str = ""


class CoverageOutput(BaseModel):
    """What the research covered and what it missed."""

    covered: list[str] = Field(default_factory=list, description="Aspects the research answered")
    gaps: list[str] = Field(default_factory=list, description="Aspects still missing or weak")
    sufficient: bool = Field(default=True, description="Is the research enough to answer the question?")
    reasoning: str = ""


class ClaimCheck(BaseModel):
    """Whether one cited claim is supported by its source."""

    claim: int = Field(description="Number of the claim")
    supported: bool


class CitationCheckOutput(BaseModel):
    """Verdicts on the cited claims of a synthesis."""

    checks: list[ClaimCheck] = Field(default_factory=list)
    reasoning: str = ""


class ProposedHypothesis(BaseModel):
    """An investigative hypothesis as the LLM proposes it."""

    statement: str = Field(min_length=3, description="A testable claim that would answer the question")
    search_strategy: str = Field(default="", description="What to search for to test it")
    confidence: int = Field(default=5, ge=1, le=10, description="Prior confidence 1-10")
    expected_evidence: str = Field(default="", description="Evidence that would support it")
    validation_criteria: str = Field(default="", description="What would validate or refute it")


class HypothesesOutput(BaseModel):
    """The LLM's hypotheses for a question."""

    hypotheses: list[ProposedHypothesis] = Field(min_length=1)
    reasoning: str = ""


class HypothesisVerdictOutput(BaseModel):
    """The judgement on one hypothesis after research."""

    verdict: Literal["validated", "refuted", "inconclusive"]
    evidence: str = Field(description="What the findings show, citing sources as [n]")
    confidence: int = Field(default=5, ge=1, le=10)
    pivot: str | None = Field(default=None, description="A revised hypothesis worth testing instead, if any")
    reasoning: str = ""


class FindingsOutput(BaseModel):
    """The findings of one research iteration."""

    findings: list[ExtractedFinding] = Field(default_factory=list)
    reasoning: str = ""
