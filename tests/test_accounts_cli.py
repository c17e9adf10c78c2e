"""Accounts on the command line: `users`, acting as an account with --user, and what each role may do.

Driven through the CLI's entry point (`main`) like a user would, on the scripted LLM, once on each
engine (`db`). Passwords come from ARBOR_PASSWORD (the acting account) and --password-stdin (a new one).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from research_core.cli.main import main
from research_core.runs.store import RunStore
from tests.fakes.llm_server import ScriptedLLM, serve

pytestmark = pytest.mark.timeout(300)

QUESTION = "Compare React, Vue, and Angular for building web applications"
PASSWORDS = {"root": "root-password", "alice": "alice-password", "bob": "bob-password", "vera": "vera-password"}
ROLES = {"root": "admin", "alice": "researcher", "bob": "researcher", "vera": "viewer"}


class Team:
    """The CLI on one database, acting as one account or another."""

    def __init__(self, db: str, common: list[str], monkeypatch: pytest.MonkeyPatch, capsys):
        self.db, self.common, self.monkeypatch, self.capsys = db, common, monkeypatch, capsys

    def _call(self, argv: list[str], user: str | None, stdin: str | None) -> tuple[int, str, str]:
        self.capsys.readouterr()
        if user is None:
            self.monkeypatch.delenv("ARBOR_PASSWORD", raising=False)
        else:
            self.monkeypatch.setenv("ARBOR_PASSWORD", PASSWORDS.get(user, "not-a-password"))
            argv = [*argv, "--user", user]
        self.monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))
        code = main(argv)
        captured = self.capsys.readouterr()
        return code, captured.out, captured.err

    def as_(self, user: str | None, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
        """A command with the LLM and search options, as `user` (None: nobody signs in). On PostgreSQL
        the research commands run in this process (--here); tests/test_workers.py covers the queue."""
        here = ["--here"] if args and args[0] in ("run", "resume", "rerun") and "://" in self.db else []
        return self._call([*args, *here, *self.common], user, stdin)

    def users(self, user: str | None, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
        """A users command on the database, as `user`."""
        return self._call(["users", *args, "--db", self.db], user, stdin)


@pytest.fixture
def team(tmp_path, monkeypatch, capsys, db):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ARBOR_USER", raising=False)
    where = str(tmp_path / "a.db") if isinstance(db, Path) else db
    with serve(ScriptedLLM()) as (url, _script):
        common = ["--db", where, "--llm", "openai", "--llm-base-url", url, "--llm-model", "m1", "--search", "library"]
        t = Team(where, common, monkeypatch, capsys)
        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "react.md").write_text("# React\n\nReact builds user interfaces from components with JSX.\n")
        (docs / "vue.md").write_text("# Vue\n\nVue is a progressive framework with reactive templates.\n")
        assert t.as_(None, "library", "add", str(docs / "react.md"), str(docs / "vue.md"))[0] == 0
        yield t


def add_everyone(t: Team) -> None:
    assert t.users(None, "add", "root", "--role", "admin", "--password-stdin", stdin="root-password\n")[0] == 0
    for name in ("alice", "bob", "vera"):
        code, _out, err = t.users("root", "add", name, "--role", ROLES[name], "--password-stdin", stdin=PASSWORDS[name])
        assert code == 0, err


def run_id_of(err: str) -> str:
    return err.split("run id ")[1].split()[0]


def test_the_first_account_is_an_admin_added_without_signing_in(team):
    code, _out, err = team.users(None, "add", "alice", "--role", "researcher", "--password-stdin", stdin="x" * 10)
    assert code == 2 and "the first account must be an admin" in err
    code, out, _ = team.users(None, "add", "root", "--role", "admin", "--password-stdin", stdin="root-password\n")
    assert code == 0 and out.strip() == "added root (admin, with a password)"
    code, _out, err = team.users(None, "add", "eve", "--role", "admin", "--password-stdin", stdin="eve-password")
    assert code == 2 and err.strip() == "arbor: managing accounts needs an admin: --user NAME (or ARBOR_USER)"
    code, out, _ = team.users("root", "add", "dana@example.com", "--role", "researcher", "--no-password")
    assert code == 0 and "signing in through the identity provider only" in out
    code, out, _ = team.users("root", "list")
    assert [line.split()[:3] for line in out.splitlines()] == [
        ["dana@example.com", "researcher", "oidc"],
        ["root", "admin", "password"],
    ]


def test_only_an_admin_manages_accounts_and_the_last_admin_stays(team):
    add_everyone(team)
    for name in ("alice", "vera"):
        code, _out, err = team.users(name, "add", "mallory", "--role", "admin", "--password-stdin", stdin="m" * 12)
        assert code == 2 and f"only an admin manages accounts; {name} is a {ROLES[name]}" in err
    code, _out, err = team.users("root", "remove", "root")
    assert code == 2 and "root is the last admin" in err
    assert team.users("root", "set-role", "vera", "researcher")[0] == 0
    assert team.users("root", "passwd", "vera", "--password-stdin", stdin="vera-new-password")[0] == 0
    assert team.users("root", "remove", "vera")[1].startswith("removed vera")
    code, _out, err = team.users("root", "remove", "vera")
    assert code == 2 and "no account named vera" in err
    code, _out, err = team.users(None, "list")
    assert code == 2


def test_without_accounts_the_cli_acts_as_the_local_user_as_before(team):
    code, _out, err = team.as_(None, "run", QUESTION, "--mode", "hierarchical", "--auto")
    assert code == 0
    run_id = run_id_of(err)
    assert RunStore(team.db).get(run_id).owner is None
    code, out, _ = team.as_(None, "runs")
    assert code == 0 and run_id in out and "local" not in out  # the listing is as it was
    code, _out, err = team.as_("alice", "runs")
    assert code == 2 and "this database has no accounts" in err


def test_with_accounts_every_command_names_its_account_and_a_wrong_password_gets_nowhere(team, monkeypatch):
    add_everyone(team)
    code, _out, err = team.as_(None, "runs")
    assert code == 2 and "this database has accounts: name yours with --user NAME" in err
    monkeypatch.setitem(PASSWORDS, "mallory", "whatever-password")  # no such account
    monkeypatch.setitem(PASSWORDS, "alice", "a-wrong-password")
    for who in ("mallory", "alice"):
        code, _out, err = team.as_(who, "runs")
        assert code == 2 and err.strip() == "arbor: wrong account name or password"


def test_each_role_through_the_cli_and_a_private_run_refused_like_a_missing_one(team, tmp_path):
    add_everyone(team)
    code, _out, err = team.as_("alice", "run", QUESTION, "--mode", "hierarchical", "--auto")
    assert code == 0, err
    run_id = run_id_of(err)
    code, out, _ = team.as_("alice", "runs")
    assert run_id in out and "alice" in out and "private" in out
    code, out, _ = team.as_("alice", "show", run_id)
    assert code == 0 and "owner: alice (private)" in out

    # Bob, Vera and even Root: the private run does not exist for them
    missing = "20990101-000000-abcdef"
    for who in ("bob", "vera", "root"):
        assert run_id not in team.as_(who, "runs")[1]
        for command in (
            ("show", "{}"),
            ("export", "{}", "--format", "json"),
            ("resume", "{}", "--answer", "approve"),
            ("rerun", "{}", "sq_001"),
            ("delete", "{}"),
            ("share", "{}"),
            ("fork", "{}"),
        ):
            if who == "vera" and command[0] in ("rerun", "fork"):
                continue  # refused for the role before the run is looked at (below)
            answers = []
            for target in (run_id, missing):
                code, out, err = team.as_(who, *(part.format(target) for part in command))
                answers.append((code, out, err.replace(target, "ID")))
            assert answers[0] == answers[1] == (2, "", "arbor: No run ID you can open.\n"), (who, command)
    assert RunStore(team.db).get(run_id) is not None

    # shared: the others read and export it, Bob forks it; nobody but Alice steers or deletes it
    assert team.as_("alice", "share", run_id)[0] == 0
    for who in ("bob", "vera", "root"):
        code, out, _ = team.as_(who, "export", run_id, "--format", "json")
        assert code == 0 and json.loads(out)["run_id"] == run_id
        code, _out, err = team.as_(who, "delete", run_id)
        assert code == 2 and ("shared with you read-only" in err or "reads runs only" in err)
    code, out, err = team.as_("bob", "fork", run_id)
    assert code == 0 and "waiting for review" in out, err
    fork_id = run_id_of(err)
    fork = RunStore(team.db).get(fork_id)
    assert (fork.owner, fork.visibility) == ("bob", "private")
    assert team.as_("bob", "resume", fork_id, "--answer", "approve")[0] == 0
    assert fork_id not in team.as_("alice", "runs")[1]

    # Vera reads only
    refused = (("run", QUESTION, "--auto"), ("decompose", QUESTION), ("fork", run_id), ("rerun", run_id, "sq_001"))
    for command in refused:
        code, _out, err = team.as_("vera", *command)
        assert code == 2 and f"your role (viewer) reads runs only; `{command[0]}` needs researcher or admin" in err
    doc = tmp_path / "note.md"
    doc.write_text("# Note\n\nA note.\n")
    code, _out, err = team.as_("vera", "library", "add", str(doc))
    assert code == 2 and "cannot change the library" in err
    assert team.as_("vera", "library", "list")[0] == 0
    code, _out, err = team.as_("alice", "cache", "clear")
    assert code == 2 and "only an admin empties the page cache" in err
    assert team.as_("root", "cache", "clear")[0] == 0

    # Alice makes it private again and deletes it
    assert team.as_("alice", "share", run_id, "--private")[0] == 0
    assert team.as_("bob", "show", run_id)[2] == f"arbor: No run {run_id} you can open.\n"
    code, out, _ = team.as_("alice", "delete", run_id)
    assert code == 0 and out.strip() == f"deleted {run_id}"
