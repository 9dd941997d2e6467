# SPDX-License-Identifier: GPL-3.0-or-later
"""What an operator asks of an unattended bot: is it reading, is mail stuck, what comes next.

:func:`gather_status` reads it all from the store, so ``mailbot status`` works beside a
running service, and so does the optional health endpoint (:func:`serve_health`):
``GET /health`` answers the same JSON document, always with HTTP 200. Its ``"ok"`` is
false when outbox rows have ``failed``, letters are ``shunted``, or work is stalled (replies
due, letters stored or a deadline passed for ``bot.stall_seconds`` with nothing of the kind
done: :mod:`mailbot.services.health.stalls`), and ``mailbot status`` then exits 1; monitors read that
field (a 503 would make load balancers and some monitors treat a living bot as dead,
though only a few letters need a look). A failure to read the store answers 503.

The bot keeps no record of IMAP contact as such. What the store does show is when mail
was last stored from the mailbox (the mailbox cursor moves with every stored batch) and
when the newest letter reached the mail server; a quiet mailbox leaves both old, so the
status says what it is and "unknown" when nothing was ever fetched.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from mailbot.services.health.stalls import Stall, find_stalls
from mailbot.services.post.throttle import throttled
from mailbot.store import repo
from mailbot.store.game_tables import Game, GameStatus, StepRow, StepState
from mailbot.store.models import Inbound, InboundState, MailboxCursor, Outbound, OutboundState
from mailbot.store.presence import role_held, workers_running

log = logging.getLogger(__name__)

INJECTED = "inject"  # the mailbox name of letters fed in by ``mailbot inject``, not over IMAP
_MAX_REQUEST = 8192


@dataclass(frozen=True)
class NextDeadline:
    """The earliest moment a running game's open step is processed: its deadline plus grace."""

    game_id: int
    game_title: str
    step: str
    step_title: str
    due: datetime


@dataclass(frozen=True)
class Status:
    now: datetime
    last_fetch: datetime | None  # mail last stored from the IMAP mailbox (None: never)
    newest_received: datetime | None  # the newest IMAP letter's arrival at the mail server
    inbound: dict[str, int]
    outbox: dict[str, int]
    games: dict[str, int]
    next_deadline: NextDeadline | None
    notes: list[str] = field(default_factory=list)
    # Letters not answered, by reason ("automatic (vacation)", "from the bot itself", ...):
    # the auto-replies and bounces the bot kept silent to.
    ignored: dict[str, int] = field(default_factory=dict)
    # Addresses the loop breaker answers no more this hour, with when answers resume.
    throttled: dict[str, datetime] = field(default_factory=dict)
    workers: int | None = None  # ``mailbot run`` processes on this store now (None: SQLite cannot tell)
    mailbox_reader: bool | None = None  # whether one of them reads the mailbox now
    stalls: list[Stall] = field(default_factory=list)  # work due and untouched
    loops: dict[str, Any] = field(default_factory=dict)  # the running service's own view (/health)

    @property
    def failed(self) -> int:
        return self.outbox.get(OutboundState.FAILED.value, 0)

    @property
    def shunted(self) -> int:
        return self.inbound.get(InboundState.SHUNTED.value, 0)

    @property
    def ok(self) -> bool:
        """Nothing needs a person: no failed delivery, no shunted letter, nothing stalled."""
        return self.failed == 0 and self.shunted == 0 and not self.stalls

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"], data["failed"], data["shunted"] = self.ok, self.failed, self.shunted
        return {key: _iso(value) for key, value in data.items()}


