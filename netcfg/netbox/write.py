"""The explicit inventory of an imported fabric, as files: fabric.yaml, cabling.csv, and policy.yaml
(a policy the config context holds whole) and connections.json (management addresses) when NetBox
has them. Written as `netcfg render` writes: atomically, never over a file netcfg did not write."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import yaml

from netcfg.cabling import CABLING_COLUMNS
from netcfg.manifest import write_owned
from netcfg.netbox.place import Placed

FABRIC, CABLING, POLICY, CONNECTIONS = "fabric.yaml", "cabling.csv", "policy.yaml", "connections.json"
HEADER = "# Written by `netcfg inventory from-netbox`"


def inventory_files(placed: Placed, name: str, source: str) -> dict[str, str]:
    """name -> text of each file; `source` (URL and filter, no secret) goes into the headers."""
    spec: dict[str, object] = {
        "name": name,
        "policy": POLICY if isinstance(placed.policy, dict) else placed.policy,
        "rails": placed.rails,
        "credentials": {"username_env": "NETCFG_USERNAME", "password_env": "NETCFG_PASSWORD"},
    }
    files = {}
    if placed.addresses:
        spec["connection"] = {"connections_file": CONNECTIONS}
        addresses = {device: {"hostname": address} for device, address in placed.addresses.items()}
        files[CONNECTIONS] = json.dumps(addresses, indent=2) + "\n"
    spec["devices"] = placed.devices
    spec["cabling"] = CABLING
    header = (
        f"{HEADER} from {source}: {len(placed.devices)} devices, {len(placed.cables)} cables.\n"
        "# Edit the fabric in NetBox and import it again rather than editing this file.\n"
    )
    files[FABRIC] = header + yaml.safe_dump(spec, sort_keys=False, default_flow_style=None, width=110)
    if isinstance(placed.policy, dict):
        files[POLICY] = f"{HEADER} from the config context of {source}.\n" + yaml.safe_dump(
            placed.policy, sort_keys=False, default_flow_style=None, width=110
        )
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CABLING_COLUMNS)
    for a, a_if, b, b_if, speed, metres in placed.cables:
        writer.writerow([a, a_if, b, b_if, speed, int(metres) if metres == int(metres) else metres])
    files[CABLING] = buffer.getvalue()
    return files


def write_inventory(folder: Path, files: dict[str, str], overwrite: bool) -> Path:
    write_owned(folder, files, overwrite=overwrite, where=f"-o {folder}")
    return folder / FABRIC
