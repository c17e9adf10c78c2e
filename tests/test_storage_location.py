"""Which database a process uses, and how a bad or unreachable one is reported (research_core/storage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from research_core.cli.main import main
from research_core.runs.store import RunStore
from research_core.storage.location import DEFAULT_DB, StorageError, StoreLocation, locate
from tests.postgres_cluster import free_port

SECRET = "s3cr3t-pw"


def test_an_explicit_db_wins_then_the_url_then_arbor_db_then_the_default(monkeypatch, tmp_path):
    monkeypatch.delenv("ARBOR_DATABASE_URL", raising=False)
    monkeypatch.delenv("ARBOR_DB", raising=False)
    assert locate(None) == StoreLocation(path=DEFAULT_DB)
    monkeypatch.setenv("ARBOR_DB", str(tmp_path / "x.db"))
    assert locate(None).path == tmp_path / "x.db"
    monkeypatch.setenv("ARBOR_DATABASE_URL", "postgresql://arbor@db.example/arbor")
    assert locate(None).is_postgres and locate(None).path is None
    assert locate(tmp_path / "y.db").path == tmp_path / "y.db"
    assert locate("postgres://u@h:5433/team").sqlalchemy_url().drivername == "postgresql+psycopg"


def test_the_password_is_masked_in_everything_a_location_prints():
    location = locate(f"postgresql://arbor:{SECRET}@db.example:5432/arbor")
    assert location.conninfo() == f"postgresql://arbor:{SECRET}@db.example:5432/arbor"
    for shown in (str(location), repr(location), location.shown, f"{location}"):
        assert SECRET not in shown and "arbor:***@db.example:5432/arbor" in shown


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://u:pw@h/db", "mysql:// is not a PostgreSQL URL"),
        ("postgresql://u:pw@h", "names no database"),
        ("sqlite:///data/arbor.db", "sqlite:// is not a PostgreSQL URL"),
    ],
)
def test_a_bad_url_is_one_line_saying_what_to_do(url, says):
    with pytest.raises(StorageError) as caught:
        locate(url)
    message = caught.value.user_message
    assert says in message and "\n" not in message and "pw" not in message


def test_the_cli_refuses_a_bad_url_in_one_line_without_the_password(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(["runs", "--db", f"mysql://u:{SECRET}@h/db"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "is not a PostgreSQL URL" in err and SECRET not in err
    monkeypatch.setenv("ARBOR_DATABASE_URL", f"postgresql://u:{SECRET}@h")
    assert main(["runs"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ARBOR_DATABASE_URL" in err and "names no database" in err
    assert SECRET not in err and "Traceback" not in err
    assert not Path("data").exists()


def test_an_unreachable_server_is_one_line_naming_it_without_the_password(capsys, monkeypatch, tmp_path):
    url = f"postgresql://arbor:{SECRET}@127.0.0.1:{free_port()}/arbor"
    with pytest.raises(StorageError) as caught:
        RunStore(url)
    assert "cannot open the database postgresql://arbor:***@127.0.0.1" in caught.value.user_message
    assert SECRET not in caught.value.user_message
    monkeypatch.setenv("ARBOR_DATABASE_URL", url)
    assert main(["runs"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("arbor: cannot open the database") and err.count("\n") == 1 and SECRET not in err
