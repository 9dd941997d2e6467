# SPDX-License-Identifier: GPL-3.0-or-later
"""The bot's own letters that an inbound letter answers (In-Reply-To / References).

Every letter the bot sends is an outbound row with its Message-ID and, for game
letters, the game, the seat and the step it asks orders for. A reply names
those Message-IDs, so it tells which game and seat it is about without a tag
in its subject, which of the bot's texts it quotes (for the quote finder), and
whether it answers a step letter whose step is still open (reply = orders).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from mailbot.core import commands
from mailbot.core.commands import Reading, reply_orders
from mailbot.core.game import Line
from mailbot.core.letter import Letter
from mailbot.mail.known import Known
from mailbot.mail.mime import letter_texts
from mailbot.services.base import queries
from mailbot.services.base.tags import TAG
from mailbot.store.game_tables import Game, GameStatus, StepRow
from mailbot.store.models import Outbound

MAX_REFERENCES = 20  # the newest ones: a long thread's oldest letters say nothing more


@dataclass(frozen=True)
class Answered:
    """One of the bot's letters that a reply answers, as the outbox recorded it."""

    message_id: str
    recipient: str
    kind: str
    game_id: int | None
    seat: str
    step_key: str
    texts: tuple[str, ...]  # the letter's text as the bot sent it: plain, and HTML converted
    subject: str = ""  # as the bot wrote it


def answered(session: Session, letter: Letter) -> tuple[Answered, ...]:
    """The bot's letters ``letter`` answers, its direct parent first."""
    wanted: list[str] = []
    for message_id in (letter.in_reply_to, *reversed(letter.references)):
        if message_id and message_id not in wanted:
            wanted.append(message_id)
    wanted = wanted[:MAX_REFERENCES]
    if not wanted:
        return ()
    rows = session.exec(select(Outbound).where(col(Outbound.message_id).in_(wanted))).all()
    found = {row.message_id: row for row in rows}
    return tuple(_answered(found[m]) for m in wanted if m in found)


def _answered(row: Outbound) -> Answered:
    texts = letter_texts(row.raw)
    return Answered(
        row.message_id, row.recipient, row.kind, row.game_id, row.seat, row.step_key, texts, row.subject
    )


def known(letters: Sequence[Answered]) -> Known | None:
    return Known.from_texts(text for a in letters for text in a.texts) if letters else None


def press_author(letter: Letter, letters: Sequence[Answered]) -> str | None:
    """Whose press ``letter`` answers, when it answers press: the writer of the press letter it
    replies to (one the bot sent to this very address), else the one its subject names ("Re:
    [DU-3 k7Q2] Press from allied"). The writer is only a seat's name: the press goes through
    PRESS, with everything PRESS checks (who writes, which seats are in the game)."""
    parent = letters[0] if letters else None
    if parent is not None and parent.kind == "press" and parent.recipient.lower() == letter.sender.lower():
        named = commands.press_author(parent.subject)
        if named is not None:
            return named
    return commands.press_author(letter.subject)


def open_step_asked(session: Session, letters: Sequence[Answered], sender: str) -> StepRow | None:
    """The open step that one of the answered letters (sent to ``sender``) asked orders for."""
    for item in letters:
        if not item.step_key or item.game_id is None or item.recipient.lower() != sender.lower():
            continue
        game = session.get(Game, item.game_id)
        step = queries.open_step(session, item.game_id)  # kept for the batch: the orders read it again
        if game is not None and game.status is GameStatus.RUNNING and step is not None:
            return step if step.key == item.step_key else None
    return None


def tagged_orders(session: Session, reading: Reading, subject: str, sender: str) -> Reading:
    """A letter that is no reply but carries a seat's tag (``[DU-12 secret]``), from that seat's
    address while the open step asks it for orders: its loose lines are those orders, as the
    e-mail judges read a letter's lines (ORDERS ... END is not needed). Whether the tag's
    secret is right is the ORDERS handler's to judge, as for any letter."""
    if not reading.unknown or any(command.name == "ORDERS" for command in reading.commands):
        return reading
    found = TAG.search(subject)
    game_id = int(found.group(2)) if found else 0
    game = session.get(Game, game_id) if found else None
    step = queries.open_step(session, game_id) if game is not None else None
    if game is None or game.status is not GameStatus.RUNNING or step is None or step.kind == "sealed":
        return reading  # a sealed step's values come as SEAL lines alone: loose lines are no value
    owing = [s for s in queries.seats(session, game_id) if s.name in step.owing]
    if not any(s.address.lower() == sender.lower() for s in owing):
        return reading
    return reply_orders(reading, step.key, None, source="the lines of your letter")


def as_orders(
    session: Session,
    reading: Reading,
    letters: Sequence[Answered],
    sender: str,
    template: Sequence[tuple[int, str]] | None,
) -> Reading:
    """A reply to an open step's letter: its loose lines, or the template edited in the quote, are orders."""
    step = open_step_asked(session, letters, sender)
    if step is None or step.kind == "sealed":
        return reading  # a sealed step's values come as SEAL lines alone: loose lines are no value
    edited = tuple(Line(number, text) for number, text in template) if template else None
    return reply_orders(reading, step.key, edited)
