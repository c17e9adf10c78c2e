"""Passwords: hashed with Argon2id (argon2-cffi's defaults, RFC 9106's low-memory profile), never stored or shown.

`hash_password` refuses passwords too short to be worth hashing; `verify` says whether a password
matches a hash and never raises for a wrong or damaged one. `needs_rehash` tells a sign-in to store
a fresh hash when the parameters have grown since the account's was made. `burn_time` spends the
time of one verification, so a name that has no account cannot be told from a wrong password.
"""

from __future__ import annotations

import contextlib

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from research_core.accounts.records import AccountError

MIN_LENGTH = 8
MAX_LENGTH = 1024

_hasher = PasswordHasher()
# A hash of nothing anyone can type, verified against when a name has no account (same work, same time).
_DUMMY_HASH = _hasher.hash("\x00no account\x00")


def check_password(password: str) -> str:
    """The password if it is usable; AccountError saying why not (too short, too long)."""
    if len(password) < MIN_LENGTH:
        raise AccountError(f"the password is too short: use at least {MIN_LENGTH} characters.")
    if len(password) > MAX_LENGTH:
        raise AccountError(f"the password is too long: use at most {MAX_LENGTH} characters.")
    return password


def hash_password(password: str) -> str:
    """The Argon2id hash of a usable password (it embeds its own salt and parameters)."""
    return _hasher.hash(check_password(password))


def verify(password_hash: str | None, password: str) -> bool:
    """Whether `password` matches `password_hash`; False for no hash, a wrong password or a damaged hash."""
    if not password_hash:
        burn_time(password)
        return False
    try:
        return _hasher.verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """Whether a hash was made with weaker parameters than today's."""
    try:
        return _hasher.check_needs_rehash(password_hash)
    except InvalidHashError:
        return True


def burn_time(password: str) -> None:
    """Spend one verification's time for nothing (a sign-in with a name that has no account)."""
    with contextlib.suppress(VerifyMismatchError, VerificationError, InvalidHashError):
        _hasher.verify(_DUMMY_HASH, password)
