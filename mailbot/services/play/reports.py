# SPDX-License-Identifier: GPL-3.0-or-later
"""The letters of a game's course: opening and step reports, reminders, announcements, GM notices.

Every report is rendered from the game's own templates (``<game>/report``)
with the seat's view, kept as a :class:`Report` row whose text hash goes into
the game's event chain, salted with the report's own random salt (so an edited
report is detectable, and a seat holding chain heads cannot test guesses about
another seat's report), and queued in the caller's transaction. When a game
ends every seat gets one more letter with the chain's final head and length.

Games that draw a map (``mailbot.render.maps``: Flat Top, Salt'n'Tar) get it
with every report (``report_maps``): a PNG attached to the letter, the SVG kept in
the :class:`Report` row for the archive. The map is drawn from the same view as
the letter, so it tells the seat no more than the letter does.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from mailbot.core import deadlines
from mailbot.core.chain import part_hash, salted
from mailbot.core.game import Event
from mailbot.mail.compose import Attachment
from mailbot.render.ics import deadline_ics
from mailbot.render.maps.painting import Painted, Painter
from mailbot.render.templates import Rendered, Renderer
from mailbot.services.base import chainlog, dicechain, queries
from mailbot.services.base.queries import box_of
from mailbot.services.base.tags import new_salt, tag, untagged
from mailbot.services.base.transactions import kept
from mailbot.services.play.observers import ObserverLetters
from mailbot.services.play.report_maps import map_of
from mailbot.services.post.letters import Draft, Postman
from mailbot.services.post.outbox import Thread
from mailbot.store.game_tables import ChainRow, Game, GameStatus, Report, Seat, SeatStatus, StepRow, row_id
from mailbot.store.rows import new_row

log = logging.getLogger(__name__)

# Chain entries that set the deadline of a step key; see deadline_sequence.
DEADLINE_SETTERS = ("step-opened", "gm-extend", "gm-resume")
# Built once, as each tick asks it once a game (building a statement cost more than running it).
_DEADLINE_SETTINGS = select(ChainRow.position).where(
    ChainRow.game_id == bindparam("game_id"),
    col(ChainRow.kind).in_(DEADLINE_SETTERS),
    col(ChainRow.payload)["step"].as_string() == bindparam("key"),
)


def deadline_sequence(session: Session, game_id: int, key: str) -> int:
    """The iCalendar SEQUENCE of step ``key``'s deadline event: how often its deadline was set again.

    Derived from the game's event chain, not kept in a column (no schema change): each
    opening of the key writes "step-opened" (attempt 1, and again for each reopening by
    ROLLBACK), and each GM move of the open step's deadline writes "gm-extend" or
    "gm-resume" naming the step (RESUME only when the pause cost the step its deadline).
    The chain is append-only and written in the same transaction as the letters, so the
    count grows with every move and never skips one. "gm-rollback" names the step too, but
    the reopening it causes is already counted by its "step-opened".
    """
    here = chainlog.appended_for(session, game_id, DEADLINE_SETTERS, key)
    if any(link.kind == "step-opened" and link.payload.get("attempt") == 1 for link in here):
        # Opened for the first time by this transaction (a deadline tick, every game): no link
        # before it named the key, so nothing need be asked.
        return max(len(here) - 1, 0)
    # Picked out by the database: the game's links grow by one an hour, and reading each
    # payload back into Python made this the dearest part of a long game's tick. Read on the
    # connection, so nothing is flushed first; this transaction's links are added by position.
    params = {"game_id": game_id, "key": key}
    positions = set(session.connection().execute(_DEADLINE_SETTINGS, params).scalars())
    return max(len(positions | {link.position for link in here}) - 1, 0)


def _part_commitments(letter: Draft, rendered: Rendered, map_svg: str, salt: bytes) -> dict[str, str]:
    """Every part of the letter as sent beside its text, and the map kept for the archive, salted
    like the text: an edited HTML part or map is found (``mailbot.core.chain``)."""
    parts = {"text/html": part_hash(rendered.html.encode("utf-8"), "text")}
    for item in letter.attachments:
        parts[item.filename] = part_hash(item.content, item.maintype)
    if map_svg:
        parts["map.svg"] = part_hash(map_svg.encode("utf-8"), "text")
    return {name: salted(digest, salt) for name, digest in parts.items()}


def step_thread(game: Game, seat: Seat, step: StepRow | None) -> Thread:
    """A letter to a seat about a step: a reply to it may carry that step's orders."""
    return Thread(row_id(game), seat.name, step.key if step is not None and seat.name in step.owing else "")


def due(game: Game, seat: Seat, step: StepRow | None) -> dict[str, Any] | None:
    """What ``seat`` owes for ``step`` and by when, for the head of a game's report template
    (``due`` beside ``r``): a game whose letters lead with it (Flat Top, issue 32) needs the
    moderator's deadline and owing seats, which its pure view cannot know. None at the end."""
    if step is None:
        return None
    zone = seat.timezone or game.timezone
    return {
        "title": step.title,
        "owed": seat.name in step.owing,
        "deadline": deadlines.local_time(step.deadline_at, zone),
        "sealed": step.kind == "sealed",
    }


def subject(game: Game, seat: Seat, view: Mapping[str, Any], step: StepRow | None, news: str) -> str:
    """A report's subject: ``[tag secret]`` then, for a game whose view names its hour briefly
    (``view["brief"]``, e.g. Flat Top's ``T4 0800 D1``), that hour and what the seat owes by
    when, the game's title last, so a mail index that shows 40 characters still shows what is
    due (issue 32); other games keep ``<title>: <news>``."""
    head = f"[{tag(game)} {seat.secret}]"
    brief = view.get("brief")
    if not isinstance(brief, str) or not brief:
        return f"{head} {game.title}: {news}"
    if step is None:
        return f"{head} {brief}: game over - {game.title}"
    if seat.name not in step.owing:
        return f"{head} {brief}: nothing due from you - {game.title}"
    what = "seal" if step.kind == "sealed" else "orders"
    when = deadlines.short_time(step.deadline_at, seat.timezone or game.timezone)
    return f"{head} {brief}: {what} due {when} - {game.title}"


#: what a paused game's letters say in place of how to send
PAUSED_SENDING = ("The game is paused: no orders are taken until the game master resumes it.",)


