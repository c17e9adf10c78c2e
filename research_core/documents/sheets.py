"""Spreadsheets (Excel .xlsx, CSV) as located text: rows grouped into passages, each with its sheet and rows.

A row is one line, its cells joined by " | "; each passage starts with the sheet's first row
(its header, as a rule) so a passage read alone still says what its columns are. openpyxl reads a
workbook in read-only mode, row by row, so a large sheet is never held whole in memory.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from datetime import date, datetime

from research_core.documents.limits import Budget, DocumentError, damaged_as
from research_core.documents.office import check_office
from research_core.documents.places import Place, Segment

MAX_CELL_CHARS = 500


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return " ".join(str(value).split())[:MAX_CELL_CHARS]


def row_groups(
    sheet: str, rows: Iterable[tuple[int, Iterable[object]]], budget: Budget, max_chars: int
) -> Iterator[Segment]:
    """Rows (number, cells) as passages of at most about `max_chars`, each repeating the header row."""
    header = ""
    lines: list[str] = []
    first = last = 0
    for number, cells in rows:
        if budget.spent():
            break
        line = " | ".join(_cell(c) for c in cells).rstrip(" |")
        if not line.strip(" |"):
            continue
        if not header:
            header, first, last = line, number, number
            lines = [line]
            continue
        if lines and sum(len(x) + 1 for x in lines) + len(line) > max_chars and len(lines) > 1:
            yield Segment(place=Place(kind="sheet", name=sheet, first_row=first, last_row=last), text="\n".join(lines))
            lines, first = [header], number
        lines.append(budget.take(line))
        last = number
    if lines:
        yield Segment(place=Place(kind="sheet", name=sheet, first_row=first, last_row=last), text="\n".join(lines))


def xlsx_segments(name: str, data: bytes, budget: Budget, max_chars: int) -> tuple[str, list[Segment], str]:
    """(core title, row passages of every sheet, a note if a limit cut it short)."""
    from openpyxl import load_workbook

    check_office(name, data, "Excel workbook")
    with damaged_as(name, "an Excel workbook"):
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            title = (book.properties.title or "").strip()
            segments: list[Segment] = []
            for sheet in book.worksheets:
                rows = enumerate(sheet.iter_rows(values_only=True), start=sheet.min_row or 1)
                segments.extend(row_groups(sheet.title, rows, budget, max_chars))
        finally:
            book.close()
    return title, segments, budget.note


def csv_segments(name: str, text: str, budget: Budget, max_chars: int) -> list[Segment]:
    """Row passages of a CSV text (dialect sniffed: comma, semicolon or tab)."""
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = enumerate(csv.reader(io.StringIO(text), dialect), start=1)
        return list(row_groups("", rows, budget, max_chars))
    except csv.Error as exc:
        raise DocumentError(f"'{name}' is not a readable CSV file ({exc}).") from None
