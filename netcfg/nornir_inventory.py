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

from netcfg.errors import InputError
from netcfg.inventory import Connection, Credentials
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


def read_connections(path: Path) -> dict[str, dict]:
    """device -> {hostname, port}, as `netcfg lab serve` writes it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InputError(
            str(path), "connections file missing or not JSON (expected device -> {hostname, port})"
        ) from None
    if not isinstance(data, dict):
        raise InputError(str(path), "expected a JSON object mapping device -> {hostname, port}")
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
    """Nornir inventory plugin (entry point `NetcfgInventory`)."""

    def __init__(self, inventory: str, connections: str | None = None) -> None:
        self.inventory = inventory
        self.connections = connections

    def load(self) -> Inventory:
        from netcfg.inventory import load_fabric

        fabric = load_fabric(Path(self.inventory))
        login = read_login(fabric)
        connections = read_connections(Path(self.connections)) if self.connections else None
        return nornir_inventory(fabric, login, connections)
