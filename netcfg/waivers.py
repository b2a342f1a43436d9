"""Waivers: exemptions with an owner, a reason and an expiry date, in a file beside the inventory.

A finding a waiver matches (device, rule and interface, each a name or a glob) is reported as `info`
with the waiver in its message, until the waiver expires; from the day after its expiry date (UTC) the
finding is back at its own severity, saying the waiver expired. Every rule can be waived, and a
waiver that matches nothing is itself named (`waiver.unused`), so fixed faults do not keep stale
exemptions around.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, date, datetime
from fnmatch import translate
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from netcfg.errors import InputError
from netcfg.loader import line_of, load_model, read_yaml

WAIVERS_FILE = "waivers.yaml"
# Names and globs of devices, rules and ports: what inventory names allow, plus glob characters and
# the "(fabric)" of fabric-wide findings.
_GLOB = re.compile(r"[A-Za-z0-9._:/*?\[\]!()-]+")
_GLOB_CHARS = frozenset("*?[")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _glob(value: str) -> str:
    if not _GLOB.fullmatch(value):
        raise ValueError("expected a name or glob of letters, digits and . _ : / - * ? [ ] ! ( )")
    return value


def _one_line(value: str) -> str:
    """Plain text on one line: it goes into reports and into the scheduler's drain reasons."""
    if not value.strip():
        raise ValueError("expected some text")
    if _CONTROL.search(value):
        raise ValueError("expected one line of text (no line breaks or control characters)")
    return value


Glob = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_glob)]
Text = Annotated[str, AfterValidator(_one_line)]


def today() -> date:
    """The date waivers are judged on (UTC). Tests set it by replacing this function."""
    return datetime.now(UTC).date()


def _iso_date(value: object) -> object:
    """A date written YYYY-MM-DD (netcfg's YAML loader keeps dates as text); nothing else, as
    pydantic alone would read a number as seconds since 1970 and a time as its day."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"expected a date YYYY-MM-DD that exists (got {value!r})") from None
    raise ValueError(f"expected a date YYYY-MM-DD (got {value!r})")


class Waiver(BaseModel):
    """One exemption: the findings it matches are reported as info until it expires."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    device: Glob = Field(
        description="Device name or glob (`gpu0*`, `leaf-su[12]-r3`); `(fabric)` for fabric-wide findings."
    )
    rule: Glob = Field(description="Rule id or glob (`cabling.*`), as `netcfg rules` lists them.")
    interface: Glob | None = Field(
        None,
        description="Port or NIC name or glob (`Ethernet3*`); left out: every port, and findings of no port.",
    )
    owner: Text = Field(max_length=200, description="Who answers for the exemption.")
    reason: Text = Field(max_length=500, description="Why the finding is accepted for now.")
    expires: Annotated[date, BeforeValidator(_iso_date)] = Field(
        description="Last day the waiver holds (YYYY-MM-DD, UTC); from the next day the finding fails again."
    )

    def holds_on(self, day: date) -> bool:
        return day <= self.expires

    def label(self) -> str:
        return f"{self.device} / {self.rule}" + (f" / {self.interface}" if self.interface else "")


class WaiversFile(BaseModel):
    """A waivers file (`waivers.yaml` beside the inventory, or `--waivers FILE`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    waivers: list[Waiver] = Field(default_factory=list, description="Exemptions, first match wins.")


def _matcher(pattern: str) -> re.Pattern[str] | str:
    return re.compile(translate(pattern)) if _GLOB_CHARS & set(pattern) else pattern


def _matches(pattern: re.Pattern[str] | str, value: str) -> bool:
    return pattern == value if isinstance(pattern, str) else pattern.match(value) is not None


def _matches_any(pattern: re.Pattern[str] | str, values: Collection[str]) -> bool:
    if isinstance(pattern, str):
        return pattern in values
    return any(pattern.match(v) is not None for v in values)


@dataclass(frozen=True, slots=True)
class Decision:
    """What a waiver does to one issue: `holds` false means it expired."""

    index: int
    waiver: Waiver
    holds: bool

    def note(self) -> str:
        w = self.waiver
        if self.holds:
            return f"waived until {w.expires} by {w.owner}: {w.reason}"
        return f"waiver by {w.owner} expired on {w.expires} ({w.reason}): failing again"


class Waivers:
    """The waivers of one file, indexed so that matching every issue of a fabric stays cheap."""

    def __init__(self, entries: list[Waiver], source: Path, lines: list[int | None]) -> None:
        self.entries = entries
        self.source = source
        self.lines = lines
        self._by_device: dict[str, list[int]] = {}
        self._globbed: list[int] = []
        self._compiled = [
            (_matcher(w.device), _matcher(w.rule), _matcher(w.interface) if w.interface else None)
            for w in entries
        ]
        for i, w in enumerate(entries):
            if isinstance(self._compiled[i][0], str):
                self._by_device.setdefault(w.device, []).append(i)
            else:
                self._globbed.append(i)

    def decide(self, rule_id: str, device: str, interface: str | None, day: date) -> Decision | None:
        """The first waiver that holds on `day` and matches, else the first expired one that matches."""
        expired = None
        for i in sorted(self._by_device.get(device, []) + self._globbed):
            dev, rul, port = self._compiled[i]
            if not (_matches(dev, device) and _matches(rul, rule_id)):
                continue
            if port is not None and (interface is None or not _matches(port, interface)):
                continue
            w = self.entries[i]
            if w.holds_on(day):
                return Decision(i, w, True)
            expired = expired or Decision(i, w, False)
        return expired

    def covers(self, index: int, devices: set[str]) -> bool:
        """Whether waiver `index` could have matched in a run over these devices."""
        return _matches_any(self._compiled[index][0], devices)


def load_waivers(path: Path, devices: Collection[str], rule_ids: Collection[str]) -> Waivers:
    """Read and validate a waivers file: every rule glob must match one of `rule_ids` (the caller's
    rule catalogue) and every device glob a device of the inventory (or `(fabric)`), as a typo would
    otherwise waive nothing in silence."""
    entries = load_model(path, WaiversFile, "waivers file").waivers
    _, node = read_yaml(path, "waivers file")
    lines = [line_of(node, ("waivers", i)) for i in range(len(entries))]
    devices = {*devices, "(fabric)"}
    for i, w in enumerate(entries):
        where = f"{path}:{lines[i]}: waivers.{i}" if lines[i] else f"{path}: waivers.{i}"
        if not _matches_any(_matcher(w.rule), rule_ids):
            raise InputError(
                f"{where}.rule", f"{w.rule!r} matches no rule; expected a rule id of `netcfg rules`"
            )
        if not _matches_any(_matcher(w.device), devices):
            raise InputError(f"{where}.device", f"{w.device!r} matches no device of the inventory")
    return Waivers(entries, path, lines)


def waivers_for(
    inventory: Path, devices: Collection[str], path: Path | None, rule_ids: Collection[str]
) -> Waivers | None:
    """The waivers of a run: `--waivers FILE`, else `waivers.yaml` beside the inventory if there is one."""
    if path is None:
        beside = inventory.parent / WAIVERS_FILE
        if not beside.is_file():
            return None
        path = beside
    return load_waivers(path, devices, rule_ids)
