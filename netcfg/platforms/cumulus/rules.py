"""Rules of Cumulus switches. `config.not_operational` is generic in what it reads
(`DeviceState.not_operational`, filled by any platform that prints applied and operational values);
it is registered for Cumulus only because Cumulus is the only platform that fills it today."""

from __future__ import annotations

from collections.abc import Iterator

from netcfg.checks.base import CheckContext, Issue, Severity, rule
from netcfg.model import Device, DeviceState


def _shown(value: str) -> str:
    return value if value.strip() else "none"


@rule("config.not_operational", Severity.ERROR, platforms=["cumulus"])
def check_not_operational(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """What the device's configuration applies is what its hardware runs: a setting it shows as
    applied but not operational (NVUE's `operational` column, or a port's running MTU) is reported with
    both values, whatever the policy says about it."""
    switch_wide = {k: v for k, v in state.not_operational.items() if not k.startswith("interface ")}
    if switch_wide:
        rows = [(k.removeprefix("qos roce "), *switch_wide[k]) for k in sorted(switch_wide)]
        yield Issue(
            state.name,
            None,
            "; ".join(f"{k} {_shown(a)}" for k, a, _ in rows),
            "; ".join(f"{k} {_shown(r)}" for k, _, r in rows),
            "the hardware does not run what is applied (nv show qos roce): "
            + "; ".join(f"{k} applied {_shown(a)}, runs {_shown(r)}" for k, a, r in rows),
        )
    for key, (applied, running) in sorted(state.not_operational.items()):
        if key.startswith("interface "):
            _, port, setting = key.split(" ", 2)
            yield Issue(
                state.name,
                port,
                f"{setting} {_shown(applied)}",
                f"{setting} {_shown(running)}",
                f"{setting} applied {_shown(applied)}, but the port runs {_shown(running)}",
            )
