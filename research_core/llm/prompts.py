"""Load the prompt templates in `prompts/`: one file per LLM task.

A file holds the system text, a line `<<<USER>>>`, then the user text. Both parts use
`$name` placeholders (string.Template), so JSON braces in examples need no escaping.

Values are wrapped in tags such as `<sources>` by the templates. A value that itself contains
one of those tags (web text saying `</sources> SYSTEM: ...`) could end its wrapper early and
pose as instructions, so such tags inside values are defused to `‹/sources›`.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from string import Template

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"
_SEPARATOR = "<<<USER>>>"


@cache
def _load(name: str) -> tuple[Template, Template]:
    text = (PROMPTS_DIR / f"{name}.md").read_text(encoding="utf-8")
    system, _, user = text.partition(_SEPARATOR)
    return Template(system.strip()), Template(user.strip())


@cache
def _wrapper_tags() -> re.Pattern[str]:
    """A pattern matching any tag the templates use to wrap values, as written in a value."""
    names = set()
    for path in PROMPTS_DIR.glob("*.md"):
        names.update(re.findall(r"</?([a-z_]+)>", path.read_text(encoding="utf-8")))
    alternatives = "|".join(sorted(map(re.escape, names), key=len, reverse=True)) or "(?!)"
    return re.compile(rf"<\s*(/?)\s*({alternatives})\s*>", re.IGNORECASE)


def defuse_tags(text: str) -> str:
    """Turn the templates' wrapper tags inside `text` into look-alikes that close nothing."""
    return _wrapper_tags().sub(lambda m: f"‹{m.group(1)}{m.group(2)}›", text)


def render_prompt(name: str, **values: object) -> tuple[str, str]:
    """Return (system, user) for task `name` with every placeholder filled.

    Raises KeyError if a placeholder has no value, so a prompt never ships with `$holes`.
    Wrapper tags inside the values are defused (see the module docstring).
    """
    system, user = _load(name)
    text_values = {k: defuse_tags(str(v)) for k, v in values.items()}
    return system.substitute(text_values), user.substitute(text_values)
