"""research_core.sources.passages: splitting a page into passages and ranking them against a question."""

from __future__ import annotations

from research_core.sources.extract import extract_text
from research_core.sources.passages import (
    MIN_PASSAGE_CHARS,
    SEPARATOR,
    joined,
    rank_passages,
    select_passages,
    split_passages,
)
from tests.test_sources_extract import html_page


def wal_text() -> str:
    return extract_text(html_page("sqlite/wal.html")).text


def test_passages_respect_the_size_and_keep_every_word() -> None:
    text = wal_text()
    passages = split_passages(text, 300)
    assert all(len(p) <= 300 for p in passages)
    assert " ".join(" ".join(p.split()) for p in passages).split() == text.split()


def test_a_long_paragraph_is_cut_at_sentences() -> None:
    paragraph = " ".join(f"Sentence number {n} says something about caching." for n in range(40))
    passages = split_passages(paragraph, 200)
    assert len(passages) > 5
    assert all(p.endswith(".") and len(p) <= 200 for p in passages)


def test_a_word_longer_than_a_passage_is_still_cut() -> None:
    passages = split_passages("x" * 1000, 150)
    assert "".join(passages) == "x" * 1000 and max(len(p) for p in passages) <= 150
    assert split_passages("short", 10) == ["short"]  # below the minimum size nothing is cut
    assert MIN_PASSAGE_CHARS == 120


def test_the_passage_that_answers_ranks_first() -> None:
    passages = split_passages(wal_text(), 300)
    best = rank_passages("Do readers block writers in WAL mode?", passages)[0]
    assert "readers do not block writers" in best.text

    best = rank_passages("How does checkpointing work?", passages)[0]  # stemming: checkpointing ~ checkpoint
    assert "checkpoint" in best.text.lower()


def test_selection_fits_the_budget_and_is_empty_without_a_match() -> None:
    text = wal_text()
    chosen = select_passages("Does WAL work over a network filesystem?", text, max_chars=350)
    assert chosen and "network filesystem" in chosen[0].text
    assert len(joined(chosen)) <= 350
    assert select_passages("volcanic eruptions in Iceland", text, max_chars=350) == []


def test_a_passage_longer_than_the_budget_is_shortened() -> None:
    text = "Caching " + "stores answers to reuse them later and avoids repeated work " * 20
    chosen = select_passages("caching", text, max_chars=150, target_chars=600)
    assert len(chosen) == 1 and len(chosen[0].text) <= 150 and chosen[0].text.endswith("…")


def test_several_passages_are_joined_best_first() -> None:
    text = "\n".join(
        [
            "Apples grow on trees in orchards across the region. " * 3,
            "Pears ripen after picking, unlike most fruit. " * 3,
            "Apple harvests peak in autumn, when apples are picked by hand. " * 3,
        ]
    )
    chosen = select_passages("When are apples harvested?", text, max_chars=800, target_chars=200)
    assert next(p.index for p in chosen) == 2 or "harvest" in chosen[0].text
    assert SEPARATOR in joined(chosen)


def test_cjk_questions_are_ranked_by_shared_characters() -> None:
    passages = [
        "東京は日本の首都です。人口が多い。",
        "富士山は日本で一番高い山です。",
        "Paris is the capital of France.",
    ]
    ranked = rank_passages("日本の首都はどこですか", passages)
    assert ranked[0].index == 0
