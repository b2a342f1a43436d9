"""config_db tables -> the vendor-neutral QoS chain of one switch.

A port's classification is the DSCP_TO_TC_MAP its own PORT_QOS_MAP entry binds (`PORT_QOS_MAP|global`
is a switch-level map, a no-op on ASICs without SAI_SWITCH_ATTR_QOS_DSCP_TO_TC_MAP); the device-wide
map is the global one, else the one most ports bind, and a port binding another keeps its own.
The chain: TC_TO_QUEUE_MAP, TC_TO_PRIORITY_GROUP_MAP, and the PFC priority whose
MAP_PFC_PRIORITY_TO_QUEUE entry pauses the class's queue. ECN from the WRED_PROFILE a QUEUE binds,
strict queues from SCHEDULER type STRICT, PFC from `pfc_enable`, the watchdog from PFC_WD (and
`pfcwd_sw_enable`), lossless buffers from BUFFER_PG -> BUFFER_PROFILE, CABLE_LENGTH, PORT mtu.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator

from netcfg.model import DeviceState, EcnSetting, InterfaceState, PgBuffer, Watchdog
from netcfg.platforms.sonic.balancing import read_hash
from netcfg.platforms.sonic.configdb import ConfigDb, Unreadable
from netcfg.platforms.sonic.names import DEFAULT_MTU, MAP_TABLES, own

# WRED `ecn` modes that mark green packets (RoCE is never policed, so it stays green), and the colours
# each marks: a colour marks only where its `wred_<colour>_enable` is true (SAI's default is off).
_GREEN_ECN = {
    "ecn_all": ("green", "yellow", "red"),
    "ecn_green": ("green",),
    "ecn_green_yellow": ("green", "yellow"),
    "ecn_green_red": ("green", "red"),
}
# SAI's WRED drop (mark) probability where a profile sets none, percent.
_SAI_DEFAULT_PROBABILITY = 100
# Per-port tables: keys `PORT` or `PORT|index` (a queue, a priority group; ranges `3-4`), where old
# SONiC also lists ports `Ethernet0,Ethernet4|3`; and the keys there that are no port.
PORT_TABLES = ("PORT_QOS_MAP", "QUEUE", "BUFFER_PG", "PFC_WD")
NOT_PORTS = frozenset({"global", "GLOBAL"})
# The DeviceState field each map of the chain fills.
_CHAIN_FIELD = {"tc_to_queue_map": "tc_queue", "tc_to_pg_map": "tc_pg", "pfc_to_queue_map": "tc_pfc"}


def parse_db(db: ConfigDb, name: str, platform: str) -> DeviceState:
    """The QoS state of a config_db document (a whole device's, or a fragment's tables)."""
    state = DeviceState(name=name, platform=platform, facets=frozenset({"qos"}))
    read = _Reader(db)
    for port in _ports(db):
        state.interfaces[port] = InterfaceState(name=port)
    _read_ports(read, db, state)
    _read_bindings(read, db, state)
    _read_queues(read, db, state)
    _read_buffers(read, db, state)
    _read_watchdog(read, db, state)
    _read_switching(db, state)
    _read_rewrite(read, db, state)
    state.hash_fields, where = read_hash(db)
    _at(state.locations, "hash_fields", db.line(*where) if where else None)
    state.locations[""] = 1
    return state


class _Reader:
    """Typed values of config_db fields; a value that cannot be read is Unreadable at its line."""

    def __init__(self, db: ConfigDb) -> None:
        self.db = db

    def bad(self, path: tuple[str, ...], why: str) -> Unreadable:
        line = self.db.line(*path) or self.db.line(*path[:2]) or self.db.line(path[0]) or 1
        return Unreadable(line, f"{'|'.join(path[:2])}: {'.'.join(path[2:]) or 'entry'} {why}")

    def text(self, path: tuple[str, ...], value: object) -> str:
        if not isinstance(value, str):
            raise self.bad(path, f"is {type(value).__name__}; expected a string")
        return value

    def number(self, path: tuple[str, ...], value: object, high: int = 2**32) -> int:
        text = self.text(path, value).strip()
        if not text.isdigit() or int(text) > high:
            raise self.bad(path, f"is {text[:20]!r}; expected a whole number up to {high}")
        return int(text)

    def numbers(self, path: tuple[str, ...], value: object, high: int) -> frozenset[int]:
        """'3,4' or '' -> {3, 4} or {}."""
        parts = [p for p in self.text(path, value).split(",") if p.strip()]
        return frozenset(self.number(path, p, high) for p in parts)

    def index_map(self, table: str, name: str, high_key: int, high_value: int) -> dict[int, int]:
        """A map table's entry ({'26': '3'} -> {26: 3}); {} where the map is not defined."""
        entry = (self.db.table(table) or {}).get(name, {})
        return {
            self.number((table, name, k), k, high_key): self.number((table, name, k), v, high_value)
            for k, v in entry.items()
        }


