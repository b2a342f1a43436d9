"""NetBox as the source of truth: `netcfg inventory from-netbox` reads devices, interfaces and cables
through NetBox's REST API (pynetbox) and writes the explicit inventory netcfg checks and renders.

`fetch` talks to NetBox (the token, pagination, HTTP errors); `shapes` types the objects NetBox 4.x
serves; `place` puts each device, NIC and cable into the rail plan, or refuses it by name; `write`
turns the plan into fabric.yaml, cabling.csv, policy.yaml and connections.json.
"""
