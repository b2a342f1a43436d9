"""User-facing input errors: each names the file, the field or line, and what was expected."""

from __future__ import annotations


class InputError(Exception):
    """Bad input or usage. The CLI prints it on one line and exits with code 2."""

    def __init__(self, where: str, expected: str) -> None:
        super().__init__(f"{where}: {expected}")
        self.where = where
        self.expected = expected