def _iso(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _iso(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_iso(item) for item in value]
    return value


def status_json(status: Status) -> str:
    return json.dumps(status.as_dict(), indent=2, sort_keys=True)


def _all_states(counts: dict[str, int], states: type[StrEnum]) -> dict[str, int]:
    """Every state with its count, zeros included, in the enum's order."""
    return {member.value: counts.get(member.value, 0) for member in states}


def _game_counts(session: Session) -> dict[str, int]:
    query = select(Game.status, func.count()).group_by(col(Game.status))
    return {str(getattr(state, "value", state)): n for state, n in session.exec(query)}


def _ignored(session: Session) -> dict[str, int]:
    query = (
        select(Inbound.reason, func.count())
        .where(Inbound.state == InboundState.IGNORED)
        .group_by(col(Inbound.reason))
    )
    return dict(sorted(((reason or "unknown", n) for reason, n in session.exec(query)), key=_by_count))


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _next_deadline(session: Session) -> NextDeadline | None:
    query = select(Game, StepRow).where(
        StepRow.game_id == Game.id, Game.status == GameStatus.RUNNING, StepRow.state == StepState.OPEN
    )
    best: NextDeadline | None = None
    for game, step in session.exec(query):
        due = step.deadline_at + timedelta(seconds=game.grace_seconds)
        if best is None or due < best.due:
            best = NextDeadline(game.id or 0, game.title, step.key, step.title, due)
    return best


def _mail_times(session: Session) -> tuple[datetime | None, datetime | None]:
    last_fetch = session.exec(select(func.max(MailboxCursor.updated_at))).one()
    newest = session.exec(select(func.max(Inbound.received_at)).where(col(Inbound.mailbox) != INJECTED)).one()
    return last_fetch, newest


def gather_status(
    engine: Engine,
    now: datetime,
    reader: str | None = None,
    *,
    stall: timedelta = timedelta(seconds=90),
    loops: dict[str, Any] | None = None,
) -> Status:
    """The whole status from the store, in one read-only session; on PostgreSQL also how many
    workers run and whether one holds ``reader`` (the mailbox's role). Work due for ``stall``
    and untouched is a stall; ``loops`` is what a running service adds of its own loops (its
    watchdog's notes among them)."""
    loops = loops or {}
    with Session(engine) as session:
        last_fetch, newest = _mail_times(session)
        status = Status(
            now=now,
            last_fetch=last_fetch,
            newest_received=newest,
            inbound=_all_states(repo.count_by_state(session, Inbound), InboundState),
            outbox=_all_states(repo.count_by_state(session, Outbound), OutboundState),
            games=_all_states(_game_counts(session), GameStatus),
            next_deadline=_next_deadline(session),
            ignored=_ignored(session),
            throttled=dict(throttled(session, now)),
            workers=workers_running(engine),
            mailbox_reader=None if reader is None else role_held(engine, reader),
            stalls=find_stalls(session, now, stall),
            loops=loops,
        )
    status.notes.extend(_notes(status))
    return status


def _notes(status: Status) -> list[str]:
    notes = [f"stalled {stall.loop}: {stall.reason}" for stall in status.stalls]
    notes += [str(note) for note in status.loops.get("notes", [])]
    if status.failed:
        notes.append(f"{status.failed} outbox row(s) failed: mailbot outbox list --state failed")
    if status.shunted:
        notes.append(f"{status.shunted} letter(s) shunted: their handling raised; see the inbound traceback")
    if status.throttled:
        shown = ", ".join(f"{address} (until {_when(until)})" for address, until in status.throttled.items())
        notes.append(f"{len(status.throttled)} address(es) sent too many letters, answers paused: {shown}")
    if status.workers and status.mailbox_reader is False:
        notes.append(
            "workers run but none reads the mailbox (one takes over within seconds; if not, see the logs)"
        )
    return notes


def status_lines(status: Status) -> list[str]:
    """The status as text for the command line; failed and shunted rows stand out."""
    lines = [f"status at {_when(status.now)}: {'ok' if status.ok else 'ATTENTION'}"]
    if status.last_fetch is None:
        lines.append("last IMAP contact: unknown (no mail was ever stored from the mailbox)")
    else:
        lines.append(
            f"last IMAP contact: unknown; mail last stored from the mailbox {_when(status.last_fetch)}, "
            f"newest letter received {_when(status.newest_received)}"
        )
    lines.append("inbound: " + _counts(status.inbound, InboundState.SHUNTED.value))
    if status.ignored:
        lines.append("ignored: " + _counts(status.ignored, ""))
    lines.append("outbox:  " + _counts(status.outbox, OutboundState.FAILED.value))
    lines.append("games:   " + _counts(status.games, ""))
    if status.workers is not None:
        reading = {True: "one of them reads the mailbox", False: "NONE reads the mailbox", None: ""}
        lines.append(f"workers: {status.workers} running; {reading[status.mailbox_reader]}".rstrip("; "))
    deadline = status.next_deadline
    if deadline is None:
        lines.append("next deadline: none (no open step in a running game)")
    else:
        lines.append(
            f"next deadline: {_when(deadline.due)} game {deadline.game_id} ({deadline.game_title}), "
            f"step {deadline.step} ({deadline.step_title}), grace included"
        )
    lines += [f"!! {note}" for note in status.notes]
    return lines


def _counts(counts: dict[str, int], alarm: str) -> str:
    return ", ".join(
        f"{state} {n}" + (" <-- !!" if state == alarm and n else "") for state, n in counts.items()
    )


def _when(moment: datetime | None) -> str:
    return "unknown" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S UTC")


# -- the health endpoint -------------------------------------------------------------


async def serve_health(
    port: int,
    get_status: Callable[[], Status],
    *,
    host: str = "127.0.0.1",
    until: asyncio.Event | None = None,
) -> asyncio.Server:
    """Answer ``GET /health`` with the status JSON (200; 503 if the store cannot be read).

    ``get_status`` runs in a worker thread (it reads the database). Port 0 picks a free
    port (see ``server.sockets``); the caller decides whether to serve at all. With
    ``until``, the server closes itself when that event is set.
    """

    closers: set[asyncio.Task[None]] = set()

    # ``_keep`` holds the closing task for as long as the server (which holds ``handle``) lives.
    async def handle(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter, _keep: object = closers
    ) -> None:
        try:
            code, body = await _answer(reader, get_status)
            writer.write(_response(code, body))
            await writer.drain()
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client went away or sent nonsense: nothing to answer
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    server = await asyncio.start_server(handle, host, port, limit=_MAX_REQUEST)
    if until is not None:
        task = asyncio.create_task(_close_when(until, server))
        closers.add(task)
        task.add_done_callback(closers.discard)
    return server


async def _close_when(until: asyncio.Event, server: asyncio.Server) -> None:
    await until.wait()
    server.close()
    await server.wait_closed()


async def _answer(reader: asyncio.StreamReader, get_status: Callable[[], Status]) -> tuple[int, bytes]:
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    method, _, rest = head.split(b"\r\n", 1)[0].decode("latin-1").partition(" ")
    path = rest.split(" ", 1)[0].split("?", 1)[0]
    if path != "/health":
        return 404, b'{"error": "not found: only GET /health"}'
    if method != "GET":
        return 405, b'{"error": "method not allowed: only GET /health"}'
    try:
        status = await asyncio.to_thread(get_status)
    except Exception as exc:  # the endpoint must answer whatever the store does
        log.exception("health: the status could not be read")
        return 503, json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"}).encode()
    return 200, status_json(status).encode()


_REASONS = {200: "OK", 404: "Not Found", 405: "Method Not Allowed", 503: "Service Unavailable"}


def _response(code: int, body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 {code} {_REASONS[code]}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body
