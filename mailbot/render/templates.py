# SPDX-License-Identifier: GPL-3.0-or-later
"""Jinja2 rendering of every letter the bot writes: a text and an HTML part.

Templates get plain view models (dicts), never ORM objects. Undefined names are
errors (StrictUndefined) so a missing field fails a test instead of sending a
blank; HTML is autoescaped so player text cannot inject markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape


@dataclass(frozen=True)
class Rendered:
    text: str
    html: str


class Renderer:
    def __init__(self, templates_dir: Path) -> None:
        self.env = Environment(
            loader=FileSystemLoader(str(templates_dir)),
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
