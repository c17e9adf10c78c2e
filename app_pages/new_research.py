"""New research: a question, a template and limits; "Propose plan" starts the run in the background."""

from __future__ import annotations

import time

import streamlit as st
from pydantic import ValidationError

from research_core.accounts import permissions
from research_core.configuration import LOCAL_MODEL_LABEL, TEMPLATE_DESCRIPTIONS, TEMPLATES, RunConfig, input_range
from research_core.runs.errors import RunError
from research_core.runs.inputs import clean_question
from ui import accounts, run_form, services, state, widgets
from ui.settings_store import KNOWN_BACKENDS
from ui.widgets import esc, status_label

if not accounts.allowed(permissions.may_start):
    st.title("New research")
    st.info(
        f"Your role ({accounts.signed_in().role}) reads runs: open yours and the team's from History. "
        "Ask an admin for the researcher role to start research.",
        icon=":material/visibility:",
    )
    st.page_link(state.HISTORY, label="History", icon=":material/history:")
    st.stop()

settings = services.app_settings()
state.init_state(
    {
        "nr_question": "",
        "nr_template": settings.template,
        "nr_mode": "auto",
        "nr_execution": "step" if settings.step_mode else "auto",
        "nr_max_iterations": settings.max_iterations,
        "nr_iterations_edited": False,
        "nr_parallel": settings.parallel,
        "nr_cost_cap": settings.max_total_cost_usd,
        "nr_backends": [b for b in settings.search_backends if b in KNOWN_BACKENDS],
        "nr_language": "",
        "nr_max_depth": 2,
        "nr_drill_down_on": "template",
        "nr_adaptive_plan": True,
        "nr_verify_citations": True,
        "nr_coverage_check": True,
        "nr_sticky": [],
        "nr_error": None,
        "nr_waiting_run": None,
        "nr_started_at": 0.0,
    }
)


def use_example(text: str) -> None:
    """Put an example question in the text area."""
    st.session_state["nr_question"] = text
    st.session_state["nr_error"] = None


def template_changed() -> None:
    """A new template brings its own iteration budget into the form."""
    st.session_state["nr_iterations_edited"] = False


def iterations_edited() -> None:
    """The user set the budget: keep it, whatever the template."""
    st.session_state["nr_iterations_edited"] = True


@st.fragment(run_every=0.7)
def wait_for_plan(run_id: str) -> None:
    """Poll the new run until its plan is ready (or it runs flat), then move on."""
    try:
        snap = services.get_runner().snapshot(run_id)
    except RunError as exc:
        st.error(str(exc))
        return
    busy = services.run_is_active(run_id)
    if snap.status == "awaiting_review" and not busy:
        st.session_state["nr_waiting_run"] = None
        state.go(state.REVIEW_PLAN, run_id)
    if snap.mode == "flat" or (snap.status not in ("created", "queued", "running", "awaiting_review") and not busy):
        st.session_state["nr_waiting_run"] = None
        state.go(state.page_for_status(snap.status), run_id)
    messages = services.progress_feed().since(st.session_state["nr_started_at"])
    label = "Starting the embedded model…" if messages else "Proposing a plan…"
    with st.status(label, expanded=bool(messages), state="running"):
        st.write(f"{esc(snap.question)}")
        for message in messages[-6:]:
            st.caption(esc(message))
        if not messages:
            st.caption(f"Status: {status_label(snap.status)}. The plan appears on the Review page when it is ready.")


st.title("New research")
st.caption("Ask a question; Arbor proposes a tree of sub-questions that you can edit before anything is researched.")


def stop_waiting() -> None:
    """Leave the proposal to finish in the background (History lists it) and ask something else."""
    st.session_state["nr_waiting_run"] = None


waiting = st.session_state["nr_waiting_run"]
if waiting:
    wait_for_plan(waiting)
    st.button(
        "Ask another question meanwhile",
        key="nr_stop_waiting",
        on_click=stop_waiting,
        type="tertiary",
        icon=":material/add:",
        help="The plan keeps being prepared; find it later under History.",
    )
    st.stop()

st.text_area(
    "Question",
    key="nr_question",
    height=110,
    placeholder="e.g. Compare React, Vue and Angular for building a small business web app",
    max_chars=4000,
)
if st.session_state["nr_error"]:
    st.error(st.session_state["nr_error"], icon=":material/error:")

st.caption("Examples")
with st.container(horizontal=True, gap="small"):
    for n, example in enumerate(run_form.EXAMPLES):
        st.button(example, key=f"nr_example_{n}", on_click=use_example, args=(example,), type="tertiary")

left, right = st.columns(2)
with left:
    template_options = ["auto", *TEMPLATES]
    st.selectbox(
        "Template",
        template_options,
        key="nr_template",
        format_func=lambda t: f"{t.replace('_', ' ')} — {TEMPLATE_DESCRIPTIONS.get(t, '')}",
        on_change=template_changed,
    )
    question_now = st.session_state["nr_question"].strip()
    template_now = run_form.effective_template(st.session_state["nr_template"], question_now)
    if not st.session_state["nr_iterations_edited"]:
        st.session_state["nr_max_iterations"] = run_form.template_iterations(template_now, settings.max_iterations)
    budget = f"a budget of {widgets.plural(int(st.session_state['nr_max_iterations']), 'iteration')}"
    if st.session_state["nr_template"] == "auto" and question_now:
        st.caption(f"Auto picks **{template_now.replace('_', ' ')}** for this question, with {budget}.")
    else:
        st.caption(f"**{template_now.replace('_', ' ').capitalize()}**, with {budget}.")
