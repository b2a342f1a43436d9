"""Rules that hold for every input: whatever a naming pattern or a cabling row says, netcfg either
refuses it with an InputError (a ValueError inside the schema) or makes only safe, bounded values."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcfg.cabling import MAX_CABLE_M, MAX_SPEED_GBPS, MIN_SPEED_GBPS, CablingDefaults, read_cabling
from netcfg.errors import InputError
from netcfg.model import Device, Nic, Role
from netcfg.naming import format_name, pattern_of, safe_device_name, safe_interface, safe_netdev
from netcfg.platforms.linux.host import generic_text

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


def _name_char(ch: str, also: str) -> bool:
    return ch != "" and (ch.isalnum() or ch == "_" or ch in also)


def _whole_word_names(text: str, names: dict[str, str]) -> str:
    """What `generic_text` does to a text without comments, spelled out a character at a time: a NIC
    name is replaced where it stands as a word of its own (a letter, digit, `_`, `.`, `@` or `-` just
    before it, or one of those but `@` just after, keeps it), the longest name first."""
    out, i = [], 0
    longest_first = sorted(names, key=len, reverse=True)
    while i < len(text):
        found = None
        if not _name_char(text[i - 1] if i else "", ".@-"):
            ends = ((name, i + len(name)) for name in longest_first if text.startswith(name, i))
            found = next((name for name, end in ends if not _name_char(text[end : end + 1], ".-")), None)
        if found is None:
            out.append(text[i])
            i += 1
        else:
            out.append(names[found])
            i += len(found)
    return "".join(out)


# NIC names as inventories give them (eth0, ens1f0np0, mlx5_3, bnxt_re0), and text made of their
# pieces and of what stands around names in real outputs.
NETDEV = st.from_regex(r"(eth|ens|enp)[0-9]{1,2}(f[0-9]np[0-9])?", fullmatch=True)
RDMA = st.from_regex(r"(mlx5_|bnxt_re|rocep)[0-9]{1,2}", fullmatch=True)
NAME_TEXT = st.text(alphabet="ethnsfpmlx5_bnxrcoe0129 .:@-/=\n'\"", max_size=200)
AROUND = st.text(alphabet=" @.-_x:/=0", max_size=1)
# Where names stand in the text: (character before, which name, character after).
PLACED = st.lists(st.tuples(AROUND, st.integers(0, 15), AROUND), max_size=8)
NIC_NAMES = st.lists(
    st.tuples(NETDEV, RDMA), min_size=1, max_size=8, unique_by=(lambda p: p[0], lambda p: p[1])
)


@SETTINGS
@given(pairs=NIC_NAMES, text=NAME_TEXT, picks=PLACED)
def test_a_hosts_nic_names_become_placeholders_exactly_where_they_stand_as_words(pairs, text, picks):
    nics = [Nic(rail, netdev, rdma) for rail, (netdev, rdma) in enumerate(pairs, 1)]
    names = {nic.netdev: f"@netdev{i}" for i, nic in enumerate(nics)}
    names |= {nic.rdma_device: f"@rdma{i}" for i, nic in enumerate(nics)}
    # The text holds some of the names too, each between random characters (or none).
    words = list(names)
    text += "".join(before + words[p % len(words)] + after for before, p, after in picks)
    device = Device("gpu01", Role.HOST, "connectx", nics=nics)
    assert generic_text(text, device) == _whole_word_names(text, names)
