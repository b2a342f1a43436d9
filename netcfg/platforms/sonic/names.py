"""Names netcfg gives the config_db objects it writes, and the SONiC defaults it relies on."""

from __future__ import annotations

# Maps and profiles netcfg renders are named ROCE or ROCE_<something>; a parsed config records the
# names of the others (SONiC's stock AZURE maps, an operator's own) in DeviceState.qos_names.
OWN = "ROCE"
WRED = "ROCE_ECN"
STRICT_SCHEDULER = "ROCE_STRICT"
DOT1P_MAP = "ROCE_DOT1P"
# The CABLE_LENGTH entry every SONiC buffer template writes (sonic-buildimage buffers_config.j2).
CABLE_LENGTH_KEY = "AZURE"
# PORT_QOS_MAP fields that bind a map, by the kind DeviceState.qos_names keys them with, and the table
# that holds the map.
MAP_TABLES = {
    "dscp_to_tc_map": "DSCP_TO_TC_MAP",
    "dot1p_to_tc_map": "DOT1P_TO_TC_MAP",
    "tc_to_queue_map": "TC_TO_QUEUE_MAP",
    "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP",
    "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
    "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE",
}
# The port MTU portmgrd applies where PORT has none (sonic-swss cfgmgr/portmgr.cpp DEFAULT_MTU_STR).
DEFAULT_MTU = 9100
# The pipeline latency SONiC's Mellanox headroom calculation takes as xon (sonic-swss
# cfgmgr/buffer_headroom_mellanox.lua: xon = pipeline_latency, from the ASIC table, in KiB): 18 KiB on
# Spectrum, as in the dynamic-buffer HLD's pg_lossless_100000_5m_profile (roce-reference §2.2) and
# sonic-utilities' mmuconfig test vector.
PIPELINE_XON_BYTES = 18 * 1024
LOSSLESS_POOL = "ingress_lossless_pool"
# The stock cable lengths SONiC's buffer templates assume, by role (buffers_config.j2 ports2cable):
# ToR to server 5 m, which is also the T0 default_cable; leaf to ToR 40 m.
STOCK_CABLE_M = {"leaf": 5, "spine": 40, "superspine": 40}


def own(name: str) -> bool:
    """A name netcfg writes (ROCE, ROCE_ECN, ...), not one SONiC or an operator chose."""
    return name == OWN or name.startswith(OWN + "_")
