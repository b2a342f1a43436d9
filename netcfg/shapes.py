"""A fabric's rendered intent parsed back, once per shape of device.

The leaves of a fabric (its spines, its hosts of one platform) differ in their names and in whom
their ports face, which only the ports' descriptions say; nothing else that goes into their configs
differs (`intent.shape_key`). So the first device of each shape is rendered and parsed back, and the
others take its state under their own names and descriptions: at fabric scale that is a handful of
renders and parses instead of thousands. A shape whose parsed state says a name anywhere else (a
parser that keeps the hostname, or a description it does not give back as intent wrote it) gets no
such copies: its devices are each rendered and parsed, as are the devices of a shape of one and a
device whose name is a word of its shape's text. The copies have ports of their own; what a port
holds (its ECN and buffer maps) is shared, as the platforms' parsers share it among a device's
ports: nothing writes to an intent state once it is parsed.
"""

from __future__ import annotations

from dataclasses import dataclass

from netcfg.gcpause import paused_gc
from netcfg.intent import device_intent, port_descriptions, shape_key
from netcfg.model import Device, DeviceState, Fabric, port_copy, port_described, state_copy
from netcfg.platforms import get_platform
from netcfg.policy import Policy


def parsed_intent(device: Device, fabric: Fabric, policy: Policy) -> DeviceState:
    """One device's intent, rendered and parsed back."""
    return _parsed(device, fabric, policy)[0]


def _parsed(device: Device, fabric: Fabric, policy: Policy) -> tuple[DeviceState, str]:
    platform = get_platform(device.platform)
    text = platform.render_config(device_intent(device, fabric, policy), device)
    return platform.parse_config(text, device), text


@dataclass(frozen=True, slots=True)
class _Shape:
    """The state of a shape's first device, and its text with the device's name taken out."""

    state: DeviceState
    text: str


def parsed_intents(fabric: Fabric, policy: Policy) -> dict[str, DeviceState]:
    """Every device's intent, rendered and parsed back: what `parsed_intent` gives each device."""
    # Shape -> its first device's state and text, or None where that state cannot be renamed.
    shapes: dict[tuple, _Shape | None] = {}
    states = {}
    with paused_gc():
        for name, device in fabric.devices.items():
            key = shape_key(device, fabric)
            if key not in shapes:
                state, text = _parsed(device, fabric, policy)
                states[name] = state
                renamable = _renamable(state, device, fabric)
                # A newline, as no name holds one: taking the name out joins no words into another.
                shapes[key] = _Shape(state, text.replace(name, "\n")) if renamable else None
                continue
            shape = shapes[key]
            # A name that is also a word of the shape's text (a device called `qos`) may be read
            # where the text has that word: such a device's own text is parsed.
            if shape is None or name in shape.text:
                states[name] = parsed_intent(device, fabric, policy)
            else:
                states[name] = _renamed(shape.state, device, fabric)
    return states


def _renamable(state: DeviceState, device: Device, fabric: Fabric) -> bool:
    """Whether the device's name and its ports' descriptions are all its parsed state says of names,
    each where intent put it: then another device of its shape parses to it with its own names."""
    descriptions = port_descriptions(device, fabric)
    if state.name != device.name:
        return False
    if any(port.description != descriptions.get(name) for name, port in state.interfaces.items()):
        return False
    peers = {d.partition(":")[0] for d in descriptions.values()}
    blank = state_copy(state, "")
    blank.interfaces = {n: port_copy(p, n, description=None) for n, p in state.interfaces.items()}
    text = repr(blank)
    return not any(name in text for name in (device.name, *descriptions.values(), *peers))


def _renamed(shape: DeviceState, device: Device, fabric: Fabric) -> DeviceState:
    descriptions = port_descriptions(device, fabric)
    state = state_copy(shape, device.name)
    ports = shape.interfaces.items()
    state.interfaces = {n: port_described(p, descriptions.get(n)) for n, p in ports}
    return state
