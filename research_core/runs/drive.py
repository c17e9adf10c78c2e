"""One drive of a run's graph: its LangGraph config, and its steps streamed until it ends, pauses or is stopped.

A stop asked from another process (`RunStore.request_stop`: the workbench or the CLI of a team
installation) is looked for in the run's record before the first step and after every step, the
chains' steps included, so a run stops within one step of the request, wherever it is driven.
"""

from __future__ import annotations

from contextlib import closing
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from research_core.llm.client import LLMClient
from research_core.runs.outcome import decided_modes
from research_core.runs.store import RunStore
from research_core.services import Services

RECURSION_LIMIT = 10_000
# Threads LangGraph may use for the steps of one superstep. Its default pool has
# min(32, cpu_count + 4) workers (6 on a 2-core machine), which silently capped `parallel`;
# the scheduler never hands it more than `parallel` steps (at most 16), so 16 is enough.
MAX_CONCURRENCY = 16


def graph_config(run_id: str) -> dict[str, Any]:
    """The LangGraph config of a run: its thread, and limits high enough for the largest run."""
    return {
        "configurable": {"thread_id": run_id},
        "recursion_limit": RECURSION_LIMIT,
        "max_concurrency": MAX_CONCURRENCY,
    }


def stream_run(
    graph: CompiledStateGraph, graph_input: Any, store: RunStore, run_id: str, services: Services, llm: LLMClient
) -> bool:
    """Drive the graph until it ends or pauses; True when it was stopped on request instead.

    Once a stop is seen, `llm` (the drive's client) starts no new call and abandons the calls under
    way, so the chains still working end at once rather than after their whole branch, or after an
    answer the embedded model may take minutes to write; what they finished is checkpointed and a
    resume continues from there (an abandoned step is done again). The run's mode is recorded as soon as a step
    decides it (for `runs` and History). However it ends, even by an exception, no step of the
    drive is still running when it returns.
    """
    if store.stop_requested(run_id):
        return True
    steps = graph.stream(graph_input, graph_config(run_id), context=services, stream_mode="updates", subgraphs=True)
    # closed however the loop ends: a Ctrl-C or SIGTERM that lands here, between two steps rather
    # than inside the stream, would otherwise leave it suspended with steps still running on
    # LangGraph's threads, writing checkpoints while the caller closes the database under them
    with closing(steps):
        for namespace, update in steps:
            for mode in () if namespace else decided_modes(update):
                store.update(run_id, mode=mode)
            if store.stop_requested(run_id):
                llm.stop_calls()
                return True  # closing waits for the steps under way, which end as their calls are abandoned
    return False
