# SPDX-License-Identifier: GPL-3.0-or-later
"""The World in Flames "last impulse test" (seed 002, 12.) as pure functions.

Everything here is arithmetic on dice faces handed in; the plugin and the
simulator both build on it, so the simulated figures measure the same rule
the moderator applies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# seed 002, "Effects of passing": "For each of the following major powers which pass,
# add +2 to each of this impulses turn end dice roll(s): Germany, Japan, USA, CW, USSR;
# for these, add +1: Italy, France, Nationalist China, Communist China."
PASS_BONUS: dict[str, int] = {
    "Germany": 2,
    "Japan": 2,
    "USA": 2,
    "CW": 2,
    "USSR": 2,
    "Italy": 1,
    "France": 1,
    "Nationalist China": 1,
    "Communist China": 1,
}

# Lower-case spellings players use, one or two words; "china" alone is ambiguous on purpose.
POWER_ALIASES: dict[str, str] = {
    "germany": "Germany",
    "ger": "Germany",
    "de": "Germany",
    "japan": "Japan",
    "jap": "Japan",
    "jpn": "Japan",
    "usa": "USA",
    "us": "USA",
    "united states": "USA",
    "cw": "CW",
    "commonwealth": "CW",
    "uk": "CW",
    "ussr": "USSR",
    "su": "USSR",
    "soviet union": "USSR",
    "russia": "USSR",
    "italy": "Italy",
    "ita": "Italy",
    "france": "France",
    "fra": "France",
    "nationalist china": "Nationalist China",
    "nat china": "Nationalist China",
    "natchina": "Nationalist China",
    "nc": "Nationalist China",
    "communist china": "Communist China",
    "comm china": "Communist China",
    "com china": "Communist China",
    "commchina": "Communist China",
    "cc": "Communist China",
}
AMBIGUOUS_WORDS: dict[str, str] = {"china": "Nationalist China or Communist China"}

# seed 002: "When the turn end number total reaches or exceeds 55, then the turn is probably over."
TWO_SIDE_THRESHOLD = 55
# seed 002: "If the last die is an unmodified 1, 2, or 3 ... then the turn continues".
LAST_DIE_CONTINUES = 3
MIN_WEATHER, MAX_WEATHER = 1, 4  # "anywhere from 1 to 4" dice
DIE_SIDES = 10


def threshold(sides: int) -> int:
    """The smallest whole turn-end number that ends a turn with ``sides`` sides.

    seed 002, "Note": "For each 'side' involved, simply multiply the turn end
    number needed to 'end the turn' times 27.5. 27.5 is 5 (expected number of
    impulses ...) times 5.5 (average result of a d10 die roll)." Taken
    literally (55 x 27.5 per side) the sentence gives absurd numbers; its own
    explanation makes 27.5 the share of one side, so the threshold is
    27.5 x sides (55 for two sides, as in the main rule). Totals are whole
    numbers, so "reaches or exceeds 82.5" means 83 or more: round half up.
    """
    return (55 * sides + 1) // 2


@dataclass(frozen=True)
class ImpulseRoll:
    """The turn-end dice of one impulse and what they did to the total."""

    faces: tuple[int, ...]
    bonus_per_die: int
    last_position: int  # 1-based position of the nominated "last die"
    before: int
    after: int
    ends_turn: bool

    @property
    def last_face(self) -> int:
        return self.faces[self.last_position - 1]

    @property
    def addition(self) -> int:
        return self.after - self.before


def pass_bonus(passed: Iterable[str], neutral: Iterable[str]) -> int:
    """The bonus added to each die; seed 002: "a major power which is neutral and passes adds nothing"."""
    quiet = set(neutral)
    return sum(PASS_BONUS[power] for power in set(passed) if power not in quiet)


def turn_ends(total: int, last_face: int, needed: int) -> bool:
    """seed 002: "the plusses due to passing do not affect the reading of the 'last die'"."""
    return total >= needed and last_face > LAST_DIE_CONTINUES


def apply_impulse(
    before: int, faces: Sequence[int], bonus_per_die: int, last_position: int, needed: int
) -> ImpulseRoll:
    """Add one impulse's dice (each die plus the pass bonus) and test for the turn's end."""
    after = before + sum(faces) + bonus_per_die * len(faces)
    position = last_position if 1 <= last_position <= len(faces) else len(faces)
    ends = turn_ends(after, faces[position - 1], needed)
    return ImpulseRoll(tuple(faces), bonus_per_die, position, before, after, ends)


def _words(text: str) -> list[str]:
    return [word for word in re.split(r"[\s,;/+&]+", text.lower().replace(".", "")) if word]


def read_powers(text: str) -> tuple[list[str], list[str], list[str]]:
    """Canonical powers named in ``text``, plus unknown and ambiguous words (in the order written).

    Two-word names are tried before single words, so "Nat China" and
    "Communist China" are read whole; "and" is skipped.
    """
    words = _words(text)
    found: list[str] = []
    unknown: list[str] = []
    ambiguous: list[str] = []
    i = 0
    while i < len(words):
        pair = " ".join(words[i : i + 2])
        if i + 1 < len(words) and pair in POWER_ALIASES:
            found.append(POWER_ALIASES[pair])
            i += 2
            continue
        word = words[i]
        if word in POWER_ALIASES:
            found.append(POWER_ALIASES[word])
        elif word in AMBIGUOUS_WORDS:
            ambiguous.append(word)
        elif word != "and":
            unknown.append(word)
        i += 1
    return found, unknown, ambiguous


def canonical_power(name: str) -> str | None:
    """The canonical name of one power as written in scenario data, or None."""
    found, unknown, ambiguous = read_powers(name)
    return found[0] if len(found) == 1 and not unknown and not ambiguous else None
