"""A local SSH lab of simulated switches and hosts, for tests and demos without real hardware."""

from netcfg.lab.sshserver import KEX_ALGS, CliProfile, LabDevice, LabServer, TransportFault

__all__ = ["KEX_ALGS", "CliProfile", "LabDevice", "LabServer", "TransportFault"]
