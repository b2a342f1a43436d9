#!/usr/bin/env bash
# netcfg intent for gpu01: RoCE settings of its ConnectX NICs.
# Idempotent: every step sets a value, so running it twice changes nothing the second time.
# mlnx_qos settings are runtime only: run this from a boot-time unit so a reboot keeps them.
set -euo pipefail

# Write a sysfs/configfs value only when it differs (some attributes reject rewrites while busy).
set_value() { [ "$(cat "$1" 2>/dev/null)" = "$2" ] || echo "$2" > "$1"; }

# Write several attributes of one folder: set_params DIR name=value ...
set_params() {
    local dir=$1 kv
    shift
    for kv in "$@"; do set_value "$dir/${kv%%=*}" "${kv#*=}"; done
}

# Enable ECN for one role (np: notification point, rp: reaction point) on exactly these priorities.
set_ecn() {
    local dev=$1 role=$2 prios=",$3," p
    for p in 0 1 2 3 4 5 6 7; do
        if [[ $prios == *",$p,"* ]]; then set_value "/sys/class/net/$dev/ecn/roce_$role/enable/$p" 1
        else set_value "/sys/class/net/$dev/ecn/roce_$role/enable/$p" 0; fi
    done
}

mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config

# --- eth0 (mlx5_0, rail 1)
ip link set dev eth0 mtu 9000
# The NIC sizes its PFC headroom from --cable_len (see netcfg render --explain).
mlnx_qos -i eth0 --trust dscp --pfc 0,0,0,1,0,0,0,0 --cable_len 3
set_ecn eth0 np 3
set_ecn eth0 rp 3
set_params /sys/class/net/eth0/ecn/roce_np cnp_dscp=48 cnp_802p_prio=6 min_time_between_cnps=4
set_params /sys/class/net/eth0/ecn/roce_rp dce_tcp_g=1019 initial_alpha_value=1023 rpg_ai_rate=5 rpg_byte_reset=32767 rpg_hai_rate=50 rpg_min_dec_fac=50 rpg_min_rate=1 rpg_time_reset=300
mkdir -p /sys/kernel/config/rdma_cm/mlx5_0
set_params /sys/kernel/config/rdma_cm/mlx5_0/ports/1 'default_roce_mode=RoCE v2' default_roce_tos=106

# --- eth1 (mlx5_1, rail 2)
ip link set dev eth1 mtu 9000
# The NIC sizes its PFC headroom from --cable_len (see netcfg render --explain).
mlnx_qos -i eth1 --trust dscp --pfc 0,0,0,1,0,0,0,0 --cable_len 3
set_ecn eth1 np 3
set_ecn eth1 rp 3
set_params /sys/class/net/eth1/ecn/roce_np cnp_dscp=48 cnp_802p_prio=6 min_time_between_cnps=4
set_params /sys/class/net/eth1/ecn/roce_rp dce_tcp_g=1019 initial_alpha_value=1023 rpg_ai_rate=5 rpg_byte_reset=32767 rpg_hai_rate=50 rpg_min_dec_fac=50 rpg_min_rate=1 rpg_time_reset=300
mkdir -p /sys/kernel/config/rdma_cm/mlx5_1
set_params /sys/kernel/config/rdma_cm/mlx5_1/ports/1 'default_roce_mode=RoCE v2' default_roce_tos=106

# --- eth2 (mlx5_2, rail 3)
ip link set dev eth2 mtu 9000
# The NIC sizes its PFC headroom from --cable_len (see netcfg render --explain).
mlnx_qos -i eth2 --trust dscp --pfc 0,0,0,1,0,0,0,0 --cable_len 3
set_ecn eth2 np 3
set_ecn eth2 rp 3
set_params /sys/class/net/eth2/ecn/roce_np cnp_dscp=48 cnp_802p_prio=6 min_time_between_cnps=4
set_params /sys/class/net/eth2/ecn/roce_rp dce_tcp_g=1019 initial_alpha_value=1023 rpg_ai_rate=5 rpg_byte_reset=32767 rpg_hai_rate=50 rpg_min_dec_fac=50 rpg_min_rate=1 rpg_time_reset=300
mkdir -p /sys/kernel/config/rdma_cm/mlx5_2
set_params /sys/kernel/config/rdma_cm/mlx5_2/ports/1 'default_roce_mode=RoCE v2' default_roce_tos=106

# --- eth3 (mlx5_3, rail 4)
ip link set dev eth3 mtu 9000
# The NIC sizes its PFC headroom from --cable_len (see netcfg render --explain).
mlnx_qos -i eth3 --trust dscp --pfc 0,0,0,1,0,0,0,0 --cable_len 3
set_ecn eth3 np 3
set_ecn eth3 rp 3
set_params /sys/class/net/eth3/ecn/roce_np cnp_dscp=48 cnp_802p_prio=6 min_time_between_cnps=4
set_params /sys/class/net/eth3/ecn/roce_rp dce_tcp_g=1019 initial_alpha_value=1023 rpg_ai_rate=5 rpg_byte_reset=32767 rpg_hai_rate=50 rpg_min_dec_fac=50 rpg_min_rate=1 rpg_time_reset=300
mkdir -p /sys/kernel/config/rdma_cm/mlx5_3
set_params /sys/kernel/config/rdma_cm/mlx5_3/ports/1 'default_roce_mode=RoCE v2' default_roce_tos=106
