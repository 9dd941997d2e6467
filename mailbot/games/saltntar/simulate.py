# SPDX-License-Identifier: GPL-3.0-or-later
"""Whole Salt'n'Tar races with scripted captains: what the rules give (``mailbot simulate salt-n-tar``).

Issue 19: read as written (Strain never clears), ordinary races ended with
every ship sunk. This plays races through the plugin itself (the same
``parse`` and ``resolve`` the moderator uses, with verifiable dice seeded
from the caller's ``random.Random``) so that a Strain recovery rule can be
chosen by measurement.

The course: ``ships`` ships of mixed types (cutter, Viking longship, small
merchant, schooner, ...) side by side on a hex grid (hexagons aligned
vertically), one side each, a finish line ``distance`` cells (3'' each) to
the north, wind direction and speed rolled as the seed says, a turn limit.
Each captain, every turn: takes the side's luck die (``luck`` "always") or
not ("never"); steers one point towards the heading that makes the most
way north at the present wind (never two points: that is Strain); reefs
while the ship carries Strain and shakes the reefs out once she is clear;
furls in a gale and sets sail again after it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from mailbot.core.dice import DiceStream
from mailbot.core.game import Line, Setup
from mailbot.core.simulation import Option, Simulation
from mailbot.games.saltntar.game import SaltNTarGame
from mailbot.games.saltntar.movement import gale, motion
from mailbot.games.saltntar.state import FURLED, REEFED, SET, Ship, State

TYPES = ("cutter", "viking-longship", "small-merchant", "schooner", "large-galley", "large-merchant")
GAME = SaltNTarGame()


def race_scenario(ships: int, distance: int, turn_limit: int) -> dict[str, Any]:
    """Ships in a row facing North; a finish line every path north must touch (y = r + q/2)."""
    width = ships * 3 + distance
    finish = [[q, distance - (q // 2)] for q in range(-width, width + 1)]
    return {
        "title": "simulated race",
        "kind": "race",
        "grid": "hex-vertical",
        "inches_per_cell": 3,
        "turn_limit": turn_limit,
        "finish": {"cells": finish},
        "ships": [
            {
                "name": f"S{n}",
                "seat": f"side{n}",
                "type": TYPES[n % len(TYPES)],
                "at": [2 * n, -n],
                "heading": 1,
            }
            for n in range(ships)
        ],
    }


def _north(state: State, direction: int) -> Fraction:
    dq, dr = state.grid.steps[direction - 1]
    return Fraction(dr) + Fraction(dq, 2)


def _way_north(state: State, ship: Ship, change: int) -> Fraction:
    heading = state.grid.rotate(ship.heading, change)
    way = motion(state, replace(ship, heading=heading), state.wind.speed)
    return way.speed * _north(state, way.direction)


def _steer(state: State, ship: Ship) -> str:
    if ship.anchored or ship.sinks_after is not None:
        return ""
    best = max((0, 1, -1), key=lambda change: _way_north(state, ship, change))
    return f"TURN {ship.name} {best:+d}" if best else ""


def _maneuver(state: State, ship: Ship) -> str:
    if ship.maneuver or ship.masts == 0:
        return ""
    if gale(state):
        return f"FURL {ship.name}" if ship.rig != FURLED else ""
    if ship.rig == FURLED:
        return f"SET SAIL {ship.name}"
    if ship.strain > 0 and ship.rig == SET:
        return f"REEF {ship.name}"
    if ship.strain == 0 and ship.rig == REEFED:
        return f"UNREEF {ship.name}"
    return ""


def captain(state: State, seat: str, luck: bool) -> list[str]:
    """The scripted captain's order lines for one side this turn."""
    lines = ["LUCK"] if luck else []
    for ship in state.fleet(seat):
        lines += [line for line in (_steer(state, ship), _maneuver(state, ship)) if line]
    return lines


@dataclass(frozen=True)
class RaceResult:
    winner: bool
    turn: int
    sunk: int


