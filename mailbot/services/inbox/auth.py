# SPDX-License-Identifier: GPL-3.0-or-later
"""Who is writing: a letter counts for a seat only from its address, with its secret.

The secret travels in the subject tag ``[DU-3 k7Q2]`` (replies keep it) or a
``SECRET`` line; a reply to a letter the bot sent to the same address counts
too, since that letter's Message-ID (122 random bits, ``app.new_message_id``)
went only to that address, like the secret (an archive shows a stand-in for
each, never the id: ``archive_letters.Redactor``). Where a game requires it, the
sender's domain must also pass DKIM according to our own receiving server. A letter that fails is refused to
the *registered* address, without any game content; a stranger gets the plain
help and learns nothing about any game.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, func, select

from mailbot.core.commands import number_of, visible
from mailbot.services.base import queries
from mailbot.services.base.claims import try_games
from mailbot.services.base.tags import TAG, tag
from mailbot.services.base.transactions import holds_write_lock, shelf
from mailbot.services.inbox.handling import Context, Reply
from mailbot.services.inbox.thread import Answered
from mailbot.services.post import throttle
from mailbot.services.post.letters import Draft, Postman
from mailbot.services.post.outbox import Thread
from mailbot.services.post.throttle import Limits, Verdict, admit, silent_until
from mailbot.store.game_tables import Game, Seat, row_id
from mailbot.store.models import AnswerCount, Inbound, InboundState

log = logging.getLogger(__name__)
#: the loop breaker's key for the refusals sent to one seat's address (beside its own answers)
REFUSALS = "refusals:"
ADDRESS_CHARS = 320  # the counter's key column


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
        self,
        *,
        postman: Postman,
        clock: Callable[[], datetime],
        authserv_id: str = "",
        limits: Limits | None = None,
    ) -> None:
        self.postman = postman
        self.clock = clock
        self.authserv_id = authserv_id  # the receiving server whose DKIM verdicts we trust
        self.limits = limits or Limits()  # refusals an hour to one seat's address (the loop breaker)

    def identify(self, ctx: Context, reply: Reply) -> Who | None:
        """The authenticated writer, or None (refusals are written as a side effect, once)."""
        if "who" not in ctx.extra:
            read_ahead(ctx.session)
            who = self._identify(ctx, reply)
            ctx.extra["who"] = who
            if who is not None:  # the reply keeps the tag and is known by its thread
                secret = who.seat.secret if who.seat is not None else "GM"
                ctx.extra["tag"] = f"[{tag(who.game)} {secret}]"
                ctx.extra["thread"] = Thread(row_id(who.game), who.seat.name if who.seat else "")
        found: Who | None = ctx.extra["who"]
        return found

    def _identify(self, ctx: Context, reply: Reply) -> Who | None:
        game_id, secret = self._credentials(ctx)
        sender = ctx.letter.sender.lower()
        game = ctx.session.get(Game, game_id) if game_id is not None else None
        # The game's seats, read once for every check below (each read is a query where a
        # transaction keeps nothing: PostgreSQL); a letter with the GM's secret needs none.
        seats = self._seats(ctx.session, game, secret)
        if not self._holds_secret(game, seats, secret):
            threaded = self._from_thread(ctx, reply, game_id)
            if not isinstance(threaded, bool):
                return threaded
        if game is None and game_id is None:
            game = self._only_game(ctx.session, sender)
            seats = self._seats(ctx.session, game, secret)
        if game is None and game_id is not None:
            return self._not_in(ctx, reply, game_id)  # as for a game that is not his: the same words
        if game is None:
            return self._stranger(reply, self._games_of(ctx.session, sender))
        if same_secret(secret, game.gm_secret):
            if sender == game.gm_address.lower():
                return Who(game, None, gm=True)
            return self._refuse(
                ctx, reply, game, game.gm_address, "it came from another address than the GM's"
            )
        seat = next((s for s in seats if same_secret(secret, s.secret)), None)
        if seat is None:
            own = next((s for s in seats if s.address == sender), None)
            if own is None and sender == game.gm_address.lower() and secret:
                # Told only to the game's own GM address: its owner knows he runs the game.
                return self._refuse(ctx, reply, game, game.gm_address, "the GM secret was wrong")
            if own is None:
                return self._not_in(ctx, reply, self._gid(game))
            why = "it carried no secret" if not secret else "the secret was wrong"
            return self._refuse(ctx, reply, game, own.address, why)
        if seat.address != sender:
            return self._refuse(ctx, reply, game, seat.address, "it came from another address than yours")
        return self._seated(ctx, reply, game, seat)

    def _seated(self, ctx: Context, reply: Reply, game: Game, seat: Seat) -> Who | None:
        """The last checks for a letter from the seat's address: DKIM where required; then log it."""
        if game.require_dkim and not dkim_passed(
            ctx.letter.headers.get("Authentication-Results", ""), seat.address, self.authserv_id
        ):
            return self._refuse(ctx, reply, game, seat.address, "its DKIM signature did not verify")
        queries.note(
            ctx.session, game, "letter", {"seat": seat.name, "message": self._fingerprint(ctx)}, self.clock()
        )
        return Who(game, seat)

    def _seats(self, session: Session, game: Game | None, secret: str) -> list[Seat]:
        """The game's seats; none for no game or the GM's secret (nothing then looks at them)."""
        if game is None or same_secret(secret, game.gm_secret):
            return []
        return queries.seats(session, self._gid(game))

    @staticmethod
    def _holds_secret(game: Game | None, seats: Sequence[Seat], secret: str) -> bool:
        if game is None or not secret:
            return False
        return same_secret(secret, game.gm_secret) or any(same_secret(secret, s.secret) for s in seats)

    def _from_thread(self, ctx: Context, reply: Reply, game_id: int | None) -> Who | bool | None:
        """The writer known by the thread: a reply to a letter the bot sent to this very address.

        The letter's Message-ID went only to the seat's (or the GM's) address, so a reply
        naming it from that address counts like the secret (DKIM still applies where
        required). False when the thread names nobody.
        """
        sender = ctx.letter.sender.lower()
        answered: Sequence[Answered] = ctx.extra.get("answered", ())
        for item in answered:
            if item.game_id is None or item.recipient.lower() != sender:
                continue
            if game_id is not None and item.game_id != game_id:
                continue
            game = ctx.session.get(Game, item.game_id)
            if game is None:
                continue
            if not item.seat and game.gm_address.lower() == sender:
                return Who(game, None, gm=True)
            seat = queries.seat(ctx.session, item.game_id, item.seat) if item.seat else None
            if seat is not None and seat.address == sender:
                return self._seated(ctx, reply, game, seat)
        return False

    @staticmethod
    def _fingerprint(ctx: Context) -> str:
        """The accepted letter, as its content hash: provable later, readable by nobody."""
        return ctx.row.content_hash

    @staticmethod
    def _credentials(ctx: Context) -> tuple[int | None, str]:
        found = TAG.search(ctx.letter.subject)
        if found:
            # "[DU-3 GM]" of a GM notice names the game, not a secret: the thread tells who.
            return int(found.group(2)), "" if found.group(3) == "GM" else found.group(3)
        commands = {c.name: c.args for c in ctx.reading.commands}
        secret = commands.get("SECRET", ("",))[0] if commands.get("SECRET") else ""
        game = commands.get("GAME", ())
        game_id = number_of(game[0]) if game else None
        return game_id, secret

    @staticmethod
    def _only_game(session: Session, sender: str) -> Game | None:
        seats = session.exec(select(Seat).where(Seat.address == sender)).all()
        games = {s.game_id for s in seats}
        return session.get(Game, games.pop()) if len(games) == 1 else None

    @staticmethod
    def _games_listed(session: Session, sender: str) -> list[str]:
        """The games ``sender`` plays or runs, one line each: tag, title, status, seat."""
        seats = session.exec(select(Seat).where(Seat.address == sender)).all()
        runs = session.exec(select(Game).where(func.lower(Game.gm_address) == sender)).all()
        roles = [(session.get_one(Game, s.game_id), f"seat {s.name} ({s.status.value})") for s in seats]
        roles += [(game, "game master") for game in runs]
        roles.sort(key=lambda role: row_id(role[0]))
        return [f"{tag(game)} {game.title} ({game.status.value}): {role}" for game, role in roles]

    @staticmethod
    def _games_of(session: Session, sender: str) -> int:
        return len({s.game_id for s in session.exec(select(Seat).where(Seat.address == sender)).all()})

    def _stranger(self, reply: Reply, games: int = 0) -> Who | None:
        if games > 1:  # told only to this address: its owner may know that it plays here
            reply.section(
                "Which game is this letter for?",
                [
                    "This address plays in more than one game here, and the letter did not say which.",
                    "Reply to one of the moderator's letters of that game, keep its [tag] in the",
                    "subject, or add the lines GAME <number> and SECRET <your secret>.",
                ],
            )
            return None
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
            f"A letter signed in your name was refused because {why}.",
            # Shown by name: a forger's right-to-left override must not reorder the seat's letter.
            f"It came from: {visible(ctx.letter.sender)}; subject: {visible(ctx.letter.subject[:80])}",
            "Nothing in the game was changed.",
        ]
        if registered.lower() == ctx.letter.sender.lower():
            reply.section("Your letter was refused", lines)
        else:
            self._tell_refused(ctx, registered, lines)
            self._not_yours(ctx, reply, game)
        return None

    def _not_yours(self, ctx: Context, reply: Reply, game: Game) -> None:
        """The writer of a letter signed with a secret that is not his (another seat's, the GM's):
        told what a wrong secret tells him, so that a secret he guessed right is not confirmed."""
        sender = ctx.letter.sender.lower()
        own = next((s for s in queries.seats(ctx.session, self._gid(game)) if s.address == sender), None)
        if own is not None:
            self._refuse(ctx, reply, game, own.address, "the secret was wrong")
        elif sender == game.gm_address.lower():
            self._refuse(ctx, reply, game, game.gm_address, "the GM secret was wrong")
        else:
            self._not_in(ctx, reply, self._gid(game))

    def _not_in(self, ctx: Context, reply: Reply, game_id: int) -> Who | None:
        """A letter naming game ``game_id``, in which its address holds no seat (or no such game):
        the games the address does play, told only to it, the same whether that game exists or
        not; a stranger's address plays none and learns what any stranger does."""
        games = self._games_listed(ctx.session, ctx.letter.sender.lower())
        if not games:
            return self._stranger(reply)
        reply.section(
            "Not a game of yours",
            [
                f"This address holds no seat in game {game_id}, the game this letter names.",
                "Its games here:",
                *(f"  {line}" for line in games),
                "To write about one of them, reply to one of its letters, keep",
                "its [tag] in the subject, or add GAME <number> and SECRET <secret>.",
            ],
        )
        return None

    def _tell_refused(self, ctx: Context, registered: str, lines: list[str]) -> None:
        """The refusal to the seat's own address, through the loop breaker: letters forged in its
        name (a robot resending one) get it at most the idle limit of refusals an hour, then one
        that says the rest are withheld. Counted apart from the answers to the player's own letters,
        so that forgeries never silence those."""
        now = self.clock()
        key = f"{REFUSALS}{registered.lower()}"[:ADDRESS_CHARS]
        verdict = admit(ctx.session, key, now, self.limits, idle=True)
        if verdict is Verdict.SILENT:
            log.info("refusal to the seat's address withheld (too many this hour)")
            return
        letter = Draft(registered, "A letter in your name was refused").section(
            "Refused: a letter in your name", lines
        )
        if verdict is Verdict.NOTICE:
            until = silent_until(ctx.session.get_one(AnswerCount, key)).strftime("%Y-%m-%d %H:%M UTC")
            letter.section(
                "Too many refusals: the rest withheld",
                [f"More letters refused in your name this hour are not reported before {until}."],
            )
        self.postman.post(ctx.session, letter, kind="refusal", now=now)

    @staticmethod
    def _gid(game: Game) -> int:
        return row_id(game)

    def signed(self, ctx: Context) -> bool:
        """Whether the letter says who wrote it (a tag, a SECRET or GAME line, a reply to one of
        the bot's letters): only then may a command that also serves strangers ask :meth:`identify`,
        which tells a seat's address without a secret that its letter was refused."""
        game_id, secret = self._credentials(ctx)
        return bool(secret) or game_id is not None or bool(ctx.extra.get("answered"))

    def player(self, ctx: Context, reply: Reply) -> Seated | None:
        who = self.identify(ctx, reply)
        return Seated(who.game, who.seat) if who is not None and who.seat is not None else None

    # -- commands -----------------------------------------------------------------


def read_ahead(session: Session) -> None:
    """Once per transaction: read ahead for every game its letters name.

    A batch's letters are loaded into the session before any is handled (``inbound``); the
    tags in their subjects name the games the batch will read, and reading them all at once
    takes a few queries instead of a few per letter. On SQLite the batch holds the write lock
    and keeps all it reads; on PostgreSQL it first takes the lock of every game named that no
    other worker holds, in one statement (``claims.try_games``), and reads ahead for those
    (``transactions.kept_for``: letters and ticks that change a game take its lock first).
    """
    done = shelf(session, "read-ahead-letters")
    if done:
        return
    done[None] = True
    letters = [
        row
        for row in list(session.identity_map.values())
        if isinstance(row, Inbound) and row.state is InboundState.NEW
    ]
    named = (TAG.search(row.subject) for row in letters)
    games = {int(found.group(2)) for found in named if found is not None}
    if holds_write_lock(session):
        queries.read_ahead(session, games)
        throttle.read_ahead(session, [row.sender for row in letters])
    elif games:
        queries.read_ahead(session, try_games(session, games))


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
