# SPDX-License-Identifier: GPL-3.0-or-later
"""Every letter the bot writes is signed once (outside players' trial: HISTORY letters carried the
report's signature above their own, "the game moderator" twice)."""

from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailbot.services.play.history import SIGNATURE_DASHES, unsigned
from mailbot.store.game_tables import GameStatus
from tests.services.game_helpers import Harness, parse, started_duel
from tests.services.helpers import GM

NORTH, SOUTH, CAROL, DAVE = (
    "north@players.test",
    "south@players.test",
    "carol@players.test",
    "dave@players.test",
)
SIGNED = "the game moderator."


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/s.db")
    yield harness
    harness.bot.engine.dispose()


def signature_counts(message: EmailMessage) -> tuple[int, int]:
    """How often the letter's text opens a signature, and how often its HTML part signs off."""
    plain = message.get_body(preferencelist=("plain",))
    lines = str(plain.get_content()).replace("\r\n", "\n").split("\n") if plain is not None else []
    html = message.get_body(preferencelist=("html",))
    return lines.count(SIGNATURE_DASHES), str(html.get_content()).count(SIGNED) if html is not None else 1


def _played_with_every_kind_of_letter(h: Harness) -> None:
    """A duel with a GM's day at work: press, STATUS, PREVIEW, HISTORY, a rollback, a seat
    handed on (HISTORY letters to the new player), an eject and a new player (where the game
    stands), ARCHIVE, and a stranger's HELP; then played to its end (the closing letters)."""
    game_id, north, south = started_duel(h, NORTH, SOUTH)

    def gm(line: str) -> None:
        h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] gm", f"{line}\n")

    h.mail(NORTH, f"{north} orders", "ORDERS\nATTACK 1\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"Re: {south} press", "PRESS NORTH\nHello.\nEND\nSTATUS\n")
    gm("PREVIEW")
    h.tick(2 * 24 * 3600)
    h.mail(NORTH, f"{north} history", "HISTORY\n")
    gm("ROLLBACK T1.orders typo")
    gm(f"REPLACE south {CAROL} moved away")
    gm("EJECT north silent")
    h.tick(3 * 24 * 3600)
    gm(f"REPLACE north {DAVE}")
    h.mail(DAVE, f"[DU-{game_id} {h.seat(game_id, 'north').secret}] archive", "ARCHIVE\n")
    h.mail("stranger@elsewhere.test", "help", "HELP\n")
    seats = {
        CAROL: f"[DU-{game_id} {h.seat(game_id, 'south').secret}]",
        DAVE: f"[DU-{game_id} {h.seat(game_id, 'north').secret}]",
    }
    for _ in range(12):
        if h.game(game_id).status is GameStatus.FINISHED:
            return
        for address, tag in seats.items():
            h.mail(address, f"{tag} play", "ORDERS\nATTACK 2\nEND\nSEAL bid 1\n")
        h.tick(3 * 24 * 3600)
    raise AssertionError("the duel did not end")


def test_every_letter_of_a_played_game_has_one_signature(h: Harness) -> None:
    _played_with_every_kind_of_letter(h)
    letters = [parse(sent.raw) for sent in h.sink.sent]
    subjects = {str(m["Subject"]).strip() for m in letters}
    assert any("] History: " in s for s in subjects) and any("where the game stands" in s for s in subjects)
    assert any("the game log is closed" in s for s in subjects)
    twice = [(m["To"], m["Subject"], signature_counts(m)) for m in letters if signature_counts(m) != (1, 1)]
    assert not twice, twice


def test_a_letters_text_loses_its_signature_and_nothing_else() -> None:
    report = "== Report ==\nA line.\n-- not a signature\n\n-- \nGame log chain head: ab\nthe bot\n"
    assert unsigned(report) == "== Report ==\nA line.\n-- not a signature\n"
    assert unsigned("No signature here.\n") == "No signature here.\n"
