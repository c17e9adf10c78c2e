"""The one base class of Arbor's user-facing errors.

An `ArborError` carries `user_message`: one or a few sentences saying what went wrong and what to
do, fit to print in the terminal or show on a page. Callers that report errors to a user catch
`ArborError` and show `user_message`; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class ArborError(Exception):
    """An error whose `user_message` tells the user what went wrong and what to do.

    `str(error)` is the user message unless a subclass gives a more technical `detail`.
    """

    def __init__(self, user_message: str, *, detail: str | None = None):
        super().__init__(user_message if detail is None else detail)
        self.user_message = user_message
