"""Arbor's research engine: hierarchical research as a LangGraph graph, usable without any UI."""

__version__ = "0.1.0"
