"""Step mode from the command line: drill-down and plan-revision gates, answered with words or JSON
files; hypothesis mode with its verdicts; user mistakes and a broken local model as one line."""

from __future__ import annotations

import json
import logging

import pytest

from research_core.cli.main import main
from research_core.cli.parser import build_parser
from research_core.llm import local_model
from tests.fakes.llm_server import ScriptedLLM, serve

QUESTION = "Compare React, Vue, and Angular for building web applications"
DEEPER = "Which rendering benchmarks compare React and Vue?"
ADDED = "How large is each framework's hiring market?"
# an added sub-question that names no subject is shown with the question's subjects, so it stands alone
SHOWN = "How large is each framework's hiring market (React, Vue, Angular)?"

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def cli(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ARBOR_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "gates.db"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "react.md").write_text("# React\n\nReact builds user interfaces from components with JSX.\n")
    (docs / "vue.md").write_text("# Vue\n\nVue is a progressive framework with reactive templates.\n")
    assert main(["library", "add", str(docs / "react.md"), str(docs / "vue.md"), "--db", str(db)]) == 0

    def superficial_once(body: dict) -> str:
        return json.dumps({"depth": "superficial", "reasoning": "only generic claims", "drill_into": [DEEPER]})

    def revise_once(body: dict) -> str:
        return json.dumps(
            {
                "add": [{"question": ADDED, "priority": 0.6, "rationale": "Hiring decides many choices."}],
                "drop": ["sq_003"],
                "reprioritize": {},
                "reasoning": "The first findings point at hiring; practitioner advice adds little.",
            }
        )

    script = ScriptedLLM(script={"evaluate_depth": [superficial_once], "revise_plan": [revise_once]})
    with serve(script) as (url, _):
        common = ["--db", str(db), "--llm", "openai", "--llm-base-url", url, "--search", "library"]
        yield (lambda *args: main([*args, *common])), tmp_path


def test_drill_down_and_revision_gates_are_shown_and_answered_from_files(cli, capsys):
    run, tmp = cli
    assert run("run", QUESTION, "--step", "--parallel", "1", "--max-iterations", "30") == 0
    captured = capsys.readouterr()
    run_id = captured.err.split("run id ")[1].split()[0]
    assert run("resume", run_id, "--answer", "approve") == 0
    seen: dict[str, str] = {}
    for _ in range(20):
        out = capsys.readouterr().out
        if "paused after a branch" in out:
            assert run("resume", run_id, "--answer", "continue") == 0
        elif "waiting for a decision on the plan revision" in out:
            seen["revision"] = out
            changes = tmp / "changes.json"
            changes.write_text(json.dumps({"add": [SHOWN], "drop": []}))  # keep the addition, not the drop
            assert run("resume", run_id, "--answer", str(changes)) == 0
        elif "waiting for a drill-down decision" in out:
            seen["drill"] = out
            children = tmp / "children.json"
            children.write_text(json.dumps([{"question_text": "How fast does React render long lists?"}]))
            assert run("resume", run_id, "--answer", str(children), "--json", str(tmp / "r.json")) == 0
        else:
            break
    revision, drill = seen["revision"], seen["drill"]
    assert f"add   [0.60] {SHOWN}" in revision and "Hiring decides many choices." in revision
    assert "drop  sq_003: What do practitioners recommend" in revision
    assert "Reason: The first findings point at hiring" in revision
    assert f"resume {run_id} --db {tmp / 'gates.db'} --answer accept" in revision
    assert "--answer reject" in revision
    assert "Go deeper into sq_001" in drill and "Depth of its findings: superficial" in drill
    assert "Why: only generic claims" in drill
    assert f"1. [0.90] {DEEPER}" in drill
    assert f"resume {run_id} --db {tmp / 'gates.db'} --answer approve" in drill and "--answer reject" in drill

    assert run("resume", run_id, "--json", str(tmp / "r.json")) == 0  # finished runs just report again
    result = json.loads((tmp / "r.json").read_text())
    assert result["status"] == "completed"
    by_text = {sq["question_text"]: sq for sq in result["sub_questions"]}
    assert by_text[SHOWN]["status"] == "completed"  # the accepted addition was researched
    assert next(sq for sq in result["sub_questions"] if sq["id"] == "sq_003")["status"] == "completed"  # not dropped
    child = by_text["How fast does React render long lists?"]
    assert child["parent_id"] == "sq_001" and child["priority"] == 0.5  # the edited child, default priority


