"""The files the command line reads and writes: the database it needs, and the outputs it writes.

An output path is checked before a command does any work, and again when it is written: it must
not be the database or one of its `-wal`/`-shm` files (compared by resolved path and by inode, so
a symlink or a hard link to the database is refused too). Outputs are written to a temporary file
in the same folder and renamed over the target, so an interrupted write never leaves half a file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

DB_COMPANIONS = ("", "-wal", "-shm", "-journal")


class OutputPathError(ValueError):
    """An output path that must not be written; the message says why and what to do."""


class MissingDatabaseError(FileNotFoundError):
    """A command that reads runs was pointed at a database file that does not exist."""


def database_files(db_path: Path) -> list[Path]:
    """The database file and its companions (`-wal`, `-shm`, `-journal`), as paths (existing or not)."""
    return [db_path.with_name(db_path.name + suffix) for suffix in DB_COMPANIONS]


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output_path(path: Path, db_path: Path | None, option: str) -> None:
    """Refuse an output `path` that is the SQLite file `db_path` (or its WAL/SHM/journal file) or a folder.

    `db_path` is None for a PostgreSQL database, which no output can overwrite. Raises
    OutputPathError with one line naming `option`; writes nothing.
    """
    target = path.expanduser().resolve()
    for protected in database_files(db_path.expanduser()) if db_path is not None else []:
        if target == protected.resolve() or _same_file(path, protected):
            raise OutputPathError(
                f"{option} {path}: that is the database ({db_path}); writing there would destroy every run. "
                "Choose another file name."
            )
    if target.is_dir():
        raise OutputPathError(f"{option} {path}: that is a folder; give a file name, e.g. {path / 'report.md'}")
    if not target.parent.is_dir():
        raise OutputPathError(f"{option} {path}: the folder {target.parent} does not exist; create it first.")


def write_output(path: Path, text: str | bytes, db_path: Path | None, option: str) -> Path:
    """Write `text` (UTF-8 text, or bytes as they are) to `path` atomically (temporary file in the
    same folder, then rename).

    The path is checked with `check_output_path` first. A symlink is followed, so the file it
    points to is replaced. Returns the path written. Raises OutputPathError or OSError.
    """
    check_output_path(path, db_path, option)
    target = path.expanduser().resolve()
    mode = _mode_for(target)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    return path


def _mode_for(target: Path) -> int:
    """The permissions of the file being replaced, or those a new file gets under the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def require_database(db_path: Path, *, default: bool) -> None:
    """Raise MissingDatabaseError (one line naming the path) when `db_path` does not exist.

    Nothing is created: neither the file nor its folders. `default` says whether the path is the
    one used when no --db or $ARBOR_DB is given, which changes the advice.
    """
    if db_path.expanduser().is_file():
        return
    if db_path.expanduser().exists():
        raise MissingDatabaseError(f"{db_path} is not a database file (it is a folder); check --db or $ARBOR_DB.")
    if default:
        raise MissingDatabaseError(
            f"no database at {db_path}: no run has been started here yet. "
            'Start one with: python -m research_core run "your question"'
        )
    raise MissingDatabaseError(
        f"no database at {db_path}; check the path given with --db or $ARBOR_DB (nothing was created)."
    )
