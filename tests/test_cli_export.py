"""`export RUN_ID --format pdf|docx`: binary exports go to a file or a pipe, never to a terminal."""

from __future__ import annotations

import io
import sys

import docx
import pypdf
import pytest

from research_core.cli.main import main
from research_core.runs.runner import Runner
from tests.test_export import make_result


@pytest.fixture
def export(tmp_path, monkeypatch):
    db = tmp_path / "a.db"
    Runner(db)  # creates the database file
    monkeypatch.setattr(Runner, "result", lambda self, run_id: make_result() if run_id == "run-42ab" else None)

    def run(*args: str) -> int:
        return main(["export", *args, "--db", str(db)])

    return run


def test_pdf_and_docx_are_written_to_the_output_file(export, tmp_path, capsys) -> None:
    pdf, word = tmp_path / "r.pdf", tmp_path / "r.docx"
    assert export("run-42ab", "--format", "pdf", "--output", str(pdf)) == 0
    assert export("run-42ab", "--format", "docx", "--out", str(word)) == 0
    assert capsys.readouterr().out.splitlines() == [f"wrote {pdf}", f"wrote {word}"]
    assert "React vs Vue" in pypdf.PdfReader(pdf).pages[0].extract_text()
    assert docx.Document(word).paragraphs[0].text == "React vs Vue: which should a new team pick?"


class _Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


def test_a_binary_format_is_refused_on_a_terminal_in_one_line(export, monkeypatch, capsys) -> None:
    terminal = _Terminal(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", terminal)
    assert export("run-42ab", "--format", "pdf") == 2
    monkeypatch.undo()
    err = capsys.readouterr().err.strip()
    assert err == "arbor: pdf is a binary format; write it to a file with --output FILE (or pipe it)"
    assert terminal.buffer.getvalue() == b""


def test_a_binary_format_goes_to_a_pipe_as_bytes_and_text_to_standard_output(export, capsysbinary) -> None:
    assert export("run-42ab", "--format", "docx") == 0
    assert capsysbinary.readouterr().out.startswith(b"PK")
    assert export("run-42ab", "--format", "md") == 0
    assert capsysbinary.readouterr().out.startswith(b"# React vs Vue")


def test_an_unfinished_run_is_refused(export, tmp_path, capsys) -> None:
    assert export("other", "--format", "pdf", "--output", str(tmp_path / "x.pdf")) == 2
    assert "has not finished" in capsys.readouterr().err
    assert not (tmp_path / "x.pdf").exists()
