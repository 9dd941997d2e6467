# SPDX-License-Identifier: GPL-3.0-or-later
"""Letters handled and deadlines judged in a process of their own, beside ``mailbot run``'s
mail loops.

Handling a letter is Python work from end to end (read it, know the player, store and chain
the orders, write and compose the confirmation: about a millisecond), and so is a game's
tick (resolve, write and compose the reports: a few milliseconds). In the process that also
reads the mailbox and sends the outbox they share one core with them (the interpreter runs
one thread at a time); in a process of their own they run on another core while the mail
loops go on.

The process is a second :class:`~mailbot.app.Bot` on the same store that handles letters and
ticks games when asked and nothing else: it holds no lease, reads no mailbox, sends no mail.
It is built there by the function the moderator hands over (``mailbot.app.letter_worker``):
this module never imports the app, which imports it.
The store is all the two share (the letters the reader stored, the letters the outbox sends),
so all that passes between them is "handle what is stored" and how many were handled, or
"tick, judging the mailbox as this ``MailboxHealth`` says" and each game's line as it is
done (the moderator sends that game's reports meanwhile). One request at a time: letters and ticks
take turns there as they did under one lock in the one process, and the database keeps the
guarantees it keeps between workers (SQLite's write lock, PostgreSQL's claims and game locks).

If the process dies (a bug in the interpreter, kill -9) the database rolls its open
transaction back: its letters are still ``new``, the next round starts a new process that
handles them, and a tick it was doing is done by the moderator itself. If the moderator
dies, the process finds its pipe closed and ends after the batch in hand, committed as any
batch: nothing is handled twice.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from typing import TYPE_CHECKING, Any, Protocol

from mailbot.errors import MailbotError, StoreUnavailable
from mailbot.logsetup import JsonFormatter, configure
from mailbot.registry import builtin_modules
from mailbot.store import writers
from mailbot.store.db import sqlite_file
from mailbot.store.transient import describe, is_transient

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from mailbot.settings import Settings

log = logging.getLogger(__name__)

#: how long a stopping moderator waits for the process to end its batch
STOP_SECONDS = 10.0
#: how long a new process may take to import the moderator and build it
READY_SECONDS = 60.0
_HANDLE, _TICK, _GAME, _DONE, _STOP, _READY = "handle", "tick", "game", "done", "stop", "ready"
#: how a failed round's answer starts when the store, not the round, was at fault
_STORE = "store unavailable: "


class _Processor(Protocol):
    @property
    def waiting(self) -> int: ...


class Worker(Protocol):
    """What the process asks of the moderator it builds (``mailbot.app.Bot``)."""

    @property
    def processor(self) -> _Processor: ...

    def handle_letters(self) -> int: ...

    def ticks(self, watch: MailboxHealth) -> Iterator[str]: ...


#: builds the process's moderator from the settings; a module-level function (it is pickled by
#: name, and the fork server has imported its module)
Build = Callable[["Settings"], Worker]


class LetterProcessError(MailbotError):
    """The letter process died or failed a round; the next round starts it again."""


@dataclass(frozen=True)
class Round:
    handled: int  # letters handled
    waiting: bool  # letters left for another worker (their senders' letters are claimed there)


@dataclass(frozen=True)
class MailboxHealth:
    """What this moderator knows of its mailbox, taken once for a tick: read through since start,
    and the failures to read it since. ``runners.games.GameTicks.interlock`` judges it, game by game, into the
    interlock's ``mailbot.core.lifecycle.Watch``."""

    mailbox_read: bool  # read through since the moderator started
    imap_failures: tuple[datetime, ...]  # recent failures to read it


