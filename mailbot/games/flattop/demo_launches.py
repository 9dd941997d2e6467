# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flat Top demo's air orders for an hour (:mod:`mailbot.games.flattop.demo`): each AF aloft
flies on, attacks or heads home; each carrier TF launches a strike at a ships contact in reach,
or a pair of searchers where the contact is or the staff's plan expects the enemy, and readies
what its Readying Factor allows. The AF numbers keep strikes (AF21 up) and searchers apart."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mailbot.games.flattop.demo_flying import (
    CARRIERS,
    PLANES,
    launch_path,
    may_go_on,
    path_text,
    route,
    strike_reach,
    sweep,
    turns_to_fly,
)
from mailbot.games.flattop.demo_plans import planned, search_goal
from mailbot.games.flattop.demo_reading import LF_LOSS, OwnAF, OwnTF, Report, Stack
from mailbot.games.flattop.map.hexes import Hex, distance, hex_id, parse_hex_id

#: where a staff without a plan for the scenario looks for the enemy carriers (the surface demo's)
SECTOR = {"allied": "VII-E34", "japanese": "VI-N36"}
SEARCH_PLANE = {"allied": "Wildcat", "japanese": "Zero"}
FIRST_STRIKE_AF = 21  # strikes are AF21 and up, searchers AF1-AF20: the numbers never clash
LAST_AF = 35  # standard 14: AFs are numbered 1-35 per side
MIN_WAVE = 3  # a smaller group of one type only feeds the AA: it stays in the Ready box
MIN_STRIKE = 6  # fewer armed factors would melt in a carrier group's AA (34 factors in TF 17)
SEARCH_LAST_HOUR = 16  # no new searcher takes off after this hour
#: own bases that take carrier planes (LP, the scenario's base list), for planes that cannot reach a carrier
LP_BASES = {"allied": ("Port Moresby",), "japanese": ("Rabaul", "Lae", "Gasmata", "Kavieng")}


@dataclass
class Deck:
    """What the carrier TF may still do this turn: factors to launch, box moves (Readying Factor)."""

    launch: int
    minimum: int
    readying: int
    numbers: set[int] = field(default_factory=set)  # AF numbers in use (aloft or launched now)
    landing: int = 0  # factors ordered to land on the TF this turn (they count toward 6.10 too)

    def free(self, low: int, high: int) -> int | None:
        number = next((n for n in range(low, high + 1) if n not in self.numbers), None)
        if number is not None:
            self.numbers.add(number)
        return number


def deck_of(tf: OwnTF, air: Mapping[int, OwnAF]) -> Deck:
    """The TF's LF and Readying Factor from its carriers' counters, less the LF its hits cost."""
    launch = minimum = readying = 0
    for ship in tf.carriers:
        data = CARRIERS.get(ship.name)
        if data is None or ship.name in tf.grounded:  # 21.2.3 or a critical hit: she flies nothing
            continue
        normal_loss, min_loss = LF_LOSS[ship.type]
        launch += max(0, data.launch - ship.hits * normal_loss)
        minimum += max(0, data.launch_min - ship.hits * min_loss)
        readying += data.readying
    return Deck(launch, minimum, readying, set(air))


def _home(seat: str, report: Report, af: OwnAF) -> tuple[str, Hex | None]:
    """Where ``af`` lands: the carrier TF it came from. A plane enters a storm hex only to land
    there, by the Night Landing Chart (standard 6.6), and a TF that starts in one cannot move
    (6.8): while its carriers sit in a storm the AF hopes for it to pass, and takes the nearest
    other carrier TF or own land base out of the storms when it must head home and can still
    reach that one (or when its carriers are lost): this player would rather not risk the chart."""
    origin = report.tfs.get(int(af.origin[2:])) if re.fullmatch(r"TF\d+", af.origin) else None
    home = origin if origin is not None and origin.carriers else None
    places = [(f"TF{tf.number}", tf.hex) for tf in report.tfs.values() if tf.carriers and tf is not home]
    places += [(name.replace(" ", "-"), h) for name, h in report.bases.items() if name in LP_BASES[seat]]
    clear = [(word, h) for word, h in places if h not in report.storms]
    other = min(clear, key=lambda p: (distance(af.hex, p[1]), p[0]), default=None)
    if home is None:
        return other or (af.origin, None)
    must_turn = af.range_left <= turns_to_fly(distance(af.hex, home.hex), af.mf) + 1
    reaches = other is not None and turns_to_fly(distance(af.hex, other[1]), af.mf) <= af.range_left
    if home.hex in report.storms and must_turn and reaches and other is not None:
        return other
    return f"TF{home.number}", home.hex


def _hours(when: tuple[int, int]) -> int:
    day, hour = when
    return day * 24 + hour


