"""Assemble a PDF file from its numbered objects, for tests that need real PDF bytes."""

from __future__ import annotations


def assemble_pdf(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """`objects` as "n 0 obj" 1..N (the first the catalog), with their cross-reference table;
    `trailer`: more trailer entries ("/Info 6 0 R")."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    extra = b" " + trailer if trailer else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, extra, xref)
    return bytes(out)
