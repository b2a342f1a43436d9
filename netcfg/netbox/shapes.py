"""The NetBox 4.x objects netcfg reads, as the REST API serves them (netbox/dcim/api/serializers_/):
only the fields the rail plan needs are typed, the rest are ignored.

A device's `role`, `platform` and `site` are brief nested objects ({id, url, display, name, slug,
...}); `primary_ip4` is an IP address brief ({id, family, address: "10.0.0.1/24", ...}); a cable's
`a_terminations` / `b_terminations` are lists of {object_type, object_id, object} with the brief
interface ({id, device: {id, name, ...}, name, cable, _occupied}) as `object`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from netcfg.errors import InputError

INTERFACE = "dcim.interface"


class Shape(BaseModel):
    """A NetBox object: unknown fields (NetBox adds some in every release) are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class Brief(Shape):
    id: int
    name: str | None = None
    slug: str | None = None


class Choice(Shape):
    """A choice field: {"value": "m", "label": "Meters"}."""

    value: str | None = None
    label: str | None = None


class IpBrief(Shape):
    address: str


class NbDevice(Shape):
    id: int
    name: str | None = None
    role: Brief | None = None
    # NetBox before 4.0 called it device_role.
    device_role: Brief | None = None
    platform: Brief | None = None
    site: Brief | None = None
    primary_ip4: IpBrief | None = None
    primary_ip: IpBrief | None = None
    custom_fields: dict[str, Any] = Field(default_factory=dict)
    config_context: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        return f"NetBox device {self.name!r} (id {self.id})" if self.name else f"NetBox device id {self.id}"


class NbInterface(Shape):
    id: int
    name: str
    device: Brief
    type: Choice | None = None
    # Kbps, as NetBox stores it.
    speed: int | None = None
    mgmt_only: bool = False
    custom_fields: dict[str, Any] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"NetBox interface {self.device.name}:{self.name} (id {self.id})"


class Termination(Shape):
    object_type: str
    object_id: int
    object: dict[str, Any] | None = None


class NbCable(Shape):
    id: int
    type: str | None = None
    a_terminations: list[Termination] = Field(default_factory=list)
    b_terminations: list[Termination] = Field(default_factory=list)
    status: Choice | None = None
    length: float | None = None
    length_unit: Choice | None = None

    @property
    def label(self) -> str:
        return f"NetBox cable id {self.id}"


T = TypeVar("T", bound="Shape")


def parse(model: type[T], data: dict[str, Any], kind: str) -> T:
    """One object as `model`; an object NetBox 4.x would not serve so is refused by its id."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(p) for p in error["loc"]) or "(object)"
        ident = data.get("id") if isinstance(data, dict) else None
        raise InputError(
            f"NetBox {kind} id {ident}: {field}",
            f"{error['msg']}; expected the NetBox 4.x REST API's {kind} object",
        ) from None
