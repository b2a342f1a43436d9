"""What a platform module provides, and the registry shared code asks instead of branching on names."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from netcfg.model import Device, DeviceState, InstalledRoute, InterfaceState, PgBuffer
from netcfg.snapshot import as_saved

if TYPE_CHECKING:
    from netcfg.policy import Policy
    from netcfg.remediation import Remediation


@dataclass(frozen=True, slots=True)
class Command:
    """One command netcfg collects; `file` names its snapshot file (without `.txt`).

    `counters`: the output is counters or link state, which change between any two readings; a
    snapshot's fingerprint leaves them out, so drift still skips devices whose settings did not change.
    `optional`: see the field.
    """

    cli: str
    file: str
    counters: bool = False
    # The tool may be missing or too old for the command (NVIDIA's MFT `mlxreg` is not on every host):
    # its failure leaves what it reads unknown and does not stop the host from being judged.
    optional: bool = False


@dataclass(frozen=True, slots=True)
class RouteSource:
    """One route table a platform reads with `--routes`: the address family it holds (4 or 6), the
    command that prints the default VRF's table, and the reader of that output (the routes, or why
    the text is no such table). A family whose table was not read stays unknown."""

    family: Literal[4, 6]
    command: Command
    read: Callable[[str], list[InstalledRoute] | str]


@dataclass(frozen=True, slots=True)
class Batch:
    """Commands sent as one command line, each output preceded by a marker line, to save round trips.

    A device answers `echo "=== CMD ==="; CMD; echo "=== CMD2 ==="; CMD2`; `split` gives each output
    back under its own command's file, so snapshots and parsers see one file per command.
    """

    commands: tuple[Command, ...]

    @property
    def cli(self) -> str:
        if len(self.commands) == 1:
            return self.commands[0].cli
        return "; ".join(f'echo "{MARKER.format(c.cli)}"; {c.cli}' for c in self.commands)

    def split(self, text: str) -> dict[str, str]:
        if len(self.commands) == 1:
            return {self.commands[0].file: text}
        by_cli = {c.cli: c.file for c in self.commands}
        if not _OTHER_LINE_BREAKS.search(text):
            return self._split_lines(text, by_cli)
        return self._split_by_line(text, by_cli)

    @staticmethod
    def _split_by_line(text: str, by_cli: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        current: str | None = None
        lines: list[str] = []
        for line in text.splitlines(keepends=True):
            match = _MARKER_RE.fullmatch(line.rstrip("\r\n"))
            if match and match.group(1) in by_cli:
                if current is not None:
                    out[current] = "".join(lines)
                current, lines = by_cli[match.group(1)], []
            elif current is not None:
                lines.append(line)
        if current is not None:
            out[current] = "".join(lines)
        return out

    @staticmethod
    def _split_lines(text: str, by_cli: dict[str, str]) -> dict[str, str]:
        """`split` of a text whose only line break is `\n` (as a shell prints without a terminal):
        the marker lines are found by one regex pass and the outputs sliced out between them. Going
        line by line cost a tenth of the collector's CPU per host (40 KB of output)."""
        markers = [m for m in _MARKER_LINE.finditer(text) if m.group(1) in by_cli]
        out: dict[str, str] = {}
        for marker, following in zip(markers, [*markers[1:], None], strict=False):
            end = following.start() if following is not None else len(text)
            out[by_cli[marker.group(1)]] = text[marker.end() + 1 : end]
        return out


MARKER = "=== {} ==="
_MARKER_RE = re.compile(r"=== (.+) ===")
_MARKER_LINE = re.compile(r"^=== (.+) ===$", re.MULTILINE)
# What str.splitlines breaks lines at, besides "\n".
_OTHER_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


@dataclass(frozen=True, slots=True)
class LoadBalancing:
    """What of the policy's `load_balancing` a platform renders and reads back, as its vendor documents
    it: the hash fields it can hash on (vendor-neutral names), the modes it can run (`LbMode`), and
    which settings (`hash_fields`, `hash_seed`, `lb_mode`, `reorder_tolerant`, `nic_planes`) its
    config carries (`renders`) or only its collected outputs show (`reads`)."""

    hash_fields: frozenset[str] = frozenset()
    modes: frozenset[str] = frozenset()
    renders: frozenset[str] = frozenset()
    reads: frozenset[str] = frozenset()
    # "port": each port runs its own mode; "device": one setting for every ECMP group of the switch.
    mode_scope: Literal["port", "device"] = "port"


