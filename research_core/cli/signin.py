"""Who a command acts as: the local user without accounts, else the account named by --user and its password.

The rules:
- A database without accounts: every command acts as the local user, exactly as before accounts
  existed (`--user` is refused there, `ARBOR_USER` ignored).
- A database with accounts: a command that reads or changes it names its account with `--user NAME`
  (or `ARBOR_USER`); the password comes from `ARBOR_PASSWORD`, else it is asked on the terminal
  (never echoed); without a terminal and without the variable the command stops. A wrong name and
  a wrong password get the same line.
- What a role may not do at all is refused before any work (`check_allowed`); what it may do with
  one run is decided by `accounts.access.UserRuns`, the runner such a command gets.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys

from research_core.accounts import permissions
from research_core.accounts.records import User
from research_core.accounts.store import AccountStore
from research_core.cli.errors import CliError
from research_core.storage.location import StoreLocation

USER_VARIABLE = "ARBOR_USER"
PASSWORD_VARIABLE = "ARBOR_PASSWORD"
WRONG = "wrong account name or password"


def read_secret(prompt: str, variable: str | None = None) -> str:
    """A password from `variable` if set, else typed on the terminal without echo; CliError without either."""
    if variable and os.environ.get(variable):
        return os.environ[variable]
    if not sys.stdin.isatty():
        hint = f"set {variable}" if variable else "use --password-stdin"
        raise CliError(f"no terminal to ask for the password on: {hint}")
    try:
        return getpass.getpass(prompt)
    except EOFError:
        raise CliError("no password given") from None


def sign_in(store: AccountStore, name: str) -> User:
    """The account `name` once its password (ARBOR_PASSWORD, or asked) checks out; CliError otherwise."""
    password = read_secret(f"password of {name}: ", PASSWORD_VARIABLE)
    user = store.authenticate(name, password)
    if user is None:
        raise CliError(WRONG)
    return user


def acting_user(args: argparse.Namespace, location: StoreLocation) -> User | None:
    """The signed-in account a command acts as; None when the database has no accounts (the local user)."""
    explicit = getattr(args, "user", None)
    store = AccountStore(location)
    try:
        if store.count() == 0:
            if explicit:
                raise CliError("--user: this database has no accounts; commands act as its one local user")
            return None
        name = explicit or os.environ.get(USER_VARIABLE, "").strip()
        if not name:
            raise CliError(
                f"this database has accounts: name yours with --user NAME (or {USER_VARIABLE}); "
                f"the password is read from {PASSWORD_VARIABLE} or asked"
            )
        return sign_in(store, name)
    finally:
        store.close()


def check_allowed(args: argparse.Namespace, user: User) -> None:
    """Refuse, before any work, a command the user's role may not run at all."""
    command, sub = args.command, getattr(args, "library_command", None) or getattr(args, "cache_command", None)
    starts = command in ("decompose", "run", "rerun", "compare", "fork")
    if starts and not permissions.may_start(user):
        raise CliError(f"your role ({user.role}) reads runs only; `{command}` needs researcher or admin")
    if command == "library" and sub in ("add", "remove") and not permissions.may_edit_library(user):
        raise CliError(f"your role ({user.role}) cannot change the library; it can search and list it")
    if command == "cache" and sub == "clear" and not permissions.may_change_settings(user):
        raise CliError("only an admin empties the page cache")
