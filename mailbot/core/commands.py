# SPDX-License-Identifier: GPL-3.0-or-later
"""The e-mail command language: reading commands from a letter's subject and body.

Lenient in what is accepted (any case, commands in the subject or the body),
exact in what is echoed. A command that takes a block (``ORDERS``, ``PRESS``)
owns the lines after it up to ``END`` or the end of the letter. Any other line
that is not a command is reported back to the sender, quoted, never guessed at.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from mailbot.core.game import Line


@dataclass(frozen=True)
class CommandSpec:
    name: str
    usage: str
    summary: str
    takes_block: bool = False
    aliases: tuple[str, ...] = ()
    #: the block is a message to people (PRESS): read from the letter's prose text, its greetings
    #: and sign-offs kept, with the blank lines between its paragraphs
    prose: bool = False
    #: a line with more words after the keyword is prose, not this command ("Orders for this
    #: turn:", a report's "ORDERS to END near the end of this letter" in a reply); None: any
    max_args: int | None = None
    #: it says who writes (GAME, SECRET), not what to do: a subject's command still counts beside it
    credential: bool = False


@dataclass(frozen=True)
class Command:
    name: str  # canonical upper-case name
    args: tuple[str, ...]
    line: int  # 0 = the subject
    text: str  # the line as written
    block: tuple[Line, ...] = ()
    ended: bool = True  # False: a block the letter ran out on before its END


@dataclass(frozen=True)
class Reading:
    commands: tuple[Command, ...]
    unknown: tuple[Line, ...]


BASIC_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("HELP", "HELP", "this list of commands", aliases=("?", "INFO")),
    CommandSpec("PING", "PING", "echo how your letter was read: sender, subject and the commands found"),
)

# A seat's own archive by mail: handled by ``mailbot.services.archive.archive_mail``; listed with the
# player commands (``mailbot.services.play.mailgame``), so it is in HELP where a game is played.
ARCHIVE_COMMAND = CommandSpec("ARCHIVE", "ARCHIVE", "your letters and the game so far, as a .zip")

# Reading a game without playing it (the judges' OBSERVE): handled by
# ``mailbot.services.play.observing``, from any address.
OBSERVER_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "OBSERVE",
        "OBSERVE <game>",
        "read a game without playing: its public letters, announcements and press to ALL",
        aliases=("WATCH",),
    ),
    CommandSpec(
        "UNOBSERVE", "UNOBSERVE <game>", "stop the letters of a game you observe", aliases=("UNWATCH",)
    ),
)

# A game as a letter names it: its number ("3") or its tag ("DU-3", any case).
_GAME_REFERENCE = re.compile(r"^(?:[A-Za-z]{2}-)?(?P<number>\d{1,9})$")


#: the most digits a number read from a letter may have: what every store's integer holds
#: (a game number of 20 digits made SQLite raise OverflowError and the letter was set aside)
NUMBER_DIGITS = 9


def number_of(text: str) -> int | None:
    """The whole number a letter gives (a game, a turn, a round): ASCII digits, at most
    :data:`NUMBER_DIGITS` of them; None for anything else."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= NUMBER_DIGITS else None


def game_reference(text: str) -> int | None:
    """The game number ``text`` names (``3``, ``DU-3``, ``du-3``), or None: OBSERVE and the
    like take either, as LIST shows both."""
    found = _GAME_REFERENCE.match(text.strip())
    return number_of(found.group("number")) if found else None


# "Re:", "Fwd:", "AW:", "SV:", "[list tag]" and the like in front of a subject.
_SUBJECT_PREFIX = re.compile(r"^\s*((re|fwd?|aw|sv|wg|tr)\s*(\[\d+\])?\s*:\s*|\[[^\]]*\]\s*)", re.IGNORECASE)
# Unicode's format characters (category Cf): zero-width spaces and joiners, BOMs, soft hyphens,
# the bidi marks, embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), invisible
# operators, tag characters. Clients and copy-and-paste leave some in a line; a writer can use the
# bidi ones to make a line show other than it reads ("ATTACK <U+202E>2 1" shows "ATTACK 1 2").
# None carries a meaning for a command, so the moderator reads the letter without them.
# (tests/unit/test_format_characters.py checks this list against the unicodedata of the day.)
_FORMAT = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
# What a line quoted back to someone shows by name: the format characters, and the control
# characters but the tab (an escape sequence or a backspace rewrites what a terminal shows).
_UNSHOWN = re.compile(f"{_FORMAT.pattern[:-1]}\x00-\x08\x0b-\x1f\x7f-\x9f]")


def unformatted(text: str) -> str:
    """``text`` without format characters: what the moderator reads commands and orders from."""
    return _FORMAT.sub("", text)


def visible(text: str) -> str:
    """``text`` as it may be quoted back: each format or control character written as its code
    (``<U+202E>``), so that a quoted line shows what it holds, never reordered or hidden."""
    return _UNSHOWN.sub(lambda found: f"<U+{ord(found.group()):04X}>", text)


