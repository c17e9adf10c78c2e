"""What the command line prints: text cleaned for a terminal, key-like strings and URL credentials removed.

Model answers, web titles and plan texts are untrusted: an ANSI or OSC escape sequence in them
could recolour the output, retitle the window, plant a hyperlink or move the cursor over earlier
lines. `clean_output_streams` wraps stdout and stderr for the duration of a command, so every
line the CLI prints (its own messages, the model's text, log lines) passes through
`clean_for_terminal` without each `print` having to remember it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from research_core.text.sanitize import redact_secrets, strip_terminal_escapes, strip_url_secrets_in_text


def clean_for_terminal(text: str) -> str:
    """`text` without escape sequences, control or bidi characters, key-like strings or credentials in
    URLs (a third-party client's log line may carry the endpoint's URL with its user:password@)."""
    return redact_secrets(strip_url_secrets_in_text(strip_terminal_escapes(text)))


class CleanStream:
    """A text stream that cleans everything written to it with `clean_for_terminal`."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def write(self, text: str) -> int:
        """Write the cleaned text; returns the length of the text given, as streams do."""
        self._stream.write(clean_for_terminal(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        """Write each line cleaned."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def clean_output_streams() -> Iterator[None]:
    """Route `sys.stdout` and `sys.stderr` through `CleanStream` until the block ends."""
    saved = sys.stdout, sys.stderr
    sys.stdout = CleanStream(saved[0])  # type: ignore[assignment]
    sys.stderr = CleanStream(saved[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
