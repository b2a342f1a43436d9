"""Remediation that touches only what netcfg renders on an NX-OS switch.

A running config holds far more than netcfg renders: users, SNMP, routing, addresses. Compared whole
with the intended config, every such line would come out as a `no ...` command, and applying them
would lock operators out and tear down routing. netcfg never deletes what it did not write: the
running config is cut down to what netcfg manages before hier_config compares it. That is the
sections the intended config has (its class maps and policy maps, the plan's interfaces), the PFC
watchdog lines, and in `system qos` and each interface only the lines netcfg renders there.
"""

from __future__ import annotations

from netcfg.platforms.nxos.text import Node, split_config

# Device-wide lines netcfg renders, so that a wrong value on the switch is replaced. The watchdog's
# timer lines are not among them (netcfg leaves the timers to the operator): never negated.
_MANAGED_GLOBALS = ("priority-flow-control watch-dog-interval ",)
# Interface lines netcfg renders; the rest of an interface (addresses, VRF, switchport modes and VLANs,
# input queuing, ...) is the operator's. `switchport` and `shutdown` only alone or as `no` of them.
_MANAGED_PORT_LINES = (
    "description ",
    "mtu ",
    "priority-flow-control mode ",
    "priority-flow-control watch-dog-interval ",
    "service-policy type qos input ",
    "service-policy type queuing output ",
)
_MANAGED_PORT_SWITCHES = frozenset({"switchport", "no switchport", "shutdown", "no shutdown"})
# What netcfg binds in `system qos`; an operator's own system-wide qos or input queuing policy stays.
_MANAGED_SYSTEM_QOS = ("service-policy type network-qos ", "service-policy type queuing output ")


def managed_part(running: str, intended: str) -> str:
    """The running config as far as netcfg manages it, in show-running-config form."""
    heads = {node.text for node in split_config(intended).nodes}
    kept: list[str] = []
    for node in split_config(running).nodes:
        if node.text.startswith(_MANAGED_GLOBALS):
            kept.append(node.text)
        elif node.text in heads:
            children = [c for c in node.children if _managed_child(node.text, c.text)]
            kept += _lines(Node(node.line, node.text, children), 0)
    return "".join(f"{line}\n" for line in kept)


def _managed_child(head: str, line: str) -> bool:
    if head.startswith("interface "):
        return line.startswith(_MANAGED_PORT_LINES) or line in _MANAGED_PORT_SWITCHES
    if head == "system qos":
        return line.startswith(_MANAGED_SYSTEM_QOS)
    return True


def _lines(node: Node, depth: int) -> list[str]:
    out = ["  " * depth + node.text]
    for child in node.children:
        out += _lines(child, depth + 1)
    return out
