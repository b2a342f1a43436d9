"""User-facing input errors: each names the file, the field or line, and what was expected."""

from __future__ import annotations


class InputError(Exception):
    """Bad input or usage. The CLI prints it on one line and exits with code 2."""

    def __init__(self, where: str, expected: str) -> None:
        super().__init__(f"{where}: {expected}")
        self.where = where
        self.expected = expected


class OutputError(Exception):
    """Writing a result failed (disk full, I/O error). The CLI prints it on one line and exits 4."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason
