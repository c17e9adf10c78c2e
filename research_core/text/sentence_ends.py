"""Where a sentence of a manual's passage ends: shared by the windows a prompt shows and the numbered
sentences quoted from them, so both cut a passage in the same places."""

from __future__ import annotations

import re

# a sentence ends at a stop and a space, or at a line break; not after an abbreviation: "Name-based
# vs. IP-based Virtual Hosts" and "(e.g. event or worker)" are one sentence each. A window cut at
# "e.g." left "For threaded and hybrid servers (e.g." to be quoted on its own.
NOT_AN_ABBREVIATION = r"(?<!\bvs\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bcf\.)(?<!\bapprox\.)"
_AFTER_A_STOP = rf"(?<=[.!?。！？]){NOT_AN_ABBREVIATION}\s+(?=\S)"
SENTENCE_END = re.compile(rf"{_AFTER_A_STOP}|\n+")
# within one line of a report: the same ends, line breaks aside (`synthesis.scaffolding`); cut at
# "e.g.", a report printed "For threaded and hybrid servers (e.g [5]. event or worker), ..."
SENTENCE_BREAK = re.compile(_AFTER_A_STOP)