def reference(value: str) -> str:
    """An object reference by name: `AZURE`, or old SONiC's `[DSCP_TO_TC_MAP|AZURE]`."""
    if value.startswith("[") and value.endswith("]") and "|" in value:
        return value[1:-1].split("|", 1)[1]
    return value


def split_key(key: str) -> tuple[list[str], str]:
    """'Ethernet0,Ethernet4|3-4' -> (['Ethernet0', 'Ethernet4'], '3-4')."""
    ports, _, index = key.partition("|")
    return [p for p in ports.split(",") if p], index


def _indexes(read: _Reader, path: tuple[str, ...], text: str, high: int) -> range:
    low, _, top = text.partition("-")
    first = read.number(path, low, high)
    last = read.number(path, top, high) if top else first
    return range(first, last + 1)


def _ports(db: ConfigDb) -> list[str]:
    names = dict.fromkeys(db.tables.get("PORT", {}))
    for table in PORT_TABLES:
        for key in db.tables.get(table, {}):
            names.update(dict.fromkeys(p for p in split_key(key)[0] if p not in NOT_PORTS))
    for entry in db.tables.get("CABLE_LENGTH", {}).values():
        names.update(dict.fromkeys(entry))
    return list(names)


def entries(db: ConfigDb, table: str) -> Iterator[tuple[str, str, str, dict]]:
    """(raw key, port, index, fields) of a per-port table, one per port a key names."""
    for key, fields in (db.table(table) or {}).items():
        ports, index = split_key(key)
        for port in ports:
            if port not in NOT_PORTS:
                yield key, port, index, fields


def _read_ports(read: _Reader, db: ConfigDb, state: DeviceState) -> None:
    table = db.table("PORT")
    loc = state.locations
    for name, fields in (table or {}).items():
        port = state.interfaces[name]
        if "mtu" in fields:
            port.mtu = read.number(("PORT", name, "mtu"), fields["mtu"], 65535)
        else:
            port.mtu = DEFAULT_MTU
        if "description" in fields:
            port.description = read.text(("PORT", name, "description"), fields["description"])
        _at(loc, name, db.line("PORT", name))
        _at(loc, f"{name}.mtu", db.line("PORT", name, "mtu") or db.line("PORT", name))
    cables = db.table("CABLE_LENGTH")
    for key, entry in (cables or {}).items():
        for name, value in entry.items():
            path = ("CABLE_LENGTH", key, name)
            text = read.text(path, value)
            if not text.endswith("m"):
                raise read.bad(path, f"is {text[:20]!r}; expected metres such as '5m'")
            state.interfaces[name].cable_m = read.number(path, text[:-1], 100_000)
            _at(loc, sys.intern(f"{name}.cable_m"), db.line(*path))


