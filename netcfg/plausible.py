"""What no device prints: numbers too long for any parser to read, settings that are not numbers
or wider than a device register, and counters no hardware keeps.

Asked in shared code, before and after a platform parses, so that a garbled or hostile input is
reported once as unreadable (a config file: exit 2 naming its line) instead of crashing a rule (a
5,000-digit MTU, `mtu 1e999` left as text, a CRC count beyond what a float holds) or becoming a
finding about the network.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from operator import attrgetter

from netcfg.model import DeviceState

# Every counter a switch or NIC keeps is at most 64 bits wide; every port setting netcfg reads (an
# MTU, a cable length, a DSCP, an ECN threshold in bytes) fits in 32. Parsers say "unknown" of a
# setting with -1 (an ECN profile's unit), never of a counter.
COUNTERS = range(0, 2**64)
SETTINGS = range(-1, 2**32)
_COUNTERS = (
    "link_downs",
    "fec_corrected",
    "fec_uncorrected",
    "crc_errors",
    "symbol_errors",
    "no_buffer_discards",
    "cnp_sent",
    "cnp_handled",
    "ecn_marked_roce",
    "out_of_buffer",
    "retransmits",
)
_COUNTER_MAPS = ("pause_rx", "pause_tx", "ecn_marked", "queue_drops", "watchdog_storms")
_SETTINGS = ("mtu", "cable_m", "speed_gbps", "roce_tos", "cnp_dscp", "cnp_priority")
_ECN = ("min_bytes", "max_bytes", "probability")
_counters, _counter_maps = attrgetter(*_COUNTERS), attrgetter(*_COUNTER_MAPS)
_settings, _ecn = attrgetter(*_SETTINGS), attrgetter(*_ECN)


@cache
def _overlong(limit: int) -> re.Pattern[str]:
    # Tried only where a run of digits starts: without the lookbehind every digit of every number
    # starts a new attempt, and the scan of a counters output costs twice as much.
    return re.compile(rf"(?<!\d)\d{{{limit + 1}}}\d*")


def overlong_number(text: str) -> tuple[int, int] | None:
    """(line, digits) of the first run of digits in `text` longer than Python turns into a number
    (its guard against quadratic conversion: a parser meeting one raises)."""
    limit = sys.get_int_max_str_digits()
    if not limit or not _may_hold_run(text, limit + 1):
        return None
    found = _overlong(limit).search(text)
    if found is None:
        return None
    return text.count("\n", 0, found.start()) + 1, found.end() - found.start()


def _may_hold_run(text: str, run: int) -> bool:
    """Whether `text` may hold `run` digits in a row: False is certain, True is for the regex to say.

    Any such run covers a whole window of `run // 2` characters that starts at a multiple of it, so
    only those windows are looked at (a few characters each, as a window of text ends at its first
    non-digit), not every character: the regex alone was a tenth of a snapshot check.
    """
    size = max(1, (run + 1) // 2)
    return any(
        text[i].isdecimal() and text[i + size - 1].isdecimal() and text[i : i + size].isdecimal()
        for i in range(0, len(text) - size + 1, size)
    )


def implausible_counter(state: DeviceState) -> str | None:
    """The first counter of a parsed state that is not a whole number from 0 to 2^64 - 1, said as
    '<port> <counter> reads <value>'."""
    for port, counters in state.counters.items():
        shown = [*filter(None, _counters(counters))]
        for numbers in _counter_maps(counters):
            shown += filter(None, numbers.values())
        if not _all_within(shown, COUNTERS):
            named = [*zip(_COUNTERS, _counters(counters), strict=True)]
            for name, numbers in zip(_COUNTER_MAPS, _counter_maps(counters), strict=True):
                named += [(f"{name}[{key}]", value) for key, value in numbers.items()]
            field, value = _first_outside(named, COUNTERS)
            return f"{port} {field} reads {value}"
    return None


def implausible_setting(state: DeviceState) -> tuple[str, str, str] | None:
    """(port, field, what it reads) of the first port setting of a parsed state that is not a whole
    number from -1 to 2^32 - 1 (a parser keeps text it could not read as a number as it was)."""
    for port in state.interfaces.values():
        shown = [*filter(None, _settings(port))]
        for ecn in port.ecn.values():
            shown += filter(None, _ecn(ecn))
        if not _all_within(shown, SETTINGS):
            named = [*zip(_SETTINGS, _settings(port), strict=True)]
            for queue, ecn in port.ecn.items():
                named += [
                    (f"ecn[{queue}].{name}", value) for name, value in zip(_ECN, _ecn(ecn), strict=True)
                ]
            return (port.name, *_first_outside(named, SETTINGS))
    return None


def _all_within(shown: list[object], bounds: range) -> bool:
    """Whether every value is a whole number within `bounds`: asked of a port's values at once, in C,
    as every port of every reading is asked. Callers leave out None (not shown) and zero (always
    plausible)."""
    if not shown:
        return True
    return set(map(type, shown)) == {int} and min(shown) >= bounds.start and max(shown) < bounds.stop


def _first_outside(named: list[tuple[str, object]], bounds: range) -> tuple[str, str]:
    """(name, value as shown) of the first value `_all_within` refused."""
    for name, value in named:
        if value and not (type(value) is int and value in bounds):
            return name, _shown(value)
    raise AssertionError("called only for values _all_within refused")


def _shown(value: object) -> str:
    text = str(value)
    return text if len(text) <= 30 else f"{text[:12]}... ({len(text):,} characters)"
