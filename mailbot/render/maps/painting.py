# SPDX-License-Identifier: GPL-3.0-or-later
"""A step's map pictures painted side by side: one seat's here, the others' in a process of their own.

A Flat Top hour's two maps were two thirds of its tick: each is an SVG drawn (4 ms) and painted
into a PNG (10-12 ms), Python work that holds the interpreter, so two threads took as long as one
(tried). The tick writes every seat's report in one transaction, and each report's chain entry
holds the digest of its pictures, so the pictures cannot wait until after it. What can be done
is to paint them at the same time on two cores: :meth:`Painter.paint_all` hands every seat's
map but the first to the picture process (``python -m mailbot.render.maps.paintproc``) and paints
the first here meanwhile; each report then takes its picture when it needs it.

A picture is the same bytes wherever it is painted: the drawers and :mod:`.raster` are pure
functions of the view's ``map`` entry (their caches are kept by content), and
``tests/render/test_map_painting.py`` holds the two to the same bytes. So nothing a letter
says depends on where, or whether, the process painted it.

The process is one for the whole of this process (a moderator, its letter process, a test
process), started when a step first has two maps to paint, and used once it says it is ready
(until then, and whenever it is not there, every picture is painted here, as before). It ends
when this process does (its socket closes) or is told to. It never holds up a report: a picture
it has not given back within :data:`WAIT_SECONDS`, or one it cannot paint for a reason the
drawing itself does not give (its game unknown there, a crash, a death), is painted here, and
the process is ended and not started again for :data:`RETRY_SECONDS`. A map the drawing itself
cannot draw (:class:`MapError`) is that error here too, as it would have been here.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import socket
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

from mailbot.render.maps import MapError, MapPicture, draw_map, drawing_of

log = logging.getLogger(__name__)

#: the longest a report waits for a picture from the process before painting it here
WAIT_SECONDS = 30.0
#: how long after the process failed (or could not start) pictures are all painted here
RETRY_SECONDS = 600.0
#: the longest a new process may take to import the drawers before it counts as failed
READY_SECONDS = 120.0
#: the answers the process gives: a picture, a drawing error, any other failure, ready to paint
OK, MAP_ERROR, FAILED, READY = "ok", "map-error", "failed", "ready"

#: a game's name and the seat's view, whose ``map`` entry is drawn
Job = tuple[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Painted:
    """A seat's map as a letter carries it: the drawing and its PNGs."""

    picture: MapPicture
    png: bytes
    inset_png: bytes | None


def paint(game: str, view: Mapping[str, Any]) -> Painted | None:
    """The map of ``view`` drawn and painted in this process; None when the game draws none.
    Raises :class:`MapError` when the view's map cannot be drawn or painted."""
    picture = draw_map(game, view)
    if picture is None:
        return None
    return Painted(picture, picture.png(), picture.inset_png())


def has_map(game: str, view: Mapping[str, Any]) -> bool:
    """Whether :func:`paint` would draw something for ``view``."""
    return isinstance(view.get("map"), Mapping) and drawing_of(game) is not None


class Painter:
    """Paints a step's maps: :meth:`paint_all` hands out one thunk a job, each giving its picture."""

    def __init__(self, *, apart: bool, process: PictureProcess | None = None) -> None:
        self.apart = apart  # False: every picture is painted in this process
        self._process = process  # None: this process's shared one (:func:`shared`)

    def paint_all(self, jobs: Sequence[Job]) -> list[Callable[[], Painted | None]]:
        """A thunk for each job, in order, giving :func:`paint`'s answer for it. With ``apart``,
        the jobs that have a map, but the first of them, are sent to the picture process at once."""
        here = [_here(job) for job in jobs]
        drawn = [n for n, (game, view) in enumerate(jobs) if has_map(game, view)]
        if not self.apart or len(drawn) < 2:
            return here
        return (self._process or shared()).send(jobs, drawn[1:], here)


def _here(job: Job) -> Callable[[], Painted | None]:
    game, view = job
    return lambda: paint(game, view)


class _Batch:
    """The jobs of one :meth:`Painter.paint_all` in the process: when nothing holds their thunks
    any more (the reports are written, or the tick failed), answers still to come are dropped."""

    def __init__(self, process: PictureProcess, numbers: Sequence[int]) -> None:
        weakref.finalize(self, process.forget, tuple(numbers))


