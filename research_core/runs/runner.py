"""The one API the CLI and the UI use to start, drive, inspect and export research runs.

A run is a LangGraph thread whose id is the run id. `start` and `resume` drive the graph until it finishes or
pauses at a gate; `start_background` and `resume_background` do it on a thread the runner owns
(`threads.RunThreads`: a page rerun or a second tab never drives one run twice), or on PostgreSQL queue the run
for a `worker` (`runs.queue`). `request_stop` asks whoever drives a run to stop at its next step.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from langgraph.types import Command

from research_core.configuration import DEFAULT_PRICING, LLMSettings, RunConfig
from research_core.db import open_checkpointer
from research_core.gates import GateAnswer, plain_answer
from research_core.graph import build_graph
from research_core.llm.client import LLMClient, client_for
from research_core.llm.model_settings import with_model_settings
from research_core.planning.decompose import propose_plan
from research_core.planning.plan import PlanError, validate_plan
from research_core.runs.drive import graph_config, stream_run
from research_core.runs.errors import RunError
from research_core.runs.inputs import clean_question
from research_core.runs.live_state import live_state
from research_core.runs.outcome import failure_message, record_outcome
from research_core.runs.ownership import DRIVEN_HERE, OWNER_TOKEN, other_live_owner, owner_alive
from research_core.runs.progress import progress_totals
from research_core.runs.records import RunRecord, RunResult, RunSummary
from research_core.runs.rerun_seed import rerun_values, seed_rerun
from research_core.runs.snapshot import RunSnapshot, build_snapshot, shown_status
from research_core.runs.store import RunOwnedElsewhere, RunStore
from research_core.runs.threads import RunThreads
from research_core.runs.waiting import wait_until_settled
from research_core.schemas import Plan
from research_core.search.base import SearchBackend
from research_core.services import Services
from research_core.sources.cache import PageCache
from research_core.storage.location import StoreLocation, locate

FINISHED = ("completed", "completed_with_fallback")


class Runner:
    """Starts and drives runs against one database: `db_path`, a SQLite path or a PostgreSQL URL (None: from env)."""

    def __init__(
        self,
        db_path: StoreLocation | Path | str | None = None,
        *,
        llm_settings: LLMSettings | None = None,
        api_key: str | None = None,
        pricing: Mapping[str, tuple[float, float]] | None = None,
        backends: list[SearchBackend] | None = None,
        progress: Callable[[str], None] | None = None,
    ):
        self.location = locate(db_path)
        self.db_path = self.location.path  # None on PostgreSQL
        self.llm_settings = llm_settings or LLMSettings.from_env()
        self._api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.pricing = dict(pricing if pricing is not None else DEFAULT_PRICING)
        self._backends = backends
        self.progress = progress
        self.store = RunStore(self.location)
        self._llm: LLMClient | None = None
        self._page_cache: PageCache | None = None
        self._runs = RunThreads()
        self._events: dict[str, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    # ---- services -----------------------------------------------------------------------

    @property
    def llm(self) -> LLMClient:
        """The LLM client (the embedded server starts on the first call that needs it)."""
        with self._lock:
            if self._llm is None:
                settings, key = self.llm_settings, self._api_key
                self._llm = client_for(settings, api_key=key, pricing=self.pricing, progress=self.progress)
            return self._llm

    def llm_record(self, run_id: str) -> dict[str, Any] | None:
        """The LLM settings a run was started with (no secrets), or None for runs recorded without them."""
        return self._record(run_id).llm

    def use_llm_settings(self, settings: LLMSettings) -> None:
        """Switch the LLM settings used from now on (e.g. a resumed run's own); refused while a run is driven."""
        with self._lock:
            if self._runs.any_active():
                raise RunError("Cannot change the LLM settings while a run is running.")
            self.llm_settings = settings
            self._llm = None

    def backends_for(self, config: RunConfig) -> list[SearchBackend]:
        """The search backends of a run: injected ones, or built from the config's names."""
        if self._backends is not None:
            return list(self._backends)
        from research_core.search.registry import build_backends

        return build_backends(config.search_backends, self.location, searxng_url=config.searxng_url)

    @property
    def page_cache(self) -> PageCache:
        """The page cache in this runner's database (read pages by URL, shared by all its runs)."""
        with self._lock:
            if self._page_cache is None:
                self._page_cache = PageCache(self.location)
            return self._page_cache

    def _services(self, run_id: str, config: RunConfig, llm: LLMClient) -> Services:
        events = self._events.setdefault(run_id, [])

        def emit(event: dict[str, Any]) -> None:
            events.append({**event, "t": time.time()})

        return Services(
            llm=llm,
            backends=self.backends_for(config),
            config=config,
            emit=emit,
            page_cache=self.page_cache.for_run(run_id),
        )

    # ---- planning without a run ---------------------------------------------------------

    def propose_plan(self, question: str, config: RunConfig) -> tuple[Plan, list[str]]:
        """Decompose a question without starting a run (the CLI's `decompose`)."""
        question = clean_question(question)
        plan, warnings, _costs, _reasoning = propose_plan(self.llm, question, config)
        return plan, warnings

    # ---- driving runs -------------------------------------------------------------------

    def start(
        self,
        question: str,
        config: RunConfig,
        plan: Plan | dict | None = None,
        *,
        run_id: str | None = None,
        parent_run_id: str | None = None,
        on_created: Callable[[str], None] | None = None,
    ) -> RunSnapshot:
        """Create a run and drive it until it finishes or pauses at a gate.

        `on_created` is called with the run id once the run is recorded, before it runs.
        """
        run_id = self.create_run(question, config, plan, run_id=run_id, parent_run_id=parent_run_id)
        if on_created is not None:
            on_created(run_id)
        return self._drive(run_id, self._initial_input(run_id))

    def create_run(
        self,
        question: str,
        config: RunConfig,
        plan: Plan | dict | None = None,
        *,
        run_id: str | None = None,
        parent_run_id: str | None = None,
        owner: str | None = None,
    ) -> str:
        """Check the inputs, record a run of `owner` (None: the local user) with its model settings; nothing runs."""
        question = clean_question(question)
        config = with_model_settings(config, self.llm.is_local)
        plan_dict = None
        if plan is not None:
            try:
                plan_dict = validate_plan(plan, question, config=config).model_dump()
            except PlanError as exc:
                raise RunError(f"The plan is invalid: {exc}") from None
        run_id = run_id or time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        llm = self.llm_settings.to_record()
        self.store.create(run_id, question, config.model_dump(), parent_run_id=parent_run_id, llm=llm, owner=owner)
        if plan_dict is not None:
            self.store.update(run_id, plan_json=plan_dict)
        return run_id

    def enqueue(
        self, question: str, config: RunConfig, plan: Plan | dict | None = None, *, owner: str | None = None
    ) -> str:
        """Record a new run of `owner` and queue it for a `worker` (PostgreSQL only); returns its id at once."""
        from research_core.runs.queue import enqueue_new_run

        return enqueue_new_run(self.store, functools.partial(self.create_run, owner=owner), question, config, plan)

    def enqueue_resume(self, run_id: str, answer: GateAnswer | str | dict[str, Any] | None = None) -> None:
        """Queue the run for a worker to continue with this runner's LLM, answering its open gate with `answer`."""
        from research_core.runs.queue import queue_run

        self._record(run_id)
        queue_run(self.store, run_id, None if answer is None else plain_answer(answer), self.llm_settings.to_record())

    def resume_queued(self, run_id: str) -> RunSnapshot:
        """Continue a queued run as a worker does: with the gate answer queued with it (if any)."""
        return self._resume(run_id, self.store.take_answer(run_id), claimed=False)

    def request_stop(self, run_id: str) -> None:
        """Ask whichever process drives the run to stop it at its next step; it is then `interrupted` (resumable)."""
        self._record(run_id)
        self.store.request_stop(run_id)

    def _initial_input(self, run_id: str) -> dict[str, Any]:
        record = self._record(run_id)
        return {"run_id": run_id, "question": record.question, "config": record.config, "initial_plan": record.plan}

    def resume(self, run_id: str, answer: GateAnswer | str | dict[str, Any] | None = None) -> RunSnapshot:
        """Continue a run: answer its open gate, or pick up after a crash or failure.

        `answer` is the gate's typed answer (`research_core.gates`), built and checked where it was
        typed; it is passed on as it is and crosses the checkpoint once, as `plain_answer(answer)`,
        which the gate reads back into the model. A plain string or dict, as older callers send, is
        read by the gate's parser at the gate.
        """
        return self._resume(run_id, answer, claimed=False)

    def _resume(self, run_id: str, answer: Any, *, claimed: bool) -> RunSnapshot:
        record = self._record(run_id)
        with open_checkpointer(self.location) as saver:
            state = build_graph(saver).get_state(graph_config(run_id))
        if not state.values and not state.next:
            return self._drive(run_id, self._initial_input(run_id), claimed=claimed)
        if state.interrupts:
            if answer is None:
                return self.snapshot(run_id)
            return self._drive(run_id, Command(resume=plain_answer(answer)), claimed=claimed)
        if not state.next and record.status in (*FINISHED, "cancelled"):
            return self.snapshot(run_id)
        return self._drive(run_id, None, claimed=claimed)

    def rerun_branch(
        self,
        run_id: str,
        branch_id: str,
        *,
        question_text: str | None = None,
        priority: Any = None,
        on_created: Callable[[str], None] | None = None,
    ) -> RunSnapshot:
        """Re-research one branch of a finished run as a new run linked to it; returns the new run.

        `on_created` is called with the new run's id before it runs.
        """
        new_id = self.prepare_rerun(run_id, branch_id, question_text=question_text, priority=priority)
        if on_created is not None:
            on_created(new_id)
        return self._drive(new_id, None)

    def prepare_rerun(
        self, run_id: str, branch_id: str, *, question_text: str | None = None, priority: Any = None
    ) -> str:
        """Create the linked run of a branch re-run (owned as its run), ready for the UI to drive in the background."""
        record = self._record(run_id)
        if record.status not in FINISHED:
            raise RunError(f"Run {run_id} is {record.status}; only a finished run can re-run a branch.")
        values = rerun_values(self.location, run_id, branch_id, question_text=question_text, priority=priority)
        config = with_model_settings(RunConfig(**values["config"]), self.llm.is_local)
        new_id = self.create_run(record.question, config, run_id=None, parent_run_id=run_id)
        seed_rerun(self.location, new_id, {**values, "config": config.model_dump(), "run_id": new_id})
        return new_id

    def _drive(self, run_id: str, graph_input: Any, *, claimed: bool = False) -> RunSnapshot:
        """Drive the run; `claimed` when the caller holds the reservation and releases it (background runs)."""
        if claimed:
            return self._drive_locked(run_id, graph_input)
        self._runs.claim(run_id)
        try:
            return self._drive_locked(run_id, graph_input)
        finally:
            self._runs.release(run_id)

    def _drive_locked(self, run_id: str, graph_input: Any) -> RunSnapshot:
        record = self._record(run_id)
        config = with_model_settings(RunConfig.model_validate(record.config), self.llm.is_local)  # older runs lack some
        started = time.monotonic()
        other = self.store.claim(run_id, os.getpid(), OWNER_TOKEN, owner_alive)
        if other is not None:
            raise RunError(
                f"Run {run_id} is being driven by another Arbor process (pid {other}); "
                "wait until it pauses or finishes, or stop that process first."
            )
        error: str | None = None
        interrupted: KeyboardInterrupt | None = None
        stopped = False
        llm = self.llm.for_run()  # a stop request stops this run's calls, not the process's other runs'
        with open_checkpointer(self.location) as saver:
            graph = build_graph(saver)
            cfg = graph_config(run_id)
            try:
                stopped = stream_run(graph, graph_input, self.store, run_id, self._services(run_id, config, llm), llm)
            except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP turned into it by the CLI
                interrupted = exc
            except Exception as exc:
                error = failure_message(run_id, exc)
            state, values = live_state(graph, cfg)
        active_s = self.store.add_active_seconds(run_id, time.monotonic() - started)
        if interrupted is not None or stopped:
            self.store.update(run_id, status="interrupted", totals_json=progress_totals(values, active_s).to_record())
            if interrupted is not None:
                raise interrupted
            return self.snapshot(run_id)
        mode = values.get("mode") or config.mode
        record_outcome(
            self.store, run_id, state, values, error=error, mode=mode, active_s=active_s, created_at=record.created_at
        )
        return self.snapshot(run_id)

    # ---- background runs (UI) -----------------------------------------------------------

    def is_active(self, run_id: str) -> bool:
        """True while this process is driving the run."""
        return self._runs.is_active(run_id)

    def start_background(self, question: str, config: RunConfig, plan: Plan | dict | None = None) -> str:
        """Create a run and drive it on a background thread (PostgreSQL: queue it); returns the run id at once."""
        if self.location.is_postgres:
            return self.enqueue(question, config, plan)
        run_id = self.create_run(question, config, plan)
        self._runs.spawn(run_id, lambda: self._drive(run_id, self._initial_input(run_id), claimed=True))
        return run_id

    def resume_background(self, run_id: str, answer: GateAnswer | str | dict[str, Any] | None = None) -> None:
        """Resume a run on a background thread (PostgreSQL: queue it), answering its open gate with `answer`."""
        if self.location.is_postgres:
            return self.enqueue_resume(run_id, answer)
        self._record(run_id)
        self._runs.spawn(run_id, lambda: self._resume(run_id, answer, claimed=True))

    def wait(
        self, run_id: str, timeout: float | None = None, on_status: Callable[[str], None] | None = None
    ) -> RunSnapshot:
        """Block until the run's background thread ends, or on PostgreSQL until its worker's drive ends
        (`on_status` sees each status read meanwhile)."""
        if self.location.is_postgres:
            wait_until_settled(self.store, run_id, timeout=timeout, on_status=on_status)
        self._runs.join(run_id, timeout)
        return self.snapshot(run_id)

    def events(self, run_id: str) -> list[dict[str, Any]]:
        """Progress events emitted by the nodes of a run driven by this process."""
        return list(self._events.get(run_id, []))

    # ---- reading ------------------------------------------------------------------------

    def _record(self, run_id: str) -> RunRecord:
        record = self.store.get(run_id)
        if record is None:
            raise RunError(f"No run with id {run_id!r}. `python -m research_core runs` lists them.")
        return record

    def snapshot(self, run_id: str) -> RunSnapshot:
        """The run's current state from its checkpoint and record."""
        record = self._record(run_id)
        with open_checkpointer(self.location) as saver:
            state, values = live_state(build_graph(saver), graph_config(run_id))
        active = self.is_active(run_id)
        owner_is_alive = owner_alive(record.owner_pid, record.owner_token)
        status = shown_status(record.status, active=active, owner_is_alive=owner_is_alive)
        return build_snapshot(record, state, values, status=status, active=active, events=self.events(run_id))

    def result(self, run_id: str) -> RunResult | None:
        """The finished run's result, or None if it has not finished (ValidationError if it is damaged)."""
        self._record(run_id)
        return self.store.result(run_id)

    def runs(self, keep: Callable[[RunSummary], bool] | None = None) -> list[RunSummary]:
        """All runs (or those `keep` keeps), newest first; a `running` one no live process drives is `interrupted`."""
        return [
            dataclasses.replace(row, status=shown_status(row.status, active=self.is_active(row.id), owner_is_alive=a))
            for row in self.store.list(keep=keep)
            for a in (owner_alive(row.owner_pid, row.owner_token),)
        ]

    def delete(self, run_id: str) -> bool:
        """Delete a run with its checkpoints, its writes and the cached pages no other run read.

        Refused while this or another process drives it. The owner check and the deletion share one
        transaction, like `claim`, so no process can start driving the run in between.
        """
        if run_id in DRIVEN_HERE or self.is_active(run_id):
            raise RunError(f"Run {run_id} is running; stop it before deleting it.")
        try:
            deleted = self.store.delete(run_id, other_live_owner)
        except RunOwnedElsewhere as exc:
            raise RunError(
                f"Run {run_id} is being driven by another Arbor process (pid {exc.pid}); "
                "wait until it pauses or finishes, or stop that process first, then delete it."
            ) from None
        self.page_cache.forget_runs([run_id])  # the pages only this run read
        return deleted
