# SPDX-License-Identifier: GPL-3.0-or-later
"""Running unattended: ``mailbot outbox ...`` and ``mailbot status``, and the settings loading
every command with ``--config`` shares.

A settings problem (no such file, bad TOML, a bad value) is one line on stderr and exit
code 2, never a traceback: :func:`settings_or_exit` is the one place that turns a
:class:`ConfigError` into that, and :func:`mailbot.cli.main` catches any that come later.
"""

from __future__ import annotations

import email
import email.policy
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, col, select

from mailbot.errors import ConfigError
from mailbot.settings import Settings, load_settings
from mailbot.store.models import Outbound, OutboundState

if TYPE_CHECKING:
    from mailbot.app import Bot

log = logging.getLogger(__name__)

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="Settings file (TOML); MAILBOT_* environment variables override it."),
]

outbox_app = typer.Typer(help="Look at the outbox and send failed letters again.", no_args_is_help=True)

# ``queued`` is what an operator calls a row waiting to be sent; the store calls it ``pending``.
STATE_NAMES = {"queued": OutboundState.PENDING, **{s.value: s for s in OutboundState}}


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # aioimaplib logs every protocol line at DEBUG, passwords included: keep it quiet.
    logging.getLogger("aioimaplib").setLevel(logging.WARNING)


def config_failed(exc: ConfigError) -> typer.Exit:
    """Say what is wrong with the settings in one line on stderr; exit code 2."""
    typer.echo(f"mailbot: {exc}", err=True)
    return typer.Exit(2)


def settings_or_exit(path: Path | None) -> Settings:
    try:
        return load_settings(settings_file(path))
    except ConfigError as exc:
        raise config_failed(exc) from exc


#: read when no --config is given
LOCAL_SETTINGS = Path("mailbot.toml")


def settings_file(path: Path | None) -> Path | None:
    """``--config``, else ``./mailbot.toml`` (said on stderr), else None when ``MAILBOT_*``
    variables give the settings.

    With none of them a command would work on the built-in database path, which is rarely the
    service's (a game master's first game once landed there): that is refused, saying where
    settings were looked for.
    """
    if path is not None:
        return path
    if LOCAL_SETTINGS.is_file():
        typer.echo(f"mailbot: settings from {LOCAL_SETTINGS.resolve()}", err=True)
        return LOCAL_SETTINGS
    if any(name.startswith("MAILBOT_") for name in os.environ):
        return None
    raise ConfigError(
        f"no settings: give --config FILE, set MAILBOT_* variables, or put {LOCAL_SETTINGS} in {Path.cwd()}"
    )


def existing_store_or_exit(settings: Settings) -> None:
    """Refuse to work on a SQLite database that does not exist yet: connecting would create an
    empty one silently, likely not the service's. ``mailbot db upgrade`` creates it on purpose."""
    missing = _missing_sqlite_file(settings.store.url)
    if missing is not None:
        typer.echo(
            f"mailbot: no database at {missing} (store.url); check --config, or create it with "
            "`mailbot db upgrade` and the same settings",
            err=True,
        )
        raise typer.Exit(1)


def store_name(url: str) -> str:
    """The store's URL as a game master may see it: without its password."""
    return make_url(url).render_as_string(hide_password=True)


def bot_or_exit(settings: Settings) -> Bot:
    """The service object; a password file it cannot read is a settings problem (exit 2)."""
    from mailbot.app import Bot

    try:
        return Bot(settings)
    except ConfigError as exc:
        raise config_failed(exc) from exc


def now() -> datetime:
    return datetime.now(UTC)


@contextmanager
def store(config: Path | None) -> Iterator[Engine]:
    """An engine on the configured store; a store that cannot be read is one line, exit 1."""
    from mailbot.store import db

    url = settings_or_exit(config).store.url
    missing = _missing_sqlite_file(url)
    if missing is not None:  # connecting would create an empty database (and its folder)
        typer.echo(
            f"mailbot: no database at {missing}; check store.url, or run `mailbot db upgrade`", err=True
        )
        raise typer.Exit(1)
    engine = db.make_engine(url)
    try:
        yield engine
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        typer.echo(f"mailbot: cannot use the store ({reason}); is `mailbot db upgrade` done?", err=True)
        raise typer.Exit(1) from exc
    finally:
        engine.dispose()


