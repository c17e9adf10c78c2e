"""Sentence vectors kept in memory: a run shows the same passages and windows again and again.

The rule: a text's vector is computed once (`text.embedding`) and kept, up to `CACHE_SIZE` texts,
the least recently computed dropped first; callers on parallel branch threads share it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from research_core.text import embedding

CACHE_SIZE = 4096  # 384 floats each: about 6 MB

_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_lock = threading.Lock()


def cached_vectors(texts: list[str]) -> list[np.ndarray]:
    """One unit vector per text, from the cache where it is there; RuntimeError without the model."""
    with _lock:
        known = {t: _cache[t] for t in texts if t in _cache}
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    if missing:
        known.update(zip(missing, embedding.embed(missing), strict=True))
        with _lock:
            for text in missing:
                _cache[text] = known[text]
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return [known[t] for t in texts]
