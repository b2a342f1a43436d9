"""The shared rules, one module per scope (device, link, fabric, cabling, plan, health, collection,
waivers), and the runner that applies them.

Rules build on the rule API in `netcfg.rules`. `netcfg.checks.catalogue` registers every rule (the
shared ones, then each platform's own); `netcfg.checks.runner` runs them. This package imports
neither, so importing one rule module loads no platform.
"""
