"""Skipping the masking passes over text without a keyword never lets a secret through: for any text,
the platforms' masking equals netutils' sanitize_config with all of their filters."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from netutils.config.clean import sanitize_config

from netcfg.platforms import get_platform
from netcfg.platforms.eos import secrets as eos_secrets
from netcfg.platforms.nxos import secrets as nxos_secrets
from tests.test_nxos import SECRET_LINES as NXOS_LINES
from tests.test_parse_eos import SECRET_LINES as EOS_LINES

CASES = {
    "eos": (eos_secrets.SECRET_FILTERS, EOS_LINES),
    "nxos": (nxos_secrets.SECRET_FILTERS, NXOS_LINES),
}


def lines(secret_lines: list[tuple[str, str]]) -> st.SearchStrategy[str]:
    """Config-like text: words of real secret lines (keywords, types, values) shuffled and cut,
    secret lines and their tails, and noise, over several lines."""
    words = sorted({w for line, _ in secret_lines for w in line.split()} | {"Ethernet1", "0", "up"})
    shuffled = st.lists(st.sampled_from(words), max_size=8).map(" ".join)
    # Every tail of a secret line: a filter that matches mid-line must fire without the line's start.
    tails = sorted({" ".join(line.split()[i:]) for line, _ in secret_lines for i in range(len(line.split()))})
    whole = st.sampled_from(tails)
    indent = st.sampled_from(["", "   ", "      "])
    line = st.tuples(indent, st.one_of(shuffled, whole, st.text(max_size=20))).map("".join)
    return st.lists(line, max_size=6).map("\n".join)


@pytest.mark.parametrize("platform", sorted(CASES))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_masking_equals_every_filter_applied(platform: str, data: st.DataObject):
    filters, secret_lines = CASES[platform]
    text = data.draw(lines(secret_lines))
    assert get_platform(platform).mask_secrets(text) == sanitize_config(text, filters)


@pytest.mark.parametrize("platform", sorted(CASES))
def test_every_secret_line_on_its_own_is_masked(platform: str):
    # Alone, a line must carry one of the keywords itself: no other line lets the passes run.
    for line, secret in CASES[platform][1]:
        assert secret not in get_platform(platform).mask_secrets(line), line
