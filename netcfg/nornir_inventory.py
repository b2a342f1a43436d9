"""A Nornir inventory plugin built from a netcfg Fabric.

Hosts are grouped by role (`leaf`, `spine`, `host`), rail (`rail-3`) and scalable unit (`su-1`);
`platform` is the netmiko device type. Use it in your own Nornir scripts:

    from nornir import InitNornir
    nr = InitNornir(inventory={"plugin": "NetcfgInventory",
                               "options": {"inventory": "inventories/lab"}})

Credentials come from the environment variables or file the inventory names, never the inventory.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from nornir.core.inventory import (
    ConnectionOptions,
    Defaults,
    Group,
    Groups,
    Host,
    Hosts,
    Inventory,
    ParentGroups,
)

from netcfg.access import Connection, Credentials
from netcfg.errors import InputError
from netcfg.loader import line_of, read_yaml
from netcfg.model import Fabric
from netcfg.platforms import get_platform


@dataclass(frozen=True, slots=True)
class Login:
    username: str
    password: str

    def __repr__(self) -> str:
        # Keeps the password out of logs, tracebacks and reprs of anything that holds a Login.
        return f"Login(username={self.username!r}, password='***')"


def read_login(fabric: Fabric) -> Login:
    """Username and password from the inventory's credentials file, else its environment variables.

    Errors about the file never quote its values: they are secrets.
    """
    creds = fabric.credentials or Credentials()
    if creds.file:
        path = Path(fabric.source).parent / creds.file
        data, node = read_yaml(path, "credentials file")
        if not isinstance(data, dict):
            raise InputError(str(path), "expected a mapping with keys 'username' and 'password'")
        unknown = next((k for k in data if k not in ("username", "password")), None)
        if unknown is not None:
            raise InputError(
                f"{path}:{line_of(node, (unknown,))}",
                "a key other than 'username' and 'password' (not shown: it may be a secret); expected "
                "only those two",
            )
        for key in ("username", "password"):
            if key not in data:
                raise InputError(str(path), f"key {key!r} is missing; expected 'username' and 'password'")
            if not isinstance(data[key], str) or not data[key]:
                # YAML reads 0123 as 83 and yes as true: only a string is the secret as written.
                raise InputError(
                    f"{path}:{line_of(node, (key,))}",
                    f"{key} is not a non-empty string; expected a quoted string",
                )
        return Login(data["username"], data["password"])
    user, password = os.environ.get(creds.username_env), os.environ.get(creds.password_env)
    if not user or not password:
        raise InputError(
            f"{fabric.source}: credentials",
            f"environment variables {creds.username_env} and {creds.password_env} are not set "
            "(or set 'credentials.file' in the inventory)",
        )
    return Login(user, password)


# A line per device: even 100,000 devices stay far below this.
CONNECTIONS_MAX_BYTES = 64 * 1024 * 1024
_SHAPE = "expected a JSON object mapping device -> {hostname, port}"


def read_connections(path: Path) -> dict[str, dict]:
    """device -> {hostname, port}, as `netcfg lab serve` writes it; InputError naming what is wrong.

    Both keys are optional per device (the inventory's `connection` fills in the rest). Addresses
    are not limited to the loopback: real devices have real ones.
    """
    if not path.is_file():
        raise InputError(str(path), f"connections file not found or not a regular file; {_SHAPE}")
    try:
        if path.stat().st_size > CONNECTIONS_MAX_BYTES:
            raise InputError(str(path), f"larger than {CONNECTIONS_MAX_BYTES >> 20} MiB; {_SHAPE}")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InputError(str(path), f"connections file unreadable or not JSON; {_SHAPE}") from None
    if not isinstance(data, dict):
        raise InputError(str(path), _SHAPE)
    for device, where in data.items():
        if not isinstance(where, dict) or set(where) - {"hostname", "port"}:
            raise InputError(f"{path}: {device}", "expected an object with 'hostname' and/or 'port' only")
        hostname = where.get("hostname")
        if "hostname" in where and (not isinstance(hostname, str) or not hostname.strip()):
            raise InputError(
                f"{path}: {device}.hostname", f"expected a host name or address, got {hostname!r}"
            )
        port = where.get("port")
        # bool is an int to Python, and `true` is no port.
        if "port" in where and (
            isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535
        ):
            raise InputError(f"{path}: {device}.port", f"expected a TCP port 1-65535, got {port!r}")
    return data


def nornir_inventory(fabric: Fabric, login: Login, connections: dict[str, dict] | None = None) -> Inventory:
    conn = fabric.connection or Connection()
    if connections is None and conn.connections_file:
        connections = read_connections(Path(fabric.source).parent / conn.connections_file)
    groups = Groups()
    hosts = Hosts()
    for name, device in fabric.devices.items():
        member_of = [device.role.value]
        if device.rail is not None:
            member_of.append(f"rail-{device.rail}")
        if device.su is not None:
            member_of.append(f"su-{device.su}")
        for g in member_of:
            groups.setdefault(g, Group(name=g))
        where = (connections or {}).get(name, {})
        hosts[name] = Host(
            name=name,
            hostname=where.get("hostname", conn.hostname.format(name=name)),
            port=int(where.get("port", conn.port)),
            username=login.username,
            password=login.password,
            platform=get_platform(device.platform).netmiko_device_type,
            groups=ParentGroups(groups[g] for g in member_of),
            data={
                "role": device.role.value,
                "rail": device.rail,
                "su": device.su,
                "netcfg_platform": device.platform,
                # Rails a host's NICs sit on, so `--rail N` also selects the servers of that rail.
                "rails": sorted({n.rail for n in device.nics} | ({device.rail} if device.rail else set())),
            },
            connection_options={"netmiko": ConnectionOptions()},
        )
    return Inventory(hosts=hosts, groups=groups, defaults=Defaults())


class NetcfgInventory:
    """Nornir inventory plugin (entry point `NetcfgInventory`).

    Options: `inventory` (folder or fabric.yaml), `connections` (JSON device -> {hostname, port}, as
    `netcfg lab serve` writes it) and `known_hosts` (the host keys netmiko checks before it sends
    the password; default `~/.ssh/known_hosts`). A device whose key is missing or differs is refused.
    """

    def __init__(
        self, inventory: str, connections: str | None = None, known_hosts: str | None = None
    ) -> None:
        self.inventory = inventory
        self.connections = connections
        self.known_hosts = known_hosts

    def load(self) -> Inventory:
        from netcfg.inventory import load_fabric

        fabric = load_fabric(Path(self.inventory))
        login = read_login(fabric)
        connections = read_connections(Path(self.connections)) if self.connections else None
        inventory = nornir_inventory(fabric, login, connections)
        extras = host_key_options(self.known_hosts)
        for host in inventory.hosts.values():
            host.connection_options["netmiko"] = ConnectionOptions(extras=extras)
        return inventory


def host_key_options(known_hosts: str | None) -> dict[str, object]:
    """netmiko arguments that refuse a device whose host key is not in `known_hosts` (strict, as
    `netcfg collect` is by default)."""
    if known_hosts is None:
        return {"ssh_strict": True, "system_host_keys": True}
    path = Path(known_hosts).expanduser()
    if not path.is_file():
        raise InputError(
            f"known_hosts {known_hosts}", "file not found (expected an OpenSSH known_hosts file)"
        )
    return {"ssh_strict": True, "system_host_keys": False, "alt_host_keys": True, "alt_key_file": str(path)}
