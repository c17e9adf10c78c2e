"""Compare: one question researched flat and hierarchically, or any two finished runs, side by side.

The pair being compared lives in the URL (`?left=…&right=…`), so a rerun or a reopened tab shows
it again. Both the research of the two runs and the judgement run on the server's threads
(`ui.services.compare_jobs`); the page only starts them and polls.
"""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from research_core.accounts import permissions
from research_core.configuration import RunConfig, input_range
from research_core.runs.compare import metrics
from research_core.runs.errors import RunError
from research_core.runs.inputs import clean_question
from ui import accounts, compare_view, run_form, run_list, run_view, services, state
from ui.settings_store import KNOWN_BACKENDS
from ui.widgets import esc

POLL_SECONDS = 1.0

st.title("Compare")
st.caption(
    "Research one question flat and hierarchically with the same budget, or pick two finished runs; "
    "then read the figures, the two reports and an LLM judgement side by side."
)

runner = services.get_runner()
jobs = services.compare_jobs()
may_start = accounts.allowed(permissions.may_start)  # research both ways, and the judge: they spend the LLM
settings = services.app_settings()
local_model = settings.provider == "local"
try:
    runs = runner.runs()
except Exception as exc:  # an unreadable database
    st.error(f"The run history could not be read: {exc}. Check the database path on the Settings page.")
    st.stop()
by_id = {r.id: r for r in runs}

state.init_state(
    {
        "cmp_question": "",
        "cmp_max_iterations": settings.max_iterations,
        "cmp_backends": [b for b in settings.search_backends if b in KNOWN_BACKENDS],
        "cmp_parallel": not local_model,
        "cmp_error": None,
        "compare_pair": None,
    }
)


# ---- one question, both modes --------------------------------------------------------------------


def start_modes() -> None:
    """Validate the form and start the flat and the hierarchical run in the background."""
    st.session_state["cmp_error"] = None
    try:
        question = clean_question(st.session_state["cmp_question"])
    except RunError as exc:
        st.session_state["cmp_error"] = str(exc)
        return
    if not st.session_state["cmp_backends"]:
        st.session_state["cmp_error"] = "Choose at least one search backend."
        return
    problem = run_form.searxng_problem(st.session_state["cmp_backends"], settings.searxng_url)
    if problem:
        st.session_state["cmp_error"] = problem
        return
    try:
        form = run_form.ResearchForm(
            question=question,
            template="auto",
            max_iterations=int(st.session_state["cmp_max_iterations"]),
            parallel=settings.parallel,
            max_total_cost_usd=settings.max_total_cost_usd,
            search_backends=list(st.session_state["cmp_backends"]),
            **run_form.reading_settings(settings),
        )
        config = run_form.run_config_from_form(form)
    except (ValidationError, ValueError) as exc:
        st.session_state["cmp_error"] = f"These limits do not fit together: {exc}"
        return
    in_parallel = bool(st.session_state["cmp_parallel"]) and not local_model
    try:
        flat_id, hier_id = jobs.start_modes(services.get_runner(), question, config, in_parallel=in_parallel)
    except RunError as exc:
        st.session_state["cmp_error"] = str(exc)
        return
    st.session_state["compare_request"] = (flat_id, hier_id)
    st.query_params["left"] = flat_id
    st.query_params["right"] = hier_id


def modes_form(expanded: bool) -> None:
    """Question, budget and search for a flat-versus-hierarchical comparison (whoever may start research)."""
    if not may_start:
        return
    title = "Research one question flat and hierarchically"
    with st.expander(title, icon=":material/compare_arrows:", expanded=expanded):
        st.text_area("Question", key="cmp_question", height=90, max_chars=4000)
        budget, search = st.columns(2)
        budget.number_input(
            "Max iterations (each run)",
            **input_range(RunConfig, "max_iterations"),
            step=1,
            key="cmp_max_iterations",
            help="Both runs get the same budget.",
        )
        search.multiselect(
            "Search backends", list(KNOWN_BACKENDS), key="cmp_backends", format_func=lambda b: KNOWN_BACKENDS.get(b, b)
        )
        st.checkbox(
            "Run both at the same time",
            key="cmp_parallel",
            disabled=local_model,
            help="Off: the flat run goes first, then the hierarchical one.",
        )
        if local_model:
            st.caption(
                "The embedded model answers one request at a time, so the flat run goes first and the "
                "hierarchical one follows."
            )
        if st.session_state["cmp_error"]:
            st.error(st.session_state["cmp_error"], icon=":material/error:")
        st.button(
            "Research both ways", type="primary", icon=":material/play_arrow:", key="cmp_start", on_click=start_modes
        )


# ---- which two runs ------------------------------------------------------------------------------


def requested_pair() -> tuple[str, str] | None:
    """The pair asked for by History or the form (this session), else by the URL."""
    request = st.session_state.pop("compare_request", None)
    if request:
        return (str(request[0]), str(request[1]))
    left, right = st.query_params.get("left"), st.query_params.get("right")
    return (left, right) if left and right else None


