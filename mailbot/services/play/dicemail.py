# SPDX-License-Identifier: GPL-3.0-or-later
"""CHAIN and REVEAL by mail: a seat's dice chain (``dicechain``, ``core.hashchain``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlmodel import Session

from mailbot.core import deadlines, hashchain
from mailbot.core.commands import Command, CommandSpec, number_of
from mailbot.services.base import chainlog, queries
from mailbot.services.base.dicechain import Links, has_chain, setup_waits
from mailbot.services.inbox.auth import Gatekeeper, Seated
from mailbot.services.inbox.handling import Context, Handler, Reply
from mailbot.store.game_tables import Game, GameStatus, Seat, StepRow, StepState, row_id

DICE_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("CHAIN", "CHAIN <anchor>", "your dice chain's anchor, from verify.py chain (with JOIN)"),
    CommandSpec(
        "REVEAL", "REVEAL <round> <value>", "your dice value for the open step, from verify.py reveal"
    ),
)
JOINED = "chain-with-join"  # ctx.extra: the letter's CHAIN line was handled with its JOIN line


REVEALED = "reveal-with-join"  # ctx.extra: the letter's REVEAL line was handled with its JOIN line
Start = Callable[[Session, Game], None]  # ``Games.start``: the set-up's last reveal rolls it


class DiceChains:
    """CHAIN and REVEAL by mail."""

    def __init__(self, *, gate: Gatekeeper, now: Callable[[], datetime], start: Start) -> None:
        self.gate = gate
        self.now = now
        self.start = start

    def handlers(self) -> dict[str, Handler]:
        return {"CHAIN": self.chain, "REVEAL": self.reveal}

    def chain(self, command: Command, ctx: Context, reply: Reply) -> None:
        if ctx.extra.get(JOINED):  # handled with the JOIN line, before the seat counted
            return
        who = self.gate.player(ctx, reply)
        if who is not None:
            take_anchor(ctx, who, command, reply, self.now())

    def reveal(self, command: Command, ctx: Context, reply: Reply) -> None:
        if ctx.extra.get(REVEALED):  # handled with the JOIN line, once the seat was taken
            return
        who = self.gate.player(ctx, reply)
        if who is not None:
            take_reveal(ctx, who, command, reply, now=self.now(), start=self.start)


def take_reveal(
    ctx: Context, who: Seated, command: Command, reply: Reply, *, now: datetime, start: Start
) -> None:
    """Log a REVEAL for the open step (or the set-up waiting for it); the set-up's last one rolls it."""
    step = _open_step(ctx.session, who.game)
    problem = _reveal(command, ctx, who, step, now)
    if problem:
        reply.problem(command.line, command.text, problem)
        return
    reply.section("Dice", [f"Your REVEAL {command.args[0]} counts for the dice of this step."])
    if step is not None and step.kind == "setup" and not setup_waits(ctx.session, step):
        start(ctx.session, who.game)


def reveal_with_join(
    ctx: Context, game: Game, seat: Seat, reply: Reply, *, now: datetime, start: Start
) -> None:
    """A JOIN letter's REVEAL line, taken once the seat is: the last seat's JOIN closes the
    set-up's anchors, so its round-1 reveal may come in the same letter."""
    command = next((c for c in ctx.reading.commands if c.name == "REVEAL"), None)
    if command is not None:
        ctx.extra[REVEALED] = True
        take_reveal(ctx, Seated(game, seat), command, reply, now=now, start=start)


