"""A throw-away PostgreSQL cluster for the tests: made in a temporary folder, reached on 127.0.0.1, then deleted.

The cluster is this module's own: `initdb` into a new folder, `pg_ctl start` on a free loopback port
with its unix socket in that folder, `pg_ctl stop` and the folder deleted at the end. No server it
did not start is ever touched. PostgreSQL refuses to run as root, so when the tests run as root
(this machine, CI) the binaries run as the `postgres` system user, which owns the folder.
Each test asks for a database of its own (`create_database`), so tests never see each other's rows.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

DEBIAN_BINDIR = Path("/usr/lib/postgresql/15/bin")
SYSTEM_USER = "postgres"
SUPERUSER = "postgres"
START_TIMEOUT_S = 60


def find_bindir() -> Path | None:
    """The folder holding `initdb` and `pg_ctl`: Debian's PostgreSQL 15, else `pg_config --bindir`; None if absent."""
    if (DEBIAN_BINDIR / "initdb").is_file():
        return DEBIAN_BINDIR
    pg_config = shutil.which("pg_config")
    if pg_config is None:
        return None
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        found = Path(subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=True).stdout.strip())
        if (found / "initdb").is_file() and (found / "pg_ctl").is_file():
            return found
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresCluster:
    """One cluster made and owned by the tests; `start`, `create_database` per test, `stop` once."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="arbor-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self._as_root = os.geteuid() == 0
        self._started = False

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self._as_root:
            command = ["runuser", "-u", SYSTEM_USER, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=START_TIMEOUT_S, check=False)

    def _check(self, result: subprocess.CompletedProcess, what: str) -> None:
        if result.returncode != 0:
            raise RuntimeError(f"{what} failed ({result.returncode}): {result.stderr.strip() or result.stdout.strip()}")

    def start(self) -> None:
        """initdb and start the server on 127.0.0.1:`port`, its socket in the cluster's folder."""
        if self._as_root:
            user = pwd.getpwnam(SYSTEM_USER)
            os.chown(self.root, user.pw_uid, user.pw_gid)
        os.chmod(self.root, 0o700)
        self._check(
            self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--no-sync"),
            "initdb",
        )
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
        )
        log = str(self.root / "server.log")
        self._check(self._run("pg_ctl", "-D", str(self.data), "-l", log, "-o", options, "-w", "start"), "pg_ctl start")
        self._started = True

    def url(self, database: str = "postgres") -> str:
        """The URL of one of the cluster's databases (trust authentication on loopback: no password)."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new, empty database of its own; its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server (if this object started it) and delete the cluster's folder."""
        try:
            if self._started:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
                self._started = False
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