def _read_switching(db: ConfigDb, state: DeviceState) -> None:
    """A port in VLAN_MEMBER switches in its VLAN; a PORTCHANNEL_MEMBER forwards as its channel; any
    other port of a whole config_db is in no VLAN. A fragment (a qos.json) does not say."""
    vlans, channels = db.table("VLAN_MEMBER"), db.table("PORTCHANNEL_MEMBER")
    if vlans is None or channels is None:
        return
    members = {key.partition("|")[2]: key for key in vlans}
    bundled = {key.partition("|")[2] for key in channels}
    for name, port in state.interfaces.items():
        if name in bundled:
            continue
        port.switched = name in members
        if port.switched:
            _at(state.locations, sys.intern(f"{name}.switched"), db.line("VLAN_MEMBER", members[name]))


def _read_rewrite(read: _Reader, db: ConfigDb, state: DeviceState) -> None:
    """The DSCP rewrite of each port: the TC_TO_DSCP_MAP its PORT_QOS_MAP entry binds
    (`tc_to_dscp_map`) re-marks each class it lists; a port that binds none re-marks nothing. A map
    bound but not defined leaves the port's rewrite unknown."""
    table = db.table("PORT_QOS_MAP")
    if table is None:
        return
    maps = db.table("TC_TO_DSCP_MAP") or {}
    named = set()
    for key, name, _, fields in entries(db, "PORT_QOS_MAP"):
        named.add(name)
        port = state.interfaces[name]
        if "tc_to_dscp_map" not in fields:
            port.dscp_rewrite = {}
            continue
        bound = reference(read.text(("PORT_QOS_MAP", key, "tc_to_dscp_map"), fields["tc_to_dscp_map"]))
        if bound in maps:
            port.dscp_rewrite = dict(read.index_map("TC_TO_DSCP_MAP", bound, 15, 63))
            _at(
                state.locations,
                sys.intern(f"{name}.dscp_rewrite"),
                db.line("PORT_QOS_MAP", key, "tc_to_dscp_map"),
            )
    if db.full:
        for name, port in state.interfaces.items():
            if name not in named:
                port.dscp_rewrite = {}


def _read_bindings(read: _Reader, db: ConfigDb, state: DeviceState) -> None:
    """PORT_QOS_MAP: trust, PFC, and the maps of the chain."""
    table = db.table("PORT_QOS_MAP")
    if table is None:
        return
    loc = state.locations
    bound: dict[str, dict[str, str]] = {kind: {} for kind in MAP_TABLES}
    seen = set()
    for key, name, _, fields in entries(db, "PORT_QOS_MAP"):
        seen.add(name)
        port = state.interfaces[name]
        for kind in MAP_TABLES:
            if kind in fields:
                bound[kind][name] = reference(read.text(("PORT_QOS_MAP", key, kind), fields[kind]))
        if name in bound["dscp_to_tc_map"]:
            port.trust = "dscp"
        else:
            port.trust = "cos" if name in bound["dot1p_to_tc_map"] else "none"
        pfc = read.numbers(("PORT_QOS_MAP", key, "pfc_enable"), fields.get("pfc_enable", ""), 7)
        port.no_drop_priorities, port.pfc_enabled = pfc, bool(pfc)
        line = db.line("PORT_QOS_MAP", key)
        _at(loc, name, line)
        for fld, at in (
            ("trust", "dscp_to_tc_map"),
            ("dscp_map", "dscp_to_tc_map"),
            ("pfc_enabled", "pfc_enable"),
            ("no_drop_priorities", "pfc_enable"),
        ):
            _at(loc, sys.intern(f"{name}.{fld}"), db.line("PORT_QOS_MAP", key, at) or line)
    for name, port in state.interfaces.items():
        if name not in seen and db.full:
            # A port no PORT_QOS_MAP entry names classifies nothing and pauses nothing.
            port.trust, port.pfc_enabled, port.no_drop_priorities = "none", False, frozenset()
    glob = table.get("global", {})
    if "dscp_to_tc_map" in glob:
        device = reference(read.text(("PORT_QOS_MAP", "global", "dscp_to_tc_map"), glob["dscp_to_tc_map"]))
    else:
        device = _most_common(bound["dscp_to_tc_map"])
    if device is not None:
        state.dscp_map = read.index_map("DSCP_TO_TC_MAP", device, 63, 15)
        _at(loc, "dscp_map", db.line("DSCP_TO_TC_MAP", device) or db.line("PORT_QOS_MAP", "global"))
    maps: dict[str, dict[int, int]] = {}
    for name, map_name in bound["dscp_to_tc_map"].items():
        if map_name not in maps:
            maps[map_name] = read.index_map("DSCP_TO_TC_MAP", map_name, 63, 15)
        if map_name != device and maps[map_name] != state.dscp_map:
            state.interfaces[name].dscp_map = dict(maps[map_name])
    names = {kind: _most_common(ports) for kind, ports in bound.items()}
    names["dscp_to_tc_map"] = device
    state.qos_names = {kind: n for kind, n in names.items() if n is not None and not own(n)}
    _read_chain(read, db, state, names)


