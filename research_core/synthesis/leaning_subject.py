"""A sentence that leans on the one before takes that sentence's subject.

"Yes, worker_threads can share memory. They are spawned using the child_process.fork() method, so
that they can communicate with the parent via IPC", the second sentence cited to the cluster
module's page, hands a cluster fact to worker_threads: a reader takes "They" from the sentence just
read. Its words are all on its page, and it names no subject, so the one-subject rules pass it.

The rule: a sentence that opens on the text before it (`text.anaphora.leans_back`) and names none
of the question's subjects must not follow a sentence that names only subjects none of its cited
sources is about (those of them that hold at least half of its words, when any do: a page cited
beside the one that says it does not lend it its subject). Where its sources are about no subject,
or the sentence before names one of theirs, it stands. It is a refusal of wording: the quote,
which names what it is about ("The worker processes are spawned ..."), can stand in its place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from research_core.synthesis.evidence import Evidence
from research_core.synthesis.scaffolding import SENTENCE_BREAK
from research_core.text.anaphora import leans_back
from research_core.text.names import named_in
from research_core.text.support import SUPPORT_BAR, support_share


def leaning_subject(
    sentence: str, cited: Iterable[str], evidence: Mapping[str, Evidence], names: Iterable[str], before: str
) -> str | None:
    """Why `sentence` hands its sources' fact to the subject of the sentence before it, or None."""
    names = list(names)
    if not leans_back(sentence) or named_in(sentence, names):
        return None
    sentences = [s for s in SENTENCE_BREAK.split(before.strip()) if s.strip()]
    prior = named_in(sentences[-1], names) if sentences else []
    sayers = [evidence[sid] for sid in cited if sid in evidence]
    sayers = [e for e in sayers if support_share(sentence, e.text) >= SUPPORT_BAR] or sayers
    about = {n.lower() for e in sayers for n in e.subjects}
    if not prior or not about or any(p.lower() in about for p in prior):
        return None
    return f"leans on a sentence about {prior[0]}, but its sources are about {sorted(about)[0]}"