def _context(build: Build) -> ForkServerContext:
    """How letter processes start: forked from a fork server that has imported the moderator
    and the built-in games once. A new process is then ready in milliseconds instead of the
    second or so its imports took, and it is still no copy of this process's threads and locks
    (the server is a single-threaded child started before any letter process). The server
    starts with the first letter process and again if it died; it ends when this process does."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([build.__module__, *builtin_modules()])
    return context


class LetterProcess:
    """The parent's end: starts the process, asks it for rounds, starts it again after a death."""

    def __init__(self, settings: Settings, *, build: Build) -> None:
        self._settings = settings
        self._build = build
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._lock = threading.Lock()  # one round at a time (rounds are asked from worker threads)
        # Writers waiting for the SQLite file's write lock, counted by both processes: a tick in
        # the letter process lets this process's outbox and reader in (``store.writers``).
        self._database = sqlite_file(settings.store.url)
        self._waits: writers.WaitSlots | None = None
        if self._database is not None:
            try:
                counts = _context(build).RawArray("i", writers.SLOTS)
            except OSError as exc:  # no shared memory here: each process counts its own waits
                log.warning("writers waiting for the store are not shared with the letter process: %s", exc)
            else:
                self._waits = writers.WaitSlots(counts, writers.MODERATOR)
                writers.share(self._database, self._waits)

    def start(self) -> None:
        with self._lock:
            self._ensure()

    def handle(self, *, wait: bool = True) -> Round:
        """Have the process handle every stored letter (blocking: call it in a worker thread).

        With ``wait=False`` nothing is done while the process is busy (a tick: it handles the
        stored letters before it judges any game, and the moderator asks again after it).
        """
        if not self._lock.acquire(blocking=wait):
            return Round(0, False)
        try:
            reply = self._ask(_HANDLE)
            if isinstance(reply, str) and reply.startswith(_STORE):
                raise StoreUnavailable(reply.removeprefix(_STORE))  # the letters wait for it
            if not isinstance(reply, tuple):
                raise LetterProcessError(f"the letter process failed a round: {reply}")
            handled, waiting = reply
            return Round(int(handled), bool(waiting))
        finally:
            self._lock.release()

    def tick(self, watch: MailboxHealth, game_done: Callable[[str], None]) -> list[str]:
        """Have the process do what is due in every running game (``Bot.ticks``), calling
        ``game_done`` with each game's line as it is done; returns the lines (blocking)."""
        with self._lock:
            lines = []
            reply = self._ask((_TICK, watch))
            try:
                while reply != _DONE:
                    if not isinstance(reply, tuple):
                        raise LetterProcessError(f"the letter process failed a tick: {reply}")
                    lines.append(reply[1])
                    game_done(reply[1])
                    reply = self._receive()
            except LetterProcessError:
                raise
            except BaseException:
                # The pipe may still hold the rest of this tick, which the next request would
                # read as its answer: the next round starts a new process instead.
                self._end()
                raise
            return lines

    def _ask(self, request: object) -> object:
        conn = self._ensure()
        try:
            conn.send(request)
        except OSError as exc:
            raise self._died() from exc
        return self._receive()

    def _receive(self) -> object:
        assert self._conn is not None  # asked just before, under the lock
        try:
            return self._conn.recv()
        except (EOFError, OSError) as exc:
            raise self._died() from exc

    def _died(self) -> LetterProcessError:
        return LetterProcessError(f"the letter process died (exit code {self._reap()})")

    def stop(self) -> None:
        with self._lock:
            if self._conn is not None:
                with contextlib.suppress(OSError):  # already gone
                    self._conn.send(_STOP)
            if self._process is not None:
                self._process.join(STOP_SECONDS)
                if self._process.is_alive():
                    log.warning("the letter process did not stop; ending it")
            self._end()

    def kill(self) -> None:
        """End the process now, whatever it is doing (the watchdog's cure for a round that never
        ends): the round waiting on it fails, and the next round starts a new process. Its open
        transaction is rolled back by the database, as after any death."""
        process = self._process
        if process is not None and process.is_alive():
            log.error("ending the letter process %s: it made no progress", process.pid)
            process.kill()

    def _end(self) -> None:
        if self._process is not None and self._process.is_alive():
            self._process.terminate()
            self._process.join(STOP_SECONDS)
        self._reap()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def _ensure(self) -> Connection:
        if self._conn is not None and self._process is not None and self._process.is_alive():
            return self._conn
        if self._process is not None:
            code = self._reap()
            log.warning("the letter process had ended (exit code %s); starting a new one", code)
        context = _context(self._build)
        ours, theirs = context.Pipe()
        waits = None
        if self._waits is not None and self._database is not None:
            self._waits.clear(writers.LETTER_PROCESS)  # what a letter process that died counted
            waits = (self._database, self._waits.counts)
        process = context.Process(
            target=serve,
            args=(self._settings, self._build, theirs, _log_setup(), waits),
            name="mailbot-letters",
            daemon=True,
        )
        try:
            process.start()
        except OSError as exc:  # no fork server here (no temporary folder for its socket, no fork)
            ours.close()
            theirs.close()
            raise LetterProcessError(f"the letter process could not start: {exc}") from exc
        theirs.close()
        self._process, self._conn = process, ours
        # Ready when it has built its moderator (milliseconds, forked): a round asked before would
        # wait for that, and one that cannot start says so here.
        try:
            if not ours.poll(READY_SECONDS) or ours.recv() != _READY:
                raise LetterProcessError("the letter process did not get ready")
        except (EOFError, OSError) as exc:
            code = self._reap()
            raise LetterProcessError(f"the letter process ended as it started (exit code {code})") from exc
        except LetterProcessError:
            self._process.terminate()
            self._reap()
            raise
        log.info("letters are handled in process %s", process.pid)
        return ours

    def _reap(self) -> int | None:
        code = None
        if self._process is not None:
            self._process.join(0.5)
            code = self._process.exitcode
        if self._conn is not None:
            self._conn.close()
        self._process, self._conn = None, None
        return code


