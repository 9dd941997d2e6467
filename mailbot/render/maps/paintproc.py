# SPDX-License-Identifier: GPL-3.0-or-later
"""The picture process (:mod:`.painting`): paints the maps it is sent until its pipe closes.

Started as ``python -m mailbot.render.maps.paintproc READ_FD WRITE_FD [GAME ...]`` by the process
whose reports need the pictures; those two pipes are all it shares with it. It imports the painter
and the drawers of the games named (those of the step that wanted it), says it is ready, then
answers each job ``(number, game, {"map": ...})`` in order with one of:

* ``(number, "ok", Painted | None)``: the picture, or None when the game draws no map;
* ``(number, "map-error", why)``: the drawing cannot be drawn (the parent raises it, as its own
  painting would);
* ``(number, "failed", why)``: anything else (the parent paints that picture itself).

When the parent ends, even by ``kill -9``, its end of the pipe closes and this process ends too.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from multiprocessing.connection import Connection

from mailbot.render.maps import MapError, drawing_of
from mailbot.render.maps.painting import FAILED, MAP_ERROR, OK, READY, paint


def serve(jobs: Connection, answers: Connection) -> None:
    """Answer every job until the parent's end of the pipe closes."""
    answers.send((READY,))
    while True:
        try:
            number, game, view = jobs.recv()
        except (EOFError, OSError):
            return  # the parent is gone, or done with us
        answers.send((number, *_answer(game, view)))


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
    for game in argv[3:]:
        drawing_of(game)
    jobs = Connection(int(argv[1]), writable=False)
    answers = Connection(int(argv[2]), readable=False)
    with contextlib.suppress(OSError):  # the parent closed its end while we answered
        serve(jobs, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
