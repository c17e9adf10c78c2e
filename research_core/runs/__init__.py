"""The one API the UI and the CLI use for runs.

`runner.Runner` starts, drives, inspects and deletes runs; `store.RunStore` keeps their records
(`records`); `snapshot`, `live_state`, `result`, `progress` and `outcome` say what a run looks
like and how a drive ended; `ownership` says which process drives a run, and `threads` which
runs a Runner drives and on which background threads; `inputs` cleans what a user types;
`rerun` and `compare` build a branch re-run and a side-by-side comparison; `heap` freezes the
startup heap of a process that drives runs (the CLI and the workbench, before their first Runner).
"""
