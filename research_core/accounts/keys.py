"""The LLM API key an admin saves on the server, kept in the installation's database.

The rules:
- The key is written here by an admin (the Settings page) and read by the server when it starts a
  run's LLM client; it is never written to a run, the settings file, an export or a log line.
- It is shown back only masked (`ui.settings_store.mask_secret`): nobody reads it whole again, an
  admin can only replace or remove it.
- Reads are cached for a few seconds per store, so every page run does not query the database; a
  change made here is seen at once by this process, by others within `CACHE_S`.
"""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import delete, insert, select, update

from research_core.accounts.table import api_keys, create_or_upgrade
from research_core.schemas import utc_now
from research_core.storage.location import StoreLocation
from research_core.storage.tables import TableStore

OPENAI = "openai"
CACHE_S = 5.0


class ServerKeys(TableStore):
    """API keys saved on the server, by endpoint kind (`OPENAI`), in the database `db`."""

    def __init__(self, db: StoreLocation | Path | str | None):
        super().__init__(db, create_or_upgrade)
        self._cache: dict[str, tuple[float, str | None]] = {}

    def get(self, name: str = OPENAI) -> str | None:
        """The saved key, or None when no admin saved one."""
        with self._lock:
            cached = self._cache.get(name)
            if cached is not None and time.monotonic() - cached[0] < CACHE_S:
                return cached[1]
            with self._engine.connect() as conn, conn.begin():
                secret = conn.execute(select(api_keys.c.secret).where(api_keys.c.name == name)).scalar()
            self._cache[name] = (time.monotonic(), secret)
            return secret

    def set(self, secret: str, by: str, name: str = OPENAI) -> None:
        """Save (or replace) the key; `by` names the admin who did, for the record."""
        secret = secret.strip()
        if not secret:
            raise ValueError("an empty key cannot be saved")
        values = {"secret": secret, "updated_at": utc_now(), "updated_by": by}
        with self._transaction(immediate=True) as conn:
            done = conn.execute(update(api_keys).where(api_keys.c.name == name).values(**values))
            if not done.rowcount:
                conn.execute(insert(api_keys).values(name=name, **values))
            self._cache.pop(name, None)  # under the lock: no reader sees the old key cached after this

    def remove(self, name: str = OPENAI) -> bool:
        """Forget the saved key; True if there was one."""
        with self._transaction() as conn:
            done = conn.execute(delete(api_keys).where(api_keys.c.name == name))
            self._cache.pop(name, None)
        return bool(done.rowcount)
