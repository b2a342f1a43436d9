"""The shape of an EOS config text: its interface and QoS-profile blocks, its device-wide QoS lines,
where each setting stands, and whether the text is an EOS config at all.

Values are read by TTP (templates/eos/parse); this module only cuts the text into the pieces TTP
reads and keeps the line numbers TTP does not give, so findings can point at a file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from netcfg.platforms.foreign import FOREIGN_TEXT

# Interface names as EOS prints them: Ethernet1, Ethernet1/1, Ethernet3/1.100, Management1, Port-Channel10.
_EOS_INTERFACE = re.compile(r"[A-Z][A-Za-z-]*\d+(?:/\d+)*(?:\.\d+)?")
_HEADER = re.compile(r"! device: \S+ \(.*EOS-")
# Top-level lines that no EOS config holds, and what they show the text to be instead.
_FOREIGN = [
    (re.compile(r"#"), "a '#' line (EOS comments start with '!')"),
    (re.compile(r"feature \S|version \d|!Command:|!Time:|!RANCID-CONTENT-TYPE: cisco"), "an NX-OS config"),
    *FOREIGN_TEXT,
]
# Device-wide lines: which DeviceState field (a `locations` key) each one sets. A watchdog line sets
# both the watchdog (its first line) and its own timer or action (`watchdog.<Watchdog field>`).
_GLOBAL_FIELDS = (
    ("qos map dscp ", "dscp_map"),
    ("qos rewrite dscp", "dscp_rewrite"),
    ("priority-flow-control pause watchdog default timeout ", "watchdog.detection_ms"),
    ("priority-flow-control pause watchdog default recovery-time ", "watchdog.restoration_ms"),
    ("priority-flow-control pause watchdog default polling-interval ", "watchdog.polling_ms"),
    ("priority-flow-control pause watchdog action ", "watchdog.action"),
    ("priority-flow-control pause watchdog ", "watchdog"),
    ("priority-flow-control all off", "pfc_all_off"),
    ("! device:", "header"),
)
# Lines of an interface or profile body (indented by 3) and the InterfaceState field each sets.
_BODY_FIELDS = (
    ("mtu ", "mtu"),
    ("qos trust ", "trust"),
    ("no qos trust", "trust"),
    ("priority-flow-control on", "pfc_enabled"),
    ("priority-flow-control off", "pfc_enabled"),
    ("no priority-flow-control", "pfc_enabled"),
    ("priority-flow-control priority ", "no_drop_priorities"),
    ("priority-flow-control pause watchdog", "watchdog"),
    ("service-profile ", "profile"),
    ("dcbx mode ", "dcbx_mode"),
    ("no dcbx mode", "dcbx_mode"),
)
_UNICAST_QUEUE = ("tx-queue ", "uc-tx-queue ")
_BANNER = re.compile(r"banner \S+$")
# EOS writes comments as `!`, `! text` or `!! text`; `!Command:` (no space) is NX-OS.
_EOS_COMMENT = re.compile(r"!(?:$|[ !])")


@dataclass(frozen=True, slots=True)
class Block:
    """One `interface` or `qos profile` block. `body` is its indented lines with the description's
    text left out (so that ports differing only by description share one body) but its line kept
    (so that offsets in the body are offsets in the file)."""

    name: str
    line: int
    description: str | None
    body: str


@dataclass(slots=True)
class ConfigText:
    interfaces: list[Block] = field(default_factory=list)
    profiles: dict[str, Block] = field(default_factory=dict)
    # Top-level lines that set device-wide QoS or the ECMP hash: (line number, text).
    globals: list[tuple[int, str]] = field(default_factory=list)
    # Top-level `ip route` lines: (line number, text).
    routes: list[tuple[int, str]] = field(default_factory=list)
    end_line: int | None = None
    last_line: int = 0
    # (line, why) when the text is not an EOS config.
    foreign: tuple[int, str] | None = None
    header: bool = False
    # Interface blocks whose first line is indented by 3 spaces (EOS) or otherwise (other CLIs).
    eos_indented: int = 0
    other_indented: tuple[int, int] | None = None  # (line, indent) of the first one

    def not_eos(self) -> tuple[int, str] | None:
        """Why this text is not an EOS config, and the line that shows it; None when it is one.

        EOS needs positive evidence: its `! device:` header, or interface blocks indented as EOS
        indents them. Any line no EOS config holds (JSON, Markdown, YAML, braces, NX-OS) decides
        against it, even where interfaces look right (a Markdown page quoting EOS config)."""
        if self.foreign is not None:
            return self.foreign
        if self.header or self.eos_indented:
            return None
        if self.other_indented is not None:
            line, indent = self.other_indented
            return line, f"interface settings indented by {indent} (EOS indents them by 3)"
        if any(_EOS_INTERFACE.fullmatch(b.name) for b in self.interfaces) or self.profiles:
            return None
        return 1, "no '! device:' header, interface or qos profile found"

    def global_lines(self) -> dict[str, int]:
        """The first line of each device-wide setting, keyed as DeviceState.locations keys them."""
        found: dict[str, int] = {}
        for number, text in self.globals:
            if text.startswith("qos map traffic-class "):
                # `... to tx-queue N` maps a class to its queue; `... to dscp N`, to its rewrite.
                found.setdefault("dscp_rewrite" if " to dscp " in text else "tc_queue", number)
                continue
            for prefix, name in _GLOBAL_FIELDS:
                if text.startswith(prefix):
                    found.setdefault(name, number)
        return found


def split_config(text: str) -> ConfigText:
    """The config cut into blocks and device-wide lines, with their 1-based line numbers.

    Fabric switches repeat one interface body hundreds of times with only the name and description
    changing: callers parse each distinct body once, which keeps TTP off the hot path at 32k-GPU
    scale. Banner text (`banner motd` ... `EOF`) is skipped: it may hold anything, even lines that
    look like config."""
    config = ConfigText()
    current: list[str] | None = None
    name, start, description, kind = "", 0, None, ""
    banner = False
    number = 0

    def close() -> None:
        block = Block(name, start, description, "".join(current or ()))
        if kind == "interface":
            config.interfaces.append(block)
        else:
            config.profiles.setdefault(name, block)

    for number, line in enumerate(text.splitlines(), 1):
        if banner:
            banner = line != "EOF"
            continue
        if current is not None and line[:1] in (" ", "\t", ""):
            if not current and line.strip():
                _note_indent(config, line, number)
            if line.startswith("   description ") and description is None:
                description = line[len("   description ") :]
                current.append("   description\n")
            else:
                current.append(line + "\n")
            continue
        if current is not None:
            close()
            current = None
        if line.startswith("interface ") and len(line.split()) == 2:
            name, start, description, kind, current = line.split()[1], number, None, "interface", []
        elif line.startswith("qos profile ") and len(line.split()) == 3:
            name, start, description, kind, current = line.split()[2], number, None, "profile", []
        elif line.startswith(
            ("qos map ", "qos rewrite ", "priority-flow-control ", "! device:", "ip load-sharing ")
        ):
            config.globals.append((number, line))
            config.header = config.header or bool(_HEADER.match(line))
        elif line.startswith("ip route "):
            config.routes.append((number, line))
        elif line.rstrip() == "end":
            config.end_line = number
        elif _BANNER.match(line):
            banner = True
        elif config.foreign is None and line[:1] not in (" ", "\t", "") and not _EOS_COMMENT.match(line):
            config.foreign = _foreign(line, number)
        elif config.foreign is None and number == 1 and line.lstrip().startswith(("{", "[")):
            config.foreign = (1, "a JSON document")
    if current is not None:
        close()
    config.last_line = number
    return config


def _note_indent(config: ConfigText, line: str, number: int) -> None:
    if line.startswith("   ") and line[3:4] not in (" ", "\t"):
        config.eos_indented += 1
    elif config.other_indented is None:
        indent = len(line) - len(line.lstrip(" \t"))
        config.other_indented = (number, indent)


def _foreign(line: str, number: int) -> tuple[int, str] | None:
    for pattern, what in _FOREIGN:
        if pattern.match(line):
            return number, what
    return None


@lru_cache(maxsize=1024)
def setting_offsets(body: str) -> dict[str, int]:
    """Where each InterfaceState field is set in a block body: offset from the block's header line
    (1 = the first body line). A field set on several lines points at the last: it decides.

    ECN and strict priority count only on unicast queues (`tx-queue`, `uc-tx-queue`): the
    multicast queues (`mc-tx-queue`) are not the ones RoCE uses."""
    offsets: dict[str, int] = {}
    unicast = False
    for offset, line in enumerate(body.splitlines(), 1):
        text = line.strip()
        if line.startswith("   ") and line[3:4] != " ":
            unicast = text.startswith(_UNICAST_QUEUE)
            for prefix, name in _BODY_FIELDS:
                if text.startswith(prefix):
                    offsets[name] = offset
                    break
        elif unicast and text.startswith("random-detect ecn minimum-threshold"):
            offsets["ecn"] = offset
        elif unicast and text == "priority strict":
            offsets["strict_queues"] = offset
    return offsets


def short_interface(interface: str) -> str:
    return interface.replace("Ethernet", "Et", 1)


def long_interface(interface: str) -> str:
    return "Ethernet" + interface[2:] if re.match(r"Et\d", interface) else interface
