"""Intended DeviceState of every device, from the Fabric and the Policy.

This is the single source the renderers draw from and the round-trip tests compare against:
for every platform, parse(render(intent)) == intent.
"""

from __future__ import annotations

from netcfg.headroom import headroom
from netcfg.model import (
    DSCP_VALUES,
    Device,
    DeviceState,
    EcnSetting,
    Endpoint,
    Fabric,
    InterfaceState,
    Watchdog,
    port_sort_key,
)
from netcfg.platforms import get_platform
from netcfg.policy import KB, Policy


def switch_dscp_map(policy: Policy) -> dict[int, int]:
    """RoCE and every NIC family's CNP DSCP, each to its class."""
    return {policy.roce.dscp: policy.roce.priority} | {c.dscp: c.priority for c in policy.cnp_classes}


def host_dscp_map(policy: Policy, platform: str) -> dict[int, int]:
    """A NIC shows all 64 code points; untouched ones keep the firmware default DSCP >> 3."""
    table = {d: d >> 3 for d in DSCP_VALUES}
    cnp = policy.cnp_for(platform)
    table.update({policy.roce.dscp: policy.roce.priority, cnp.dscp: cnp.priority})
    return table


def port_description(remote: Endpoint) -> str:
    """What a switch port's description says: the device and port it faces."""
    return f"{remote.device}:{remote.interface}"


def port_descriptions(device: Device, fabric: Fabric) -> dict[str, str]:
    """The description intent gives each of a device's ports (hosts give none)."""
    if not device.is_switch:
        return {}
    return {local.interface: port_description(remote) for local, _, remote in fabric.links_of(device.name)}


def shape_key(device: Device, fabric: Fabric) -> tuple:
    """Everything `device_intent` reads of a device and its links, and what the platforms' render and
    parse read of the device, but names: the device's own and the peers its ports face (which only
    the descriptions carry). Devices with one key render alike but for those names."""
    links = tuple(
        (local.interface, link.speed_gbps, link.cable_m) for local, link, _ in fabric.links_of(device.name)
    )
    return device.platform, device.role, tuple(device.nics), links


def _switch_intent(device: Device, fabric: Fabric, policy: Policy) -> DeviceState:
    lossless = policy.lossless_priorities
    ecn = EcnSetting(policy.ecn.min_kbytes * KB, policy.ecn.max_kbytes * KB, policy.ecn.probability)
    wd = policy.pfc_watchdog
    state = DeviceState(
        name=device.name,
        platform=device.platform,
        facets=frozenset({"qos"}),
        dscp_map=switch_dscp_map(policy),
        watchdog=Watchdog(wd.enabled, wd.action, wd.detection_ms, wd.restoration_ms, wd.polling_ms)
        if policy.watchdog_required
        else Watchdog(enabled=False),
    )
    platform = get_platform(device.platform)
    buffers = platform.port_buffer_settings
    lossless_pg = policy.roce.priority
    strict = frozenset(c.priority for c in policy.cnp_classes) if policy.cnp_strict else frozenset()
    for local, link, remote in sorted(
        fabric.links_of(device.name), key=lambda x: port_sort_key(x[0].interface)
    ):
        cable_m = round(link.cable_m) if "cable_m" in buffers else None
        pg_buffers = {}
        if "pg_buffers" in buffers and policy.lossless:
            need = headroom(link.speed_gbps, link.cable_m, policy.mtu.switch).bytes
            pg_buffers[lossless_pg] = platform.buffer_profile(need)
        state.interfaces[local.interface] = InterfaceState(
            name=local.interface,
            description=port_description(remote),
            mtu=policy.mtu.switch,
            trust=policy.trust,
            pfc_enabled=policy.lossless,
            no_drop_priorities=lossless,
            ecn={policy.roce.priority: ecn},
            strict_queues=strict,
            watchdog=policy.watchdog_required,
            cable_m=cable_m,
            pg_buffers=pg_buffers,
            # Every fabric port routes: lossless traffic is never flooded in a switched segment.
            switched=False if platform.renders_routed_ports else None,
            # RoCE keeps its DSCP hop by hop: netcfg re-marks nothing.
            dscp_rewrite={} if platform.reads_dscp_rewrite else None,
        )
    _switch_load_balancing(state, device, fabric, policy)
    return state


