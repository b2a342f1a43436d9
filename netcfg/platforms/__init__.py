"""Platform modules register themselves here; shared code looks them up by name."""

from __future__ import annotations

from netcfg.errors import InputError
from netcfg.platforms import connectx, eos
from netcfg.platforms.base import Command, Platform, registry

__all__ = ["Command", "Platform", "get_platform", "platform_names"]
_LOADED = (connectx, eos)


def platform_names() -> list[str]:
    return sorted(registry())


def get_platform(name: str) -> Platform:
    try:
        return registry()[name]
    except KeyError:
        raise InputError(
            f"platform {name!r}", f"unknown platform; expected one of {', '.join(platform_names())}"
        ) from None
