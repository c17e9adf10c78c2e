"""What a branch's chain may still spend: the iterations `coordinate` allotted it, less the steps taken."""

from __future__ import annotations

from typing import Any


def iterations_after(allotted: Any, steps: int) -> int:
    """The iterations left of the allotment `allotted` (a chain's or a step's `iterations_left`) after `steps`.

    No allotment (None, as in an input that lacks one) counts as none left, for the chain and for the
    step alike: a branch never drills down into iterations nobody gave it.
    """
    return int(allotted or 0) - steps
