"""Exceptions that stop a command. Bad content never raises: it becomes diagnostics."""

from __future__ import annotations


class KbtoolError(Exception):
    """Cannot continue; ``exit_code`` is what the command returns."""

    exit_code = 1


class UsageError(KbtoolError):
    """Bad command line or configuration (exit 2)."""

    exit_code = 2


class ConfigError(UsageError):
    """One or more configuration problems, all reported at once."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))
