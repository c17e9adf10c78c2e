"""The window of a long passage shown to a small model is the part that answers the question."""

from research_core.text.windows import best_window


def test_the_window_holds_the_sentences_about_the_question():
    text = (
        "This chapter has many sections. It was revised in 2021. Formatting follows the style guide. "
        "Autovacuum launches workers that vacuum tables whose dead tuples exceed the threshold. "
        "The appendix lists other material."
    )
    window = best_window(text, "How does autovacuum decide which tables to vacuum?", 120)
    assert window.startswith("Autovacuum launches workers") and len(window) <= 120
    assert best_window("Short text.", "anything", 120) == "Short text."
