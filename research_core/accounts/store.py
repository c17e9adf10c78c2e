"""The accounts of an installation: add, list, remove, change role or password, and sign in.

Kept in the runs' database (SQLite file or PostgreSQL, `research_core.storage`), one table
definition (`accounts.table`) for both. Names are case-insensitive: stored in lower case, so an
e-mail address from the OIDC provider finds its account however it is written. A change that could
leave the installation without an admin (removing or demoting the last one) is refused; the check
and the change share one transaction holding the write lock, so two admins cannot both go at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from research_core.accounts import passwords
from research_core.accounts.records import AccountError, User, check_name, check_role
from research_core.accounts.table import create_or_upgrade, users
from research_core.schemas import utc_now
from research_core.storage.location import StoreLocation
from research_core.storage.tables import TableStore

LAST_ADMIN = "{name} is the last admin; make another account admin first (users set-role NAME admin)."


def user_from_row(row: Mapping[str, Any]) -> User:
    """A User from a row of the users table."""
    return User(name=row["name"], role=row["role"], password_hash=row["password_hash"], created_at=row["created_at"])


def normal_name(name: str) -> str:
    """How a name is stored and looked up: checked, stripped and in lower case."""
    return check_name(name).lower()


class AccountStore(TableStore):
    """The users table of the database `db` (a SQLite path, a PostgreSQL URL or a `StoreLocation`; None: env's)."""

    def __init__(self, db: StoreLocation | Path | str | None):
        super().__init__(db, create_or_upgrade)

    # ---- reading --------------------------------------------------------------------------

    def count(self) -> int:
        """How many accounts there are (0: the installation has one local user, as without accounts)."""
        with self._transaction() as conn:
            return int(conn.execute(select(func.count()).select_from(users)).scalar() or 0)

    def get(self, name: str) -> User | None:
        """The account named `name` (any case), or None."""
        key = (name or "").strip().lower()
        with self._transaction() as conn:
            row = conn.execute(select(users).where(users.c.name == key)).mappings().first()
        return None if row is None else user_from_row(row)

    def list(self) -> list[User]:
        """Every account, by name."""
        with self._transaction() as conn:
            rows = conn.execute(select(users).order_by(users.c.name)).mappings().all()
        return [user_from_row(row) for row in rows]

    # ---- changing -------------------------------------------------------------------------

    def add(self, name: str, role: str, password: str | None) -> User:
        """Add an account; `password` None makes one that signs in through the OIDC provider only."""
        key, checked = normal_name(name), check_role(role)
        hashed = passwords.hash_password(password) if password is not None else None
        now = utc_now()
        try:
            with self._transaction() as conn:
                values = dict(name=key, role=checked, password_hash=hashed, created_at=now, updated_at=now)
                conn.execute(insert(users).values(**values))
        except IntegrityError:
            raise AccountError(f"there is already an account named {key}.") from None
        return User(name=key, role=checked, password_hash=hashed, created_at=now)

    def remove(self, name: str) -> bool:
        """Remove an account (its runs stay, still its own); False if there is none. The last admin stays."""
        key = (name or "").strip().lower()
        with self._transaction(immediate=True) as conn:
            admins = self._admins(conn)  # first, so that every change takes the admins' locks in one order
            user = self._locked(conn, key)
            if user is None:
                return False
            if user.role == "admin" and admins <= 1:
                raise AccountError(LAST_ADMIN.format(name=key))
            conn.execute(delete(users).where(users.c.name == key))
        return True

    def set_role(self, name: str, role: str) -> User:
        """Give an account another role; the last admin cannot stop being one."""
        key, checked = (name or "").strip().lower(), check_role(role)
        with self._transaction(immediate=True) as conn:
            admins = self._admins(conn)  # first, so that every change takes the admins' locks in one order
            user = self._locked(conn, key)
            if user is None:
                raise AccountError(f"there is no account named {key}.")
            if user.role == "admin" and checked != "admin" and admins <= 1:
                raise AccountError(LAST_ADMIN.format(name=key))
            conn.execute(update(users).where(users.c.name == key).values(role=checked, updated_at=utc_now()))
        return User(name=key, role=checked, password_hash=user.password_hash, created_at=user.created_at)

    def set_password(self, name: str, password: str | None) -> None:
        """Set (or with None, remove: OIDC sign-in only) an account's password."""
        key = (name or "").strip().lower()
        hashed = passwords.hash_password(password) if password is not None else None
        with self._transaction() as conn:
            done = conn.execute(
                update(users).where(users.c.name == key).values(password_hash=hashed, updated_at=utc_now())
            )
        if not done.rowcount:
            raise AccountError(f"there is no account named {key}.")

    def authenticate(self, name: str, password: str) -> User | None:
        """The account if `password` is its password, else None (an unknown name takes as long as a wrong password).

        A hash made with weaker parameters than today's is replaced by a fresh one on success.
        """
        user = self.get(name)
        if user is None or not user.has_password:
            passwords.burn_time(password)
            return None
        if not passwords.verify(user.password_hash, password):
            return None
        assert user.password_hash is not None
        if passwords.needs_rehash(user.password_hash):
            self.set_password(user.name, password)
        return user

    # ---- inside a transaction -------------------------------------------------------------

    def _locked(self, conn: Connection, key: str) -> User | None:
        row = conn.execute(select(users).where(users.c.name == key).with_for_update()).mappings().first()
        return None if row is None else user_from_row(row)

    def _admins(self, conn: Connection) -> int:
        """How many admins there are, their rows locked (in name order) until the transaction ends.

        Taken before any other row of the change: two admins demoting each other at once then queue
        on the same first lock instead of each holding the row the other needs (a deadlock on
        PostgreSQL), and the second sees the first's change and is refused as the last admin."""
        query = select(users.c.name).where(users.c.role == "admin").order_by(users.c.name).with_for_update()
        rows = conn.execute(query).all()
        return len(rows)
