# SPDX-License-Identifier: GPL-3.0-or-later
"""Handling stored letters: parse, read commands, answer, each letter as one unit of work.

Letters are handled in batches: one transaction for up to ``BATCH_LETTERS`` letters (or
``BATCH_SECONDS`` of work), each letter under its own savepoint (on SQLite a batch is first
tried without them, see ``_process_batch``). A letter that makes the
handler fail is parked as ``shunted`` with its traceback and the batch goes on (Mailman's
shunt queue); nothing it would have written is kept, because its savepoint is rolled back.
A crash before the batch's commit leaves every letter of it ``new``, to be handled again;
nothing left the process meanwhile (replies wait in the outbox, written in the same
transaction). If the batch itself fails (the store refuses the commit), its letters are
handled again one transaction each, as before batching.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from mailbot.core.commands import (
    ANONYMOUS_AUTHOR,
    BASIC_COMMANDS,
    CommandSpec,
    index_specs,
    read_commands,
    reply_press,
    visible,
)
from mailbot.core.letter import Letter
from mailbot.errors import GameBusy, MailbotError, MessageFormatError, StoreUnavailable
from mailbot.mail.compose import Outgoing, reply_subject
from mailbot.mail.mime import bare_address, parse_headers, parse_letter
from mailbot.mail.parsed import ParseLimits, kept_letter
from mailbot.mail.quoting import split_reply
from mailbot.render.templates import Renderer
from mailbot.services.base.claims import busy_elsewhere, claim_letters, claim_next, try_games_on_load
from mailbot.services.base.tags import TAG
from mailbot.services.base.transactions import begin_writing, holds_write_lock
from mailbot.services.inbox import answers, auth, thread
from mailbot.services.inbox.handling import Context, Handler, Reply, _cut
from mailbot.services.post.identity import Identity
from mailbot.services.post.outbox import Thread, collect_queued, enqueue
from mailbot.services.post.throttle import Verdict, admit
from mailbot.store import counts, repo, wakeups
from mailbot.store.models import Inbound, InboundState, Outbound
from mailbot.store.transient import describe, is_transient, writable

log = logging.getLogger(__name__)


ROW_REASON_CHARS = 200  # a stored letter's reason (its column's width)

# One commit per batch of letters instead of one per letter; short enough that the database's
# write lock is never held long (SQLite has one for the whole file).
BATCH_LETTERS = 50
BATCH_SECONDS = 0.25
#: a batch holding SQLite's write lock is first tried without a savepoint per letter
QUICK_BATCHES = True
#: a letter the store refuses this many times running while it takes other writes is parked:
#: the error is the letter's, though it looks like the store's
LETTER_STRIKES = 3


@dataclass(frozen=True)
class _Line:
    """A log line held back (``InboundProcessor._log``)."""

    args: tuple[Any, ...]
    extra: dict[str, Any]


@dataclass
class _Batch:
    """A batch of letters as it goes: its ids (None until claimed, ``claim_next``), how many of
    them were taken and how many of those were handled."""

    ids: list[int] | None
    taken: int = 0
    handled: int = 0


class _Careful(MailbotError):
    """A letter of a quick batch failed or must wait: the batch is done again with savepoints."""


class InboundProcessor:
    def __init__(
        self,
        *,
        engine: Engine,
        renderer: Renderer,
        identity: Identity,
        clock: Callable[[], datetime],
        new_message_id: Callable[[], str],
    ) -> None:
        self.engine = engine
        self.renderer = renderer
        self.identity = identity
        self.clock = clock
        self.new_message_id = new_message_id
        self.specs: dict[str, CommandSpec] = index_specs(BASIC_COMMANDS)
        #: what HELP adds below the command list (the writer's game's orders)
        self.help_extras: list[Handler] = []
        help_ = answers.help_handler(self.specs, self.help_extras)
        self.handlers: dict[str, Handler] = {"HELP": help_, "PING": answers.ping}
        self.waiting = 0  # letters the last process_pending left to another worker, or to wait
        self._left: set[int] = set()  # the letters this process_pending left waiting so far
        self._more = False  # the last batch claimed all it could take: more letters may wait
        #: PostgreSQL: each batch claims the next letters no other worker holds (``claim_next``)
        self._claims_next = engine.dialect.name == "postgresql"
        self._held: list[_Line] | None = None  # a quick batch's outcome lines, until its commit
        self._current: int | None = None  # the letter being handled
        self._strikes: dict[int, int] = {}  # letters the store refused while it took other writes

    def process_pending(self) -> int:
        """Handle every stored letter in order of receipt; returns how many.

        Letters another worker has, or that wait for one (:mod:`mailbot.services.base.claims`),
        are counted in ``self.waiting`` and left for the next call. A store that fails under
        a letter (locked, connection lost, full) ends the call with StoreUnavailable: that
        letter and those after it stay ``new``, to be handled once the store is back; nothing
        is parked for it.
        """
        try:
            return self._process_all()
        except Exception as exc:
            if not is_transient(exc):
                raise
            self._strike()
            raise StoreUnavailable(describe(exc)) from exc

    def _strike(self) -> None:
        """The store refused the letter in hand. If it takes writes all the same, that counts
        against the letter; a letter refused ``LETTER_STRIKES`` times running is parked, so
        one letter cannot hold every other letter back for ever."""
        inbound_id, self._current = self._current, None
        if inbound_id is None or not writable(self.engine):
            return
        strikes = self._strikes[inbound_id] = self._strikes.get(inbound_id, 0) + 1
        if strikes >= LETTER_STRIKES:
            del self._strikes[inbound_id]
            log.error("letter %s shunted: refused %d times by a store taking writes", inbound_id, strikes)
            why = f"the store refused it {strikes} times while taking other writes"
            self._shunt(inbound_id, traceback.format_exc(), why)

    def _process_all(self) -> int:
        done = 0
        tried: set[int] = set()
        self.waiting = 0
        self._left.clear()
        if self._claims_next:
            # Several workers may share the store: each batch claims letters of its own. Those
            # that must wait are left for the next call (``_left``), not tried again here.
            while True:
                taken, handled = self._process_batch(None)
                done += handled
                if not (taken and self._more):
                    break
            self._count(done)
            return done
        # A letter that could be neither handled nor parked stays pending; it is tried again on
        # the next call, not in a tight loop here.
        while ids := [i for i in self._pending() if i not in tried]:
            while ids:
                taken, handled = self._process_batch(ids[:BATCH_LETTERS])
                tried.update(ids[:taken])
                done += handled
                ids = ids[taken:]
        self._count(done)
        return done

    def _count(self, done: int) -> None:
        counts.note("letters rounds")
        counts.note("letters rounds with none handled", not done)
        counts.note("letters left waiting", self.waiting)

    def _pending(self) -> list[int]:
        with Session(self.engine) as session:
            return repo.pending_inbound_ids(session)

    def _process_batch(self, ids: Sequence[int] | None) -> tuple[int, int]:
        """Handle letters from the front of ``ids`` in one transaction; returns how many of ``ids``
        were taken and how many of those were handled here. ``None``: the next letters no other
        worker holds, claimed by the batch (PostgreSQL, ``claim_next``).

        Where the transaction holds SQLite's write lock, the batch is first tried without a
        savepoint per letter: its rows are then written together at the commit (one flush, a
        few multi-row INSERTs) instead of one flush and two savepoint statements per letter.
        If any letter fails or must wait, that whole try is rolled back and the batch is
        handled again letter by letter under savepoints, as if the quick try never was.
        """
        if not QUICK_BATCHES or ids is None:
            return self._batch(ids, careful=True)
        # A quick try's log lines wait for its commit: a try that is rolled back and done again
        # must not say twice that a letter was answered.
        self._held = []
        try:
            done = self._batch(ids, careful=False)
        except _Careful:
            log.debug("a letter of a batch of %d failed or waits: handled again one savepoint each", len(ids))
        else:
            for line in self._held:
                log.info(*line.args, extra=line.extra)
            return done
        finally:
            self._held = None
        return self._batch(ids, careful=True)

    def _batch(self, ids: Sequence[int] | None, *, careful: bool) -> tuple[int, int]:
        batch = _Batch(list(ids) if ids is not None else None)
        try:
            # Nothing is read from the batch's rows after its commit: expiring them all is waste.
            with Session(self.engine, expire_on_commit=False) as session, session.begin():
                begin_writing(session)  # before the first savepoint, as a writer
                self._handle_batch(session, batch, quick=not careful and holds_write_lock(session))
        except _Careful:
            raise
        except Exception as exc:  # the batch as a whole (its commit, a shunt) failed: one letter at a time
            if is_transient(exc):
                raise  # the store, not a letter: they all wait for it
            if self._held is not None:
                self._held.clear()  # the rolled-back try's lines: the retry below says its own
            taken = batch.taken or len(batch.ids or ())
            self._more = True  # those claimed and not taken go back: the next batch takes them
            log.warning("a batch of %d letter(s) failed; handling them one by one", taken, exc_info=True)
            return taken, self._one_by_one((batch.ids or [])[:taken])
        return batch.taken, batch.handled

    def _handle_batch(self, session: Session, batch: _Batch, *, quick: bool) -> None:
        if batch.ids is None:
            batch.ids, claimed = claim_next(session, BATCH_LETTERS, self._left)
            self._more = len(batch.ids) >= BATCH_LETTERS  # (or it stops early, below)
        else:
            claimed = claim_letters(session, batch.ids)
        ids = batch.ids
        mine = {inbound_id for inbound_id, _sender in claimed}
        try_games_on_load(session)
        _hold_loaded(session, ids, mine)
        # Before any letter's savepoint: what is read ahead (and on PostgreSQL, the games' locks)
        # belongs to the batch, and a letter to a game another worker holds waits untried.
        auth.read_ahead(session)
        started = time.monotonic()
        held_back: set[str] = set()  # senders whose earlier letter waits: theirs wait too
        for position, (inbound_id, sender) in enumerate(claimed):
            batch.taken = ids.index(inbound_id) + 1
            if quick:
                self._process_quick(session, inbound_id)
                batch.handled += 1
            elif (
                sender in held_back
                or _game_busy(session, inbound_id)
                or not self._process_in(session, inbound_id)
            ):
                held_back.add(sender)
                self.waiting += 1
                self._left.add(inbound_id)
            else:
                batch.handled += 1
            if time.monotonic() - started > BATCH_SECONDS and position + 1 < len(claimed):
                self._more = True  # the claimed letters not reached go back, for the next batch
                break
        else:
            batch.taken = len(ids)
        # Not claimed here: with another worker, or waiting for one of the sender's letters.
        others = [inbound_id for inbound_id in ids[: batch.taken] if inbound_id not in mine]
        self.waiting += len(others)
        self._left.update(others)
        if batch.handled:
            # Letters that wait elsewhere for this batch (their senders', their games') may go
            # once it commits: their workers are told then, not polling for it.
            wakeups.notify(session, wakeups.HANDLED)

    def _one_by_one(self, ids: Sequence[int]) -> int:
        handled = 0
        for inbound_id in ids:
            if self.process(inbound_id):
                handled += 1
            else:
                self._left.add(inbound_id)
        return handled

    def _process_quick(self, session: Session, inbound_id: int) -> None:
        """One letter of a quick batch, without a savepoint: any failure ends the quick try."""
        self._current = inbound_id
        row = session.get_one(Inbound, inbound_id)
        if row.state is not InboundState.NEW:
            return
        try:
            self._handle(session, row)
        except Exception as exc:  # GameBusy too: the careful way parks or defers just this letter
            raise _Careful from exc

    def _process_in(self, session: Session, inbound_id: int) -> bool:
        """One letter of a batch, under its own savepoint; False when it must wait (its game is
        with another worker)."""
        self._current = inbound_id
        row = session.get_one(Inbound, inbound_id)
        if row.state is not InboundState.NEW:
            return True
        try:
            with session.begin_nested():
                self._handle(session, row)
        except GameBusy:
            counts.note("letters game busy")
            return False  # rolled back to the savepoint: the letter stays new, for the next round
        except Exception as exc:  # any bug in handling must not stop the loop: park the letter
            if is_transient(exc):
                raise  # the store, not the letter: it stays new
            log.exception(
                "letter %s shunted", inbound_id, extra={"inbound": inbound_id, "outcome": "shunted"}
            )
            self._park(row, traceback.format_exc(), _why(exc))
        return True

    def process(self, inbound_id: int) -> bool:
        """One letter in a transaction of its own; False when it was not handled here (another
        worker has it or its game)."""
        self._current = inbound_id
        try:
            with Session(self.engine) as session, session.begin():
                if not claim_letters(session, [inbound_id]):
                    return False
                try_games_on_load(session)
                row = session.get_one(Inbound, inbound_id)
                if row.state is InboundState.NEW:
                    self._handle(session, row)
        except GameBusy:
            return False
        except Exception as exc:  # any bug in handling must not stop the loop: park the letter
            if is_transient(exc):
                raise  # the store, not the letter: it stays new
            log.exception(
                "letter %s shunted", inbound_id, extra={"inbound": inbound_id, "outcome": "shunted"}
            )
            self._shunt(inbound_id, traceback.format_exc(), _why(exc))
        return True

    def _shunt(self, inbound_id: int, trace: str, reason: str) -> None:
        with Session(self.engine) as session, session.begin():
            self._park(session.get_one(Inbound, inbound_id), trace, reason)

    def _park(self, row: Inbound, trace: str, reason: str) -> None:
        _done(row, InboundState.SHUNTED, self.clock())
        row.traceback = trace
        row.reason = reason

    def _read(self, row: Inbound) -> tuple[Letter, str]:
        """The letter, and why its text could not be read ("" when it could).

        A message whose headers can be read but not its body (parts nested thousands deep) is
        answered from its headers alone; one without a header has nobody to answer: the
        :class:`MessageFormatError` goes on and the letter is shunted with its reason.
        """
        limits = ParseLimits(self.identity.max_message_bytes, self.identity.max_text_chars)
        # Parsed by the reader as it stored the letter (``mail.parsed``); cleared with the
        # handling's one UPDATE of the row (``_done``).
        kept = kept_letter(row.letter, limits) if row.letter is not None else None
        if kept is not None:
            return kept, ""
        try:
            return parse_letter(row.raw, **limits._asdict()), ""
        except MessageFormatError as exc:
            return parse_headers(row.raw), _cut(str(exc), ROW_REASON_CHARS)

    def _handle(self, session: Session, row: Inbound) -> None:
        letter, unreadable = self._read(row)
        started = self.clock()
        reason = self._ignore_reason(letter)
        if reason:
            _done(row, InboundState.IGNORED, started)
            row.reason = reason
            self._log(
                "letter %s ignored: %s", row.id, reason, extra={"inbound": row.id, "outcome": "ignored"}
            )
            return
        queued = collect_queued(session)
        reply, context = self._reply_to(session, letter, row, unreadable=bool(unreadable))
        verdict = Verdict.ANSWER
        if reply is not None:
            idle = answers.idle(queued, reply, context)
            counter = answers.counter_of(letter.sender, context)
            verdict = admit(session, counter, started, self.identity.limits, idle=idle)
            if verdict is Verdict.NOTICE:
                reply = answers.too_many(session, self.identity, counter)
        if reply is not None and verdict is not Verdict.SILENT:
            self._send_reply(session, letter, row, reply, context)
        _done(row, InboundState.PROCESSED, started)  # one UPDATE, at the end
        if unreadable:  # (set earlier, the row would be flushed by every query of the handling)
            row.reason = unreadable
        self._log_handled(queued, row, reply, context, verdict)

    def _reply_to(
        self, session: Session, letter: Letter, row: Inbound, *, unreadable: bool
    ) -> tuple[Reply | None, Context | None]:
        """The reply and what was read; no context for a letter that was not read, and no reply
        to an unreadable letter answered before (handled again after a restore or a retry)."""
        if unreadable:
            return (None if repo.answered_inbound(session, row.id) else answers.unreadable()), None
        if repo.reuses_message_id(row):
            return answers.reused_id(letter.message_id or ""), None
        if letter.too_large:
            return answers.too_large(self.identity), None
        return self._answer(session, letter, row)

    def _log_handled(
        self,
        queued: Sequence[Outbound],
        row: Inbound,
        reply: Reply | None,
        context: Context | None,
        verdict: Verdict = Verdict.ANSWER,
    ) -> None:
        """One line per handled letter: who (when known) and the outcome; never its text or secret."""
        fields: dict[str, Any] = {"inbound": row.id, "outcome": _OUTCOMES[verdict]}
        if reply is None or context is None:
            fields["reason"] = row.reason or "too large"
            if reply is None:
                fields["outcome"] = "answered before"
        else:
            fields["commands"] = [command.name for command in context.reading.commands]
            who = context.extra.get("who")  # the Gatekeeper's verdict, when a game command asked
            if who is not None:
                fields["game"] = who.game.id
                fields["seat"] = who.seat.name if who.seat is not None else "GM"
            elif "who" in context.extra and answers.refused(queued, reply) and verdict is Verdict.ANSWER:
                fields["outcome"] = "refused"
        where = f" (game {fields['game']}, seat {fields['seat']})" if "game" in fields else ""
        self._log("letter %s %s%s", row.id, fields["outcome"], where, extra=fields)

    def _log(self, *args: Any, extra: dict[str, Any]) -> None:
        """A letter's outcome line: at once, or after the commit of the quick batch it is in."""
        if self._held is None:
            log.info(*args, extra=extra)
        else:
            self._held.append(_Line(args, extra))

    def _ignore_reason(self, letter: Letter) -> str:
        if letter.is_automatic:
            return f"automatic ({letter.automatic.value})"
        if not letter.sender or bare_address(letter.sender) is None:
            # Not a plain address an SMTP server takes ("<bob@x>" decoded from an encoded word, a
            # local part or domain outside ASCII): an answer would only fail, and tell the GM so.
            return "no usable sender"
        if letter.sender.lower() == self.identity.address.lower():
            return "from the bot itself"
        return ""

    def register(self, specs: Sequence[CommandSpec], handlers: dict[str, Handler]) -> None:
        """Add commands (the game commands plug in here)."""
        self.specs.update(index_specs(specs))
        self.handlers.update(handlers)

    def _answer(self, session: Session, letter: Letter, row: Inbound) -> tuple[Reply, Context]:
        letters = thread.answered(session, letter)
        template = None
        if letters:  # a reply to the bot: its own letters are known, so quoted copies of them too
            split = split_reply(letter.body_text, thread.known(letters))
            letter = replace(letter, command_text=split.text, prose_text=split.prose)
            template = split.edited_template
        reading = read_commands(letter.subject, letter.command_text, self.specs, prose=letter.prose_text)
        # A reply to press is press back to its writer, before its lines can be read as orders.
        author = thread.press_author(letter, letters) if "PRESS" in self.specs else None
        if author is not None:
            reading = reply_press(reading, author, letter.prose_text, self.specs)
        if letters and "ORDERS" in self.specs:
            reading = thread.as_orders(session, reading, letters, letter.sender, template)
        elif "ORDERS" in self.specs:
            reading = thread.tagged_orders(session, reading, letter.subject, letter.sender)
        reply = Reply()
        context = Context(letter, row, reading, session, {"answered": letters})
        for command in reading.commands:
            self.handlers[command.name](command, context, reply)
        if author == ANONYMOUS_AUTHOR and not any(command.name == "PRESS" for command in reading.commands):
            answers.anonymous_press(reply)
        answers.unknown(reading, reply)
        if not reading.commands and not reading.unknown:
            told = ["Your letter held no commands."]
            if _commands_under_signature(letter.body_text, self.specs):
                # Player trial: orders under a "-- " line were passed over without a word.
                told.append(
                    "Lines under your signature (the line '-- ') are not read: put commands above it."
                )
            reply.section("No commands found", told)
            answers.command_list(self.specs, reply)
        return reply, context

    def _send_reply(
        self, session: Session, letter: Letter, row: Inbound, reply: Reply, context: Context | None
    ) -> None:
        now = self.clock()
        extra = context.extra if context is not None else {}
        # The writer's game and seat, when known: the reply keeps the tag and is known by its thread.
        known_thread = extra.get("thread") if isinstance(extra.get("thread"), Thread) else None
        tag = str(extra.get("tag", ""))
        subject = letter.subject if not tag or tag in letter.subject else f"{letter.subject} {tag}".strip()
        # The writer's own subject and name, quoted back: their bidi overrides and the like shown
        # by name, as every line of the reply shows them (``handling.Reply``).
        body = self.renderer.render(
            "common/reply",
            {"bot": self.identity.name, "sender_name": visible(letter.sender_name), "reply": reply},
        )
        out = Outgoing(
            sender=self.identity.address,
            sender_name=self.identity.name,
            recipient=letter.sender,
            subject=reply_subject(visible(subject)),
            body=body,
            message_id=self.new_message_id(),
            date=now,
            in_reply_to=letter.message_id,
            references=letter.references,
            is_reply=True,
        )
        enqueue(session, out, kind="reply", now=now, inbound_id=row.id, thread=known_thread)


