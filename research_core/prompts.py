"""Load the prompt templates in `prompts/`: one file per LLM task.

A file holds the system text, a line `<<<USER>>>`, then the user text. Both parts use
`$name` placeholders (string.Template), so JSON braces in examples need no escaping.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from string import Template

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
_SEPARATOR = "<<<USER>>>"


@cache
def _load(name: str) -> tuple[Template, Template]:
    text = (PROMPTS_DIR / f"{name}.md").read_text(encoding="utf-8")
    system, _, user = text.partition(_SEPARATOR)
    return Template(system.strip()), Template(user.strip())


def render_prompt(name: str, **values: object) -> tuple[str, str]:
    """Return (system, user) for task `name` with every placeholder filled.

    Raises KeyError if a placeholder has no value, so a prompt never ships with `$holes`.
    """
    system, user = _load(name)
    text_values = {k: str(v) for k, v in values.items()}
    return system.substitute(text_values), user.substitute(text_values)


def prompt_names() -> list[str]:
    """Names of all prompt templates."""
    return sorted(p.stem for p in PROMPTS_DIR.glob("*.md"))