def test_gate_answers_are_refused_with_the_reason_and_the_gate_stays_open(cli, capsys):
    run, tmp = cli
    assert run("run", QUESTION, "--step", "--parallel", "1", "--max-iterations", "30", "--auto") == 0
    captured = capsys.readouterr()
    run_id, out = captured.err.split("run id ")[1].split()[0], captured.out
    for _ in range(20):
        if "waiting for a drill-down decision" in out:
            break
        assert run("resume", run_id, "--answer", "accept" if "plan revision" in out else "continue") == 0
        out = capsys.readouterr().out
    empty = tmp / "empty.json"
    empty.write_text("[]")
    assert run("resume", run_id, "--answer", str(empty)) == 2  # refused by the gate's parser before sending
    captured = capsys.readouterr()
    assert "Refused: 'children' must be a non-empty list" in captured.err
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err
    assert run("show", run_id) == 0
    assert "waiting for a drill-down decision" in capsys.readouterr().out
    assert run("resume", run_id, "--answer", "reject") == 0
    assert "waiting for a drill-down decision" not in capsys.readouterr().out


def test_resume_help_lists_every_answer_form(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["resume", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    for form in (
        "approve",
        "cancel",
        "continue",
        "stop",
        "reject",
        "accept",
        "PLAN.json",
        "EDITS.json",
        "CHILDREN.json",
        "CHANGES.json",
    ):
        assert form in help_text


def test_hypothesis_mode_prints_each_verdict(cli, capsys):
    run, tmp = cli
    code = run(
        "run", "Why do teams pick React over Vue?", "--mode", "hypothesis", "--auto", "--json", str(tmp / "h.json")
    )
    err = capsys.readouterr().err
    assert code == 0, err
    result = json.loads((tmp / "h.json").read_text())
    assert result["mode"] == "hypothesis"
    assert "Hypotheses:" in err
    for sq in result["sub_questions"]:
        assert f"{sq['id']} validated (confidence 7/10): {sq['question_text']}" in err


def test_unknown_search_backend_is_one_line_and_creates_no_run(cli, capsys):
    assert main(["run", QUESTION, "--auto", "--search", "foo", "--db", "x.db"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "arbor: --search: Unknown search backend 'foo'; known backends: ddg, library, searxng, web."
    assert main(["runs", "--db", "x.db"]) == 0
    assert "No runs yet" in capsys.readouterr().out
    assert main(["run", QUESTION, "--search", " , ", "--db", "x.db"]) == 2
    assert "Name at least one search backend: ddg, library, searxng, web" in capsys.readouterr().err


def test_a_broken_local_model_is_one_line_with_its_log(tmp_path, monkeypatch, capsys, caplog):
    caplog.set_level(logging.INFO)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("ARBOR_CACHE_DIR", str(tmp_path / "cache"))
    garbage = tmp_path / "model.gguf"
    garbage.write_bytes(b"this is not a GGUF file" * 100)
    monkeypatch.setattr(local_model, "ensure_model_file", lambda progress=None: garbage)
    code = main(
        ["run", "What is JSX?", "--auto", "--llm", "local", "--search", "library", "--db", str(tmp_path / "a.db")]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "Traceback" not in err and "Traceback" not in caplog.text
    failure = next(line for line in err.splitlines() if " failed: " in line)
    if local_model.importlib.util.find_spec("llama_cpp") is not None:
        log = tmp_path / "cache" / "logs" / "llama-server.log"
        assert failure.endswith(f"Server log: {log}") and "exited" in failure
        assert "GGUF" in log.read_text() or "Failed to load model" in log.read_text()
    else:
        assert "llama-cpp-python" in failure
    assert "retry with: python -m research_core resume" in err


def test_gates_lists_each_gates_answers_and_prints_their_schema(capsys):
    from research_core.gates import GATE_KINDS, STEP_ANSWERS, answer_schema

    assert main(["gates"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == list(GATE_KINDS)
    assert f"step: {STEP_ANSWERS}" in lines
    assert main(["gates", "step", "--schema"]) == 0
    assert json.loads(capsys.readouterr().out) == answer_schema("step")
    assert main(["gates", "--schema"]) == 0
    schemas = json.loads(capsys.readouterr().out)
    assert list(schemas) == list(GATE_KINDS)
    assert schemas["review"] == answer_schema("review") and schemas["drill_down"] == answer_schema("drill_down")
    assert main(["gates", "--schema", "revision"]) == 0
    assert "RevisionAccept" in json.loads(capsys.readouterr().out)["$defs"]
    with pytest.raises(SystemExit) as exc:
        main(["gates", "--schema", "nope"])
    assert exc.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_resume_checks_the_answer_at_the_gate_first_and_takes_typed_answers(cli, capsys):
    run, tmp = cli
    only_steps = ["--set", "max_depth=1", "--set", "adaptive_plan=false"]  # no drill-down or revision gates
    assert run("run", QUESTION, "--step", "--parallel", "1", *only_steps) == 0
    run_id = capsys.readouterr().err.split("run id ")[1].split()[0]
    for answer, message in [
        ("yes", "Refused: Unknown answer 'yes': answer 'approve', 'cancel' or an edited plan."),
        ('{"action": "approve", "plan": 3}', "Refused: 'plan' must be the edited plan object, or null to keep"),
        ("{oops", "--answer: not valid JSON (Expecting property name enclosed in double quotes at column 2)"),
    ]:
        assert run("resume", run_id, "--answer", answer) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"arbor: {message}") and len(err.strip().splitlines()) == 1, err
    assert run("show", run_id) == 0
    captured = capsys.readouterr()
    assert "waiting for review" in captured.out and "Refused" not in captured.err  # the gate never saw them

    assert run("resume", run_id, "--answer", '{"action": "approve", "plan": null}') == 0
    assert "paused after a branch" in capsys.readouterr().out
    assert run("resume", run_id, "--answer", '{"updates": {"sq_003": {"status": "completed"}}}') == 2
    assert "sq_003: an update may only set the status 'skipped'" in capsys.readouterr().err
    skip = tmp / "skip.json"
    skip.write_text(json.dumps({"action": "continue", "updates": {"sq_003": {"status": "skipped"}}}))
    assert run("resume", run_id, "--answer", str(skip)) == 0
    assert "paused after a branch" in capsys.readouterr().out
    assert run("resume", run_id, "--answer", '{"action": "stop"}', "--json", str(tmp / "r.json")) == 0
    result = json.loads((tmp / "r.json").read_text())
    assert result["status"] == "completed"
    assert [sq["status"] for sq in result["sub_questions"]] == ["completed", "completed", "skipped"]


def test_an_answer_file_may_hold_a_typed_answer_without_its_action():
    from research_core.cli.gates import answer_from_file
    from research_core.gates import DrillDownPayload, ReviewPayload, RevisionPayload, StepPayload

    review = ReviewPayload(
        question="Q", strategy="s", sub_questions=[], estimated_iterations={}, estimated_cost_usd=[0, 0]
    )
    step = StepPayload(question="Q", completed=[], pending=[])
    revision = RevisionPayload(question="Q", changes={"add": [{"question_text": "D?", "priority": 0.6}]})
    drill = DrillDownPayload(question="Q", branch={"id": "sq_001"}, proposals=[])
    assert answer_from_file({"plan": None}, review) == {"action": "approve", "plan": None}
    assert answer_from_file({"updates": {"sq_002": {}}}, step) == {"action": "continue", "updates": {"sq_002": {}}}
    assert answer_from_file({"changes": {"add": ["d?"]}}, revision) == {
        "action": "accept",
        "changes": {"add": [{"question_text": "D?", "priority": 0.6}]},
    }
    assert answer_from_file({"children": [{"question_text": "E?"}]}, drill) == {
        "action": "approve",
        "children": [{"question_text": "E?"}],
    }
    # the older shapes read as before
    assert answer_from_file([{"id": "sq_002", "skip": True}], step) == {
        "action": "continue",
        "edits": [{"id": "sq_002", "skip": True}],
    }
    assert answer_from_file({"action": "cancel"}, review) == {"action": "cancel"}


def test_the_gates_kind_not_the_json_decides_the_answers_shape():
    from research_core.cli.errors import CliError
    from research_core.cli.gates import answer_from_file
    from research_core.gates import DrillDownPayload, ReviewPayload, RevisionPayload, StepPayload

    step = StepPayload(question="Q", completed=[], pending=[])
    drill = DrillDownPayload(question="Q", branch={"id": "sq_001"}, proposals=[])
    revision = RevisionPayload(question="Q", changes={"add": [], "drop": ["sq_002"]})
    review = ReviewPayload(
        question="Q", strategy="s", sub_questions=[], estimated_iterations={}, estimated_cost_usd=[0, 0]
    )
    # the same list is a step gate's edits and a drill-down's children
    rows = [{"id": "sq_002", "question_text": "B?"}]
    assert answer_from_file(rows, step) == {"action": "continue", "edits": rows}
    assert answer_from_file(rows, drill) == {"action": "approve", "children": rows}
    # JSON meant for another gate is refused, not read as an empty answer to this one
    for data, payload in (
        ({"children": [{"question_text": "E?"}]}, step),
        ({"edits": [{"id": "sq_002"}]}, drill),
        ({"edits": [{"id": "sq_002"}]}, revision),
        ({"children": [{"question_text": "E?"}]}, review),
    ):
        with pytest.raises(CliError, match=f"--answer: a {'plan review' if payload is review else ''}"):
            answer_from_file(data, payload)


def test_an_answer_to_a_run_without_an_open_gate_is_not_guessed():
    from types import SimpleNamespace

    from research_core.cli.gates import read_answer

    snap = SimpleNamespace(pending=None, branches=[], config={})
    assert read_answer('{"edits": [{"id": "sq_001"}]}', snap) is None
    assert read_answer("continue", snap) is None
