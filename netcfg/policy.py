"""The RoCE profile: what every hop of the fabric must agree on.

The schema is the documentation: every field carries its default and why it is what it is, and
`netcfg policy-schema` prints it.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from netcfg.errors import InputError
from netcfg.loader import load_model
from netcfg.resources import data_path

# An ECN threshold above the whole buffer of the largest shallow-buffer switch ASIC (a Tomahawk 5
# has 165 MB) can never be reached: marking would never start.
# The KB of the policy's thresholds (`min_kbytes`, `max_kbytes`): decimal, as switch vendors count them.
KB = 1000
MAX_ECN_KBYTES = 200_000
# Timers and DCQCN values end up in EOS lines and sysfs files that take 32-bit numbers at most.
MAX_MS = 60_000
MAX_SYSFS = 2**31 - 1
_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,64}")
# NX-OS writes its releases with the maintenance number in parentheses: 10.3(6), 9.3(7a).
_VERSION = re.compile(r"\d+(\.\d+)*([A-Za-z0-9._()-]*)", re.ASCII)


class _Strict(BaseModel):
    # strict: YAML gives real types, so `true` or 3.0 where a whole number belongs is a mistake to
    # report, not a value to coerce.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class TrafficClass(_Strict):
    dscp: int = Field(ge=0, le=63, description="DSCP the NIC marks this traffic with.")
    priority: int = Field(
        ge=0, le=7, description="Priority / traffic class / queue the DSCP maps to on every hop."
    )


class EcnPolicy(_Strict):
    min_kbytes: int = Field(
        150, gt=0, le=MAX_ECN_KBYTES, description="ECN marking starts here (NVIDIA RoCE default 150 KB)."
    )
    max_kbytes: int = Field(
        1500,
        gt=0,
        le=MAX_ECN_KBYTES,
        description="Marking reaches max probability here (1,500 KB); at most 200,000 KB, more than any "
        "shallow-buffer switch holds.",
    )
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
    detection_ms: int = Field(
        200, gt=0, le=MAX_MS, description="Time a queue may stay paused before mitigation."
    )
    restoration_ms: int = Field(
        200, gt=0, le=MAX_MS, description="Pause-free time before the queue is restored."
    )
    polling_ms: int = Field(100, gt=0, le=MAX_MS, description="How often queues are polled.")


class MtuPolicy(_Strict):
    switch: int = Field(9214, ge=1500, le=9216, description="MTU of every fabric switch port (EOS max 9214).")
    host: int = Field(
        9000, ge=1500, le=9216, description="MTU of every host NIC; must not exceed switch MTU."
    )

    @model_validator(mode="after")
    def _host_fits(self) -> MtuPolicy:
        if self.host > self.switch:
            raise ValueError(
                f"host MTU {self.host} is above switch MTU {self.switch}: expected host <= switch "
                "(jumbo RoCE frames would be dropped at the leaf)"
            )
        return self


class DcqcnPolicy(_Strict):
    """ConnectX DCQCN reaction-point parameters (sysfs `ecn/roce_rp/*`), NVIDIA defaults."""

    rpg_time_reset: int = Field(300, ge=1, le=MAX_SYSFS, description="Rate-increase timer, microseconds.")
    rpg_byte_reset: int = Field(
        32767, ge=1, le=MAX_SYSFS, description="Byte counter for rate increase, bytes."
    )
    rpg_ai_rate: int = Field(5, ge=1, le=MAX_SYSFS, description="Additive increase, Mb/s.")
    rpg_hai_rate: int = Field(50, ge=1, le=MAX_SYSFS, description="Hyper increase, Mb/s.")
    rpg_min_dec_fac: int = Field(50, ge=1, le=100, description="Largest single rate decrease, percent.")
    rpg_min_rate: int = Field(1, ge=0, le=MAX_SYSFS, description="Floor of the sending rate, Mb/s.")
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
    min_time_between_cnps_us: int = Field(
        4, ge=0, le=MAX_SYSFS, description="NP: minimum gap between CNPs, microseconds."
    )
    dcqcn: DcqcnPolicy = Field(DcqcnPolicy(), description="DCQCN reaction-point parameters.")
    gid_index: int = Field(
        3,
        ge=0,
        le=255,
        description="GID index RDMA jobs use (NCCL_IB_GID_INDEX): every NIC must hold a RoCE v2 GID "
        "there. 3 is the index NCCL_IB_GID_INDEX commonly names for RoCE v2 IPv4: a NIC with one IPv4 "
        "address lists link-local v1 and v2 at 0 and 1, then IPv4 v1 and v2 at 2 and 3.",
    )


class VersionRule(_Strict):
    allowed: list[str] = Field(default_factory=list, description="Exact versions allowed.")
    minimum: str | None = Field(
        None, description="Oldest version allowed, compared numerically (4.30.0F: 4, 30, 0)."
    )

    @field_validator("minimum")
    @classmethod
    def _comparable(cls, value: str | None) -> str | None:
        if value is not None and not _VERSION.fullmatch(value):
            raise ValueError(
                f"{value[:40]!r} cannot be compared: expected a version of dot-separated numbers "
                "(4.30.0F, 28.39.1002, 10.3(6))"
            )
        return value

    @field_validator("allowed")
    @classmethod
    def _versions(cls, value: list[str]) -> list[str]:
        bad = next((v for v in value if not _VERSION.fullmatch(v)), None)
        if bad is not None:
            raise ValueError(f"{bad[:40]!r} is not a version: expected dot-separated numbers (4.32.1F)")
        return value

    @model_validator(mode="after")
    def _says_something(self) -> VersionRule:
        if not self.allowed and self.minimum is None:
            raise ValueError("expected 'allowed' or 'minimum' (or leave the platform out)")
        return self


# A rate no counter of a 800G port can reach: a threshold above it would never fire.
MAX_RATE = 10**9


class HealthPolicy(_Strict):
    """Thresholds of the counter rules: rates are per second, from the deltas between two readings of
    the same port (the previous audit, or the go-live baseline). 0 means any increase fails."""

    fec_corrected_per_s: float = Field(
        10_000,
        ge=0,
        le=MAX_RATE,
        description="FEC-corrected codewords per second above which a link is marginal (warning). A "
        "healthy 400G PAM4 link corrects some all the time; a rate this high means a dirty or failing optic.",
    )
    fec_uncorrected_per_s: float = Field(
        0,
        ge=0,
        le=MAX_RATE,
        description="Uncorrectable FEC codewords per second above which a link drops frames (error): "
        "each one is a lost packet and a RoCE retransmit.",
    )
    crc_errors_per_s: float = Field(
        0, ge=0, le=MAX_RATE, description="CRC / symbol errors per second above which a link fails (error)."
    )
    pause_storm_per_s: float = Field(
        50_000,
        ge=0,
        le=MAX_RATE,
        description="PFC pause frames per second, on one priority of one port, above which the port is "
        "in a pause storm (error). Lossy mode expects no pause frames at all.",
    )
    retransmits_per_s: float = Field(
        100,
        ge=0,
        le=MAX_RATE,
        description="NIC RoCE retransmissions (`roce_adp_retrans`) per second above which a host's "
        "traffic is being lost somewhere on its path (warning).",
    )
    out_of_buffer_per_s: float = Field(
        0,
        ge=0,
        le=MAX_RATE,
        description="NIC receive drops for want of posted buffers (`out_of_buffer`) per second (warning).",
    )
    max_flaps: int = Field(
        0, ge=0, le=MAX_RATE, description="Link-down events since the previous reading a link may have."
    )


# The vendor-neutral ECMP hash fields, as netcfg names them whatever a platform calls them.
HashField = Literal[
    "src_ip",
    "dst_ip",
    "ip_protocol",
    "l4_src_port",
    "l4_dst_port",
    "ipv6_flow_label",
    "ingress_port",
    "rdma_dest_qp",
]
# What carries a RoCEv2 flow's entropy: every flow goes to UDP port 4791, so the destination port and
# the addresses of two GPUs say nothing about which queue pair a packet belongs to.
ROCE_ENTROPY = frozenset({"l4_src_port", "rdma_dest_qp"})
Tier = Literal["leaf", "spine", "superspine"]
# hash: one path per flow (ECMP); flowlet: a flow moves to another path only after a pause long
# enough that its packets cannot overtake each other (Broadcom, Cisco and Junos DLB flowlet mode);
# per_packet: every packet takes the least loaded path (Spectrum-X adaptive routing, DLB per-packet).
LbMode = Literal["hash", "flowlet", "per_packet"]
# A hash seed as the widest platform takes it (Cumulus: 0-4294967295).
MAX_SEED = 2**32 - 1


class LoadBalancingPolicy(_Strict):
    """ECMP hashing and adaptive routing, the same from NIC to spine."""

    hash_fields: list[HashField] = Field(
        ["src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port"],
        min_length=1,
        description="Fields every fabric switch hashes ECMP on. Must hold the RoCE entropy: the UDP "
        "source port (l4_src_port, which the NIC varies per queue pair) or the destination queue pair "
        "(rdma_dest_qp, where the platform can hash on the BTH). Meta saw up to 40 % less throughput "
        "from flows colliding on too few hash values (SIGCOMM 2024).",
    )
    seeds: dict[Tier, int] = Field(
        {"leaf": 1, "spine": 2, "superspine": 3},
        description="Hash seed of every switch of a tier; tiers must differ, or each tier picks the same "
        "next hop for the same flows and traffic polarises onto a few links.",
    )
    mode: LbMode = Field(
        "hash",
        description="hash: per-flow ECMP; flowlet: dynamic load balancing of flowlets; per_packet: "
        "adaptive routing of every packet (Spectrum-X AR), which delivers out of order and needs "
        "NICs that place out-of-order packets.",
    )
    nics_tolerate_reordering: bool = Field(
        False,
        description="Every NIC places out-of-order RoCE packets (ConnectX: ROCE_ACCL "
        "adaptive_routing_forced_en): required by per_packet mode.",
    )
    nic_planes: int = Field(
        1,
        ge=1,
        le=8,
        description="Planes every NIC's port is split over in hardware (NVIDIA Spectrum-X hardware plane "
        "load balancing, ConnectX NUM_OF_PLANES_P1). 1: a single-plane fabric, the port is not split. "
        "netcfg checks the switches of an inventory as one plane; a multi-plane fabric is an inventory "
        "per plane.",
    )

    @field_validator("hash_fields")
    @classmethod
    def _entropy(cls, value: list[str]) -> list[str]:
        if ROCE_ENTROPY.isdisjoint(value):
            raise ValueError(
                "the hash holds no RoCE entropy: expected l4_src_port or rdma_dest_qp among the fields "
                "(every RoCE flow goes to UDP 4791; only the source port or the queue pair tell them apart)"
            )
        if len(set(value)) != len(value):
            raise ValueError("a hash field is listed twice")
        return value

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, value: dict[str, int]) -> dict[str, int]:
        for tier, seed in value.items():
            if not 0 <= seed <= MAX_SEED:
                raise ValueError(f"{tier}: seed {seed} is out of range; expected 0-{MAX_SEED}")
        shared = sorted(t for t, s in value.items() if list(value.values()).count(s) > 1)
        if shared:
            raise ValueError(
                f"tiers {', '.join(shared)} share a hash seed: expected a different seed per tier "
                "(the same seed on two tiers polarises ECMP)"
            )
        return value

    @model_validator(mode="after")
    def _reordering(self) -> LoadBalancingPolicy:
        if self.mode == "per_packet" and not self.nics_tolerate_reordering:
            raise ValueError(
                "mode per_packet delivers RoCE packets out of order: expected "
                "nics_tolerate_reordering: true (and NICs set up for it), or mode hash or flowlet"
            )
        return self


class Policy(_Strict):
    name: str = Field(description="Profile name, shown in reports: one line of at most 64 characters.")
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
    cnp_by_platform: dict[str, TrafficClass] = Field(
        default_factory=dict,
        description="CNP DSCP and priority of the NICs of one host platform where they differ from `cnp` "
        "(e.g. thor: {dscp: 48, priority: 7}, Broadcom's default): every switch then maps each CNP DSCP "
        "to its strict class, so two NIC families may not share a CNP DSCP with different priorities. "
        "Without it, one CNP priority holds for the whole fabric.",
    )
    ecn: EcnPolicy = Field(EcnPolicy(), description="ECN marking on the lossless queue.")
    pfc_watchdog: WatchdogPolicy = Field(WatchdogPolicy(), description="PFC watchdog on lossless ports.")
    mtu: MtuPolicy = Field(MtuPolicy(), description="MTU of switch ports and host NICs.")
    host: HostPolicy = Field(HostPolicy(), description="ConnectX NIC RoCE settings.")
    firmware: dict[str, VersionRule] = Field(
        default_factory=dict, description="Per platform (eos, connectx): allowed or minimum NOS/NIC firmware."
    )
    health: HealthPolicy = Field(
        HealthPolicy(), description="Thresholds of the counter and link-health rules (per-second rates)."
    )
    load_balancing: LoadBalancingPolicy | None = Field(
        None,
        description="ECMP hash fields, per-tier seeds and adaptive routing, rendered where the platform "
        "documents them and checked fabric-wide. Left out: netcfg neither renders nor asks for them.",
    )

    @field_validator("name")
    @classmethod
    def _one_line(cls, value: str) -> str:
        if not _NAME.fullmatch(value):
            raise ValueError(f"{value[:40]!r}: expected one line of 1 to 64 printable characters")
        return value

    @field_validator("firmware", "cnp_by_platform")
    @classmethod
    def _known_platforms(cls, value: dict[str, object], info: ValidationInfo) -> dict[str, object]:
        # The platform names come from the caller (`load_policy`): platforms render from a Policy,
        # so the policy cannot ask their registry.
        known = sorted(info.context.get("platforms", ())) if isinstance(info.context, dict) else None
        unknown = sorted(set(value) - set(known)) if known is not None else []
        if unknown:
            raise ValueError(
                f"unknown platform {unknown[0]!r}: expected one of {', '.join(known or ())} "
                "(names are lower case; a firmware rule for no platform would check nothing)"
            )
        return value

    @field_validator("cnp_by_platform")
    @classmethod
    def _mappable(cls, value: dict[str, TrafficClass], info: ValidationInfo) -> dict[str, TrafficClass]:
        """Every switch maps each CNP DSCP to one class: the classes must fit together."""
        roce, default = info.data.get("roce"), info.data.get("cnp")
        if roce is None or default is None:
            return value
        by_dscp = {default.dscp: default.priority}
        for platform, cnp in value.items():
            if cnp.dscp == roce.dscp or cnp.priority == roce.priority:
                raise ValueError(f"{platform}: the CNP class must differ from roce's DSCP and priority")
            if by_dscp.setdefault(cnp.dscp, cnp.priority) != cnp.priority:
                raise ValueError(
                    f"{platform}: CNP DSCP {cnp.dscp} is given priorities {by_dscp[cnp.dscp]} and "
                    f"{cnp.priority}: a switch maps one DSCP to one class, so NIC families with different "
                    "CNP priorities need different CNP DSCPs"
                )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Policy:
        if self.roce.dscp == self.cnp.dscp:
            raise ValueError(f"roce.dscp and cnp.dscp are both {self.roce.dscp}: they must differ")
        if self.roce.priority == self.cnp.priority:
            raise ValueError(
                f"roce.priority and cnp.priority are both {self.roce.priority}: they must differ"
            )
        tos = self.host.roce_tos
        if tos is not None and tos >> 2 != self.roce.dscp:
            raise ValueError(
                f"host.roce_tos {tos} carries DSCP {tos >> 2}, not roce.dscp {self.roce.dscp}: expected "
                f"{self.roce.dscp << 2 | 2} (DSCP << 2 with ECT(0)), or leave it out"
            )
        return self

    def cnp_for(self, platform: str) -> TrafficClass:
        """The CNP class the NICs of a host platform mark their CNPs with."""
        return self.cnp_by_platform.get(platform, self.cnp)

    @property
    def cnp_classes(self) -> list[TrafficClass]:
        """Every CNP class of the fabric, the default first: each switch maps them all."""
        return [self.cnp, *(c for c in self.cnp_by_platform.values() if c != self.cnp)]

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


def load_policy(ref: str, base: Path | None = None, *, platforms: Collection[str] | None = None) -> Policy:
    """Load a policy by path, or by name from the bundled `policies/` folder. With `platforms` (the
    caller's platform registry), every per-platform setting must name one of them."""
    candidates = []
    if base is not None:
        candidates.append(base / ref)
    candidates.append(Path(ref))
    candidates.append(data_path("policies") / (ref if ref.endswith(".yaml") else f"{ref}.yaml"))
    named_file = ref.endswith((".yaml", ".yml"))
    for path in candidates:
        # Whatever is at a path is the policy meant (a FIFO or an unreadable file is reported as
        # such), except a folder that shares a bundled policy's name.
        if _present(path) and (named_file or not path.is_dir()):
            return load_model(
                path, Policy, "policy", {"platforms": platforms} if platforms is not None else None
            )
    raise InputError(
        f"policy {ref!r}",
        "expected a policy file path or a bundled policy name "
        f"({', '.join(sorted(p.stem for p in data_path('policies').glob('*.yaml')))})",
    )


def _present(path: Path) -> bool:
    """Something is at the path: a file, a FIFO, a dangling or looping link, an unreadable entry."""
    try:
        path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True
