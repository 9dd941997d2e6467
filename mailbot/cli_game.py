# SPDX-License-Identifier: GPL-3.0-or-later
"""``mailbot game ...``: the game master's commands on the command line.

They work on the database; letters they cause (welcome, announcements) go
into the outbox, which the running service sends within ``bot.outbox_poll_seconds`` (or ``--send`` sends now).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from sqlmodel import Session, col, select

from mailbot.cli_ops import ConfigOption, bot_or_exit, existing_store_or_exit, settings_or_exit, store_name
from mailbot.errors import MailbotError

if TYPE_CHECKING:
    from mailbot.registry import GamePackage
    from mailbot.store.game_tables import Game

game_app = typer.Typer(help="Create games, invite players, and act as game master.", no_args_is_help=True)

SendOption = Annotated[bool, typer.Option("--send", help="Send the resulting letters now.")]
ReasonOption = Annotated[str, typer.Option("--reason", "-r", help="Why (logged and announced).")]


@contextmanager
def _bot(config: Path | None, send: bool = False) -> Iterator[Any]:
    settings = settings_or_exit(config)
    bot = bot_or_exit(settings)  # settings problems first (exit 2)
    existing_store_or_exit(settings)
    bot.upgrade()
    try:
        yield bot
        if send:
            report = asyncio.run(bot.outbox.send_due())
            typer.echo(f"sent {report.sent}, retry later {report.retried}, failed {report.failed}")
    except MailbotError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    finally:
        bot.engine.dispose()


def _in_game(config: Path | None, game_id: int, send: bool, act: Callable[[Any, Session, Any], str]) -> None:
    from mailbot.services.play.gm import GmError
    from mailbot.store.game_tables import Game

    with _bot(config, send) as bot, Session(bot.engine) as session, session.begin():
        game = session.get(Game, game_id)
        if game is None:
            typer.echo(f"no game {game_id}", err=True)
            raise typer.Exit(1)
        try:
            answer = act(bot, session, game)
        except GmError as exc:
            typer.echo(f"refused: {exc}", err=True)
            raise typer.Exit(1) from exc
    # Said once it is done (committed): an answer that cannot be written (a closed pipe) must
    # not undo what the GM did, nor say "done" for what was then rolled back.
    typer.echo(answer)


@game_app.command("create")
def create(
    game: str = typer.Option(
        ..., "--game", help="Game plugin name or alias (duel, wif, atlantic-storm, ...)."
    ),
    scenario: str = typer.Option(
        "",
        "--scenario",
        help="The scenario to play (default: the one the game names, else 'standard'; "
        "flattop: coral-sea). 'game options GAME' names a game's default.",
        show_default=False,
    ),
    title: str = typer.Option(..., "--title"),
    deadline: str = typer.Option(
        ..., "--deadline", help='e.g. "48h", "2026-12-01 20:00", "Mon,Thu 20:00 Europe/Berlin"'
    ),
    timezone: str = typer.Option("UTC", "--timezone"),
    gm: str = typer.Option("", "--gm", help="Game master address (default: bot.gm_address)."),
    grace: str = typer.Option("0m", "--grace", help="Grace after each deadline, e.g. 30m (0 for none)."),
    reminder: list[str] = typer.Option(
        ["12h"], "--reminder", help="Reminder before the deadline (repeatable)."
    ),
    early: str = typer.Option(
        "5m",
        "--early",
        help="Wait after the last orders are in before processing early, e.g. 10s (0: at once).",
    ),
    reveal: str = typer.Option("", "--reveal", help="Dice seeds: 'each-step' or 'end' (default: by game)."),
    anonymous_press: bool = typer.Option(False, "--anonymous-press", help="Allow anonymous PRESS."),
    observers: bool = typer.Option(
        True, "--observers/--no-observers", help="Whether OBSERVE may add readers (public letters only)."
    ),
    require_dkim: bool = typer.Option(False, "--require-dkim", help="Letters need a trusted DKIM pass."),
    vacation_days: int = typer.Option(14, "--vacation-days", min=0, help="Longest VACATION allowed."),
    late_limit: int = typer.Option(2, "--late-limit", min=1, help="Misses in a row before the GM is told."),
    option: list[str] = typer.Option(
        [], "--option", "-o", help="A game option NAME=VALUE (repeatable); 'game options GAME' lists them."
    ),
    config: ConfigOption = None,
) -> None:
    """Create a game; prints its number, the GM secret and each seat's invite code."""
    from mailbot.services.play.games import GameSetup

    if reveal not in ("", "each-step", "end"):
        raise typer.BadParameter("takes each-step or end", param_hint="--reveal")
    grace_wait, early_wait = _delay("--grace", grace), _delay("--early", early)
    if not title.strip():
        raise typer.BadParameter(
            "a game needs a title (its letters' subjects carry it)", param_hint="--title"
        )
    reminders = tuple(dict.fromkeys(_delay("--reminder", text, zero=False) for text in reminder))
    options = _options(option)
    chosen = scenario or _package(game).default_scenario
    with _bot(config) as bot, Session(bot.engine) as session, session.begin():
        setup = GameSetup(
            plugin=game,
            scenario=chosen,
            title=title,
            deadline=deadline,
            timezone=timezone,
            gm_address=gm or bot.settings.bot.gm_address or bot.settings.bot.address,
            reminders=reminders,
            late_limit=late_limit,
            anonymous_press=anonymous_press,
            observers_allowed=observers,
            grace=grace_wait,
            early=early_wait,
            options=options,
        )
        row = bot.games.create(session, setup)
        row.require_dkim, row.vacation_days = require_dkim, vacation_days
        if reveal:
            row.reveal_at_end = reveal == "end"
        session.add(row)
        told = _created(session, row, store_name(bot.settings.store.url), defaulted=not scenario)
        told += [f"note: {line}" for line in bot.games.deadline_notes(row)]
        if reveal == "each-step" and _package(game).game.hidden_information:
            told.append(
                f"note: {row.plugin} hides information; with each step's seed revealed, the players "
                "can work out each other's hidden dice from it (--reveal end keeps them until the end)"
            )
    typer.echo("\n".join(told))  # once committed (see _in_game)