END_WORDS = frozenset({"END", "ENDORDERS", "END ORDERS"})
_SEALED_SUBJECT = re.compile(r"^(?:[A-Za-z]+\s+)*?(?P<label>[A-Za-z][\w-]*)\s+number$", re.IGNORECASE)


def clean_subject(subject: str) -> str:
    """The subject without reply/forward prefixes, bracketed tags and invisible characters."""
    subject = unformatted(subject)
    previous = None
    while previous != subject:
        previous, subject = subject, _SUBJECT_PREFIX.sub("", subject, count=1)
    return subject.strip()


def index_specs(specs: Iterable[CommandSpec]) -> dict[str, CommandSpec]:
    index: dict[str, CommandSpec] = {}
    for spec in specs:
        for word in (spec.name, *spec.aliases):
            index[word.upper()] = spec
    return index


def _split(text: str) -> tuple[str, tuple[str, ...]]:
    words = text.split()
    return (words[0].upper().rstrip(":"), tuple(words[1:])) if words else ("", ())


def read_commands(
    subject: str, body: str, specs: Mapping[str, CommandSpec], *, prose: str | None = None
) -> Reading:
    """Commands from the body, or from the subject when the body holds none.

    The subject is a shortcut for short letters ("STATUS", or "ORDERS" with
    the orders as the body). When the body has commands of its own, the
    subject is free text: otherwise "Re: orders" above an ORDERS block would
    give the orders twice.

    ``prose`` is the same letter with the lines kept that are no command but are meant for a
    person ("Dear Japan,", "Best regards," and the name under it): a prose block (PRESS) is
    taken from it, so that a player's press is relayed as he wrote it.
    """
    reading = _read(subject, body, specs)
    if prose is None or not any(_is_prose(command, specs) for command in reading.commands):
        return reading
    return _with_prose_blocks(reading, _read(subject, prose, specs), specs)


def _is_prose(command: Command, specs: Mapping[str, CommandSpec]) -> bool:
    spec = specs.get(command.name)
    return spec is not None and spec.prose


def _with_prose_blocks(reading: Reading, written: Reading, specs: Mapping[str, CommandSpec]) -> Reading:
    """``reading`` with each prose block as ``written`` (the letter read from its prose text) has it.

    Both readings hold the same commands, but where a kept courtesy line starts with a command
    word: each prose command takes the block of the next command of ``written`` with its name and
    text, and keeps its own when there is none.
    """
    others = iter(written.commands)
    commands: list[Command] = []
    for command in reading.commands:
        same = None
        if _is_prose(command, specs):
            same = next((c for c in others if (c.name, c.text) == (command.name, command.text)), None)
        commands.append(command if same is None else replace(command, block=same.block))
    return Reading(tuple(commands), reading.unknown)


def _lines(body: str) -> list[Line]:
    """The body's lines as commands are read from them, numbered from 1."""
    # NFKC: a Japanese or Chinese keyboard's full-width "ＡＴＴＡＣＫ　１" is "ATTACK 1".
    body = unicodedata.normalize("NFKC", unformatted(body))
    return [Line(n, text.rstrip()) for n, text in enumerate(body.splitlines(), start=1)]


def _read(subject: str, body: str, specs: Mapping[str, CommandSpec]) -> Reading:
    subject = unicodedata.normalize("NFKC", subject)
    body_lines = _lines(body)
    body_reading = _read_body(body_lines, specs)
    sealed = _sealed_by_subject(clean_subject(subject), body_lines, specs)
    if sealed is not None and not body_reading.commands:
        return Reading((sealed,), ())
    keyword, args = _split(clean_subject(subject))
    spec = specs.get(keyword)
    # Player trial: "Subject: STATUS" above "GAME 1 / SECRET x" got an empty answer.
    credentials = all(_is_credential(command, specs) for command in body_reading.commands)
    if spec is None or _echoed(keyword, args) or not credentials:
        return body_reading
    if body_reading.commands and (spec.takes_block or spec.credential):
        return body_reading  # an ORDERS subject would read the credentials as orders
    if spec.takes_block:
        filled = tuple(line for line in body_lines if line.text.strip())
        block = _trimmed(body_lines) if spec.prose else filled
        return Reading((Command(spec.name, args, 0, clean_subject(subject), block),), ())
    subject_command = Command(spec.name, args, 0, clean_subject(subject))
    return Reading((*body_reading.commands, subject_command), body_reading.unknown)


def _is_credential(command: Command, specs: Mapping[str, CommandSpec]) -> bool:
    spec = specs.get(command.name)
    return spec is not None and spec.credential


#: who signs press sent anonymously (where the game allows it)
ANONYMOUS_AUTHOR = "an anonymous player"
_PRESS_FROM = re.compile(rf"^press from (?P<author>{ANONYMOUS_AUTHOR}|\S+)$", re.IGNORECASE)


def press_title(author: str) -> str:
    """The subject (after the seat's tag) and heading of a relayed press letter."""
    return f"Press from {author}"


