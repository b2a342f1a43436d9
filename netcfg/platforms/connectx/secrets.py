"""What a ConnectX server prints is masked as every Linux host's is (`netcfg.platforms.linux.secrets`):
by the shape of a secret, since a host has no config syntax for one."""

from netcfg.platforms.linux.secrets import mask_secrets

__all__ = ["mask_secrets"]