def _switch_load_balancing(state: DeviceState, device: Device, fabric: Fabric, policy: Policy) -> None:
    """The policy's hash and adaptive routing, as far as the platform renders them: the fields it can
    hash on, its tier's seed, and the mode on the ports toward other switches (ECMP groups); ports
    toward hosts carry no ECMP group and hash."""
    lb = policy.load_balancing
    platform = get_platform(device.platform)
    support = platform.load_balancing
    if lb is None:
        return
    if "hash_fields" in support.renders:
        state.hash_fields = platform.hash_intent(frozenset(lb.hash_fields))
    if "hash_seed" in support.renders:
        state.hash_seed = lb.seeds.get(device.role.value)
    if "lb_mode" in support.renders and lb.mode in support.modes:
        for local, _, remote in fabric.links_of(device.name):
            port = state.interfaces[local.interface]
            toward_switch = fabric.devices[remote.device].is_switch
            port.lb_mode = lb.mode if toward_switch or support.mode_scope == "device" else "hash"


def _host_intent(device: Device, fabric: Fabric, policy: Policy) -> DeviceState:
    state = DeviceState(name=device.name, platform=device.platform, facets=frozenset({"qos"}))
    lossless = policy.lossless_priorities
    # ECN marking and DCQCN run on the RoCE priority whether or not it is lossless.
    roce = frozenset({policy.roce.priority})
    dscp_map = host_dscp_map(policy, device.platform)
    cnp = policy.cnp_for(device.platform)
    dcqcn = {**policy.host.dcqcn.model_dump(), "min_time_between_cnps": policy.host.min_time_between_cnps_us}
    for nic in device.nics:
        link = fabric.link_at(Endpoint(device.name, nic.netdev))
        state.interfaces[nic.netdev] = InterfaceState(
            name=nic.netdev,
            mtu=policy.mtu.host,
            trust=policy.trust,
            pfc_enabled=policy.lossless,
            no_drop_priorities=lossless,
            dscp_map=dict(dscp_map),
            roce_mode=policy.host.roce_mode,
            roce_tos=policy.roce_tos,
            ecn_np_priorities=roce,
            ecn_rp_priorities=roce,
            cnp_dscp=cnp.dscp,
            cnp_priority=cnp.priority,
            dcqcn=dict(dcqcn),
            cable_m=round(link.cable_m) if link else None,
        )
    # What the platform's NICs hold of it: the DCQCN knobs they have, in their own shape.
    platform = get_platform(device.platform)
    for name, port in state.interfaces.items():
        if platform.dcqcn_knobs is not None:
            port.dcqcn = {k: v for k, v in port.dcqcn.items() if k in platform.dcqcn_knobs}
        state.interfaces[name] = platform.nic_intent(port, policy)
    lb = policy.load_balancing
    if lb is not None and "reorder_tolerant" in platform.load_balancing.renders:
        for port in state.interfaces.values():
            port.reorder_tolerant = lb.nics_tolerate_reordering
    return state


def host_dcqcn(policy: Policy) -> dict[str, int]:
    """Every DCQCN knob the policy sets on NICs, by the name the host platforms read it under."""
    return {**policy.host.dcqcn.model_dump(), "min_time_between_cnps": policy.host.min_time_between_cnps_us}


def device_intent(device: Device, fabric: Fabric, policy: Policy) -> DeviceState:
    state = (
        _switch_intent(device, fabric, policy) if device.is_switch else _host_intent(device, fabric, policy)
    )
    return get_platform(device.platform).complete_intent(state, policy)


def fabric_intent(fabric: Fabric, policy: Policy) -> dict[str, DeviceState]:
    return {name: device_intent(dev, fabric, policy) for name, dev in fabric.devices.items()}
