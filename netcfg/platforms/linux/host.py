"""What the Linux GPU-server platforms share: `lldpcli show neighbors`, `ethtool -i`, and the
generic text that lets thousands of servers running one script (or printing one dump) parse once.

Not a platform: the host platforms (ConnectX, Thor) call these helpers for the parts of a server
that do not depend on the make of its NICs.
"""

from __future__ import annotations

import re
import shlex
import zlib
from collections.abc import Callable
from functools import lru_cache

from netcfg.model import Device, DeviceState, Gid, InterfaceState, LldpNeighbor, Nic
from netcfg.parsing import many, one, ttp_parse
from netcfg.platforms.base import Command
from netcfg.templating import template

LLDP = Command("lldpcli show neighbors", "lldpcli_show_neighbors")
# Templates shared by the host platforms live under this name in templates/.
TEMPLATES = "linux_host"
# Interface names start with a letter or digit, so none passes for an option; sysfs path parts do
# not start with a dot, so no `..` leads out of /sys into a file worth hiding. `lldpcli` has
# `configure`: only the one read-only form passes.
ETHTOOL_READ_ONLY = r"ethtool -i [A-Za-z0-9][A-Za-z0-9_.:-]*"
GREP_READ_ONLY = (
    r"grep -rH \. /sys(/[A-Za-z0-9_:-][A-Za-z0-9_.:-]*)+( /sys(/[A-Za-z0-9_:-][A-Za-z0-9_.:-]*)+)*"
)
LLDP_READ_ONLY = r"lldpcli show neighbors"
# The GID table of one RDMA port: `-v -x '[0:]*'` leaves out the all-zero (empty) GIDs, `-s` the
# errors of the types and ndevs of empty entries (the kernel refuses to read them).
GID_FOLDERS = ("gids", "gid_attrs/types", "gid_attrs/ndevs")
GID_READ_ONLY = (
    r"grep -rsHvx '\[0:\]\*'"
    r"( /sys/class/infiniband/[A-Za-z0-9][A-Za-z0-9_.:-]*/ports/1/(gids|gid_attrs/types|gid_attrs/ndevs)){3}"
)


# Commands are cached by NIC: a fabric's servers have the same few NICs, and reading a snapshot
# asks for each NIC's commands by name for every server.
@lru_cache(maxsize=256)
def ethtool_command(nic: Nic) -> Command:
    return Command(f"ethtool -i {nic.netdev}", f"ethtool_{nic.netdev}")


@lru_cache(maxsize=256)
def gid_command(nic: Nic) -> Command:
    port = f"/sys/class/infiniband/{nic.rdma_device}/ports/1"
    return Command(
        "grep -rsHvx '[0:]*' " + " ".join(f"{port}/{f}" for f in GID_FOLDERS), f"gids_{nic.netdev}"
    )


def read_nic_gids(
    state: DeviceState, port: InterfaceState, nic: Nic, outputs: dict[str, str], device: Device
) -> None:
    """A NIC's GID table into `port.gids`; what cannot be read is unknown (None), named in `unparsed`."""
    cmd = gid_command(nic)
    text = outputs.get(cmd.file)
    if text is None:
        # A snapshot from before netcfg read GIDs, as with counters: not collected, so not judged.
        return
    gids = read_gids(generic_text(text, device))
    if gids is None:
        state.unparsed[cmd.cli] = refusal(
            text,
            None,
            "the GID table from sysfs",
            f"no GID lines: no RDMA device {nic.rdma_device}, or no GIDs",
        )
        return
    names = {f"@netdev{i}": n.netdev for i, n in enumerate(device.nics)}
    port.gids = {
        n: Gid(g.address, g.type, names[g.netdev]) if g.netdev in names else g for n, g in gids.items()
    }


# A GID as sysfs prints it at the end of its `path:value` line: eight groups of four hex digits,
# matched with the colon before them (a literal the regex engine searches for; a look-behind is
# tried at every character).
_GID_ADDRESS = re.compile(r":([0-9a-f]{4}(?::[0-9a-f]{4}){7})$", re.M)
_ADDRESS_HOLE = "@gid"


