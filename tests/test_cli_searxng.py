"""The command line with SearXNG and page reading: flags, environment, settings and their errors."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from research_core.cli.main import main
from research_core.runs.runner import Runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.fakes.local_web import serve_local_web

QUESTION = "Compare SQLite and PostgreSQL write concurrency for a small web app"

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def cli(tmp_path, monkeypatch) -> Iterator[tuple]:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ARBOR_DB", "ARBOR_SEARXNG_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "cli.db"
    with serve(ScriptedLLM()) as (url, _), serve_local_web() as web:
        common = ["--db", str(db), "--llm", "openai", "--llm-base-url", url]
        yield (lambda *args: main([*args, *common])), web, db


def stored(db) -> dict:
    (run,) = Runner(db).runs()
    return Runner(db).store.get(run.id).config


def test_a_cli_run_reads_pages_found_through_searxng(cli, capsys, tmp_path) -> None:
    run, web, db = cli
    args = ["run", QUESTION, "--auto", "--search", "searxng", "--searxng-url", web.base_url]
    code = run(*args, "--set", "fetch_private_addresses=true", "--json", str(tmp_path / "r.json"))
    assert code == 0, capsys.readouterr().err
    result = json.loads((tmp_path / "r.json").read_text())
    assert any(s["read"] == "page" and s["url"].startswith(web.base_url) for s in result["sources"])
    config = stored(db)
    assert (config["searxng_url"], config["fetch_private_addresses"], config["read_pages"]) == (
        web.base_url,
        True,
        True,
    )


def test_the_environment_names_the_instance_and_reading_can_be_turned_off(cli, capsys, monkeypatch) -> None:
    run, web, db = cli
    monkeypatch.setenv("ARBOR_SEARXNG_URL", web.base_url)
    assert run("run", QUESTION, "--auto", "--search", "searxng", "--set", "read_pages=false") == 0
    config = stored(db)
    assert config["searxng_url"] == web.base_url and config["read_pages"] is False
    assert web.queries and all(path == "search" for path in web.hits)  # searched, read no page


def test_searxng_without_a_url_is_one_line(cli, capsys) -> None:
    run, _, db = cli
    assert run("run", QUESTION, "--auto", "--search", "searxng") == 2
    assert capsys.readouterr().err.strip() == (
        "arbor: --search searxng needs the instance's URL: --searxng-url URL, or set ARBOR_SEARXNG_URL"
    )
    assert run("run", QUESTION, "--auto", "--search", "searxng", "--searxng-url", "searx.example") == 2
    assert "must be an http:// or https:// URL" in capsys.readouterr().err
    assert Runner(db).runs() == []
