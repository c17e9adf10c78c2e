"""Which lines of Markdown are fenced code, so rewrites (headings, citations) leave code alone."""

from __future__ import annotations

import re
from collections.abc import Sequence

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def scan_fences(lines: Sequence[str]) -> tuple[list[bool], str | None]:
    """For each line, whether it is fenced code (the fence lines included), and the fence left open.

    A fence closes on a line of the same character at least as long as the opening one
    (CommonMark's rule); the second value is that opening marker when the text ends inside code.
    """
    code: list[bool] = []
    fence: str | None = None
    for line in lines:
        opening = FENCE.match(line)
        if opening:
            marker = opening.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            code.append(True)
        else:
            code.append(fence is not None)
    return code, fence
