"""Arbor's research engine: hierarchical research as a LangGraph graph, usable without any UI.

For scripts, the names below are the public API::

    from research_core import LLMSettings, Runner, build_run_config, export_result

    runner = Runner("data/arbor.db", llm_settings=LLMSettings.from_env())
    config = build_run_config("general", question, auto_approve=True)
    snapshot = runner.start(question, config)      # runs until it finishes or pauses at a gate
    result = runner.result(snapshot.run_id)        # a RunResult once it has finished, else None
    markdown, _name, _mime = export_result(result, "md")

A run that pauses at a gate (`snapshot.pending`) continues with `runner.resume(run_id, answer)`,
`answer` being the gate's typed answer from `research_core.gates` (or a word such as "approve").
Errors meant for the user are `ArborError`s (a run's own are `RunError`s) with a `user_message`.

The names are imported on first use, so importing a submodule stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Public name -> the module that defines it.
_EXPORTS = {
    "Runner": "research_core.runs.runner",
    "RunSnapshot": "research_core.runs.snapshot",
    "RunSummary": "research_core.runs.records",
    "RunError": "research_core.runs.errors",
    "RunConfig": "research_core.configuration",
    "LLMSettings": "research_core.configuration",
    "build_run_config": "research_core.configuration",
    "RunResult": "research_core.runs.records",
    "export_result": "research_core.output.export",
    "ArborError": "research_core.errors",
}

__all__ = [
    "ArborError",
    "LLMSettings",
    "RunConfig",
    "RunError",
    "RunResult",
    "RunSnapshot",
    "RunSummary",
    "Runner",
    "build_run_config",
    "export_result",
]

if TYPE_CHECKING:
    from research_core.configuration import LLMSettings, RunConfig, build_run_config
    from research_core.errors import ArborError
    from research_core.output.export import export_result
    from research_core.runs.errors import RunError
    from research_core.runs.records import RunResult, RunSummary
    from research_core.runs.runner import Runner
    from research_core.runs.snapshot import RunSnapshot


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (PEP 562)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'research_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
