"""One time budget shared by every step of a run, so that the run as a whole ends in time."""

from __future__ import annotations

import time


class Deadline:
    """`seconds` from now, on the monotonic clock (a wall-clock jump neither ends nor extends it)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._ends = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(0.0, self._ends - time.monotonic())

    def passed(self) -> bool:
        return self.remaining() <= 0.0

    def why(self, what: str) -> str:
        """The reason a step did not finish, as the one-line result shows it."""
        return f"{what}: not done within the {self.seconds:g} s deadline (--deadline)"
