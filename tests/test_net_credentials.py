"""research_core.net.credentials: a service URL's credentials in memory, its public form everywhere else."""

from __future__ import annotations

import pytest

from research_core.configuration import build_run_config
from research_core.net.credentials import public_url, remember, with_credentials


def test_the_public_form_has_no_userinfo_no_token_and_no_trailing_slash() -> None:
    assert public_url("http://me:pw@searx.example:8888/?token=abc&lang=en") == "http://searx.example:8888/?lang=en"
    assert public_url("http://searx.example/") == "http://searx.example"


def test_credentials_come_back_for_the_same_instance_only() -> None:
    public = remember("http://me:pw@searx-a.example/?token=abc")
    assert public == "http://searx-a.example"
    assert with_credentials(public) == "http://me:pw@searx-a.example/?token=abc"
    assert with_credentials("http://searx-b.example") == "http://searx-b.example"
    assert with_credentials(None) is None


def test_a_new_process_takes_them_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBOR_SEARXNG_URL", "http://searx-env.example/?api_key=k1")
    assert with_credentials("http://searx-env.example") == "http://searx-env.example/?api_key=k1"
    assert with_credentials("http://other.example") == "http://other.example"


def test_a_run_config_stores_the_public_form() -> None:
    config = build_run_config("general", searxng_url="http://u:p@searx-c.example/?token=t")
    assert config.searxng_url == "http://searx-c.example"
    assert "token" not in config.model_dump_json() and "u:p" not in config.model_dump_json()
    assert with_credentials(config.searxng_url) == "http://u:p@searx-c.example/?token=t"
