"""Arbor's command line (`python -m research_core`) over the run API in `research_core.runs`.

`main` is the entry point; `parser` builds the arguments; `commands/` holds one function per
command; `config`, `preflight`, `gates`, `results` and `output` are what the commands share;
`files`, `options`, `signals` and `terminal` keep outputs, numbers, signals and printed text safe.
"""
