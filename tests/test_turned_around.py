"""A sentence may not turn around a one-way relation its quote states between two systems."""

from research_core.synthesis.turned_around import turned_around

NAMES = ["PostgreSQL", "SQLite"]
QUOTE = "SQLite features a set of built-in window functions based on those supported by PostgreSQL."


def test_swapping_the_ends_of_based_on_is_refused():
    why = turned_around("PostgreSQL's window functions are based on those supported by SQLite", QUOTE, NAMES)
    assert why and "sqlite based on postgresql" in why


def test_the_same_direction_and_other_wording_pass():
    assert turned_around("SQLite's window functions are based on PostgreSQL's", QUOTE, NAMES) is None
    assert turned_around("The SQLite developers read PostgreSQL's documentation", QUOTE, NAMES) is None


def test_a_comparative_turned_around_is_refused_but_a_two_way_relation_is_not():
    quote = "SQLite needs less memory than PostgreSQL for small databases."
    assert turned_around("PostgreSQL needs less memory than SQLite for small databases", quote, NAMES)
    assert turned_around("PostgreSQL works with SQLite files", "SQLite works with PostgreSQL dumps", NAMES) is None
