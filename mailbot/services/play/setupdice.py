# SPDX-License-Identifier: GPL-3.0-or-later
"""The set-up's dice by mail: what the welcome letter says of them, and the round-1 reveals.

The set-up step opens when the game is created (round 1 of the seed chain), before any seat
can log an anchor, and is rolled once every seat has joined. If some seats have a dice chain
by then, the anchors are closed (``dicechain.close_setup``) and the set-up waits for their
round-1 reveals, until they are all in or its deadline passes: a reveal sent before the last
seat joined would let that seat choose its chain (a passphrase) knowing it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from mailbot.core import deadlines, lifecycle
from mailbot.services.base import dicechain, queries
from mailbot.services.base.tags import tag
from mailbot.services.post.letters import Draft, Postman
from mailbot.store.game_tables import ChainRow, Game, Seat, SeatStatus, StepRow, StepState


def welcome_lines(session: Session, game: Game) -> list[str]:
    """The welcome letter's lines on the dice: the set-up's commitment while it is open and, in
    a game with a seed chain, what the GM can know without a dice chain and how to send one."""
    setup = queries.setup_step(session, queries.id_of(game))
    open_setup = setup is not None and setup.state is StepState.OPEN
    anchor = dicechain.anchor_of(session, queries.id_of(game))
    if anchor is None:
        if setup is None or not open_setup:
            return []
        return [
            "",
            f"Set-up dice commitment (SHA-256 of the seed): {setup.commitment}",
            "The set-up is rolled when every seat has joined, mixed with the JOIN letters'",
            "Message-IDs and NONCE lines; the seed is revealed with the results.",
        ]
    lines = [""]
    if setup is not None and open_setup:
        lines.append(f"Set-up dice commitment (the seed's tagged hash): {setup.commitment}")
    lines.append(f"Seed chain anchor (every step's seed hashes to it, round by round): {anchor}")
    lines += _how_to_chain(queries.id_of(game), open_setup)
    return lines


def _how_to_chain(number: int, open_setup: bool) -> list[str]:
    lines = [
        "",
        "Your say in the dice. The game master holds the server's seeds.",
        "Without a dice chain your dice are his seed and your letters'",
        "Message-IDs and NONCE lines, which he sees as they come: he can",
        "know the dice before they are rolled. With one nobody can steer them:",
        "  1. Take verify.py and the folder verifier/ beside it (both in every",
        "     game archive; they need only Python 3).",
        f"  2. Run: python3 verify.py chain {number} <your seat>",
        "     and type a passphrase of your own for this game (four words",
        "     or more; it is never sent and never stored).",
    ]
    if not open_setup:
        return [
            *lines,
            "  3. Send the line it prints, CHAIN <anchor>. It counts from the",
            "     next step that opens.",
            "  4. With each step's orders send the line that",
            f"     python3 verify.py reveal {number} <your seat> <round>",
            "     prints (every report names the round).",
        ]
    return [
        *lines,
        "  3. Send the line it prints, CHAIN <anchor>, now. Sent before every",
        "     seat has joined, it counts for the set-up too.",
        "  4. When asked, send the line that",
        f"     python3 verify.py reveal {number} <your seat> <round>",
        "     prints: for the set-up (round 1) once every seat has joined,",
        "     then with each step's orders (every report names the round).",
        "The set-up is rolled when every seat has joined: with the round-1",
        "reveals of the seats that have a chain by then or, with none, with",
        "the JOIN letters' Message-IDs and NONCE lines.",
    ]


def ask_reveals(
    postman: Postman,
    session: Session,
    game: Game,
    seats: Sequence[Seat],
    *,
    chained: Sequence[str],
    setup: StepRow,
    now: datetime,
) -> None:
    """Tell every seat that the set-up waits for the chained seats' round-1 reveals, and until when."""
    for seat in seats:
        by = deadlines.local_time(setup.deadline_at, seat.timezone or game.timezone)
        if seat.name in chained:
            lines = [
                "Every seat has joined. The set-up dice wait for the round-1 reveals",
                f"of the seats with a dice chain ({', '.join(chained)}), yours too:",
                *_send_reveal(game, seat, by),
            ]
        else:
            lines = [
                "Every seat has joined. The set-up is rolled once the seats with",
                f"a dice chain ({', '.join(chained)}) have sent their round-1 reveal,",
                f"by {by} at the latest.",
            ]
        letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] {game.title}: set-up dice")
        postman.post(session, letter.section("The set-up dice", lines), kind="announcement", now=now)


