# SPDX-License-Identifier: GPL-3.0-or-later
"""mailbot.core.defaults: one data file of design defaults per game, cited by the events they shape."""

from __future__ import annotations

import pytest

from mailbot.core.defaults import DesignDefault, cite, dump_defaults, load_defaults, read_defaults
from mailbot.errors import GameError

FILE = {"default": True, "defaults": [{"key": "zero", "title": "remainder 0 opens 0", "text": "as read"}]}


def test_entries_are_read_and_cited() -> None:
    entries = read_defaults(FILE, "test")
    assert entries == (DesignDefault("zero", "remainder 0 opens 0", "as read"),)
    assert cite(entries, "zero") == "design default: remainder 0 opens 0"
    assert entries[0].line == "remainder 0 opens 0: as read"
    assert cite(entries, "gone_key") == "design default: gone key"  # an older state lacks it


def test_a_file_not_marked_default_is_refused() -> None:
    with pytest.raises(GameError, match="default = true"):
        read_defaults({"defaults": FILE["defaults"]}, "test")
    assert read_defaults({}, "test") == ()


def test_dump_and_load_round_trip_and_old_notes_load() -> None:
    entries = read_defaults(FILE, "test")
    assert load_defaults(dump_defaults(entries)) == entries
    assert load_defaults(["an old note"]) == (DesignDefault("", "", "an old note"),)
    assert load_defaults(["an old note"])[0].line == "an old note"
