"""Rules about the state itself: devices that could not be collected, or were not given at all."""

from __future__ import annotations

from collections.abc import Iterator

from netcfg.model import Device, DeviceState
from netcfg.rules import CheckContext, Issue, Severity, rule


def _collection(kind: str, state: DeviceState) -> Iterator[Issue]:
    if state.collection_error is not None and state.collection_error[0] == kind:
        detail = state.collection_error[1]
        yield Issue(state.name, None, "collected", kind, f"not collected ({kind}): {detail}; not checked")


@rule("collect.unreachable", Severity.ERROR, facet=None)
def check_unreachable(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The device answered on its management address (TCP connection refused or failed)."""
    yield from _collection("unreachable", state)


@rule("collect.auth", Severity.ERROR, facet=None)
def check_auth(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The device accepted netcfg's credentials."""
    yield from _collection("auth", state)


@rule("collect.timeout", Severity.ERROR, facet=None)
def check_timeout(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The device answered every command within the per-device timeout."""
    yield from _collection("timeout", state)


@rule("state.missing", Severity.INFO, scope="fabric", facet=None)
def check_missing(ctx: CheckContext) -> Iterator[Issue]:
    """Devices of the inventory with no state given (no config file or snapshot) are listed once and
    not checked."""
    missing = sorted(set(ctx.fabric.devices) - set(ctx.states))
    if missing:
        shown = ", ".join(missing[:20]) + (f" and {len(missing) - 20} more" if len(missing) > 20 else "")
        yield Issue(
            "(fabric)",
            None,
            "state for every device",
            f"{len(missing)} without state",
            f"not checked, no state given: {shown}",
        )