def _send_reveal(game: Game, seat: Seat, by: str) -> list[str]:
    return [
        "send the line that",
        f"  python3 verify.py reveal {queries.id_of(game)} {seat.name} 1",
        f"prints, by {by}.",
        "Without it the set-up is rolled then, your reveal counted as withheld.",
    ]


# -- the wait for the reveals: a deadline like any other ----------------------------------


def facts(
    session: Session, setup: StepRow
) -> tuple[lifecycle.StepFacts, dict[str, lifecycle.SeatFacts]] | None:
    """The set-up waiting for its round-1 reveals as the lifecycle's plain values, so that its
    deadline, reminders and interlock are an orders step's: the chained seats owe, a seat has
    "sent" once nothing more is awaited from it, and the wait opened when the anchors closed.
    None when it waits for no reveal (seats still to join, or no chain then)."""
    awaited = dicechain.Links.read(session, setup.game_id).setup_awaited(setup)
    if setup.state is not StepState.OPEN or awaited is None:
        return None
    seats = {seat.name: seat for seat in queries.seats(session, setup.game_id)}
    found = {
        name: lifecycle.SeatFacts(
            name,
            sent=done,
            away=name in seats and seats[name].away(setup.deadline_at),
            active=name in seats and seats[name].status is SeatStatus.ACTIVE,
            missed_in_row=seats[name].missed_in_row if name in seats else 0,
        )
        for name, done in awaited.items()
    }
    opened = lifecycle.StepFacts(
        setup.key,
        tuple(sorted(awaited)),
        _closed_at(session, setup),
        setup.deadline_at,
        None,
        tuple(setup.reminders_sent),
    )
    return opened, found


def _closed_at(session: Session, setup: StepRow) -> datetime:
    """When every seat had joined and the set-up's anchors were closed (``setup-reveals``)."""
    query = select(ChainRow.created_at).where(
        ChainRow.game_id == setup.game_id, ChainRow.kind == "setup-reveals"
    )
    return session.exec(query.order_by(col(ChainRow.position).desc())).first() or setup.opened_at


def remind(
    postman: Postman, session: Session, game: Game, setup: StepRow, seat: Seat, *, now: datetime
) -> None:
    """A reminder to a chained seat whose round-1 reveal is still missing (as for orders)."""
    by = deadlines.local_time(setup.deadline_at, seat.timezone or game.timezone)
    letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] Reminder: set-up reveal due")
    lines = ["The set-up dice still wait for your say:", *_send_reveal(game, seat, by)]
    postman.post(
        session, letter.section("Your set-up reveal is still missing", lines), kind="reminder", now=now
    )


def deadline_moved(
    postman: Postman,
    session: Session,
    game: Game,
    setup: StepRow,
    announced: tuple[str, Sequence[str]],
    *,
    now: datetime,
    subject: str = "",
) -> None:
    """A GM action moved the deadline of the set-up's wait for reveals: every active seat is
    told; a seat whose reveal is still awaited is asked for it again, by the new deadline.
    ``subject``: the letters' own, for an action that kept the deadline (RESUME)."""
    found = facts(session, setup)
    owing = {name for name, seat in found[1].items() if not seat.sent} if found is not None else set()
    for seat in queries.seats(session, setup.game_id):
        if seat.status is not SeatStatus.ACTIVE:
            continue
        by = deadlines.local_time(setup.deadline_at, seat.timezone or game.timezone)
        news = subject or "New deadline for the set-up dice"
        letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] {news}")
        letter.section(*announced)
        if seat.name in owing:
            letter.section(
                "Your set-up reveal", ["The set-up dice wait for your say:", *_send_reveal(game, seat, by)]
            )
        else:
            letter.section(
                "The set-up dice",
                [f"They are rolled once the awaited reveals are in, by {by} at the latest."],
            )
        postman.post(session, letter, kind="deadline", now=now)


def status_lines(session: Session, setup: StepRow, zone: str) -> list[str]:
    """STATUS of a game in set-up: the seats still to join, or the reveals awaited and until when
    (seats named as every player may know them: by seat)."""
    found = facts(session, setup)
    if found is None:
        still = [
            seat.name
            for seat in queries.seats(session, setup.game_id)
            if seat.status is not SeatStatus.ACTIVE
        ]
        return [f"Set-up: waiting for every seat to join (still open: {', '.join(still) or 'none'})"]
    missing = [name for name, seat in found[1].items() if not seat.sent]
    return [
        "Open step: setup (its dice wait for the round-1 reveals)",
        f"Deadline: {deadlines.local_time(setup.deadline_at, zone)}",
        f"Reveals still to come: {', '.join(missing) or 'nobody'}",
    ]
