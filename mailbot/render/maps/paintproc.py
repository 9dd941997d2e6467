# SPDX-License-Identifier: GPL-3.0-or-later
"""The picture process (:mod:`.painting`): paints the maps it is sent until its socket closes.

Started as ``python -m mailbot.render.maps.paintproc FD [GAME ...]`` by the process whose
reports need the pictures; that socket is all it shares with it. It imports the painter
and the drawers of the games named (those of the step that wanted it), says it is ready, then
answers each job ``(number, game, {"map": ...})`` in order with one of:

* ``(number, "ok", Painted | None)``: the picture, or None when the game draws no map;
* ``(number, "map-error", why)``: the drawing cannot be drawn (the parent raises it, as its own
  painting would);
* ``(number, "failed", why)``: anything else (the parent paints that picture itself).

When the parent ends, even by ``kill -9``, its end of the socket closes and this process ends too.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import signal
import sys
import threading
from multiprocessing.connection import Connection

from mailbot.render.maps import MapError, drawing_of
from mailbot.render.maps.painting import FAILED, MAP_ERROR, OK, READY, paint

log = logging.getLogger(__name__)


def serve(jobs: Connection, answers: Connection) -> None:
    """Answer every job until the parent's end of the socket closes.

    The jobs are read by a thread of their own as they come: answers the parent does not read
    yet (a step whose reports were given up) fill the socket, so writing the next one waits,
    and a parent writing its next jobs meanwhile (a step of many seats) would wait on us in
    turn. Read at once, its jobs never wait, and neither of us waits on the other."""
    waiting: queue.SimpleQueue[tuple[int, str, dict[str, object]] | None] = queue.SimpleQueue()
    threading.Thread(target=_read, args=(jobs, waiting), name="jobs", daemon=True).start()
    answers.send((READY,))
    while (job := waiting.get()) is not None:
        number, game, view = job
        answers.send((number, *_answer(game, view)))


def _read(jobs: Connection, waiting: queue.SimpleQueue[tuple[int, str, dict[str, object]] | None]) -> None:
    try:
        while True:
            waiting.put(jobs.recv())
    except (EOFError, OSError):
        pass  # the parent is gone, or done with us
    except Exception:  # a job that cannot be read: end, and the parent paints in place
        log.exception("the picture process cannot read its jobs")
    waiting.put(None)


def _answer(game: str, view: dict[str, object]) -> tuple[str, object]:
    if drawing_of(game) is None:  # a game the parent knows from elsewhere (a test's registry)
        return FAILED, f"no drawer for the game {game!r} here"
    try:
        return OK, paint(game, view)
    except MapError as exc:
        return MAP_ERROR, str(exc)
    except Exception as exc:  # the parent paints it itself, and meets the error there
        return FAILED, f"{type(exc).__name__}: {exc}"[:500]


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the moderator, which ends us
    # Loaded before "ready", so that the first pictures are no slower than the next. Without
    # cairo here each picture is a MapError, as it is in the parent.
    with contextlib.suppress(OSError, ImportError):
        import mailbot.render.maps.raster  # noqa: F401
    for game in argv[2:]:
        drawing_of(game)
    shared = int(argv[1])
    jobs = Connection(shared, writable=False)  # read by a thread of its own: a connection each
    answers = Connection(os.dup(shared), readable=False)
    with contextlib.suppress(OSError):  # the parent closed its end while we answered
        serve(jobs, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
