"""Render every device's intended config from the Fabric and the Policy."""

from __future__ import annotations

from pathlib import Path

from netcfg.intent import fabric_intent
from netcfg.model import Fabric
from netcfg.platforms import get_platform
from netcfg.policy import Policy


def render_fabric(fabric: Fabric, policy: Policy, devices: list[str] | None = None) -> dict[str, str]:
    """Config text per device, keyed by file name (`<device><platform suffix>`)."""
    intent = fabric_intent(fabric, policy)
    out = {}
    for name, state in intent.items():
        if devices and name not in devices:
            continue
        device = fabric.devices[name]
        platform = get_platform(device.platform)
        out[f"{name}{platform.config_suffix}"] = platform.render_config(state, device)
    return out


def write_rendered(files: dict[str, str], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