def _read_chain(read: _Reader, db: ConfigDb, state: DeviceState, names: dict[str, str | None]) -> None:
    def the_map(kind: str, high: int) -> dict[int, int]:
        name = names[kind]
        if name is not None and name not in (db.table(MAP_TABLES[kind]) or {}):
            # Bound but not defined: the map is unknown, not the identity.
            state.unread |= {_CHAIN_FIELD[kind]}
        return {} if name is None else read.index_map(MAP_TABLES[kind], name, 15, high)

    state.tc_queue = {tc: q for tc, q in the_map("tc_to_queue_map", 15).items() if tc != q}
    state.tc_pg = {tc: pg for tc, pg in the_map("tc_to_pg_map", 7).items() if tc != pg}
    pfc_queue = the_map("pfc_to_queue_map", 15)
    if names["tc_to_queue_map"] is not None:
        _at(state.locations, "tc_queue", db.line("TC_TO_QUEUE_MAP", names["tc_to_queue_map"]))
    classes = set(range(8)) | set(state.tc_queue) | set(state.tc_pg)
    for tc in sorted(classes):
        queue = state.queue_of(tc)
        pausing = sorted(p for p, q in pfc_queue.items() if q == queue)
        # The class's own number where it pauses the class's queue; a class whose queue no
        # priority pauses keeps its own number (the model has no "unpaused" class).
        if pausing and tc not in pausing:
            state.tc_pfc[tc] = pausing[0]


def _read_queues(read: _Reader, db: ConfigDb, state: DeviceState) -> None:
    """QUEUE: ECN from the bound WRED_PROFILE, strict priority from the bound SCHEDULER. A fragment
    without the table, or a queue bound to a profile or scheduler the document does not define,
    leaves those settings unread (a whole device's config without the table marks nothing)."""
    if db.table("QUEUE") is None:
        for port in state.interfaces.values():
            port.unread |= {"ecn", "strict_queues"}
        return
    profiles = db.table("WRED_PROFILE") or {}
    schedulers = db.table("SCHEDULER") or {}
    wred_names: Counter[str] = Counter()
    settings: dict[str, EcnSetting | None] = {}
    strict: dict[str, set[int]] = {}
    first: dict[str, int | None] = {}
    loc = state.locations
    for key, name, index, fields in entries(db, "QUEUE"):
        port = state.interfaces[name]
        queues = _indexes(read, ("QUEUE", key), index, 15)
        if "scheduler" in fields:
            scheduler = reference(read.text(("QUEUE", key, "scheduler"), fields["scheduler"]))
            if scheduler not in schedulers:
                port.unread |= {"strict_queues"}
            kind = schedulers.get(scheduler, {}).get("type")
            if isinstance(kind, str) and kind.upper() == "STRICT":
                strict.setdefault(name, set()).update(queues)
                _first(loc, f"{name}.strict_queues", db.line("QUEUE", key, "scheduler"))
        if "wred_profile" in fields:
            profile = reference(read.text(("QUEUE", key, "wred_profile"), fields["wred_profile"]))
            if profile not in profiles:
                port.unread |= {"ecn"}
            if profile not in settings:
                settings[profile] = _ecn(read, profile, profiles.get(profile))
            if settings[profile] is not None:
                wred_names[profile] += 1
                port.ecn.update(dict.fromkeys(queues, settings[profile]))
                _first(loc, f"{name}.ecn", db.line("QUEUE", key, "wred_profile"))
            elif (why := _not_marking(read, profile, profiles.get(profile))) is not None:
                state.ecn_not_marking[profile] = why
                port.ecn_not_marking.update(dict.fromkeys(queues, profile))
                _first(loc, f"ecn_not_marking {profile}", db.line("WRED_PROFILE", profile))
        first.setdefault(name, db.line("QUEUE", key))
    # A port whose queues mark no ECN (or have no strict one) points at its first queue.
    for name, line in first.items():
        for fld in ("ecn", "strict_queues"):
            _first(loc, f"{name}.{fld}", line)
    for name, queues in strict.items():
        state.interfaces[name].strict_queues = frozenset(queues)
    if wred_names:
        common = wred_names.most_common(1)[0][0]
        if not own(common):
            state.qos_names["wred_profile"] = common


