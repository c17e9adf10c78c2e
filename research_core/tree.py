"""The research tree: the parent and child links between a run's branches, walked in one place.

A run stores its branches as `{id: SubQuestion}` (a plan table as `{id: row}`), each naming
its parent in `parent_id`, and keeps their order apart (`branch_order`). `BranchTree` reads those
links once and answers every question about the tree's shape, by these rules:

- The tree holds the ids of `order` (by default the branches' own order) that are in `branches`,
  each once, at its first place.
- A branch's parent is the branch its `parent_id` names when that branch is in the tree. A branch
  without a parent, or whose parent is not in the tree (an orphan), is a root.
- Siblings, roots included, keep their places in `order`.
- A branch that parent links cannot reach from a root (they run into a cycle) becomes a root
  itself, after the others: the first such branch in order first, then its subtree, and so on.
  So every branch of the tree is reached exactly once and no walk can loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol


class Linked(Protocol):
    """A branch record: it names its parent (a `SubQuestion`)."""

    parent_id: str | None


def parent_named(branch: Linked | Mapping[str, Any]) -> str | None:
    """The parent id a branch record or a row (`{"parent_id": ...}`) names."""
    return branch.get("parent_id") if isinstance(branch, Mapping) else branch.parent_id


class BranchTree:
    """Parents, children and tree order of branches: `{id: SubQuestion}` or rows `{id: {"parent_id": ...}}`."""

    def __init__(
        self, branches: Mapping[str, Linked] | Mapping[str, Mapping[str, Any]], order: Iterable[str] | None = None
    ) -> None:
        ids = list(dict.fromkeys(bid for bid in (branches if order is None else order) if bid in branches))
        members = set(ids)
        self._parent: dict[str, str | None] = {}
        self._children: dict[str, list[str]] = {bid: [] for bid in ids}
        self._roots: list[str] = []
        for bid in ids:
            parent = parent_named(branches[bid])
            parent = parent if parent in members else None
            self._parent[bid] = parent
            (self._roots if parent is None else self._children[parent]).append(bid)
        reached = set(self._subtrees(self._roots))
        for bid in ids:
            if bid not in reached:  # its parent links run into a cycle: cut the link above it
                self._children[self._parent[bid]].remove(bid)  # type: ignore[index]
                self._parent[bid] = None
                self._roots.append(bid)
                reached.update(self._subtrees([bid]))

    def _subtrees(self, tops: Sequence[str]) -> list[str]:
        """`tops` and everything below them, depth-first, each top before its children."""
        out: list[str] = []
        stack = list(reversed(tops))
        while stack:
            bid = stack.pop()
            out.append(bid)
            stack.extend(reversed(self._children[bid]))
        return out

    def roots(self) -> list[str]:
        """The top-level branches, in order (branches cut out of a cycle last)."""
        return list(self._roots)

    def parent(self, bid: str) -> str | None:
        """The parent of `bid`; None for a root or an id not in the tree."""
        return self._parent.get(bid)

    def children(self, bid: str) -> list[str]:
        """The branches directly under `bid`, in order; none for an id not in the tree."""
        return list(self._children.get(bid, []))

    def descendants(self, bid: str) -> list[str]:
        """Everything below `bid` (children, their children …), depth-first; not `bid` itself."""
        return self._subtrees(self._children.get(bid, []))

    def ancestors(self, bid: str) -> list[str]:
        """The parent of `bid`, its parent, … up to the root; none for a root or an id not in the tree."""
        out: list[str] = []
        parent = self._parent.get(bid)
        while parent is not None:
            out.append(parent)
            parent = self._parent[parent]
        return out

    def depth(self, bid: str) -> int:
        """How many levels `bid` sits below the top: 0 for a root."""
        return len(self.ancestors(bid))

    def depth_first(self) -> list[str]:
        """Every branch of the tree in tree order: each root followed by its subtree, siblings in order."""
        return self._subtrees(self._roots)

    def numbers(self) -> dict[str, str]:
        """Outline numbers in tree order: roots 1, 2 …; the children of 1 are 1.1, 1.2 …"""
        place = {bid: n for group in (self._roots, *self._children.values()) for n, bid in enumerate(group, start=1)}
        numbers: dict[str, str] = {}
        for bid in self.depth_first():
            parent = self._parent[bid]
            numbers[bid] = f"{numbers[parent]}.{place[bid]}" if parent is not None else str(place[bid])
        return numbers

    def subtree_end(self, ids: Sequence[str], bid: str) -> int:
        """The index in `ids` (a listing such as the run's order or a plan table's rows) just past
        `bid` and the descendants of it that directly follow it; new children of `bid` go there.

        Raises ValueError when `bid` is not in `ids`.
        """
        below = set(self.descendants(bid))
        end = ids.index(bid) + 1
        while end < len(ids) and ids[end] in below:
            end += 1
        return end
