"""The NIC's RoCE acceleration register as `mlxreg` prints it: whether the NIC treats every queue
pair as adaptively routed and so places RoCE packets that arrive out of order.

NVIDIA documents the read (`mlxreg -d <device> --yes --reg_name ROCE_ACCL --get`) and its output, a
`Field Name | Data` table of hex values, in "Adaptive Retransmission: Parameters Control", Sample
Usage; `adaptive_routing_forced_en` is one of its rows. Out-of-order data placement is what lets a
ConnectX-5 or later RC queue pair take packets of one message in any order (MLNX_OFED / DOCA
"Out-of-Order (OOO) Data Placement"). The form netcfg sends names the NIC by its RDMA device, as
published NIC setup scripts do. netcfg renders no `--set`: no vendor page shows that form.
"""

from __future__ import annotations

import re
from functools import lru_cache

from netcfg.model import InterfaceState, Nic
from netcfg.platforms.base import Command
from netcfg.platforms.connectx.mft import cannot_read

FIELD = "adaptive_routing_forced_en"
READ_ONLY = r"mlxreg -d [A-Za-z0-9][A-Za-z0-9_.:-]* --yes --reg_name ROCE_ACCL --get"
_TABLE = re.compile(r"^Field Name\s*\|\s*Data\s*$", re.M)
_ROW = re.compile(rf"^\s*{FIELD}\s*\|[ \t]*(\S*)\s*$", re.M)
# The flag is one bit: mlxreg prints it in hex (`0x00000001`, NVIDIA's sample); decimal is read too.
_FLAG = re.compile(r"(?:0x)?0*([01])")


# Commands are cached by NIC: a fabric's servers have the same few NICs, and reading a snapshot
# asks for each NIC's commands by name for every server.
@lru_cache(maxsize=256)
def roce_accl_command(nic: Nic) -> Command:
    return Command(
        f"mlxreg -d {nic.rdma_device} --yes --reg_name ROCE_ACCL --get",
        f"roce_accl_{nic.netdev}",
        optional=True,
    )


@lru_cache(maxsize=64)
def read_reorder_tolerance(text: str | None) -> tuple[bool | None, str | None]:
    """(whether the register shows adaptive routing forced on, why the output is unreadable).

    Unknown, and no complaint, where nothing was read or the tool says it cannot: no output, MFT's
    `-E-` error (firmware without the register), the shell's `command not found` (no MFT), or the
    register's table without this row (older firmware). Any other text is unreadable, and so is the
    row with a value other than 0 or 1. Cached: the register names no NIC, so a fabric's NICs print
    a few texts between them."""
    if text is None:
        return None, None
    found = _ROW.search(text)
    if found is not None:
        flag = _FLAG.fullmatch(found.group(1))
        if flag is None:  # not what the register holds: a damaged line, say
            return None, f"{FIELD} reads {found.group(1)[:40]!r}; expected 0x00000000 or 0x00000001"
        return flag[1] == "1", None
    if cannot_read(text) or _TABLE.search(text):
        return None, None
    return None, f"no {FIELD} row; expected mlxreg's `Field Name | Data` table of ROCE_ACCL"


def render_register(port: InterfaceState) -> str:
    """The register of a NIC in this state, as mlxreg prints it (the rows of NVIDIA's sample)."""
    forced = 1 if port.reorder_tolerant else 0
    rows = [
        ("roce_adp_retrans_field_select", 1),
        ("roce_tx_window_field_select", 1),
        ("roce_slow_restart_field_select", 1),
        ("adaptive_routing_forced_en_field_select", 1),
        ("selective_repeat_forced_en_field_select", 1),
        ("roce_adp_retrans_en", 1),
        ("roce_tx_window_en", 0),
        ("roce_slow_restart_en", 1),
        (FIELD, forced),
        ("selective_repeat_forced_en", 0),
    ]
    table = "\n".join(f"{name:<44}| 0x{value:08x}" for name, value in rows)
    return f"Sending access register...\n\nField Name{' ' * 34}| Data\n{'=' * 60}\n{table}\n{'=' * 60}\n"
