"""The command line's output files and database checks: refusals, atomic writes, nothing created."""

from __future__ import annotations

import os
import stat

import pytest

from research_core.cli import files
from research_core.cli.files import (
    MissingDatabaseError,
    OutputPathError,
    check_output_path,
    require_database,
    write_output,
)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "arbor.db"
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"arbor.db{suffix}").write_bytes(b"database bytes")
    return path


@pytest.mark.parametrize("name", ["arbor.db", "arbor.db-wal", "arbor.db-shm", "arbor.db-journal", "./sub/../arbor.db"])
def test_the_database_and_its_companions_are_refused(tmp_path, db, name):
    (tmp_path / "sub").mkdir()
    with pytest.raises(OutputPathError, match=r"--out .*the database"):
        check_output_path(tmp_path / name, db, "--out")


def test_a_symlink_or_a_hard_link_to_the_database_is_refused(tmp_path, db):
    (tmp_path / "link.json").symlink_to(db)
    os.link(db, tmp_path / "hard.json")
    for name in ("link.json", "hard.json"):
        with pytest.raises(OutputPathError):
            write_output(tmp_path / name, "{}", db, "--json")
    assert db.read_bytes() == b"database bytes"


def test_a_folder_or_a_missing_folder_is_refused_in_one_line(tmp_path, db):
    with pytest.raises(OutputPathError, match="is a folder"):
        check_output_path(tmp_path, db, "--out")
    with pytest.raises(OutputPathError, match="does not exist") as info:
        check_output_path(tmp_path / "nope" / "r.md", db, "--out")
    assert len(str(info.value).splitlines()) == 1


def test_write_output_replaces_the_file_whole_and_keeps_its_mode(tmp_path, db):
    target = tmp_path / "report.md"
    target.write_text("old")
    target.chmod(0o640)
    write_output(target, "new report", db, "--out")
    assert target.read_text() == "new report"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temp file left


def test_an_interrupted_write_leaves_the_old_file_and_no_temp_file(tmp_path, db, monkeypatch):
    target = tmp_path / "report.md"
    target.write_text("the previous report")

    def fail(*_args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", fail)
    with pytest.raises(OSError):
        write_output(target, "x" * 100_000, db, "--out")
    assert target.read_text() == "the previous report"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".report")] == []


def test_write_output_follows_a_symlink_to_another_file(tmp_path, db):
    real = tmp_path / "real.md"
    real.write_text("old")
    (tmp_path / "alias.md").symlink_to(real)
    write_output(tmp_path / "alias.md", "new", db, "--out")
    assert (tmp_path / "alias.md").is_symlink() and real.read_text() == "new"


def test_require_database_names_the_path_and_creates_nothing(tmp_path):
    missing = tmp_path / "typo" / "arbor.db"
    with pytest.raises(MissingDatabaseError) as info:
        require_database(missing, default=False)
    assert str(missing) in str(info.value) and "--db" in str(info.value)
    assert not (tmp_path / "typo").exists()
    with pytest.raises(MissingDatabaseError, match='run "your question"'):
        require_database(missing, default=True)
    with pytest.raises(MissingDatabaseError, match="folder"):
        require_database(tmp_path, default=False)
