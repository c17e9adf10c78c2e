"""A sentence opening on "They" or "It" is about what the sentence before it is about: a fact cited
to another subject's page is not handed to that subject."""

from research_core.synthesis.grounding import ground_text

CLUSTER = {"title": "Cluster | Node.js v18.20.4 Documentation", "url": "/usr/share/doc/nodejs/api/cluster.html"}
WORKERS = {
    "title": "Worker threads | Node.js v18.20.4 Documentation",
    "url": "/usr/share/doc/nodejs/api/worker_threads.html",
}
SOURCES = {"c": {**CLUSTER, "snippet": ""}, "w": {**WORKERS, "snippet": ""}}
QUOTES = {
    "c": [
        "The node:cluster module allows easy creation of child processes that all share server ports.",
        "The worker processes are spawned using the child_process.fork() method, so that they can communicate "
        "with the parent via IPC and pass server handles back and forth.",
    ],
    "w": ["Unlike child_process or cluster, worker_threads can share memory by transferring ArrayBuffer instances."],
}
TOPIC = (
    "How do Node.js's cluster module and worker_threads differ: are workers processes or threads, can they share "
    "memory, and how do they communicate with the parent?"
)
NAMES = ("Node.js", "cluster", "worker_threads")
SPAWNED = (
    "They are spawned using the child_process.fork() method, so that they can communicate with the parent via IPC "
    "and pass server handles back and forth [[src:c]]."
)


def test_a_leaning_sentence_after_another_subject_does_not_take_its_sources_fact_to_it():
    text = f"Yes, worker_threads can share memory by transferring ArrayBuffer instances [[src:w]]. {SPAWNED}"
    out = ground_text(text, SOURCES, QUOTES, NAMES, TOPIC)
    assert "worker_threads can share memory" in out.text
    assert "They are spawned using the child_process.fork() method" not in out.text
    # the quote, which names what it is about, stands in
    assert "The worker processes are spawned using the child_process.fork() method" in out.text


def test_the_same_sentence_after_its_own_subject_stays():
    first = "The node:cluster module allows easy creation of child processes that all share server ports [[src:c]]."
    text = f"{first} {SPAWNED}"
    out = ground_text(text, SOURCES, QUOTES, NAMES, TOPIC)
    assert "They are spawned using the child_process.fork() method" in out.text
