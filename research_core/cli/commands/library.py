"""The library commands: add documents, search them, list them, remove one.

They work on the database alone: no Runner and no LLM.
"""

from __future__ import annotations

import argparse
import sys

from research_core.cli.errors import EXIT_USAGE, CliError
from research_core.search.library import DocumentLibrary, LibraryError
from research_core.storage.location import locate


def add(lib: DocumentLibrary, args: argparse.Namespace) -> int:
    """Index each file; a file that cannot be read is reported and the exit code is 2 (the others are added).

    A file indexed only in part (a reading limit, pages without text) is added, with one line saying so.
    """
    failures = 0
    for path in args.paths:
        try:
            doc = lib.add_file(path)
            print(f"added {doc.id}  {path}  ({doc.chars:,} characters)")
            if doc.note:
                print(f"arbor: {path}: {doc.note}", file=sys.stderr)
        except (LibraryError, OSError) as exc:
            failures += 1
            print(f"arbor: {path}: {exc}", file=sys.stderr)
    return EXIT_USAGE if failures else 0


def search(lib: DocumentLibrary, args: argparse.Namespace) -> int:
    """Print the best matches of the search terms, with their relevance, title, location and snippet."""
    for s in lib.search(args.terms, args.limit):
        print(f"[{s.relevance:.2f}] {s.title}  {s.url}\n    {s.snippet[:200]}")
    return 0


def list_documents(lib: DocumentLibrary, args: argparse.Namespace) -> int:
    """One line per indexed document: id, title, kind and size."""
    for d in lib.list_documents():
        print(f"{d.id}  {d.title}  ({d.kind}, {d.chars:,} characters)")
    return 0


def remove(lib: DocumentLibrary, args: argparse.Namespace) -> int:
    """Remove a document by id; an unknown id is a CliError."""
    if not lib.remove(args.doc_id):
        raise CliError(f"no document with id {args.doc_id!r}")
    print(f"removed {args.doc_id}")
    return 0


SUBCOMMANDS = {"add": add, "search": search, "list": list_documents, "remove": remove}


def library(args: argparse.Namespace) -> int:
    """Run one library subcommand on the command's database."""
    lib = DocumentLibrary(locate(args.db))
    subcommand = SUBCOMMANDS.get(args.library_command)
    return subcommand(lib, args) if subcommand is not None else EXIT_USAGE
