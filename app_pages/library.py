"""Library: add your own documents to search alongside (or instead of) the web."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from research_core.accounts import permissions
from research_core.errors import ArborError
from research_core.search.library import LibraryError
from ui import accounts, services, state
from ui.widgets import esc, shorten

ALLOWED = ("md", "markdown", "txt", "html", "htm", "pdf", "docx", "pptx", "xlsx", "csv")
MAX_UPLOAD_MB = 50

st.title("Library")
st.caption(
    "Documents you add here are indexed in the local database and searched by runs that use the "
    "“Document library” backend."
)

try:
    library = services.get_library()
except Exception as exc:  # an unreadable database
    st.error(f"The library could not be opened: {esc(exc)}")
    st.stop()

state.init_state({"lib_uploader_version": 0, "lib_messages": [], "lib_query": ""})


for kind, message in st.session_state["lib_messages"]:
    {"ok": st.success, "note": st.warning}.get(kind, st.error)(message)
st.session_state["lib_messages"] = []

edits = accounts.allowed(permissions.may_edit_library)  # viewers search and list; researchers and admins edit
if not edits:
    st.caption("Your role searches and lists the library; a researcher or an admin adds and removes documents.")


def add_documents() -> None:
    """The uploader and its button: index each file, then say how it went."""
    uploads = st.file_uploader(
        "Markdown, text, HTML, PDF, Word, PowerPoint, Excel or CSV files",
        type=list(ALLOWED),
        accept_multiple_files=True,
        key=f"lib_uploader_{st.session_state['lib_uploader_version']}",
        max_upload_size=MAX_UPLOAD_MB,
    )
    if st.button("Add to library", type="primary", icon=":material/upload:", key="lib_add", disabled=not uploads):
        messages: list[tuple[str, str]] = []
        for upload in uploads or []:
            try:
                doc = library.add_bytes(upload.name, upload.getvalue())
            except LibraryError as exc:
                messages.append(("error", esc(exc)))
            except Exception as exc:  # a parser failure on a damaged file
                messages.append(("error", f"{esc(upload.name)}: could not be read ({esc(exc)})."))
            else:
                messages.append(("ok", f"Added {esc(upload.name)} ({doc.chars:,} characters)."))
                if doc.note:
                    messages.append(("note", f"{esc(upload.name)}: {esc(doc.note)}"))
        st.session_state["lib_messages"] = messages
        st.session_state["lib_uploader_version"] += 1
        st.rerun()


if edits:
    st.subheader("Add documents")
    add_documents()


def remove_document(titles: dict[str, str]) -> None:
    """Pick an indexed document and remove it."""
    with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
        doomed = st.selectbox("Remove a document", list(titles), format_func=titles.__getitem__, key="lib_remove_pick")
        if st.button("Remove", icon=":material/delete:", key="lib_remove"):
            removed = library.remove(doomed)
            gone = ("ok", f"Removed {esc(titles[doomed])}.")
            st.session_state["lib_messages"] = [gone if removed else ("error", "That document was already removed.")]
            st.rerun()


st.subheader("Indexed documents")
documents = list(library.list_documents())
if not documents:
    st.info("No documents yet." + (" Add some above." if edits else ""), icon=":material/library_books:")
else:
    frame = pd.DataFrame(
        [
            {
                "id": d.id,
                "title": d.title or d.name,
                "kind": d.kind,
                "characters": d.chars,
                "added": d.added_at[:16].replace("T", " "),
                "note": d.note,
            }
            for d in documents
        ]
    )
    st.dataframe(frame, hide_index=True, width="stretch", key="lib_documents")
    titles = {row["id"]: f"{shorten(row['title'], 70)} ({row['id']})" for row in frame.to_dict("records")}
    if edits:
        remove_document(titles)

st.subheader("Search the library")
query = st.text_input("Search terms", key="lib_query", placeholder="e.g. write-ahead logging")
if query.strip():
    try:
        results = library.search(query, 10)
    except ArborError as exc:  # a query the full-text index rejects
        st.error(f"The search failed: {esc(exc.user_message or exc)}")
        results = []
    except Exception as exc:
        st.error(f"The search failed: {esc(exc)}")
        results = []
    if not results:
        st.caption("No matches.")
    for source in results:
        with st.container(border=True):
            st.markdown(f"**{esc(source.title or source.url)}** :gray[· relevance {source.relevance:.2f}]")
            st.caption(esc(shorten(source.snippet or "", 400)))