def _log_setup() -> tuple[str, str] | None:
    """The parent's logging, for the process to log the same way (None: not configured)."""
    root = logging.getLogger()
    if not root.handlers:
        return None
    form = "json" if isinstance(root.handlers[0].formatter, JsonFormatter) else "text"
    return logging.getLevelName(root.level), form


def serve(
    settings: Settings,
    build: Build,
    conn: Connection,
    logs: tuple[str, str] | None,
    waits: tuple[str, Any] | None = None,
) -> None:
    """The process: a round of handling for each request, until told to stop or orphaned.
    ``waits``: the SQLite file and the moderator's count of the writers waiting for it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the moderator, which stops us
    if waits is not None:
        writers.share(waits[0], writers.WaitSlots(waits[1], writers.LETTER_PROCESS))
    if logs is not None:
        configure(logs[0], "json" if logs[1] == "json" else "text")
    bot = build(settings)  # a moderator of its own, from the modules the fork server imported
    try:
        conn.send(_READY)
    except OSError:
        return
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return  # the moderator is gone
        try:
            if request == _HANDLE:
                conn.send(_handle(bot))
            elif isinstance(request, tuple) and request[0] == _TICK:
                _tick(bot, request[1], conn)
            else:
                return
        except OSError:
            return  # the moderator is gone


def _handle(bot: Worker) -> tuple[int, bool] | str:
    try:
        return bot.handle_letters(), bool(bot.processor.waiting)
    except Exception as exc:  # one bad round must not end the process: the parent backs off
        if is_transient(exc):
            return _STORE + describe(exc)  # the parent says so, once
        log.exception("a round of letter handling failed")
        return _failure(exc)


def _tick(bot: Worker, watch: MailboxHealth, conn: Connection) -> None:
    """A game's line as each is done (the moderator sends its reports meanwhile), then done."""
    try:
        for line in bot.ticks(watch):  # a game that raises is paused there; the others go on
            conn.send((_GAME, line))
    except OSError:  # the pipe: the moderator is gone (``serve`` ends), not a failed tick
        raise
    except Exception as exc:  # the store itself failed: the moderator does this tick itself
        log.exception("a tick failed")
        conn.send(_failure(exc))
        return
    conn.send(_DONE)


def _failure(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]
