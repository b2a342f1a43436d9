"""The ECMP hash in config_db, as SONiC's Generic Hash design documents it (sonic-net/SONiC
doc/hash/hash-design.md, "Config DB" and "Configuration sample"): `SWITCH_HASH|GLOBAL`, field
`ecmp_hash`, a list of hash fields among them `L4_SRC_PORT` and `RDMA_BTH_DEST_QP`; the packet-type
extension adds `ecmp_hash_ipv4_rdma` / `ecmp_hash_ipv6_rdma`, which then hash RoCE packets instead.

SONiC documents no hash seed and no adaptive routing in config_db: netcfg neither renders nor reads
them (the seed switchd programs comes from its own template, not the configuration).
"""

from __future__ import annotations

from netcfg.platforms.base import LoadBalancing
from netcfg.platforms.sonic.configdb import ConfigDb

TABLE, KEY = "SWITCH_HASH", "GLOBAL"
# The field that hashes RoCEv2 over IPv4 where the packet-type hash sets one, else the global one.
RDMA_FIELD, GLOBAL_FIELD = "ecmp_hash_ipv4_rdma", "ecmp_hash"
# SONiC's hash field names and netcfg's; the others (MACs, inner headers, BTH opcode) keep SONiC's.
HASH_FIELDS = {
    "IN_PORT": "ingress_port",
    "IP_PROTOCOL": "ip_protocol",
    "DST_IP": "dst_ip",
    "SRC_IP": "src_ip",
    "L4_DST_PORT": "l4_dst_port",
    "L4_SRC_PORT": "l4_src_port",
    "IPV6_FLOW_LABEL": "ipv6_flow_label",
    "RDMA_BTH_DEST_QP": "rdma_dest_qp",
}
SONIC_NAME = {v: k for k, v in HASH_FIELDS.items()}

SUPPORT = LoadBalancing(
    hash_fields=frozenset(HASH_FIELDS.values()),
    renders=frozenset({"hash_fields"}),
    reads=frozenset({"hash_fields"}),
)


def render_table(fields: frozenset[str] | None) -> dict[str, dict] | None:
    """`SWITCH_HASH` for these hash fields, in the order SONiC's sample lists them; None for none."""
    if fields is None:
        return None
    return {KEY: {GLOBAL_FIELD: [name for name, neutral in HASH_FIELDS.items() if neutral in fields]}}


def read_hash(db: ConfigDb) -> tuple[frozenset[str] | None, tuple[str, ...]]:
    """The fields RoCE over IPv4 is hashed on and where they stand (the config_db path); None where
    the document shows no hash, or one in a form the design does not give (unknown, not empty)."""
    entry = (db.table(TABLE) or {}).get(KEY, {})
    for field in (RDMA_FIELD, GLOBAL_FIELD):
        value = entry.get(field)
        if value is None:
            continue
        # config_db JSON holds a list; redis and older dumps a comma-separated string.
        names = value.split(",") if isinstance(value, str) else value
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return None, ()
        return frozenset(HASH_FIELDS.get(n.strip(), n.strip()) for n in names if n.strip()), (
            TABLE,
            KEY,
            field,
        )
    return None, ()