def play_race(
    scenario: Mapping[str, Any],
    data: Mapping[str, Any],
    options: Mapping[str, Any],
    luck: bool,
    rng: random.Random,
) -> RaceResult:
    seats = tuple(str(ship["seat"]) for ship in scenario["ships"])
    setup = Setup("sim", seats, dict(options), {**data, "scenarios": {"sim": scenario}})
    seed = rng.randbytes(32)
    state = GAME.new_game(setup, dice=DiceStream(seed, "", "setup"))
    while (step := GAME.step(state)) is not None:
        orders = {}
        for seat in sorted(step.owing):
            lines = [Line(n, text) for n, text in enumerate(captain(state, seat, luck), start=1)]
            orders[seat] = GAME.parse(state, seat, lines).orders
        state = GAME.resolve(state, orders, dice=DiceStream(seed, "", step.key)).state
    return RaceResult(bool(state.winners), state.turn, sum(ship.sunk for ship in state.ships))


@dataclass(frozen=True)
class Stats:
    races: int
    ships: int
    luck: bool
    recovery: str
    results: tuple[RaceResult, ...]

    @property
    def winner_share(self) -> float:
        return sum(r.winner for r in self.results) / self.races

    @property
    def sunk_share(self) -> float:
        return sum(r.sunk for r in self.results) / (self.races * self.ships)

    @property
    def mean_finish(self) -> float:
        won = [r.turn for r in self.results if r.winner]
        return sum(won) / len(won) if won else 0.0

    @property
    def all_sunk(self) -> float:
        return sum(r.sunk == self.ships for r in self.results) / self.races


def simulate(
    data: Mapping[str, Any],
    races: int,
    ships: int,
    luck: bool,
    rng: random.Random,
    *,
    recovery: str | None = None,
    distance: int = 40,
    turn_limit: int = 60,
) -> Stats:
    """Play ``races`` races; ``recovery`` overrides the tables' Strain recovery rule."""
    scenario = race_scenario(ships, distance, turn_limit)
    options = {"strain_recovery": recovery} if recovery else {}
    rule = recovery or str(data["tables"].get("strain_recovery", {}).get("rule", "none"))
    results = tuple(play_race(scenario, data, options, luck, rng) for _ in range(races))
    return Stats(races, ships, luck, rule, results)


def format_report(stats: Stats) -> list[str]:
    """Ends with ``share with a winner: 0.xxx`` and ``share of ships sunk: 0.xxx``."""
    return [
        f"salt-n-tar: {stats.races} races of {stats.ships} ships, "
        f"luck {'always' if stats.luck else 'never'}, Strain recovery: {stats.recovery}",
        f"races in which every ship sank: {stats.all_sunk:.3f}",
        f"mean finishing turn (races with a winner): {stats.mean_finish:.1f}",
        f"share with a winner: {stats.winner_share:.3f}",
        f"share of ships sunk: {stats.sunk_share:.3f}",
    ]


def _run(options: Mapping[str, Any], rng: random.Random, data: Mapping[str, Any]) -> list[str]:
    recovery = options["recovery"]
    stats = simulate(
        data,
        int(options["races"]),
        int(options["ships"]),
        options["luck"] == "always",
        rng,
        recovery=None if recovery is None else str(recovery),
        distance=int(options["distance"]),
    )
    return format_report(stats)


SIMULATION = Simulation(
    "salt-n-tar",
    "Salt'n'Tar (seed 001): whole races with scripted captains; winners and sinkings.",
    (
        Option("ships", int, 3, "Ships in each race, one side each.", low=1, high=12),
        Option("races", int, 1000, "Races to sail.", low=1),
        Option(
            "luck",
            str,
            "always",
            "Every side takes its luck roll, or none does.",
            choices=("always", "never"),
        ),
        Option(
            "recovery",
            str,
            None,
            "Strain recovery (default: the rule in tables.toml).",
            choices=("none", "reefed", "any"),
        ),
        Option("distance", int, 40, "Cells (3'' each) to the finish line.", low=1),
    ),
    _run,
)