def target_for(report: Report, near: Hex) -> Hex | None:
    """The ships contact to strike: of those seen in the last two turns carriers first, then the
    newest, then the nearest; an older contact only when there is no fresh one."""
    ships = [c for c in report.contacts if c.kind == "ships"]
    newest = max((_hours(c.when) for c in ships), default=0)
    best = max(
        ships,
        key=lambda c: (_hours(c.when) >= newest - 1, c.carriers, c.when, -distance(near, c.hex)),
        default=None,
    )
    return best.hex if best else None


def scouted(report: Report, target: Hex | None) -> Hex | None:
    """Where the searchers keep watch: the strike's target; with a staff plan only a carrier contact.
    A base's ships, reported every hour (Tulagi's anchorage under the coastwatchers' eyes), would
    else hold every searcher over them while the enemy carriers come unseen: the searchers look for
    the carriers where the plan expects them (:func:`expected`) and the strikes still go at the base."""
    if target is None or not planned(report):
        return target
    carriers = any(c.hex == target and c.kind == "ships" and c.carriers for c in report.contacts)
    return target if carriers else None


def expected(report: Report, seat: str, number: int) -> Hex:
    """Where searcher ``number`` looks with no ships contact: the staff's plan for the day
    (:func:`demo_plans.search_goal`); in another scenario the enemy's usual sector (:data:`SECTOR`)."""
    goal = search_goal(seat, report.when, number) if planned(report) else parse_hex_id(SECTOR[seat])
    return goal if goal is not None else parse_hex_id(SECTOR[seat]) or Hex(0, 0)


def flight_orders(seat: str, report: Report, target: Hex | None) -> list[str]:
    """Each AF aloft: strikes fly at the target and attack, searchers search on, the rest go home."""
    lines, scout = [], scouted(report, target)
    for af in sorted(report.air.values(), key=lambda a: a.number):
        goal = (target if af.number >= FIRST_STRIKE_AF else scout) or expected(report, seat, af.number)
        place, home = _home(seat, report, af)
        if home is None:
            continue  # nowhere to land: it holds (its orders could only be refused)
        if report.night:
            lines.append(_homeward(af, place, home, report.storms))
        elif af.number >= FIRST_STRIKE_AF and af.armed and may_go_on(af, goal, home):
            lines.append(_search(af, goal, report.storms, "IF SHIPS ATTACK"))
        elif af.number < FIRST_STRIKE_AF and may_go_on(af, goal, home):
            lines.append(_search(af, goal, report.storms, "IF SHIPS CLOSE 3"))
        else:
            lines.append(_homeward(af, place, home, report.storms))
    return lines


def _search(af: OwnAF, goal: Hex, storms: frozenset[Hex], reaction: str) -> str:
    climb = _dives(af)
    path = sweep(af.hex, goal, storms, af.mf - int(climb)) or [af.hex]  # boxed in by storms: stay, look again
    words = [hex_id(h) for h in path]
    if climb:  # a dive starts High (14.11), and armed planes climb only after their take-off turn (14.15)
        words[0] += "@HIGH"
    return f"SEARCH AF{af.number} PATH {' '.join(words)} {reaction}"


def _dives(af: OwnAF) -> bool:
    """A strike of bombs alone (no torpedoes): it attacks from High, diving."""
    return af.number >= FIRST_STRIKE_AF and af.armed and all(s.load in ("GP", "AP") for s in af.stacks)


def _homeward(af: OwnAF, place: str, home: Hex, storms: frozenset[Hex]) -> str:
    """Home around the storms (LAND flies straight and a storm stops it), landing with the MP left:
    one MP is kept for the last hop, the carriers may have moved a hex since the report."""
    path = route(af.hex, home, storms, af.mf - 1)
    if not path:
        return f"LAND AF{af.number} {place}"
    return f"FLY AF{af.number} PATH {path_text(path)} RETURN {place}"


def landing_load(lines: Sequence[str], report: Report, place: str) -> int:
    """Factors ordered to land on ``place`` (they count toward the turn into the wind, 6.10)."""
    landing = re.compile(rf"(?:LAND AF(\d+) {place}|FLY AF(\d+) .* RETURN {place})$")
    numbers = (int(m[1] or m[2]) for line in lines if (m := landing.match(line)))
    return sum(report.air[n].factors for n in numbers if n in report.air)


