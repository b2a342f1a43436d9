"""Link state, PCIe link and counters of a Linux host's RoCE NICs, whatever their make.

Per NIC, three read-only commands (counter commands: snapshots leave them out of fingerprints):
`ethtool IF` (`Link detected:`, `Speed:`), `ethtool -S IF` (the driver's own counter names) and one
`grep -rH .` of the NIC's PCIe link files and its RDMA `hw_counters` folder. The names differ per
driver (`CounterNames`, given by the host platform); the shapes do not.

These outputs differ on every host and at every reading, so unlike the settings they cannot be
parsed once for thousands of servers: they are read with plain regular expressions (TTP would cost
most of a fabric's parse time).

An empty output means the command was not collected (a snapshot taken before netcfg read counters,
or a lab NIC whose state has none): nothing is known and nothing is reported. Output that is there
but cannot be read goes in `state.unparsed` and drops the facet it carries ("link", "counters").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from netcfg.model import Device, DeviceState, InterfaceState, Nic, PcieLink, PortCounters
from netcfg.platforms.base import Command
from netcfg.platforms.linux import host
from netcfg.templating import template

TEMPLATES = "linux_host"
PRIORITIES = range(8)
PCIE_FILES = ("current_link_width", "max_link_width", "current_link_speed", "max_link_speed")
ETHTOOL_LINK_READ_ONLY = r"ethtool [A-Za-z0-9][A-Za-z0-9_.:-]*"
ETHTOOL_STATS_READ_ONLY = r"ethtool -S [A-Za-z0-9][A-Za-z0-9_.:-]*"
# The read-only commands every Linux GPU server answers, whatever its NICs (each NIC platform adds
# its own QoS read-back tool).
HOST_READ_ONLY = (
    host.ETHTOOL_READ_ONLY,
    ETHTOOL_LINK_READ_ONLY,
    ETHTOOL_STATS_READ_ONLY,
    host.GREP_READ_ONLY,
    host.LLDP_READ_ONLY,
    host.GID_READ_ONLY,
)


# Commands are cached by NIC: a fabric's servers have the same few NICs, and reading a snapshot
# asks for each NIC's commands by name for every server.
@lru_cache(maxsize=256)
def link_command(nic: Nic) -> Command:
    return Command(f"ethtool {nic.netdev}", f"link_{nic.netdev}", counters=True)


@lru_cache(maxsize=256)
def stats_command(nic: Nic) -> Command:
    return Command(f"ethtool -S {nic.netdev}", f"stats_{nic.netdev}", counters=True)


def hw_counters_folder(nic: Nic) -> str:
    return f"/sys/class/infiniband/{nic.rdma_device}/ports/1/hw_counters"


def pcie_path(nic: Nic, name: str) -> str:
    return f"/sys/class/net/{nic.netdev}/device/{name}"


@lru_cache(maxsize=256)
def sysfs_counters_command(nic: Nic) -> Command:
    paths = [pcie_path(nic, name) for name in PCIE_FILES] + [hw_counters_folder(nic)]
    return Command("grep -rH . " + " ".join(paths), f"hw_counters_{nic.netdev}", counters=True)


def nic_counter_commands(nic: Nic) -> list[Command]:
    return [link_command(nic), stats_command(nic), sysfs_counters_command(nic)]


@dataclass(frozen=True, slots=True)
class CounterNames:
    """How one NIC driver names the counters the model holds.

    `stats`: `ethtool -S` name -> PortCounters field (an int); `per_priority`: PortCounters map
    field -> the `ethtool -S` name with `{p}` for the PFC priority; `hw`: RDMA `hw_counters` file ->
    PortCounters field (several kernels' names may give one field; the first listed is rendered);
    `hw_folder`: the files the driver's hw_counters folder holds, in the order the lab prints them.
    """

    stats: Mapping[str, str]
    per_priority: Mapping[str, str]
    hw: Mapping[str, str]
    hw_folder: tuple[str, ...]
    # The `ethtool -S` lines of the names above: a ConnectX with 64 channels prints thousands of
    # lines, of which netcfg reads a few dozen.
    stats_lines: re.Pattern[str] = field(init=False, repr=False, compare=False)
    # (map field, ((priority, `ethtool -S` name), ...)) of `per_priority`, spelled out once.
    priority_names: tuple[tuple[str, tuple[tuple[int, str], ...]], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        names = [re.escape(n) for n in self.stats]
        names += [re.escape(p).replace(re.escape("{p}"), "[0-7]") for p in self.per_priority.values()]
        # Matched from the newline before each line (the text is read with one put in front): a
        # literal the regex engine searches for, where `^` is tried at every character.
        pattern = rf"\n[ \t]+({'|'.join(names)}): (\d+)[ \t]*(?=\n|\Z)"
        object.__setattr__(self, "stats_lines", re.compile(pattern))
        spelled = tuple(
            (attribute, tuple((p, pattern.format(p=p)) for p in PRIORITIES))
            for attribute, pattern in self.per_priority.items()
        )
        object.__setattr__(self, "priority_names", spelled)

    def render_names(self) -> dict[str, str]:
        """PortCounters field -> the hw_counters file the lab prints it in (the first name listed)."""
        out: dict[str, str] = {}
        for name, attribute in self.hw.items():
            out.setdefault(attribute, name)
        return out


# --- parse ------------------------------------------------------------------------------------------

_LINK_DETECTED = re.compile(r"^\s*Link detected:\s*(yes|no)\s*$", re.M)
_SPEED = re.compile(r"^\s*Speed:\s*(\S+)", re.M)
_MBPS = re.compile(r"(\d+)Mb/s")
_STATS_HEADER = "NIC statistics:"
# From the newline before each line, as `CounterNames.stats_lines`.
_VALUE = re.compile(r"\n(/sys/[^:\n]*):([^\n]*)")
_GREP_ERROR = re.compile(r"^grep: ([^\n]*)$", re.M)
_GT_S = re.compile(r"(\d+(?:\.\d+)?) GT/s")


@dataclass(slots=True)
class Readings:
    """Which facets the host's NICs showed ("read") and which some NIC left unreadable."""

    read: set[str]
    unreadable: set[str]

    def facets(self) -> frozenset[str]:
        """The facets some NIC showed and none left unreadable."""
        return frozenset(self.read - self.unreadable)


def read_counters(
    state: DeviceState, nics: list[Nic], outputs: Mapping[str, str], names: CounterNames
) -> None:
    """Link state, PCIe and counters of the host's NICs into the state, and their facets."""
    readings = Readings(set(), set())
    for nic in nics:
        _read_nic(state, nic, outputs, names, readings)
    state.facets |= readings.facets()


def _read_nic(
    state: DeviceState, nic: Nic, outputs: Mapping[str, str], names: CounterNames, readings: Readings
) -> None:
    port = state.interface(nic.netdev)
    counters = PortCounters()
    found = [
        ("link", _read_link(state, port, link_command(nic), outputs)),
        ("counters", _read_stats(state, counters, stats_command(nic), outputs, names)),
        *_read_sysfs(state, port, counters, nic, outputs, names),
    ]
    for facet, read in found:
        if read is not None:
            (readings.read if read else readings.unreadable).add(facet)
    if ("counters", True) in found:
        state.counters[nic.netdev] = counters


# Each reader returns None when the command was not collected (empty output), True when it read the
# output, False when the output could not be read (noted in state.unparsed).


def _read_link(
    state: DeviceState, port: InterfaceState, cmd: Command, outputs: Mapping[str, str]
) -> bool | None:
    text = outputs.get(cmd.file) or ""
    if not text.strip():
        return None
    detected = _LINK_DETECTED.findall(text)
    if len(detected) != 1:
        state.unparsed[cmd.cli] = "several `Link detected:` lines" if detected else "no `Link detected:` line"
        return False
    port.oper_up = detected[0] == "yes"
    speed = _SPEED.search(text)
    mbps = _MBPS.fullmatch(speed.group(1)) if speed else None
    # `Speed: Unknown!` while the link is down (or the driver cannot tell): the speed is unknown.
    port.speed_gbps = int(mbps.group(1)) // 1000 if mbps and port.oper_up else None
    return True


def _read_stats(
    state: DeviceState, counters: PortCounters, cmd: Command, outputs: Mapping[str, str], names: CounterNames
) -> bool | None:
    text = outputs.get(cmd.file) or ""
    if not text.strip():
        return None
    if not text.lstrip().startswith(_STATS_HEADER):
        state.unparsed[cmd.cli] = f"no `{_STATS_HEADER}` table"
        return False
    values = dict(names.stats_lines.findall("\n" + text))
    if not values:
        state.unparsed[cmd.cli] = f"none of the counters netcfg reads in the `{_STATS_HEADER}` table"
        return False
    for name, attribute in names.stats.items():
        if name in values:
            setattr(counters, attribute, int(values[name]))
    for attribute, spelled in names.priority_names:
        by_priority = getattr(counters, attribute)
        for p, name in spelled:
            value = values.get(name)
            if value is not None:
                by_priority[p] = int(value)
    return True


def _read_sysfs(
    state: DeviceState,
    port: InterfaceState,
    counters: PortCounters,
    nic: Nic,
    outputs: Mapping[str, str],
    names: CounterNames,
) -> list[tuple[str, bool | None]]:
    """(facet, found) for the PCIe link ("link") and the RDMA counters ("counters")."""
    cmd = sysfs_counters_command(nic)
    text = outputs.get(cmd.file) or ""
    if not text.strip():
        return []
    values = dict(_VALUE.findall("\n" + text))
    errors = _GREP_ERROR.findall(text) if "grep: " in text else []
    pcie = {
        name: values[pcie_path(nic, name)].strip() for name in PCIE_FILES if pcie_path(nic, name) in values
    }
    folder = hw_counters_folder(nic) + "/"
    hw = {name: values[folder + name].strip() for name in names.hw if folder + name in values}
    if errors or not (pcie or hw):
        state.unparsed[cmd.cli] = "; ".join(errors) or "no path:value lines"
    # PCIe is part of the link state, the RDMA counters of the counters; an error on neither's
    # path (or no values at all) leaves both unproven.
    pcie_error = any(e.startswith(f"/sys/class/net/{nic.netdev}/") for e in errors)
    hw_error = any(e.startswith(folder) or e.startswith(folder.rstrip("/") + ":") for e in errors)
    if not (pcie or hw) or (errors and not (pcie_error or hw_error)):
        return [("link", False), ("counters", False)]
    if pcie:
        port.pcie = PcieLink(
            width=_int(pcie.get("current_link_width")),
            max_width=_int(pcie.get("max_link_width")),
            speed_gts=_gts(pcie.get("current_link_speed")),
            max_speed_gts=_gts(pcie.get("max_link_speed")),
        )
    for name, value in hw.items():
        attribute = names.hw.get(name)
        if attribute is not None and getattr(counters, attribute) is None and value.isdigit():
            setattr(counters, attribute, int(value))
    return [
        ("link", not pcie_error if pcie or pcie_error else None),
        ("counters", not hw_error if hw or hw_error else None),
    ]


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _gts(text: str | None) -> float | None:
    found = _GT_S.match(text or "")
    return float(found.group(1)) if found else None


# --- render (the lab's replies) -------------------------------------------------------------------


def render_readings(
    state: DeviceState,
    device: Device,
    names: CounterNames,
    link_modes: tuple[str, ...],
    stats_lines: Callable[[PortCounters | None], list[tuple[str, int]]],
) -> dict[str, str]:
    """What the NICs of a family print for the commands every Linux host answers beyond its QoS
    read-back (GID tables, link state, `ethtool -S` in the family's names, sysfs counters), keyed by
    command line: what changes from one reading to the next."""
    out: dict[str, str] = {}
    for nic in device.nics:
        port = state.interfaces.get(nic.netdev, InterfaceState(name=nic.netdev))
        counters = state.counters.get(nic.netdev)
        out[host.gid_command(nic).cli] = host.render_gids(port, nic)
        out[link_command(nic).cli] = render_link(port, link_modes)
        out[stats_command(nic).cli] = render_stats(stats_lines(counters))
        out[sysfs_counters_command(nic).cli] = render_sysfs_counters(port, counters, nic, names)
    return out


def render_link(port: InterfaceState, link_modes: tuple[str, ...]) -> str:
    """`ethtool IF` as a 400G-class NIC prints it; empty where the state has no link state."""
    if port.oper_up is None:
        return ""
    return template(f"{TEMPLATES}/ethtool_link.j2").render(
        name=port.name,
        modes=link_modes,
        speed=f"{port.speed_gbps * 1000}Mb/s" if port.oper_up and port.speed_gbps else "Unknown!",
        duplex="Full" if port.oper_up else "Unknown! (255)",
        detected="yes" if port.oper_up else "no",
    )


def render_stats(lines: list[tuple[str, int]]) -> str:
    """`ethtool -S IF`: the driver's names and values, in its order; empty when there are none."""
    if not lines:
        return ""
    return template(f"{TEMPLATES}/ethtool_stats.j2").render(lines=lines)


def render_sysfs_counters(
    port: InterfaceState, counters: PortCounters | None, nic: Nic, names: CounterNames
) -> str:
    """The PCIe link files and the hw_counters folder as `grep -rH .` prints them (the driver's
    other hw_counters as zeros)."""
    lines: list[tuple[str, object]] = []
    if port.pcie is not None:
        pcie = port.pcie
        for name, value in zip(
            PCIE_FILES,
            (pcie.width, pcie.max_width, _gts_text(pcie.speed_gts), _gts_text(pcie.max_speed_gts)),
            strict=True,
        ):
            if value is not None:
                lines.append((pcie_path(nic, name), value))
    if counters is not None:
        folder = hw_counters_folder(nic)
        rendered = names.render_names()
        for name in names.hw_folder:
            attribute = names.hw.get(name)
            if attribute is None:
                lines.append((f"{folder}/{name}", 0))
            elif rendered.get(attribute) == name and getattr(counters, attribute) is not None:
                lines.append((f"{folder}/{name}", getattr(counters, attribute)))
    return template(f"{TEMPLATES}/grep_values.j2").render(values=lines)


def _gts_text(value: float | None) -> str | None:
    # The kernel's pci_speed_string(): "2.5 GT/s PCIe" ... "32.0 GT/s PCIe", "64.0 GT/s PCIe".
    return None if value is None else f"{value:.1f} GT/s PCIe"
