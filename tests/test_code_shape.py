"""Code shape: no function over 60 lines and no module over 400 lines in the engine, the UI and the pages,
and shared leaves (text helpers, sanitising, document parsing, support measures) at the bottom.

A long function that decides many things is a sequence of named steps waiting to be written; a
long module holds several concepts. What is still over a limit is listed in `ALLOWED` with the
reason, and an entry that no longer is must go. `python -m tests.test_code_shape` lists every
function and module over the limits. A package does not import a sibling for a helper: the
leaves it needs live in `research_core/text` or `research_core/documents`, which import nothing above them.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("research_core", "ui", "app_pages")
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 400

# "path" for a module, "path::Class.function" for a function: why it is still over the limit.
ALLOWED: dict[str, str] = {
    "research_core/llm/local_model.py": "the model's assembly and its llama.cpp server, one module; not split here",
    "research_core/output/export.py": "Markdown, HTML and JSON exports in one module; not split here",
}


# A leaf package: the research_core packages its modules may import (its own included).
LEAVES: dict[str, tuple[str, ...]] = {
    "research_core/text": ("research_core.text",),
    "research_core/documents": ("research_core.documents", "research_core.text"),
}


def long_functions(tree: ast.Module) -> list[tuple[str, int]]:
    """(qualified name, lines) of every function in `tree`, methods and nested functions included."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                found.append((name, (child.end_lineno or child.lineno) - child.lineno + 1))
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def over_the_limits() -> dict[str, int]:
    """Every module over `MAX_MODULE_LINES` and function over `MAX_FUNCTION_LINES`, with its lines."""
    over: dict[str, int] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            lines = len(text.splitlines())
            if lines > MAX_MODULE_LINES:
                over[rel] = lines
            for name, length in long_functions(ast.parse(text, filename=rel)):
                if length > MAX_FUNCTION_LINES:
                    over[f"{rel}::{name}"] = length
    return over


def test_no_function_or_module_is_over_the_limits_unless_allowed_with_a_reason() -> None:
    over = over_the_limits()
    new = {key: lines for key, lines in over.items() if key not in ALLOWED}
    assert not new, "over the limits (split into named steps or modules by concept): " + ", ".join(
        f"{key} ({lines} lines)" for key, lines in new.items()
    )


def test_the_allow_list_names_only_what_is_still_over_the_limits() -> None:
    stale = [key for key in ALLOWED if key not in over_the_limits()]
    assert not stale, f"within the limits now; remove from ALLOWED: {stale}"
    assert all(reason.strip() for reason in ALLOWED.values())


def test_functions_are_measured_from_def_to_last_line_with_their_class() -> None:
    tree = ast.parse("class A:\n    def f(self):\n        def g():\n            pass\n        return g\n")
    assert long_functions(tree) == [("A.f", 4), ("A.f.g", 2)]


def imported(path: Path) -> set[str]:
    """Every module `path` imports (a `from a import b` counts as `a` and `a.b`), nested imports included."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def imports_under(package: str, prefix: str) -> dict[str, list[str]]:
    """The modules of `package` (a folder, or one .py file) that import `prefix` or a module under it."""
    root = ROOT / package
    paths = [root] if root.suffix == ".py" else sorted(root.rglob("*.py"))
    found: dict[str, list[str]] = {}
    for path in paths:
        hits = sorted(n for n in imported(path) if n == prefix or n.startswith(f"{prefix}."))
        if hits:
            found[path.relative_to(ROOT).as_posix()] = hits
    return found


def test_shared_leaves_import_no_package_above_them() -> None:
    for package, allowed in LEAVES.items():
        upward = {
            module: [n for n in names if not any(n == a or n.startswith(f"{a}.") for a in allowed)]
            for module, names in imports_under(package, "research_core").items()
        }
        assert not {m: n for m, n in upward.items() if n}, f"{package} imports above itself: {upward}"


def test_packages_take_their_helpers_from_the_leaves_not_from_a_sibling() -> None:
    assert not imports_under("research_core/configuration.py", "research_core.output")
    assert not imports_under("research_core/synthesis", "research_core.research.evidence")
    assert not imports_under("research_core/sources", "research_core.search.library")


def test_an_import_is_read_with_the_names_it_takes(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import a.b\nfrom c import d\n\ndef f():\n    from e.f import g\n", encoding="utf-8")
    assert imported(module) == {"a.b", "c", "c.d", "e.f", "e.f.g"}


if __name__ == "__main__":
    for key, lines in over_the_limits().items():
        print(f"{lines:5d}  {key}" + ("  (allowed)" if key in ALLOWED else ""))
