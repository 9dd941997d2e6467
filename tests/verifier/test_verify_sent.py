# SPDX-License-Identifier: GPL-3.0-or-later
"""``verify --sent``: a player checks the chain against the letters he SENT (issue 31, item 1).

A moderator holds every seat's secret, so he can write a NONCE or orders letter in a seat's name
(and grind its text for the dice he wants), or drop a seat's letter before it is read. The chain
cannot show either on its own; the victim's Sent folder does.
"""

from __future__ import annotations

import mailbox
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from mailbot.store.game_tables import StepRow
from mailbot.store.models import Inbound
from tests.services.game_helpers import Harness
from tests.services.helpers import letter
from tests.services.test_games_by_mail import NORTH, SOUTH
from tests.verifier.test_verify_tampering import (
    _export,
    _letters,
    _run,
    _summary_counts_every_problem,
    play_duel,
)

FORGED = "forged-nonce@players.test"


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/s.db")
    yield harness
    harness.bot.engine.dispose()


def _play(h: Harness, *, forge: bool) -> int:
    def send(step: StepRow, north_tag: str, south_tag: str) -> None:
        if step.kind == "sealed":
            h.mail(NORTH, f"{north_tag} bid", "SEAL bid 2\nNONCE n-bid\n")
            h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
            return
        h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
        h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
        if forge and step.turn == 2:  # the moderator, with north's secret, after both seats sent
            raw = letter(
                sender=NORTH, subject=f"{north_tag} nonce", body="NONCE grind-17\n", message_id=FORGED
            )
            h.bot.inject(raw)
            h.bot.processor.process_pending()
            h.flush()

    return play_duel(h, send)


def _sent_by_north(h: Harness, path: Path, *, extra: bytes = b"") -> Path:
    """North's Sent folder: what he wrote, never the forgery."""
    box = mailbox.mbox(path)
    with Session(h.bot.engine) as session:
        for row in session.exec(select(Inbound).where(Inbound.sender == NORTH).order_by(col(Inbound.id))):
            if row.message_id != FORGED:
                box.add(row.raw)
    if extra:
        box.add(extra)
    box.flush()
    box.close()
    return path


def _check(h: Harness, game_id: int, tmp_path: Path, *, extra: bytes = b"") -> str:
    _export(h, game_id, tmp_path / "arch")
    received = _letters(h, NORTH, tmp_path / "in.mbox")
    sent = _sent_by_north(h, tmp_path / "sent.mbox", extra=extra)
    done = _run(tmp_path / "arch", "--letters", str(received), "--sent", str(sent))
    _summary_counts_every_problem(done.stdout)
    assert done.returncode == (1 if "FAILED" in done.stdout else 0)
    return done.stdout


def test_an_honest_game_checks_clean_against_the_sent_folder(h: Harness, tmp_path: Path) -> None:
    out = _check(h, _play(h, forge=False), tmp_path)
    assert "FAILED" not in out, out


def test_a_letter_forged_in_the_seats_name_is_flagged(h: Harness, tmp_path: Path) -> None:
    out = _check(h, _play(h, forge=True), tmp_path)
    failed = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert failed == [
        "FAILED: the chain counts a letter for north at T2.orders that you did not send "
        f"(Message-ID {FORGED}): forged in your name"
    ], out


def test_a_letter_dropped_before_intake_is_flagged(h: Harness, tmp_path: Path) -> None:
    game_id = _play(h, forge=False)
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    dropped = EmailMessage()
    dropped["From"], dropped["Subject"] = NORTH, f"{north_tag} orders"
    dropped["Date"] = "Sun, 22 Nov 2026 10:42:00 +0100"
    dropped["Message-ID"] = "<never-arrived@players.test>"
    dropped.set_content("ORDERS\nATTACK 3\nEND\n")
    out = _check(h, game_id, tmp_path, extra=dropped.as_bytes())
    assert "FAILED: the letter you sent Sun, 22 Nov 2026 10:42:00 +0100" in out
    assert "is not in the chain and was never answered: dropped" in out
