"""Report and Compare pages under AppTest: every export is offered with its MIME type, PDF and Word made on click.

Same setup as tests/test_app_pages.py (tmp database, library documents, scripted LLM server).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass

import docx
import pypdf
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from research_core.output.export import MIME_TYPES
from tests.test_app_compare_history import judged
from tests.test_app_pages import QUESTION, app, button, no_exception, open_page, run_config, runner_for, until


@dataclass
class Offered:
    """One file a download button offers: its name, MIME type, and its data (or the callable making it)."""

    file_name: str
    mime: str
    data: bytes | str | Callable[[], bytes]

    def content(self) -> bytes:
        data = self.data() if callable(self.data) else self.data
        return data if isinstance(data, bytes) else data.encode()


@pytest.fixture
def offered(monkeypatch: pytest.MonkeyPatch) -> list[Offered]:
    """Every file the pages hand to Streamlit's media manager, in order."""
    files: list[Offered] = []
    add, add_deferred = MediaFileManager.add, MediaFileManager.add_deferred

    def record_add(self, data, mimetype, coordinates, file_name=None, is_for_static_download=False):
        files.append(Offered(file_name or "", mimetype, data))
        return add(self, data, mimetype, coordinates, file_name, is_for_static_download)

    def record_deferred(self, callable_, mimetype, coordinates, file_name=None, **kwargs):
        files.append(Offered(file_name or "", mimetype, callable_))
        return add_deferred(self, callable_, mimetype, coordinates, file_name=file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add", record_add)
    monkeypatch.setattr(MediaFileManager, "add_deferred", record_deferred)
    return files


def by_extension(files: list[Offered]) -> dict[str, list[Offered]]:
    out: dict[str, list[Offered]] = {}
    for f in files:
        out.setdefault(f.file_name.rsplit(".", 1)[-1], []).append(f)
    return out


def test_report_page_offers_pdf_and_word_made_on_click(env: dict, offered: list[Offered]) -> None:
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(auto_approve=True))
    at = open_page(app(snap.run_id), "app_pages/report.py")
    no_exception(at)
    assert [d.label for d in at.get("download_button")] == ["Markdown", "HTML", "JSON", "PDF", "Word"]
    files = by_extension(offered)
    for fmt in ("md", "html", "json", "pdf", "docx"):
        assert files[fmt][-1].mime == MIME_TYPES[fmt] and files[fmt][-1].file_name.endswith(f"{snap.run_id}.{fmt}")
    pdf, word = files["pdf"][-1], files["docx"][-1]
    assert callable(pdf.data) and callable(word.data)  # rendered only when the user clicks
    text = " ".join(pypdf.PdfReader(io.BytesIO(pdf.content())).pages[0].extract_text().split())
    assert QUESTION[:30] in text
    document = docx.Document(io.BytesIO(word.content()))
    assert document.paragraphs[0].style.name == "Heading 1" and document.paragraphs[0].text.startswith(QUESTION[:30])


def test_compare_page_offers_both_reports_and_the_judgement_in_every_format(env: dict, offered: list[Offered]) -> None:
    verdict = {"more_complete": "B", "better_organised": "B", "better_supported": "tie", "reasoning": "B has sections."}
    env["scripted"].script["compare_answers"] = [json.dumps(verdict), json.dumps(verdict | {"more_complete": "A"})]
    runner = runner_for(env)
    flat = runner.start(QUESTION, run_config(auto_approve=True, mode="flat"))
    hier = runner.start(QUESTION, run_config(auto_approve=True))
    at = open_page(app(), "app_pages/compare.py")
    at.selectbox(key="compare_left").set_value(flat.run_id)
    at.selectbox(key="compare_right").set_value(hier.run_id).run()
    no_exception(at)
    keys = {d.key for d in at.get("download_button")}
    for side in ("left", "right"):
        assert {f"compare_{side}_dl_{fmt}" for fmt in ("md", "html", "json", "pdf", "docx")} <= keys
    button(at, "Judge the two reports").click().run()
    until(at, judged)
    no_exception(at)
    judgement = [d for d in at.get("download_button") if d.key.startswith("cmp_judgement_")]
    assert [d.label for d in judgement] == ["Markdown", "HTML", "PDF", "Word"]
    files = {f.file_name: f for f in offered if f.file_name.startswith("comparison-")}
    stem = f"comparison-{flat.run_id}-{hier.run_id}"
    assert {name: f.mime for name, f in files.items()} == {
        f"{stem}.{fmt}": MIME_TYPES[fmt] for fmt in ("md", "html", "pdf", "docx")
    }
    assert "More complete: **Right (hierarchical)**" in files[f"{stem}.md"].content().decode()
    pdf_text = " ".join(pypdf.PdfReader(io.BytesIO(files[f"{stem}.pdf"].content())).pages[0].extract_text().split())
    assert "More complete: Right (hierarchical)" in pdf_text and "Cost (USD)" in pdf_text
    word = docx.Document(io.BytesIO(files[f"{stem}.docx"].content()))
    assert word.tables and word.tables[0].rows[1].cells[0].text == "Mode"
    assert runner.result(flat.run_id) is not None and runner.result(hier.run_id) is not None
