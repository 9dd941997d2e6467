# SPDX-License-Identifier: GPL-3.0-or-later
"""What a game package declares to be measured over many simulated games (``mailbot simulate``).

A game's ``simulate`` module exports ``SIMULATION``: the command's name, what it measures, its
options as data and a pure ``run(options, rng, data)`` that returns the report's lines. The
command line builds ``mailbot simulate <command> --<option> ...`` from the declaration (with a
``--seed`` of its own for a repeatable run), so a game, built in or installed from outside,
adds its simulation without touching anything outside its folder.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: the plug-in API of this module (docs/writing-a-game.md); the rest is the moderator's own
__all__ = [
    "Option",
    "Runner",
    "Simulation",
]

#: what an option's value may be
Kind = type[int] | type[bool] | type[str]


@dataclass(frozen=True)
class Option:
    """One ``--name`` of a simulation: a number in [low, high], a flag or a word from ``choices``."""

    name: str  # python name; the command line writes it with hyphens (``pass_bonus``: ``--pass-bonus``)
    kind: Kind
    default: int | bool | str | None
    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


#: run(options by name, a seeded generator, the game's data files) -> the report's lines
Runner = Callable[[Mapping[str, Any], random.Random, Mapping[str, Any]], Sequence[str]]


@dataclass(frozen=True)
class Simulation:
    """A game's ``mailbot simulate`` command."""

    command: str
    help: str
    options: tuple[Option, ...]
    run: Runner
