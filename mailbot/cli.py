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
from mailbot.cli_inbound import inbound_app
from mailbot.cli_oauth2 import oauth2_app
from mailbot.cli_ops import (
    ConfigOption,
    bot_or_exit,
    config_failed,
    existing_store_or_exit,
    outbox_app,
    settings_or_exit,
    setup_logging,
    status,
    store_name,
)
from mailbot.cli_tools import simulate_app
from mailbot.demo.replay import DEFAULT_SEED
from mailbot.envelope.command import envelope
from mailbot.errors import ConfigError, MailbotError, StallError
from mailbot.registry import default_registry
from mailbot.settings import Settings, incomplete

app = typer.Typer(help="mailbot: an e-mail game moderator.", no_args_is_help=True, add_completion=False)
db_app = typer.Typer(help="Database schema commands.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(simulate_app, name="simulate")
app.add_typer(game_app, name="game")
app.add_typer(outbox_app, name="outbox")
app.add_typer(inbound_app, name="inbound")
app.add_typer(oauth2_app, name="oauth2")
app.command("envelope")(envelope)
app.command("status")(status)


@app.command()
def run(
    config: ConfigOption = None,
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Same as --log-level DEBUG."),
    log_level: str = typer.Option("INFO", "--log-level", help="DEBUG, INFO, WARNING or ERROR."),
    log_format: str = typer.Option("text", "--log-format", help="text (one readable line) or json."),
) -> None:
    """Run the moderator service: read the mailbox, answer letters, send the outbox."""
    from mailbot.logsetup import LEVELS, configure

    if log_format not in ("text", "json") or log_level.upper() not in LEVELS:
        raise typer.BadParameter(f"--log-format is text or json; --log-level one of {', '.join(LEVELS)}")
    configure("DEBUG" if verbose else log_level, "json" if log_format == "json" else "text")
    bot = bot_or_exit(settings_or_exit(config))

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await bot.run(stop)

    try:
        asyncio.run(main())
    except StallError as exc:  # the watchdog gave up: exit non-zero for systemd or the container
        typer.echo(f"mailbot: stopped by the watchdog: {exc}", err=True)
        raise typer.Exit(3) from exc


@app.command("check-config")
def check_config(
    path: Annotated[Path | None, typer.Argument(help="Settings file to check (or --config).")] = None,
    config: ConfigOption = None,
    connect: Annotated[
        bool, typer.Option("--connect", help="Also log in to IMAP (selecting the mailbox) and to SMTP.")
    ] = False,
) -> None:
    """Validate settings (file plus environment) and print them, passwords hidden.

    Refuses (exit 1, one line each) what the service cannot run unattended without: IMAP host,
    user and password, the SMTP password when an SMTP user is set, an absolute SQLite path
    and the bot's address. With --connect it then logs in to both servers as the service
    will, and says what failed (exit 1).
    """
    if path is not None and config is not None and path != config:
        raise typer.BadParameter("give the settings file once: as an argument or as --config")
    settings = settings_or_exit(path or config)
    problems = incomplete(settings)
    for problem in problems:
        typer.echo(f"config incomplete: {problem}", err=True)
    if problems:
        raise typer.Exit(1)
    typer.echo(settings.model_dump_json(indent=2))
    if connect:
        _check_connections(settings)
    typer.echo("config ok")


def _check_connections(settings: Settings) -> None:
    from mailbot.connect import imap_config, smtp_config
    from mailbot.mail.probe import try_imap, try_smtp

    async def both() -> tuple[str, str]:
        return await try_imap(imap_config(settings)), await try_smtp(smtp_config(settings))

    imap, smtp = asyncio.run(both())
    for problem in (imap, smtp):
        if problem:
            typer.echo(f"connect failed: {problem}", err=True)
    if imap or smtp:
        raise typer.Exit(1)
    imap_cfg = settings.imap
    typer.echo(f"imap ok: logged in to {imap_cfg.host} as {imap_cfg.user}, {imap_cfg.mailbox} selected")
    smtp_user = f"logged in as {settings.smtp.user}" if settings.smtp.user else "connected (no login set)"
    typer.echo(f"smtp ok: {smtp_user} at {settings.smtp.host}")


@app.command()
def inject(
    message: Path = typer.Argument(..., help="A raw message (.eml) to feed through the pipeline."),
    config: ConfigOption = None,
    send: bool = typer.Option(False, help="Also send the resulting outbox over SMTP."),
    close: bool = typer.Option(
        True,
        help="Close the open step of the sender's games once every seat is in (as the service does "
        "after its short early delay), or say why it stays open.",
    ),
) -> None:
    """Handle one message as if it had arrived over IMAP; print the replies it produced."""
    from email import message_from_bytes
    from email.utils import parseaddr

    from mailbot.cli_inbound import outbox_mark, read_letter, replies_after

    setup_logging(False)
    settings = settings_or_exit(config)
    bot = bot_or_exit(settings)  # settings problems first (exit 2)
    existing_store_or_exit(settings)
    try:
        bot.upgrade()
        raw = read_letter(message)
        mark = outbox_mark(bot.engine)
        if not bot.inject(raw):
            typer.echo("duplicate: this message was stored before; nothing done")
            return
        bot.handle_letters()
        if close:
            sender = parseaddr(str(message_from_bytes(raw).get("From", "")))[1]
            for line in bot.ticker.close_if_all_in(sender):
                typer.echo(line)
        for line in replies_after(bot.engine, mark):
            typer.echo(line)
        if send:
            report = asyncio.run(bot.outbox.send_due())
            typer.echo(f"sent {report.sent}, retry later {report.retried}, failed {report.failed}")
    finally:
        bot.engine.dispose()  # as ``game`` commands do: no PostgreSQL connection outlives it


archive_app = typer.Typer(help="Verifiable game archives.", no_args_is_help=True)
app.add_typer(archive_app, name="archive")


@archive_app.command("export")
def archive_export(
    game: int = typer.Argument(..., help="Game number."),
    out: Path = typer.Option(..., "--out", help="Folder to write the archive into."),
    private: bool = typer.Option(
        False,
        "--private",
        help="Export a game that is not over, as the GM's own backup: that copy holds what the "
        "seats have not seen (every seat's letters and orders, hands, discards); never publish it.",
    ),
    config: ConfigOption = None,
) -> None:
    """Write a game's archive: a site to browse (index.html), mail.mbox, game.json and verify.py.

    Only a finished game's archive is for publishing: it holds no seat secret, and the seeds and
    the referee's view are in it because the game is over. A game not over is refused unless
    --private says the copy is the GM's own: it holds every seat's letters and orders (hands,
    discards) that the other seats have not seen.
    """
    from sqlmodel import Session

    from mailbot.errors import ArchiveError
    from mailbot.render.templates import Renderer
    from mailbot.services.archive.archive import export, not_over
    from mailbot.store import db

    settings = settings_or_exit(config)
    engine = db.make_engine(settings.store.url)
    try:
        with Session(engine) as session:
            running = not_over(session, game)
            if running and not private:
                raise ArchiveError(
                    f"game {game} is {running}: its archive would hold what the seats have not seen "
                    "(every seat's letters and orders, hands, discards), so it is not written; only "
                    "a finished game's archive may be published. For your own backup: "
                    f"mailbot archive export {game} --out {out} --private"
                )
            renderer = Renderer(settings.bot.template_overrides)
            written = export(session, game, out, renderer=renderer, private=bool(running))
    except ArchiveError as exc:  # a folder holding other files: said, nothing written or removed
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    finally:
        engine.dispose()
    typer.echo(f"archive written: {written}")
    if running:
        typer.echo(
            f"warning: game {game} is {running}: this is a PRIVATE copy. It holds what the seats have "
            "not seen (every seat's letters and orders, hands, discards): do not publish it or show "
            "it to a player (its README.txt says so too)"
        )
    typer.echo(f"browse it: {out / 'index.html'} (open it in a browser, or: mailbot archive serve {out})")


@archive_app.command("serve")
def archive_serve(
    folder: Path = typer.Argument(..., help="An exported archive folder (holding index.html)."),
    port: int = typer.Option(8018, "--port", help="Port on 127.0.0.1 (0: any free port)."),
) -> None:
    """Serve an exported archive on http://127.0.0.1:PORT/ until Ctrl-C."""
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    if not (folder / "index.html").is_file():
        typer.echo(f"archive serve: {folder} holds no index.html; export an archive there first", err=True)
        raise typer.Exit(1)
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder))
    with ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        typer.echo(f"serving {folder} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            typer.echo("stopped")


@app.command()
def verify(
    folder: Path = typer.Argument(..., help="An exported archive folder (holding game.json)."),
    letters: Path | None = typer.Option(
        None, "--letters", help="Your own letters (an mbox file, a Maildir or a folder of .eml files)."
    ),
    sent: Path | None = typer.Option(
        None,
        "--sent",
        help="The letters you sent (your Sent folder), with --letters: forged or dropped ones.",
    ),
) -> None:
    """Re-derive every roll, check seals, reports and the event chain (and your letters against it)."""
    from mailbot.verifier.cli import main as verify_main

    extra = ["--letters", str(letters)] if letters is not None else []
    extra += ["--sent", str(sent)] if sent is not None else []
    raise typer.Exit(verify_main(["verify", str(folder), *extra]))


@db_app.command("upgrade")
def db_upgrade(config: ConfigOption = None) -> None:
    """Create or migrate the database schema to the newest version."""
    from mailbot.store import db

    settings = settings_or_exit(config)
    engine = db.make_engine(settings.store.url)
    try:
        before = db.current_revision(engine)
        db.upgrade(engine)
    finally:
        engine.dispose()  # a PostgreSQL connection left open would outlive the command
    done = {None: "created", db.head_revision(): "already at the newest schema"}.get(
        before, "brought to the newest schema"
    )
    typer.echo(f"database {done}: {store_name(settings.store.url)}")


@app.command("check-game")
def check_game(
    package: str = typer.Argument(..., help="A game's name as installed, or its package's module path."),
    examples: int = typer.Option(50, help="Pairs of twin worlds the no-leak harness compares."),
    mypy: bool = typer.Option(
        True, help="Type-check the package with mypy --strict against mailbot's types."
    ),
) -> None:
    """Run the checks every game must pass on an installed package: the plugin contract, the
    no-leak harness over the twin worlds it ships (worlds.py) and mypy --strict. Exit 1 on a failure."""
    from mailbot.testing import kit  # test tooling: loaded only for this command

    try:
        found, registry = kit.find(package)
    except MailbotError as exc:  # no such game or module, or not a game package
        typer.echo(f"check-game: {exc}", err=True)
        raise typer.Exit(2) from exc
    # Which package is checked, said first: a name may be a game's or a module path's.
    typer.echo(f"check-game: {found.name} is {found.module}, from {kit.source_of(found)}")
    results = kit.checks(found, registry, examples=examples, mypy=mypy)
    for result in results:
        typer.echo(result.line())
    failed = sum(1 for result in results if not result.passed)
    typer.echo(f"check-game {found.name}: {len(results) - failed} ok, {failed} failed")
    raise typer.Exit(1 if failed else 0)


@app.command()
def demo(
    game: str = typer.Option(
        "duel", help="Which game: any installed game with a demo script (--list names them)."
    ),
    listed: bool = typer.Option(False, "--list", help="List the installed games that have a demo, and stop."),
    archive: Path | None = typer.Option(
        None, help="Export the finished game's archive here (else into the work folder's archive/)."
    ),
    workdir: Path | None = typer.Option(
        None,
        help="Keep the demo's database, its mailboxes (mail/<address>.mbox), its letters"
        " (letters/<address>/) and the game's archive (archive/) here.",
    ),
    scenario: str | None = typer.Option(None, help="Play this scenario instead of the demo's own."),
    seed: str = typer.Option(
        DEFAULT_SEED,
        help="The demo seed: the same seed replays the same game (dice and letters); 'random' plays a"
        " fresh one.",
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v"),
) -> None:
    """Play a whole game by e-mail over an embedded local mail server (no accounts needed).

    Prints the summary line on stdout (and, for a game that counts its battles, a ``battles:``
    line), then on stderr one line per mailbox kept as mbox, where the letters are kept one file
    each, and how to open the game's archive.
    """
    from mailbot.demo.run import play_demo

    if listed:  # built-in and installed packages alike: the registry finds both
        for package in default_registry():
            if package.demo is not None:
                typer.echo(f"{package.name}: {package.game.title}")
        return
    setup_logging(verbose)
    logging.getLogger().setLevel(logging.DEBUG if verbose else logging.WARNING)
    try:
        result = asyncio.run(
            play_demo(game=game, archive=archive, workdir=workdir, scenario=scenario, seed=seed)
        )
    except MailbotError as exc:
        typer.echo(f"demo failed: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(result.summary)
    if result.battles:
        typer.echo(result.battles)
    # stderr: stdout stays the summary (and battles) lines that scripts and tests read
    for kept in result.mailboxes:
        typer.echo(kept.line(), err=True)
    for line in result.where():
        typer.echo(line, err=True)


def main() -> None:
    try:
        app()
    except ConfigError as exc:  # e.g. a password_file that cannot be read, met after loading
        raise SystemExit(config_failed(exc).exit_code) from exc
