# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo staffs' plans for the full Coral Sea: routes on the board's sea, moves along them, searches."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from mailbot.games.flattop import DEFAULT_SCENARIO
from mailbot.games.flattop.demo import DEMO
from mailbot.games.flattop.demo_plans import (
    ROUTES,
    SEARCH,
    TITLE,
    UNLOADING,
    Leg,
    course,
    next_hexes,
    plot_orders,
    plots,
    search_goal,
)
from mailbot.games.flattop.demo_reading import Contact, OwnShip, OwnTF, Report
from mailbot.games.flattop.map.hexes import distance, hex_id, parse_hex_id
from mailbot.games.flattop.map.scenario import ForceArrival, Scenario, require_scenario

from .conftest import load_scenario_data


@pytest.fixture(scope="module")
def coral(ft_tables: dict[str, Any]) -> Scenario:
    return require_scenario(load_scenario_data("coral-sea"), ft_tables)


def test_the_demo_plays_the_full_coral_sea_the_packages_default_scenario() -> None:
    assert DEMO.scenario == DEFAULT_SCENARIO == "coral-sea"


def test_every_route_starts_where_its_tf_enters_and_stays_on_water(coral: Scenario) -> None:
    """Standard 12.5: a TF never enters an all-land hex; each route begins at its TF's start hex."""
    starts = {(tf.side.value, tf.number): tf.hex for tf in coral.task_forces}
    arrivals = [a for a in coral.arrivals if isinstance(a, ForceArrival)]
    starts |= {(a.side.value, a.task_force.number): a.task_force.hex for a in arrivals}
    for key, legs in ROUTES.items():
        path = course(legs)
        assert path[0][0] == starts[key], key
        assert all(coral.map.ships_may_enter(h) for h, _ in path), (key, [hex_id(h) for h, _ in path])
        assert all(distance(a, b) == 1 for (a, _), (b, _) in itertools.pairwise(path)), key
    convoy = course(ROUTES[("japanese", 10)])
    assert convoy[-1][0] in coral.unloading and hex_id(convoy[-1][0]) == UNLOADING


def test_every_search_hex_is_on_the_board(coral: Scenario) -> None:
    for seat, days in SEARCH.items():
        for _, hexes in days:
            assert all(coral.map.on_board(parse_hex_id(h)) for h in hexes), seat  # type: ignore[arg-type]
    assert search_goal("allied", (1, 6), 1) == parse_hex_id("VII-K23")  # 4 May: Tulagi
    assert search_goal("japanese", (3, 6), 2) == parse_hex_id("VII-E34")
    assert search_goal("referee", (3, 6), 1) is None


def _hex(text: str) -> Any:
    return parse_hex_id(text)


def test_a_tf_moves_its_speed_along_its_route_and_waits_for_a_legs_hour() -> None:
    legs = (Leg("VII-F28"), Leg("VII-I36", (1, 16)))
    path = course(legs)
    assert next_hexes(_hex("VII-F28"), path, (1, 10), 2) == []  # Yorktown waits off Guadalcanal
    moved = next_hexes(_hex("VII-F28"), path, (1, 16), 2)
    assert moved == [path[1][0], path[2][0]]
    assert next_hexes(path[-1][0], path, (2, 6), 2) == []  # at the end of the route: it holds
    # Turned a hex into the wind (standard 6.10): it rejoins its route.
    off = _hex("VII-G29")
    back = next_hexes(off, path, (1, 17), 2)
    assert len(back) == 2 and distance(off, back[0]) == 1 and distance(back[0], back[1]) == 1


def _tf(number: int, where: str, ships: tuple[OwnShip, ...], speed: int = 2) -> OwnTF:
    return OwnTF(number, _hex(where), ships, speed=speed)


def test_the_convoy_unloads_at_port_moresby_and_carriers_hold_near_the_enemy() -> None:
    convoy = _tf(10, UNLOADING, (OwnShip("CL", "Yubari"), OwnShip("AP", "Chowa Maru")), speed=1)
    carriers = _tf(1, "VII-E34", (OwnShip("CV", "Shokaku"),))
    seen = Contact((3, 8), _hex("VI-N36"), "ships", 2, "TF: 2 carrier")
    report = Report(when=(3, 9), tfs={1: carriers, 10: convoy}, contacts=(seen,), title=TITLE)
    lines = plot_orders("japanese", report, plots("japanese", report))
    assert lines == ["PLOT TF1 HOLD", "UNLOAD TF10"]
    far = Report(when=(3, 9), tfs={1: carriers}, title=TITLE)
    moving = plot_orders("japanese", far, plots("japanese", far))
    assert moving[0].startswith("PLOT TF1 ") and moving[0] != "PLOT TF1 HOLD"
    # A TF that launches this turn holds (its planes take off from where it stands).
    assert plot_orders("japanese", far, plots("japanese", far, hold={1})) == ["PLOT TF1 HOLD"]
    # The plans are the full Coral Sea's: a letter of another scenario gets no moves from them.
    assert plots("japanese", Report(when=(3, 9), tfs={1: carriers})) == {}
