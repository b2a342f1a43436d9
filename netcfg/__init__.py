"""netcfg: RoCE configuration generator and validator for AI GPU clusters."""

__version__ = "0.1.0"
