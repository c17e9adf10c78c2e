"""A drive that ends by an exception between two steps leaves no step running behind it.

Ctrl-C, SIGTERM and SIGHUP raise in the main thread wherever it is; when that is between two
streamed steps (recording the mode, looking for a stop request), the steps already started on
LangGraph's threads must end before the caller marks the run and closes the database.
"""

from __future__ import annotations

import operator
import threading
import time
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph

from research_core.runs.drive import stream_run


class _State(TypedDict):
    done: Annotated[list[str], operator.add]


def _graph(slow_finished: threading.Event):
    def fast(_state: _State) -> dict:
        return {"done": ["fast"]}

    def slow(_state: _State) -> dict:
        time.sleep(1.0)
        slow_finished.set()
        return {"done": ["slow"]}

    builder = StateGraph(_State)
    builder.add_node("fast", fast)
    builder.add_node("slow", slow)
    builder.add_edge(START, "fast")
    builder.add_edge(START, "slow")
    builder.add_edge("fast", END)
    builder.add_edge("slow", END)
    return builder.compile()


class _StoreStoppedBySignal:
    """The run store at the moment a stop signal lands: the first look for a stop request after
    the first finished step raises, as the signal handler does in the main thread."""

    def __init__(self) -> None:
        self.looks = 0

    def stop_requested(self, _run_id: str) -> bool:
        self.looks += 1
        if self.looks == 2:  # the first look is before any step
            raise KeyboardInterrupt
        return False

    def update(self, _run_id: str, **_values: object) -> None:
        pass


class _LLM:
    def stop_calls(self) -> None:
        pass


def test_a_signal_between_two_steps_waits_for_the_step_still_running():
    slow_finished = threading.Event()
    finished_when_raised = None
    try:
        stream_run(_graph(slow_finished), {"done": []}, _StoreStoppedBySignal(), "r1", None, _LLM())
    except KeyboardInterrupt:
        finished_when_raised = slow_finished.is_set()
    # the slow step started beside the fast one; it is over before the drive hands the stop back
    assert finished_when_raised is True