def _reveal(command: Command, ctx: Context, who: Seated, step: StepRow | None, now: datetime) -> str:
    """Log the seat's value for the step's round; the problem, or "" when it counts."""
    wanted = number_of(command.args[0]) if len(command.args) == 2 else None
    if wanted is None:
        return "write REVEAL <round> <value>, as verify.py reveal prints it"
    value = command.args[1].lower()
    if step is None:
        return _no_step(who.game)
    links = Links.read(ctx.session, step.game_id)
    position, round_ = links.counted_at(step)
    if round_ is None or position < 0 or who.seat.name not in links.anchors(before=position):
        return "your seat has no dice chain for this step (CHAIN counts from the next step)"
    if wanted != round_:
        return f"the open step is round {round_}, not {wanted}"
    closing = step.deadline_at + timedelta(seconds=who.game.grace_seconds)
    if ctx.row.received_at > closing:  # as for orders: the mail server's receipt time decides
        zone = who.seat.timezone or who.game.timezone
        return (
            f"your letter reached the mail server after the deadline ({deadlines.local_time(closing, zone)})"
        )
    known = links.reveals(step).get(who.seat.name)
    if known is not None:
        return "" if known == value else "you revealed another value for this round: it stands"
    last = links.last(who.seat.name, before=position)
    if last is None or not hashchain.links(value, round_, last[1], last[0]):
        return "this value does not link to your chain's anchor (check passphrase, game, seat, round)"
    payload = {
        "step": step.key,
        "attempt": step.attempt,
        "round": round_,
        "seat": who.seat.name,
        "value": value,
        "message_id": ctx.letter.message_id or "",
    }
    chainlog.append(ctx.session, row_id(who.game), "reveal", payload, now)
    return ""


def _no_step(game: Game) -> str:
    if game.status is GameStatus.PAUSED:
        return "the game is paused: no reveal is taken until it goes on (you will be told)"
    if game.status is GameStatus.SETUP:
        # A reveal known before the last seat joins would let that seat choose its chain against it.
        return "the set-up's reveals are taken once every seat has joined: send it when asked"
    return "no step is open: the value was not used"


def take_anchor(ctx: Context, who: Seated, command: Command, reply: Reply, now: datetime) -> None:
    """Log a seat's CHAIN anchor, once; it counts for every step opened after it."""
    anchor = command.args[0].lower() if len(command.args) == 1 else ""
    game_id = row_id(who.game)
    if not hashchain.HEX64.match(anchor):
        reply.problem(
            command.line, command.text, "write CHAIN <anchor>: the 64 hex digits verify.py chain prints"
        )
        return
    if not has_chain(ctx.session, game_id) or who.game.status is GameStatus.FINISHED:
        reply.problem(command.line, command.text, "this game has no dice chains")
        return
    held = Links.read(ctx.session, game_id).anchors().get(who.seat.name)
    if held is not None:
        same = "the same one" if held == anchor else f"{held[:16]}..., not this one"
        reply.problem(command.line, command.text, f"your dice chain is set ({same}); it cannot change")
        return
    payload = {"seat": who.seat.name, "anchor": anchor, "message_id": ctx.letter.message_id or ""}
    chainlog.append(ctx.session, game_id, "dice-chain", payload, now)
    reply.section(
        "Dice chain",
        [
            f"Your anchor {anchor[:16]}... is logged; {_counts_from(who.game)}",
            "With the letter that brings each step's orders, send the line that",
            f"  python3 verify.py reveal {game_id} {who.seat.name} <round>",
            "prints (each report names the round). Keep your passphrase: without it your seat",
            "has no say in the dice, and nobody can make a value up in your name.",
        ],
    )


def _counts_from(game: Game) -> str:
    if game.status is GameStatus.SETUP:
        return "it counts for the set-up: once every seat has joined you are asked for REVEAL 1."
    return "it counts from the next step that opens."


def anchor_with_join(ctx: Context, game: Game, seat: Seat, reply: Reply, now: datetime) -> None:
    """A JOIN letter's CHAIN line, logged before the seat is taken: when the seat is the last,
    the game starts with this letter and its anchor counts for the first step."""
    command = next((c for c in ctx.reading.commands if c.name == "CHAIN"), None)
    if command is not None:
        ctx.extra[JOINED] = True
        take_anchor(ctx, Seated(game, seat), command, reply, now)


def _open_step(session: Session, game: Game) -> StepRow | None:
    """The step a reveal is for: the open one, or the set-up once every seat has joined."""
    if game.status is GameStatus.SETUP:
        setup = queries.setup_step(session, row_id(game))
        if setup is None or setup.state is not StepState.OPEN:
            return None
        return setup if Links.read(session, row_id(game)).counted_at(setup)[0] >= 0 else None
    if game.status is not GameStatus.RUNNING:
        return None
    return queries.open_step(session, row_id(game))
