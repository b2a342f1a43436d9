"""Reading NetBox over its REST API with pynetbox: the devices a filter selects, their interfaces and
the cables between them, every page of each (pynetbox follows `next`).

The token comes only from the environment variable the user names; it is sent in the Authorization
header and nowhere else: no message, log or file netcfg writes holds it (errors are scrubbed of it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from netcfg.errors import InputError
from netcfg.netbox.shapes import NbCable, NbDevice, NbInterface, parse

INSTALL = "pip install 'pynetbox>=7.4,<8' (netcfg's `netbox` extra)"
# Device ids per interface or cable query: NetBox takes repeated device_id parameters, and a URL of
# a few KiB passes every proxy.
IDS_PER_QUERY = 100
NETBOX_URL = "expected NetBox's base URL (https://netbox.example.com) and its REST API"


@dataclass(frozen=True, slots=True)
class Recorded:
    """What NetBox holds for the fabric: the selected devices, their interfaces and their cables."""

    devices: list[NbDevice]
    interfaces: list[NbInterface]
    cables: list[NbCable]


def shown_url(url: str) -> str:
    """The URL without any user:password@ part, fit to print."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def read_token(env: str) -> str:
    token = os.environ.get(env, "")
    if not token.strip():
        raise InputError(
            f"--token-env {env}", "the variable is not set or empty; expected a NetBox API token"
        )
    return token.strip()


def parse_filters(items: Sequence[str]) -> dict[str, list[str]]:
    """`--filter site=pod1 --filter tag=ai` -> NetBox device filter parameters (repeats are ORed)."""
    filters: dict[str, list[str]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(
                f"--filter {item[:60]}", "expected KEY=VALUE, a NetBox device filter (site=pod1)"
            )
        filters.setdefault(key.strip(), []).append(value.strip())
    if not filters:
        raise InputError(
            "--filter", "expected at least one (e.g. site=pod1 or tag=ai-fabric): netcfg imports one fabric"
        )
    return filters


def fetch(url: str, token: str, filters: dict[str, list[str]]) -> Recorded:
    """Every device the filters select (with its config context), their interfaces and cables."""
    try:
        import pynetbox
        import requests
    except ImportError:
        raise InputError(
            "netcfg inventory from-netbox", f"needs pynetbox, which is not installed: {INSTALL}"
        ) from None
    api = pynetbox.api(url, token=token)
    where = shown_url(url)
    try:
        raw_devices = [dict(d) for d in api.dcim.devices.filter(**filters)]
        ids = sorted(d["id"] for d in raw_devices)
        raw_interfaces = [dict(i) for i in _by_device(api.dcim.interfaces, ids)]
        raw_cables = [dict(c) for c in _by_device(api.dcim.cables, ids)]
    except pynetbox.RequestError as exc:
        raise InputError(where, _scrub(_request_error(exc), token)) from None
    except requests.RequestException as exc:
        raise InputError(where, _scrub(f"cannot reach NetBox ({exc.__class__.__name__})", token)) from None
    except (pynetbox.ContentError, ValueError):
        raise InputError(where, f"the answer is not JSON; {NETBOX_URL}") from None
    except (TypeError, AttributeError, KeyError):
        # pynetbox builds its records from each listed object: these say an object was no mapping.
        raise InputError(
            where,
            f"the answer is not NetBox's paginated list of objects (count, next, results); {NETBOX_URL}",
        ) from None
    devices = [parse(NbDevice, d, "device") for d in raw_devices]
    if not devices:
        shown = " ".join(f"{k}={v}" for k, vs in filters.items() for v in vs)
        raise InputError(where, f"no device matches {shown}; expected the fabric's devices (check --filter)")
    interfaces = [parse(NbInterface, i, "interface") for i in raw_interfaces]
    cables = {c.id: c for c in (parse(NbCable, c, "cable") for c in raw_cables)}
    return Recorded(devices, interfaces, sorted(cables.values(), key=lambda c: c.id))


def _by_device(endpoint: Any, ids: list[int]) -> Iterator[Any]:
    for start in range(0, len(ids), IDS_PER_QUERY):
        yield from endpoint.filter(device_id=ids[start : start + IDS_PER_QUERY])


def _request_error(exc: Exception) -> str:
    status = getattr(getattr(exc, "req", None), "status_code", None)
    if status in (401, 403):
        return f"NetBox refused the token (HTTP {status}); expected a valid API token with read access"
    if status == 404:
        return f"no NetBox API at this URL (HTTP 404); {NETBOX_URL}"
    return f"NetBox answered HTTP {status}; expected the device, interface and cable lists"


def _scrub(text: str, token: str) -> str:
    return text.replace(token, "***") if token else text