def strike_launches(report: Report, tf: OwnTF, goal: Hex, deck: Deck) -> list[str]:
    """Every armed bomber type in the Ready box that can reach ``goal``: one normal launch each, as
    many factors as the LF and Readying Factor allow. The types go together (dive and torpedo bombers
    on one target split its AA and each rolls its own column): a stack too small to strike alone
    joins the others, and the launch goes when the whole is at least :data:`MIN_STRIKE` factors.
    A second wave the next turn takes what the first left in the box, so a crippled ship is hit
    again while she is still in reach."""
    launch, readying = deck.launch, deck.readying
    planned: list[tuple[Stack, int, list[Hex]]] = []
    for stack in sorted(tf.boxes.get("ready", ()), key=lambda s: (-s.count, s.plane)):
        plane = PLANES.get(stack.plane)
        if plane is None or not stack.load or not strike_reach(tf.hex, goal, plane, report.when[1]):
            continue
        count = min(stack.count, launch, readying)
        path = launch_path(report, tf, goal, math.ceil(plane.movement / 2))
        if count < MIN_WAVE or not path:
            continue
        launch, readying = launch - count, readying - count
        planned.append((stack, count, path))
    if sum(count for _, count, _ in planned) < MIN_STRIKE:
        return []
    lines = []
    # The torpedo AF takes the lower number, so it attacks first (strikes go in AF order): a ship the
    # dive bombers sink is gone before the torpedoes, which cannot be turned on anything else.
    for stack, count, path in sorted(planned, key=lambda p: p[0].load != "TORPEDO"):
        if (number := deck.free(FIRST_STRIKE_AF, LAST_AF)) is None:
            break
        deck.launch, deck.readying = deck.launch - count, deck.readying - count
        order = f"FROM TF{tf.number} {count} {stack.plane} {stack.load} NORMAL"
        lines.append(f"SEARCH AF{number} {order} PATH {path_text(path)} IF SHIPS ATTACK")
    return lines


def search_launch(seat: str, report: Report, tf: OwnTF, target: Hex | None, deck: Deck) -> list[str]:
    """A pair of searchers: a minimum launch (full MF) if the LF allows, else a normal one (half
    MF). Unarmed planes first, armed ones keep their load for a strike."""
    plane, count = SEARCH_PLANE[seat], 2
    stacks = [s for s in tf.boxes.get("ready", ()) if s.plane == plane and s.count >= count]
    stack = min(stacks, key=lambda s: (s.load != "", s.load), default=None)
    if stack is None or count > min(deck.launch, deck.readying) or report.when[1] > SEARCH_LAST_HOUR:
        return []
    if (number := deck.free(1, FIRST_STRIKE_AF - 1)) is None:
        return []
    goal = target or expected(report, seat, number)
    minimum = count <= deck.minimum
    mp = PLANES[plane].movement if minimum else math.ceil(PLANES[plane].movement / 2)
    # Within the Minimum LF the TF holds its hex unless the landings turn it into the wind.
    turns = count + deck.landing > deck.minimum
    path = launch_path(report, tf, goal, mp) if turns else sweep(tf.hex, goal, report.storms, mp)
    if not path:
        return []
    deck.readying -= count
    # The load is named only when the Ready box holds the plane with more than one.
    loads = {s.load for s in tf.boxes.get("ready", ()) if s.plane == plane}
    load = f" {stack.load or 'UNARMED'}" if len(loads) > 1 else ""
    launch = f"FROM TF{tf.number} {count} {plane}{load}" + ("" if minimum else " NORMAL")
    return [f"SEARCH AF{number} {launch} PATH {path_text(path)} IF SHIPS CLOSE 2"]


def ready_orders(tf: OwnTF, deck: Deck) -> list[str]:
    """The Readying box to the Ready box with the Readying Factor left: bombers armed, then fighters."""
    lines = []
    known = [(s, PLANES[s.plane]) for s in tf.boxes.get("readying", ()) if s.plane in PLANES]
    for stack, plane in sorted(known, key=lambda pair: (not pair[1].load, pair[0].plane)):
        count = min(stack.count, deck.readying)
        if count < 1:
            continue
        deck.readying -= count
        lines.append(f"READY TF{tf.number} {count} {stack.plane}" + (f" {plane.load}" if plane.load else ""))
    return lines


def searching(report: Report, target: Hex | None, seat: str) -> int:
    """How many searchers aloft search on this turn."""
    return sum(
        af.number < FIRST_STRIKE_AF
        and (home := _home(seat, report, af)[1]) is not None
        and may_go_on(af, target or expected(report, seat, af.number), home)
        for af in report.air.values()
    )


def carrier_orders(
    seat: str, report: Report, tf: OwnTF, numbers: set[int], lines: Sequence[str]
) -> list[str]:
    """One carrier TF's launches (``numbers``: the AF numbers in use, shared by the side's TFs)."""
    target = target_for(report, tf.hex)
    deck = deck_of(tf, report.air)
    deck.numbers = numbers
    launches: list[str] = []
    # Nothing takes off into the night, nor from carriers in a storm: landing on them again would
    # roll the Night Landing Chart (standard 6.6), a risk this player does not take.
    if not report.night and tf.hex not in report.storms:
        launches = strike_launches(report, tf, target, deck) if target is not None else []
        # One searcher keeps a contact; two look for the enemy when there is none.
        scout = scouted(report, target)
        if not launches and searching(report, scout, seat) < (1 if scout else 2):
            deck.landing = landing_load(lines, report, f"TF{tf.number}")
            launches = search_launch(seat, report, tf, scout, deck)
    return [*launches, *ready_orders(tf, deck)]
