# SPDX-License-Identifier: GPL-3.0-or-later
"""Ending a game by agreement, as the e-mail judges allow: DRAW, NODRAW and CONCEDE.

A draw needs every active seat: each DRAW is a standing vote (until NODRAW), told to the
other seats so that they can answer it; the letter that brings the last vote ends the game
as drawn. CONCEDE gives the game up: the seat leaves it (as RESIGN does), and when a single
active seat is left, the game ends with that seat the winner. Either way the game ends as a
resolved game does: every seed revealed, "game-finished" in the log, the closing letter to
every seat and a notice to the game master. Votes and concessions are entries of the game's
log, so the archive shows how the game ended.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from mailbot.core.commands import Command, CommandSpec
from mailbot.core.game import Scored
from mailbot.services.base import queries
from mailbot.services.base.tags import tag
from mailbot.services.inbox.auth import Gatekeeper, Seated
from mailbot.services.inbox.handling import Context, Handler, Reply
from mailbot.services.play.games import Games
from mailbot.services.play.reports import Reports
from mailbot.services.play.turns import Turns
from mailbot.services.post.letters import Draft, Postman
from mailbot.store.game_tables import ChainRow, Game, GameStatus, Seat, SeatStatus, row_id

ENDGAME_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("DRAW", "DRAW", "agree to end the game as a draw (every seat must; NODRAW takes it back)"),
    CommandSpec("NODRAW", "NODRAW", "take back your DRAW"),
    CommandSpec("CONCEDE", "CONCEDE", "give the game up: it ends when one seat is left"),
)
_VOTES = ("draw", "nodraw")

log = logging.getLogger(__name__)


class Endgame:
    """The DRAW, NODRAW and CONCEDE handlers."""

    def __init__(
        self,
        *,
        games: Games,
        turns: Turns,
        reports: Reports,
        gate: Gatekeeper,
        postman: Postman,
        clock: Callable[[], datetime],
    ) -> None:
        self.games = games
        self.turns = turns
        self.reports = reports
        self.gate = gate
        self.postman = postman
        self.clock = clock

    def handlers(self) -> dict[str, Handler]:
        return {"DRAW": self.draw, "NODRAW": self.draw, "CONCEDE": self.concede}

    def _running(self, command: Command, ctx: Context, reply: Reply) -> Seated | None:
        who = self.gate.player(ctx, reply)
        if who is None:
            return None
        if who.game.status is not GameStatus.RUNNING or who.seat.status is not SeatStatus.ACTIVE:
            reply.problem(command.line, command.text, f"the game is {who.game.status.value}: nothing to end")
            return None
        return who

    def draw(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self._running(command, ctx, reply)
        if who is None:
            return
        game, seat = who.game, who.seat
        voting = command.name == "DRAW"
        before = draw_votes(ctx.session, row_id(game))
        if (seat.name in before) == voting:
            reply.section(command.name, ["You said so already: nothing changed."])
            return
        queries.note(ctx.session, game, command.name.lower(), {"seat": seat.name}, self.clock())
        votes = before | {seat.name} if voting else before - {seat.name}
        active = _active(ctx.session, game)
        if voting and {s.name for s in active} <= votes:
            self._end(ctx.session, game, "Drawn by agreement of every seat")
            reply.section("DRAW", ["Every seat agreed: the game ends as a draw."])
            return
        told = "proposes a draw: send DRAW to agree" if voting else "takes back the proposal of a draw"
        for other in active:
            if other.name != seat.name:
                self._tell(
                    ctx.session, game, other, "A draw?" if voting else "No draw", [f"{seat.name} {told}."]
                )
        waiting = sorted(s.name for s in active if s.name not in votes)
        reply.section(
            command.name,
            [f"Your vote for a draw stands; the game ends so when {', '.join(waiting)} agree(s)."]
            if voting
            else ["Your vote for a draw is taken back."],
        )

    def concede(self, command: Command, ctx: Context, reply: Reply) -> None:
        who = self._running(command, ctx, reply)
        if who is None:
            return
        game, seat = who.game, who.seat
        seat.status = SeatStatus.RESIGNED
        ctx.session.add(seat)
        queries.note(ctx.session, game, "concede", {"seat": seat.name}, self.clock())
        left = _active(ctx.session, game)
        if len(left) == 1:
            self._end(ctx.session, game, f"{left[0].name} wins: {seat.name} conceded", also=(seat,))
            reply.section("CONCEDE", [f"You conceded; {left[0].name} wins and the game is over."])
            return
        for other in left:
            self._tell(
                ctx.session, game, other, "A seat conceded", [f"{seat.name} conceded and left the game."]
            )
        self.games.mark_early(ctx.session, game)  # the open step no longer waits for the seat
        reply.section("CONCEDE", ["You conceded: your seat plays its default orders from now on."])

    def _end(self, session: Session, game: Game, result: str, *, also: Sequence[Seat] = ()) -> None:
        """The game ends now with ``result``: the log closes and every seat and the GM hear it."""
        self.turns.finish(session, game, result, self.clock())
        told = [result, *_standing(game), "The seeds of every step are revealed."]
        for seat in [*_active(session, game), *also]:
            self._tell(session, game, seat, "Game over", told)
        self.reports.gm(session, game, "Game over", told[:-1])
        self.reports.closing(session, game, also=also)

    def _tell(self, session: Session, game: Game, seat: Seat, title: str, lines: Sequence[str]) -> None:
        letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] {game.title}: {title}")
        self.postman.post(session, letter.section(title, lines), kind="notice", now=self.clock())


def _standing(game: Game) -> list[str]:
    """The score at this end, for a game that tells it (``core.game.Scored``). A game whose score
    fails is logged and ends without it: a plug-in's bug must not keep a seat from conceding."""
    plugin = queries.plugin(game)
    if not isinstance(plugin, Scored):
        return []
    try:
        return list(plugin.standing(plugin.load(game.state)))
    except Exception:
        log.exception("game %s: its score at the end could not be told", game.id)
        return []


def _active(session: Session, game: Game) -> list[Seat]:
    return [s for s in queries.seats(session, row_id(game)) if s.status is SeatStatus.ACTIVE]


def draw_votes(session: Session, game_id: int) -> set[str]:
    """The seats whose DRAW stands (each seat's last DRAW or NODRAW in the log)."""
    query = (
        select(ChainRow.kind, ChainRow.payload)
        .where(ChainRow.game_id == game_id, col(ChainRow.kind).in_(_VOTES))
        .order_by(col(ChainRow.position))
    )
    standing: dict[str, bool] = {}
    for kind, payload in session.exec(query):
        standing[str(payload.get("seat", ""))] = kind == "draw"
    return {seat for seat, voted in standing.items() if voted}
