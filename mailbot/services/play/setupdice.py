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
from datetime import datetime, timedelta

from sqlmodel import Session

from mailbot.core import deadlines
from mailbot.services.base import dicechain, queries
from mailbot.services.base.tags import tag
from mailbot.services.post.letters import Draft, Postman
from mailbot.store.game_tables import Game, GameStatus, Seat, StepRow, StepState


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
        "  1. Take verify.py (in every game archive; it needs only Python 3).",
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
    number = queries.id_of(game)
    for seat in seats:
        by = deadlines.local_time(setup.deadline_at, seat.timezone or game.timezone)
        if seat.name in chained:
            lines = [
                "Every seat has joined. The set-up dice wait for your say:",
                "send the line that",
                f"  python3 verify.py reveal {number} {seat.name} 1",
                f"prints, by {by}.",
                "Without it the set-up is rolled then, your reveal counted as withheld.",
            ]
        else:
            lines = [
                "Every seat has joined. The set-up is rolled once the seats with",
                f"a dice chain ({', '.join(chained)}) have sent their round-1 reveal,",
                f"by {by} at the latest.",
            ]
        letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] {game.title}: set-up dice")
        postman.post(session, letter.section("The set-up dice", lines), kind="announcement", now=now)


def due(session: Session, game: Game, setup: StepRow, now: datetime) -> bool:
    """Whether a set-up waiting for reveals is to be rolled now: all in, or the deadline passed."""
    if game.status is not GameStatus.SETUP or setup.state is not StepState.OPEN:
        return False
    if dicechain.Links.read(session, setup.game_id).counted_at(setup)[0] < 0:
        return False  # seats still to join
    closing = setup.deadline_at + timedelta(seconds=game.grace_seconds)
    return now >= closing or not dicechain.setup_waits(session, setup)