def read_gids(text: str) -> dict[int, Gid] | None:
    """The GID table of a generic GID dump (`gid_command`, NIC names as placeholders); None when the
    text holds no GID line: `-s` keeps quiet about a missing device, and a present one always has
    link-local GIDs.

    Every server's table has the same shape and its own addresses (its MAC, its IPs): the addresses
    are taken out as placeholders, the shape is parsed once for the fabric, and they are put back.
    """
    if _ADDRESS_HOLE in text:
        return _gid_table(text)
    addresses: list[str] = []

    def hole(found: re.Match[str]) -> str:
        addresses.append(found.group(1))
        return f":{_ADDRESS_HOLE}{len(addresses) - 1}"

    table = _gid_table(_GID_ADDRESS.sub(hole, text))
    if table is None or not addresses:
        return table
    # Built directly: `dataclasses.replace` looks the fields up again for every GID of every server.
    return {n: Gid(_filled(gid.address, addresses), gid.type, gid.netdev) for n, gid in table.items()}


def _filled(address: str, addresses: list[str]) -> str:
    index = address.removeprefix(_ADDRESS_HOLE)
    if address.startswith(_ADDRESS_HOLE) and index.isdigit() and int(index) < len(addresses):
        return addresses[int(index)]
    return address


@lru_cache(maxsize=256)
def _gid_table(text: str) -> dict[int, Gid] | None:
    """`read_gids` of a text as it is (cached, so never written to)."""
    found: dict[str, dict[int, str]] = {folder: {} for folder in GID_FOLDERS}
    for row in many(ttp_parse(TEMPLATES, "gids", text).get("values")):
        folder, _, index = str(row["path"]).partition("/ports/1/")[2].rpartition("/")
        if folder in found and index.isdigit():
            found[folder][int(index)] = str(row["value"]).strip()
    if not found["gids"]:
        return None
    types, ndevs = found["gid_attrs/types"], found["gid_attrs/ndevs"]
    return {n: Gid(address, types.get(n), ndevs.get(n)) for n, address in sorted(found["gids"].items())}


def render_gids(port: InterfaceState, nic: Nic) -> str:
    """The GID dump of a NIC in this state, as grep prints it (gids, then types, then ndevs)."""
    base = f"/sys/class/infiniband/{nic.rdma_device}/ports/1"
    gids = sorted((port.gids or {}).items())
    values = [(f"{base}/gids/{n}", g.address) for n, g in gids]
    values += [(f"{base}/gid_attrs/types/{n}", g.type) for n, g in gids if g.type is not None]
    values += [(f"{base}/gid_attrs/ndevs/{n}", g.netdev) for n, g in gids if g.netdev is not None]
    return "".join(f"{path}:{value}\n" for path, value in values)


# What a text that is not the expected output looks like: (the format, lines that give it away).
_FOREIGN_FORMATS = (
    ("mlxfwmanager or mlxup --query output", ("Querying Mellanox devices firmware", "PSID:", "FW ")),
    ("show_gids output", ("DEV\tPORT\tINDEX", "n_gids_found=")),
    ("ibv_devinfo output", ("hca_id:", "fw_ver:")),
    ("flint query output", ("FW Version:", "Image type:")),
    ("bnxtqos get_qos output", ("IEEE 8021QAZ",)),
    ("mlnx_qos output", ("PFC configuration:",)),
    ("mlxconfig output", ("Device type:", "Configurations:")),
    ("ethtool -i output", ("driver:", "bus-info:")),
)


def looks_like(text: str) -> str | None:
    """The name of the known host-tool output `text` is, when it is one (to name what was seen
    where another command's output was expected); None otherwise."""
    for name, marks in _FOREIGN_FORMATS:
        if all(mark in text for mark in marks):
            return name
    return None


