"""Argument types for the command line: each refuses a value out of range with what was expected.

argparse turns the ArgumentTypeError into `netcfg: error: usage: ...: --option: <message>` (exit 2).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from netcfg.drain import DrainLimit
from netcfg.naming import safe_device_name


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from low to high, or the option's error naming the range."""

    def parse(text: str) -> int:
        if not text.strip().isascii() or not text.strip().isdigit() or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"{text[:20]!r}: expected a whole number from {low} to {high:,}")
        return int(text)

    return parse


def fabric_name(text: str) -> str:
    """An argparse type: a name the inventory accepts."""
    try:
        return safe_device_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def seconds(minimum_excluded: bool, maximum: float | None = None) -> Callable[[str], float]:
    """argparse type: a finite number of seconds, above 0 (`minimum_excluded`) or at least 0, and at
    most `maximum` when one is given."""
    bound = "above 0" if minimum_excluded else "of at least 0"
    if maximum is not None:
        bound += f" and at most {maximum:g}"

    def parse(text: str) -> float:
        wrong = argparse.ArgumentTypeError(f"expected a number of seconds {bound}, got {text!r}")
        try:
            value = float(text)
        except ValueError:
            raise wrong from None
        too_long = maximum is not None and value > maximum
        if not math.isfinite(value) or value < 0 or (minimum_excluded and value == 0) or too_long:
            raise wrong
        return value

    return parse


def drain_limit(text: str) -> DrainLimit:
    """argparse type: `--max-drain` as a number of hosts or a share of them."""
    try:
        return DrainLimit.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
