"""Accounts in the installation's database: add, sign in, roles, the last admin, and the server's API key.

Each test runs once on the SQLite file and once on a PostgreSQL database of its own (`db`).
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from research_core.accounts import passwords
from research_core.accounts.keys import ServerKeys
from research_core.accounts.records import LOCAL_USER, AccountError, User
from research_core.accounts.store import AccountStore

PASSWORD = "correct horse battery"


@pytest.fixture
def accounts(db):
    store = AccountStore(db)
    yield store
    store.close()


def test_an_installation_starts_without_accounts(accounts):
    assert accounts.count() == 0 and accounts.list() == []
    assert LOCAL_USER.role == "admin" and LOCAL_USER.name == "local"


def test_an_account_signs_in_with_its_password_only(accounts):
    added = accounts.add("Alice", "researcher", PASSWORD)
    assert added == User(name="alice", role="researcher")  # names are case-insensitive, stored in lower case
    assert accounts.count() == 1
    assert accounts.authenticate("alice", PASSWORD) == added
    assert accounts.authenticate("ALICE", PASSWORD) == added
    assert accounts.authenticate("alice", PASSWORD + "!") is None
    assert accounts.authenticate("bob", PASSWORD) is None  # no such account: the same None


def test_the_password_is_stored_as_an_argon2id_hash_never_as_itself(accounts, db):
    accounts.add("alice", "viewer", PASSWORD)
    stored = accounts.get("alice").password_hash
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert PASSWORD not in repr(accounts.get("alice")) and "argon2" not in repr(accounts.get("alice"))
    if isinstance(db, Path):  # nothing in the file holds the password itself
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT * FROM users").fetchall()
        assert PASSWORD not in repr(rows)


def test_names_roles_and_passwords_are_checked(accounts):
    with pytest.raises(AccountError, match="not a usable account name"):
        accounts.add("bad name", "viewer", PASSWORD)
    with pytest.raises(AccountError, match="unknown role 'owner'"):
        accounts.add("carol", "owner", PASSWORD)
    with pytest.raises(AccountError, match="too short"):
        accounts.add("carol", "viewer", "short")
    accounts.add("carol", "viewer", PASSWORD)
    with pytest.raises(AccountError, match="already an account named carol"):
        accounts.add("Carol", "admin", PASSWORD)
    assert accounts.get("carol").role == "viewer"


def test_an_oidc_account_has_no_password_and_cannot_sign_in_with_one(accounts):
    accounts.add("dana@example.com", "researcher", None)
    assert not accounts.get("Dana@Example.com").has_password
    assert accounts.authenticate("dana@example.com", "") is None
    assert accounts.authenticate("dana@example.com", PASSWORD) is None


def test_roles_and_passwords_change_and_accounts_go(accounts):
    accounts.add("root", "admin", PASSWORD)
    accounts.add("erin", "viewer", PASSWORD)
    assert accounts.set_role("erin", "researcher").role == "researcher"
    accounts.set_password("erin", "another password")
    assert accounts.authenticate("erin", PASSWORD) is None
    assert accounts.authenticate("erin", "another password").role == "researcher"
    assert accounts.remove("erin") and not accounts.remove("erin")
    assert [u.name for u in accounts.list()] == ["root"]
    with pytest.raises(AccountError, match="no account named nobody"):
        accounts.set_role("nobody", "viewer")


def test_the_last_admin_can_be_neither_removed_nor_demoted(accounts):
    accounts.add("root", "admin", PASSWORD)
    with pytest.raises(AccountError, match="root is the last admin"):
        accounts.remove("root")
    with pytest.raises(AccountError, match="root is the last admin"):
        accounts.set_role("root", "researcher")
    accounts.add("second", "admin", PASSWORD)
    accounts.set_role("root", "researcher")
    with pytest.raises(AccountError, match="second is the last admin"):
        accounts.remove("second")


def test_two_admins_demoting_each_other_at_once_leave_one_admin(db):
    stores = [AccountStore(db), AccountStore(db)]
    stores[0].add("a", "admin", PASSWORD)
    stores[0].add("b", "admin", PASSWORD)
    errors: list[Exception] = []

    def demote(store: AccountStore, name: str) -> None:
        try:
            store.set_role(name, "viewer")
        except AccountError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=demote, args=(s, n)) for s, n in zip(stores, ("a", "b"), strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 1
    assert [u.role for u in stores[0].list()].count("admin") == 1
    for s in stores:
        s.close()


def test_a_hash_with_weaker_parameters_is_renewed_at_sign_in(accounts, monkeypatch):
    accounts.add("frank", "viewer", PASSWORD)
    from argon2 import PasswordHasher

    weak = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1).hash(PASSWORD)
    with accounts._transaction() as conn:
        from sqlalchemy import update

        from research_core.accounts.table import users

        conn.execute(update(users).where(users.c.name == "frank").values(password_hash=weak))
    assert passwords.needs_rehash(weak)
    assert accounts.authenticate("frank", PASSWORD) is not None
    renewed = accounts.get("frank").password_hash
    assert renewed != weak and not passwords.needs_rehash(renewed)


def test_verify_never_raises_for_a_damaged_hash():
    assert not passwords.verify("not a hash", PASSWORD)
    assert not passwords.verify(None, PASSWORD)
    assert passwords.verify(passwords.hash_password(PASSWORD), PASSWORD)


# ---- the API key an admin saves on the server ------------------------------------------------


def test_the_server_keeps_one_api_key_until_an_admin_replaces_or_removes_it(db):
    keys = ServerKeys(db)
    other = ServerKeys(db)  # another process's view
    try:
        assert keys.get() is None
        keys.set("sk-first-0123456789", by="root")
        keys.set("  sk-second-0123456789  ", by="root")
        assert keys.get() == "sk-second-0123456789"
        assert other.get() == "sk-second-0123456789"
        assert keys.remove() and keys.get() is None and not keys.remove()
        with pytest.raises(ValueError, match="empty"):
            keys.set("   ", by="root")
    finally:
        keys.close()
        other.close()
