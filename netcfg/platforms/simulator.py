"""The simulator contract: what a simulated device of one platform prints, for the lab.

`Platform` (`netcfg.platforms.base`) is what netcfg needs of a real device. A `Simulator` is what the
lab needs to play one: its CLI's behaviour over SSH, the outputs a device in a given state prints, its
factory QoS and what it shows as applied but not operational. Each platform's simulator is
`netcfg/platforms/<name>/lab.py`, registered with `register_simulator`. Only the lab imports this
module; collection and checks never load a simulator.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import ClassVar

from netcfg.errors import InputError
from netcfg.model import Device, DeviceState, InstalledRoute, InterfaceState, Link
from netcfg.platforms import Platform, get_platform, registry
from netcfg.platforms.base import is_read_only


@dataclass(frozen=True)
class CliProfile:
    """How one platform's CLI behaves over SSH.

    ``prompt`` is a ``str.format`` template with ``{name}`` and ``{user}``, e.g. ``"{name}#"`` (EOS) or
    ``"{user}@{name}:~$ "`` (Linux host). ``setup_replies`` maps exact command lines to the text the CLI
    prints for them; drivers such as netmiko's ``arista_eos`` wait for these confirmations during session
    preparation, and ``""`` means the command prints nothing. ``invalid_input`` is a ``str.format``
    template with ``{command}``, e.g. ``"% Invalid input"`` or ``"-bash: {command}: command not found"``.
    """

    prompt: str
    setup_replies: Mapping[str, str]
    invalid_input: str


def bash_profile(prompt: str = "{user}@{name}:~$ ") -> CliProfile:
    """A login shell (Linux hosts, SONiC, Cumulus): no session preparation, bash's refusal."""
    return CliProfile(prompt=prompt, setup_replies={}, invalid_input="-bash: {command}: command not found")


class Simulator(ABC):
    """A simulated device of one platform, as the lab plays it."""

    # The platform this simulator plays (its registry name).
    platform_name: ClassVar[str]
    cli_profile: ClassVar[CliProfile]
    # What a simulated device reports when the policy allows no version by name (the NOS, or the
    # NIC's firmware), and the switch model (None: the platform prints none).
    version: ClassVar[str]
    model: ClassVar[str | None] = None

    @property
    def platform(self) -> Platform:
        """The platform played: the commands a device answers, and which of them are read-only."""
        return get_platform(self.platform_name)

    def answers(self, cli: str) -> bool:
        """Whether a simulated device runs `cli`: only the platform's read-only commands (a line of
        them chained as collection sends them); anything else it refuses, as a device refuses an
        unknown command, and nothing changes."""
        return is_read_only(self.platform, cli)

    @abstractmethod
    def render_outputs(self, state: DeviceState, device: Device) -> dict[str, str]:
        """What a device in this state prints for each command it is collected with, keyed by
        `Command.cli`."""

    def render_routes(self, routes: list[InstalledRoute], family: int) -> str | None:
        """What the device prints for its platform's route table of `family` (4 or 6), its default
        VRF holding these routes; None where the simulator does not print that table."""
        return None

    def render_readings(self, state: DeviceState, device: Device) -> dict[str, str] | None:
        """The outputs of `render_outputs` that change from one reading to the next (counters, link
        events, the time read): the lab renders the others once per device, as a device serves its
        configuration from memory. None: any output may change, and every reading renders them all."""
        return None

    def factory_qos(self, state: DeviceState, device: Device) -> DeviceState | None:
        """The state with its QoS as the platform ships it before anyone configures RoCE (the lab's
        `factory_qos` fault, e.g. SONiC's stock AZURE maps); None where the simulator does not model it."""
        return None

    def live_nic(self, port: InterfaceState, link: Link | None) -> InterfaceState:
        """Hosts: a healthy NIC of this intent as the lab plays it, with what its driver and firmware
        run beyond the host script (receive buffers sized for its cable, who runs DCBX), where the
        platform's read-back shows them. Default: the intent."""
        return port

    def operational_gap(self, applied: DeviceState, running: DeviceState) -> dict[str, tuple[str, str]]:
        """What a device whose configuration is `applied` but whose hardware runs `running` shows as
        applied but not operational, as `DeviceState.not_operational` holds it (the lab's
        `not_operational` fault). Empty where the platform shows one value per setting."""
        return {}


_SIMULATORS: dict[str, Simulator] = {}


def register_simulator(cls: type[Simulator]) -> type[Simulator]:
    _SIMULATORS[cls.platform_name] = cls()
    return cls


def simulator(name: str) -> Simulator:
    """The simulator of a registered platform (its package's `lab.py`, imported on first use)."""
    if name not in _SIMULATORS:
        import_module(f"{type(get_platform(name)).__module__}.lab")
    try:
        return _SIMULATORS[name]
    except KeyError:
        raise InputError(f"platform {name!r}", "the lab has no simulator for it") from None


def simulators() -> dict[str, Simulator]:
    """Every registered platform's simulator."""
    return {name: simulator(name) for name in registry()}
