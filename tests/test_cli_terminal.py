"""What the CLI prints: cleaned streams, and the exit codes after a stop signal."""

from __future__ import annotations

import io
import signal
import sys

from research_core.cli.signals import Stopped, exit_code
from research_core.cli.terminal import CleanStream, clean_for_terminal


def test_exit_codes_follow_the_signal():
    assert exit_code(KeyboardInterrupt()) == 130
    assert exit_code(Stopped(signal.SIGTERM)) == 143
    assert exit_code(Stopped(signal.SIGHUP)) == 129
    assert Stopped(signal.SIGHUP).name == "SIGHUP"


def test_clean_stream_cleans_every_write():
    raw = io.StringIO()
    stream = CleanStream(raw)
    print("\x1b]0;title\x07answer with sk-abcdefghijklmnopqrstuvwxyz at http://u:p@h/v1", file=stream)
    assert raw.getvalue() == "answer with [redacted] at http://h/v1\n"
    assert stream.getvalue() == raw.getvalue()  # everything else is the wrapped stream's
    assert clean_for_terminal("plain") == "plain"
    assert sys.stdout is not stream
