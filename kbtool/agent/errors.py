"""What a tool answers when it cannot do what it was asked: a message for a model to act on."""

from __future__ import annotations


class Refused(Exception):
    """The request cannot be done as asked; the message says what is wrong (the path, the
    reason) and what to try instead. The server answers it as the tool's error."""


def refuse_unless(condition: bool, message: str) -> None:
    if not condition:
        raise Refused(message)
