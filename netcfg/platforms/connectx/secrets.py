"""What a ConnectX server prints is masked by the shape of a secret alone (`netcfg.platforms.secrets`):
a host has no config syntax for one, and a private key or a bearer token may turn up anywhere (an LLDP
SysDescr, a script comment, a driver string)."""

from netcfg.platforms.secrets import mask_shapes as mask_secrets

__all__ = ["mask_secrets"]
