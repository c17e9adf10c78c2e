"""The startup heap is frozen once per process, so full garbage collections stay short."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc
from research_core.runs.heap import freeze_startup_heap
import research_core.runs.runner  # the engine and its libraries, as the CLI and the workbench import them
assert gc.get_freeze_count() == 0
freeze_startup_heap()
frozen = gc.get_freeze_count()
junk = [[n] for n in range(1000)]
freeze_startup_heap()  # a second runner of the process freezes nothing more
print(frozen, gc.get_freeze_count())
"""


def test_the_engine_heap_is_frozen_once_and_later_objects_stay_collectable():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=120)
    first, second = (int(x) for x in out.stdout.split())
    assert first > 50_000  # modules, classes and schemas of the engine's libraries
    assert second == first
