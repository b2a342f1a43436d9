"""What every Linux GPU server shares, whatever its NICs: `ethtool`, `lldpcli`, sysfs and the host
script's syntax (host.py), and the NICs' link state, PCIe link and counters (counters.py). The NIC
platforms (ConnectX, Thor) build on it; it registers no platform of its own."""
