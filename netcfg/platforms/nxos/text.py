"""The shape of an NX-OS config text: a tree of lines by indentation, with their line numbers, and
whether the text is an NX-OS config at all.

Two forms are read: `show running-config` (sub-commands indented by two spaces per level, blank
lines between interfaces) and the config-mode paste form operators keep in scripts (`exit` lines,
`end`, and interface sub-commands written without indentation straight after `interface ...`).
Values are read by TTP (templates/nxos/parse); this module only cuts the text into the pieces TTP
reads and keeps the line numbers TTP does not give, so findings can point at a file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netcfg.platforms.foreign import FOREIGN_TEXT

# Interface names as NX-OS writes them; `ethernet 1/1` and `Eth1/1` are how people type them.
_ETHERNET = re.compile(r"(?i)(?:ethernet|eth|e)\s*(\d+(?:/\d+)*)")
_PORT_CHANNEL = re.compile(r"(?i)(?:port-channel|po)\s*(\d+)")
# One element of an `interface` line: a type (`Ethernet`, `eth`, `port-channel`; left out, the
# previous element's), a port (`1/1`, `1/3/1`, `10`, a subinterface `1/49.10`) and the end of a range,
# the last number (`-16`) or the whole port (`-1/16`, `- Ethernet1/16`), as NX-OS prints and accepts.
_TYPE = r"[A-Za-z](?:[A-Za-z-]*[A-Za-z])?"
_ELEMENT = re.compile(
    rf"(?P<type>{_TYPE})?\s*(?P<low>\d+(?:/\d+)*)(?P<sub>\.\d+)?"
    rf"(?:\s*-\s*(?:{_TYPE})?\s*(?P<high>\d+(?:/\d+)*))?"
)
_LOOKS_RANGED = re.compile(r"\d\s*-\s*\d")
# More ports than a line card has: such a "range" is a typo, not ports.
_MAX_RANGE = 1024
# Interface lines whose value a later block for the same port replaces (NX-OS merges blocks: a
# setting given again wins, every other line adds to the port).
_SETTINGS = (
    "description",
    "mtu",
    "priority-flow-control mode",
    "priority-flow-control watch-dog-interval",
    "service-policy type qos input",
    "service-policy type queuing output",
    "service-policy type queuing input",
    "switchport mode",
)
# Interface lines that are a setting on their own, and `no` of them: `no switchport`, `shutdown`.
_SWITCHES = ("switchport", "shutdown")
# Lines config mode reads as interface sub-commands when the paste form leaves them unindented.
_INTERFACE_COMMANDS = (
    "bfd",
    "channel-group",
    "description",
    "duplex",
    "fec",
    "flowcontrol",
    "ip",
    "ipv6",
    "link",
    "lldp",
    "load-interval",
    "mtu",
    "no",
    "priority-flow-control",
    "service-policy",
    "shutdown",
    "spanning-tree",
    "speed",
    "switchport",
    "vrf",
)
# Top-level lines that no NX-OS config holds, and what they show the text to be instead.
_FOREIGN = [
    (re.compile(r"! device: "), "an Arista EOS config (its '! device:' header)"),
    (re.compile(r"#"), "a '#' line (NX-OS comments start with '!')"),
    (re.compile(r"(?:nv|net) (?:set|add|del|unset) "), "NVUE or NCLU commands (Cumulus)"),
    (re.compile(r"set \S"), "'set' commands (Junos or similar)"),
    *FOREIGN_TEXT,
]
# Lines only NX-OS writes: positive evidence for a text without indented blocks.
_NXOS_EVIDENCE = re.compile(
    r"!Command: show running-config|!Time: |version \d+\.\d+\(|feature \S|system qos$|"
    r"policy-map type (?:network-qos|queuing) |class-map type (?:qos|queuing|network-qos) |"
    r"priority-flow-control watch-dog-interval "
)


@dataclass(slots=True)
class Node:
    """One config line (indentation removed), its 1-based line number and the lines under it."""

    line: int
    text: str
    children: list[Node] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        return self.text.split()

    def body(self) -> str:
        """The children's lines, one per line, each child's own children left out."""
        return "".join(f"{child.text}\n" for child in self.children)


@dataclass(slots=True)
class ConfigText:
    nodes: list[Node] = field(default_factory=list)
    last_line: int = 0
    # (line, why) when the text is not an NX-OS config.
    foreign: tuple[int, str] | None = None
    evidence: bool = False
    # (line, indent) of the first block body indented by an odd count: NX-OS indents by 2 (or 4).
    other_indent: tuple[int, int] | None = None

    def not_nxos(self) -> tuple[int, str] | None:
        """Why this text is not an NX-OS config, and the line that shows it; None when it is one.

        NX-OS needs positive evidence: its `!Command:` header, a `version` or `feature` line, or MQC
        objects only NX-OS writes. Any line no NX-OS config holds (JSON, Markdown, YAML, braces,
        EOS's header) decides against it, even where the rest looks right."""
        if self.foreign is not None:
            return self.foreign
        if self.other_indent is not None:
            line, indent = self.other_indent
            return line, f"settings indented by {indent} (NX-OS indents them by 2 or 4)"
        if self.evidence or any(_is_port(n) for n in self.nodes if n.text.startswith("interface ")):
            return None
        return 1, "no '!Command: show running-config' header, feature, version or interface line found"


def _is_port(node: Node) -> bool:
    names = interface_names(node) or []
    return any(_ETHERNET.fullmatch(name) or _PORT_CHANNEL.fullmatch(name) for name in names)


def split_config(text: str) -> ConfigText:
    """The config as a tree of lines: a line's parent is the nearest line above it indented less.

    `exit` and `end` lines, `!` comments and banner text are left out (a banner may hold anything,
    even lines that look like config)."""
    config = ConfigText()
    stack: list[tuple[int, Node]] = []
    banner: str | None = None
    paste: Node | None = None  # an interface whose sub-commands follow unindented (paste form)
    number = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if banner is not None:
            if banner in line:
                banner = None
            continue
        stripped = line.lstrip(" \t")
        if not stripped:
            paste = None
            continue
        if stripped.startswith("!") or stripped in ("exit", "end"):
            config.evidence = config.evidence or bool(_NXOS_EVIDENCE.match(stripped))
            paste = None
            continue
        indent = len(line) - len(stripped)
        node = Node(number, stripped)
        if indent == 0 and paste is not None and stripped.split()[0] in _INTERFACE_COMMANDS:
            paste.children.append(node)
            continue
        paste = None
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if stack:
            parent = stack[-1]
            # NX-OS indents by two (four under `aaa group server`): EOS's three or OS10's one is not it.
            if parent[0] == 0 and indent % 2 and config.other_indent is None and not parent[1].children:
                config.other_indent = (number, indent)
            parent[1].children.append(node)
        else:
            config.nodes.append(node)
            _note_top_level(config, node)
            banner = _banner_delimiter(stripped)
            if stripped.startswith("interface ") and indent == 0:
                paste = node
        stack.append((indent, node))
    config.last_line = number
    return config


def _note_top_level(config: ConfigText, node: Node) -> None:
    config.evidence = config.evidence or bool(_NXOS_EVIDENCE.match(node.text))
    if config.foreign is None:
        for pattern, what in _FOREIGN:
            if pattern.match(node.text):
                config.foreign = (node.line, what)
                return


def _banner_delimiter(text: str) -> str | None:
    """`banner motd #` starts a banner that ends at the next line holding `#`; `banner motd #text#`
    is one line."""
    words = text.split(maxsplit=2)
    if len(words) < 3 or words[0] != "banner":
        return None
    delimiter, rest = words[2][0], words[2][1:]
    return None if delimiter in rest else delimiter


def interface_names(node: Node) -> list[str] | None:
    """The ports an `interface` line names, ranges expanded: `interface Ethernet1/1-4, Ethernet1/9`,
    `interface Ethernet 1/1-1/16`, `interface eth1/1 - 16`. None when the line holds a range that
    is not one (`Ethernet1/1-2/4` crosses a line card, `Ethernet1/9-1/2` runs backwards)."""
    spec = node.text.split(maxsplit=1)[1] if len(node.words) > 1 else ""
    names: list[str] = []
    kind = None
    for part in spec.split(","):
        part = part.strip()
        found = _ELEMENT.fullmatch(part)
        if found is None:
            if _LOOKS_RANGED.search(part):
                return None
            if part:
                names.append(normal_name(part))
            continue
        kind = found["type"] or kind
        if kind is None:
            return None
        if found["high"] is None:
            names.append(normal_name(f"{kind}{found['low']}{found['sub'] or ''}"))
            continue
        expanded = _expand(kind, found["low"], found["high"])
        if expanded is None or found["sub"]:
            return None
        names += expanded
    return names


def _expand(kind: str, low: str, high: str) -> list[str] | None:
    """`Ethernet`, `1/1`, `16` or `1/16` -> Ethernet1/1 ... Ethernet1/16: a range runs over the last
    number, the others (slot, breakout port) shared by both ends."""
    head, _, first = low.rpartition("/")
    high_head, _, last = high.rpartition("/")
    if high_head and high_head != head:
        return None
    if not int(first) <= int(last) <= int(first) + _MAX_RANGE:
        return None
    prefix = f"{head}/" if head else ""
    return [normal_name(f"{kind}{prefix}{n}") for n in range(int(first), int(last) + 1)]


def port_blocks(nodes: list[Node]) -> tuple[dict[str, Node], list[Node]]:
    """Each port with its settings merged from every `interface` block that names it, in order: a
    setting given again (`mtu`, `service-policy type qos input`, ...) replaces the earlier one,
    other lines add up. The merged node stands at the port's first block. Also the `interface`
    lines whose range cannot be expanded."""
    merged: dict[str, Node] = {}
    unreadable = []
    for node in nodes:
        if node.words[0] != "interface":
            continue
        names = interface_names(node)
        if names is None:
            unreadable.append(node)
            continue
        for name in names:
            port = merged.setdefault(name, Node(node.line, node.text))
            for child in node.children:
                key = _setting(child.text)
                if key is not None:
                    port.children = [c for c in port.children if _setting(c.text) != key]
                port.children.append(child)
    return merged, unreadable


def _setting(text: str) -> str | None:
    """The setting an interface line gives (`no mtu` and `mtu 9216` give `mtu`), when it is one a
    later block replaces."""
    words = text.split()
    if words[0] == "no":
        words = words[1:]
    line = " ".join(words)
    if line in _SWITCHES:
        return line
    return next((s for s in _SETTINGS if line == s or line.startswith(f"{s} ")), None)


def normal_name(name: str) -> str:
    """`ethernet 1/1`, `Eth1/1`, `e1/1` -> `Ethernet1/1`; `Po10` -> `port-channel10`."""
    found = _ETHERNET.fullmatch(name.strip())
    if found:
        return f"Ethernet{found.group(1)}"
    found = _PORT_CHANNEL.fullmatch(name.strip())
    if found:
        return f"port-channel{found.group(1)}"
    return name.strip()


def is_ethernet_port(name: str) -> bool:
    """Front-panel and port-channel interfaces: the ones NX-OS gives its port defaults (MTU 1500)."""
    return name.startswith(("Ethernet", "port-channel"))
