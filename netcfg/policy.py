"""The RoCE profile: what every hop of the fabric must agree on.

The schema is the documentation: every field carries its default and why it is what it is, and
`netcfg policy-schema` prints it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from netcfg.errors import InputError
from netcfg.loader import load_model
from netcfg.resources import data_path


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TrafficClass(_Strict):
    dscp: int = Field(ge=0, le=63, description="DSCP the NIC marks this traffic with.")
    priority: int = Field(
        ge=0, le=7, description="Priority / traffic class / queue the DSCP maps to on every hop."
    )


class EcnPolicy(_Strict):
    min_kbytes: int = Field(150, gt=0, description="ECN marking starts here (NVIDIA RoCE default 150 KB).")
    max_kbytes: int = Field(1500, gt=0, description="Marking reaches max probability here (1,500 KB).")
    probability: int = Field(100, ge=1, le=100, description="Mark probability at max threshold, percent.")
    tolerance_percent: int = Field(
        10, ge=0, le=50, description="Accepted deviation of thresholds: vendors count KB vs KiB differently."
    )

    @model_validator(mode="after")
    def _ordered(self) -> EcnPolicy:
        if self.min_kbytes > self.max_kbytes:
            raise ValueError(f"min_kbytes ({self.min_kbytes}) must not exceed max_kbytes ({self.max_kbytes})")
        return self


class WatchdogPolicy(_Strict):
    enabled: bool = Field(True, description="PFC watchdog on every lossless port (breaks pause storms).")
    action: Literal["drop", "errdisable", "forward"] = Field("drop", description="What the watchdog does.")
    detection_ms: int = Field(200, gt=0, description="Time a queue may stay paused before mitigation.")
    restoration_ms: int = Field(200, gt=0, description="Pause-free time before the queue is restored.")
    polling_ms: int = Field(100, gt=0, description="How often queues are polled.")


class MtuPolicy(_Strict):
    switch: int = Field(9214, ge=1500, le=9216, description="MTU of every fabric switch port (EOS max 9214).")
    host: int = Field(
        9000, ge=1500, le=9216, description="MTU of every host NIC; must not exceed switch MTU."
    )


class DcqcnPolicy(_Strict):
    """ConnectX DCQCN reaction-point parameters (sysfs `ecn/roce_rp/*`), NVIDIA defaults."""

    rpg_time_reset: int = Field(300, ge=1, description="Rate-increase timer, microseconds.")
    rpg_byte_reset: int = Field(32767, ge=1, description="Byte counter for rate increase, bytes.")
    rpg_ai_rate: int = Field(5, ge=1, description="Additive increase, Mb/s.")
    rpg_hai_rate: int = Field(50, ge=1, description="Hyper increase, Mb/s.")
    rpg_min_dec_fac: int = Field(50, ge=1, le=100, description="Largest single rate decrease, percent.")
    rpg_min_rate: int = Field(1, ge=0, description="Floor of the sending rate, Mb/s.")
    dce_tcp_g: int = Field(1019, ge=0, le=1024, description="Alpha gain, fixed point /1024.")
    initial_alpha_value: int = Field(1023, ge=0, le=1023, description="Initial alpha, fixed point /1024.")


class HostPolicy(_Strict):
    roce_mode: Literal["RoCE v2", "IB/RoCE v1"] = Field("RoCE v2", description="configfs default_roce_mode.")
    roce_tos: int | None = Field(
        None,
        ge=0,
        le=255,
        description="configfs default_roce_tos; default derives DSCP << 2 | ECT(0) (106 for DSCP 26).",
    )
    min_time_between_cnps_us: int = Field(4, ge=0, description="NP: minimum gap between CNPs, microseconds.")
    dcqcn: DcqcnPolicy = Field(DcqcnPolicy(), description="DCQCN reaction-point parameters.")


class VersionRule(_Strict):
    allowed: list[str] = Field(default_factory=list, description="Exact versions allowed (empty: any).")
    minimum: str | None = Field(None, description="Oldest version allowed, compared numerically.")


class Policy(_Strict):
    name: str = Field(description="Profile name, shown in reports.")
    mode: Literal["lossless", "lossy"] = Field(
        "lossless",
        description="lossless: PFC pauses the RoCE priority on every port and NIC, ECN marks it first, "
        "the PFC watchdog breaks storms. lossy: ECN marking only; PFC off everywhere, no watchdog, no "
        "headroom (new SONiC AI SKUs ship lossy, Cumulus `nv set qos roce mode lossy`).",
    )
    trust: Literal["dscp"] = Field("dscp", description="Classify on DSCP: routed, untagged RoCEv2 links.")
    roce: TrafficClass = Field(TrafficClass(dscp=26, priority=3), description="RoCE data: DSCP 26 -> 3.")
    cnp: TrafficClass = Field(TrafficClass(dscp=48, priority=6), description="CNP: DSCP 48 -> 6, strict.")
    cnp_strict: bool = Field(True, description="CNP queue is strict priority so CNPs are never delayed.")
    ecn: EcnPolicy = Field(EcnPolicy(), description="ECN marking on the lossless queue.")
    pfc_watchdog: WatchdogPolicy = Field(WatchdogPolicy(), description="PFC watchdog on lossless ports.")
    mtu: MtuPolicy = Field(MtuPolicy(), description="MTU of switch ports and host NICs.")
    host: HostPolicy = Field(HostPolicy(), description="ConnectX NIC RoCE settings.")
    firmware: dict[str, VersionRule] = Field(
        default_factory=dict, description="Per platform (eos, connectx): allowed or minimum NOS/NIC firmware."
    )

    @model_validator(mode="after")
    def _consistent(self) -> Policy:
        if self.roce.dscp == self.cnp.dscp:
            raise ValueError(f"roce.dscp and cnp.dscp are both {self.roce.dscp}: they must differ")
        if self.roce.priority == self.cnp.priority:
            raise ValueError(
                f"roce.priority and cnp.priority are both {self.roce.priority}: they must differ"
            )
        return self

    @property
    def lossless(self) -> bool:
        return self.mode == "lossless"

    @property
    def lossless_priorities(self) -> frozenset[int]:
        """The PFC no-drop priorities every port and NIC must have: none in lossy mode."""
        return frozenset({self.roce.priority}) if self.lossless else frozenset()

    @property
    def watchdog_required(self) -> bool:
        """A PFC watchdog guards paused queues: there are none to guard in lossy mode."""
        return self.lossless and self.pfc_watchdog.enabled

    @property
    def roce_tos(self) -> int:
        """TOS byte the NIC uses: DSCP << 2 with ECT(0), so switches may mark instead of drop."""
        return self.host.roce_tos if self.host.roce_tos is not None else (self.roce.dscp << 2) | 2


def load_policy(ref: str, base: Path | None = None) -> Policy:
    """Load a policy by path, or by name from the bundled `policies/` folder."""
    candidates = []
    if base is not None:
        candidates.append(base / ref)
    candidates.append(Path(ref))
    candidates.append(data_path("policies") / (ref if ref.endswith(".yaml") else f"{ref}.yaml"))
    for path in candidates:
        if path.is_file():
            return load_model(path, Policy)
    raise InputError(
        f"policy {ref!r}",
        "expected a policy file path or a bundled policy name "
        f"({', '.join(sorted(p.stem for p in data_path('policies').glob('*.yaml')))})",
    )
