"""Benchmarks of the research engine; figures and commands in bench/README.md."""
