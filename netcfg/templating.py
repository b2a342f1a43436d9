"""The Jinja2 environment every platform's templates render in."""

from __future__ import annotations

from functools import cache

import jinja2

from netcfg.resources import data_path


@cache
def environment() -> jinja2.Environment:
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