with right:
    st.radio("Mode", list(run_form.MODES), key="nr_mode", format_func=run_form.MODES.__getitem__, horizontal=True)
    st.caption(run_form.MODE_HELP[st.session_state["nr_mode"]])
    st.radio(
        "Execution",
        list(run_form.EXECUTIONS),
        key="nr_execution",
        format_func=run_form.EXECUTIONS.__getitem__,
        horizontal=True,
    )

with st.expander("Limits and search", icon=":material/tune:"):
    c1, c2, c3 = st.columns(3)
    c1.number_input(
        "Max iterations",
        **input_range(RunConfig, "max_iterations"),
        step=1,
        key="nr_max_iterations",
        on_change=iterations_edited,
        help="Starts at the chosen template's budget; choosing another template resets it to that one's.",
    )
    c2.number_input("Branches in parallel", **input_range(RunConfig, "parallel"), step=1, key="nr_parallel")
    c3.number_input(
        "Cost cap (USD)", **input_range(RunConfig, "max_total_cost_usd"), step=0.1, format="%.2f", key="nr_cost_cap"
    )
    st.multiselect(
        "Search backends",
        list(KNOWN_BACKENDS),
        key="nr_backends",
        format_func=lambda b: KNOWN_BACKENDS.get(b, b),
        help="Web search needs a network; without one it fails fast and the run says so once.",
    )
    st.text_input("Report language", key="nr_language", placeholder="same as the question")
    st.markdown("**Going deep**")
    d1, d2 = st.columns(2)
    d1.number_input(
        "Levels of sub-questions",
        **input_range(RunConfig, "max_depth"),
        step=1,
        key="nr_max_depth",
        help="2 lets an important branch with thin findings drill down one level; 1 never drills down.",
    )
    d2.selectbox(
        "Drill into branches judged",
        list(run_form.DRILL_CHOICES),
        key="nr_drill_down_on",
        format_func=run_form.DRILL_CHOICES.__getitem__,
    )
    t1, t2, t3 = st.columns(3)
    t1.toggle(
        "Adapt the plan",
        key="nr_adaptive_plan",
        help="After each branch, the model may add, drop or "
        "re-prioritise pending branches (proposals you accept or reject in step mode).",
    )
    t2.toggle("Verify citations", key="nr_verify_citations", help="Check each cited claim against its source.")
    t3.toggle("Coverage check", key="nr_coverage_check", help="Name what the research covered and its gaps.")
    st.multiselect(
        "Never drop these backends",
        [b for b in st.session_state["nr_backends"]],
        key="nr_sticky",
        format_func=lambda b: KNOWN_BACKENDS.get(b, b),
        help="A backend that keeps failing is dropped for that branch; these are always kept.",
    )

backends = ", ".join(KNOWN_BACKENDS.get(b, b) for b in st.session_state["nr_backends"]) or "none"
model = settings.model if settings.provider == "openai" else f"{LOCAL_MODEL_LABEL} (embedded)"
where = f" at {esc(settings.endpoint_label())}" if accounts.allowed(permissions.may_change_settings) else ""
st.caption(f"LLM: **{esc(model)}**{where} · Search: **{esc(backends)}**")


def propose() -> None:
    """Validate the form and start the run in the background."""
    st.session_state["nr_error"] = None
    try:
        question = clean_question(st.session_state["nr_question"])
    except RunError as exc:
        st.session_state["nr_error"] = str(exc)
        return
    if not st.session_state["nr_backends"]:
        st.session_state["nr_error"] = "Choose at least one search backend under “Limits and search”."
        return
    problem = run_form.searxng_problem(st.session_state["nr_backends"], settings.searxng_url)
    if problem:
        st.session_state["nr_error"] = problem
        return
    try:
        form = run_form.ResearchForm(
            question=question,
            template=st.session_state["nr_template"],
            mode=st.session_state["nr_mode"],
            step_mode=st.session_state["nr_execution"] == "step",
            max_iterations=int(st.session_state["nr_max_iterations"]),
            parallel=int(st.session_state["nr_parallel"]),
            max_total_cost_usd=float(st.session_state["nr_cost_cap"]),
            search_backends=list(st.session_state["nr_backends"]),
            report_language=st.session_state["nr_language"],
            max_depth=int(st.session_state["nr_max_depth"]),
            drill_down_on=st.session_state["nr_drill_down_on"],
            adaptive_plan=bool(st.session_state["nr_adaptive_plan"]),
            verify_citations=bool(st.session_state["nr_verify_citations"]),
            coverage_check=bool(st.session_state["nr_coverage_check"]),
            sticky_backends=list(st.session_state["nr_sticky"]),
            **run_form.reading_settings(settings),
        )
        config = run_form.run_config_from_form(form)
    except ValidationError as exc:
        st.session_state["nr_error"] = f"These limits do not fit together: {exc.errors()[0]['msg']}."
        return
    except ValueError as exc:
        st.session_state["nr_error"] = str(exc)
        return
    try:
        run_id = services.get_runner().start_background(question, config)
    except RunError as exc:
        st.session_state["nr_error"] = str(exc)
        return
    except Exception as exc:  # the database or engine could not start the run
        st.session_state["nr_error"] = f"The run could not start: {exc}. Check the Settings page."
        return
    state.set_current_run(run_id)
    st.session_state["nr_waiting_run"] = run_id
    st.session_state["nr_started_at"] = time.time()


st.button("Propose plan", type="primary", icon=":material/account_tree:", key="nr_propose", on_click=propose)
