"""One function per command of `python -m research_core`, each returning the exit code.

A command gets the parsed arguments, the Runner and, for commands that start research, the run
configuration built from its flags (None for the others).
"""
