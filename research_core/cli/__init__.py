"""Helpers of the command line (`python -m research_core`): output files, terminal text, signals, options.

The commands themselves are still in `research_core/__main__.py`; they move here when the engine
is reshaped into its stage packages.
"""
