# SPDX-License-Identifier: GPL-3.0-or-later
"""Game commands by mail: who is writing, and what players may ask for.

A letter counts for a seat only when it comes from the seat's registered
address AND carries the seat's secret (subject tag ``[DU-3 k7Q2]`` or a line
``SECRET k7Q2``). A letter that fails is refused to the *registered* address,
without any game content; a stranger gets the plain help and learns nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session

from mailbot.core import deadlines
from mailbot.core.commands import (
    ANONYMOUS_AUTHOR,
    ARCHIVE_COMMAND,
    Command,
    CommandSpec,
    number_of,
    press_title,
    visible,
)
from mailbot.core.game import Line
from mailbot.services.base import queries
from mailbot.services.base.tags import new_salt, tag
from mailbot.services.inbox.auth import Gatekeeper, Seated, same_secret
from mailbot.services.inbox.handling import MAX_PROBLEMS, Context, Handler, Reply
from mailbot.services.play import dicemail, observers, setupdice, steps
from mailbot.services.play.games import Games
from mailbot.services.play.steps import contribute, letter_entropy, open_step_for, without_nonces
from mailbot.services.post.letters import Draft, Postman
from mailbot.store.game_tables import Game, GameStatus, OrderSet, Seat, SeatStatus, StepRow, row_id
from mailbot.store.rows import new_row

PLAYER_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("LIST", "LIST", "the games open to join and their free seats"),
    CommandSpec("JOIN", "JOIN <game> <seat> <invite code>", "take a seat you were invited to"),
    CommandSpec(
        "SECRET",
        "SECRET <your secret>",
        "prove who you are (or keep the [tag] in the subject)",
        credential=True,
    ),
    CommandSpec("GAME", "GAME <number>", "which game a letter is for, with SECRET", credential=True),
    CommandSpec(
        "ORDERS",
        "ORDERS [step] ... END",
        "your orders, one per line; replaces earlier ones",
        True,
        max_args=1,
    ),
    CommandSpec("SHOW", "SHOW ORDERS", "the orders the moderator holds from you for the open step"),
    CommandSpec("STATUS", "STATUS", "the open step, who has not sent orders, the deadline"),
    CommandSpec("WAIT", "WAIT", "do not process early on my account"),
    CommandSpec("NOWAIT", "NOWAIT", "early processing is fine again"),
    CommandSpec("CONFIRM", "CONFIRM", "use my orders as they stand, without the lines dropped"),
    CommandSpec("HISTORY", "HISTORY [turn]", "send me my past reports again"),
    ARCHIVE_COMMAND,
    CommandSpec(
        "PRESS",
        "PRESS <seat|ALL> ... END",
        "a message to other players through the moderator",
        takes_block=True,
        prose=True,
    ),
    CommandSpec("TIMEZONE", "TIMEZONE <zone>", "show deadlines in your zone, e.g. Europe/Berlin"),
    CommandSpec(
        "VACATION", "VACATION <from> <to>", "away between two dates (YYYY-MM-DD): defaults, not late"
    ),
    CommandSpec("RESIGN", "RESIGN", "leave the game (the seat plays its default orders)"),
    CommandSpec("SEAL", "SEAL <label> <value>", "a sealed value: kept secret until every seat has sealed"),
    CommandSpec("NONCE", "NONCE <anything>", "your own randomness for the open step's dice"),
)


class MailGame:
    """Handlers for the player commands; authentication is the Gatekeeper's, SEAL is Sealing's,
    ARCHIVE is ``ArchiveMail``'s (the archive reads games: ``app`` puts them together)."""

    def __init__(
        self, *, games: Games, gate: Gatekeeper, postman: Postman, clock: Callable[[], datetime]
    ) -> None:
        self.games = games
        self.gate = gate
        self.postman = postman
        self.clock = clock

    def handlers(self) -> dict[str, Handler]:
        return {
            "LIST": self.list_open,
            "JOIN": self.join,
            "SECRET": lambda *_: None,  # read by identify()
            "GAME": lambda *_: None,
            "ORDERS": self.orders,
            "SHOW": self.show,
            "STATUS": self.status,
            "WAIT": self.wait,
            "NOWAIT": self.wait,
            "CONFIRM": self.confirm,
            "HISTORY": self.history,
            "PRESS": self.press,
            "TIMEZONE": self.timezone,
            "RESIGN": self.resign,
            "VACATION": self.vacation,
            "NONCE": self.nonce,
        }

    def list_open(self, command: Command, ctx: Context, reply: Reply) -> None:
        """The games anyone may ask to join (the judges' LIST): the same for every writer."""
        lines = Games.open_to_join(ctx.session)
        how = "To join: JOIN <game> <seat> <invite code>; the game master gives the invite code."
        reply.section("Games open to join", [*lines, "", how] if lines else ["None at the moment."])
        watched = Games.open_to_observe(ctx.session)
        watch = "To read one without playing: OBSERVE <game> (UNOBSERVE <game> stops it)."
        reply.section(
            "Games open to observers", [*watched, "", watch] if watched else ["None at the moment."]
        )

    def join(self, command: Command, ctx: Context, reply: Reply) -> None:
        number = number_of(command.args[0]) if len(command.args) == 3 else None
        if number is None:
            reply.problem(command.line, command.text, "write JOIN <game number> <seat> <invite code>")
            return
        game = ctx.session.get(Game, number)
        seat = queries.seat(ctx.session, number, command.args[1]) if game else None
        if (
            game is None
            or seat is None
            or not same_secret(command.args[2], seat.invite_code)
            or seat.status is not SeatStatus.INVITED
        ):
            # One answer for every failure: a stranger must not learn which games or seats exist.
            reply.problem(command.line, command.text, "no open invitation matches that game, seat and code")
            return
        dicemail.anchor_with_join(ctx, game, seat, reply, self.clock())
        self.games.take_seat(ctx.session, game, seat, ctx.letter.sender, contribution=letter_entropy(ctx))
        dicemail.reveal_with_join(ctx, game, seat, reply, now=self.clock(), start=self.games.start)
        reply.section(
            "Welcome", [f"You now play {seat.name} in {game.title}; your secret follows separately."]
        )

    def orders(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.gate.player(ctx, reply)
        if who is None:
            observers.refused(command, ctx, reply, "orders")
            return
        if not single_orders_block(command, ctx, reply):
            return
        step = open_step_for(who, command, ctx, reply)
        if step is None:
            return
        if step.kind == "sealed":
            # Its values go through the seal box alone (receipts, the opening): an ORDERS block
            # would pass by it, and after a rollback would change a value every seat has seen.
            if command.line == 0:
                return  # only the subject said ORDERS: the letter's SEAL lines speak for it
            reply.problem(command.line, command.text, _sealed_only(ctx, step))
            reply.section(
                f"No orders accepted for {step.title}", ["Your values sealed before (if any) stand."]
            )
            return
        plugin = queries.plugin(who.game)
        lines = [Line(line.number, line.text) for line in without_nonces(command, ctx)]
        parsed = plugin.parse(plugin.load(step.snapshot), who.seat.name, lines)
        # "Re: [tag] orders" above a "Thanks!" names ORDERS only in its subject: without an order
        # line it clears nothing (an empty ORDERS ... END in the text still does, on purpose).
        by_subject = command.line == 0 and not parsed.accepted
        # An ORDERS line the letter ran out on, with no order under it ("Orders" above a sign-off),
        # clears nothing either: clearing takes ORDERS and END alone (player trial).
        unended = not command.ended and not parsed.accepted
        if (parsed.accepted or not parsed.problems) and not by_subject and not unended:
            dropped = kept_dropped([f"{problem.text}: {problem.reason}" for problem in parsed.problems])
            self._store_orders(
                ctx,
                who,
                step,
                list(parsed.normalised),
                reply,
                dropped=dropped,
                dropped_all=len(parsed.problems),
            )
        else:  # nothing usable: keep what the seat sent before rather than an empty set
            told = ["Your earlier orders (if any) still stand."]
            if by_subject and not parsed.problems:
                told.append("Only the subject said ORDERS. To clear your orders send ORDERS and END alone.")
            elif unended and not parsed.problems:
                told.append(
                    "ORDERS had no order under it and no END. To clear your orders send ORDERS and END alone."
                )
            reply.section(f"No orders accepted for {step.title}", told)
        for problem in parsed.problems:
            reply.problem(problem.line, problem.text, f"{problem.kind.value}: {problem.reason}")

    def _store_orders(
        self,
        ctx: Context,
        who: Seated,
        step: StepRow,
        lines: list[str],
        reply: Reply,
        *,
        dropped: list[str],
        dropped_all: int,
    ) -> None:
        current = queries.current_orders(ctx.session, row_id(step))
        previous = current.get(who.seat.name)
        if previous is not None:
            previous.current = False
            ctx.session.add(previous)
        row = new_row(
            OrderSet,
            step_id=row_id(step),
            seat=who.seat.name,
            lines=lines,
            inbound_id=ctx.row.id,
            received_at=ctx.row.received_at,
            salt=new_salt(),
            dropped=dropped,
        )
        ctx.session.add(row)
        queries.orders_replaced(ctx.session, row_id(step), current, row)
        self.games.note_orders(
            ctx.session,
            who.game,
            step,
            who.seat.name,
            lines,
            replaced=previous is not None,
            salt=row.salt,
            held={*current, who.seat.name},  # known here: not flushed and read back
        )
        contribute(self.games, ctx, who, step)
        title = f"Orders accepted for {step.title}" + (", some lines dropped" if dropped else "")
        reply.section(title, [f"  {line}" for line in lines] or ["  (none)"])
        if previous is not None:
            reply.section("These replace your earlier orders", diff(previous.lines, lines))
        if dropped:
            reply.section("Your orders wait for your word", self._held_back_lines(who, step, dropped_all))

    @staticmethod
    def _held_back_lines(who: Seated, step: StepRow, dropped: int) -> list[str]:
        """What a seat whose letter had refused lines is told: they are dropped, the step waits."""
        zone = who.seat.timezone or who.game.timezone
        return [
            f"{dropped} line(s) of your letter could not be used and were dropped",
            "(each is listed below with its reason). The lines above stand as your",
            "orders, but the step is not run early on your account: it runs at its",
            f"deadline, {deadlines.local_time(step.deadline_at, zone)}, unless you answer first.",
            "  - Send CONFIRM to have your orders used as they stand.",
            "  - Or send your ORDERS again, corrected: they replace these whole.",
            "The report of the step lists the dropped lines again.",
        ]

    def confirm(self, command: Command, ctx: Context, reply: Reply) -> None:
        """CONFIRM: orders that had refused lines are used as they stand; early processing may start."""
        who = self.gate.player(ctx, reply)
        if who is None:
            return
        step = queries.open_step(ctx.session, row_id(who.game))
        held = None if step is None else queries.current_orders(ctx.session, row_id(step)).get(who.seat.name)
        if step is None or held is None:
            reply.problem(
                command.line, command.text, "you hold no orders for an open step: nothing to confirm"
            )
            return
        if not held.held_back:
            reply.section("CONFIRM", [f"Your orders for {step.title} already count as they stand."])
            return
        held.confirmed = True
        ctx.session.add(held)
        self.games.note_orders(
            ctx.session, who.game, step, who.seat.name, held.lines, replaced=False, log=False
        )
        reply.section(
            "CONFIRM",
            [
                f"Your orders for {step.title} are used as they stand, without the dropped line(s):",
                *(f"  {line}" for line in held.dropped),
            ],
        )

    def nonce(self, command: Command, ctx: Context, reply: Reply) -> None:
        """A NONCE line: the letter adds the player's randomness to the open step's dice."""
        who = self.gate.player(ctx, reply)
        if who is None:
            return
        step = queries.open_step(ctx.session, row_id(who.game))
        if who.game.status is not GameStatus.RUNNING or step is None:
            reply.problem(command.line, command.text, "no step is open: the nonce was not used")
            return
        contribute(self.games, ctx, who, step)
        reply.section("Nonce", [f"Your letter adds to the dice of {step.title}."])

    def game_help(self, command: Command, ctx: Context, reply: Reply) -> None:
        """HELP from a seat: the orders of its game's open step, as its reports explain them."""
        if not self.gate.signed(ctx):
            reply.section(
                "Your game's orders",
                [
                    "Players: send HELP in a reply to one of your game's letters (or keep its [tag]",
                    "in the subject) to have the orders of your game's open step explained here.",
                ],
            )
            return
        who = self.gate.identify(ctx, reply)
        if who is None or who.seat is None:
            return
        game, seat = who.game, who.seat
        step = queries.open_step(ctx.session, row_id(game))
        if step is None:
            reply.section(f"Orders in {game.title}", ["No step is open: nothing to send now."])
            return
        plugin = queries.plugin(game)
        lines = plugin.order_help(plugin.load(game.state), seat.name)
        reply.section(f"Orders for {seat.name}", [f"{game.title} ({tag(game)}): {step.title}", "", *lines])

    def show(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.gate.player(ctx, reply)
        if who is None:
            return
        step = queries.open_step(ctx.session, row_id(who.game))
        held = queries.current_orders(ctx.session, row_id(step)).get(who.seat.name) if step else None
        title = step.title if step else "no open step"
        reply.section(
            f"Your orders for {title}", [f"  {line}" for line in held.lines] if held else ["  (none yet)"]
        )

    def status(self, command: Command, ctx: Context, reply: Reply) -> None:
        gm = self.gate.identify(ctx, reply)
        if gm is not None and gm.gm:  # the GM's STATUS: the referee's view of the same lines
            reply.section(f"{gm.game.title} ({tag(gm.game)})", self.status_lines(ctx.session, gm.game, None))
            return
        who = self.gate.player(ctx, reply)
        if who is None:
            return
        reply.section(
            f"{who.game.title} ({tag(who.game)})", self.status_lines(ctx.session, who.game, who.seat)
        )

    def status_lines(self, session: Session, game: Game, seat: Seat | None) -> list[str]:
        step = queries.open_step(session, row_id(game))
        lines = [
            f"Game status: {game.status.value}" + (f" ({game.pause_reason})" if game.pause_reason else "")
        ]
        if step is None:
            return [*lines, game.result] if game.result else lines
        zone = (seat.timezone if seat else "") or game.timezone
        if step.kind == "setup":
            return [*lines, *setupdice.status_lines(session, step, zone)]
        held = queries.current_orders(session, row_id(step))
        rows = {row.name: row for row in queries.seats(session, row_id(game))}
        silent = [rows[name] for name in step.owing if name not in held and name in rows]
        missing = [row.name for row in silent if row.played(step.opened_at)]
        unplayed = [_unplayed(row) for row in silent if not row.played(step.opened_at)]
        return [
            *lines,
            f"Open step: {step.key} ({step.title})",
            f"Deadline: {deadlines.local_time(step.deadline_at, zone)}",
            f"Still to send: {', '.join(missing) or 'nobody'}",
            *([f"Not waited for: {'; '.join(unplayed)}"] if unplayed else []),
            early_line(session, game, step, zone, gm=seat is None),
        ]

    def wait(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.gate.player(ctx, reply)
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
        who = self.gate.player(ctx, reply)
        if who is None:
            return
        turn = number_of(command.args[0]) if command.args else None
        count = self.games.resend_reports(ctx.session, who.game, who.seat, turn)
        reply.section("History", [f"{count} report(s) sent again in separate letters."])

    def press(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.gate.player(ctx, reply)
        if who is None:
            observers.refused(command, ctx, reply, "press")
            return
        target = command.args[0].lower() if command.args else ""
        seats = [
            s
            for s in queries.seats(ctx.session, row_id(who.game))
            if s.status is SeatStatus.ACTIVE and s.name != who.seat.name
        ]
        chosen = seats if target == "all" else [s for s in seats if s.name.lower() == target]
        if not chosen:
            reason = "no other seat of this game plays under that name: nothing was relayed"
            reply.problem(command.line, command.text, f"{reason}; name a seat that plays, or ALL")
            return
        anonymous = who.game.anonymous_press and "anon" in (a.lower() for a in command.args[1:])
        author = ANONYMOUS_AUTHOR if anonymous else who.seat.name
        # As written, paragraphs and all (a control character shown by name: it must not rewrite
        # what the reader's terminal shows).
        lines = [visible(line.text) for line in command.block]
        for seat in chosen:
            letter = Draft(seat.address, f"[{tag(who.game)} {seat.secret}] {press_title(author)}")
            self.postman.post(
                ctx.session, letter.section(press_title(author), lines), kind="press", now=self.clock()
            )
        self._copy_press_to_gm(ctx, who, chosen, lines, anonymous=anonymous)
        if target == "all":  # broadcast press is public: observers read it as every seat does
            self.games.reports.observers.press(ctx.session, who.game, author, lines)
        # The chain goes into every archive, a seat's own included: an anonymous author stays out of it
        # (the GM still has the letter itself among the game's inbound mail).
        sender = "anonymous" if anonymous else who.seat.name
        queries.note(
            ctx.session, who.game, "press", {"from": sender, "to": [s.name for s in chosen]}, self.clock()
        )
        # The press as relayed, quoted back: the writer sees that nothing of it was left out (and
        # that his signature and the quoted letter were).
        reply.section(
            "Press relayed",
            [
                f"to {', '.join(s.name for s in chosen)}" + (" (anonymously)" if anonymous else ""),
                f"{len(lines)} line(s), as relayed:",
                *(f"  {line}" if line else "" for line in lines),
            ],
        )

    def _copy_press_to_gm(
        self, ctx: Context, who: Seated, chosen: Sequence[Seat], lines: Sequence[str], *, anonymous: bool
    ) -> None:
        """A copy of the press to the GM, naming its author (the GM referees; an anonymous author
        stays anonymous where the GM's address plays a seat too); none when the GM wrote or got it."""
        gm = who.game.gm_address.lower()
        seats = queries.seats(ctx.session, row_id(who.game))
        if gm in {who.seat.address.lower(), *(s.address.lower() for s in chosen)}:
            return
        plays = any(s.address.lower() == gm for s in seats)
        author = who.seat.name + (" (sent anonymously)" if anonymous else "")
        if anonymous and plays:
            author = ANONYMOUS_AUTHOR
        title = f"Press from {author} to {', '.join(s.name for s in chosen)}"
        self.games.reports.gm(ctx.session, who.game, title, lines)

    def timezone(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.gate.player(ctx, reply)
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

    def vacation(self, command: Command, ctx: Context, reply: Reply) -> None:
        """Announce an absence: the seat's defaults apply meanwhile and it is not counted late."""
        who = self.gate.player(ctx, reply)
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
        queries.note(ctx.session, who.game, "vacation", payload, self.clock())
        reply.section(
            "Vacation",
            [
                f"From {command.args[0]} to {command.args[1]} ({zone}) your default orders apply,",
                "and no step counts you as late.",
            ],
        )

    def resign(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self.gate.player(ctx, reply)
        if who is None:
            return
        who.seat.status = SeatStatus.RESIGNED
        ctx.session.add(who.seat)
        queries.note(ctx.session, who.game, "resign", {"seat": who.seat.name}, self.clock())
        self.games.mark_early(ctx.session, who.game)  # the open step no longer waits for the seat
        reply.section("Resigned", [f"You have left {who.game.title}; your seat plays its default orders."])


def _unplayed(seat: Seat) -> str:
    """A silent owing seat the step does not wait for, and why (``Seat.played``)."""
    if seat.status is SeatStatus.ACTIVE:
        return f"{seat.name} (its new player owes from the next step on; orders he sends count)"
    return f"{seat.name} (no player: it plays its default orders)"


def early_line(session: Session, game: Game, step: StepRow, zone: str, *, gm: bool) -> str:
    """When the open step is processed early: the time once every order is in, else the rule.

    Only the game master hears whose WAIT holds it back; a player learns nothing of who waits.
    """
    seats = queries.seats(session, row_id(game))
    waiting = sorted(seat.name for seat in seats if seat.wait and seat.name in step.owing)
    held = queries.current_orders(session, row_id(step))
    unconfirmed = sorted(name for name, row in held.items() if row.held_back and name in step.owing)
    if waiting and gm:
        return f"Early processing: held back, {', '.join(waiting)} asked to WAIT"
    if unconfirmed and gm:
        return f"Early processing: held back, {', '.join(unconfirmed)} to CONFIRM orders with refused lines"
    if step.early_at is not None and not waiting and not unconfirmed:
        return f"Early processing: due {deadlines.local_time(step.early_at, zone)} (every order is in)"
    delay = timedelta(seconds=game.early_seconds)
    if not delay:
        return "Early processing: as soon as every order is in"
    return f"Early processing: {deadlines.delay_text(delay)} after every order is in"


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
    """What changed between two order sets, line by line (order-insensitive; linear time)."""
    old_set, new_set = set(old), set(new)
    removed = [f"- {line}" for line in old if line not in new_set]
    added = [f"+ {line}" for line in new if line not in old_set]
    return removed + added or ["(the same orders as before)"]


def single_orders_block(command: Command, ctx: Context, reply: Reply) -> bool:
    """Whether ``command`` is the letter's only ORDERS block; when not, neither is used, and the
    writer is told once (a missed quote marker must never let an old block replace the new one)."""
    blocks = [c for c in ctx.reading.commands if c.name == "ORDERS"]
    if len(blocks) == 1:
        return True
    if command is blocks[0]:
        where = ", ".join("subject" if c.line == 0 else str(c.line) for c in blocks)
        reply.problem(
            command.line,
            command.text,
            f"your letter holds {len(blocks)} ORDERS blocks (lines {where}): none was used; "
            "send one block with all your orders",
        )
    return False


#: the dropped lines kept with a seat's orders (its report and CONFIRM list them again): the
#: first ones, then a count, as a reply quotes at most ``MAX_PROBLEMS`` problems. A letter of
#: 10,000 bad lines made a 6 MB turn report.
DROPPED_KEPT = MAX_PROBLEMS


def kept_dropped(dropped: list[str]) -> list[str]:
    if len(dropped) <= DROPPED_KEPT:
        return dropped
    return [*dropped[:DROPPED_KEPT], f"... and {len(dropped) - DROPPED_KEPT} more line(s)"]


def _sealed_only(ctx: Context, step: StepRow) -> str:
    """Why an ORDERS block is refused for a sealed step, and what to send instead."""
    if opened := steps.opened_before_rollback(ctx.session, step):
        return opened
    labels = ", ".join(queries.step_labels(step))
    return (
        f"{step.title} takes sealed values, not orders:"
        f" send SEAL <label> <value> on a line of its own (labels: {labels})"
    )
