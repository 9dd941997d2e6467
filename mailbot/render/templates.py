# SPDX-License-Identifier: GPL-3.0-or-later
"""Jinja2 rendering of every letter the bot writes: a text and an HTML part.

Templates get plain view models (dicts), never ORM objects. Undefined names are
errors (StrictUndefined) so a missing field fails a test instead of sending a
blank; HTML is autoescaped so player text cannot inject markup.

Where templates come from, first match wins:

1. the game master's override folder (``bot.template_overrides``), laid out
   like the names below, e.g. ``flattop/report.txt.j2`` or ``common/reply.txt.j2``;
2. ``common/<name>``: the shared letters in ``mailbot/templates/common``;
3. ``<game name>/report``: the ``templates/`` folder of that game's package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
    PrefixLoader,
    StrictUndefined,
    select_autoescape,
)

from mailbot.games.registry import Registry, default_registry


@dataclass(frozen=True)
class Rendered:
    text: str
    html: str


def game_loaders(registry: Registry) -> dict[str, BaseLoader]:
    """``common`` and every game package that ships templates, by the prefix templates are named with."""
    loaders: dict[str, BaseLoader] = {"common": PackageLoader("mailbot", "templates/common")}
    for package in registry:
        if (files(package.module) / "templates").is_dir():
            loaders[package.name] = PackageLoader(package.module, "templates")
    return loaders


def template_loader(registry: Registry, overrides: Path | None = None) -> BaseLoader:
    prefixed = PrefixLoader(game_loaders(registry))
    return ChoiceLoader([FileSystemLoader(str(overrides)), prefixed]) if overrides else prefixed


class Renderer:
    def __init__(self, overrides: Path | None = None, *, registry: Registry | None = None) -> None:
        self.env = Environment(
            loader=template_loader(registry or default_registry(), overrides),
            undefined=StrictUndefined,
            autoescape=select_autoescape(["html", "html.j2"]),
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )

    def render(self, name: str, context: Mapping[str, Any]) -> Rendered:
        """Render ``<name>.txt.j2`` and ``<name>.html.j2`` with the same context."""
        text = self.env.get_template(f"{name}.txt.j2").render(**context)
        html = self.env.get_template(f"{name}.html.j2").render(**context)
        return Rendered(text=text, html=html)
