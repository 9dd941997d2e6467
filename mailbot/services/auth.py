# SPDX-License-Identifier: GPL-3.0-or-later
"""Who is writing: a letter counts for a seat only from its address, with its secret.

The secret travels in the subject tag ``[DU-3 k7Q2]`` (replies keep it) or a
``SECRET`` line; where a game requires it, the sender's domain must also pass
DKIM according to our own receiving server. A letter that fails is refused to
the *registered* address, without any game content; a stranger gets the plain
help and learns nothing about any game.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from mailbot.services.games import Games
from mailbot.services.inbound import Context, Reply
from mailbot.services.letters import Letter, Postman
from mailbot.store.game_tables import Game, Seat, row_id

TAG = re.compile(r"\[([A-Za-z]{2})-(\d+)\s+([A-Za-z0-9]+)(?:\s+[^\]]*)?\]")


@dataclass(frozen=True)
class Who:
    game: Game
    seat: Seat | None  # None for the game master
    gm: bool = False


@dataclass(frozen=True)
class Seated:
    """An authenticated player: the game and the seat the letter counts for."""

    game: Game
    seat: Seat


class Gatekeeper:
    """Authenticates letters for games; the verdict is worked out once per letter."""

    def __init__(
        self, *, games: Games, postman: Postman, clock: Callable[[], datetime], authserv_id: str = ""
    ) -> None:
        self.games = games
        self.postman = postman
        self.clock = clock
        self.authserv_id = authserv_id  # the receiving server whose DKIM verdicts we trust

    def identify(self, ctx: Context, reply: Reply) -> Who | None:
        """The authenticated writer, or None (refusals are written as a side effect, once)."""
        if "who" not in ctx.extra:
            ctx.extra["who"] = self._identify(ctx, reply)
        who: Who | None = ctx.extra["who"]
        return who

    def _identify(self, ctx: Context, reply: Reply) -> Who | None:
        game_id, secret = self._credentials(ctx)
        sender = ctx.letter.sender.lower()
        game = ctx.session.get(Game, game_id) if game_id is not None else self._only_game(ctx.session, sender)
        if game is None:
            return self._stranger(reply)
        if same_secret(secret, game.gm_secret):
            if sender == game.gm_address.lower():
                return Who(game, None, gm=True)
            return self._refuse(
                ctx, reply, game, game.gm_address, "it came from another address than the GM's"
            )
        seat = next(
            (s for s in Games.seats(ctx.session, self._gid(game)) if same_secret(secret, s.secret)), None
        )
        if seat is None:
            own = next((s for s in Games.seats(ctx.session, self._gid(game)) if s.address == sender), None)
            if own is None:
                return self._stranger(reply)
            why = "it carried no secret" if not secret else "the secret was wrong"
            return self._refuse(ctx, reply, game, own.address, why)
        if seat.address != sender:
            return self._refuse(ctx, reply, game, seat.address, "it came from another address than yours")
        if game.require_dkim and not dkim_passed(
            ctx.letter.headers.get("Authentication-Results", ""), sender, self.authserv_id
        ):
            return self._refuse(ctx, reply, game, seat.address, "its DKIM signature did not verify")
        self.games.note(ctx.session, game, "letter", {"seat": seat.name, "message": self._fingerprint(ctx)})
        return Who(game, seat)

    @staticmethod
    def _fingerprint(ctx: Context) -> str:
        """The accepted letter, as its content hash: provable later, readable by nobody."""
        return ctx.row.content_hash

    @staticmethod
    def _credentials(ctx: Context) -> tuple[int | None, str]:
        found = TAG.search(ctx.letter.subject)
        if found:
            return int(found.group(2)), found.group(3)
        commands = {c.name: c.args for c in ctx.reading.commands}
        secret = commands.get("SECRET", ("",))[0] if commands.get("SECRET") else ""
        game = commands.get("GAME", ())
        game_id = int(game[0]) if game and game[0].isdigit() else None
        return game_id, secret

    @staticmethod
    def _only_game(session: Session, sender: str) -> Game | None:
        seats = session.exec(select(Seat).where(Seat.address == sender)).all()
        games = {s.game_id for s in seats}
        return session.get(Game, games.pop()) if len(games) == 1 else None

    def _stranger(self, reply: Reply) -> Who | None:
        reply.section(
            "You are not playing in a game here",
            [
                "This address is not registered for any game, or the letter did not say which.",
                "If you were invited, send: JOIN <game> <seat> <invite code>.",
                "Players: keep the [tag] of your welcome letter in the subject, or add a SECRET line.",
            ],
        )
        return None

    def _refuse(self, ctx: Context, reply: Reply, game: Game, registered: str, why: str) -> Who | None:
        """Tell the registered address, never the sender if it is someone else; no game content."""
        lines = [
            f"A letter signed for your seat was refused because {why}.",
            f"It came from: {ctx.letter.sender}; subject: {ctx.letter.subject[:80]}",
            "Nothing in the game was changed.",
        ]
        if registered.lower() == ctx.letter.sender.lower():
            reply.section("Your letter was refused", lines)
        else:
            letter = Letter(registered, "A letter in your name was refused").section("Letter refused", lines)
            self.postman.post(ctx.session, letter, kind="refusal", now=self.clock())
            self._stranger(reply)
        return None

    @staticmethod
    def _gid(game: Game) -> int:
        return row_id(game)

    def player(self, ctx: Context, reply: Reply) -> Seated | None:
        who = self.identify(ctx, reply)
        return Seated(who.game, who.seat) if who is not None and who.seat is not None else None

    # -- commands -----------------------------------------------------------------


def same_secret(given: str, stored: str) -> bool:
    """Compare a secret from a letter in constant time (no timing hint about its prefix).

    Both sides are compared as UTF-8 bytes: ``compare_digest`` refuses non-ASCII ``str``,
    and a letter may carry anything. An empty secret never matches.
    """
    if not given or not stored:
        return False
    return hmac.compare_digest(
        given.encode("utf-8", "surrogatepass"), stored.encode("utf-8", "surrogatepass")
    )


def dkim_passed(results: str, sender: str, authserv_id: str) -> bool:
    """Trust only our own receiving server's Authentication-Results: dkim=pass for the sender's domain.

    Anyone can write an Authentication-Results header into a letter, so only a
    header whose authserv-id is the configured one counts (RFC 8601 section 5);
    with none configured, DKIM cannot be confirmed and the letter is refused.
    """
    if not authserv_id or not results.strip().lower().startswith(authserv_id.lower()):
        return False
    domain = sender.rpartition("@")[2].lower()
    for clause in results.lower().split(";")[1:]:
        words = clause.split()
        if "dkim=pass" in words and any(w in (f"header.d={domain}", f"header.i=@{domain}") for w in words):
            return True
    return False
