# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot inbound ...``: the stored letters, and parked (shunted) letters handed back."""

from __future__ import annotations

import typer
from sqlmodel import Session

from mailbot.cli_ops import ConfigOption, setup_logging, store
from mailbot.store.models import InboundState

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
