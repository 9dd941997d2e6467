# SPDX-License-Identifier: GPL-3.0-or-later
"""Game commands by mail: who is writing, and what players may ask for.

A letter counts for a seat only when it comes from the seat's registered
address AND carries the seat's secret (subject tag ``[DU-3 k7Q2]`` or a line
``SECRET k7Q2``). A letter that fails is refused to the *registered* address,
without any game content; a stranger gets the plain help and learns nothing.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import Session, select

from mailbot.core import deadlines
from mailbot.core.commands import Command, CommandSpec
from mailbot.core.game import Line
from mailbot.core.sealed import seal as seal_receipt
from mailbot.services.games import Games, tag
from mailbot.services.inbound import Context, Handler, Reply
from mailbot.services.letters import Letter, Postman
from mailbot.store.game_tables import Game, GameStatus, OrderSet, Seat, SeatStatus, StepRow, row_id

TAG = re.compile(r"\[([A-Za-z]{2})-(\d+)\s+([A-Za-z0-9]+)(?:\s+[^\]]*)?\]")

PLAYER_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("JOIN", "JOIN <game> <seat> <invite code>", "take a seat you were invited to"),
    CommandSpec("SECRET", "SECRET <your secret>", "prove who you are (or keep the [tag] in the subject)"),
    CommandSpec("GAME", "GAME <number>", "which game a letter is for, with SECRET"),
    CommandSpec("ORDERS", "ORDERS [step] ... END", "your orders, one per line; replaces earlier ones", True),
    CommandSpec("SHOW", "SHOW ORDERS", "the orders the moderator holds from you for the open step"),
    CommandSpec("STATUS", "STATUS", "the open step, who has not sent orders, the deadline"),
    CommandSpec("WAIT", "WAIT", "do not process early on my account"),
    CommandSpec("NOWAIT", "NOWAIT", "early processing is fine again"),
    CommandSpec("HISTORY", "HISTORY [turn]", "send me my past reports again"),
    CommandSpec(
        "PRESS", "PRESS <seat|ALL> ... END", "a message to other players through the moderator", True
    ),
    CommandSpec("TIMEZONE", "TIMEZONE <zone>", "show deadlines in your zone, e.g. Europe/Berlin"),
    CommandSpec(
        "VACATION", "VACATION <from> <to>", "away between two dates (YYYY-MM-DD): defaults, not late"
    ),
    CommandSpec("RESIGN", "RESIGN", "leave the game (the seat plays its default orders)"),
    CommandSpec("SEAL", "SEAL <label> <value>", "a sealed value: kept secret until every seat has sealed"),
)


@dataclass(frozen=True)
class Who:
    game: Game
    seat: Seat | None  # None for the game master
    gm: bool = False


@dataclass(frozen=True)
class Seated:
    """An authenticated player: the game and the seat the letter counts for."""

    game: Game
    seat: Seat


def step_labels(step: StepRow) -> list[str]:
    return [str(label).lower() for label in step.seal_labels]


class MailGame:
    """Handlers for the player commands; the GM commands live in ``mailbot.services.gm``."""

    def __init__(
        self, *, games: Games, postman: Postman, clock: Callable[[], datetime], authserv_id: str = ""
    ) -> None:
        self.games = games
        self.postman = postman
        self.clock = clock
        self.authserv_id = authserv_id  # the receiving server whose DKIM verdicts we trust

    def handlers(self) -> dict[str, Handler]:
        return {
            "JOIN": self.join,
            "SECRET": lambda *_: None,  # read by identify()
            "GAME": lambda *_: None,
            "ORDERS": self.orders,
            "SHOW": self.show,
            "STATUS": self.status,
            "WAIT": self.wait,
            "NOWAIT": self.wait,
            "HISTORY": self.history,
            "PRESS": self.press,
            "TIMEZONE": self.timezone,
            "RESIGN": self.resign,
            "VACATION": self.vacation,
            "SEAL": self.seal,
        }

    # -- who is writing ---------------------------------------------------------

    def identify(self, ctx: Context, reply: Reply) -> Who | None:
        """The authenticated writer, or None (refusals are written as a side effect, once)."""
        if "who" not in ctx.extra:
            ctx.extra["who"] = self._identify(ctx, reply)
        who: Who | None = ctx.extra["who"]
        return who

    def _identify(self, ctx: Context, reply: Reply) -> Who | None:
        game_id, secret = self._credentials(ctx)
        sender = ctx.letter.sender.lower()
        game = ctx.session.get(Game, game_id) if game_id is not None else self._only_game(ctx.session, sender)
        if game is None:
            return self._stranger(reply)
        if secret and secret == game.gm_secret:
            if sender == game.gm_address.lower():
                return Who(game, None, gm=True)
            return self._refuse(
                ctx, reply, game, game.gm_address, "it came from another address than the GM's"
            )
        seat = next(
            (s for s in Games.seats(ctx.session, self._gid(game)) if secret and s.secret == secret), None
        )
        if seat is None:
            own = next((s for s in Games.seats(ctx.session, self._gid(game)) if s.address == sender), None)
            if own is None:
                return self._stranger(reply)
            why = "it carried no secret" if not secret else "the secret was wrong"
            return self._refuse(ctx, reply, game, own.address, why)
        if seat.address != sender:
            return self._refuse(ctx, reply, game, seat.address, "it came from another address than yours")
        if game.require_dkim and not dkim_passed(
            ctx.letter.headers.get("Authentication-Results", ""), sender, self.authserv_id
        ):
            return self._refuse(ctx, reply, game, seat.address, "its DKIM signature did not verify")
        self.games.note(ctx.session, game, "letter", {"seat": seat.name, "message": self._fingerprint(ctx)})
        return Who(game, seat)

    @staticmethod
    def _fingerprint(ctx: Context) -> str:
        """The accepted letter, as its content hash: provable later, readable by nobody."""
        return ctx.row.content_hash

    @staticmethod
    def _credentials(ctx: Context) -> tuple[int | None, str]:
        found = TAG.search(ctx.letter.subject)
        if found:
            return int(found.group(2)), found.group(3)
        commands = {c.name: c.args for c in ctx.reading.commands}
        secret = commands.get("SECRET", ("",))[0] if commands.get("SECRET") else ""
        game = commands.get("GAME", ())
        game_id = int(game[0]) if game and game[0].isdigit() else None
        return game_id, secret

    @staticmethod
    def _only_game(session: Session, sender: str) -> Game | None:
        seats = session.exec(select(Seat).where(Seat.address == sender)).all()
        games = {s.game_id for s in seats}
        return session.get(Game, games.pop()) if len(games) == 1 else None

    def _stranger(self, reply: Reply) -> Who | None:
        reply.section(
            "You are not playing in a game here",
            [
                "This address is not registered for any game, or the letter did not say which.",
                "If you were invited, send: JOIN <game> <seat> <invite code>.",
                "Players: keep the [tag] of your welcome letter in the subject, or add a SECRET line.",
            ],
        )
        return None

    def _refuse(self, ctx: Context, reply: Reply, game: Game, registered: str, why: str) -> Who | None:
        """Tell the registered address, never the sender if it is someone else; no game content."""
        lines = [
            f"A letter signed for your seat was refused because {why}.",
            f"It came from: {ctx.letter.sender}; subject: {ctx.letter.subject[:80]}",
            "Nothing in the game was changed.",
        ]
        if registered.lower() == ctx.letter.sender.lower():
            reply.section("Your letter was refused", lines)
        else:
            letter = Letter(registered, "A letter in your name was refused").section("Letter refused", lines)
            self.postman.post(ctx.session, letter, kind="refusal", now=self.clock())
            self._stranger(reply)
        return None

    @staticmethod
    def _gid(game: Game) -> int:
        return row_id(game)

    def player(self, ctx: Context, reply: Reply) -> Seated | None:
        who = self.identify(ctx, reply)
        return Seated(who.game, who.seat) if who is not None and who.seat is not None else None

    # -- commands -----------------------------------------------------------------

    def join(self, command: Command, ctx: Context, reply: Reply) -> None:
        if len(command.args) != 3 or not command.args[0].isdigit():
            reply.problem(command.line, command.text, "write JOIN <game number> <seat> <invite code>")
            return
        game = ctx.session.get(Game, int(command.args[0]))
        seat = Games.seat(ctx.session, int(command.args[0]), command.args[1]) if game else None
        if (
            game is None
            or seat is None
            or seat.invite_code != command.args[2]
            or seat.status is not SeatStatus.INVITED
        ):
            # One answer for every failure: a stranger must not learn which games or seats exist.
            reply.problem(command.line, command.text, "no open invitation matches that game, seat and code")
            return
        self.games.take_seat(ctx.session, game, seat, ctx.letter.sender)
        reply.section(
            "Welcome", [f"You now play {seat.name} in {game.title}; your secret follows separately."]
        )

    def orders(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.player(ctx, reply)
        if who is None:
            return
        step = self._open_step_for(who, command, ctx, reply)
        if step is None:
            return
        plugin = self.games.plugin(who.game)
        lines = [Line(line.number, line.text) for line in command.block]
        parsed = plugin.parse(plugin.load(step.snapshot), who.seat.name, lines)
        if parsed.accepted or not parsed.problems:
            self._store_orders(ctx, who, step, list(parsed.normalised), reply)
        else:  # nothing usable: keep what the seat sent before rather than an empty set
            reply.section(
                f"No orders accepted for {step.title}", ["Your earlier orders (if any) still stand."]
            )
        for problem in parsed.problems:
            reply.problem(problem.line, problem.text, f"{problem.kind.value}: {problem.reason}")

    def _open_step_for(self, who: Seated, command: Command, ctx: Context, reply: Reply) -> StepRow | None:
        step = Games.open_step(ctx.session, self._gid(who.game))
        if who.game.status is not GameStatus.RUNNING or step is None:
            reply.problem(
                command.line, command.text, f"the game is {who.game.status.value}: no step takes orders"
            )
            return None
        wanted = command.args[0] if command.args else ""
        if wanted and wanted.upper() not in {step.key.upper(), f"T{step.turn}", str(step.turn)}:
            reply.problem(command.line, command.text, f"that step is closed; the open step is {step.key}")
            return None
        if who.seat.name not in step.owing:
            reply.problem(command.line, command.text, f"your seat owes nothing in the open step {step.key}")
            return None
        return step

    def _store_orders(self, ctx: Context, who: Seated, step: StepRow, lines: list[str], reply: Reply) -> None:
        previous = Games.current_orders(ctx.session, row_id(step)).get(who.seat.name)
        if previous is not None:
            previous.current = False
            ctx.session.add(previous)
        row = OrderSet(
            step_id=row_id(step),
            seat=who.seat.name,
            lines=lines,
            inbound_id=ctx.row.id,
            received_at=ctx.row.received_at,
        )
        ctx.session.add(row)
        self.games.note_orders(
            ctx.session, who.game, step, who.seat.name, lines, replaced=previous is not None
        )
        reply.section(f"Orders accepted for {step.title}", [f"  {line}" for line in lines] or ["  (none)"])
        if previous is not None:
            reply.section("These replace your earlier orders", diff(previous.lines, lines))

    def show(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.player(ctx, reply)
        if who is None:
            return
        step = Games.open_step(ctx.session, self._gid(who.game))
        held = Games.current_orders(ctx.session, row_id(step)).get(who.seat.name) if step else None
        title = step.title if step else "no open step"
        reply.section(
            f"Your orders for {title}", [f"  {line}" for line in held.lines] if held else ["  (none yet)"]
        )

    def status(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.player(ctx, reply)
        if who is None:
            return
        reply.section(
            f"{who.game.title} ({tag(who.game)})", self.status_lines(ctx.session, who.game, who.seat)
        )

    def status_lines(self, session: Session, game: Game, seat: Seat | None) -> list[str]:
        step = Games.open_step(session, self._gid(game))
        lines = [
            f"Game status: {game.status.value}" + (f" ({game.pause_reason})" if game.pause_reason else "")
        ]
        if step is None:
            return [*lines, game.result] if game.result else lines
        held = Games.current_orders(session, row_id(step))
        zone = (seat.timezone if seat else "") or game.timezone
        missing = [name for name in step.owing if name not in held]
        return [
            *lines,
            f"Open step: {step.key} ({step.title})",
            f"Deadline: {deadlines.local_time(step.deadline_at, zone)}",
            f"Still to send: {', '.join(missing) or 'nobody'}",
        ]

    def wait(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.player(ctx, reply)
        if who is None:
            return
        who.seat.wait = command.name == "WAIT"
        ctx.session.add(who.seat)
        reply.section(
            command.name,
            [
                "The step will not be processed early while you wait."
                if who.seat.wait
                else "Early processing is allowed again."
            ],
        )

    def history(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.player(ctx, reply)
        if who is None:
            return
        turn = int(command.args[0]) if command.args and command.args[0].isdigit() else None
        count = self.games.resend_reports(ctx.session, who.game, who.seat, turn)
        reply.section("History", [f"{count} report(s) sent again in separate letters."])

    def press(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.player(ctx, reply)
        if who is None:
            return
        target = command.args[0].lower() if command.args else ""
        seats = [
            s
            for s in Games.seats(ctx.session, self._gid(who.game))
            if s.status is SeatStatus.ACTIVE and s.name != who.seat.name
        ]
        chosen = seats if target == "all" else [s for s in seats if s.name.lower() == target]
        if not chosen:
            reply.problem(command.line, command.text, "name a seat of this game, or ALL")
            return
        anonymous = who.game.anonymous_press and "anon" in (a.lower() for a in command.args[1:])
        author = "an anonymous player" if anonymous else who.seat.name
        for seat in chosen:
            letter = Letter(seat.address, f"[{tag(who.game)} {seat.secret}] Press from {author}")
            self.postman.post(
                ctx.session,
                letter.section(f"Press from {author}", [line.text for line in command.block]),
                kind="press",
                now=self.clock(),
            )
        self.games.note(
            ctx.session, who.game, "press", {"from": who.seat.name, "to": [s.name for s in chosen]}
        )
        reply.section(
            "Press relayed",
            [f"to {', '.join(s.name for s in chosen)}" + (" (anonymously)" if anonymous else "")],
        )

    def timezone(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.player(ctx, reply)
        if who is None:
            return
        zone = command.args[0] if command.args else ""
        if not deadlines.valid_zone(zone):
            reply.problem(
                command.line,
                command.text,
                "not a time zone name I know, e.g. Europe/Berlin, America/New_York",
            )
            return
        who.seat.timezone = zone
        ctx.session.add(who.seat)
        reply.section("Time zone", [f"Deadlines will be shown in {zone}."])

    def seal(self, command: Command, ctx: Context, reply: Reply) -> None:
        """Store a sealed value; the sender gets a receipt, the others only hear that one arrived."""
        who = self.player(ctx, reply)
        if who is None:
            return
        step = self._open_step_for(who, Command(command.name, (), command.line, command.text), ctx, reply)
        if step is None:
            return
        if step.kind != "sealed":
            reply.problem(command.line, command.text, f"no sealed value is open; the open step is {step.key}")
            return
        if len(command.args) != 2 or command.args[0].lower() not in step_labels(step):
            reply.problem(
                command.line,
                command.text,
                f"write SEAL <label> <value>; labels: {', '.join(step_labels(step))}",
            )
            return
        label, value = command.args[0].lower(), command.args[1]
        plugin = self.games.plugin(who.game)
        line = f"{label.upper()} {value}"
        parsed = plugin.parse(plugin.load(step.snapshot), who.seat.name, [Line(command.line, line)])
        if parsed.problems or not parsed.accepted:
            reason = parsed.problems[0].reason if parsed.problems else "not accepted"
            reply.problem(command.line, command.text, reason)
            return
        salt = _salt()
        receipt = seal_receipt(value, salt)
        held = Games.current_orders(ctx.session, row_id(step)).get(who.seat.name)
        sealed = {
            **(held.sealed if held else {}),
            label: {"value": value, "salt": salt.hex(), "receipt": receipt},
        }
        # The stored line is the plugin's normalised form (what the dice digest hashes).
        sealed[label]["line"] = parsed.accepted[0].normalised
        lines = [
            str(item.get("line", f"{name.upper()} {item['value']}")) for name, item in sorted(sealed.items())
        ]
        self._replace_sealed(ctx, who, step, lines=lines, sealed=sealed, held=held)
        reply.section(
            "Sealed",
            [
                f"Label: {label}",
                f"Receipt: {receipt}",
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
            OrderSet(
                step_id=row_id(step),
                seat=who.seat.name,
                lines=lines,
                sealed=sealed,
                inbound_id=ctx.row.id,
                received_at=ctx.row.received_at,
            )
        )
        receipts = {name: item["receipt"] for name, item in sealed.items()}
        self.games.note(
            ctx.session, who.game, "sealed", {"step": step.key, "seat": who.seat.name, "receipts": receipts}
        )
        self.games.note_orders(
            ctx.session, who.game, step, who.seat.name, [], replaced=held is not None, log=False
        )
        for other in Games.seats(ctx.session, self._gid(who.game)):
            if other.name != who.seat.name and other.status is SeatStatus.ACTIVE:
                letter = Letter(other.address, f"[{tag(who.game)} {other.secret}] A sealed value arrived")
                letter.section("Sealed value", [f"{who.seat.name} has sealed a value for {step.title}."])
                self.postman.post(ctx.session, letter, kind="sealed-notice", now=self.clock())

    def vacation(self, command: Command, ctx: Context, reply: Reply) -> None:
        """Announce an absence: the seat's defaults apply meanwhile and it is not counted late."""
        who = self.player(ctx, reply)
        if who is None:
            return
        zone = who.seat.timezone or who.game.timezone
        span = vacation_span(command.args, zone, self.clock(), who.game.vacation_days)
        if isinstance(span, str):
            reply.problem(command.line, command.text, span)
            return
        who.seat.vacation_from, who.seat.vacation_to = span
        ctx.session.add(who.seat)
        payload = {"seat": who.seat.name, "from": command.args[0], "to": command.args[1]}
        self.games.note(ctx.session, who.game, "vacation", payload)
        reply.section(
            "Vacation",
            [
                f"From {command.args[0]} to {command.args[1]} ({zone}) your default orders apply,",
                "and no step counts you as late.",
            ],
        )

    def resign(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.player(ctx, reply)
        if who is None:
            return
        who.seat.status = SeatStatus.RESIGNED
        ctx.session.add(who.seat)
        self.games.note(ctx.session, who.game, "resign", {"seat": who.seat.name})
        reply.section("Resigned", [f"You have left {who.game.title}; your seat plays its default orders."])


def _salt() -> bytes:
    return secrets.token_bytes(32)


def vacation_span(
    args: Sequence[str], zone: str, now: datetime, limit_days: int
) -> tuple[datetime, datetime] | str:
    """The vacation as UTC instants (whole days in the player's zone), or why it is refused."""
    if len(args) != 2:
        return "write VACATION <from> <to> with dates as YYYY-MM-DD"
    try:
        first, last = (date.fromisoformat(a) for a in args)
    except ValueError:
        return "dates are written YYYY-MM-DD, e.g. 2026-12-24"
    tz = ZoneInfo(zone)
    start = datetime.combine(first, time(0, 0), tz).astimezone(UTC)
    end = datetime.combine(last, time(23, 59, 59), tz).astimezone(UTC)
    if last < first:
        return "the vacation ends before it begins"
    if end < now:
        return "that vacation is over already"
    if (last - first).days + 1 > limit_days:
        return f"this game allows at most {limit_days} days of vacation at a time"
    return start, end


def diff(old: Sequence[str], new: Sequence[str]) -> list[str]:
    """What changed between two order sets, line by line (order-insensitive)."""
    removed = [f"- {line}" for line in old if line not in new]
    added = [f"+ {line}" for line in new if line not in old]
    return removed + added or ["(the same orders as before)"]


def dkim_passed(results: str, sender: str, authserv_id: str) -> bool:
    """Trust only our own receiving server's Authentication-Results: dkim=pass for the sender's domain.

    Anyone can write an Authentication-Results header into a letter, so only a
    header whose authserv-id is the configured one counts (RFC 8601 section 5);
    with none configured, DKIM cannot be confirmed and the letter is refused.
    """
    if not authserv_id or not results.strip().lower().startswith(authserv_id.lower()):
        return False
    domain = sender.rpartition("@")[2].lower()
    for clause in results.lower().split(";")[1:]:
        words = clause.split()
        if "dkim=pass" in words and any(w in (f"header.d={domain}", f"header.i=@{domain}") for w in words):
            return True
    return False
