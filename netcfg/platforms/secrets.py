"""Masking secrets with netutils' sanitize_config, without a pass per filter over outputs that hold none."""

from __future__ import annotations

from dataclasses import dataclass

from netutils.config.clean import sanitize_config


@dataclass(frozen=True)
class SecretFilters:
    """A platform's sanitize_config filters, and words of which every filter's match holds one.

    Each filter is a regex pass over the whole text, and most of what a switch prints (interface
    tables, counters) holds none of the words: such text is saved as it is, without the passes.
    """

    filters: tuple[dict[str, str], ...]
    keywords: tuple[str, ...]

    def mask(self, text: str) -> str:
        if not any(word in text for word in self.keywords):
            return text
        return sanitize_config(text, list(self.filters))
