# SPDX-License-Identifier: GPL-3.0-or-later
"""The open step a player's letter is for, and the letter's share of its dice.

What the ORDERS handler (``mailgame``) and SEAL (``sealing``) both need: which step a
command may act on, and the entropy each accepted letter adds to that step's dice.
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session

from mailbot.core import deadlines
from mailbot.core.commands import Command
from mailbot.core.game import Line
from mailbot.services.base import queries
from mailbot.services.inbox.auth import Seated
from mailbot.services.inbox.handling import Context, Reply
from mailbot.services.play.games import Games
from mailbot.services.play.lateness import late_letter
from mailbot.store.game_tables import GameStatus, StepRow, row_id

_BLOCK_NONCE = "nonce-in-orders"  # ctx.extra: the text of the first NONCE line inside ORDERS ... END


def letter_entropy(ctx: Context) -> tuple[str, str]:
    """The letter's contribution to the dice: its Message-ID and its first NONCE line's text
    (one inside its ORDERS block too)."""
    nonce = next((" ".join(c.args) for c in ctx.reading.commands if c.name == "NONCE"), "")
    return ctx.letter.message_id or "", nonce or str(ctx.extra.get(_BLOCK_NONCE, ""))


def without_nonces(command: Command, ctx: Context) -> list[Line]:
    """The ORDERS block without its NONCE lines: the rollback letter invites a NONCE, and players
    write it beside their orders. The first one adds to the dice as a NONCE line outside would."""
    kept = []
    for line in command.block:
        word, _, rest = line.text.strip().partition(" ")
        if word.upper() != "NONCE":
            kept.append(line)
        elif rest.strip():
            ctx.extra.setdefault(_BLOCK_NONCE, " ".join(rest.split()))
    return kept


def contribute(games: Games, ctx: Context, who: Seated, step: StepRow) -> None:
    """Log the letter's entropy for ``step`` once, however many of its commands were accepted."""
    done: set[tuple[int, str]] = ctx.extra.setdefault("entropy", set())
    key = (row_id(step), who.seat.name)
    if key not in done:
        done.add(key)
        games.note_entropy(ctx.session, who.game, step, who.seat.name, letter_entropy(ctx))


def open_step_for(who: Seated, command: Command, ctx: Context, reply: Reply) -> StepRow | None:
    """The open step if the seat owes input there and the letter names no other step."""
    step = queries.open_step(ctx.session, row_id(who.game))
    if who.game.status is not GameStatus.RUNNING or step is None:
        reply.problem(
            command.line, command.text, f"the game is {who.game.status.value}: no step takes orders"
        )
        return None
    wanted = command.args[0] if command.args else ""
    if wanted and wanted.upper() not in {step.key.upper(), f"T{step.turn}", str(step.turn)}:
        state = "is not open yet" if _turn_named(wanted) > step.turn else "is closed"
        reply.problem(command.line, command.text, f"that step {state}; the open step is {step.key}")
        return None
    if who.seat.name not in step.owing:
        reply.problem(command.line, command.text, f"your seat owes nothing in the open step {step.key}")
        return None
    closing = step.deadline_at + timedelta(seconds=who.game.grace_seconds)
    if ctx.row.received_at > closing:
        # The mail server's receipt time decides, not when the moderator got round to reading
        # the letter: after downtime, letters that came in time count and late ones do not.
        zone = who.seat.timezone or who.game.timezone
        reply.problem(
            command.line,
            command.text,
            f"your letter reached the mail server after the deadline ({deadlines.local_time(closing, zone)})",
        )
        return None
    late, what_happens = ("", []) if wanted else late_letter(ctx, who, step)
    if late:
        reply.section(f"Late for {late}", what_happens)
        reply.problem(command.line, command.text, f"late for {late}: not used (see above)")
        return None
    return step


def _turn_named(word: str) -> int:
    """The turn a step name like ``T5.orders``, ``T5`` or ``5`` names (0 if none)."""
    digits = word.upper().removeprefix("T").split(".", 1)[0]
    return int(digits) if digits.isdigit() else 0


def opened_before_rollback(session: Session, step: StepRow) -> str:
    """Why a sealed step takes no value now, when its values were opened before a rollback
    (they stand as they were: every seat has seen them); "" when it takes values."""
    if queries.opened_before(session, step) is None:
        return ""
    return f"the values of {step.title} were opened before the rollback and stand as they were"
