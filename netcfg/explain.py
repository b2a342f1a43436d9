"""`render --explain`: the PFC headroom each lossless port needs, and where it comes from."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from netcfg.headroom import headroom
from netcfg.model import Fabric, port_ranges
from netcfg.policy import Policy


def explain_headroom(fabric: Fabric, policy: Policy, devices: list[str] | None, console: Console) -> None:
    """One row per distinct (speed, cable, MTU) per device: NIC ports and switch ports alike."""
    table = Table(
        title="PFC headroom per lossless port, bytes: frame + cable round trip + peer response + peer frame"
    )
    for col in (
        "device",
        "ports",
        "speed",
        "cable",
        "MTU",
        "frame",
        "cable RTT",
        "peer",
        "peer frame",
        "headroom",
    ):
        table.add_column(col, justify="right" if col not in ("device", "ports") else "left")
    for name, device in fabric.devices.items():
        if devices and name not in devices:
            continue
        groups: dict[tuple, list[str]] = {}
        mtu = policy.mtu.switch if device.is_switch else policy.mtu.host
        for local, link, _ in fabric.links_of(name):
            groups.setdefault((link.speed_gbps, link.cable_m), []).append(local.interface)
        for (speed, cable), ports in sorted(groups.items()):
            h = headroom(speed, cable, mtu)
            table.add_row(
                name,
                port_ranges(ports),
                f"{speed}G",
                f"{cable:g} m",
                str(mtu),
                f"{h.local_frame:,}",
                f"{h.cable_round_trip:,}",
                f"{h.peer_response:,}",
                f"{h.peer_frame:,}",
                f"{h.bytes:,} B",
            )
    console.print(table)
    console.print(
        "EOS sizes lossless headroom itself; ConnectX derives it from `mlnx_qos --cable_len`, "
        "which the host script sets. Compare these figures with the platform's allocation."
    )
