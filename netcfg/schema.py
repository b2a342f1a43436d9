"""JSON Schemas of the files users write, for editors (YAML language server) and documentation."""

from __future__ import annotations

from pydantic import BaseModel

from netcfg.errors import InputError
from netcfg.inventory import InventorySpec
from netcfg.policy import Policy
from netcfg.waivers import WaiversFile

SCHEMAS: dict[str, type[BaseModel]] = {"inventory": InventorySpec, "policy": Policy, "waivers": WaiversFile}
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def json_schema(name: str) -> dict[str, object]:
    """The JSON Schema of one kind of file (`inventory`, `policy`, `waivers`), every field described."""
    model = SCHEMAS.get(name)
    if model is None:
        raise InputError(f"schema {name!r}", f"expected one of {', '.join(SCHEMAS)}")
    return {"$schema": DIALECT, **model.model_json_schema()}
