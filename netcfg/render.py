"""Render every device's intended config from the Fabric and the Policy."""

from __future__ import annotations

from pathlib import Path

from netcfg.gcpause import paused_gc
from netcfg.intent import fabric_intent
from netcfg.manifest import write_owned
from netcfg.model import Fabric
from netcfg.platforms import get_platform
from netcfg.policy import Policy


def render_fabric(fabric: Fabric, policy: Policy, devices: list[str] | None = None) -> dict[str, str]:
    """Config text per device, keyed by file name (`<device><platform suffix>`)."""
    out = {}
    # The intent and the texts all live until the end: a collection would walk them for nothing freed
    # (at 32,768 GPUs, a tenth of the render's CPU).
    with paused_gc():
        intent = fabric_intent(fabric, policy)
        for name, state in intent.items():
            if devices and name not in devices:
                continue
            device = fabric.devices[name]
            platform = get_platform(device.platform)
            out[f"{name}{platform.config_suffix}"] = platform.render_config(state, device)
    return out


def write_rendered(files: dict[str, str], folder: Path, *, overwrite: bool = False) -> None:
    """Write the configs into `folder`; a config edited there since netcfg wrote it (or one netcfg
    never wrote) is replaced only with `overwrite`: a hand fix is not lost to the next render."""
    write_owned(folder, files, overwrite=overwrite, where=f"-o {folder}")
