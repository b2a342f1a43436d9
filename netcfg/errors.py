"""User-facing errors: each names the file, the field or line, and what was expected or went wrong."""

from __future__ import annotations

import signal


class InputError(Exception):
    """Bad input or usage. The CLI prints it on one line and exits with code 2."""

    def __init__(self, where: str, expected: str) -> None:
        super().__init__(f"{where}: {expected}")
        self.where = where
        self.expected = expected

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str]]:
        # Raised in worker processes (a snapshot parsed beside another) and re-raised in the parent.
        return InputError, (self.where, self.expected)


class OutputError(Exception):
    """netcfg could not write its output (disk full, no permission, ...): nothing half-written is kept.

    The CLI prints it on one line and exits with code 4.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: could not write output: {reason}")
        self.path = path
        self.reason = reason

    def __reduce__(self) -> tuple[type[OutputError], tuple[str, str]]:
        # Raised in collector processes and re-raised in the parent: pickle the arguments, not the text.
        return OutputError, (self.path, self.reason)

    @classmethod
    def from_os_error(cls, path: object, exc: OSError) -> OutputError:
        return cls(str(path), exc.strerror or exc.__class__.__name__)


class Interrupted(BaseException):
    """SIGINT or SIGTERM stopped a run; whatever it had half-written has been removed.

    A BaseException like KeyboardInterrupt, so that no `except Exception` swallows it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """What a shell reports for a process ended by this signal: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + self.signum