def refusal(text: str | None, expected: str | None, reads: str, default: str) -> str:
    """Why an output was not read: missing, another tool's output than the `expected` one (named,
    with what netcfg reads instead), or `default`."""
    if text is None:
        return "output missing"
    seen = looks_like(text)
    return f"this is {seen}; netcfg reads {reads}" if seen and seen != expected else default


def read_driver_info(text: str | None) -> tuple[str | None, str | None]:
    """(driver, firmware-version text) from `ethtool -i`; None where the line is missing."""
    info = _driver_info(text)
    return info.get("driver"), info.get("firmware")


_PCI_ADDRESS = re.compile(r"(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.([0-7])")


def pci_function(text: str | None) -> int | None:
    """The PCI function of the NIC's `bus-info:` (`0000:3b:00.1` -> 1): which port of a multi-port
    card the netdev is. None where `ethtool -i` shows no PCI address."""
    found = _PCI_ADDRESS.fullmatch(str(_driver_info(text).get("bus", "")))
    return int(found.group(1)) if found else None


def _driver_info(text: str | None) -> dict:
    return one(ttp_parse(TEMPLATES, "ethtool_i", text or "").get("info"))


def render_driver_info(driver: str, version: str, firmware: str, bus: str, eeprom: bool) -> str:
    return template(f"{TEMPLATES}/ethtool_i.j2").render(
        driver=driver, version=version, firmware=firmware, bus=bus, eeprom="yes" if eeprom else "no"
    )


def read_lldp(state: DeviceState, outputs: dict[str, str]) -> None:
    """The host's LLDP neighbours; an unreadable table is unknown cabling, not a missing neighbour."""
    text = outputs.get(LLDP.file)
    rows = many(ttp_parse(TEMPLATES, "lldpcli", text or "").get("neighbors"))
    if text is None or (not rows and "LLDP neighbors" not in text):
        state.unparsed[LLDP.cli] = "no LLDP neighbor table"
        state.facets -= {"lldp"}
    state.lldp = [LldpNeighbor(r["local"], r.get("system_name", ""), r.get("port", "")) for r in rows]


def render_lldp(state: DeviceState) -> str:
    neighbors = [
        {"local": n.local_interface, "system_name": n.system_name, "port": n.port, "mac": mac(n.system_name)}
        for n in state.lldp
    ]
    return template(f"{TEMPLATES}/lldpcli.j2").render(neighbors=neighbors)


# A comment line is emptied, not removed: line numbers in the generic text are the file's.
_COMMENT = re.compile(r"^[ \t]*#.*$", re.M)


def generic_text(text: str, device: Device) -> str:
    """The text with comments blanked and NIC names replaced by placeholders (`@netdev0`, `@rdma0`).

    Every server of a fabric runs the same script and prints the same values but for its NIC
    names, so the generic text repeats across thousands of hosts and parses once.
    """
    return _generic_text(text, tuple((nic.netdev, nic.rdma_device) for nic in device.nics))


@lru_cache(maxsize=1024)
def _generic_text(text: str, nics: tuple[tuple[str, str], ...]) -> str:
    # Cached by the text and the NIC names: servers of one shape print the same dumps under the same
    # names, so the substitution runs once for all of them (a GID table, its own on each server,
    # passes through).
    names = {netdev: f"@netdev{i}" for i, (netdev, _) in enumerate(nics)}
    names |= {rdma: f"@rdma{i}" for i, (_, rdma) in enumerate(nics)}
    # Outputs seldom hold a `#`; the blanking pass over each text was a sixth of this function.
    if "#" in text:
        text = _COMMENT.sub("", text)
    if not names:
        return text
    return _names_pattern(tuple(names)).sub(lambda m: names[m.group(1)], text)


@lru_cache(maxsize=64)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
    # The first characters up front: the regex engine scans for those and tries the rest only there,
    # where a pattern that starts with the lookbehind is tried at every character (1.7x the time).
    first = "".join(sorted({re.escape(name[0]) for name in names}))
    return re.compile(rf"(?=[{first}])(?<![\w.@-])(" + alternatives + r")(?![\w.-])")


