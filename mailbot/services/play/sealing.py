# SPDX-License-Identifier: GPL-3.0-or-later
"""SEAL by mail: sealed values kept secret until every seat has sealed (or the deadline).

The rules of sealing are the core's :class:`~mailbot.core.sealed.SealBox`
(who may seal which label, replacing, receipts, the opening); this module
loads a step's box from the stored order sets, asks it, and stores, logs and
mails what it answers. The sender gets a receipt SHA-256(value || salt); the
other seats hear only that a value arrived; the opening letter gives every
value and salt, so every seat can check every receipt.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any

from mailbot.core.commands import Command
from mailbot.core.game import Line
from mailbot.core.sealed import Refusal, RefusalKind
from mailbot.services.base import queries
from mailbot.services.base.queries import box_of, step_labels
from mailbot.services.base.tags import tag
from mailbot.services.inbox.auth import Gatekeeper, Seated
from mailbot.services.inbox.handling import Context, Reply
from mailbot.services.play import observers
from mailbot.services.play.games import Games
from mailbot.services.play.steps import contribute, open_step_for, opened_before_rollback
from mailbot.services.post.letters import Draft, Postman
from mailbot.store.game_tables import OrderSet, SeatStatus, StepRow, row_id
from mailbot.store.rows import new_row


def _salt() -> bytes:
    return secrets.token_bytes(32)


class Sealing:
    def __init__(
        self, *, games: Games, gate: Gatekeeper, postman: Postman, clock: Callable[[], datetime]
    ) -> None:
        self.games = games
        self.gate = gate
        self.postman = postman
        self.clock = clock

    def seal(self, command: Command, ctx: Context, reply: Reply) -> None:
        """Store a sealed value; the sender gets a receipt, the others only hear that one arrived."""
        who = self.gate.player(ctx, reply)
        if who is None:
            observers.refused(command, ctx, reply, "sealed values")
            return
        step = open_step_for(who, Command(command.name, (), command.line, command.text), ctx, reply)
        if step is None:
            return
        if step.kind != "sealed":
            reply.problem(command.line, command.text, f"no sealed value is open; the open step is {step.key}")
            return
        if opened := opened_before_rollback(ctx.session, step):
            reply.problem(command.line, command.text, opened)
            return
        labels = ", ".join(step_labels(step))
        if len(command.args) != 2:
            reply.problem(command.line, command.text, f"write SEAL <label> <value>; labels: {labels}")
            return
        current = queries.current_orders(ctx.session, row_id(step))
        box, answer = box_of(step, current).put(who.seat.name, command.args[0], command.args[1], _salt())
        if isinstance(answer, Refusal):
            hint = f"; labels: {labels}" if answer.kind is RefusalKind.UNKNOWN_LABEL else ""
            reply.problem(command.line, command.text, answer.reason + hint)
            return
        label, value = answer.label, command.args[1]
        plugin = queries.plugin(who.game)
        parsed = plugin.parse(
            plugin.load(step.snapshot), who.seat.name, [Line(command.line, f"{label.upper()} {value}")]
        )
        if parsed.problems or not parsed.accepted:
            reason = parsed.problems[0].reason if parsed.problems else "not accepted"
            reply.problem(command.line, command.text, reason)
            return
        held = current.get(who.seat.name)
        entry = box.entries[who.seat.name, label]
        sealed = {
            **(held.sealed if held else {}),
            # The stored line is the plugin's normalised form (what the dice digest hashes).
            label: {
                "value": entry.value,
                "salt": entry.salt_hex,
                "receipt": answer.receipt,
                "line": parsed.accepted[0].normalised,
            },
        }
        lines = [str(item["line"]) for _, item in sorted(sealed.items())]
        self._replace_sealed(ctx, who, step, lines=lines, sealed=sealed, held=held)
        reply.section(
            "Sealed",
            [
                f"Label: {label}",
                f"Receipt: {answer.receipt}",
                "Keep the receipt: the opening letter gives the value and salt to check it.",
            ],
        )

    def _replace_sealed(
        self,
        ctx: Context,
        who: Seated,
        step: StepRow,
        *,
        lines: list[str],
        sealed: dict[str, Any],
        held: OrderSet | None,
    ) -> None:
        if held is not None:
            held.current = False
            ctx.session.add(held)
        ctx.session.add(
            new_row(
                OrderSet,
                step_id=row_id(step),
                seat=who.seat.name,
                lines=lines,
                sealed=sealed,
                inbound_id=ctx.row.id,
                received_at=ctx.row.received_at,
            )
        )
        receipts = {name: item["receipt"] for name, item in sealed.items()}
        queries.note(
            ctx.session,
            who.game,
            "sealed",
            {"step": step.key, "seat": who.seat.name, "receipts": receipts},
            self.clock(),
        )
        self.games.note_orders(
            ctx.session, who.game, step, who.seat.name, [], replaced=held is not None, log=False
        )
        contribute(self.games, ctx, who, step)
        for other in queries.seats(ctx.session, row_id(who.game)):
            if other.name != who.seat.name and other.status is SeatStatus.ACTIVE:
                letter = Draft(other.address, f"[{tag(who.game)} {other.secret}] A sealed value arrived")
                letter.section("Sealed value", [f"{who.seat.name} has sealed a value for {step.title}."])
                self.postman.post(ctx.session, letter, kind="sealed-notice", now=self.clock())