def press_author(subject: str) -> str | None:
    """The writer a press letter's subject names, as a reply keeps it ("Re: [DU-3 k7Q2] Press from
    allied": "allied"); :data:`ANONYMOUS_AUTHOR` for anonymous press; None for any other subject
    (the GM's copy, "Press from north to south", among them: it goes to no seat)."""
    found = _PRESS_FROM.match(clean_subject(unicodedata.normalize("NFKC", subject)))
    if found is None:
        return None
    author = found.group("author")
    return ANONYMOUS_AUTHOR if author.lower() == ANONYMOUS_AUTHOR else author


def reply_press(reading: Reading, author: str, prose: str, specs: Mapping[str, CommandSpec]) -> Reading:
    """A reply to ``author``'s press letter, read as press back to him (``PRESS <author>``).

    The press is the reply's own text as written: ``prose`` keeps its greetings and sign-offs
    ("Thanks!" alone is an answer), and one blank line is kept between paragraphs. Every line
    of it is press, one that reads like a command too: a line such as "Draw" or "Resign" in a
    letter to another player is words to him, never a DRAW offer or a resignation. A letter
    with a PRESS of its own is read as it stands, and so is a reply to anonymous press: it
    names nobody to send it to.
    """
    if author == ANONYMOUS_AUTHOR or any(command.name == "PRESS" for command in reading.commands):
        return reading
    block = _paragraphs(_lines(prose))
    if not block:
        return reading
    text = f"PRESS {author} (your reply to {author}'s press)"
    return Reading((Command("PRESS", (author,), block[0].number, text, block),), ())


def _paragraphs(lines: Sequence[Line]) -> tuple[Line, ...]:
    """``lines`` trimmed, each run of blank lines made one."""
    kept = [line for i, line in enumerate(lines) if line.text.strip() or (i and lines[i - 1].text.strip())]
    return _trimmed(kept)


def _echoed(keyword: str, args: tuple[str, ...]) -> bool:
    """The subject of the moderator's own press letter ("Press from north"), kept by a reply to
    it: no command (PRESS names a seat or ALL, never "from")."""
    return keyword == "PRESS" and bool(args) and args[0].lower() == "from"


def _sealed_by_subject(subject: str, lines: list[Line], specs: Mapping[str, CommandSpec]) -> Command | None:
    """A letter whose subject is "<label> number" and whose body is that number seals it, as seed 003
    has it for surface combat: "it should be sent in a separate message with "Surface BHT number" as
    the header"; read as ``SEAL <label> <number>`` (the word before "number" is the label)."""
    match = _SEALED_SUBJECT.match(subject)
    if match is None or "SEAL" not in specs:
        return None
    numbers = [line for line in lines if line.text.strip()]
    if not numbers or not numbers[0].text.strip().isdigit():
        return None
    first = numbers[0]
    label, value = match["label"].upper(), first.text.strip()
    return Command("SEAL", (label, value), first.number, f"SEAL {label} {value} (subject: {subject})")


def _read_body(lines: list[Line], specs: Mapping[str, CommandSpec]) -> Reading:
    commands: list[Command] = []
    unknown: list[Line] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        keyword, args = _split(line.text)
        if not keyword:
            continue
        spec = specs.get(keyword)
        if spec is None or (spec.max_args is not None and len(args) > spec.max_args):
            unknown.append(line)
            continue
        block: list[Line] = []
        ended = True
        if spec.takes_block:
            while i < len(lines) and " ".join(lines[i].text.upper().split()) not in END_WORDS:
                if lines[i].text.strip() or spec.prose:  # a message keeps its paragraphs apart
                    block.append(lines[i])
                i += 1
            ended = i < len(lines)
            i += 1  # skip END
        commands.append(Command(spec.name, args, line.number, line.text.strip(), _trimmed(block), ended))
    return Reading(tuple(commands), tuple(unknown))


def _trimmed(lines: Sequence[Line]) -> tuple[Line, ...]:
    """``lines`` without the blank lines at their start and end."""
    filled = [index for index, line in enumerate(lines) if line.text.strip()]
    return tuple(lines[filled[0] : filled[-1] + 1]) if filled else ()


def reply_orders(
    reading: Reading,
    step_key: str,
    template: tuple[Line, ...] | None,
    *,
    source: str = "the lines of your reply",
) -> Reading:
    """A reply to the letter that asked for ``step_key``'s orders, read as those orders.

    An order template the writer edited inside the quote is the orders; without
    one, the reply's loose lines (those that are no command) are. A letter with
    an ORDERS block of its own is read as it stands.
    """
    if any(command.name == "ORDERS" for command in reading.commands):
        return reading
    if template:
        text = f"ORDERS {step_key} (the order template you edited)"
        return Reading(
            (*reading.commands, Command("ORDERS", (step_key,), template[0].number, text, template)),
            reading.unknown,
        )
    if reading.unknown:
        text = f"ORDERS {step_key} ({source})"
        command = Command("ORDERS", (step_key,), reading.unknown[0].number, text, reading.unknown)
        return Reading((*reading.commands, command), ())
    return reading
