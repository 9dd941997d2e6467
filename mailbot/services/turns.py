# SPDX-License-Identifier: GPL-3.0-or-later
"""Turns: resolving a step, reports to every seat, deadlines and the safety interlock.

Resolution is deterministic: the plugin gets the state the step opened on,
every seat's normalised orders (or the plugin's defaults for the silent) and a
dice stream keyed by the step's committed seed and the digest of those orders.
So a rolled-back step processed again with the same orders gives the same result.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from mailbot.core import deadlines
from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Event, Line, Outcome
from mailbot.mail.compose import Attachment
from mailbot.render.templates import Renderer
from mailbot.services import chainlog
from mailbot.services.games import Games, tag
from mailbot.services.letters import Letter, Postman
from mailbot.store.game_tables import (
    Game,
    GameStatus,
    OrderSet,
    Report,
    RollRow,
    Seat,
    SeatStatus,
    StepRow,
    StepState,
    row_id,
)

log = logging.getLogger(__name__)


@dataclass
class Resolution:
    outcome: Outcome[Any]
    orders: dict[str, list[str]]
    defaulted: list[str]
    digest: str
    rolls: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Interlock:
    """When not to process a deadline but pause the game and ask the GM."""

    started_at: datetime  # when this bot process started
    max_missed_share: float = 0.5
    imap_trouble: Callable[[datetime], bool] = lambda _now: False


class Turns:
    def __init__(
        self, *, games: Games, postman: Postman, renderer: Renderer, clock: Callable[[], datetime]
    ) -> None:
        self.games = games
        self.postman = postman
        self.renderer = renderer
        self.clock = clock
        games.on_start = self.opening

    # -- resolving ---------------------------------------------------------------

    def compute(self, session: Session, game: Game, step: StepRow) -> Resolution:
        """Resolve ``step`` without writing anything (used for processing and PREVIEW)."""
        plugin = self.games.plugin(game)
        state = plugin.load(step.snapshot)
        current = Games.current_orders(session, self._id(step))
        orders: dict[str, list[str]] = {}
        defaulted: list[str] = []
        for seat in step.owing:
            if seat in current:
                orders[seat] = list(current[seat].lines)
            else:
                orders[seat] = list(plugin.default_orders(state, seat))
                defaulted.append(seat)
        digest = order_digest(orders)
        dice = DiceStream(bytes.fromhex(step.seed), digest, step.key)
        parsed = {
            seat: plugin.parse(state, seat, [Line(n, text) for n, text in enumerate(lines, 1)]).orders
            for seat, lines in orders.items()
        }
        outcome = plugin.resolve(state, parsed, dice=dice)
        return Resolution(outcome, orders, defaulted, digest, [roll.as_dict() for roll in dice.log])

    def process(self, session: Session, game: Game, step: StepRow) -> None:
        """Resolve the open step for real: store, report to every seat, open the next step."""
        now = self.clock()
        result = self.compute(session, game, step)
        plugin = self.games.plugin(game)
        self._store(session, game, step, result, now)
        game.state = plugin.dump(result.outcome.state)
        session.add(game)
        self._late(session, game, step, result)
        nxt = None if result.outcome.finished else self.games.open_next(session, game)
        if nxt is None:
            self._finish(session, game, result.outcome.result or "the game has no further step", now)
        defaults = {seat: result.orders[seat] for seat in result.defaulted}
        self._reports(session, game, step, result.outcome.events, nxt=nxt, defaults=defaults)

    def _store(self, session: Session, game: Game, step: StepRow, result: Resolution, now: datetime) -> None:
        for seat in result.defaulted:
            session.add(
                OrderSet(
                    step_id=row_id(step),
                    seat=seat,
                    lines=result.orders[seat],
                    defaulted=True,
                    received_at=now,
                )
            )
        for position, roll in enumerate(result.rolls):
            session.add(RollRow(step_id=row_id(step), position=position, data=roll))
        step.state, step.closed_at, step.orders_digest = StepState.RESOLVED, now, result.digest
        step.revealed = not game.reveal_at_end  # open games show each seed with its results
        session.add(step)
        payload = {
            "step": step.key,
            "attempt": step.attempt,
            "orders_digest": result.digest,
            "rolls": len(result.rolls),
            "defaulted": result.defaulted,
        }
        chainlog.append(session, self._id(step, "game"), "step-resolved", payload, now)

    def _late(self, session: Session, game: Game, step: StepRow, result: Resolution) -> None:
        """Count misses in a row; tell the GM who was late and who keeps missing."""
        flagged = []
        for seat in Games.seats(session, self._id(step, "game")):
            if seat.name not in step.owing:
                continue
            if seat.away(step.deadline_at):
                continue  # an announced vacation is not a miss
            seat.missed_in_row = seat.missed_in_row + 1 if seat.name in result.defaulted else 0
            session.add(seat)
            if seat.missed_in_row >= game.late_limit:
                flagged.append(f"{seat.name} ({seat.address}) has missed {seat.missed_in_row} steps in a row")
        away = {s.name for s in Games.seats(session, self._id(step, "game")) if s.away(step.deadline_at)}
        late = [seat for seat in result.defaulted if seat not in away]
        if late:
            lines = [f"Late at {step.title}: {', '.join(late)}; default orders applied.", *flagged]
            self._gm(session, game, f"late list for {step.title}", lines)

    def _finish(self, session: Session, game: Game, result: str, now: datetime) -> None:
        game.status, game.result, game.finished_at = GameStatus.FINISHED, result, now
        session.add(game)
        steps = session.exec(select(StepRow).where(StepRow.game_id == game.id)).all()
        for step in steps:
            step.revealed = True  # the game is over: every seed may be checked now
            session.add(step)
        chainlog.append(session, self._id(game), "game-finished", {"result": result}, now)

    # -- reports -------------------------------------------------------------------

    def opening(self, session: Session, game: Game, first: StepRow | None) -> None:
        """Every seat's first report: the starting position and the first step with its deadline."""
        plugin = self.games.plugin(game)
        state = plugin.load(game.state)
        now = self.clock()
        for seat in Games.seats(session, self._id(game)):
            body = self.renderer.render(f"{game.plugin}/report", {"r": plugin.view(state, (), seat.name)})
            letter = Letter(
                seat.address, f"[{tag(game)} {seat.secret}] {game.title}: the game begins", body=body
            )
            self._next_step_section(letter, game, seat, first)
            head = chainlog.head(session, self._id(game))
            letter.footer.append(f"Game log chain head: {head}")
            self._keep(session, game, seat.name, first, letter=letter, head=head, now=now)
            self.postman.post(session, letter, kind="report", now=now)

    def _reports(
        self,
        session: Session,
        game: Game,
        step: StepRow,
        events: Sequence[Event],
        *,
        nxt: StepRow | None,
        defaults: Mapping[str, Sequence[str]],
    ) -> None:
        plugin = self.games.plugin(game)
        state = plugin.load(game.state)
        now = self.clock()
        for seat in Games.seats(session, self._id(game)):
            if seat.status is not SeatStatus.ACTIVE:
                continue
            body = self.renderer.render(f"{game.plugin}/report", {"r": plugin.view(state, events, seat.name)})
            letter = Letter(
                seat.address, f"[{tag(game)} {seat.secret}] {game.title}: {step.title} resolved", body=body
            )
            self._defaults_section(letter, seat.name, defaults)
            self._opening_section(session, letter, step)
            if step.revealed:
                letter.section("Dice of this step", [f"Seed (check it against the commitment): {step.seed}"])
            self._next_step_section(letter, game, seat, nxt)
            head = chainlog.head(session, self._id(game))
            letter.footer.append(f"Game log chain head: {head}")
            self._keep(session, game, seat.name, step, letter=letter, head=head, now=now)
            self.postman.post(session, letter, kind="report", now=now)

    @staticmethod
    def _defaults_section(letter: Letter, seat: str, defaults: Mapping[str, Sequence[str]]) -> None:
        """Who sent nothing (public); what was played for you (yours alone)."""
        if seat in defaults:
            letter.section(
                "You sent no orders: these defaults were applied", [f"  {o}" for o in defaults[seat]]
            )
        others = sorted(name for name in defaults if name != seat)
        if others:
            letter.section(
                "Default orders", [f"No orders came from {', '.join(others)}; defaults were applied."]
            )

    @staticmethod
    def _opening_section(session: Session, letter: Letter, step: StepRow) -> None:
        """Seal opening: every value with its salt, so every seat can check every receipt."""
        held = Games.current_orders(session, row_id(step))
        lines = [
            f"{seat} {label}: value {item['value']}, salt {item['salt']}, receipt {item['receipt']}"
            for seat, row in sorted(held.items())
            for label, item in sorted(row.sealed.items())
        ]
        if lines:
            lines.append("Check: SHA-256(value as UTF-8 bytes followed by the salt bytes) = receipt.")
            letter.section("Sealed values opened", lines)

    def _next_step_section(self, letter: Letter, game: Game, seat: Seat, nxt: StepRow | None) -> None:
        if nxt is None:
            letter.section("The game is over", [game.result or "Thank you for playing."])
            return
        zone = seat.timezone or game.timezone
        owes = seat.name in nxt.owing
        letter.section(
            f"Now open: {nxt.title}",
            [
                f"Deadline: {deadlines.local_time(nxt.deadline_at, zone)}",
                "You owe orders for this step." if owes else "Nothing is owed by you in this step.",
                f"Dice commitment for this step (SHA-256 of its secret seed): {nxt.commitment}",
                *self._how_to_send(nxt),
            ],
        )
        letter.attachments.append(
            Attachment("deadline.ics", self.games.ics_for(game, nxt), "text", "calendar")
        )

    @staticmethod
    def _how_to_send(step: StepRow) -> list[str]:
        if step.kind == "sealed":
            labels = ", ".join(step.seal_labels)
            return [
                f"Send: SEAL <label> <value> for {step.key} (labels: {labels}); others see only a receipt."
            ]
        return [f"Send: ORDERS {step.key} followed by your orders, one per line, then END."]

    def _keep(
        self,
        session: Session,
        game: Game,
        seat: str,
        step: StepRow | None,
        *,
        letter: Letter,
        head: str,
        now: datetime,
    ) -> None:
        rendered = self.postman.render(letter)
        session.add(
            Report(
                game_id=row_id(game),
                seat=seat,
                turn=step.turn if step else 0,
                step_key=step.key if step else "start",
                subject=letter.subject,
                text=rendered.text,
                html=rendered.html,
                chain_head=head,
                created_at=now,
            )
        )
        # The text's hash in the chain makes any later edit of a stored report detectable.
        digest = hashlib.sha256(rendered.text.encode("utf-8")).hexdigest()
        payload = {"seat": seat, "step": step.key if step else "start", "sha256": digest}
        chainlog.append(session, self._id(game), "report", payload, now)

    def _gm(self, session: Session, game: Game, title: str, lines: Sequence[str]) -> None:
        letter = Letter(game.gm_address, f"[{tag(game)} GM] {title}").section(title, lines)
        self.postman.post(session, letter, kind="gm-notice", now=self.clock())

    # -- deadlines -------------------------------------------------------------------

    def due(self, game: Game, step: StepRow, session: Session, now: datetime) -> str | None:
        """Why the open step should be processed now, or None."""
        if now >= step.deadline_at + timedelta(seconds=game.grace_seconds):
            return "deadline"
        if step.early_at is not None and now >= step.early_at and self.all_in(session, step):
            return "early"
        return None

    def all_in(self, session: Session, step: StepRow) -> bool:
        current = Games.current_orders(session, self._id(step))
        seats = {s.name: s for s in Games.seats(session, step.game_id)}
        return all(name in current and not seats[name].wait for name in step.owing)

    def tick(self, session: Session, game: Game, interlock: Interlock) -> str:
        """Act on one running game at the injected now; returns what was done."""
        now = self.clock()
        step = Games.open_step(session, self._id(game))
        if game.status is not GameStatus.RUNNING or step is None:
            return "idle"
        why = self.due(game, step, session, now)
        if why == "deadline":
            blocked = self._blocked(session, game, step, interlock, now)
            if blocked:
                self.pause(session, game, blocked)
                return "paused"
        if why:
            self.process(session, game, step)
            return f"processed ({why})"
        return "reminded" if self._remind(session, game, step, now) else "idle"

    def _blocked(
        self, session: Session, game: Game, step: StepRow, interlock: Interlock, now: datetime
    ) -> str:
        deadline = step.deadline_at + timedelta(seconds=game.grace_seconds)
        if interlock.started_at > deadline:
            return f"the moderator was not running at the deadline ({deadline.isoformat(timespec='minutes')})"
        if interlock.imap_trouble(now):
            return "the mailbox could not be read recently; letters may be missing"
        current = Games.current_orders(session, self._id(step))
        away = {s.name for s in Games.seats(session, step.game_id) if s.away(step.deadline_at)}
        missing = [seat for seat in step.owing if seat not in current and seat not in away]
        if len(step.owing) > 1 and len(missing) / len(step.owing) > interlock.max_missed_share:
            return f"{len(missing)} of {len(step.owing)} seats sent nothing ({', '.join(missing)})"
        return ""

    def _remind(self, session: Session, game: Game, step: StepRow, now: datetime) -> bool:
        offsets = [timedelta(seconds=s) for s in game.reminders]
        due = [t for t in deadlines.reminder_times(step.deadline_at, offsets, step.opened_at) if t <= now]
        fresh = [t.isoformat() for t in due if t.isoformat() not in step.reminders_sent]
        if not fresh:
            return False
        step.reminders_sent = [*step.reminders_sent, *fresh]
        session.add(step)
        current = Games.current_orders(session, self._id(step))
        for seat in Games.seats(session, step.game_id):
            owes = seat.name in step.owing and seat.name not in current
            if owes and seat.status is SeatStatus.ACTIVE and not seat.away(step.deadline_at):
                self._reminder(session, game, step, seat, now)
        return True

    def _reminder(self, session: Session, game: Game, step: StepRow, seat: Seat, now: datetime) -> None:
        zone = seat.timezone or game.timezone
        letter = Letter(seat.address, f"[{tag(game)} {seat.secret}] Reminder: orders due for {step.title}")
        letter.section(
            "Your orders are still missing",
            [f"Deadline: {deadlines.local_time(step.deadline_at, zone)}", f"Send: ORDERS {step.key} ... END"],
        )
        letter.attachments.append(
            Attachment("deadline.ics", self.games.ics_for(game, step), "text", "calendar")
        )
        self.postman.post(session, letter, kind="reminder", now=now)

    # -- GM actions ---------------------------------------------------------------

    def pause(self, session: Session, game: Game, reason: str) -> None:
        game.status, game.pause_reason = GameStatus.PAUSED, reason
        session.add(game)
        chainlog.append(session, self._id(game), "gm-pause", {"reason": reason}, self.clock())
        self.announce(session, game, "The game is paused", [reason])
        self._gm(session, game, "game paused", [reason, "Send RESUME (or mailbot game resume) to go on."])

    def announce(self, session: Session, game: Game, title: str, lines: Sequence[str]) -> None:
        for seat in Games.seats(session, self._id(game)):
            if seat.status is SeatStatus.ACTIVE:
                letter = Letter(seat.address, f"[{tag(game)} {seat.secret}] {title}").section(title, lines)
                self.postman.post(session, letter, kind="announcement", now=self.clock())

    @staticmethod
    def _id(row: Game | StepRow, attr: str = "id") -> int:
        value = getattr(row, attr if attr == "id" else f"{attr}_id")
        if value is None:
            raise ValueError("row has no id")
        return int(value)

    @staticmethod
    def resolved_steps(session: Session, game_id: int) -> list[StepRow]:
        query = select(StepRow).where(StepRow.game_id == game_id).order_by(col(StepRow.id))
        return list(session.exec(query))

    def roll_rows(self, session: Session, step: StepRow) -> Mapping[int, dict[str, Any]]:
        rows = session.exec(select(RollRow).where(RollRow.step_id == step.id).order_by(col(RollRow.position)))
        return {row.position: row.data for row in rows}