pair = requested_pair()
if pair and all(i in by_id for i in pair) and pair != st.session_state["compare_pair"]:
    st.session_state["compare_left"], st.session_state["compare_right"] = pair
    st.session_state["compare_pair"] = pair

shown = set(st.session_state["compare_pair"] or ()) | jobs.active_run_ids()
ids = [i for i, r in by_id.items() if r.status in state.FINISHED or i in shown]
if len(ids) < 2:
    st.info(
        "Comparing needs at least two finished runs, or research one question both ways below."
        if may_start
        else "Comparing needs at least two finished runs you can open.",
        icon=":material/compare:",
    )
    modes_form(expanded=True)
    st.stop()

modes_form(expanded=False)


def label(run_id: str) -> str:
    """How a run appears in the pickers."""
    return run_list.compare_label(by_id[run_id], 70)


state.init_state({"compare_left": ids[1], "compare_right": ids[0]})
for key in ("compare_left", "compare_right"):
    if st.session_state[key] not in ids:
        st.session_state[key] = ids[0]
pick_left, pick_right = st.columns(2, gap="large")
left_id = pick_left.selectbox("Left", ids, format_func=label, key="compare_left")
right_id = pick_right.selectbox("Right", ids, format_func=label, key="compare_right")
st.session_state["compare_pair"] = (left_id, right_id)
if st.query_params.get("left") != left_id or st.query_params.get("right") != right_id:
    st.query_params["left"], st.query_params["right"] = left_id, right_id
if left_id == right_id:
    st.info("Pick two different runs.", icon=":material/info:")
    st.stop()

pair_ids = (left_id, right_id)
names = compare_view.side_names(left_id, by_id[left_id].mode, right_id, by_id[right_id].mode)
job = jobs.get(left_id, right_id)


def pair_live() -> bool:
    """True while the pair's comparison or either run is being worked on."""
    current = jobs.get(left_id, right_id)
    if current is not None and current.active:
        return True
    return any(services.run_is_active(i) or runner.snapshot(i).status == "running" for i in pair_ids)


# ---- while the runs work -------------------------------------------------------------------------


@st.fragment(run_every=POLL_SECONDS)
def pair_progress() -> None:
    """Both runs' progress, redrawn every second until both are done (or stop)."""
    snaps = [runner.snapshot(i) for i in pair_ids]
    if not pair_live() or all(s.status in state.FINISHED for s in snaps):
        st.rerun(scope="app")
    current = jobs.get(left_id, right_id)
    sequential = current is not None and not current.in_parallel
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.badge("working", color="blue", icon=":material/progress_activity:")
        st.caption("Both runs at once." if not sequential else "One run after the other.")
    compare_view.progress_cards(snaps, names, sequential=sequential)
    started = min(services.timestamp(s.created_at) for s in snaps)
    messages = services.progress_feed().since(started)
    if messages and all(s.costs.llm_calls == 0 for s in snaps):
        run_view.model_start_status(messages)


rows = [by_id[i] for i in pair_ids]
if not all(r.status in state.FINISHED for r in rows):
    if job is not None and job.failed_while == "researching" and job.error:
        st.error(f"The comparison stopped: {esc(job.error)}", icon=":material/error:")
    if pair_live():
        pair_progress()
    else:
        st.info("Both runs must finish before they can be compared.", icon=":material/info:")
        compare_view.stalled_runs(runner, rows, names)
    st.stop()


# ---- both finished: figures, judgement, reports -----------------------------------------------------

left, right = runner.result(left_id), runner.result(right_id)
if left is None or right is None:
    st.info("One of these runs has no stored report; pick another.", icon=":material/info:")
    st.stop()
if left.question != right.question:
    st.caption("These runs answer different questions; the judge compares the reports against the left one's.")

compare_view.metrics_table(metrics(left), metrics(right))


@st.fragment(run_every=POLL_SECONDS)
def judging() -> None:
    """Wait for the judge, then redraw the page."""
    current = jobs.get(left_id, right_id)
    if current is None or not current.active:
        st.rerun(scope="app")
    with st.status("The judge reads both reports, then again with their order swapped…", state="running"):
        st.caption("This takes two calls of the synthesis model.")


st.subheader("Judgement")
st.caption(
    "An LLM reads the two reports twice, swapping which comes first; a criterion has a winner only when "
    "both orders agree."
)
if job is not None and job.active:
    judging()
else:
    if job is not None and job.comparison is not None:
        compare_view.judgement(job.comparison, names)
        compare_view.judgement_downloads(job.comparison, names, metrics(left), metrics(right))
    elif job is not None and job.failed_while == "judging" and job.error:
        st.error(f"The judgement failed: {esc(job.error)}", icon=":material/error:")
    again = job is not None and job.comparison is not None
    if not may_start:
        st.caption("Your role reads runs only; a researcher or an admin can ask the judge.")
    elif st.button(
        "Judge again" if again else "Judge the two reports",
        icon=":material/balance:",
        type="secondary" if again else "primary",
        key="cmp_judge",
    ):
        try:
            jobs.judge(runner, left_id, right_id)
        except RunError as exc:
            st.error(str(exc), icon=":material/error:")
        else:
            st.rerun()

compare_view.reports_side_by_side(left, right, names)
