"""Which database a process uses: the SQLite file or a PostgreSQL URL, parsed once where it enters.

The rule: an explicit `--db` (a path, or a `postgresql://` URL) wins; else `ARBOR_DATABASE_URL`;
else `$ARBOR_DB`; else ./data/arbor.db. A URL's password never leaves this record in anything it
prints: `str()`, `repr()` and `shown` mask it. A URL that is not PostgreSQL's, or cannot be read,
is a `StorageError` whose one line says what to fix.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from research_core.errors import ArborError

DEFAULT_DB = Path("data") / "arbor.db"
URL_VARIABLE = "ARBOR_DATABASE_URL"
PATH_VARIABLE = "ARBOR_DB"
POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
SQLALCHEMY_DRIVER = "postgresql+psycopg"


class StorageError(ArborError):
    """The database cannot be named or reached; `user_message` says what went wrong and what to do."""


@dataclass(frozen=True)
class StoreLocation:
    """A SQLite file (`path`) or a PostgreSQL database (`url`, password included: never print it)."""

    path: Path | None = None
    url: URL | None = field(default=None, repr=False)

    @property
    def is_postgres(self) -> bool:
        """Whether this is a PostgreSQL database."""
        return self.url is not None

    @property
    def shown(self) -> str:
        """The location as it may be printed: the path, or the URL with its password masked."""
        if self.url is not None:
            return self.url.set(drivername="postgresql").render_as_string(hide_password=True)
        return str(self.path)

    def __str__(self) -> str:
        return self.shown

    def __repr__(self) -> str:
        return f"StoreLocation({self.shown!r})"

    def sqlalchemy_url(self) -> URL:
        """The URL SQLAlchemy opens (psycopg 3 for PostgreSQL)."""
        if self.url is not None:
            return self.url.set(drivername=SQLALCHEMY_DRIVER)
        return URL.create("sqlite", database=str(self.path))

    def conninfo(self) -> str:
        """The PostgreSQL URL as psycopg takes it, password included; for connecting, never for printing."""
        if self.url is None:
            raise ValueError(f"{self.shown} is a SQLite file, not a PostgreSQL database")
        return self.url.set(drivername="postgresql").render_as_string(hide_password=False)


def parse_url(text: str, source: str) -> StoreLocation:
    """A PostgreSQL location from a URL given by `source` (`--db`, `ARBOR_DATABASE_URL`); StorageError if unusable."""
    try:
        url = make_url(text.strip())
    except ArgumentError:
        url = None
    if url is None or url.drivername not in POSTGRES_SCHEMES:
        scheme = text.split("://", 1)[0] if "://" in text else ""
        raise StorageError(
            f"{source}: {scheme + '://' if scheme else 'that'} is not a PostgreSQL URL; "
            "give postgresql://USER:PASSWORD@HOST:PORT/DATABASE, or a path for the SQLite file."
        ) from None
    location = StoreLocation(url=url)
    if not url.database:
        raise StorageError(
            f"{source} {location.shown} names no database; add it after the host, e.g. postgresql://HOST/arbor."
        )
    return location


def locate(db: StoreLocation | Path | str | None = None) -> StoreLocation:
    """The location a caller means: `db` if given (a path or a URL), else the environment's (see the module rule)."""
    if isinstance(db, StoreLocation):
        return db
    if db is not None:
        text = str(db)
        if "://" in text:
            return parse_url(text, "--db")
        return StoreLocation(path=Path(db))
    url = os.environ.get(URL_VARIABLE, "").strip()
    if url:
        return parse_url(url, URL_VARIABLE)
    return StoreLocation(path=Path(os.environ.get(PATH_VARIABLE, DEFAULT_DB)))


def db_option(text: str) -> StoreLocation:
    """argparse `type` of `--db`: a path or a PostgreSQL URL (a bad URL is refused with argparse's one line)."""
    import argparse

    try:
        return locate(text)
    except StorageError as exc:
        raise argparse.ArgumentTypeError(exc.user_message) from None
