# SPDX-License-Identifier: GPL-3.0-or-later
"""Game options as data: each game package declares the options a game master may set.

A game declares ``options: ClassVar[tuple[GameOption, ...]]`` next to its name; the options
every game has (quiet hours) are declared here. ``mailbot game options GAME`` lists them,
``game create --option NAME=VALUE`` is read by :func:`read_options`, so a misspelt name or a
bad value is refused when the game is created, naming what would do, instead of surfacing
when the last seat joins. What a value means stays the game's own business.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mailbot.core.lifecycle import QUIET_MAX

#: the plug-in API of this module (docs/writing-a-game.md); the rest is the moderator's own
__all__ = [
    "GameOption",
    "OptionProblem",
    "OptionValue",
]

OptionValue = bool | int | str | list[str]

_YES = frozenset({"on", "yes", "true", "1"})
_NO = frozenset({"off", "no", "false", "0"})


@dataclass(frozen=True)
class OptionProblem:
    """An option that cannot be used, with a reason fit to print for the game master."""

    reason: str


@dataclass(frozen=True)
class GameOption:
    """One option: its name, kind (``bool``, ``int``, ``str`` or ``list`` of words), default, help
    and allowed values (of each word, for a list).

    ``default`` None means the scenario decides (and says so in the listing).
    """

    name: str
    help: str
    kind: type[OptionValue] = str
    default: OptionValue | None = None
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int | None = None

    def read(self, value: object) -> OptionValue | OptionProblem:
        """``value`` as this option takes it: typed values are checked, text is read."""
        if self.kind is bool:
            return self._bool(value)
        if self.kind is int:
            return self._int(value)
        if self.kind is list:
            return self._list(value)
        return self._word(str(value).strip())

    def _word(self, text: str) -> str | OptionProblem:
        if self.choices and text not in self.choices:
            return OptionProblem(f"{self.name} takes one of {', '.join(self.choices)}, not {text!r}")
        return text

    def _list(self, value: object) -> list[str] | OptionProblem:
        """Words from ``a,b,c`` or a list of them (a game's demo gives one)."""
        items = value if isinstance(value, list | tuple) else str(value).split(",")
        words: list[str] = []
        for item in items:
            word = self._word(str(item).strip())
            if isinstance(word, OptionProblem):
                return word
            words.append(word)
        return words

    def _bool(self, value: object) -> bool | OptionProblem:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _YES | _NO:
            return text in _YES
        return OptionProblem(f"{self.name} is on or off, not {value!r}")

    def _int(self, value: object) -> int | OptionProblem:
        text = str(value).strip()
        number = value if isinstance(value, int) and not isinstance(value, bool) else None
        if number is None and text.isdigit():
            number = int(text)
        bounds = f"{self.low} or more" if self.high is None else f"{self.low}..{self.high}"
        if number is None or number < self.low or (self.high is not None and number > self.high):
            return OptionProblem(f"{self.name} is a whole number {bounds}, not {value!r}")
        return number

    def describe(self) -> str:
        """``submarines  on/off (default the scenario's): ...`` for the listing."""
        return f"{self.name:18s} {self._allowed()} (default {shown(self.default)}): {self.help}"

    def _allowed(self) -> str:
        if self.choices:
            return "|".join(self.choices)
        if self.kind is bool:
            return "on/off"
        if self.kind is int:
            return f"{self.low}..{self.high}" if self.high is not None else f"{self.low} or more"
        return "words a,b,..." if self.kind is list else "text"


def shown(value: OptionValue | None) -> str:
    """An option's value as the game master writes it."""
    if value is None:
        return "the scenario's"
    if isinstance(value, bool):
        return "on" if value else "off"
    return ",".join(value) if isinstance(value, list) else str(value)


#: options every game has: the lifecycle's quiet hours (``lifecycle.quiet_settings`` reads them)
COMMON_OPTIONS = (
    GameOption("quiet_hours", "play steps nobody has to answer at once, without letters", bool, True),
    GameOption("quiet_max", "at most this many quiet steps in a row", int, QUIET_MAX),
)


def declared(game_options: Iterable[GameOption]) -> dict[str, GameOption]:
    """Every option a game takes, by name: the common ones and the game's own."""
    return {option.name: option for option in (*COMMON_OPTIONS, *game_options)}


def read_options(
    options: Mapping[str, GameOption], given: Mapping[str, object]
) -> dict[str, OptionValue] | OptionProblem:
    """The options given, each read by its declaration; the first problem otherwise."""
    read: dict[str, OptionValue] = {}
    for name, value in given.items():
        option = options.get(name)
        if option is None:
            return OptionProblem(f"no option {name!r}; this game takes {', '.join(sorted(options))}")
        result = option.read(value)
        if isinstance(result, OptionProblem):
            return result
        read[name] = result
    return read


def set_options(options: Mapping[str, GameOption], values: Mapping[str, Any]) -> list[str]:
    """``name=value`` for each option set to something other than its default."""
    return [
        f"{name}={shown(value)}"
        for name, value in sorted(values.items())
        if name not in options or value != options[name].default
    ]
