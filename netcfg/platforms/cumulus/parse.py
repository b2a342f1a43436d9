"""Cumulus settings read back: a configuration in either form (`nv set` lines, or startup.yaml) for
`--configs`; live, what the hardware runs (`nv show qos roce`), every port's running MTU, link state
and speed (`nv show interface -o json`), LLDP neighbours (`lldpcli show neighbors`) and the counters
of the ports that are up."""

from __future__ import annotations

from netcfg.model import Device, DeviceState
from netcfg.platforms.cumulus.commands import CONFIG, INTERFACES, ROCE, SYSTEM
from netcfg.platforms.cumulus.config import RUNNING_CONFIG, read_config
from netcfg.platforms.cumulus.counters import read_counters, with_link_downs
from netcfg.platforms.cumulus.defaults import Globals
from netcfg.platforms.cumulus.operational import parse_interfaces, parse_version, roce_gap, roce_problem
from netcfg.platforms.cumulus.show import parse_show
from netcfg.platforms.linux.host import read_lldp

PLATFORM = "cumulus"


def parse_config(text: str, device: Device) -> DeviceState:
    return read_config(text, device.name, PLATFORM).state


def parse_outputs(outputs: dict[str, str], device: Device) -> DeviceState:
    text = outputs.get(CONFIG.file)
    reading = read_config(text or "", device.name, PLATFORM)
    state = reading.state
    state.model = state.os_version = None
    state.facets = frozenset({"qos", "version", "lldp"})
    why = state.unparsed.pop(RUNNING_CONFIG, None)
    state.locations.pop(RUNNING_CONFIG, None)
    if text is None or why is not None:
        state.unparsed[CONFIG.cli] = "output missing" if text is None else why
        state.facets -= {"qos"}
    _read_roce(state, reading.globals, outputs.get(ROCE.file))
    version = parse_version(outputs.get(SYSTEM.file, ""))
    if version is None:
        missing = SYSTEM.file not in outputs
        state.unparsed[SYSTEM.cli] = "output missing" if missing else "no product-release or build line"
        state.facets -= {"version"}
    state.os_version = version
    downs = _read_interfaces(state, outputs.get(INTERFACES.file))
    read_lldp(state, outputs)
    _read_counters(state, outputs, downs)
    return state


def _read_roce(state: DeviceState, globals_: Globals | None, text: str | None) -> None:
    show = parse_show(text) if text is not None else None
    problem = "output missing" if show is None else roce_problem(show)
    if problem is not None:
        state.unparsed[ROCE.cli] = problem
        # Whether the hardware runs the configuration is unknown: its QoS is not judged either.
        state.facets -= {"qos"}
    elif globals_ is not None and show is not None:
        state.not_operational.update(roce_gap(globals_, show))


def _read_interfaces(state: DeviceState, text: str | None) -> dict[str, int]:
    """MTU gaps and the ports' link state; returns the link-down counts by port."""
    found = parse_interfaces(text) if text is not None else "output missing"
    if isinstance(found, str):
        state.unparsed[INTERFACES.cli] = found
        return {}
    for name, port in state.interfaces.items():
        running = found.mtus.get(name)
        if running is not None and port.mtu is not None and running != port.mtu:
            state.not_operational[f"{name}.mtu"] = (str(port.mtu), str(running))
        port.oper_up = found.oper_up.get(name)
        port.speed_gbps = found.speed_gbps.get(name)
    # Releases before 5.11 print no operational state: the link state is then unknown, not down.
    if any(name in found.oper_up for name in state.interfaces):
        state.facets |= {"link"}
    return found.link_downs


def _read_counters(state: DeviceState, outputs: dict[str, str], downs: dict[str, int]) -> None:
    counters, unreadable = read_counters(outputs)
    state.counters = with_link_downs(counters, downs)
    state.unparsed.update(unreadable)
    # No port up, nothing read: the counters are unknown, not zero.
    if counters and not unreadable:
        state.facets |= {"counters"}