def _created(session: Session, row: Game, store: str, *, defaulted: bool) -> list[str]:
    """What the GM needs from a new game: its tag, its secret and each seat's invite code."""
    from mailbot.services.base import queries
    from mailbot.services.base.tags import tag

    told = [f"game {row.id} created: {tag(row)} {row.title} ({row.plugin}/{row.scenario})"]
    if defaulted:
        told.append(f"scenario: {row.scenario} (the game's default; --scenario plays another)")
    told.append(f"database: {store}")
    told.append(f"GM secret: {row.gm_secret} (GM letters carry [{tag(row)} {row.gm_secret}])")
    for seat in queries.seats(session, int(row.id or 0)):
        join = f"JOIN {row.id} {seat.name} {seat.invite_code}"
        told.append(f"seat {seat.name}: invite code {seat.invite_code}  ({join})")
    return told


def _delay(option: str, text: str, *, zero: bool = True) -> timedelta:
    """A wait from the command line, or a usage error naming the option: never a silent default."""
    from mailbot.core.deadlines import SpecProblem, parse_delay

    value = parse_delay(text)
    if isinstance(value, SpecProblem):
        raise typer.BadParameter(f"{text!r}: {value.reason}", param_hint=option)
    if not value and not zero:
        raise typer.BadParameter(f"{text!r}: must be more than zero", param_hint=option)
    return value


def _options(given: list[str]) -> dict[str, str]:
    """``NAME=VALUE`` pairs as given; the game reads the values (``Games.create``)."""
    options: dict[str, str] = {}
    for pair in given:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise typer.BadParameter(f"{pair!r}: write NAME=VALUE", param_hint="--option")
        if name.strip() in options:
            raise typer.BadParameter(f"{name.strip()!r} is given twice", param_hint="--option")
        options[name.strip()] = value.strip()
    return options


@game_app.command("options")
def game_options(game: str) -> None:
    """The options a game takes: name, values, default and what each does; and its default scenario."""
    from mailbot.services.base.gameoptions import option_specs

    package = _package(game)
    plugin = package.game
    typer.echo(f"{plugin.title} ({plugin.name}): game create --option NAME=VALUE")
    typer.echo(f"  default scenario: {package.default_scenario} (game create --scenario NAME plays another)")
    for option in option_specs(plugin).values():
        typer.echo(f"  {option.describe()}")


def _package(game: str) -> GamePackage:
    """The game package ``game`` names, or the error on standard error and exit 1."""
    from mailbot.registry import find_package

    try:
        return find_package(game)
    except MailbotError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc


@game_app.command("invite")
def invite(
    game_id: int,
    address: str,
    seat: str = typer.Option(..., "--seat"),
    config: ConfigOption = None,
    send: SendOption = False,
) -> None:
    """Give a seat to a player's address; the player gets a welcome letter with a secret."""
    from mailbot.services.base import queries
    from mailbot.services.play.gm import GmError, checked_address

    def act(bot: Any, session: Session, game: Any) -> str:
        row = queries.seat(session, game_id, seat)
        if row is None or row.address:
            raise GmError(f"seat {seat!r} does not exist or is taken")
        player = checked_address(address)
        other = next((s for s in queries.seats(session, game_id) if s.address == player), None)
        if other is not None:
            raise GmError(f"{player} plays {other.name} in this game: one player, one seat")
        bot.games.take_seat(session, game, row, player)
        return f"{player} plays {row.name}"

    _in_game(config, game_id, send, act)


@game_app.command("observe")
def observe(
    game_id: int,
    address: str,
    remove: Annotated[bool, typer.Option("--remove", help="Stop the address observing the game.")] = False,
    config: ConfigOption = None,
    send: SendOption = False,
) -> None:
    """Add an observer (public letters and press to ALL, never a seat's report), or --remove one."""
    from mailbot.services.play import observers
    from mailbot.services.play.gm import GmError, checked_address

    watcher = address.strip().lower()

    def act(bot: Any, session: Session, game: Any) -> str:
        now = bot.clock()
        if not remove:
            checked_address(watcher)
        if remove:
            change = observers.remove(session, game, watcher, by="gm", now=now)
        else:
            change = observers.add(session, game, watcher, by="gm", now=now)
        if change in (observers.Change.FORBIDDEN, observers.Change.FINISHED, observers.Change.PLAYS):
            raise GmError(f"{address} not added: {change.value}")
        if change is observers.Change.ADDED:
            bot.reports.observers.welcome(session, game, watcher)
        return f"{watcher} {change.value}"

    _in_game(config, game_id, send, act)


@game_app.command("list")
def list_games(
    config: ConfigOption = None,
    open_only: Annotated[
        bool, typer.Option("--open", help="Only games open to join, as LIST by mail answers.")
    ] = False,
) -> None:
    """Every game with its status (--open: the games with a free seat, as players see them)."""
    from mailbot.services.base.tags import tag
    from mailbot.services.play.games import Games
    from mailbot.store.game_tables import Game

    with _bot(config) as bot, Session(bot.engine) as session:
        if open_only:
            typer.echo("\n".join(Games.open_to_join(session)) or "no game is open to join")
            return
        for game in session.exec(select(Game).order_by(col(Game.id))):
            typer.echo(f"{game.id:4d} {tag(game):8s} {game.status.value:9s} {game.plugin:15s} {game.title}")


@game_app.command("show")
def show(game_id: int, config: ConfigOption = None) -> None:
    """A game's options, seats, open step, deadline and early processing (the GM's view)."""
    from mailbot.core.options import set_options
    from mailbot.services.base import queries
    from mailbot.services.base.gameoptions import option_specs
    from mailbot.services.play.observers import observers as observer_rows

    def act(bot: Any, session: Session, game: Any) -> str:
        lines = [f"{game.title} ({game.plugin}/{game.scenario}), status {game.status.value}"]
        chosen = set_options(option_specs(queries.plugin(game)), game.options)
        lines.append(f"  options: {', '.join(chosen) or 'as the scenario sets them'}")
        lines.append(f"  deadlines: {bot.games.describe_deadline(game)}; {_waits(game)}")
        for seat in queries.seats(session, game_id):
            lines.append(f"  seat {seat.name:10s} {seat.status.value:9s} {seat.address or '(open)'}")
        watchers = [row.address for row in observer_rows(session, game_id)]
        allowed = "" if game.observers_allowed else " (this game takes no observers)"
        lines.append(f"  observers: {', '.join(watchers) or 'none'}{allowed}")
        lines += bot.mailgame.status_lines(session, game, None)
        return "\n".join(lines)

    _in_game(config, game_id, False, act)


def _waits(game: Any) -> str:
    """The game's grace and reminders, as ``game create`` takes them (early processing is in the
    status lines below)."""
    from mailbot.core.deadlines import delay_text

    reminders = ", ".join(delay_text(timedelta(seconds=s)) for s in game.reminders)
    grace = delay_text(timedelta(seconds=game.grace_seconds)) if game.grace_seconds else "none"
    return f"grace {grace}; " + (f"reminders {reminders} before" if reminders else "no reminders")


