"""The `users` commands: add, list, remove accounts, change a role or a password.

While the database has no admin (a new installation), they need no sign-in, and the account
added must be an admin: it is the one that manages the others. From then on they act as an admin
(--user, as every command with accounts; `cli.signin`). A new password is typed twice on the
terminal, or read from standard input with --password-stdin (one line, for scripts).
"""

from __future__ import annotations

import argparse
import os
import sys

from research_core.accounts.records import AccountError, User
from research_core.accounts.store import AccountStore
from research_core.cli.errors import EXIT_USAGE, CliError
from research_core.cli.preflight import command_location
from research_core.cli.signin import USER_VARIABLE, read_secret, sign_in

FIRST_ADMIN = "the first account must be an admin (--role admin): it manages the others"


def new_password(args: argparse.Namespace, name: str) -> str | None:
    """The new account's password: None with --no-password, one stdin line, or typed twice."""
    if getattr(args, "no_password", False):
        return None
    if args.password_stdin:
        line = sys.stdin.readline()
        if not line.strip():
            raise CliError("--password-stdin: standard input held no password")
        return line.rstrip("\r\n")
    first = read_secret(f"new password for {name}: ")
    if read_secret("again: ") != first:
        raise CliError("the two passwords differ; nothing changed")
    return first


def admin_signed_in(store: AccountStore, args: argparse.Namespace) -> User | None:
    """The admin a users command acts as; None while there is no admin yet (a new installation)."""
    if not any(u.role == "admin" for u in store.list()):
        return None
    name = args.user or os.environ.get(USER_VARIABLE, "").strip()
    if not name:
        raise CliError(f"managing accounts needs an admin: --user NAME (or {USER_VARIABLE})")
    user = sign_in(store, name)
    if user.role != "admin":
        raise CliError(f"only an admin manages accounts; {user.name} is a {user.role}")
    return user


def add(store: AccountStore, args: argparse.Namespace, admin: User | None) -> int:
    """Add an account with a role and a password (or none: it signs in through the OIDC provider)."""
    if admin is None and args.role != "admin":
        raise CliError(FIRST_ADMIN)
    user = store.add(args.name, args.role, new_password(args, args.name))
    how = "with a password" if user.has_password else "signing in through the identity provider only"
    print(f"added {user.name} ({user.role}, {how})")
    return 0


def list_accounts(store: AccountStore, args: argparse.Namespace, admin: User | None) -> int:
    """One line per account: name, role, how it signs in, since when."""
    accounts = store.list()
    if not accounts:
        print("No accounts: the workbench and the CLI act as the one local user. Add the first admin with:")
        print("  python -m research_core users add NAME --role admin")
    for user in accounts:
        how = "password" if user.has_password else "oidc"
        print(f"{user.name:<32} {user.role:<10} {how:<8} {user.created_at or ''}")
    return 0


def remove(store: AccountStore, args: argparse.Namespace, admin: User | None) -> int:
    """Remove an account; its runs stay, still its own (shared ones stay readable)."""
    if not store.remove(args.name):
        raise CliError(f"there is no account named {args.name.strip().lower()}")
    print(f"removed {args.name.strip().lower()}; their runs stay in the database, shared ones readable")
    return 0


def set_role(store: AccountStore, args: argparse.Namespace, admin: User | None) -> int:
    """Give an account another role."""
    user = store.set_role(args.name, args.role)
    print(f"{user.name} is now {user.role}")
    return 0


def passwd(store: AccountStore, args: argparse.Namespace, admin: User | None) -> int:
    """Set an account's password (or, with --no-password, leave it the identity provider's sign-in only)."""
    name = args.name.strip().lower()
    store.set_password(name, new_password(args, name))
    print(f"changed the password of {name}")
    return 0


SUBCOMMANDS = {"add": add, "list": list_accounts, "remove": remove, "set-role": set_role, "passwd": passwd}


def users(args: argparse.Namespace) -> int:
    """Run one users subcommand on the command's database, as an admin once there is one."""
    subcommand = SUBCOMMANDS.get(args.users_command)
    if subcommand is None:
        return EXIT_USAGE
    location = command_location(args)
    if args.users_command != "add" and location.path is not None and not location.path.expanduser().is_file():
        raise CliError(f"no database at {location.path}; add the first account with: users add NAME --role admin")
    store = AccountStore(location)
    try:
        admin = admin_signed_in(store, args)
        return subcommand(store, args, admin)
    except AccountError as exc:
        raise CliError(exc.user_message.rstrip(".")) from None
    finally:
        store.close()
