"""Breadcrumb trails: "Apache > HTTP Server > Documentation > Modules" says where a page sits, not a fact."""

from __future__ import annotations

import re

_STEP = re.compile(r"\s>\s")
# steps of " > " that make a trail rather than a comparison ("when KeepAliveTimeout > 0")
BREADCRUMB_STEPS = 2


def is_breadcrumb(text: str) -> bool:
    """The text holds a breadcrumb trail: `BREADCRUMB_STEPS` or more " > " steps."""
    return len(_STEP.findall(text)) >= BREADCRUMB_STEPS