class Reports:
    def __init__(
        self,
        *,
        postman: Postman,
        renderer: Renderer,
        clock: Callable[[], datetime],
        painter: Painter | None = None,
    ) -> None:
        self.postman = postman
        self.renderer = renderer
        self.clock = clock
        # A step's maps, painted side by side (``render.maps.painting``); here, one by one, by default.
        self.painter = painter or Painter(apart=False)
        self.observers = ObserverLetters(postman=postman, renderer=renderer, clock=clock)

    def opening(self, session: Session, game: Game, first: StepRow | None) -> None:
        """Every seat's first report: the starting position and the first step with its deadline."""
        seats = queries.seats(session, row_id(game))
        plugin = queries.plugin(game)
        state = plugin.load(game.state)
        views = [plugin.view(state, (), seat.name) for seat in seats]
        pictures = self.painter.paint_all([(game.plugin, view) for view in views])
        for seat, view, painted in zip(seats, views, pictures, strict=True):
            self._standing(session, game, seat, first, "the game begins", setup=True, seen=(view, painted))
        self.observers.step(session, game, "the game begins", (), first, turn=first.turn if first else 0)

    def caught_up(self, session: Session, game: Game, seat: Seat) -> None:
        """A new player's report of where the game stands and of the step open now: the seat's
        past reports tell the game so far, but not what was played while the seat had no player
        (EJECT, then REPLACE). His own view, as every report is."""
        self._standing(session, game, seat, queries.open_step(session, row_id(game)), "where the game stands")

    def _standing(
        self,
        session: Session,
        game: Game,
        seat: Seat,
        step: StepRow | None,
        news: str,
        *,
        setup: bool = False,
        seen: tuple[Mapping[str, Any], Callable[[], Painted | None]] | None = None,
    ) -> None:
        """The seat's report of the game as it stands (no events), kept and sent; ``seen``: its
        view and map, begun already (:meth:`opening` begins every seat's map at once); without
        it the view is built and the map painted here."""
        view, painted = seen if seen is not None else (self._view_now(game, seat), None)
        body = self.renderer.render(f"{game.plugin}/report", {"r": view, "due": due(game, seat, step)})
        letter = Draft(seat.address, subject(game, seat, view, step, news), body=body)
        letter.thread = step_thread(game, seat, step)
        svg = self._map_section(letter, game, seat.name, view, step.turn if step else 0, painted=painted)
        if setup:
            self._setup_section(session, letter, game)
        self._next_step_section(session, letter, game, seat, step)
        head, now = chainlog.head(session, row_id(game)), self.clock()
        letter.footer.append(f"Game log chain head: {head}")
        kept_as = self._keep(session, game, seat.name, step, letter=letter, head=head, now=now, map_svg=svg)
        self.postman.post(session, letter, kind="report", now=now, rendered=kept_as)

    @staticmethod
    def _view_now(game: Game, seat: Seat) -> Mapping[str, Any]:
        plugin = queries.plugin(game)
        return plugin.view(plugin.load(game.state), (), seat.name)

    def resolved(
        self,
        session: Session,
        game: Game,
        step: StepRow,
        events: Sequence[Event],
        *,
        nxt: StepRow | None,
        defaults: Mapping[str, Sequence[str]],
        quiet: Sequence[StepRow] = (),
        dropped: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        """Every active seat's report on ``step`` and the ``quiet`` steps played after it without mail."""
        plugin = queries.plugin(game)
        state = plugin.load(game.state)
        now = self.clock()
        seats = [seat for seat in queries.seats(session, row_id(game)) if seat.status is SeatStatus.ACTIVE]
        views = [plugin.view(state, events, seat.name) for seat in seats]
        # Every seat's map is begun before the first report is written: the others' are painted
        # meanwhile beside this process, when the painter may (``render.maps.painting``).
        pictures = self.painter.paint_all([(game.plugin, view) for view in views])
        for seat, view, painted in zip(seats, views, pictures, strict=True):
            body = self.renderer.render(f"{game.plugin}/report", {"r": view, "due": due(game, seat, nxt)})
            more = f" and {len(quiet)} quiet step(s)" if quiet else ""
            letter = Draft(
                seat.address, subject(game, seat, view, nxt, f"{step.title} resolved{more}"), body=body
            )
            letter.thread = step_thread(game, seat, nxt)
            svg = self._map_section(letter, game, seat.name, view, step.turn, painted=painted)
            # Who else sent nothing is told where nothing is hidden, or the values are opened here.
            others = not plugin.hidden_information or step.kind == "sealed"
            self._defaults_section(letter, seat.name, defaults, others=others)
            if dropped and seat.name in dropped:  # his own lines: nobody else hears of them
                lines = [f"  {line}" for line in dropped[seat.name]]
                letter.section("Lines dropped from your orders (not used)", lines)
            self._opening_section(session, letter, step)
            if step.revealed:
                letter.section("Dice of this step", [f"Seed (check it against the commitment): {step.seed}"])
            self._quiet_section(letter, quiet)
            self._next_step_section(session, letter, game, seat, nxt)
            head = chainlog.head(session, row_id(game))
            letter.footer.append(f"Game log chain head: {head}")
            kept_as = self._keep(
                session, game, seat.name, step, letter=letter, head=head, now=now, map_svg=svg
            )
            self.postman.post(session, letter, kind="report", now=now, rendered=kept_as)
        more = f" and {len(quiet)} quiet step(s)" if quiet else ""
        self.observers.step(session, game, f"{step.title} resolved{more}", events, nxt, turn=step.turn)

    @staticmethod
    def _map_section(
        letter: Draft,
        game: Game,
        seat: str,
        view: Mapping[str, Any],
        turn: int,
        *,
        painted: Callable[[], Painted | None] | None = None,
    ) -> str:
        """Attach the seat's map as PNG, shown inline in the HTML part and named in the text part,
        and its zoomed inset under it when there is one; returns the map's SVG for the archive
        ("" when there is none). The inset is that drawing through a window: the archive keeps
        no second SVG (its page shows the map's for both), the chain the inset PNG's digest."""
        shown = view.get("turn")  # the hour the map shows (a resolved step's report: the next one)
        number = shown if isinstance(shown, int) and not isinstance(shown, bool) else turn
        drawn = map_of(game, seat, number, view, painted)
        if drawn is None:
            return ""
        shown_as = [("Map", drawn.caption, drawn.picture)]
        if drawn.inset is not None:
            shown_as.append(("Map, zoomed", drawn.inset_caption, drawn.inset))
        for title, words, picture in shown_as:
            letter.attachments.append(picture)
            letter.section(
                title,
                [f"{words}: see the attached picture {picture.filename}."],
                picture=picture,
                caption=f"{words} (also attached as {picture.filename}).",
            )
        return drawn.svg

    @staticmethod
    def _quiet_section(letter: Draft, quiet: Sequence[StepRow]) -> None:
        """The steps played at once on standing orders (``core.lifecycle``, "Quiet steps")."""
        if not quiet:
            return
        lines = [
            "The game marked these steps quiet, so they were played at once on every side's",
            "standing orders, without a letter; what happened in them is in this report.",
        ]
        for row in quiet:
            seed = f" (seed {row.seed})" if row.revealed else ""
            lines.append(f"  {row.title}: dice commitment {row.commitment}{seed}")
        letter.section("Played without mail", lines)

    @staticmethod
    def _setup_section(session: Session, letter: Draft, game: Game) -> None:
        setup = queries.setup_step(session, row_id(game))
        if setup is None:
            return
        seed = (
            f"Seed (check it against the commitment): {setup.seed}"
            if setup.revealed
            else "Its seed is revealed when the game ends."
        )
        letter.section("Dice of the set-up", [f"Commitment: {setup.commitment}", seed])

    def closing(self, session: Session, game: Game, *, also: Sequence[Seat] = ()) -> None:
        """After the last reports: every seat learns the final chain head and the number of entries.

        Not itself in the chain (a letter cannot carry the hash of an entry that holds its own
        hash); with it a player who kept his letters detects any later rewrite or cut of the log.
        """
        entries = chainlog.entries(session, row_id(game))
        head, now = chainlog.head(session, row_id(game)), self.clock()
        lines = [
            f"Final chain head: {head}",
            f"Entries: {len(entries)}",
            "Keep this letter with your reports: python3 verify.py ARCHIVE --letters YOUR_MAILBOX",
            "checks that the published archive holds exactly the log you were shown.",
        ]
        for seat in queries.seats(session, row_id(game)):
            if seat.status is SeatStatus.ACTIVE or seat in also:
                letter = Draft(
                    seat.address, f"[{tag(game)} {seat.secret}] {game.title}: the game log is closed"
                )
                self.postman.post(
                    session, letter.section("The game log is closed", lines), kind="report", now=now
                )
        self.observers.notice(session, game, "the game is over", [game.result, *lines[:2]])

    @staticmethod
    def _defaults_section(
        letter: Draft, seat: str, defaults: Mapping[str, Sequence[str]], *, others: bool
    ) -> None:
        """What was played for you (yours alone); who else sent nothing, where ``others`` (a game
        that hides nothing, or a sealed step, whose values the report opens). Where orders are
        hidden it is not said: every seat can read the defaults in its order help, so a seat
        told that another sent nothing would know his orders (GM trial: in the duel, the split
        before the sealed bid). The game master's late list still names him."""
        if seat in defaults:
            letter.section(
                "You sent no orders: these defaults were applied", [f"  {o}" for o in defaults[seat]]
            )
        silent = sorted(name for name in defaults if name != seat) if others else []
        if silent:
            letter.section(
                "Default orders", [f"No orders came from {', '.join(silent)}; defaults were applied."]
            )

    @staticmethod
    def _opening_section(session: Session, letter: Draft, step: StepRow) -> None:
        """Seal opening: every value with its salt, so every seat can check every receipt."""
        if step.kind != "sealed" or not step.seal_labels:
            return
        box = box_of(step, queries.current_orders(session, row_id(step)))
        lines = [
            f"{seat} {label}: value {item.value}, salt {item.salt_hex}, receipt {item.receipt}"
            for (seat, label), item in sorted(box.entries.items())
        ]
        if lines:
            lines.append("Check: SHA-256(value as UTF-8 bytes followed by the salt bytes) = receipt.")
            letter.section("Sealed values opened", lines)

    def _next_step_section(
        self, session: Session, letter: Draft, game: Game, seat: Seat, nxt: StepRow | None
    ) -> None:
        if nxt is None:
            letter.section("The game is over", [game.result or "Thank you for playing."])
            return
        zone = seat.timezone or game.timezone
        owes = seat.name in nxt.owing
        owed = "You owe orders for this step." if owes else "Nothing is owed by you in this step."
        if owes and not seat.played(nxt.opened_at):  # a new player of a seat that had none
            owed = (
                "It was open before you took the seat, so it does not wait for you: orders you send"
                " count, else the seat plays its default orders. You owe orders from the next step on."
            )
        letter.section(
            f"Now open: {nxt.title}",
            [
                f"Deadline: {deadlines.local_time(nxt.deadline_at, zone)}",
                owed,
                f"Dice commitment for this step ({dicechain.committed_how(session, nxt)}): {nxt.commitment}",
                *dicechain.report_lines(session, nxt, seat.name, owes=owes),
                # How to send, only to a seat that owes: "Nothing is owed" above a "Send:" line
                # read as a contradiction (issue 32).
                *(self._how_to_send(game, nxt) if owes else ()),
            ],
        )
        letter.attachments.append(
            Attachment("deadline.ics", self.ics_for(session, game, nxt), "text", "calendar")
        )

    @staticmethod
    def _how_to_send(game: Game, step: StepRow) -> list[str]:
        # A paused game takes no orders (GM trial: the letters of an extended or rolled-back
        # paused game said "Send:", and the orders sent were refused).
        if game.status is GameStatus.PAUSED:
            return list(PAUSED_SENDING)
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
        letter: Draft,
        head: str,
        now: datetime,
        map_svg: str = "",
    ) -> Rendered:
        """Store the seat's report and its salted hash in the chain; returns it rendered, so that
        the letter sent is the text kept and is not rendered a second time."""
        rendered = self.postman.render(letter)
        salt = new_salt()
        session.add(
            new_row(
                Report,
                game_id=row_id(game),
                seat=seat,
                turn=step.turn if step else 0,
                step_key=step.key if step else "start",
                subject=untagged(letter.subject),  # the seat's secret tag stays in its mailbox only
                text=rendered.text,
                html=rendered.html,
                chain_head=head,
                created_at=now,
                salt=salt,
                map_svg=map_svg,
            )
        )
        # The text's hash in the chain makes any later edit of a stored report detectable; the
        # salt (in the archive with the text) keeps other seats from testing guesses against it.
        digest = hashlib.sha256(rendered.text.encode("utf-8")).hexdigest()
        payload = {
            "seat": seat,
            "step": step.key if step else "start",
            "commitment": salted(digest, bytes.fromhex(salt)),
            "parts": _part_commitments(letter, rendered, map_svg, bytes.fromhex(salt)),
        }
        chainlog.append(session, row_id(game), "report", payload, now)
        return rendered

    def gm(self, session: Session, game: Game, title: str, lines: Sequence[str]) -> None:
        letter = Draft(game.gm_address, f"[{tag(game)} GM] {title}").section(title, lines)
        self.postman.post(session, letter, kind="gm-notice", now=self.clock())

    def reminder(self, session: Session, game: Game, step: StepRow, seat: Seat, now: datetime) -> None:
        zone = seat.timezone or game.timezone
        letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] Reminder: orders due for {step.title}")
        letter.thread = step_thread(game, seat, step)
        letter.section(
            "Your orders are still missing",
            [f"Deadline: {deadlines.local_time(step.deadline_at, zone)}", f"Send: ORDERS {step.key} ... END"],
        )
        ics = self.ics_for(session, game, step)
        letter.attachments.append(Attachment("deadline.ics", ics, "text", "calendar"))
        self.postman.post(session, letter, kind="reminder", now=now)

    def announce(
        self, session: Session, game: Game, title: str, lines: Sequence[str], *, skip: Collection[str] = ()
    ) -> None:
        """Tell every active seat, except those named in ``skip`` (they were told otherwise)."""
        for seat in queries.seats(session, row_id(game)):
            if seat.status is SeatStatus.ACTIVE and seat.name not in skip:
                letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] {title}").section(title, lines)
                self.postman.post(session, letter, kind="announcement", now=self.clock())
        self.observers.notice(session, game, title, lines)  # told every seat alike: public

    def deadline_moved(
        self,
        session: Session,
        game: Game,
        step: StepRow,
        title: str,
        lines: Sequence[str],
        *,
        heading: str = "",
    ) -> None:
        """A GM action moved the open step's deadline: tell every active seat, once.

        ``heading`` is the subject's news when it is more than the new deadline (a rollback).

        Seats that owe input for ``step`` get one letter with the announcement, the new
        deadline in their own zone and the updated deadline.ics (same UID, higher
        SEQUENCE: their calendar entry moves); the others get the announcement alone.
        Call it after the move is in the chain, so that the SEQUENCE counts it.
        """
        self._moved_letters(session, game, step, title, lines, heading=heading)
        self.announce(session, game, title, lines, skip=step.owing)

    def _moved_letters(
        self, session: Session, game: Game, step: StepRow, title: str, lines: Sequence[str], *, heading: str
    ) -> None:
        """Each active seat that owes input for ``step``: the announcement, the new deadline in
        its own zone and the updated deadline.ics (see :meth:`deadline_moved`)."""
        now, owing = self.clock(), set(step.owing)
        ics = self.ics_for(session, game, step)
        held = queries.current_orders(session, row_id(step))
        for seat in queries.seats(session, row_id(game)):
            if seat.status is not SeatStatus.ACTIVE or seat.name not in owing:
                continue
            subject = heading or f"New deadline for {step.title}"
            letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] {subject}").section(title, lines)
            letter.thread = step_thread(game, seat, step)
            zone = seat.timezone or game.timezone
            sent = "Your orders for this step are in; you may replace them until then."
            if game.status is GameStatus.PAUSED:
                sent = "Your orders for this step are in; you may replace them once the game resumes."
            letter.section(
                f"New deadline for {step.title}",
                [
                    f"Deadline: {deadlines.local_time(step.deadline_at, zone)}",
                    sent if seat.name in held else "You owe orders for this step.",
                    *self._how_to_send(game, step),
                ],
            )
            letter.attachments.append(Attachment("deadline.ics", ics, "text", "calendar"))
            self.postman.post(session, letter, kind="deadline", now=now)

    def resumed(
        self, session: Session, game: Game, step: StepRow, title: str, lines: Sequence[str], *, moved: bool
    ) -> None:
        """RESUME: every active seat reads the open step and its deadline in its own zone, as
        other letters give it. When the deadline passed during the pause and was renewed
        (``moved``), the seats that owe input get the moved deadline's letter and calendar
        entry (:meth:`deadline_moved`), the others the announcement with the step."""
        if moved:
            self._moved_letters(session, game, step, title, lines, heading="")
        held = queries.current_orders(session, row_id(step))
        for seat in queries.seats(session, row_id(game)):
            if seat.status is not SeatStatus.ACTIVE or (moved and seat.name in step.owing):
                continue
            letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] {title}").section(title, lines)
            letter.thread = step_thread(game, seat, step)
            zone = seat.timezone or game.timezone
            owed = "Nothing is owed by you in this step."
            if seat.name in step.owing:
                owed = (
                    "Your orders for this step are in; you may replace them until then."
                    if seat.name in held
                    else "You owe orders for this step."
                )
            body = [f"Deadline: {deadlines.local_time(step.deadline_at, zone)}", owed]
            if seat.name in step.owing and seat.name not in held:
                body += self._how_to_send(game, step)
            letter.section(f"Now open: {step.title}", body)
            self.postman.post(session, letter, kind="announcement", now=self.clock())
        when = deadlines.local_time(step.deadline_at, game.timezone)
        self.observers.notice(session, game, title, [*lines, f"Now open: {step.title}, deadline {when}."])

    def ics_for(self, session: Session, game: Game, step: StepRow) -> bytes:
        """The step's deadline as a calendar file: the same for every seat, so it is made once a
        transaction (a tick writes it for every seat of a game; it was a quarter of a tick)."""
        shelf = kept(session, "deadline-ics")
        key = (row_id(game), step.key, step.deadline_at, game.title, step.title)
        if shelf is not None and key in shelf:
            ics: bytes = shelf[key]
            return ics
        ics = self._ics(session, game, step)
        if shelf is not None:
            shelf[key] = ics
        return ics

    def _ics(self, session: Session, game: Game, step: StepRow) -> bytes:
        # One calendar event per step key, not per attempt: a step reopened by ROLLBACK is the
        # same deadline moved, so the players' calendar entry moves instead of doubling.
        return deadline_ics(
            uid=f"{tag(game)}-{step.key}@{self.postman.identity.address.rpartition('@')[2]}",
            summary=f"{game.title}: orders due ({step.title})",
            description=f"Send your orders for {step.title} to {self.postman.identity.address}.",
            deadline=step.deadline_at,
            created=self.clock(),
            organizer=self.postman.identity.address,
            sequence=deadline_sequence(session, row_id(game), step.key),
        )
