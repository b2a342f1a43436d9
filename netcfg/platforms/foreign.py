"""What a config text is when it is not the platform's own: the tell-tale top-level lines of other
kinds of file. A platform's parser puts its own tells (another vendor's markers) before these."""

from __future__ import annotations

import re

FOREIGN_TEXT: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\{\s*(?:$|\")|\[\s*(?:$|[{\[\"\]])"), "a JSON document"),
    (re.compile(r"```|\|.*\|\s*$"), "Markdown"),
    (re.compile(r"- \w"), "a YAML list (NVUE or similar)"),
    (re.compile(r".*\{\s*$|\}\s*$"), "a brace-structured config (Junos or similar)"),
    (re.compile(r"[\w.]+\s*=\s"), "'key = value' lines (a Linux or Cumulus config file)"),
]