@game_app.command("pause")
def pause(
    game_id: int, reason: ReasonOption = "", config: ConfigOption = None, send: SendOption = False
) -> None:
    """Stop the game's deadlines until resume."""
    _in_game(config, game_id, send, lambda bot, s, g: bot.gm.pause(s, g, reason))


@game_app.command("abandon")
def abandon(
    game_id: int, reason: ReasonOption = "", config: ConfigOption = None, send: SendOption = False
) -> None:
    """End the game now with no winner: its open step is void, its log closes and every player is told."""
    _in_game(config, game_id, send, lambda bot, s, g: bot.gm.abandon(s, g, reason))


@game_app.command("resume")
def resume(
    game_id: int, reason: ReasonOption = "", config: ConfigOption = None, send: SendOption = False
) -> None:
    """Go on after a pause (a deadline that passed meanwhile is renewed)."""
    _in_game(config, game_id, send, lambda bot, s, g: bot.gm.resume(s, g, reason))


EXTEND_USAGE = (
    "mailbot game extend GAME [STEP] DURATION, e.g. 'game extend 4 24h' or 'game extend 4 T1.I2 24h'"
)


@game_app.command("extend")
def extend(
    game_id: int,
    words: Annotated[
        list[str],
        typer.Argument(
            metavar="[STEP] DURATION",
            help="How much later (24h, 2d, 1d12h), after the open step's key if you like (T1.I2).",
            show_default=False,
        ),
    ],
    reason: ReasonOption = "",
    config: ConfigOption = None,
    send: SendOption = False,
) -> None:
    """Move the open step's deadline later by a duration: 'extend 4 24h', or name the open step
    too, 'extend 4 T1.I2 24h'."""
    from mailbot.services.play.gm import is_duration, no_duration

    if len(words) == 1 and is_duration(words[0]):  # a refused one ("0h") says why at the extend
        step, duration = "", words[0]
    elif len(words) == 1:
        raise typer.BadParameter(no_duration(words[0], EXTEND_USAGE), param_hint="[STEP] DURATION")
    elif len(words) == 2 and is_duration(words[0]):
        raise typer.BadParameter(
            f"{words[0]!r} is a duration, not a step: {EXTEND_USAGE}", param_hint="[STEP] DURATION"
        )
    elif len(words) == 2:
        step, duration = words
    else:
        raise typer.BadParameter(f"too many words: {EXTEND_USAGE}", param_hint="[STEP] DURATION")
    _in_game(config, game_id, send, lambda bot, s, g: bot.gm.extend(s, g, step, duration, reason))


@game_app.command("force")
def force(
    game_id: int, reason: ReasonOption = "", config: ConfigOption = None, send: SendOption = False
) -> None:
    """Process the open step now."""
    _in_game(config, game_id, send, lambda bot, s, g: bot.gm.force(s, g, reason))


@game_app.command("preview")
def preview(game_id: int, config: ConfigOption = None) -> None:
    """Resolve a copy of the open step and print it; nothing is changed or sent."""
    _in_game(config, game_id, False, lambda bot, s, g: "\n".join(bot.gm.preview(s, g)))


@game_app.command("rollback")
def rollback(
    game_id: int, step: str, reason: ReasonOption = "", config: ConfigOption = None, send: SendOption = False
) -> None:
    """Restore the state before a resolved step and reopen it: its report and every later one are
    void, orders sent for it stand (replaceable), and its dice get a fresh seed."""
    _in_game(config, game_id, send, lambda bot, s, g: bot.gm.rollback(s, g, step, reason))


@game_app.command("replace")
def replace(
    game_id: int,
    seat: str,
    address: str,
    reason: ReasonOption = "",
    config: ConfigOption = None,
    send: SendOption = False,
) -> None:
    """Hand a seat to a new player, who gets the seat's own past reports."""
    _in_game(config, game_id, send, lambda bot, s, g: bot.gm.replace(s, g, seat, address, reason))


@game_app.command("eject")
def eject(
    game_id: int, seat: str, reason: ReasonOption = "", config: ConfigOption = None, send: SendOption = False
) -> None:
    """Remove a player; the seat plays its default orders."""
    _in_game(config, game_id, send, lambda bot, s, g: bot.gm.eject(s, g, seat, reason))
