"""Rules that hold for every input: whatever a naming pattern or a cabling row says, netcfg either
refuses it with an InputError (a ValueError inside the schema) or makes only safe, bounded values."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.cabling import MAX_CABLE_M, MAX_SPEED_GBPS, MIN_SPEED_GBPS, CablingDefaults, read_cabling
from netcfg.errors import InputError
from netcfg.naming import format_name, pattern_of, safe_device_name, safe_interface, safe_netdev

SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
# What hostile patterns are made of: format syntax, separators, a few letters and digits.
PATTERN_TEXT = st.text(alphabet="{}[]!:>.<_-/ sauk019dr", max_size=40)
KINDS = st.sampled_from([safe_device_name, safe_interface, safe_netdev])


@SETTINGS
@given(pattern=PATTERN_TEXT, kind=KINDS, values=st.lists(st.integers(1, 10**5), min_size=3, max_size=3))
def test_a_pattern_makes_safe_bounded_names_or_is_refused(pattern: str, kind, values: list[int]):
    placeholders = ("su", "k", "server")
    try:
        pattern_of(kind, *placeholders)(pattern)
    except ValueError:
        return
    name = format_name(pattern, dict(zip(placeholders, values, strict=True)))
    assert len(name) <= len(pattern) * 6  # no format spec can pad a name to gigabytes
    try:
        kind(name)
    except ValueError:
        return  # the expansion refuses it, naming the pattern
    assert not name.startswith("-") and "\n" not in name and ";" not in name


CELL = st.one_of(
    st.sampled_from(
        ["gpu01", "eth0", "leaf1", "Ethernet1", "400", "3", "nan", "-1", "1e400", "0", "inf", ""]
    ),
    st.text(max_size=12),
)


@SETTINGS
@given(
    rows=st.lists(st.lists(CELL, min_size=4, max_size=7), max_size=4), newline=st.sampled_from(["\n", "\r\n"])
)
def test_a_cabling_row_is_a_sound_link_or_refused(tmp_path: Path, rows: list[list[str]], newline: str):
    header = "device_a,interface_a,device_b,interface_b,speed_gbps,cable_m"
    text = newline.join([header, *(",".join(row) for row in rows)]) + newline
    path = tmp_path / "cabling.csv"
    path.write_text(text, encoding="utf-8", newline="")
    try:
        links = read_cabling(path, CablingDefaults())
    except InputError as exc:
        assert str(exc).startswith(f"{path}:") and "\n" not in str(exc)
        return
    for link, _ in links:
        assert MIN_SPEED_GBPS <= link.speed_gbps <= MAX_SPEED_GBPS
        assert math.isfinite(link.cable_m) and 0 < link.cable_m <= MAX_CABLE_M
        for end in (link.a, link.b):
            safe_device_name(end.device)
            safe_interface(end.interface)
