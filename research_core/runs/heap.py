"""Keep the cyclic garbage collector's full passes short in long-lived processes.

After the imports, a process holds a couple of hundred thousand long-lived objects (modules,
classes, compiled pydantic and LangGraph schemas). Every full (generation 2) collection walks all
of them: about 100 ms on a 2-core machine, during which every branch thread of a run stands still
(bench/README.md section 1). Freezing them once moves them out of the collector's reach, so later
passes walk only what runs create.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_frozen = False


def freeze_startup_heap() -> None:
    """Collect once, then freeze every object alive now; later calls do nothing.

    Call it from a process's entry point once the engine is imported (the CLI and the workbench do
    it when they build their first Runner). Objects frozen here are never collected even if they
    later become cyclic garbage, so call it before per-request objects pile up, not after.
    """
    global _frozen
    with _lock:
        if _frozen:
            return
        gc.collect()
        gc.freeze()
        _frozen = True
