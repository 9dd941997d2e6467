# SPDX-License-Identifier: GPL-3.0-or-later
"""Design defaults: what a game does where its seed is silent, lost or misprinted.

Every game keeps its defaults in one data file, ``data/defaults.toml`` in its
package (marked ``default = true``: none of it is from the seed)::

    default = true
    [[defaults]]
    key = "diagonal"                      # what the code looks it up by
    title = "a diagonal cell costs 3''"   # what an event it shapes cites
    text = "..."                          # the reading, as the letter's list states it

Every letter lists them all ("Design defaults in this game"), and the text of an
event a default shaped names it: ``(design default: a diagonal cell costs 3'')``.
So a player checking a result against the seed sees where the moderator chose.

The edge reads the file and hands it in through ``Setup.data["defaults"]``; a
game keeps the entries in its state (:func:`dump_defaults`), so a running game
never depends on the file changing under it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mailbot.errors import GameError

#: the plug-in API of this module (docs/writing-a-game.md); the rest is the moderator's own
__all__ = [
    "DesignDefault",
    "cite",
    "dump_defaults",
    "find_default",
    "load_defaults",
    "read_defaults",
]


@dataclass(frozen=True)
class DesignDefault:
    key: str
    title: str
    text: str

    @property
    def cite(self) -> str:
        """What an event says where this default acted."""
        return f"design default: {self.title}"

    @property
    def line(self) -> str:
        """One line of the letter's list."""
        return f"{self.title}: {self.text}" if self.title else self.text


def read_defaults(table: Any, where: str) -> tuple[DesignDefault, ...]:
    """The entries of a ``defaults.toml`` file's mapping (``Setup.data.get("defaults", {})``)."""
    if not isinstance(table, Mapping):
        raise GameError(f"{where}: defaults must be a table")
    if table and not table.get("default", False):
        raise GameError(f"{where}: defaults.toml must be marked default = true")
    entries = table.get("defaults", [])
    if not isinstance(entries, list | tuple):
        raise GameError(f"{where}: defaults.defaults must be a list of tables")
    found = []
    for entry in entries:
        if not isinstance(entry, Mapping) or not all(isinstance(entry.get(k), str) for k in ("key", "text")):
            raise GameError(f"{where}: every design default needs a key and a text, not {entry!r}")
        found.append(DesignDefault(entry["key"], str(entry.get("title", "")), entry["text"]))
    return tuple(found)


def find_default(defaults: Iterable[DesignDefault], key: str) -> DesignDefault:
    """The entry for ``key``; a game state saved without it cites the key itself."""
    for entry in defaults:
        if entry.key == key:
            return entry
    return DesignDefault(key, key.replace("_", " "), "")


def cite(defaults: Iterable[DesignDefault], key: str) -> str:
    """``design default: <title>``, to put in brackets after the text of an event it shaped."""
    return find_default(defaults, key).cite


def dump_defaults(defaults: Sequence[DesignDefault]) -> list[dict[str, str]]:
    return [{"key": d.key, "title": d.title, "text": d.text} for d in defaults]


def load_defaults(data: Iterable[Any]) -> tuple[DesignDefault, ...]:
    """Reverses :func:`dump_defaults`; a plain string (an older state's note) is kept as its text."""
    loaded = []
    for item in data:
        if isinstance(item, Mapping):
            loaded.append(DesignDefault(str(item["key"]), str(item.get("title", "")), str(item["text"])))
        else:
            loaded.append(DesignDefault("", "", str(item)))
    return tuple(loaded)
