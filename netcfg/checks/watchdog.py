"""PFC watchdog rules over the vendor-neutral `Watchdog`, whatever the platform wrote it as."""

from __future__ import annotations

from collections.abc import Iterator

from netcfg.model import Device, DeviceState
from netcfg.rules import CheckContext, Issue, Severity, rule


@rule("pfc.watchdog_timers", Severity.WARNING, kinds=["switch"], fields=("watchdog",))
def check_watchdog_timers(state: DeviceState, device: Device, ctx: CheckContext) -> Iterator[Issue]:
    """The PFC watchdog polls at least as often as its detection time: a queue is only found stalled
    at a poll, so a polling interval longer than the detection time mitigates a pause storm a poll
    late, whatever detection time the config states. SONiC's `pfcwd interval` refuses such a value,
    but config_db takes it as written."""
    wd = state.watchdog
    if wd is None or not wd.enabled or wd.polling_ms is None or wd.detection_ms is None:
        return
    if wd.polling_ms > wd.detection_ms:
        yield Issue(
            state.name,
            None,
            f"polling interval at most the detection time ({wd.detection_ms} ms)",
            f"poll {wd.polling_ms} ms, detect {wd.detection_ms} ms",
            f"the PFC watchdog polls every {wd.polling_ms} ms, longer than its {wd.detection_ms} ms "
            f"detection time: a stalled queue is found only at the next poll",
            fields=("watchdog.polling_ms",),
        )
