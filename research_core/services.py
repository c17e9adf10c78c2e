"""Run-scoped dependencies handed to every node through LangGraph's runtime context."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from research_core.configuration import RunConfig
from research_core.llm.client import LLMClient
from research_core.search.base import SearchBackend
from research_core.sources.cache import PageCache


@dataclass
class Services:
    """The run's config, LLM client, search backends, page cache and event sink.

    Not checkpointed: a resumed run gets fresh services from the runner.

    `config` is the run's `RunConfig`, the one nodes read (`runtime.context.config`). A run's
    config is fixed when the run is recorded: no node writes `state["config"]` (the graph's input
    keeps a copy, so a checkpoint describes its run and a branch re-run starts from it), no gate
    edits it, and classification writes the mode it decides to `state["mode"]`, not to the config.
    So the runner validates it from the run record once per drive (start, resume, resume after a
    crash) instead of every node rebuilding it from state or from its task's payload.
    """

    llm: LLMClient
    backends: list[SearchBackend]
    config: RunConfig
    emit: Callable[[dict[str, Any]], None] = lambda event: None
    page_cache: PageCache | None = None  # None: pages are cached in memory for one call only
    _down: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def mark_down(self, backend: str, reason: str) -> bool:
        """Record that a backend is unreachable for this run; True the first time."""
        with self._lock:
            first = backend not in self._down
            self._down.setdefault(backend, reason)
            return first

    def usable_backends(self) -> list[SearchBackend]:
        """Backends not marked unreachable in this run."""
        with self._lock:
            return [b for b in self.backends if b.name not in self._down]