class Platform(ABC):
    """One platform: how to render intent, parse state back, and reach the device. What the lab needs
    to simulate one is its `Simulator` (`netcfg.platforms.simulator`), kept apart."""

    name: ClassVar[str]
    kind: ClassVar[Literal["switch", "host"]]
    netmiko_device_type: ClassVar[str]
    # Collected over one SSH exec channel per command line (a login shell runs it and closes the
    # channel) instead of netmiko's interactive session: no terminal, prompt or echo to handle.
    exec_channel: ClassVar[bool] = False
    config_suffix: ClassVar[str]
    description: ClassVar[str]
    # hier_config platform name for remediation, or None where config is not a tree (host scripts).
    hier_config_platform: ClassVar[str | None] = None
    # Snapshot file holding the running config, for `netcfg diff`.
    running_config_file: ClassVar[str | None] = None
    # Hosts: the kernel drivers of the NICs the platform configures (`ethtool -i`); a NIC on another
    # driver takes none of its settings. Empty for switches.
    nic_drivers: ClassVar[frozenset[str]] = frozenset()
    # Hosts: the policy's DCQCN knobs (`host.dcqcn` keys and `min_time_between_cnps`) the NIC has a
    # counterpart for; None: every one. Intent asks a NIC for these only, and host.dcqcn checks these.
    dcqcn_knobs: ClassVar[frozenset[str] | None] = None
    # Regular expressions (each matched against a whole command line) of the commands collection may
    # send: every one read-only on the device. A test holds every collected command to it, and the
    # lab refuses anything else. Empty: nothing may be sent.
    read_only_commands: ClassVar[tuple[str, ...]] = ()
    # Which per-port PFC buffer settings the platform configures ("cable_m": a cable length it sizes
    # headroom from; "pg_buffers": explicit headroom per priority group): intent fills these from the
    # plan, and the headroom rules compare them. EOS sizes headroom itself and configures neither.
    port_buffer_settings: ClassVar[frozenset[str]] = frozenset()
    # Whether the config the platform renders says its fabric ports route (EOS and NX-OS write
    # `no switchport`; Cumulus and SONiC ports route unless a bridge or VLAN takes them in). Junos's
    # rendering writes no unit families, so what its ports forward as is the operator's.
    renders_routed_ports: ClassVar[bool] = True
    # Whether the platform reads a port's DSCP rewrite (re-marking) from its config: a config that
    # shows none then re-marks nothing. Where it does not, what a port re-marks is unknown.
    reads_dscp_rewrite: ClassVar[bool] = False
    # The cable length the platform assumes when none is set, metres (named in the cable-length warning).
    default_cable_m: ClassVar[int | None] = None
    # Modules holding the platform's own rules (its known stock traps, named as operators know them);
    # `netcfg.checks` imports them after the shared rules.
    rule_modules: ClassVar[tuple[str, ...]] = ()
    # Load balancing the platform renders and reads (netcfg.policy.LoadBalancingPolicy); none by
    # default: a setting no vendor source documents is neither rendered nor read.
    load_balancing: ClassVar[LoadBalancing] = LoadBalancing()
    # The default VRF's route tables, one per address family, collected only when asked (`--routes`:
    # thousands of prefixes on a switch of a large fabric, which the default collection must not wait
    # for). On the read-only list like every other command. Empty: the platform reads no route table.
    route_tables: ClassVar[tuple[RouteSource, ...]] = ()

    @abstractmethod
    def commands(self, device: Device) -> list[Command]:
        """Commands to collect from this device, in order."""

    def counter_files(self, device: Device) -> frozenset[str]:
        """Snapshot files of the device's counter and link-state commands (left out of fingerprints)."""
        return frozenset(c.file for c in self.commands(device) if c.counters)

    def batches(self, device: Device) -> list[Batch]:
        """How the commands travel: one per command line unless the platform's shell can chain them."""
        return [Batch((c,)) for c in self.commands(device)]

    @abstractmethod
    def render_config(self, state: DeviceState, device: Device) -> str:
        """Intended config text (switch config or host script) for a device."""

    @abstractmethod
    def parse_config(self, text: str, device: Device) -> DeviceState:
        """DeviceState from a config text as rendered or kept in a repository."""

    @abstractmethod
    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        """DeviceState from raw command outputs keyed by `Command.file`."""

    def parse_counters(self, outputs: dict[str, str], device: Device) -> DeviceState:
        """What an earlier reading (`--previous`, `--baseline`) is judged by: the state's `counters`
        and whether its facets hold "counters", exactly as `parse_outputs` gives them. Its other
        settings, LLDP and facets are not read and must not be judged. A platform whose counters
        need only some of its outputs reads only those; by default every output is parsed."""
        return self.parse_outputs(outputs, device)

    def mask_secrets(self, text: str) -> str:
        """Output with passwords, keys and communities masked, before it is saved."""
        return text

    def saved_output(self, text: str) -> str:
        """What a snapshot keeps of one output: secrets masked, line ends as `\n`. Collection and the
        lab's simulated snapshots both save through here, so neither keeps a secret."""
        return as_saved(self.mask_secrets(text))

    def not_running_config(self, text: str) -> tuple[int, str] | None:
        """Where and why `text` is not this platform's running config (another vendor's config in the
        device's snapshot, JSON, prose); None when it is one. Remediation from a foreign text would
        negate everything: `netcfg diff` refuses it. Platforms with a `running_config_file` say."""
        return None

    def remediate(self, device: str, intended: str, running: str) -> Remediation | None:
        """Intended vs running config: a readable diff and what to apply to restore intent. None where
        the platform has no remediation (a host script is idempotent: run it again)."""
        if self.hier_config_platform is None:
            return None
        from netcfg.remediation import hier_config_remediation

        return hier_config_remediation(device, self.hier_config_platform, intended, running)

    def buffer_profile(self, headroom_bytes: int) -> PgBuffer:
        """The buffer a lossless priority group is configured with, for the headroom the plan needs
        (platforms with "pg_buffers" in `port_buffer_settings`; SONiC adds its xon and size)."""
        return PgBuffer(xoff=headroom_bytes)

    def nic_intent(self, port: InterfaceState, policy: Policy) -> InterfaceState:
        """Hosts: one NIC's intended settings as the platform holds them, from what the policy asks
        of every NIC (a NIC family that lists only the DSCPs it was given, or sizes its headroom
        without a cable length, says so here). Default: as asked."""
        return port

    def hash_intent(self, fields: frozenset[str]) -> frozenset[str]:
        """The ECMP hash fields the platform runs when the policy asks for `fields`: those it can hash
        on (a platform whose hash comes in fixed sets says which set it picks)."""
        return fields & self.load_balancing.hash_fields

    def complete_intent(self, state: DeviceState, policy: Policy) -> DeviceState:
        """The intent with what the platform runs beyond what the policy names (code points and classes
        the policy leaves alone), where the platform's read-back shows them: parse(render(intent)) must
        give the intent back. Default: the intent as the policy makes it."""
        return state


def is_read_only(platform: Platform, cli: str) -> bool:
    """True when `cli` is on the platform's read-only list, or is a `Batch` line of such commands."""
    parts = cli.split("; ")
    if len(parts) == 1:
        return any(re.fullmatch(pattern, cli) for pattern in platform.read_only_commands)
    # Exactly what Batch.cli builds: a marker echo naming each read-only command, then the command.
    return len(parts) % 2 == 0 and all(
        echo == f'echo "{MARKER.format(command)}"' and is_read_only(platform, command)
        for echo, command in zip(parts[::2], parts[1::2], strict=True)
    )


_REGISTRY: dict[str, Platform] = {}


def register(cls: type[Platform]) -> type[Platform]:
    _REGISTRY[cls.name] = cls()
    return cls


def registry() -> dict[str, Platform]:
    return _REGISTRY
