# SPDX-License-Identifier: GPL-3.0-or-later
"""Game-master actions, from the command line or by mail (GM address + GM secret).

Every action is written to the game's event chain with its reason and
announced to the players.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from mailbot.core import deadlines
from mailbot.core.chain import salted
from mailbot.core.commands import Command, CommandSpec
from mailbot.core.dice import order_digest
from mailbot.mail.mime import bare_address
from mailbot.services.base import dicechain, queries
from mailbot.services.base.tags import new_salt, new_token
from mailbot.services.inbox.auth import Gatekeeper
from mailbot.services.inbox.handling import Context, Handler, Reply
from mailbot.services.play import setupdice
from mailbot.services.play.games import Games
from mailbot.services.play.turns import Turns
from mailbot.services.post.letters import Postman
from mailbot.store.game_tables import Game, GameStatus, Seat, SeatStatus, StepRow, StepState, row_id

GM_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("PAUSE", "PAUSE [reason]", "GM: stop deadlines until RESUME"),
    CommandSpec("RESUME", "RESUME [reason]", "GM: go on after a pause"),
    CommandSpec(
        "EXTEND", "EXTEND [step] <duration> [reason]", "GM: move the open step's deadline later by a duration"
    ),
    CommandSpec("FORCE", "FORCE [reason]", "GM: process the open step now"),
    CommandSpec(
        "PREVIEW", "PREVIEW", "GM: resolve a copy of the open step with throwaway dice; to the GM only"
    ),
    CommandSpec("ROLLBACK", "ROLLBACK <step> [reason]", "GM: restore the state before a step and reopen it"),
    CommandSpec("REPLACE", "REPLACE <seat> <address> [reason]", "GM: hand a seat to a new player"),
    CommandSpec("EJECT", "EJECT <seat> [reason]", "GM: remove a player; the seat plays defaults"),
    CommandSpec("ABANDON", "ABANDON [reason]", "GM: end the game now, with no winner (its log closes)"),
)


class GmError(Exception):
    """A GM request that cannot be done; its text is the answer to the GM."""


class GmActions:
    def __init__(
        self, *, games: Games, turns: Turns, postman: Postman, clock: Callable[[], datetime]
    ) -> None:
        self.games = games
        self.turns = turns
        self.postman = postman
        self.clock = clock

    def _log(
        self,
        session: Session,
        game: Game,
        action: str,
        reason: str,
        announce: Sequence[str],
        *,
        moved: StepRow | None = None,
        heading: str = "",
        kept: bool = False,
    ) -> None:
        """Chain the action and tell the players; ``moved``: the open step whose deadline it set,
        ``heading``: the news for the subject of that letter when it is more than the deadline;
        ``kept``: ``moved`` keeps its deadline, which every seat is told in its zone (RESUME)."""
        payload: dict[str, Any] = {"reason": reason or "(no reason given)"}
        if moved is not None and not kept:
            # Naming the step lets Reports count the moves of its deadline (the calendar SEQUENCE).
            deadline = moved.deadline_at.isoformat()
            payload |= {"step": moved.key, "attempt": moved.attempt, "deadline": deadline}
        queries.note(session, game, f"gm-{action}", payload, self.clock())
        title, lines = f"Game master: {action}", [*announce, f"Reason: {reason or '(none given)'}"]
        if moved is None:
            self.turns.reports.announce(session, game, title, lines)
        elif moved.kind == "setup":
            subject = title if kept else ""
            setupdice.deadline_moved(
                self.postman, session, game, moved, (title, lines), now=self.clock(), subject=subject
            )
            if kept:  # as the announcement it was before, to the observers too
                self.turns.reports.observers.notice(session, game, title, lines)
        elif action == "resume":
            self.turns.reports.resumed(session, game, moved, title, lines, moved=not kept)
        else:
            self.turns.reports.deadline_moved(session, game, moved, title, lines, heading=heading)

    def _open(self, session: Session, game: Game) -> StepRow:
        """The open step; the set-up only while it waits for its round-1 reveals, when it has a
        deadline (before every seat has joined it has none to move, pause or force)."""
        step = queries.open_step(session, row_id(game))
        if step is None:
            raise GmError("no step is open")
        if step.kind == "setup" and setupdice.facts(session, step) is None:
            raise GmError("the set-up waits for every seat to join: it has no deadline yet")
        return step

    def pause(self, session: Session, game: Game, reason: str) -> str:
        if game.status is GameStatus.SETUP:
            self._open(session, game)  # a set-up waiting for reveals pauses like a step
        elif game.status is GameStatus.PAUSED:
            raise GmError("the game is paused already: nothing changed")
        elif game.status is not GameStatus.RUNNING:
            raise GmError(f"the game is {game.status.value}")
        game.status, game.pause_reason = GameStatus.PAUSED, reason or "paused by the GM"
        session.add(game)
        lines = ["The game is paused: deadlines are suspended, and no orders are taken until it resumes."]
        self._log(session, game, "pause", reason, lines)
        return "paused"

    def resume(self, session: Session, game: Game, reason: str) -> str:
        if game.status is not GameStatus.PAUSED:
            raise GmError(f"the game is {game.status.value}")
        step = queries.open_step(session, row_id(game))
        # A set-up paused while it waited for its reveals goes on waiting for them.
        setup = step is not None and step.kind == "setup"
        game.status, game.pause_reason = (GameStatus.SETUP if setup else GameStatus.RUNNING), ""
        session.add(game)
        if step is None:
            self._log(session, game, "resume", reason, ["The game goes on."])
            return "resumed"
        moved = step.deadline_at < self.clock()
        if moved:  # a deadline that passed during the pause would fire at once: give a fresh one
            step.deadline_at = self.games.fresh_deadline(game, step)
            session.add(step)
        when = deadlines.local_time(step.deadline_at, game.timezone)
        # Each seat reads the open step and its deadline in its own zone (the outside trial,
        # item 5: the letter said only "The game goes on.").
        lines = ["The game goes on."]
        if moved:
            lines.append(f"The deadline of {step.title} passed during the pause: it has a new one.")
        self._log(session, game, "resume", reason, lines, moved=step, kept=not moved)
        return f"resumed; deadline now {when}" if moved else f"resumed; {step.key} is open until {when}"

    def extend(self, session: Session, game: Game, key: str, duration: str, reason: str) -> str:
        """Move the open step's deadline by ``duration``; ``key`` names it, or is "" for it."""
        step = self._open(session, game)
        if key and key.upper() != step.key.upper():
            raise GmError(f"the open step is {step.key}")
        delta = deadlines.read_duration(duration)
        if isinstance(delta, deadlines.SpecProblem):
            raise GmError(f"{duration!r}: {delta.reason}")
        step.deadline_at = step.deadline_at + delta
        session.add(step)
        when = deadlines.local_time(step.deadline_at, game.timezone)
        self._log(
            session, game, "extend", reason, [f"The deadline of {step.title} is now {when}."], moved=step
        )
        return f"deadline now {when}"

    def force(self, session: Session, game: Game, reason: str) -> str:
        step = self._open(session, game)
        if step.kind != "setup":
            self._log(session, game, "force", reason, [f"{step.title} is processed now."])
            self.turns.process(session, game, step)
            return f"{step.key} processed"
        lines = ["The set-up is rolled now; a round-1 reveal not in counts as withheld."]
        self._log(session, game, "force", reason, lines)
        paused = game.status is GameStatus.PAUSED
        self.games.start(session, game)
        if paused:  # as a forced step of a paused game: it stays paused until RESUME
            game.status = GameStatus.PAUSED
        return "set-up rolled"

    def abandon(self, session: Session, game: Game, reason: str) -> str:
        """End the game now with no winner (GM trial: a game that never filled its seats could not
        be closed): the open step is void, the seeds revealed, the log closed and its final head
        sent to every seated player, as at any end."""
        self._not_over(game)
        result = "The game master ended the game" + (f": {reason}" if reason else ".")
        self._log(session, game, "abandon", reason, [result, "The seeds of every step are revealed."])
        self.turns.finish(session, game, result, self.clock())
        self.turns.reports.closing(session, game)
        return "ended"

    def preview(self, session: Session, game: Game) -> list[str]:
        """Resolve a copy of the open step with a throwaway seed: never the real dice.

        The step's own seed would show the GM the real rolls before the step is processed;
        a sealed step is not resolved at all, because its values are still sealed.
        """
        step = self._open(session, game)
        if step.kind == "setup":
            return ["Preview of the set-up: not rolled; its dice wait for the round-1 reveals."]
        if step.kind == "sealed":
            held = queries.current_orders(session, row_id(step))
            return [
                f"Preview of {step.title}: not resolved, its values are sealed until the opening.",
                f"  Sealed so far: {', '.join(sorted(held)) or 'nobody'}; owing: {', '.join(step.owing)}.",
            ]
        result = self.turns.compute(session, game, step, seed=secrets.token_bytes(32))
        lines = [
            f"Preview of {step.title} (nothing was changed, nobody else was told).",
            "The dice are a throwaway seed's, not the step's own: the real rolls will differ.",
        ]
        lines += [
            f"  {seat}: {'; '.join(orders)}" + (" (default)" if seat in result.defaulted else "")
            for seat, orders in result.orders.items()
        ]
        lines += [f"  event [{', '.join(sorted(e.audience))}]: {e.text}" for e in result.outcome.events]
        return lines

    def rollback(self, session: Session, game: Game, key: str, reason: str) -> str:
        if game.status is GameStatus.FINISHED:
            # Its players hold the closing letter with the log's final head: a reopened log would
            # make every honest player's check of his letters fail.
            raise GmError("the game is over: its log is closed and its players were sent its final head")
        target = self._last_resolved(session, game, key)
        for step in self._steps_from(session, game, target):
            step.state = StepState.ROLLED_BACK
            session.add(step)
        paused = game.status is GameStatus.PAUSED  # stays paused until RESUME
        game.state, game.status, game.result, game.finished_at = (
            dict(target.snapshot),
            GameStatus.PAUSED if paused else GameStatus.RUNNING,
            "",
            None,
        )
        session.add(game)
        # open_next draws a fresh seed: the old one may be in the players' hands (open games
        # mail it with the results), and with it they could word their orders to suit the dice.
        reopened = self.games.open_next(session, game)
        if reopened is None:
            raise GmError("the plugin opened no step after the rollback")
        if reopened.kind == "sealed":  # open_next carried the opened values: they stand
            first = "its sealed values stand as they were opened; no SEAL is taken again."
        else:
            self._copy_orders(session, game, target, reopened)
            first = "orders sent for it stand; you may replace them" + (
                " once it resumes." if paused else "."
            )
        when = deadlines.local_time(reopened.deadline_at, game.timezone)
        lines = [
            f"The report of {target.title} is void, and so is every report since: that step is played again.",
            f"{target.title} is open again; {first}",
            "The game stays paused: deadlines wait until the game master resumes it."
            if paused
            else f"Its deadline is {when}.",
            f"New dice commitment (a fresh seed): {reopened.commitment}",
            "A letter with a NONCE line adds your own randomness to the new dice.",
            *dicechain.round_lines(session, reopened),
        ]
        heading = f"{target.title} rolled back: its report is void"
        self._log(session, game, "rollback", reason, lines, moved=reopened, heading=heading)
        return f"{target.key} reopened"

    def _last_resolved(self, session: Session, game: Game, key: str) -> StepRow:
        query = (
            select(StepRow)
            .where(StepRow.game_id == game.id, StepRow.key == key, StepRow.state == StepState.RESOLVED)
            .order_by(col(StepRow.id).desc())
        )
        found = session.exec(query).first()
        if found is None:
            raise GmError(f"no resolved step {key!r}")
        return found

    @staticmethod
    def _steps_from(session: Session, game: Game, target: StepRow) -> list[StepRow]:
        query = select(StepRow).where(StepRow.game_id == game.id, col(StepRow.id) >= target.id)
        return [s for s in session.exec(query) if s.state is not StepState.ROLLED_BACK]

    def _copy_orders(self, session: Session, game: Game, source: StepRow, target: StepRow) -> None:
        """The orders of the rolled-back attempt stand in the new one, each logged with a new salt."""
        for row in queries.current_orders(session, row_id(source)).values():
            if not row.defaulted:
                salt = new_salt()
                session.add(row.copied_to(row_id(target), salt=salt))
                digest = order_digest({row.seat: list(row.lines)})
                payload = {
                    "step": target.key,
                    "attempt": target.attempt,
                    "seat": row.seat,
                    "commitment": salted(digest, bytes.fromhex(salt)),
                }
                queries.note(session, game, "orders-carried", payload, self.clock())

    def replace(self, session: Session, game: Game, seat_name: str, address: str, reason: str) -> str:
        self._not_over(game)
        seat = self._seat(session, game, seat_name)
        address = checked_address(address)
        other = next((s for s in queries.seats(session, row_id(game)) if s.address == address), None)
        if other is not None and other.name != seat.name and other.status is SeatStatus.ACTIVE:
            raise GmError(f"{address} plays {other.name} in this game: one player, one seat")
        # The seat given again to its own player: a new secret (his old one went astray), no farewell.
        same = seat.address == address and seat.status is SeatStatus.ACTIVE
        unplayed = seat.status is SeatStatus.EJECTED  # its reports stopped when its player went
        if seat.address and not same and seat.status is SeatStatus.ACTIVE:
            self.games.seat_released(session, game, seat, seat.address, reason)
        if seat.status in (SeatStatus.EJECTED, SeatStatus.RESIGNED) and game.status is not GameStatus.SETUP:
            # The step open now went on without the seat: it owes again from the next step on.
            seat.duty_from = self.clock()
        seat.secret, seat.status = _new_secret(), SeatStatus.INVITED
        news = (
            f"The player of {seat.name} was given a new secret."
            if same
            else f"Seat {seat.name} has a new player."
        )
        self._log(session, game, "replace", reason, [news])
        # The old player's dice chain is not the new player's: his own CHAIN is taken.
        dicechain.end_chain(session, row_id(game), seat.name, self.clock())
        self.games.take_seat(session, game, seat, address)
        self.games.resend_reports(session, game, seat)  # never more than that seat saw
        if unplayed and game.status is not GameStatus.SETUP:
            self.turns.reports.caught_up(session, game, seat)
        return f"{seat.name} now played by {address}"

    def eject(self, session: Session, game: Game, seat_name: str, reason: str) -> str:
        self._not_over(game)
        seat = self._seat(session, game, seat_name)
        if seat.status is not SeatStatus.ACTIVE:
            raise GmError(f"{seat.name} has no player to eject (the seat is {seat.status.value})")
        # His secret is void at once: letters with it are no longer read for the seat.
        seat.status, seat.secret = SeatStatus.EJECTED, _new_secret()
        session.add(seat)
        self.games.seat_released(session, game, seat, seat.address or "", reason, ejected=True)
        self._log(
            session,
            game,
            "eject",
            reason,
            [f"The player of {seat.name} was removed; the seat plays defaults."],
        )
        self.games.mark_early(session, game)  # the step open now no longer waits for the seat
        return f"{seat.name} ejected"

    @staticmethod
    def _not_over(game: Game) -> None:
        if game.status is GameStatus.FINISHED:
            raise GmError("the game is over")

    @staticmethod
    def _seat(session: Session, game: Game, name: str) -> Seat:
        seat = queries.seat(session, row_id(game), name)
        if seat is None:
            names = ", ".join(s.name for s in queries.seats(session, row_id(game)))
            raise GmError(f"no seat {name!r} (seats: {names})")
        return seat


