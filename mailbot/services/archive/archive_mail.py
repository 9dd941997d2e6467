# SPDX-License-Identifier: GPL-3.0-or-later
"""ARCHIVE by mail: a seat gets its own archive of the game as a .zip, while the game runs.

Only what the seat may see goes in (``archive.seat_zip``): its own letters in
and out, its own orders, the steps with their commitments, the GM's public
actions, and seeds, rolls and the referee's view only where everyone may see
them. Another seat's letters and every secret stay out, and so does what an
earlier player of the seat wrote, got or ordered (a seat handed on by the GM:
``archive_holder``). The writer must be
the seat, proven like for any game command (``Gatekeeper``); a stranger gets
the same answer as for any other game command and nothing more. The .zip
comes in a letter of its own, like the reports HISTORY sends again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from mailbot.core.commands import Command
from mailbot.mail.compose import Attachment
from mailbot.services.archive.archive import seat_zip
from mailbot.services.base.tags import tag
from mailbot.services.inbox.auth import Gatekeeper
from mailbot.services.inbox.handling import Context, Reply
from mailbot.services.post.letters import Draft, Postman
from mailbot.store.game_tables import GameStatus, row_id


class ArchiveMail:
    def __init__(self, *, gate: Gatekeeper, postman: Postman, clock: Callable[[], datetime]) -> None:
        self.gate = gate
        self.postman = postman
        self.clock = clock

    def archive(self, command: Command, ctx: Context, reply: Reply) -> None:
        """Send the writer's seat its own archive; the GM is told how to export the whole game's."""
        who = self.gate.identify(ctx, reply)
        if who is not None and who.gm:
            reply.section(
                "Archive",
                [
                    "ARCHIVE sends a seat its own archive. The whole game's archive is written with",
                    f"mailbot archive export {row_id(who.game)} --out DIR",
                    *(
                        []
                        if who.game.status is GameStatus.FINISHED
                        else [
                            "While the game is not over that copy holds what the seats have not seen:",
                            "it is written only with --private, as your own backup, never to publish.",
                        ]
                    ),
                ],
            )
            return
        seated = self.gate.player(ctx, reply)
        if seated is None:
            return
        game, seat = seated.game, seated.seat
        data = seat_zip(ctx.session, row_id(game), seat.name, renderer=self.postman.renderer)
        name = f"{tag(game).lower()}-{seat.name.lower()}-archive.zip"
        letter = Draft(seat.address, f"[{tag(game)} {seat.secret}] Your archive of {game.title}")
        letter.section(
            "Your archive",
            [
                f"Attached: {name}, the game so far as you saw it. Unpack it and",
                "open index.html in a browser; mail.mbox holds your letters.",
                "It holds your own letters and orders, and what every seat may know.",
            ],
        )
        letter.attachments.append(Attachment(name, data, "application", "zip"))
        self.postman.post(ctx.session, letter, kind="archive", now=self.clock())
        reply.section("Archive", [f"Your archive of {game.title} follows in a separate letter."])