def _done(row: Inbound, state: InboundState, now: datetime) -> None:
    """The letter leaves ``new``: its state and time, and the parse kept for it dropped."""
    row.state, row.processed_at = state, now
    if row.letter is not None:
        row.letter = None


def _why(exc: Exception) -> str:
    """A shunted letter's reason, short: the traceback beside it says the rest."""
    return _cut(f"{type(exc).__name__}: {exc}", ROW_REASON_CHARS)


_OUTCOMES = {
    Verdict.ANSWER: "answered",
    Verdict.NOTICE: "throttled (notice sent)",
    Verdict.SILENT: "throttled (not answered)",
}


_CLAIMED_ROWS = "mailbot.claimed-rows"  # session.info: the batch's claimed letters, held (see below)


def _game_busy(session: Session, inbound_id: int) -> bool:
    """Whether the letter names a game another worker held when this batch asked for it
    (``claims.busy_elsewhere``): it waits without being tried."""
    busy = busy_elsewhere(session)
    if not busy:
        return False
    row = session.get(Inbound, inbound_id)  # claimed: loaded already (``_hold_loaded``)
    found = TAG.search(row.subject) if row is not None else None
    waits = found is not None and int(found.group(2)) in busy
    counts.note("letters game busy", waits)
    return waits


def _hold_loaded(session: Session, ids: Sequence[int], claimed: Collection[int]) -> None:
    """Keep every row the session loads for as long as the session lives, starting with the
    batch's stored letters (one query).

    A session forgets a loaded row as soon as nobody holds it, so each letter of a batch
    would query its game, seats and stored letter again; held, ``session.get`` finds them.
    Only while the batch holds SQLite's write lock: nobody else writes, so they stay current.
    Elsewhere (PostgreSQL) others may change rows meanwhile, so they are read afresh, except
    the letters this transaction ``claimed``: they are locked for it until it ends.
    """
    if not holds_write_lock(session):
        if claimed:
            query = select(Inbound).where(col(Inbound.id).in_(sorted(claimed)))
            session.info[_CLAIMED_ROWS] = session.exec(query).all()
        return
    held: list[object] = []
    event.listen(session, "loaded_as_persistent", lambda _session, obj: held.append(obj))
    session.exec(select(Inbound).where(col(Inbound.id).in_(ids))).all()


def _commands_under_signature(text: str, specs: Mapping[str, CommandSpec]) -> bool:
    """Whether a line under the letter's signature mark ("-- ") starts with a command's keyword."""
    lines = text.splitlines()
    mark = next((n for n, line in enumerate(lines) if line.rstrip() == "--"), None)
    if mark is None:
        return False
    words = (line.split(maxsplit=1)[0].upper().rstrip(":") for line in lines[mark + 1 :] if line.strip())
    return any(word in specs for word in words)
