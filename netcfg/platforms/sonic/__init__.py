"""SONiC switches: config_db JSON rendered and read back, collected over the Linux shell.

Render: the config_db tables of the QoS chain (render.py). Read: a whole config_db.json as
`show runningconfiguration all` prints it (or a fragment such as sonic-cfggen's qos.json) for
`--configs` and snapshots (parse.py); live also `show version`, `show lldp table`, and
`pfcwd show config` / `show interfaces status`, which say what runs where the config says what
is set, and the link state and counters (counters.py). What the lab's switches print: lab.py.
Remediation is a JSON patch (patch.py); the stock AZURE traps are rules (rules.py).
"""

from __future__ import annotations

import dataclasses
import json
import re
from functools import lru_cache
from typing import ClassVar

from netcfg.model import Device, DeviceState, LldpNeighbor, PgBuffer
from netcfg.platforms import frr
from netcfg.platforms.base import Batch, Command, LoadBalancing, Platform, RouteSource, register
from netcfg.platforms.sonic import balancing, counters, secrets, show
from netcfg.platforms.sonic.commands import COMMANDS, LLDP, PFCWD, ROUTES, ROUTES6, RUNNING, STATUS, VERSION
from netcfg.platforms.sonic.configdb import ConfigDb, Unreadable, json_part, load
from netcfg.platforms.sonic.names import PIPELINE_XON_BYTES, STOCK_CABLE_M
from netcfg.platforms.sonic.parse import entries, parse_db
from netcfg.platforms.sonic.render import config_db, render_text
from netcfg.remediation import Remediation

# parse_config's name for the document it was given, in `unparsed` and `locations`.
CONFIG_DB = "config_db JSON"


@register
class Sonic(Platform):
    name: ClassVar[str] = "sonic"
    kind: ClassVar = "switch"
    reads_dscp_rewrite: ClassVar[bool] = True
    # SONiC's login shell is bash and its CLI is commands in it: netmiko's Linux driver (the notes
    # found `edgecore_sonic` to be the same class; `dell_sonic` expects the sonic-cli shell instead).
    netmiko_device_type: ClassVar[str] = "linux"
    config_suffix: ClassVar[str] = ".json"
    description: ClassVar[str] = "SONiC switch (config_db JSON)"
    running_config_file: ClassVar[str | None] = RUNNING.file
    read_only_commands: ClassVar[tuple[str, ...]] = tuple(
        re.escape(c.cli) for c in (*COMMANDS, ROUTES, ROUTES6)
    )
    route_tables: ClassVar[tuple[RouteSource, ...]] = (
        RouteSource(4, ROUTES, frr.read_routes),
        RouteSource(6, ROUTES6, frr.read_routes6),
    )
    port_buffer_settings: ClassVar[frozenset[str]] = frozenset({"cable_m", "pg_buffers"})
    # The T0 `default_cable` of SONiC's buffer templates, and their ToR-to-server length.
    default_cable_m: ClassVar[int | None] = STOCK_CABLE_M["leaf"]
    rule_modules: ClassVar[tuple[str, ...]] = ("netcfg.platforms.sonic.rules",)
    load_balancing: ClassVar[LoadBalancing] = balancing.SUPPORT

    def commands(self, device: Device) -> list[Command]:
        return list(COMMANDS)

    def batches(self, device: Device) -> list[Batch]:
        # The shell is bash: one command line for every output.
        return [Batch(tuple(COMMANDS))]

    def render_config(self, state: DeviceState, device: Device) -> str:
        return render_text(config_db(state))

    def parse_config(self, text: str, device: Device) -> DeviceState:
        # The switches of a fabric differ in their hostname and port descriptions, which the chain
        # does not depend on: the text without them parses once, and each switch gets its own.
        shape = _parse_shape(_PER_SWITCH.sub(r'\1""', text))
        state = _copy(shape, device.name)
        if state.unparsed:
            return state
        ports = _descriptions(text)
        for name, port in state.interfaces.items():
            if port.description is not None:
                port.description = ports.get(name, port.description)
        return state

    def parse_outputs(self, outputs: dict[str, str], device: Device) -> DeviceState:
        facets = {"qos", "version", "lldp"}
        running = outputs.get(RUNNING.file)
        db: ConfigDb | None = None
        try:
            if running is None:
                raise Unreadable(1, "output missing")
            db = load(running)
            state = parse_db(db, device.name, self.name)
        except Unreadable as exc:
            state = DeviceState(name=device.name, platform=self.name)
            state.unparsed[RUNNING.cli] = exc.why if running is None else f"line {exc.line}: {exc.why}"
            # What an unreadable config says is no evidence either way: parse.unknown_output reports
            # it once, and no QoS rule guesses from it.
            facets -= {"qos"}
        state.os_version, state.model = show.version(outputs.get(VERSION.file, ""))
        if state.os_version is None:
            state.unparsed[VERSION.cli] = "no 'SONiC Software Version' line"
            facets -= {"version"}
        lldp = show.read_table(outputs.get(LLDP.file, ""))
        if lldp is None or "LocalPort" not in lldp[0] or "RemoteDevice" not in lldp[0]:
            state.unparsed[LLDP.cli] = "no LocalPort / RemoteDevice table"
            # An unreadable table says nothing about cabling (see EOS).
            facets -= {"lldp"}
        else:
            state.lldp = [
                LldpNeighbor(r["LocalPort"], r["RemoteDevice"], r.get("RemotePortID", "")) for r in lldp[1]
            ]
        if db is not None:
            _running_watchdog(state, db, outputs.get(PFCWD.file))
            _running_mtu(state, outputs.get(STATUS.file))
        if counters.read_link(state, outputs.get(STATUS.file)) and STATUS.cli not in state.unparsed:
            facets.add("link")
        unread = counters.read_counters(state, outputs)
        state.unparsed |= unread
        if state.counters and not unread:
            facets.add("counters")
        state.facets = frozenset(facets)
        return state

    def mask_secrets(self, text: str) -> str:
        return secrets.mask(text)

    def not_running_config(self, text: str) -> tuple[int, str] | None:
        try:
            load(text)
        except Unreadable as exc:
            return exc.line, f"not a SONiC running config: {exc.why}; expected config_db JSON"
        return None

    def remediate(self, device: str, intended: str, running: str) -> Remediation | None:
        from netcfg.platforms.sonic.patch import remediation

        return remediation(device, intended, running, RUNNING.cli)

    def buffer_profile(self, headroom_bytes: int) -> PgBuffer:
        """xoff holds the headroom; xon is the ASIC pipeline latency, and the group reserves both, as
        SONiC's headroom calculation sizes a lossless profile (size = xoff + xon)."""
        return PgBuffer(size=headroom_bytes + PIPELINE_XON_BYTES, xoff=headroom_bytes, xon=PIPELINE_XON_BYTES)


