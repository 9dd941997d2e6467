# SPDX-License-Identifier: GPL-3.0-or-later
"""A seat's map as its report carries it (``reports``): the picture painted from the same view as
the letter, attached as a PNG, and its SVG kept for the archive."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from mailbot.mail.compose import Attachment
from mailbot.render.maps import CAPTION, INSET_CAPTION, MapError
from mailbot.render.maps.painting import Painted, paint
from mailbot.store.game_tables import Game

log = logging.getLogger(__name__)


class DrawnMap(NamedTuple):
    """A seat's map as a letter carries it: the theatre's PNG, its SVG (kept in the archive),
    and the zoomed inset's PNG when the game draws one for this hour."""

    picture: Attachment
    svg: str
    inset: Attachment | None = None
    caption: str = CAPTION  # the game's words for the map ("The map of this hour")
    inset_caption: str = INSET_CAPTION


def map_of(
    game: Game,
    seat: str,
    turn: int,
    view: Mapping[str, Any],
    painted: Callable[[], Painted | None] | None = None,
) -> DrawnMap | None:
    """The seat's map of ``view`` as ``map-<seat>-turn<n>.png`` and its SVG, if the game draws
    one, with its inset as ``map-<seat>-turn<n>-zoomed.png`` when there is one. ``painted``
    gives the picture when it was handed to a :class:`Painter` (``paint_all``), else it is
    painted here.

    A map that cannot be drawn (a bug in a game's view, no cairo library) never stops the letter:
    it goes out without its picture, and the log says why.
    """
    try:
        drawn = painted() if painted is not None else paint(game.plugin, view)
        if drawn is None:
            return None
        picture, png, inset = drawn.picture, drawn.png, drawn.inset_png
    except MapError:
        log.exception("game %s: the report to %s goes out without its map", game.id, seat)
        return None
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", seat).strip("-") or "seat"  # a file name in any client

    def attached(name: str, content: bytes) -> Attachment:
        # The HTML part shows it by this Content-ID; the game's number keeps it apart from another game's.
        return Attachment(f"{name}.png", content, "image", "png", f"{name}.game{game.id}@mailbot")

    name = f"map-{safe}-turn{turn}"
    zoomed = None if inset is None else attached(f"{name}-zoomed", inset)
    return DrawnMap(attached(name, png), picture.svg, zoomed, picture.caption, picture.inset_caption)