def _ecn(read: _Reader, name: str, profile: dict | None) -> EcnSetting | None:
    """The green ECN marking of a WRED profile; None where it marks no green packet (or is missing)."""
    if profile is None:
        return None
    path = ("WRED_PROFILE", name)
    mode = read.text((*path, "ecn"), profile.get("ecn", "ecn_none"))
    if mode not in _GREEN_ECN or _enable(read, name, profile, "green") != "true":
        return None

    def value(field: str, default: int) -> int:
        return read.number((*path, field), profile[field]) if field in profile else default

    return EcnSetting(
        min_bytes=value("green_min_threshold", -1),
        max_bytes=value("green_max_threshold", -1),
        probability=value("green_drop_probability", _SAI_DEFAULT_PROBABILITY),
    )


def _not_marking(read: _Reader, name: str, profile: dict | None) -> str | None:
    """What a profile says that asks for green ECN marking yet leaves it off (`ecn ecn_all` with
    `wred_green_enable false`); None where it marks green or asks for no green marking."""
    if profile is None:
        return None
    mode = read.text(("WRED_PROFILE", name, "ecn"), profile.get("ecn", "ecn_none"))
    if mode not in _GREEN_ECN:
        return None
    flags = {c: _enable(read, name, profile, c) for c in _GREEN_ECN[mode]}
    if flags["green"] == "true":
        return None
    off = ", ".join(
        f"wred_{c}_enable {v if f'wred_{c}_enable' in profile else 'unset'}"
        for c, v in flags.items()
        if v != "true"
    )
    return f"ecn {mode}, {off}"


def _enable(read: _Reader, name: str, profile: dict, colour: str) -> str:
    field = f"wred_{colour}_enable"
    return read.text(("WRED_PROFILE", name, field), profile.get(field, "false"))


def _read_buffers(read: _Reader, db: ConfigDb, state: DeviceState) -> None:
    """BUFFER_PG -> BUFFER_PROFILE for the lossless groups. `NULL` is the dynamic model (buffermgrd
    sizes headroom from speed and CABLE_LENGTH: nothing to compare here); a profile without xoff is
    a lossy group's."""
    if db.table("BUFFER_PG") is None:
        return
    profiles = db.table("BUFFER_PROFILE") or {}
    cache: dict[str, PgBuffer | None] = {}
    for key, name, index, fields in entries(db, "BUFFER_PG"):
        if "profile" not in fields:
            continue
        profile = reference(read.text(("BUFFER_PG", key, "profile"), fields["profile"]))
        if profile == "NULL":
            continue
        if profile not in cache:
            cache[profile] = _pg_buffer(read, profile, profiles.get(profile))
        buffer = cache[profile]
        if profile not in profiles:
            # Bound but not defined: the group's buffer is unknown.
            state.interfaces[name].unread |= {"pg_buffers"}
            continue
        if buffer is None:
            continue
        for pg in _indexes(read, ("BUFFER_PG", key), index, 7):
            state.interfaces[name].pg_buffers[pg] = buffer
        _at(state.locations, sys.intern(f"{name}.pg_buffers"), db.line("BUFFER_PG", key))


