# SPDX-License-Identifier: GPL-3.0-or-later
"""A seat's own past reports sent again (HISTORY, and a new player's letters on taking a seat):
each as it was written, without its signature (the letter that carries it has one), marked
void where the GM rolled its step back, and telling where a step it said was owed is closed."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from mailbot.services.base import queries
from mailbot.services.base.tags import tag, untagged
from mailbot.services.post.letters import Draft, Postman
from mailbot.store.game_tables import Game, Report, Seat, StepRow, StepState

_NOW_OPEN = re.compile(r"^== (?:Now open: |New deadline for )(?P<title>.*) ==$")
_CLOSED = "This step is closed now: nothing is owed for it."

#: the first line of a past report, sent again, whose step the GM rolled back
VOID_REPORT = "This report is void: the game master rolled its step back and the step was played again."


def resend(
    session: Session, postman: Postman, game: Game, seat: Seat, turn: int | None, *, now: datetime
) -> int:
    """Send ``seat``'s own past reports (of ``turn`` only, when given) again; how many."""
    query = select(Report).where(Report.game_id == game.id, Report.seat == seat.name)
    if turn is not None:
        query = query.where(Report.turn == turn)
    reports = session.exec(query.order_by(col(Report.id))).all()
    step = queries.open_step(session, queries.id_of(game))
    open_title = step.title if step is not None else None
    void = void_reports(session, game, reports)
    for report in reports:
        title = untagged(report.subject)
        # The tag stays (issue 13): a reply to a HISTORY letter is known like any other.
        subject = f"[{tag(game)} {seat.secret}] History: {title}" + (" (void)" if report.id in void else "")
        lines = closed_steps_marked(unsigned(report.text), open_title)
        if report.id in void:
            lines = [VOID_REPORT, "", *lines]
        postman.post(session, Draft(seat.address, subject).section(title, lines), kind="history", now=now)
    return len(reports)


def void_reports(session: Session, game: Game, reports: Sequence[Report]) -> set[int | None]:
    """The reports of steps rolled back since: each report belongs to the last step of its key
    closed by the time it was written."""
    steps = session.exec(
        select(StepRow.key, StepRow.closed_at, StepRow.state)
        .where(StepRow.game_id == game.id, col(StepRow.closed_at).is_not(None))
        .order_by(col(StepRow.id))
    ).all()
    void: set[int | None] = set()
    for report in reports:
        made = [
            state
            for key, closed, state in steps
            if key == report.step_key and closed is not None and closed <= report.created_at
        ]
        if made and made[-1] is StepState.ROLLED_BACK:
            void.add(report.id)
    return void


#: the line that opens a letter's signature ("sig dashes"): a mail client sets apart what follows
SIGNATURE_DASHES = "-- "


def unsigned(text: str) -> str:
    """A sent letter's text without its signature (from its last sig dashes on), to be sent again
    inside another letter, which has a signature of its own: carried along, the report's stood
    above the frame's, twice "the game moderator", and its "Game log chain head:" line made
    ``verify --letters`` take the copy (marked where the game moved on) for the report itself,
    whose text the archive must hold, and fail it."""
    body, dashes, _ = text.rpartition(f"\n{SIGNATURE_DASHES}\n")
    return body if dashes else text


def closed_steps_marked(text: str, open_title: str | None) -> list[str]:
    """A past report's lines for a HISTORY letter: where it said a step is owed that is closed
    now (not the open step), it says so instead and its "Send:" line is left out."""
    lines, closed, sending = [], False, False
    for line in text.splitlines():
        heading = _NOW_OPEN.match(line)
        if heading is not None:
            closed = heading.group("title") != open_title
        elif line.startswith("== "):
            closed = False
        # The "Send:" line goes with the lines it wrapped onto (indented), not only its first.
        sending = closed and (
            line.startswith("Send: ") or (sending and line.startswith(" ") and line.strip() != "")
        )
        if sending:
            continue
        lines.append(_CLOSED if closed and line == "You owe orders for this step." else line)
    return lines
