"""The typed records of accounts: roles, a user, and the error of the accounts API.

Roles, from most to least:
- admin: manages users, settings and the API endpoint and key; otherwise a researcher;
- researcher: starts runs, steers, re-runs, shares and deletes their own runs, forks shared ones;
- viewer: reads their own and team-shared runs, nothing more.
With no accounts in the database there is one local user, `LOCAL_USER`, who may do everything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, get_args

from research_core.errors import ArborError

Role = Literal["admin", "researcher", "viewer"]
ROLES: tuple[Role, ...] = get_args(Role)
Visibility = Literal["private", "team"]
VISIBILITIES: tuple[Visibility, ...] = get_args(Visibility)

LOCAL_NAME = "local"
# A name: letters, digits and . _ @ + - (an e-mail address fits, for accounts signed in through OIDC).
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+\-]{0,127}$")


class AccountError(ArborError):
    """A user-facing error about accounts: an unknown or taken name, a weak password, the last admin."""


@dataclass(frozen=True)
class User:
    """A person who signs in: name, role and (local accounts) the password's Argon2 hash.

    `password_hash` is None for an account that signs in through the OIDC provider only; it never
    appears in `repr`.
    """

    name: str
    role: Role
    password_hash: str | None = field(default=None, repr=False, compare=False)
    created_at: str | None = field(default=None, compare=False)

    @property
    def has_password(self) -> bool:
        """Whether the account can sign in with a password (a local account)."""
        return bool(self.password_hash)


# The one user of an installation without accounts: the workbench and the CLI as they always were.
LOCAL_USER = User(name=LOCAL_NAME, role="admin")


def check_name(name: str) -> str:
    """The account name, stripped; AccountError when it is empty or has characters a name may not have."""
    cleaned = (name or "").strip()
    if cleaned.lower() == LOCAL_NAME:
        raise AccountError(f"{LOCAL_NAME!r} names the one user of an installation without accounts; pick another name.")
    if not NAME_PATTERN.match(cleaned):
        raise AccountError(
            f"{cleaned[:40]!r} is not a usable account name: use 1 to 128 letters, digits and . _ @ + - "
            "(starting with a letter or digit)."
        )
    return cleaned


def check_role(role: str) -> Role:
    """The role named `role`; AccountError naming the roles otherwise."""
    if role not in ROLES:
        raise AccountError(f"unknown role {role!r}; the roles are {', '.join(ROLES)}.")
    return role  # type: ignore[return-value]
