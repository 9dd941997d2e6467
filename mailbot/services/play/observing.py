# SPDX-License-Identifier: GPL-3.0-or-later
"""OBSERVE and UNOBSERVE by mail, from any address (``observers`` says what an observer gets).

Anyone may ask: the judges' observers need no invitation. A stranger learns no more than
LIST tells anyone (a game's number, tag and title): games are numbered in the open, so a
number that names no game is told so, and a game that takes no observers, or is over,
says that.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from mailbot.core.commands import OBSERVER_COMMANDS, Command, game_reference
from mailbot.services.base.tags import tag
from mailbot.services.inbox.handling import Context, Handler, Reply
from mailbot.services.play import observers
from mailbot.services.play.observers import Change, ObserverLetters
from mailbot.store.game_tables import Game

__all__ = ["OBSERVER_COMMANDS", "Observing"]


class Observing:
    """The OBSERVE and UNOBSERVE handlers."""

    def __init__(self, *, letters: ObserverLetters, clock: Callable[[], datetime]) -> None:
        self.letters = letters
        self.clock = clock

    def handlers(self) -> dict[str, Handler]:
        return {"OBSERVE": self.observe, "UNOBSERVE": self.unobserve}

    @staticmethod
    def _game(command: Command, ctx: Context, reply: Reply) -> Game | None:
        number = game_reference(command.args[0]) if len(command.args) == 1 else None
        if number is None:
            reply.problem(
                command.line, command.text, f"write {command.name} <game number>, e.g. {command.name} 3"
            )
            return None
        game = ctx.session.get(Game, number)
        if game is None:
            reply.problem(command.line, command.text, "no game has that number; LIST shows the games")
        return game

    def observe(self, command: Command, ctx: Context, reply: Reply) -> None:
        game = self._game(command, ctx, reply)
        if game is None:
            return
        address = ctx.letter.sender.lower()
        change = observers.add(ctx.session, game, address, by="mail", now=self.clock())
        if change in (Change.FORBIDDEN, Change.FINISHED, Change.PLAYS):
            reply.problem(command.line, command.text, f"{tag(game)}: {change.value}; nothing changed")
            return
        if change is Change.ALREADY:
            reply.section("OBSERVE", [f"You observe {game.title} ({tag(game)}) already: nothing changed."])
            return
        self.letters.welcome(ctx.session, game, address)
        reply.section(
            "OBSERVE",
            [f"You now observe {game.title} ({tag(game)}); a letter saying what you will get follows."],
        )

    def unobserve(self, command: Command, ctx: Context, reply: Reply) -> None:
        game = self._game(command, ctx, reply)
        if game is None:
            return
        change = observers.remove(ctx.session, game, ctx.letter.sender, by="mail", now=self.clock())
        if change is Change.NOT_OBSERVING:
            reply.section("UNOBSERVE", [f"You did not observe {tag(game)}: nothing changed."])
            return
        reply.section(
            "UNOBSERVE", [f"You no longer observe {game.title} ({tag(game)}); no more letters of it."]
        )