class PictureProcess:
    """This process's end of the picture process."""

    def __init__(self, command: Sequence[str] | None = None) -> None:
        self._command = list(command or (sys.executable, "-m", "mailbot.render.maps.paintproc"))
        # Reentrant: a batch's finalizer (``forget``) may run in a collection while it is held.
        self._lock = threading.RLock()
        self._child: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None
        self._ready = False
        self._failed_at: float | None = None
        self._started_at = 0.0
        self._number = 0
        self._wanted: set[int] = set()  # sent and not yet taken or forgotten
        self._answers: dict[int, tuple[Any, ...]] = {}  # read while waiting for another
        self.answered = 0  # pictures (or map errors) taken from the process since this one began

    @property
    def pid(self) -> int | None:
        return None if self._child is None else self._child.pid

    def send(
        self, jobs: Sequence[Job], chosen: Sequence[int], here: list[Callable[[], Painted | None]]
    ) -> list[Callable[[], Painted | None]]:
        """``here`` with the ``chosen`` jobs' thunks replaced by answers from the process, when it is
        ready; those jobs are sent now."""
        sent: dict[int, int] = {}
        with self._lock:
            if not self._usable(sorted({jobs[index][0] for index in chosen})):
                return here
            for index in chosen:
                game, view = jobs[index]
                number = self._send(game, view)
                if number is not None:
                    sent[index] = number
                elif self._child is None:  # it failed: the rest are painted here too
                    break
        if not sent:
            return here
        batch = _Batch(self, list(sent.values()))
        thunks = list(here)
        for index, number in sent.items():
            thunks[index] = self._taker(batch, number, here[index])
        return thunks

    def _taker(
        self, batch: _Batch, number: int, fallback: Callable[[], Painted | None]
    ) -> Callable[[], Painted | None]:
        def take() -> Painted | None:
            _ = batch  # held by the thunk: the batch lives while a thunk of it may be called
            answer = self.take(number)
            if answer is None:
                return fallback()
            if answer[0] == FAILED:  # its game unknown there, a bug: here it is painted, or raises
                log.warning("the picture process could not paint a map (%s); painting it here", answer[1])
                return fallback()
            return _answered(answer)

        return take

    def take(self, number: int) -> tuple[Any, ...] | None:
        """The process's answer to job ``number``; None when it has none to give (it failed, it
        was too slow): the caller paints the picture itself."""
        with self._lock:
            while number not in self._answers:
                if number not in self._wanted or self._conn is None:
                    return None
                answer = self._receive()
                if answer is None:
                    return None
                if answer[0] in self._wanted:
                    self._answers[answer[0]] = answer[1:]
            self._wanted.discard(number)
            self.answered += 1
            return self._answers.pop(number)

    def forget(self, numbers: Sequence[int]) -> None:
        with self._lock:
            for number in numbers:
                self._wanted.discard(number)
                self._answers.pop(number, None)

    def start(self, games: Sequence[str] = ()) -> None:
        """Start the process now, if it is not running (else the first step with two maps does)."""
        with self._lock:
            if self._child is None:
                self._start(games)

    def wait_ready(self, seconds: float) -> bool:
        """Whether the process is ready to paint, waiting up to ``seconds`` for it (a benchmark
        times a service whose process started with its games' first letters, hours before)."""
        deadline = time.monotonic() + seconds
        with self._lock:
            while self._child is not None and not self._ready and time.monotonic() < deadline:
                assert self._conn is not None
                with contextlib.suppress(OSError):
                    self._conn.poll(max(deadline - time.monotonic(), 0.0))
                self._ready = self._ready_now()
            return self._ready

    def stop(self) -> None:
        """End the process (it finishes the picture in hand); the next step starts a new one."""
        with self._lock:
            self._end()

    # -- under the lock ------------------------------------------------------------------------

    def _usable(self, games: Sequence[str]) -> bool:
        if self._child is not None and self._child.poll() is not None:
            self._failed(f"the picture process ended (exit code {self._child.returncode})")
            return False
        if self._child is None:
            if self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_SECONDS:
                return False
            self._start(games)
            return False  # it imports the drawers first: this step is painted here
        if not self._ready:
            self._ready = self._ready_now()
            if self._ready:
                log.info("the picture process %s is ready: a step's maps are painted side by side", self.pid)
        return self._ready

    def _start(self, games: Sequence[str]) -> None:
        # One socket pair, not two pipes: a write or read that waits longer than WAIT_SECONDS
        # (a process stopped, or stuck with the interpreter held) fails instead of holding the
        # tick, and the pair holds a whole answer where a pipe holds a third of one.
        ours, theirs = socket.socketpair()
        waited = struct.pack("ll", int(WAIT_SECONDS), int(WAIT_SECONDS % 1 * 1_000_000))
        for option in (socket.SO_SNDTIMEO, socket.SO_RCVTIMEO):
            ours.setsockopt(socket.SOL_SOCKET, option, waited)
        try:
            self._child = subprocess.Popen(
                [*self._command, str(theirs.fileno()), *games],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
            )
        except OSError as exc:
            ours.close()
            self._failed(f"the picture process could not start: {exc}")
            return
        finally:  # the child's end: only the child holds it, so our death ends its reading
            theirs.close()
        self._conn = Connection(ours.detach())
        self._ready, self._started_at = False, time.monotonic()
        log.info("map pictures are painted beside this process in process %s", self._child.pid)

    def _ready_now(self) -> bool:
        assert self._conn is not None
        try:
            if not self._conn.poll(0):
                if time.monotonic() - self._started_at > READY_SECONDS:
                    self._failed(f"the picture process was not ready after {READY_SECONDS:.0f} s")
                return False
            said = self._conn.recv()
        except Exception:  # EOF, a socket error, or bytes that are no answer: it did not start
            self._failed("the picture process ended as it started")
            return False
        if said != (READY,):
            self._failed(f"the picture process said {said!r} at its start")
            return False
        return True

    def _send(self, game: str, view: Mapping[str, Any]) -> int | None:
        """The job's number, or None when it is painted here: its view cannot be sent (a value
        pickle cannot write: nothing was written), or the process cannot be reached."""
        assert self._conn is not None
        self._number += 1
        try:
            message = ForkingPickler.dumps((self._number, game, {"map": view["map"]}))
        except Exception as exc:  # any value of a game's view: this picture is painted here
            log.warning("a map of %s cannot be sent to the picture process (%s); painting it here", game, exc)
            return None
        try:
            self._conn.send_bytes(message)
        except (OSError, ValueError) as exc:  # ValueError: a closed connection
            self._failed(f"the picture process cannot be reached: {exc}")
            return None
        self._wanted.add(self._number)
        return self._number

    def _receive(self) -> tuple[Any, ...] | None:
        assert self._conn is not None
        try:
            if not self._conn.poll(WAIT_SECONDS):
                self._failed(f"the picture process gave no picture within {WAIT_SECONDS:.0f} s")
                return None
            answer = self._conn.recv()
        except (EOFError, OSError) as exc:
            self._failed(f"the picture process died ({exc or 'its socket closed'})")
            return None
        except Exception as exc:  # an answer that cannot be read: the process is not trusted further
            self._failed(f"the picture process answered what cannot be read ({type(exc).__name__}: {exc})")
            return None
        if not isinstance(answer, tuple) or not answer or not isinstance(answer[0], int):
            self._failed(f"the picture process answered {type(answer).__name__}")
            return None
        return answer

    def _failed(self, why: str) -> None:
        log.warning("%s; map pictures are painted here for now", why)
        self._failed_at = time.monotonic()
        self._end()

    def _end(self) -> None:
        if self._conn is not None:
            self._conn.close()
        child, self._child, self._conn, self._ready = self._child, None, None, False
        self._wanted.clear()
        self._answers.clear()
        if child is not None:
            try:
                child.wait(1.0)  # its socket closed: it ends after the picture in hand
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def _answered(answer: tuple[Any, ...]) -> Painted | None:
    """A picture, None (no map), or the drawing's own error, as :func:`paint` gives them."""
    if answer[0] == MAP_ERROR:
        raise MapError(str(answer[1]))
    painted: Painted | None = answer[1]
    return painted


_SHARED: PictureProcess | None = None
_SHARED_LOCK = threading.Lock()


def shared() -> PictureProcess:
    """The picture process of this process (ended when this process exits)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = PictureProcess()
            atexit.register(_SHARED.stop)
        return _SHARED
