"""Options a comparison names in lower case are subjects too: a fact of one of them, cited to the
other's page, goes, as it does between two capitalised systems."""

from __future__ import annotations

from research_core.planning.compared_options import compared_options
from research_core.synthesis.claim_check import subject_of
from research_core.synthesis.evidence import question_subjects
from research_core.synthesis.grounding import ground_text
from research_core.text.names import named_in

QUESTION = (
    "How do Node.js's cluster module and worker_threads differ: are workers processes or threads, "
    "can they share memory, and how do they communicate with the parent?"
)
CLUSTER = {
    "title": "Cluster | Node.js v20 Documentation",
    "url": "/usr/share/doc/nodejs/api/cluster.html",
    "snippet": "Clusters of Node.js processes can be used to run multiple instances of Node.js that can "
    "distribute workloads among their application threads.",
}
CLUSTER_QUOTE = (
    "Clusters of Node.js processes can be used to run multiple instances of Node.js that can distribute "
    "workloads among their application threads."
)
WORKERS = {
    "title": "Worker threads | Node.js v20 Documentation",
    "url": "/usr/share/doc/nodejs/api/worker_threads.html",
    "snippet": "Unlike child_process or cluster, worker_threads can share memory.",
}


def test_a_comparison_s_lower_case_options_are_found_less_their_kind():
    assert compared_options(QUESTION) == ["cluster"]
    assert compared_options("How do Apache's prefork, worker and event MPMs differ in how they serve connections?") == [
        "prefork",
        "worker",
        "event",
    ]
    assert compared_options("Compare Git rebase and merge: what does each do to history?") == ["rebase", "merge"]


def test_clauses_and_questions_that_compare_nothing_give_no_options():
    # two clauses, not a list of options; and no comparison at all
    assert (
        compared_options(
            "How do PostgreSQL and SQLite differ in their JSON support: which functions does each provide, "
            "and how are JSON values stored?"
        )
        == []
    )
    assert compared_options("What does the cluster module and worker_threads documentation say?") == []
    assert compared_options("Compare how PostgreSQL and SQLite handle concurrent writes and locking.") == []


def test_a_name_is_found_however_its_joints_are_written():
    assert named_in("**Worker Threads**: run JavaScript in parallel", ["worker_threads"]) == ["worker_threads"]
    assert named_in("name based virtual hosts", ["name-based"]) == ["name-based"]
    assert named_in("the workers of a cluster", ["worker_threads"]) == []
    # a joined name in the plural is also named in the singular; a plain word keeps its own spelling
    assert named_in("Once a worker thread exits, it closes the channel", ["worker_threads"]) == ["worker_threads"]
    assert named_in("the process object", ["child_process"]) == []


PROCESS_PAGE = {"title": "Process | Node.js v18.20.4 Documentation", "url": "/api/process.html", "snippet": ""}
PROCESS_QUOTE = (
    "If the Node.js process is spawned with an IPC channel (see the Child Process and Cluster documentation), the "
    "process.disconnect() method will close the IPC channel to the parent process, allowing the child process to "
    "exit gracefully once there are no other connections keeping it alive."
)


def test_a_child_process_fact_given_to_a_worker_thread_goes():
    names = question_subjects(QUESTION)
    text = (
        "Once a worker thread exits, it will close the IPC channel to the parent process, allowing the parent "
        "process to exit gracefully once there are no other connections keeping it alive [[src:p1]]."
    )
    out = ground_text(text, {"p1": PROCESS_PAGE}, {"p1": [PROCESS_QUOTE]}, names, QUESTION)
    assert out.supported == 0 and "[[src:p1]]" not in out.text


def test_a_fact_of_worker_threads_cited_to_the_cluster_page_goes():
    names = question_subjects(QUESTION)
    assert "cluster" in names
    # the cluster page's sentence, retold as a fact of worker threads
    text = (
        "**Worker Threads**: Worker threads run multiple instances of Node.js that can distribute workloads "
        "among their application threads [[src:c1]]."
    )
    out = ground_text(text, {"c1": CLUSTER}, {"c1": [CLUSTER_QUOTE]}, names, QUESTION)
    assert out.supported == 0 and "[[src:c1]]" not in out.text
    # said of the cluster, the page's own subject, it stays
    text = (
        "The cluster module runs multiple instances of Node.js that can distribute workloads among their "
        "application threads [[src:c1]]."
    )
    out = ground_text(text, {"c1": CLUSTER}, {"c1": [CLUSTER_QUOTE]}, names, QUESTION)
    assert out.supported == 1 and "[[src:c1]]" in out.text


def test_both_options_in_one_sentence_cited_to_one_option_s_page_goes():
    names = question_subjects(QUESTION)
    text = "The cluster module and worker threads can both share memory [[src:w1]]."
    out = ground_text(text, {"w1": WORKERS}, {"w1": [WORKERS["snippet"]]}, names, QUESTION)
    assert out.supported == 0


def test_the_options_a_sentence_sets_its_subject_against_are_not_its_subject():
    names = ["child_process", "cluster", "worker_threads"]
    assert subject_of("Unlike child_process or cluster, worker_threads can share memory.", names) == "worker_threads"
    assert subject_of("Like PostgreSQL, SQLite supports it.", ["PostgreSQL", "SQLite"]) == "sqlite"
    assert subject_of("Cluster workers and worker_threads differ.", names) == "cluster"
