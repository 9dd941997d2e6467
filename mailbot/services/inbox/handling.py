# SPDX-License-Identifier: GPL-3.0-or-later
"""What every command handler shares: the letter's ``Context``, the ``Reply`` it writes, ``Handler``.

The vocabulary of the handling loop (``inbound``) and of every handler above it (``play``,
``archive``): a handler reads the letter and its transaction from the context and answers
in the reply, which stays small whatever the letter was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from mailbot.core.commands import Command, Reading, visible
from mailbot.core.letter import Letter
from mailbot.store.models import Inbound

# A reply stays small whatever the letter was: its size grows at most linearly with the
# letter and is capped (a 6,000-line letter once produced a 265 MB reply).
MAX_PROBLEMS = 40  # problems quoted; the rest are counted
MAX_SECTION_LINES = 120
MAX_LINE_CHARS = 200
MAX_REASON_CHARS = 300
MAX_LINE_NUMBERS = 8  # numbers shown for one problem repeated on many lines


def _cut(text: str, limit: int = MAX_LINE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """A line of the reply, cut to ``limit``, its format and control characters shown by name:
    a quoted line with a right-to-left override would show reordered in the writer's mail
    program, not as the moderator read it."""
    return _cut(visible(text), limit)


@dataclass
class Reply:
    """A reply being assembled: titled sections of lines, and quoted problems, both bounded.

    The same problem on many lines is quoted once with its line numbers; past
    ``MAX_PROBLEMS`` problems are only counted ("and K more").
    """

    sections: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    more_problems: int = 0
    _seen: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict, repr=False)

    def section(self, title: str, lines: Sequence[str]) -> None:
        shown = [_shown(line) for line in lines[:MAX_SECTION_LINES]]
        if len(lines) > MAX_SECTION_LINES:
            shown.append(f"... and {len(lines) - MAX_SECTION_LINES} more lines")
        self.sections.append({"title": _shown(title), "lines": shown})

    def problem(self, line: int, text: str, reason: str) -> None:
        entry = self._seen.get((text, reason))
        if entry is not None:
            if len(entry["numbers"]) < MAX_LINE_NUMBERS:
                entry["numbers"].append(line)
            entry["count"] += 1
            entry["line"] = _line_numbers(entry["numbers"], entry["count"])
            return
        if len(self.problems) >= MAX_PROBLEMS:
            self.more_problems += 1
            return
        entry = {"line": _line_numbers([line], 1), "numbers": [line], "count": 1}
        entry |= {"text": _shown(text), "reason": _shown(reason, MAX_REASON_CHARS)}
        self._seen[(text, reason)] = entry
        self.problems.append(entry)


def _line_numbers(numbers: Sequence[int], count: int) -> str:
    shown = ", ".join("subject" if n == 0 else str(n) for n in numbers)
    return shown + (f" (and {count - len(numbers)} more)" if count > len(numbers) else "")


@dataclass
class Context:
    """What a command handler may look at: the letter, its stored row, all commands read.

    ``session`` is the letter's transaction: handlers write through it, so a
    failure anywhere rolls back everything the letter caused. ``extra`` caches
    what handlers work out once per letter (e.g. who the sender is).
    """

    letter: Letter
    row: Inbound
    reading: Reading
    session: Session
    extra: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[Command, Context, Reply], None]
