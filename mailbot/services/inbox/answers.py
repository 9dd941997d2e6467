# SPDX-License-Identifier: GPL-3.0-or-later
"""The replies every letter may get whatever game it is about: the basic commands (HELP, PING),
lines not understood, and the refusals of a letter that was not read (unreadable, too large,
a reused Message-ID, too many letters); and how a letter's outcome is told apart for the
answer limits (``idle``). The handling loop (``inbound``) chooses among them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlmodel import Session

from mailbot.core.commands import Command, CommandSpec, Reading
from mailbot.services.inbox.handling import Context, Handler, Reply, _cut
from mailbot.services.post.identity import Identity
from mailbot.services.post.throttle import silent_until
from mailbot.store.models import AnswerCount, Outbound

#: all an unreadable letter gets back: one line, short enough not to be wrapped
UNREADABLE_LINE = "It could not be read; please send your commands again as plain text."


def unreadable() -> Reply:
    """One line, nothing of any game: the letter may be anybody's."""
    reply = Reply()
    reply.section("Your letter could not be read", [UNREADABLE_LINE])
    return reply


def reused_id(message_id: str) -> Reply:
    """A letter under a Message-ID already used by another letter: not read (a resent draft, a
    broken client); nothing of it is used, so an old letter's id cannot carry new commands."""
    reply = Reply()
    reply.section(
        "Your letter was not read",
        [
            "It came with the Message-ID of another letter received before, but with other text,",
            f"so nothing in it was used ({_cut(message_id, 80)}).",
            "Please write your commands in a new letter (not a resent or edited old one).",
        ],
    )
    return reply


def too_large(identity: Identity) -> Reply:
    reply = Reply()
    limit, text = identity.max_message_bytes // 1000, identity.max_text_chars
    reply.section(
        "Your letter was too large",
        [
            f"Letters to this moderator may be at most {limit} kB, their text at most {text:,}",
            "characters; yours was not read.",
            "Please send your commands as plain text without attachments.",
        ],
    )
    return reply


#: the answer counter of letters from an address that proved no seat or GM secret
UNPROVEN = "unproven:"
#: the counter's key column
COUNTER_CHARS = 320


def counter_of(sender: str, context: Context | None) -> str:
    """Whose answers a letter's answer counts against. A letter that proved a seat's or the GM's
    secret counts against its address; one that proved none (a HELP, a stranger's, one forged
    in a player's name) against that address's unproven counter: letters forged in a player's
    name then never silence the answers to his own."""
    proven = context is not None and context.extra.get("who") is not None
    return sender if proven else f"{UNPROVEN}{sender.lower()}"[:COUNTER_CHARS]


def too_many(session: Session, identity: Identity, sender: str) -> Reply:
    """The one notice before the silence: the limit, and when answers resume; nothing else."""
    row = session.get_one(AnswerCount, sender.lower())
    limits = identity.limits
    reply = Reply()
    reply.section(
        "Too many letters: answers paused",
        [
            f"This moderator answers at most {limits.per_hour} letters an hour from one address,",
            f"and at most {limits.idle_per_hour} that hold no command it could use.",
            "Your letters are still read, and orders in them still count, but they are not",
            f"answered before {silent_until(row).strftime('%Y-%m-%d %H:%M UTC')}.",
            "If a program at your address answers mail by itself, please stop it answering this one.",
        ],
    )
    return reply


def anonymous_press(reply: Reply) -> None:
    """A reply to anonymous press: not relayed (nobody is named to take it), and how press is sent."""
    reply.section(
        "Your reply was not relayed",
        [
            "The press you answered came anonymously: no reply can reach its writer.",
            "To send press, write PRESS <seat> (or PRESS ALL) on a line of its own,",
            "your text below it, and END on the line after it.",
        ],
    )


def unknown(reading: Reading, reply: Reply) -> None:
    for line in reading.unknown:
        reply.problem(line.number, line.text.strip(), "not a command I know; send HELP for the list")


#: the HELP list's column of usages
USAGE_WIDTH = 28


def command_list(specs: Mapping[str, CommandSpec], reply: Reply) -> None:
    """The commands this moderator reads, each once (a command's aliases share its spec)."""
    seen: set[str] = set()
    lines = []
    for spec in specs.values():
        if spec.name not in seen:
            seen.add(spec.name)
            # A usage wider than the column stands on its own line: the summaries stay one column.
            fits = len(spec.usage) <= USAGE_WIDTH
            lines += (
                [f"{spec.usage:<{USAGE_WIDTH}} {spec.summary}"]
                if fits
                else [spec.usage, f"{'':<{USAGE_WIDTH}} {spec.summary}"]
            )
    reply.section("Commands", [*lines, "", "Commands may stand in the subject or one per line in the body."])


def help_handler(specs: Mapping[str, CommandSpec], extras: Sequence[Handler]) -> Handler:
    """HELP: the command list and what ``extras`` add (the writer's game's orders); both read
    when a letter is handled, so commands registered later are listed."""

    def answer(command: Command, context: Context, reply: Reply) -> None:
        command_list(specs, reply)
        for extra in extras:
            extra(command, context, reply)

    return answer


def ping(_command: Command, context: Context, reply: Reply) -> None:
    """PING: how the letter was read, and nothing of any game."""
    letter, row, reading = context.letter, context.row, context.reading
    found = [f"line {c.line or 'subject'}: {c.name} {' '.join(c.args)}".rstrip() for c in reading.commands]
    reply.section(
        "PING: how your letter was read",
        [
            f"From: {letter.sender}",
            f"Subject: {letter.subject}",
            f"Message-ID: {letter.message_id or '(none)'}",
            f"Received: {row.received_at.isoformat(timespec='seconds')}",
            f"Commands read ({len(found)}):",
            *(f"  {item}" for item in found),
            f"Lines not understood: {len(reading.unknown)}",
        ],
    )


def idle(queued: Sequence[Outbound], reply: Reply, context: Context | None) -> bool:
    """Whether the letter carried no command the bot could use: none read, or refused.

    A robot's or an auto-responder's letters are of this kind; they are limited more tightly.
    """
    if context is None or not context.reading.commands:
        return True
    return "who" in context.extra and context.extra["who"] is None and refused(queued, reply)


def refused(queued: Sequence[Outbound], reply: Reply) -> bool:
    """Whether the Gatekeeper refused the letter: told the sender so, or wrote to the seat's own address."""
    if any(section["title"] == "Your letter was refused" for section in reply.sections):
        return True
    return any(row.kind == "refusal" for row in queued)  # what this letter queued
