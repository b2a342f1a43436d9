"""User-facing input errors: each names the file, the field or line, and what was expected."""

from __future__ import annotations


class InputError(Exception):
    """Bad input or usage. The CLI prints it on one line and exits with code 2."""

    def __init__(self, where: str, expected: str) -> None:
        super().__init__(f"{where}: {expected}")
        self.where = where
        self.expected = expected


class OutputError(Exception):
    """netcfg could not write its output (disk full, I/O error): nothing half-written is kept.

    The CLI prints it on one line and exits with code 4.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: could not write output: {reason}")
        self.path = path
        self.reason = reason
