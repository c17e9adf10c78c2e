"""BranchTree: parents, children, tree order and outline numbers of a run's branches."""

from __future__ import annotations

import pytest

from research_core.tree import BranchTree


def links(**parents: str | None) -> dict[str, dict]:
    """Branches as the state stores them, reduced to their parent links."""
    return {bid: {"parent_id": parent, "question_text": bid} for bid, parent in parents.items()}


@pytest.fixture
def tree() -> BranchTree:
    # a          1
    #   a_1      1.1
    #     a_1_1  1.1.1
    #   a_2      1.2
    # b          2
    #   b_1      2.1
    return BranchTree(links(a=None, a_1="a", b=None, a_2="a", b_1="b", a_1_1="a_1"))


def test_depth_first_puts_children_after_their_parent_and_keeps_sibling_order(tree):
    assert tree.depth_first() == ["a", "a_1", "a_1_1", "a_2", "b", "b_1"]
    assert tree.roots() == ["a", "b"]
    assert tree.children("a") == ["a_1", "a_2"]
    assert tree.children("a_1_1") == []


def test_numbers_are_outline_numbers_in_tree_order(tree):
    numbers = tree.numbers()
    assert numbers == {"a": "1", "a_1": "1.1", "a_1_1": "1.1.1", "a_2": "1.2", "b": "2", "b_1": "2.1"}
    assert list(numbers) == tree.depth_first()


def test_descendants_ancestors_parent_and_depth(tree):
    assert tree.descendants("a") == ["a_1", "a_1_1", "a_2"]
    assert tree.descendants("b_1") == []
    assert tree.ancestors("a_1_1") == ["a_1", "a"]
    assert tree.ancestors("a") == []
    assert tree.parent("a_1") == "a" and tree.parent("b") is None
    assert [tree.depth(b) for b in ("a", "a_1", "a_1_1")] == [0, 1, 2]


def test_unknown_ids_have_no_relatives(tree):
    assert tree.children("zz") == [] and tree.descendants("zz") == []
    assert tree.ancestors("zz") == [] and tree.parent("zz") is None


def test_the_order_decides_sibling_places_not_the_dict():
    branches = links(a=None, b=None, a1="a", a2="a")
    tree = BranchTree(branches, ["b", "a2", "a", "a1"])
    assert tree.depth_first() == ["b", "a", "a2", "a1"]
    assert tree.numbers() == {"b": "1", "a": "2", "a2": "2.1", "a1": "2.2"}


def test_the_tree_holds_only_ids_of_the_order_that_are_branches_each_once():
    branches = links(a=None, b=None, c=None)
    tree = BranchTree(branches, ["c", "gone", "a", "c"])
    assert tree.depth_first() == ["c", "a"]
    assert tree.numbers() == {"c": "1", "a": "2"}


def test_an_orphan_is_a_root_in_its_place():
    tree = BranchTree(links(a=None, o="missing", b=None, o1="o"))
    assert tree.roots() == ["a", "o", "b"]
    assert tree.numbers() == {"a": "1", "o": "2", "o1": "2.1", "b": "3"}
    assert tree.ancestors("o1") == ["o"]


def test_a_parent_left_out_of_the_order_makes_its_children_roots():
    tree = BranchTree(links(a=None, a1="a"), ["a1"])
    assert tree.roots() == ["a1"] and tree.parent("a1") is None


@pytest.mark.parametrize(
    ("parents", "numbers"),
    [
        # a two-branch cycle after a real root: the first of the cycle becomes a root, after it
        ({"r": None, "x": "y", "y": "x"}, {"r": "1", "x": "2", "y": "2.1"}),
        # a branch pointing at itself
        ({"s": "s", "r": None}, {"r": "1", "s": "2"}),
        # a branch hanging below a cycle comes first in the order: it is cut, then the cycle
        ({"h": "x", "x": "y", "y": "x"}, {"h": "1", "x": "2", "y": "2.1"}),
        # a cycle with a child of its own: the child keeps its first place under its parent
        ({"x": "y", "y": "x", "c": "y"}, {"x": "1", "y": "1.1", "c": "1.1.1"}),
    ],
)
def test_cycles_are_cut_so_every_branch_is_reached_once(parents, numbers):
    tree = BranchTree(links(**parents))
    assert tree.numbers() == numbers
    assert sorted(tree.depth_first()) == sorted(parents)
    for bid in parents:
        assert bid not in tree.ancestors(bid)
        assert bid not in tree.descendants(bid)


def test_subtree_end_is_past_the_descendants_that_follow_the_branch():
    tree = BranchTree(links(a=None, a1="a", a11="a1", b=None, a2="a"))
    order = ["a", "a1", "a11", "b", "a2"]
    assert tree.subtree_end(order, "a") == 3  # a2 sits after b: not part of the run after a
    assert tree.subtree_end(order, "a1") == 3
    assert tree.subtree_end(order, "b") == 4
    assert tree.subtree_end(["a", "", "a1"], "a") == 1  # an unnamed row ends the run
    with pytest.raises(ValueError):
        tree.subtree_end(order, "zz")


def test_an_empty_tree():
    tree = BranchTree({}, ["a"])
    assert tree.depth_first() == [] and tree.numbers() == {} and tree.roots() == []
