# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flat Top hex grid: global coordinates, board sections and hex IDs.

Geometry (flattop-reference B.2, A.3). Hexes are flat-topped and stand in
vertical columns. Every hex of the whole map has one global coordinate
``Hex(col, row)``: ``col`` grows eastward, ``row`` grows southward (the
Japanese sit at the north edge, the Allies at the south). Odd columns sit half
a hex lower than even columns ("odd-q" offset layout), so ``Hex(1, 0)`` is
south-east of ``Hex(0, 0)`` and ``Hex(1, -1)`` north-east of it.

Directions are numbered clockwise from north: 1 = N, 2 = NE, 3 = SE, 4 = S,
5 = SW, 6 = NW. This is inferred from the standard rule 6.3 ("directions 2 and
5" make a NE-SW cloud front), which only fits flat-topped hexes.

Distance counts hexes: the target's hex but not the observer's; the same hex
is 0 (standard rule 7.11). Distance, neighbours, lines and directions need no
map: they work on the global grid, so they work across board sections.

Hex IDs (seed 003 writes ``I-F20``, ``V-F24``): ``<sector>-<column><row>``.

- ``sector``: the board section's Roman numeral, I to VIII on the standard board.
- ``column``: letters ``A``..``Z`` for the first 26 columns of a label scheme,
  then doubled letters ``AA``, ``BB`` .. ``ZZ`` for 27..52 (the Avalon Hill
  habit; the rulebook's example path ``BB14 -> BB17`` uses such a label).
- ``row``: a decimal number.

Upper or lower case and an optional space or hyphen are accepted
(``v f24``, ``V-F-24``); :func:`hex_id` writes the canonical ``V-F24``.

How sections tile (a :class:`Layout`, data from the scenario): each
:class:`Sector` is a rectangle of the global grid plus the label of its
north-west hex. Neighbouring sections overlap by one column or one row: those
are the half hexes printed on both boards, "a hex shared by two board
sections" (seed 003, 6.4.1). A shared hex has one ID per section; :func:`hex_id`
names it by the southern, then eastern, section (the [RW] convention for
deployment and cloud movement, reference A.1). The printed board is not
available; :data:`STANDARD_LAYOUT` is a design default (see its comment).
Scenarios may bring their own layout; pass it as ``layout=`` wherever IDs are
read or written. Both shipped scenarios use labels that agree with the
standard layout, so the default gives the same ``Hex`` for their IDs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from functools import lru_cache
from types import MappingProxyType


@dataclass(frozen=True, order=True, slots=True)
class Hex:
    """One hex of the global grid (module docstring): ``col`` eastward, ``row`` southward."""

    col: int
    row: int

    def as_list(self) -> list[int]:
        """The JSON form ``[col, row]``."""
        return [self.col, self.row]

    @classmethod
    def from_list(cls, value: Iterable[int]) -> Hex:
        col, row = value
        return cls(int(col), int(row))


class Direction(IntEnum):
    """Hex directions, clockwise from north (module docstring)."""

    N = 1
    NE = 2
    SE = 3
    S = 4
    SW = 5
    NW = 6

    def rotate(self, by: int) -> Direction:
        """``by`` sixths of a turn clockwise (negative: counter-clockwise)."""
        return Direction((self.value - 1 + by) % 6 + 1)

    @property
    def opposite(self) -> Direction:
        return self.rotate(3)


class Terrain(StrEnum):
    """Standard rule 12.5: TFs may enter sea and partial-land hexes, never all-land ones."""

    SEA = "sea"
    PARTIAL = "partial"  # "sea/land" in seed 003, 7.9.6; coastal hexes
    LAND = "land"


# Axial steps (dq, dr) for directions 1..6 with rows growing south.
_AXIAL_STEPS: tuple[tuple[int, int], ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))


def _to_axial(h: Hex) -> tuple[int, int]:
    return h.col, h.row - (h.col - (h.col & 1)) // 2


def _from_axial(q: int, r: int) -> Hex:
    return Hex(q, r + (q - (q & 1)) // 2)


def distance(a: Hex, b: Hex) -> int:
    """Hexes from ``a`` to ``b``: counts ``b``'s hex, not ``a``'s (standard 7.11)."""
    aq, ar = _to_axial(a)
    bq, br = _to_axial(b)
    dq, dr = aq - bq, ar - br
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def step(h: Hex, toward: int, count: int = 1) -> Hex:
    """The hex ``count`` steps from ``h`` in direction ``toward`` (1..6)."""
    dq, dr = _AXIAL_STEPS[Direction(toward).value - 1]
    q, r = _to_axial(h)
    return _from_axial(q + dq * count, r + dr * count)


@lru_cache(maxsize=8192)
def neighbours(h: Hex) -> tuple[Hex, ...]:
    """The six adjacent hexes, in direction order N, NE, SE, S, SW, NW (kept: a search or a route
    asks for the same hexes' neighbours over and over, and a whole board has some 3,400)."""
    return tuple(step(h, d) for d in Direction)


def within(center: Hex, radius: int) -> Iterator[Hex]:
    """Every hex at distance 0..radius, nearest first, clockwise from north in each ring."""
    return iter(disc(center, radius))


@lru_cache(maxsize=1024)
def disc(center: Hex, radius: int) -> tuple[Hex, ...]:
    """:func:`within` as a tuple, kept: cloud cover and the maps ask for the same few discs every hour."""
    return tuple(h for ring_radius in range(max(radius, -1) + 1) for h in ring(center, ring_radius))


def ring(center: Hex, radius: int) -> Iterator[Hex]:
    """The hexes at exactly ``radius``, starting due north and going clockwise."""
    if radius == 0:
        yield center
        return
    h = step(center, Direction.N, radius)
    # From the north corner the ring's sides run SE, S, SW, NW, N, NE.
    for side in (Direction.SE, Direction.S, Direction.SW, Direction.NW, Direction.N, Direction.NE):
        for _ in range(radius):
            yield h
            h = step(h, side)


def _round_cube(x: float, z: float) -> tuple[int, int]:
    y = -x - z
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy <= dz:
        rz = -rx - ry
    return rx, rz


def line(a: Hex, b: Hex) -> list[Hex]:
    """The hexes from ``a`` to ``b`` inclusive, each adjacent to the next.

    Straight-line sampling of the hex centres; where the line runs exactly
    along a hexside the tiny nudge picks the same side every time, so the
    path is deterministic (and ``line(b, a)`` may differ from its reverse).
    """
    n = distance(a, b)
    aq, ar = _to_axial(a)
    bq, br = _to_axial(b)
    eps_q, eps_r = 1e-6, 2e-6
    hexes = []
    for i in range(n + 1):
        t = i / n if n else 0.0
        q, r = _round_cube(aq + eps_q + (bq - aq) * t, ar + eps_r + (br - ar) * t)
        hexes.append(_from_axial(q, r))
    return hexes


def direction(a: Hex, b: Hex) -> Direction | None:
    """The direction of the first step from ``a`` toward ``b`` (exact when adjacent); None if equal."""
    if a == b:
        return None
    first = line(a, b)[1]
    return next(d for d in Direction if step(a, d) == first)


def parse_direction(text: str) -> Direction | None:
    """``3``, ``SE`` or ``se`` -> Direction.SE; None otherwise."""
    word = text.strip().upper()
    if word.isdigit():
        return Direction(int(word)) if 1 <= int(word) <= 6 else None
    return Direction.__members__.get(word)


# --- board sections and IDs ---------------------------------------------------

_ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
_ID = re.compile(r"^\s*([IVX]+)\s*[-\s]?\s*([A-Z])(\2?)\s*-?\s*(\d{1,3})\s*$", re.IGNORECASE)


def roman(numeral: int) -> str:
    """1 -> ``I`` .. 12 -> ``XII`` (the board has at most a dozen sections)."""
    return _ROMAN[numeral - 1]


def parse_roman(text: str) -> int | None:
    word = text.strip().upper()
    return _ROMAN.index(word) + 1 if word in _ROMAN else None


def column_label(index: int) -> str:
    """0 -> ``A`` .. 25 -> ``Z``, 26 -> ``AA``, 27 -> ``BB`` .. 51 -> ``ZZ``."""
    if not 0 <= index < 52:
        raise ValueError(f"column label index {index} is not 0..51")
    letter = chr(ord("A") + index % 26)
    return letter * (1 + index // 26)


def column_index(label: str) -> int | None:
    """Inverse of :func:`column_label`; None for anything else (e.g. ``AB``)."""
    word = label.strip().upper()
    if not 1 <= len(word) <= 2 or not word.isalpha() or not word.isascii() or len(set(word)) != 1:
        return None
    return ord(word[0]) - ord("A") + 26 * (len(word) - 1)


@dataclass(frozen=True, slots=True)
class Sector:
    """One board section: a rectangle of the global grid and the labels printed on it.

    ``west``/``north`` are the global column/row of its north-west hex, which is
    labelled ``first_column`` (a column label index, 0 = ``A``) and ``first_row``.
    Labels grow by one per global column eastward and per global row southward.
    """

    numeral: int
    west: int
    north: int
    cols: int
    rows: int
    first_column: int = 0
    first_row: int = 1

    @property
    def name(self) -> str:
        return roman(self.numeral)

    def contains(self, h: Hex) -> bool:
        return self.west <= h.col < self.west + self.cols and self.north <= h.row < self.north + self.rows

    def label(self, h: Hex) -> str:
        """The ID of ``h`` on this section, e.g. ``V-F24`` (``h`` must lie on it)."""
        col = column_label(self.first_column + h.col - self.west)
        return f"{self.name}-{col}{self.first_row + h.row - self.north}"

    def hex_at(self, col_index: int, row_number: int) -> Hex | None:
        h = Hex(self.west + col_index - self.first_column, self.north + row_number - self.first_row)
        return h if self.contains(h) else None


@dataclass(frozen=True)
class Layout:
    """How the board sections tile the global grid."""

    sectors: tuple[Sector, ...]
    _by_numeral: Mapping[int, Sector] = field(init=False, repr=False, compare=False)
    # Answers about single hexes, remembered as they are asked: pure functions of the (immutable)
    # sections, asked thousands of times an hour (every hex id written, every on-board test).
    _owners: dict[Hex, tuple[Sector, ...]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )
    _ids: dict[Hex, str] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_numeral", MappingProxyType({s.numeral: s for s in self.sectors}))

    def sector(self, numeral: int) -> Sector | None:
        return self._by_numeral.get(numeral)

    def sectors_of(self, h: Hex) -> tuple[Sector, ...]:
        """The sections ``h`` is printed on: none (off the map), one, or more (shared)."""
        owners = self._owners.get(h)
        if owners is None:
            owners = self._owners[h] = tuple(s for s in self.sectors if s.contains(h))
        return owners

    def on_board(self, h: Hex) -> bool:
        return bool(self.sectors_of(h))

    def is_shared(self, h: Hex) -> bool:
        """True for the half hexes on a section boundary (seed 003, 6.4.1)."""
        return len(self.sectors_of(h)) > 1

    def home_sector(self, h: Hex) -> Sector | None:
        """The section that owns ``h``: the southern, then the eastern one if shared ([RW], A.1)."""
        owners = self.sectors_of(h)
        return max(owners, key=lambda s: (s.north, s.west)) if owners else None

    def hexes(self) -> Iterator[Hex]:
        """Every on-board hex once, column by column."""
        seen: set[Hex] = set()
        for s in self.sectors:
            for col in range(s.west, s.west + s.cols):
                for row in range(s.north, s.north + s.rows):
                    h = Hex(col, row)
                    if h not in seen:
                        seen.add(h)
                        yield h


def standard_layout(cols: int = 20, rows: int = 23, across: int = 4, down: int = 2) -> Layout:
    """Sections I..(across*down) left to right, top row first; neighbours share a column or row.

    Row numbers run on across the north/south boundary (the last row of I is
    the first row of V), and every section's columns start again at ``A``.
    Seed 003, 7.9.6 names I-F20, I-F22, I-G20 and V-F24 as hexes near one
    another on New Guinea, which fits rows that continue from I into V.
    """
    sectors = []
    for down_index in range(down):
        for across_index in range(across):
            north = down_index * (rows - 1)
            sectors.append(
                Sector(
                    numeral=down_index * across + across_index + 1,
                    west=across_index * (cols - 1),
                    north=north,
                    cols=cols,
                    rows=rows,
                    first_column=0,
                    first_row=north + 1,
                )
            )
    return Layout(tuple(sectors))


#: Design default (reference B.2, A.1): 8 sections, 4 across x 2 down, each 20
#: columns (A..T) x 23 rows; the north row I-IV has rows 1-23, the south row
#: V-VIII rows 23-45 (row 23 is shared). 77 x 45 hexes in all, at 20 nautical
#: miles a hex about 22.6 degrees of longitude by 15 of latitude.
STANDARD_LAYOUT = standard_layout()


def parse_hex_id(text: str, layout: Layout = STANDARD_LAYOUT) -> Hex | None:
    """``V-F24`` -> the global Hex; None if malformed or not on that board section."""
    match = _ID.match(text)
    if match is None:
        return None
    numeral = parse_roman(match[1])
    sector = layout.sector(numeral) if numeral is not None else None
    col = column_index(match[2] + match[3])
    if sector is None or col is None:
        return None
    return sector.hex_at(col, int(match[4]))


def hex_id(h: Hex, layout: Layout = STANDARD_LAYOUT) -> str:
    """The canonical ID of ``h`` (shared hexes: southern, then eastern section); ``?col,row`` off board."""
    known = layout._ids.get(h)
    if known is None:
        sector = layout.home_sector(h)
        known = layout._ids[h] = sector.label(h) if sector is not None else f"?{h.col},{h.row}"
    return known


def hex_ids(h: Hex, layout: Layout = STANDARD_LAYOUT) -> tuple[str, ...]:
    """Every ID of ``h``: one per section it is printed on."""
    return tuple(s.label(h) for s in layout.sectors_of(h))


@dataclass(frozen=True)
class HexMap:
    """The board as data: layout plus terrain (hexes not listed are all-sea)."""

    layout: Layout
    terrain: Mapping[Hex, Terrain] = field(default_factory=dict)
    _terrain_hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Hashable by content (the terrain is never changed after the board is read), so what is
        # worked out from a board alone can be kept per board (observe.coastwatcher_net).
        object.__setattr__(self, "_terrain_hash", hash(frozenset(self.terrain.items())))

    def __hash__(self) -> int:
        return hash((self.layout, self._terrain_hash))

    def terrain_of(self, h: Hex) -> Terrain:
        return self.terrain.get(h, Terrain.SEA)

    def on_board(self, h: Hex) -> bool:
        return self.layout.on_board(h)

    def is_shared(self, h: Hex) -> bool:
        return self.layout.is_shared(h)

    def parse(self, text: str) -> Hex | None:
        return parse_hex_id(text, self.layout)

    def hex_id(self, h: Hex) -> str:
        return hex_id(h, self.layout)

    def ships_may_enter(self, h: Hex) -> bool:
        """Standard rule 12.5: never an all-land hex, never off the board."""
        return self.on_board(h) and self.terrain_of(h) is not Terrain.LAND
