"""What NVIDIA's firmware tools (MFT `mlxconfig`, `mlxreg`; mstflint's equivalents) print when they
cannot read a NIC: an `-E-` error line (firmware without the register, a device they cannot open),
or the shell's `command not found` where MFT is not installed. What they read is then unknown: no
complaint, as such hosts are common and the rest of the host is still judged."""

from __future__ import annotations

import re

_CANNOT = re.compile(r"^-E- |command not found$", re.M)


def cannot_read(text: str) -> bool:
    """The tool said it cannot read the NIC, or printed nothing."""
    return not text.strip() or _CANNOT.search(text) is not None
