# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot inbound ...``: the stored letters, and parked (shunted) letters handed back; and what
``mailbot inject`` reads and prints: the letter's file, and only the replies handling it made."""

from __future__ import annotations

from pathlib import Path

import typer
from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from mailbot.cli_ops import ConfigOption, setup_logging, store
from mailbot.store.inspect import text_part
from mailbot.store.models import InboundState, Outbound

inbound_app = typer.Typer(
    help="Look at stored letters and hand parked (shunted) ones back to the service.", no_args_is_help=True
)


def _state(name: str | None) -> InboundState | None:
    if name is None:
        return None
    try:
        return InboundState(name.lower())
    except ValueError:
        names = ", ".join(state.value for state in InboundState)
        raise typer.BadParameter(f"{name!r}: one of {names}", param_hint="--state") from None


@inbound_app.command("list")
def inbound_list(
    state: str | None = typer.Option(
        None, "--state", help="Only letters in this state: new, processed, ignored, shunted."
    ),
    limit: int = typer.Option(50, "--limit", min=1, help="At most this many letters, newest first."),
    config: ConfigOption = None,
) -> None:
    """Stored letters, newest first: number, state, received, sender, subject, and why (shunted, ignored)."""
    from mailbot.services.inbox.parked import stored_letters

    wanted = _state(state)
    with store(config) as engine, Session(engine) as session:
        rows = stored_letters(session, wanted, limit)
    for row in rows:
        why = f"  [{row.reason}]" if row.reason else ""
        typer.echo(
            f"{row.id:6d} {row.state.value:9s} {row.received_at:%Y-%m-%d %H:%M:%S}  "
            f"{row.sender or '-'}  {row.subject[:60]}{why}"
        )
    typer.echo(f"{len(rows)} letter(s)" + (f" in state {wanted.value}" if wanted else ""))


@inbound_app.command("retry")
def inbound_retry(
    letter_id: int | None = typer.Argument(None, metavar="[ID]", help="The shunted letter to handle again."),
    all_shunted: bool = typer.Option(False, "--all-shunted", help="Every shunted letter."),
    config: ConfigOption = None,
) -> None:
    """Hand shunted letters back: the running service handles them as if just arrived (a letter
    answered already is not handed back). Fix what parked them first (see `inbound list`)."""
    from mailbot.services.inbox.parked import hand_back, shunted_ids

    if (letter_id is None) == (not all_shunted):
        raise typer.BadParameter("give one letter number or --all-shunted (not both)")
    setup_logging(False)
    with store(config) as engine, Session(engine) as session, session.begin():
        ids = shunted_ids(session) if all_shunted else [letter_id or 0]
        results = hand_back(session, ids)
    for result in results:
        if not result.queued:
            typer.echo(f"letter {result.inbound_id} {result.outcome}", err=True)
    queued = [str(result.inbound_id) for result in results if result.queued]
    typer.echo(f"{len(queued)} letter(s) handed back" + (f": {', '.join(queued)}" if queued else ""))
    if letter_id is not None and not queued:
        raise typer.Exit(1)


# -- mailbot inject ------------------------------------------------------------------------------


def read_letter(path: Path) -> bytes:
    """The raw letter ``inject`` feeds in. A file that cannot be read is said in one line, and
    the command ends with exit 2 as for a bad argument: a traceback tells a GM nothing."""
    try:
        return path.read_bytes()
    except OSError as exc:
        typer.echo(f"mailbot: cannot read {path}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from exc


def outbox_mark(engine: Engine) -> int:
    """The newest outbox row's number now (0: none): what handling one letter writes comes after."""
    with Session(engine) as session:
        newest: int | None = session.exec(select(func.max(Outbound.id))).one()
    return newest or 0


def replies_after(engine: Engine, mark: int) -> list[str]:
    """The outbox rows written after ``mark`` (:func:`outbox_mark`), oldest first, each as its
    state, recipient and subject, then its text part: the replies and reports one letter made,
    not every letter still waiting in the outbox."""
    query = select(Outbound).where(col(Outbound.id) > mark).order_by(col(Outbound.id))
    with Session(engine) as session:
        rows = session.exec(query).all()
    lines: list[str] = []
    for row in rows:
        lines.append(f"--- outbox #{row.id} [{row.state.value}] to {row.recipient}: {row.subject}")
        lines.append(text_part(row.raw))
    return lines