def _missing_sqlite_file(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    path = Path(parsed.database or "")
    return None if path.exists() else path


# -- mailbot outbox ----------------------------------------------------------------------


def _state(name: str | None) -> OutboundState | None:
    if name is None:
        return None
    state = STATE_NAMES.get(name.lower())
    if state is None:
        raise typer.BadParameter(f"{name!r}: one of failed, queued, sending, sent", param_hint="--state")
    return state


def _when(moment: datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S")


@outbox_app.command("list")
def outbox_list(
    state: str | None = typer.Option(
        None, "--state", help="Only rows in this state: failed, queued, sending, sent."
    ),
    limit: int = typer.Option(50, "--limit", min=1, help="At most this many rows, newest first."),
    config: ConfigOption = None,
) -> None:
    """Outbox rows, newest first: number, state, attempts, next attempt, recipient, subject."""
    wanted = _state(state)
    query = select(Outbound).order_by(col(Outbound.id).desc()).limit(limit)
    if wanted is not None:
        query = query.where(Outbound.state == wanted)
    with store(config) as engine, Session(engine) as session:
        rows = list(session.exec(query))
    for row in rows:
        typer.echo(
            f"{row.id:6d} {row.state.value:8s} {row.attempts:3d} next {_when(row.next_attempt_at)}  "
            f"{row.kind:12s} {row.recipient}  {row.subject[:60]}"
        )
    typer.echo(f"{len(rows)} row(s)" + (f" in state {wanted.value}" if wanted else ""))


@outbox_app.command("show")
def outbox_show(
    row_id: int = typer.Argument(..., metavar="ID", help="Outbox row number (see outbox list)."),
    body: bool = typer.Option(False, "--body", help="Also print the text of the letter."),
    config: ConfigOption = None,
) -> None:
    """One row: its headers, state, attempts, last error and next attempt (the text with --body)."""
    from mailbot.store.inspect import text_part

    with store(config) as engine, Session(engine) as session:
        row = session.get(Outbound, row_id)
    if row is None:
        typer.echo(f"no outbox row {row_id}", err=True)
        raise typer.Exit(1)
    message = email.message_from_bytes(row.raw, policy=email.policy.default)
    for name, value in message.items():
        typer.echo(f"{name}: {value}")
    typer.echo("")
    typer.echo(f"state:        {row.state.value}")
    typer.echo(f"kind:         {row.kind} (inbound letter {row.inbound_id or '-'})")
    typer.echo(f"attempts:     {row.attempts}")
    typer.echo(f"created:      {_when(row.created_at)}")
    typer.echo(f"next attempt: {_when(row.next_attempt_at) if row.state is OutboundState.PENDING else '-'}")
    typer.echo(f"sent:         {_when(row.sent_at)}")
    typer.echo(f"last error:   {row.last_error or '-'}")
    if body:
        typer.echo("")
        typer.echo(text_part(row.raw))


def requeue_failed(session: Session, ids: list[int] | None, when: datetime) -> list[int]:
    """Put ``failed`` rows (the given ones, or all with ``None``) back to ``pending``: attempts
    reset, due at ``when``. The last error stays for the record until the next attempt."""
    query = select(Outbound).where(Outbound.state == OutboundState.FAILED)
    if ids is not None:
        query = query.where(col(Outbound.id).in_(ids))
    done = []
    for row in session.exec(query.order_by(col(Outbound.id))):
        row.state, row.attempts, row.next_attempt_at = OutboundState.PENDING, 0, when
        session.add(row)
        done.append(row.id or 0)
    return done


@outbox_app.command("retry")
def outbox_retry(
    row_id: int | None = typer.Argument(None, metavar="[ID]", help="The failed row to send again."),
    all_failed: bool = typer.Option(False, "--all-failed", help="Every failed row."),
    config: ConfigOption = None,
) -> None:
    """Send failed letters again: back to queued, attempts reset, due now (the service sends them)."""
    if (row_id is None) == (not all_failed):
        raise typer.BadParameter("give one row number or --all-failed (not both)")
    setup_logging(False)
    with store(config) as engine, Session(engine) as session, session.begin():
        if row_id is not None:
            row = session.get(Outbound, row_id)
            if row is None or row.state is not OutboundState.FAILED:
                what = "does not exist" if row is None else f"is {row.state.value}, not failed"
                typer.echo(f"outbox row {row_id} {what}: nothing to retry", err=True)
                raise typer.Exit(1)
        done = requeue_failed(session, None if all_failed else [row_id or 0], now())
    for number in done:
        log.warning("outbox row %s put back to queued by the operator (attempts reset)", number)
    typer.echo(f"{len(done)} row(s) queued again" + (f": {', '.join(map(str, done))}" if done else ""))


# -- mailbot status ----------------------------------------------------------------------


def status(
    config: ConfigOption = None,
    as_json: bool = typer.Option(
        False, "--json", help="Print the status as JSON (what GET /health answers)."
    ),
) -> None:
    """Intake, inbound and outbox by state (failed and shunted stand out), stalled work, the next
    deadline, games. Exits 1 when something needs a look ("ok": false), so a health check sees it."""
    from mailbot.services.health.status import gather_status, status_json, status_lines
    from mailbot.store.presence import reader_role

    settings = settings_or_exit(config)
    imap, stall = settings.imap, timedelta(seconds=settings.bot.stall_seconds)
    with store(config) as engine:
        report = gather_status(engine, now(), reader_role(imap.user, imap.mailbox), stall=stall)
    typer.echo(status_json(report) if as_json else "\n".join(status_lines(report)))
    if not report.ok:
        raise typer.Exit(1)
