"""Platform modules register themselves here; shared code looks them up by name.

Every package in this folder is imported, so adding a platform is adding its package and its
templates folder: nothing else in the codebase names it. The modules beside them are what platforms
share (`base`: the Platform contract and registry; `simulator`: the lab's simulator contract;
`secrets`, `foreign`); a package may also be shared code that registers no platform (`linux`).
"""

from __future__ import annotations

import pkgutil
from importlib import import_module

from netcfg.errors import InputError
from netcfg.platforms.base import Command, Platform, registry

__all__ = ["Command", "Platform", "get_platform", "platform_names", "registry"]
_LOADED = tuple(
    import_module(f"{__name__}.{m.name}")
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name)
    if m.ispkg
)


def platform_names() -> list[str]:
    return sorted(registry())


def get_platform(name: str) -> Platform:
    try:
        return registry()[name]
    except KeyError:
        raise InputError(
            f"platform {name!r}", f"unknown platform; expected one of {', '.join(platform_names())}"
        ) from None
