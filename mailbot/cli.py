# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``mailbot`` command line (typer)."""

from __future__ import annotations

import asyncio
import logging
import signal
from pathlib import Path
from typing import Annotated

import typer

from mailbot.cli_game import game_app
from mailbot.cli_tools import envelope, simulate_app
from mailbot.errors import ConfigError, MailbotError
from mailbot.settings import Settings, load_settings

app = typer.Typer(help="mailbot: an e-mail game moderator.", no_args_is_help=True, add_completion=False)
db_app = typer.Typer(help="Database schema commands.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(simulate_app, name="simulate")
app.add_typer(game_app, name="game")
app.command("envelope")(envelope)

ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="Settings file (TOML); MAILBOT_* environment variables override it."),
]


def _setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # aioimaplib logs every protocol line at DEBUG, passwords included: keep it quiet.
    logging.getLogger("aioimaplib").setLevel(logging.WARNING)


def _settings(path: Path | None) -> Settings:
    try:
        return load_settings(path)
    except ConfigError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc


@app.command()
def run(config: ConfigOption = None, verbose: bool = typer.Option(False, "--verbose", "-v")) -> None:
    """Run the moderator service: read the mailbox, answer letters, send the outbox."""
    from mailbot.app import Bot

    _setup_logging(verbose)
    bot = Bot(_settings(config))

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await bot.run(stop)

    asyncio.run(main())


@app.command("check-config")
def check_config(path: Path = typer.Argument(..., help="Settings file to check.")) -> None:
    """Validate a settings file (with environment overrides) and print it, passwords hidden."""
    settings = _settings(path)
    typer.echo(settings.model_dump_json(indent=2))
    typer.echo("config ok")


@app.command()
def inject(
    message: Path = typer.Argument(..., help="A raw message (.eml) to feed through the pipeline."),
    config: ConfigOption = None,
    send: bool = typer.Option(False, help="Also send the resulting outbox over SMTP."),
) -> None:
    """Handle one message as if it had arrived over IMAP; print the replies it produced."""
    from mailbot.app import Bot
    from mailbot.store.inspect import recent_outbound

    _setup_logging(False)
    bot = Bot(_settings(config))
    bot.upgrade()
    stored = bot.inject(message.read_bytes())
    if not stored:
        typer.echo("duplicate: this message was stored before; nothing done")
        return
    bot.processor.process_pending()
    for line in recent_outbound(bot.engine):
        typer.echo(line)
    if send:
        report = asyncio.run(bot.outbox.send_due())
        typer.echo(f"sent {report.sent}, retry later {report.retried}, failed {report.failed}")


archive_app = typer.Typer(help="Verifiable game archives.", no_args_is_help=True)
app.add_typer(archive_app, name="archive")


@archive_app.command("export")
def archive_export(
    game: int = typer.Argument(..., help="Game number."),
    out: Path = typer.Option(..., "--out", help="Folder to write game.json and verify.py into."),
    config: ConfigOption = None,
) -> None:
    """Write a game's archive: steps, commitments, revealed seeds, orders, rolls, the event chain."""
    from sqlmodel import Session

    from mailbot.services.archive import export
    from mailbot.store import db

    engine = db.make_engine(_settings(config).store.url)
    with Session(engine) as session:
        typer.echo(f"archive written: {export(session, game, out)}")
    engine.dispose()


@app.command()
def verify(
    folder: Path = typer.Argument(..., help="An exported archive folder (holding game.json)."),
) -> None:
    """Re-derive every roll from the revealed seeds and archived orders; check the event chain."""
    from mailbot.verify_archive import main as verify_main

    raise typer.Exit(verify_main(["verify", str(folder)]))


@db_app.command("upgrade")
def db_upgrade(config: ConfigOption = None) -> None:
    """Create or migrate the database schema to the newest version."""
    from mailbot.store import db

    settings = _settings(config)
    db.upgrade(db.make_engine(settings.store.url))
    typer.echo("database at the newest schema")


@app.command()
def demo(
    game: str = typer.Option("duel", help="Which game: duel, wif, atlantic-storm, salt-n-tar, flattop."),
    archive: Path | None = typer.Option(None, help="Export the finished game's archive here."),
    workdir: Path | None = typer.Option(None, help="Keep the demo's database and logs here."),
    verbose: bool = typer.Option(False, "--verbose", "-v"),
) -> None:
    """Play a whole game by e-mail over an embedded local mail server (no accounts needed)."""
    from mailbot.demo.run import run_demo

    _setup_logging(verbose)
    logging.getLogger().setLevel(logging.DEBUG if verbose else logging.WARNING)
    try:
        summary = asyncio.run(run_demo(game=game, archive=archive, workdir=workdir))
    except MailbotError as exc:
        typer.echo(f"demo failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(summary)


def main() -> None:
    app()
