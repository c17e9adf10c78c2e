"""Places in a document: fragments and labels, and reading a fragment back."""

from __future__ import annotations

import pytest

from research_core.documents.places import Place, place_from_fragment


@pytest.mark.parametrize(
    ("place", "fragment", "label"),
    [
        (Place(kind="page", number=12), "page=12", "p. 12"),
        (Place(kind="slide", number=3), "slide=3", "slide 3"),
        (
            Place(kind="sheet", name="Q1 Sales", first_row=2, last_row=41),
            "sheet=Q1%20Sales&rows=2-41",
            "sheet Q1 Sales, rows 2–41",
        ),
        (Place(kind="sheet", name="", first_row=5, last_row=5), "rows=5-5", "row 5"),
        (
            Place(kind="section", name="Set-up & install"),
            "section=Set-up%20%26%20install",
            "section “Set-up & install”",
        ),
    ],
)
def test_a_place_has_a_fragment_and_a_label_and_reads_back(place: Place, fragment: str, label: str) -> None:
    assert place.fragment() == fragment
    assert place.label() == label
    assert place_from_fragment(fragment) == place


@pytest.mark.parametrize("fragment", ["", ":~:text=hello", "page=x", "top"])
def test_other_fragments_are_no_place(fragment: str) -> None:
    assert place_from_fragment(fragment) is None