def _new_secret() -> str:
    return new_token()


def is_duration(word: str) -> bool:
    """Whether EXTEND's first word is its duration (``24h``), the step left out: no step key
    reads as one. A duration it refuses (``0h``, ``400d``) counts too: extending by it says why."""
    return deadlines.duration_shaped(word)


def no_duration(word: str, usage: str) -> str:
    """What EXTEND says of a lone word that is neither a duration nor followed by one."""
    return f"{word!r} is no duration (24h, 2d, 1d12h); {usage}"


def checked_address(given: str) -> str:
    """A player's address as the GM wrote it, lower-cased, or a GmError saying it is none."""
    found = bare_address(given)
    if found is None:
        raise GmError(f"{given!r} is not an e-mail address")
    return found


class GmMail:
    """The GM commands by mail: the same actions, answered to the GM."""

    def __init__(self, *, actions: GmActions, gate: Gatekeeper) -> None:
        self.actions = actions
        self.gate = gate

    def handlers(self) -> dict[str, Handler]:
        return {spec.name: self.handle for spec in GM_COMMANDS}

    def handle(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.gate.identify(ctx, reply)
        if who is None or not who.gm:
            if who is not None:
                reply.problem(command.line, command.text, "only the game master may do that")
            return
        try:
            answer = self._dispatch(command, ctx.session, who.game)
        except GmError as exc:
            reply.problem(command.line, command.text, str(exc))
            return
        reply.section(f"GM: {command.name}", answer if isinstance(answer, list) else [answer])

    def _dispatch(self, command: Command, session: Session, game: Game) -> str | list[str]:
        a, args = self.actions, list(command.args)

        def rest(n: int) -> str:
            return " ".join(args[n:])

        def need(n: int) -> None:
            if len(args) < n:
                raise GmError(f"usage: {next(s.usage for s in GM_COMMANDS if s.name == command.name)}")

        match command.name:
            case "PAUSE":
                return a.pause(session, game, rest(0))
            case "RESUME":
                return a.resume(session, game, rest(0))
            case "EXTEND":
                if args and is_duration(args[0]):  # EXTEND 24h [reason]: the open step's
                    return a.extend(session, game, "", args[0], rest(1))
                if len(args) == 1:
                    raise GmError(no_duration(args[0], "usage: EXTEND [step] <duration> [reason]"))
                need(2)
                return a.extend(session, game, args[0], args[1], rest(2))
            case "FORCE":
                return a.force(session, game, rest(0))
            case "PREVIEW":
                return a.preview(session, game)
            case "ROLLBACK":
                need(1)
                return a.rollback(session, game, args[0], rest(1))
            case "ABANDON":
                return a.abandon(session, game, rest(0))
            case "REPLACE":
                need(2)
                return a.replace(session, game, args[0], args[1], rest(2))
            case _:
                need(1)
                return a.eject(session, game, args[0], rest(1))