# The values one switch's config holds and no other: its hostname and its ports' descriptions.
_PER_SWITCH = re.compile(r'("(?:hostname|description)"[ \t]*:[ \t]*)"(?:[^"\\\n]|\\.)*"')


@lru_cache(maxsize=256)
def _parse_shape(text: str) -> DeviceState:
    """The state of a config_db text, shared by the switches it stands for: callers copy it."""
    try:
        return parse_db(load(text), "", Sonic.name)
    except Unreadable as exc:
        state = DeviceState(name="", platform=Sonic.name, facets=frozenset({"qos"}))
        state.unparsed[CONFIG_DB] = exc.why
        state.locations[CONFIG_DB] = exc.line
        return state


def _copy(shape: DeviceState, name: str) -> DeviceState:
    ports = {
        n: dataclasses.replace(
            p,
            ecn=dict(p.ecn),
            pg_buffers=dict(p.pg_buffers),
            dscp_map=None if p.dscp_map is None else dict(p.dscp_map),
        )
        for n, p in shape.interfaces.items()
    }
    # Locations are shared: nothing writes to them once parsed.
    return dataclasses.replace(
        shape,
        name=name,
        interfaces=ports,
        dscp_map=dict(shape.dscp_map),
        tc_queue=dict(shape.tc_queue),
        tc_pg=dict(shape.tc_pg),
        tc_pfc=dict(shape.tc_pfc),
        qos_names=dict(shape.qos_names),
        unparsed=dict(shape.unparsed),
        not_operational=dict(shape.not_operational),
        lldp=[],
    )


def _descriptions(text: str) -> dict[str, str]:
    """PORT descriptions of a text the shape parse has read (so it is config_db, nested or flat)."""
    data = json.loads(json_part(text))
    ports = dict(data.get("PORT", {}))
    ports |= {k.partition("|")[2]: v for k, v in data.items() if k.startswith("PORT|")}
    return {n: f["description"] for n, f in ports.items() if isinstance(f.get("description"), str)}


def _running_watchdog(state: DeviceState, db: ConfigDb, text: str | None) -> None:
    """`pfcwd show config` lists the ports the watchdog runs on (those the ASIC has): a PFC_WD entry
    it does not list, or lists with other timers, is set but not running."""
    found = show.read_table(text or "")
    if found is None or "PORT" not in found[0] or "ACTION" not in found[0]:
        state.unparsed[PFCWD.cli] = "no PORT / ACTION table"
        return
    if "watchdog" in state.unread:
        # A config that shows no PFC_WD table sets nothing to compare what runs with.
        return
    shown = {
        r["PORT"]: _timers(r.get("ACTION"), r.get("DETECTION TIME"), r.get("RESTORATION TIME"))
        for r in found[1]
    }
    configured = {
        port: _timers(f.get("action", "drop"), f.get("detection_time"), f.get("restoration_time"))
        for _, port, _, f in entries(db, "PFC_WD")
    }
    for port in state.interfaces:
        applied, running = configured.get(port), shown.get(port)
        if applied != running:
            state.not_operational[f"{port}.watchdog"] = (applied or "off", running or "off")


def _timers(action: object, detect: object, restore: object) -> str:
    return f"{action} {detect}/{restore} ms"


def _running_mtu(state: DeviceState, text: str | None) -> None:
    """`show interfaces status` prints the MTU each port runs with."""
    found = show.read_table(text or "")
    if found is None or "Interface" not in found[0] or "MTU" not in found[0]:
        state.unparsed[STATUS.cli] = "no Interface / MTU table"
        return
    for row in found[1]:
        port = state.interfaces.get(row["Interface"])
        if port is not None and port.mtu is not None and row["MTU"] != str(port.mtu):
            state.not_operational[f"{port.name}.mtu"] = (str(port.mtu), row["MTU"])
