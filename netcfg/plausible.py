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

from netcfg.model import DeviceState, InterfaceState, PortCounters

# Every counter a switch or NIC keeps is at most 64 bits wide; every port setting netcfg reads (an
# MTU, a cable length, a DSCP, an ECN threshold in bytes) fits in 32.
COUNTER_LIMIT = 2**64
SETTING_LIMIT = 2**32
_SETTINGS = ("mtu", "cable_m", "speed_gbps", "roce_tos", "cnp_dscp", "cnp_priority")
_settings = attrgetter(*_SETTINGS)
_NUMBERS = {int, type(None)}
_SCALARS = (
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
_MAPS = ("pause_rx", "pause_tx", "ecn_marked", "queue_drops", "watchdog_storms")
_scalars, _maps = attrgetter(*_SCALARS), attrgetter(*_MAPS)


@cache
def _overlong(limit: int) -> re.Pattern[str]:
    return re.compile(rf"\d{{{limit + 1},}}")


def overlong_number(text: str) -> tuple[int, int] | None:
    """(line, digits) of the first run of digits in `text` longer than Python turns into a number
    (its guard against quadratic conversion: a parser meeting one raises)."""
    limit = sys.get_int_max_str_digits()
    if not limit:
        return None
    found = _overlong(limit).search(text)
    if found is None:
        return None
    return text.count("\n", 0, found.start()) + 1, found.end() - found.start()


def implausible_counter(state: DeviceState) -> str | None:
    """The first counter of a parsed state that is not a whole number from 0 to 2^64 - 1, said as
    '<port> <counter> reads <value>'."""
    for port, counters in state.counters.items():
        if not _within(counters) and (wrong := _first_wrong(counters)):
            return f"{port} {wrong}"
    return None


def _within(counters: PortCounters) -> bool:
    # Zero and None (not shown) are dropped before the range is asked: both are plausible.
    values = [*filter(None, _scalars(counters))]
    for numbers in _maps(counters):
        values += filter(None, numbers.values())
    if not values:
        return True
    if not all(type(v) is int for v in values):
        return False
    return min(values) > 0 and max(values) < COUNTER_LIMIT


def _first_wrong(counters: PortCounters) -> str | None:
    named = [(name, value) for name, value in zip(_SCALARS, _scalars(counters), strict=True)]
    for name, numbers in zip(_MAPS, _maps(counters), strict=True):
        named += [(f"{name}[{key}]", value) for key, value in numbers.items()]
    for name, value in named:
        if value is not None and not (type(value) is int and 0 <= value < COUNTER_LIMIT):
            return f"{name} reads {_shown(value)}"
    return None


def _shown(value: object) -> str:
    text = str(value)
    return text if len(text) <= 30 else f"{text[:12]}... ({len(text):,} characters)"


def implausible_setting(state: DeviceState) -> tuple[str, str, str] | None:
    """(port, field, what it reads) of the first port setting of a parsed state that is not a whole
    number from 0 to 2^32 - 1 (a parser keeps text it could not read as a number as it was)."""
    for port in state.interfaces.values():
        if not _settings_within(port):
            for name, value in zip(_SETTINGS, _settings(port), strict=True):
                if value is not None and not _setting_ok(value):
                    return port.name, name, _shown(value)
            for queue, ecn in port.ecn.items():
                for name in ("min_bytes", "max_bytes", "probability"):
                    if not _setting_ok(getattr(ecn, name)):
                        return port.name, f"ecn[{queue}].{name}", _shown(getattr(ecn, name))
    return None


def _settings_within(port: InterfaceState) -> bool:
    values = _settings(port)
    if not set(map(type, values)) <= _NUMBERS:
        return False
    if max(filter(None, values), default=0) >= SETTING_LIMIT or min(filter(None, values), default=0) < 0:
        return False
    return all(
        _setting_ok(ecn.min_bytes) and _setting_ok(ecn.max_bytes) and _setting_ok(ecn.probability)
        for ecn in port.ecn.values()
    )


def _setting_ok(value: object) -> bool:
    """A whole number below 2^32, or -1: how parsers say an ECN profile's unit or value is unknown."""
    return type(value) is int and -1 <= value < SETTING_LIMIT
