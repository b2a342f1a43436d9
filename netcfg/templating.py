"""The Jinja2 environment every platform's templates render in."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from netcfg.resources import data_path

if TYPE_CHECKING:
    import jinja2


@cache
def environment() -> jinja2.Environment:
    # Imported on the first render: a command that renders nothing starts without Jinja2.
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_path("templates"))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def template(path: str) -> jinja2.Template:
    return environment().get_template(path)
