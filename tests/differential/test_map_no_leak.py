# SPDX-License-Identifier: GPL-3.0-or-later
"""Flat Top maps through the differential harness: what a side has not seen changes no map.

The worlds are those of ``test_flattop_no_leak`` (``mailbot.games.flattop.worlds``): a twin differs only in
enemy units and orders the side has not observed. Every seat's map SVG is drawn from its view
at every moment the harness compares (:class:`WithMap` puts it into the view), and the harness
requires it to be the same bytes in both worlds until the side observes a difference: the
picture attached to a letter and kept in the archive tells no more than the letter. The
zoomed inset (``map_inset``: the same drawing through a window around the side's units,
contacts and paths) is compared the same way: where the window stands tells no more either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from hypothesis import HealthCheck, given, settings

from mailbot.core.game import Event, Game
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.map.hexes import Hex, hex_id
from mailbot.games.flattop.units import Side, TaskForce
from mailbot.registry import GamePackage, default_registry
from mailbot.render.maps import draw_map
from mailbot.testing.contract import report_env
from mailbot.testing.differential import World, assert_no_leak, compare_example, compare_worlds

ENV = report_env(default_registry())

#: fewer examples than the letters' harness: the map adds one drawing per moment, and the
#: letters' own test already spends its budget on the probes that find leaks in the rules
EXAMPLES = 100


def pictures(view: Mapping[str, Any]) -> dict[str, Any]:
    """The seat's map SVG and its inset's ("" when the hour has none), drawn from ``view``."""
    picture = draw_map("flattop", view)
    assert picture is not None, "the Flat Top view has no map to draw"
    return {"map_svg": picture.svg, "map_inset": picture.inset or ""}


class WithMap:
    """The Flat Top plugin, but every view also carries the seat's map SVG (``map_svg``) and
    its inset's (``map_inset``)."""

    def __init__(self, game: Any) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def view(self, state: Any, events: Sequence[Event], seat: str | None) -> Mapping[str, Any]:
        view = self._game.view(state, events, seat)
        return {**view, **pictures(view)}


class LeakyMap(WithMap):
    """A map that marks every enemy TF, seen or not: what the comparison must catch."""

    def view(self, state: Any, events: Sequence[Event], seat: str | None) -> Mapping[str, Any]:
        view = dict(self._game.view(state, events, seat))
        enemy = [tf for tf in state.task_forces if seat is not None and tf.side.value != seat]
        spots = {hex_id(tf.hex): tf.hex.as_list() for tf in enemy}
        extra = [
            {"hex": h, "kind": "ships", "condition": 3, "age": 0, "label": "ships"} for h in sorted(spots)
        ]
        model = dict(view["map"]) | {"contacts": [*view["map"]["contacts"], *extra]}
        model["hexes"] = {**model["hexes"], **spots}
        return {**view, **pictures({"map": model})}


PACKAGE = replace(fw.PACKAGE, game=cast("Game[Any, Any]", WithMap(fw.PACKAGE.game)))


def check(package: GamePackage, example: fw.Example) -> None:
    verdict = compare_example(package, ENV, example, fw.observed)
    assert_no_leak(verdict)


@settings(
    max_examples=EXAMPLES,
    database=None,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(example=fw.examples())
def test_unobserved_enemy_facts_change_no_map(example: fw.Example) -> None:
    check(PACKAGE, example)


def test_the_compared_view_holds_the_seats_own_map() -> None:
    """Not a vacuous comparison: the SVG is there and shows the side's own task forces."""
    state = fw.searched()
    for seat in fw.SEATS:
        view = PACKAGE.game.view(state, (), seat)
        names = [tf["name"] for force in view["map"]["forces"] for tf in force["task_forces"]]
        assert names and all(f'data-name="{name}"' in view["map_svg"] for name in names)
        assert view["map_svg"].startswith("<?xml")


def test_the_comparison_catches_a_map_that_shows_an_unseen_enemy() -> None:
    """The twin holds one more Japanese TF, which no Allied observer has seen: only the leaky
    map differs between the worlds, and the harness says where."""
    base = fw.searched()
    ships = base.own_tfs(Side.JAPANESE)[0].ships[-1:]
    twin = replace(base, task_forces=(*base.task_forces, TaskForce(7, Side.JAPANESE, Hex(3, 18), ships)))
    first, second = World(base), World(twin)
    honest = compare_worlds(
        PACKAGE, ENV, seat="allied", first=first, second=second, letters=[], observed=fw.observed
    )
    assert not honest.leaked and honest.compared == ["start"]
    leaky = replace(fw.PACKAGE, game=cast("Game[Any, Any]", LeakyMap(fw.PACKAGE.game)))
    caught = compare_worlds(
        leaky, ENV, seat="allied", first=first, second=second, letters=[], observed=fw.observed
    )
    ((part, first, second),) = [
        (d.part, json.loads(d.first), json.loads(d.second)) for d in caught.differences
    ]
    assert part == "view" and first.pop("map_svg") != second.pop("map_svg")
    first.pop("map_inset"), second.pop("map_inset")  # the Allied forces span the board: no inset
    assert first == second


def test_the_compared_view_holds_the_inset_and_an_unseen_enemy_moves_no_window() -> None:
    """The Japanese of the searched world get an inset; a twin with one more Allied TF beside
    the window, unseen, gives the same window and bytes, while a map that showed that TF (the
    leaky one) would move the window to take it in."""
    base = fw.searched()
    ships = base.own_tfs(Side.ALLIED)[0].ships[-1:]
    twin = replace(base, task_forces=(*base.task_forces, TaskForce(9, Side.ALLIED, Hex(2, 18), ships)))
    seen = [PACKAGE.game.view(state, (), "japanese") for state in (base, twin)]
    assert seen[0]["map_inset"] and seen[0]["map_inset"] == seen[1]["map_inset"]
    # the labels placed for the inset are compared too: shown in it, hidden in the map
    assert '<g class="inset-labels">' in seen[0]["map_inset"]
    assert '<g class="inset-labels" display="none">' in seen[0]["map_svg"]
    model = dict(seen[1]["map"])  # the twin's TF shown as a contact: the window moves
    spot = {"hex": hex_id(Hex(2, 18)), "kind": "ships", "condition": 3, "age": 0, "label": "ships"}
    model["contacts"] = [*model["contacts"], spot]
    model["hexes"] = {**model["hexes"], spot["hex"]: [2, 18]}
    shown = pictures({"map": model})["map_inset"]
    assert shown and shown != seen[1]["map_inset"]
