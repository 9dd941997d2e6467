# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading the rules tables (``data/tables/*.toml``): the small checks every table shares.

Each table marks its sections with ``default = true|false`` (a design default, or the rules'
own figure) and a ``source`` line; letters say "design default" from these. Numbers are checked
strictly (a bool is no integer); fractions go through ``str`` so that the TOML ``0.1`` is one
tenth exactly; shares are written ``[1, 3]``; rounding is ``"up"`` or ``"down"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, ClassVar, Protocol, TypeVar

from mailbot.errors import GameError

META = ("default", "source")
#: what a reader raises on a table that lacks a key or holds a value of the wrong kind
MALFORMED: tuple[type[Exception], ...] = (KeyError, TypeError, ValueError, AttributeError)

T = TypeVar("T")


class _Dataclass(Protocol):
    """What :func:`dataclasses.fields` takes (the stub's own ``DataclassInstance``)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


D = TypeVar("D", bound=_Dataclass)

#: the field types :func:`by_name` reads by itself, by their annotation (the modules' annotations
#: are strings: ``from __future__ import annotations``)
_PLAIN: dict[str, Callable[[Any], Any]] = {"int": int, "float": float, "bool": bool, "str": str}


class ConfigKey:
    """A game's loaded config (or one table of it), hashable by identity: the key under which
    its parsed tables are kept. Every loaded state brings its own config object, so a cache
    under this key must be bounded (``lru_cache(maxsize=...)``), never ``functools.cache``:
    a service running for weeks would keep every state's tables it ever loaded."""

    __slots__ = ("config",)

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config

    def __hash__(self) -> int:
        return id(self.config)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigKey) and other.config is self.config


@dataclass(frozen=True)
class Source:
    """Where a table section comes from; ``default``: a design default, not the rules' own."""

    default: bool
    source: str


class Sourced:
    """A parsed table that keeps its sections' :class:`Source` by section name (``sources``)."""

    sources: Mapping[str, Source]

    @property
    def design_defaults(self) -> tuple[str, ...]:
        """The sections that are design defaults (e.g. ``factors.defaults``): letters say so."""
        return tuple(name for name, src in self.sources.items() if src.default)


def parsed(
    file: str,
    read: Callable[[Mapping[str, Any]], T],
    data: Mapping[str, Any],
    *,
    also: tuple[type[Exception], ...] = (),
) -> T:
    """``read(data)``; a malformed table is a GameError naming ``file`` (it ships with the code).
    ``also``: what else the reader raises on a malformed table."""
    try:
        return read(data)
    except (*MALFORMED, *also) as error:
        raise GameError(f"{file} is malformed ({error!r})") from error


def by_name(cls: type[D], *sections: Mapping[str, Any], **given: Any) -> D:
    """``cls`` (a frozen dataclass of rules) read from a table: each field that is not ``given`` is
    the key of its own name in the first of ``sections`` that has it, made an int, float, bool or
    str by the field's annotation. Most table sections are such rows of named figures; a field of
    another type, or read from a key of another name, is ``given``. A key none of the sections has
    is a KeyError (a malformed table, to :func:`parsed`)."""
    values = dict(given)
    for field in fields(cls):
        if field.name in values:
            continue
        convert = _PLAIN.get(str(field.type))
        if convert is None:
            raise TypeError(f"{cls.__name__}.{field.name} ({field.type}) must be given to by_name")
        section = next((s for s in sections if field.name in s), sections[0])
        values[field.name] = convert(section[field.name])
    return cls(**values)


def integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"not an integer: {value!r}")
    return value


def fraction(value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"not a number: {value!r}")
    return Fraction(str(value))


def share(pair: Any) -> Fraction:
    """``[1, 3]`` as one third."""
    numerator, denominator = (int(v) for v in pair)
    return Fraction(numerator, denominator)


def rounding(value: Any) -> str:
    if value not in ("up", "down"):
        raise ValueError(f"rounding is 'up' or 'down', not {value!r}")
    return str(value)


def rounded(value: Fraction, how: str) -> int:
    return math.ceil(value) if how == "up" else math.floor(value)


def source_of(section: Mapping[str, Any], name: str) -> Source:
    """The section's ``default`` flag and ``source`` line; both are required."""
    flag, source = section.get("default"), section.get("source")
    if not isinstance(flag, bool) or not isinstance(source, str) or not source:
        raise ValueError(f"[{name}] needs default = true/false and a source line")
    return Source(flag, source)


def table_sources(data: Mapping[str, Any], prefix: str = "") -> dict[str, Source]:
    """Every section (at any depth) that has a ``default`` or ``source`` line, by dotted name; a
    section with neither belongs to its parent, one with only one of them is malformed."""
    found: dict[str, Source] = {}
    for key, value in data.items():
        if not isinstance(value, Mapping):
            continue
        name = f"{prefix}{key}"
        if any(meta in value for meta in META):
            found[name] = source_of(value, name)
        found |= table_sources(value, f"{name}.")
    return found