def _pg_buffer(read: _Reader, name: str, profile: dict | None) -> PgBuffer | None:
    if profile is None or "xoff" not in profile:
        return None
    path = ("BUFFER_PROFILE", name)
    values = {
        f: read.number((*path, f), profile[f]) if f in profile else None for f in ("size", "xoff", "xon")
    }
    return PgBuffer(**values)


def _read_watchdog(read: _Reader, db: ConfigDb, state: DeviceState) -> None:
    """PFC_WD: per-port action and timers (device-wide where the ports agree, else unknown) and
    GLOBAL POLL_INTERVAL; a port is guarded where it has an entry and `pfcwd_sw_enable` (where set)
    covers its `pfc_enable` priorities."""
    table = db.table("PFC_WD")
    if table is None:
        # A fragment (sonic-cfggen's qos.json) says nothing of the watchdog.
        state.unread |= {"watchdog"}
        return
    sw_enable = {
        port: read.numbers(("PORT_QOS_MAP", key, "pfcwd_sw_enable"), fields["pfcwd_sw_enable"], 7)
        for key, port, _, fields in entries(db, "PORT_QOS_MAP")
        if "pfcwd_sw_enable" in fields
    }
    timers: list[tuple[str | None, int | None, int | None]] = []
    guarded = set()
    loc = state.locations
    for key, name, _, fields in entries(db, "PFC_WD"):
        path = ("PFC_WD", key)
        action = read.text((*path, "action"), fields["action"]) if "action" in fields else None
        detect, restore = (
            read.number((*path, f), fields[f]) if f in fields else None
            for f in ("detection_time", "restoration_time")
        )
        timers.append((action, detect, restore))
        port = state.interfaces[name]
        if name not in sw_enable or (port.no_drop_priorities or frozenset()) <= sw_enable[name]:
            guarded.add(name)
        _at(loc, sys.intern(f"{name}.watchdog"), db.line(*path))
    where = db.line("PFC_WD", "GLOBAL") or db.line("PFC_WD")
    for name, port in state.interfaces.items():
        port.watchdog = name in guarded
        if where is not None:
            loc.setdefault(sys.intern(f"{name}.watchdog"), where)
    if where is not None:
        loc["watchdog"] = where
    if not timers:
        state.watchdog = Watchdog(enabled=False)
        return
    glob = table.get("GLOBAL", {})
    poll = (
        read.number(("PFC_WD", "GLOBAL", "POLL_INTERVAL"), glob["POLL_INTERVAL"])
        if "POLL_INTERVAL" in glob
        else None
    )
    action, detect, restore = (
        values[0] if len(set(values)) == 1 else None for values in zip(*timers, strict=True)
    )
    state.watchdog = Watchdog(True, action, detect, restore, poll)


def _most_common(by_port: dict[str, str]) -> str | None:
    """The name most ports bind (ties: the first in name order); None where none binds one."""
    if not by_port:
        return None
    counts = Counter(by_port.values())
    top = max(counts.values())
    return min(n for n, c in counts.items() if c == top)


def _at(locations: dict[str, int], key: str, line: int | None) -> None:
    if line is not None:
        locations[key] = line


def _first(locations: dict[str, int], key: str, line: int | None) -> None:
    """The first line that sets a port's queue settings: the lowest queue, the one findings are about."""
    if line is not None:
        locations.setdefault(sys.intern(key), line)
