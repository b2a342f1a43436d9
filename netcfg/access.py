"""How netcfg reaches a fabric's devices, as an inventory says it: where the login comes from and
which address and port each device answers on. `Fabric` carries these, so they sit below the model."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from netcfg.naming import pattern_of, safe_interface

# A path in an inventory, relative to it (PATH_MAX is 4,096 on Linux).
FilePath = Annotated[str, Field(min_length=1, max_length=4096)]
EnvName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")]
HostnamePattern = Annotated[str, AfterValidator(pattern_of(safe_interface, "name"))]


class Strict(BaseModel):
    """An inventory section. Strict: YAML gives real types, so `true` or 3.0 where a whole number
    belongs is a mistake to report, not a value to coerce."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class Credentials(Strict):
    """Where login credentials come from. Never the inventory itself."""

    username_env: EnvName = Field("NETCFG_USERNAME", description="Environment variable holding the username.")
    password_env: EnvName = Field("NETCFG_PASSWORD", description="Environment variable holding the password.")
    file: FilePath | None = Field(
        None, description="YAML file with username/password, relative to inventory."
    )


class Connection(Strict):
    """How to reach devices over SSH."""

    hostname: HostnamePattern = Field("{name}", description="Management address pattern; {name} = device.")
    port: int = Field(22, ge=1, le=65535, description="SSH port.")
    connections_file: FilePath | None = Field(
        None, description="JSON map device -> {hostname, port} (the lab writes one), relative to inventory."
    )
