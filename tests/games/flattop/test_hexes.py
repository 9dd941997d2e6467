# SPDX-License-Identifier: GPL-3.0-or-later
"""The hex grid, board sections and hex IDs (reference A.3, B.2; seed 003, 6.4.1 and 7.9.6)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mailbot.games.flattop.map.hexes import (
    STANDARD_LAYOUT,
    Direction,
    Hex,
    HexMap,
    Layout,
    Sector,
    Terrain,
    column_index,
    column_label,
    direction,
    distance,
    hex_id,
    hex_ids,
    line,
    neighbours,
    parse_direction,
    parse_hex_id,
    ring,
    standard_layout,
    step,
    within,
)

hexes = st.builds(Hex, st.integers(-40, 120), st.integers(-40, 80))


def h(text: str) -> Hex:
    found = parse_hex_id(text)
    assert found is not None, text
    return found


# --- IDs --------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["I-F20", "I-F22", "I-G20", "V-F24"])
def test_seed_003_7_9_6_hex_ids_parse_and_echo(text: str) -> None:
    # seed 003, 7.9.6: "an AF over hex I-F20 ... I-F22 ... I-G20 ... V-F24"
    assert hex_id(h(text)) == text


def test_seed_003_7_9_6_hexes_lie_close_together_on_the_standard_layout() -> None:
    # The seed describes the four as one stretch of New Guinea; rows run on from I into V.
    assert distance(h("I-F20"), h("I-F22")) == 2
    assert distance(h("I-F22"), h("V-F24")) == 2
    assert distance(h("I-F20"), h("I-G20")) == 1


@pytest.mark.parametrize("text", ["v-f24", "V F24", "v f-24", " V-F24 ", "VF24"])
def test_ids_are_read_leniently(text: str) -> None:
    assert hex_id(h(text)) == "V-F24"


@pytest.mark.parametrize(
    "text", ["", "F24", "IX-A1", "I-U3", "I-AB3", "I-F0", "I-F24", "V-F22", "Q-F2", "I-F"]
)
def test_bad_or_off_section_ids_are_none(text: str) -> None:
    assert parse_hex_id(text) is None


def test_column_labels_double_after_z() -> None:
    assert [column_label(i) for i in (0, 25, 26, 27, 51)] == ["A", "Z", "AA", "BB", "ZZ"]
    assert column_index("BB") == 27
    assert column_index("AB") is None
    assert all(column_index(column_label(i)) == i for i in range(52))
    with pytest.raises(ValueError, match=r"0\.\.51"):
        column_label(52)


def test_a_hex_on_the_north_south_boundary_is_shared_and_named_by_the_southern_section() -> None:
    shared = h("I-F23")
    assert shared == h("V-F23")
    assert STANDARD_LAYOUT.is_shared(shared)
    assert hex_ids(shared) == ("I-F23", "V-F23")
    assert hex_id(shared) == "V-F23"


def test_a_hex_on_the_east_west_boundary_is_named_by_the_eastern_section() -> None:
    assert h("I-T5") == h("II-A5")
    assert hex_id(h("I-T5")) == "II-A5"
    assert STANDARD_LAYOUT.home_sector(h("I-T5")).numeral == 2  # type: ignore[union-attr]


def test_a_corner_hex_lies_on_four_sections() -> None:
    corner = h("I-T23")
    assert hex_ids(corner) == ("I-T23", "II-A23", "V-T23", "VI-A23")
    assert hex_id(corner) == "VI-A23"


def test_standard_layout_size() -> None:
    # 4 x 2 sections of 20 x 23 sharing one column or row: 77 x 45 hexes.
    assert sum(1 for _ in STANDARD_LAYOUT.hexes()) == 77 * 45
    assert [s.name for s in STANDARD_LAYOUT.sectors] == ["I", "II", "III", "IV", "V", "VI", "VII", "VIII"]


def test_every_standard_hex_id_round_trips() -> None:
    for each in STANDARD_LAYOUT.hexes():
        for text in hex_ids(each):
            assert parse_hex_id(text) == each


def test_off_board_hexes_have_a_placeholder_id() -> None:
    assert hex_id(Hex(-1, 0)) == "?-1,0"
    assert not STANDARD_LAYOUT.on_board(Hex(-1, 0))
    assert STANDARD_LAYOUT.home_sector(Hex(-1, 0)) is None


def test_a_custom_layout_may_label_its_first_hex_freely() -> None:
    layout = Layout((Sector(3, west=10, north=5, cols=4, rows=4, first_column=27, first_row=14),))
    assert parse_hex_id("III-BB14", layout) == Hex(10, 5)
    assert hex_id(Hex(13, 8), layout) == "III-EE17"
    assert parse_hex_id("III-AA14", layout) is None


def test_a_smaller_standard_layout() -> None:
    layout = standard_layout(cols=5, rows=4, across=2, down=1)
    assert [(s.west, s.north, s.first_row) for s in layout.sectors] == [(0, 0, 1), (4, 0, 1)]


# --- geometry -----------------------------------------------------------------------


def test_directions_run_clockwise_from_north_on_flat_topped_columns() -> None:
    # reference B.2: 1=N, 2=NE, 3=SE, 4=S, 5=SW, 6=NW; odd columns sit half a hex lower.
    origin = Hex(0, 0)
    assert neighbours(origin) == (Hex(0, -1), Hex(1, -1), Hex(1, 0), Hex(0, 1), Hex(-1, 0), Hex(-1, -1))
    assert neighbours(Hex(1, 0)) == (Hex(1, -1), Hex(2, 0), Hex(2, 1), Hex(1, 1), Hex(0, 1), Hex(0, 0))


def test_rulebook_path_bb14_to_bb17_is_one_column_of_adjacent_hexes() -> None:
    # reference A.3: the AF path BB14 -> BB15 -> BB16 -> BB17 runs down one column.
    layout = Layout((Sector(1, 0, 0, 30, 20),))
    path = [parse_hex_id(f"I-BB{row}", layout) for row in (14, 15, 16, 17)]
    assert all(p is not None for p in path)
    assert [direction(a, b) for a, b in itertools.pairwise(path)] == [Direction.S] * 3  # type: ignore[arg-type]


def test_directions_2_and_5_make_a_ne_sw_line() -> None:
    # standard 6.3: a cloud front lies along "directions 2 and 5".
    center = Hex(10, 10)
    ne, sw = step(center, 2, 5), step(center, 5, 5)
    assert distance(ne, sw) == 10
    assert line(sw, ne)[5] == center


def test_direction_helpers() -> None:
    assert Direction.N.opposite is Direction.S
    assert Direction.NW.rotate(1) is Direction.N
    assert Direction.N.rotate(-1) is Direction.NW
    assert parse_direction("se") is Direction.SE
    assert parse_direction("3") is Direction.SE
    assert parse_direction("7") is None
    assert parse_direction("east") is None
    assert direction(Hex(3, 3), Hex(3, 3)) is None
    assert direction(Hex(3, 3), Hex(3, 9)) is Direction.S


def test_distance_counts_the_target_hex_not_the_observers() -> None:
    # standard 7.11: the same hex is distance 0.
    assert distance(Hex(4, 4), Hex(4, 4)) == 0
    assert all(distance(Hex(4, 4), n) == 1 for n in neighbours(Hex(4, 4)))
    assert distance(Hex(0, 0), Hex(6, 0)) == 6
    assert distance(Hex(0, 0), Hex(0, 6)) == 6


def test_distance_across_a_section_boundary() -> None:
    assert distance(h("I-S10"), h("II-B10")) == 2
    assert distance(h("I-F22"), h("V-F25")) == 3
    assert distance(h("IV-T1"), h("V-A45")) == distance(Hex(76, 0), Hex(0, 44))


def test_within_and_ring() -> None:
    assert list(within(Hex(5, 5), 0)) == [Hex(5, 5)]
    assert list(within(Hex(5, 5), -1)) == []
    area = list(within(Hex(5, 5), 3))
    assert len(area) == len(set(area)) == 37
    assert [distance(Hex(5, 5), x) for x in area] == sorted(distance(Hex(5, 5), x) for x in area)
    assert next(iter(ring(Hex(5, 5), 2))) == Hex(5, 3)


@given(hexes, hexes)
def test_distance_is_symmetric_and_line_is_a_shortest_path(a: Hex, b: Hex) -> None:
    assert distance(a, b) == distance(b, a)
    path = line(a, b)
    assert path[0] == a and path[-1] == b
    assert len(path) == distance(a, b) + 1
    assert all(distance(x, y) == 1 for x, y in itertools.pairwise(path))


@given(hexes, st.integers(1, 6), st.integers(0, 12))
def test_step_walks_straight(start: Hex, toward: int, count: int) -> None:
    end = step(start, toward, count)
    assert distance(start, end) == count
    if count:
        assert direction(start, end) == Direction(toward)
        assert step(end, Direction(toward).opposite, count) == start


@given(hexes, hexes, hexes)
def test_triangle_inequality(a: Hex, b: Hex, c: Hex) -> None:
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@given(hexes, st.integers(0, 4))
def test_ring_sizes(center: Hex, radius: int) -> None:
    found = list(ring(center, radius))
    assert len(found) == max(1, 6 * radius)
    assert all(distance(center, x) == radius for x in found)


def test_hex_json_form() -> None:
    assert Hex(3, -2).as_list() == [3, -2]
    assert Hex.from_list([3, -2]) == Hex(3, -2)


def test_hex_map_terrain_and_ships() -> None:
    board = HexMap(STANDARD_LAYOUT, {h("I-F20"): Terrain.LAND, h("V-F24"): Terrain.PARTIAL})
    assert board.terrain_of(h("I-F20")) is Terrain.LAND
    assert board.terrain_of(h("I-A1")) is Terrain.SEA
    assert not board.ships_may_enter(h("I-F20"))
    assert board.ships_may_enter(h("V-F24"))
    assert not board.ships_may_enter(Hex(-1, -1))
    assert board.parse("V-F24") == h("V-F24")
    assert board.hex_id(h("I-F23")) == "V-F23"
    assert board.is_shared(h("I-F23"))