# The NIC index a placeholder of the generic text names.
NIC_PLACEHOLDER = re.compile(r"@(?:netdev|rdma)(\d+)(?![\w.-])")
_TOKEN = re.compile(r"'([^']*)'|\"([^\"]*)\"|(\S+)")


def tokens(text: str) -> list[str]:
    """Shell words as `shlex.quote` writes them (single quotes) or a person might (double quotes).

    shlex.split would do, but cost most of a host's parse time at fabric scale.
    """
    return ["".join(groups) for groups in _TOKEN.findall(text)]


def params(pairs: list[tuple[str, object]]) -> str:
    """`name=value` shell words, quoted, for the values that are set."""
    return " ".join(shlex.quote(f"{k}={v}") for k, v in pairs if v is not None)


def to_int(value: str, base: int = 10) -> int | None:
    try:
        return int(value, base)
    except ValueError:
        return None


def mac(name: str) -> str:
    """A stable, made-up chassis MAC for a neighbour the lab prints (an Arista OUI)."""
    h = f"{zlib.crc32(name.encode()):08x}"
    return f"00:1c:73:{h[0:2]}:{h[2:4]}:{h[4:6]}"


# (NIC index, "" or ".<field>") -> line: where each NIC's settings stand in a generic host script.
ScriptLocations = tuple[tuple[tuple[int, str], int], ...]


# parse_config's name for a host script in `unparsed` (and in `locations`, for where it went wrong).
HOST_SCRIPT = "host script"
# A host script read generically (NIC i as `@netdev{i}`): each NIC's settings, unparsed keys with `{i}`
# for names, and where each setting stands.
ScriptReading = tuple[list[InterfaceState], dict[str, str], "ScriptLocations"]


def read_host_script(
    text: str,
    device: Device,
    platform: str,
    read_nics: Callable[[str, int], ScriptReading],
    named: Callable[[InterfaceState, str], InterfaceState],
) -> DeviceState:
    """A host script's state: refused whole for CRLF line ends (bash reads `\r` as part of each
    word, so such a script fails on the host), else each NIC's settings as `read_nics` finds them in
    the generic text, given their names by `named`."""
    state = DeviceState(name=device.name, platform=platform, facets=frozenset({"qos"}))
    if "\r" in text:
        state.unparsed[HOST_SCRIPT] = "CRLF line ending; expected LF"
        state.locations[HOST_SCRIPT] = text.count("\n", 0, text.index("\r")) + 1
        return state
    shapes, unparsed, where = read_nics(generic_text(text, device), len(device.nics))
    if HOST_SCRIPT in unparsed:
        state.unparsed = dict(unparsed)
        return state
    names = tuple(nic.netdev for nic in device.nics)
    state.interfaces = {name: named(port, name) for name, port in zip(names, shapes, strict=True)}
    state.unparsed = {key.format(*names): why for key, why in unparsed.items()}
    state.locations = named_locations(where, names)
    return state


def script_locations(text: str, nics: int, line_fields: Callable[[list[str]], list[str]]) -> ScriptLocations:
    """The line of each NIC setting in a generic host script (the last line that sets it decides),
    and each NIC's first line, where a setting the script lacks belongs; `line_fields` names the
    InterfaceState fields a script line (as shell words) sets, as the platform's script writes them."""
    where: dict[tuple[int, str], int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        found = NIC_PLACEHOLDER.search(line)
        if found is None or int(found.group(1)) >= nics:
            continue
        nic = int(found.group(1))
        where.setdefault((nic, ""), number)
        for name in line_fields(tokens(line)):
            where[(nic, f".{name}")] = number
    return tuple(where.items())


@lru_cache(maxsize=256)
def named_locations(where: ScriptLocations, names: tuple[str, ...]) -> dict[str, int]:
    """Script locations keyed by NIC name. Thousands of hosts run one script with the same NIC names:
    they share one dict, which nothing writes to once parsed (DeviceState.locations is read-only)."""
    return {(names[nic] + key if key else names[nic]): line for (nic, key), line in where}
