# SPDX-License-Identifier: GPL-3.0-or-later
"""A scripted Flat Top player for the by-mail demo (the full coral-sea scenario).

:func:`flattop_orders` reads the side's own letter (the text part of the package's
``templates/report.txt.j2``, as mail brings it: wrapped at 72 columns, CRLF line
ends) and answers with lines in the normalised syntax of
:mod:`mailbot.games.flattop.orders.parse` and :mod:`mailbot.games.flattop.orders.combat`.
It knows only what a player knows: its own units, its contacts, the storms and
winds printed in the report, the factors printed on its own counters
(:data:`CARRIERS`, :data:`PLANES`) and its staff's plan: where its task forces steam
and where the enemy can be (:mod:`mailbot.games.flattop.demo_plans`). Every carrier TF
searches, strikes and readies on its own; one that launches holds its hex that turn.

How it plays, as a careful carrier admiral would:

- readying: every plane in the Readying box goes to the Ready box as the
  Readying Factor allows, bombers armed (GP, AP, TORPEDO), fighters as CAP;
- search: pairs of planes (Allied fighters: the dive bombers are kept for the
  strikes) fly to the newest ships contact and round the hexes
  next to it, or with no contact to the sector and upwind of it (carriers steam
  into the wind to fly, standard 6.10); one pair keeps a contact, two look
  for the enemy; each flies home while its range allows. With a staff plan only a
  carrier contact holds them: a base's ships (Tulagi) are struck, and the searchers
  look on for the carriers where the plan expects them (:func:`scouted`);
- strike: when a ships contact (carriers first) is within reach of the armed
  plane types in the Ready box (at least :data:`MIN_STRIKE` factors in all;
  dive and torpedo bombers go together, the torpedo AF first), and the
  strike can be home before nightfall, it takes off (a normal launch, AF21 and
  up so it never clashes with a searcher) and flies to the contact as an armed
  search with ``IF SHIPS ATTACK``, so a target that moved a hex is still found;
  afterwards it flies home;
- the strike step (``T<n>.strike``): every AF that declared an attack is aimed
  at one ship named in the precise makeup (seed 003, 15 LI 1): the one
  "burning and listing heavily", else a smoking one, else the best type
  present (hits spread over ships sink none), never a ship "dead in the
  water" while another is left (LI 4: a doomed ship may only be slow to sink);
- the losses step (``T<n>.losses``): the enemy types present are ranked
  bombers first (15 LI 3), since they are what threatens the carriers;
- storms (standard 6.6, 6.8): no plane flies into one, so nothing takes off
  from carriers caught in a storm, and planes fly home around storms; while
  their carriers sit in one they wait, and divert to another carrier or a land
  base when they must land and can still reach it;
- nightfall: nothing takes off, everything aloft flies home;
- the staff's review (full Coral Sea only): from the third day's nightfall letter on, a
  side that has lost more carriers (sunk, or no launch factor left) than it sank sends
  CONCEDE instead of orders (:func:`concedes`): the carrier battle is lost, and the
  remaining days could only bring it more losses. So the demo's game ends in about
  three days instead of five.

Launches begin their path with the hex one step into the wind: a carrier TF that
launches or lands more than its Minimum LF turns into the wind (standard 6.10),
and from either hex that path is legal.

Pure: no I/O; the only state is the letter's text and the step key.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mailbot.core.demo import DemoScript, orders
from mailbot.games.flattop.demo_plans import (
    CARRIER_NAMES,
    planned,
    plot_orders,
    plots,
    reviewed,
    search_goal,
)
from mailbot.games.flattop.demo_reading import (
    LF_LOSS,
    Makeup,
    OwnAF,
    OwnShip,
    OwnTF,
    Report,
    Stack,
    read_losses,
    read_makeups,
    read_report,
    unix_lines,
)
from mailbot.games.flattop.demo_steps import answer_step
from mailbot.games.flattop.map.hexes import (
    STANDARD_LAYOUT,
    Hex,
    distance,
    hex_id,
    neighbours,
    parse_hex_id,
    step,
)

#: where a staff without a plan for the scenario looks for the enemy carriers (the surface demo's)
SECTOR = {"allied": "VII-E34", "japanese": "VI-N36"}
SEARCH_PLANE = {"allied": "Wildcat", "japanese": "Zero"}
DECEPTION = {"allied": "DECEPTION RANDOM", "japanese": "DECEPTION MAXIMAL"}
FIRST_STRIKE_AF = 21  # strikes are AF21 and up, searchers AF1-AF20: the numbers never clash
LAST_AF = 35  # standard 14: AFs are numbered 1-35 per side
MIN_WAVE = 3  # a smaller group of one type only feeds the AA: it stays in the Ready box
MIN_STRIKE = 6  # fewer armed factors would melt in a carrier group's AA (34 factors in TF 17)
LAST_LIGHT = 19  # the first night hour (tables/time.toml): strikes are home before it
SEARCH_LAST_HOUR = 16  # no new searcher takes off after this hour


@dataclass(frozen=True)
class PlaneData:
    movement: int  # MF
    range: int  # turns aloft
    load: str = ""  # what READY arms it with ("" = a fighter, unarmed)


#: own plane counters (tables/planes.toml, design defaults): MF, range, the load READY gives
PLANES: Mapping[str, PlaneData] = {
    "Dauntless": PlaneData(9, 6, "GP"),
    "Devastator": PlaneData(6, 5, "TORPEDO"),
    "Wildcat": PlaneData(8, 6),
    "Val": PlaneData(9, 7, "AP"),
    "Kate": PlaneData(7, 7, "TORPEDO"),
    "Zero": PlaneData(10, 8),
}


@dataclass(frozen=True)
class CarrierData:
    launch: int  # normal LF
    launch_min: int  # minimum LF
    readying: int  # Readying Factor


#: own carrier counters (tables/ships.toml [classes], reference A.14)
CARRIERS: Mapping[str, CarrierData] = {
    "Yorktown": CarrierData(11, 3, 9),
    "Lexington": CarrierData(12, 3, 8),
    "Shokaku": CarrierData(10, 3, 8),
    "Zuikaku": CarrierData(10, 3, 8),
    "Shoho": CarrierData(4, 2, 4),
}
#: the enemy types to destroy first (15 LI 3): torpedo bombers, dive bombers, then fighters
RANK_FIRST = {"allied": ("Kate", "Val", "Zero"), "japanese": ("Devastator", "Dauntless", "Wildcat")}
#: ship types in the order the script aims at them (combat.battle.DEFAULT_PRIORITY)
TARGET_TYPES = ("CV", "CVL", "BB", "CA", "CAV", "AV", "CL", "AP", "AO", "APD", "DD", "PG")
#: own bases that take carrier planes (LP, the scenario's base list), for planes that cannot reach a carrier
LP_BASES = {"allied": ("Port Moresby",), "japanese": ("Rabaul", "Lae", "Gasmata", "Kavieng")}
DEAD = "dead in the water"
SMOKING = "smoking"
BURNING = "burning and listing heavily"
#: types whose Damage Factor is 1 or 2 (tables/ships.toml): they sink at once, never slowly (LI 4)
SMALL_SHIPS = frozenset({"DD", "APD", "PG"})
#: ship types a strike finishes when "dead in the water", by urgency (:func:`_picks`)
DEAD_URGENCY = {"CV": 1, "CVL": 1}

# --- the strike and losses steps ---------------------------------------------------------------


@dataclass(frozen=True)
class TypeDamage:
    """One type's entry in a TF's makeup: ``2 CV (one smoking, one burning and listing heavily)``."""

    ships: int = 0
    smoking: int = 0
    burning: int = 0
    dead: int = 0

    @property
    def afloat(self) -> int:
        """Ships not yet dead in the water: labels 1 .. afloat (labels number a type least hit first)."""
        return self.ships - self.dead


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def type_damage(entry: str, ship_type: str) -> TypeDamage:
    """The ships of one type in a TF's makeup and the damage words the makeup gives them (LI 3)."""
    found = re.search(rf"(\d+) {ship_type}(?: \(([^)]*)\))?(?:,| and|$)", entry)
    if found is None:
        return TypeDamage()
    counts = {w: n for n, w in enumerate(_WORDS)}
    states = {SMOKING: 0, BURNING: 0, DEAD: 0}
    for part in (found[2] or "").split(", "):
        number, _, state = part.partition(" ")
        if state in states:
            states[state] += counts.get(number, int(number) if number.isdigit() else 0)
    return TypeDamage(int(found[1]), states[SMOKING], states[BURNING], states[DEAD])


def _picks(letter: str, ship_type: str, damage: TypeDamage) -> list[tuple[int, str]]:
    """(urgency, label) of the ships of one type worth a strike: 0 the worst-hit ship "burning and
    listing heavily" (at least half her Damage Factor), 1 a carrier "dead in the water", 2 the
    worst-hit smoking one, 3 an intact one; small ships (Damage Factor 1 or 2) count as intact.
    A carrier dead in the water may be doomed already (LI 4: "possibly leading the opponent to waste
    more ordnance on a doomed ship") or only crippled, and a crippled carrier towed home fights again:
    the attacker cannot tell, so he finishes her (:data:`DEAD_URGENCY`). Other ships dead in the water
    are left alone: the ordnance is better spent on a ship still fighting.

    Labels number a TF's ships of one type from the least hit up (``combat.battle.label_target``):
    intact, smoking, burning, then dead in the water."""
    ships, dead, burning = damage.ships, damage.dead, damage.burning
    if ship_type in SMALL_SHIPS:  # Damage Factor 1 or 2: any hit that sinks her sinks her at once (LI 4)
        return [(3, f"{letter}-{ship_type}1")] if ships > dead else []
    picks = [(3, 1)] if ships > damage.smoking + burning + dead else []
    if damage.smoking:
        picks.append((2, ships - dead - burning))
    if burning:
        picks.append((0, ships - dead))
    if dead and ship_type in DEAD_URGENCY:
        picks.append((DEAD_URGENCY[ship_type], ships))
    return [(urgency, f"{letter}-{ship_type}{number}") for urgency, number in picks]


def choose_target(makeup: Makeup) -> str:
    """The label to aim every AF of ``makeup`` at. Hits spread over several ships sink none, so the
    whole strike goes at one ship, the one nearest to going down (:func:`_picks`); among equals the
    first type of :data:`TARGET_TYPES`, then the first TF."""
    found = []
    for rank, ship_type in enumerate(TARGET_TYPES):
        for letter, entry in sorted(makeup.tfs.items()):
            for urgency, label in _picks(letter, ship_type, type_damage(entry, ship_type)):
                if label in makeup.labels:
                    found.append((urgency, rank, letter, label))
    return min(found)[-1] if found else (makeup.labels[0] if makeup.labels else "BASE")


def strike_orders(text: str) -> list[str]:
    """TARGET lines for every AF that declared an attack; PRIORITY if the letter names none."""
    lines = [f"TARGET AF{af} {choose_target(m)}" for m in read_makeups(text) for af in m.afs]
    return lines or ["PRIORITY " + " ".join(TARGET_TYPES)]


def rank_orders(seat: str, text: str) -> list[str]:
    """RANK lines: the enemy types present, bombers first (15 LI 3)."""
    first = RANK_FIRST.get(seat, ())
    lines = []
    for label, planes in read_losses(text):
        ranked = sorted(planes, key=lambda p: (first.index(p) if p in first else len(first), p))
        # A base's label has spaces: its ranking is sent for every place (RANK <types>).
        lines.append(" ".join(["RANK", *([label] if " " not in label else []), *ranked]))
    return list(dict.fromkeys(lines)) or ["RANK " + " ".join(first)]


# --- flying ------------------------------------------------------------------------------------


def route(start: Hex, goal: Hex, storms: frozenset[Hex], limit: int) -> list[Hex]:
    """The first ``limit`` hexes of a shortest on-board path around storms (breadth first)."""
    before: dict[Hex, Hex | None] = {start: None}
    queue = deque([start])
    while queue and goal not in before:
        here = queue.popleft()
        for h in neighbours(here):
            if h not in before and STANDARD_LAYOUT.on_board(h) and h not in storms:
                before[h] = here
                queue.append(h)
    end = goal if goal in before else min(before, key=lambda h: _distance_key(h, goal))
    path: list[Hex] = []
    step: Hex | None = end
    while step is not None and step != start:  # the start's own entry is None
        path.append(step)
        step = before[step]
    return list(reversed(path))[: max(limit, 0)]


def _distance_key(h: Hex, goal: Hex) -> tuple[int, int, int]:
    return distance(h, goal), h.col, h.row


def sweep(start: Hex, goal: Hex, storms: frozenset[Hex], mp: int) -> list[Hex]:
    """``mp`` hexes: toward ``goal`` around storms, then round the hexes next to it, since what was
    seen there last turn may have moved a hex (a TF turning into the wind, standard 6.10)."""
    path = route(start, goal, storms, mp)
    if (path[-1] if path else start) != goal:
        return path
    for h in (*neighbours(goal), *neighbours(goal)[:1]):
        if len(path) >= mp or h in storms or not STANDARD_LAYOUT.on_board(h):
            break
        path.append(h)
    return path


def _path_text(path: Sequence[Hex]) -> str:
    return " ".join(hex_id(h) for h in path)


def into_the_wind(report: Report, tf: OwnTF) -> Hex | None:
    """The hex one step into the wind from ``tf`` (standard 6.10), None when no plane may fly there."""
    sectors = STANDARD_LAYOUT.sectors_of(tf.hex)
    wind = report.winds.get(sectors[0].numeral) if sectors else None
    if wind is None:
        return None
    there = step(tf.hex, wind.opposite)
    return there if STANDARD_LAYOUT.on_board(there) and there not in report.storms else None


def launch_path(report: Report, tf: OwnTF, goal: Hex, mp: int) -> list[Hex]:
    """A take-off path of ``mp`` hexes toward ``goal`` that is legal whether or not the TF turns into
    the wind first: it starts in the hex into the wind (a step from the TF, staying put from there)."""
    wind = into_the_wind(report, tf)
    if wind is None:
        return []
    return [wind, *sweep(wind, goal, report.storms, mp - 1)]


def turns_to_fly(d: int, mf: int) -> int:
    return max(math.ceil(d / mf), 0) if mf > 0 else 99


def may_go_on(af: OwnAF, goal: Hex, home: Hex) -> bool:
    """Whether ``af`` may fly on toward ``goal`` this turn and still be home with a turn to spare."""
    after = distance(goal, home)
    if distance(af.hex, goal) > af.mf:  # somewhere on the way: no farther than the farther end
        after = max(after, distance(af.hex, home))
    return af.range_left - 1 >= turns_to_fly(after, af.mf) + 1


def strike_reach(start: Hex, goal: Hex, plane: PlaneData, hour: int) -> bool:
    """A normal launch (half MF, less the step into the wind) reaches ``goal`` and is home in range
    with a turn to spare, before nightfall."""
    first, d = math.ceil(plane.movement / 2) - 1, distance(start, goal)
    out = 1 if d <= first else 1 + turns_to_fly(d - first, plane.movement)
    back = turns_to_fly(d, plane.movement)
    return out + back + 1 <= plane.range and hour + out + back <= LAST_LIGHT


# --- the turn's orders -------------------------------------------------------------------------


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
    return f"FLY AF{af.number} PATH {_path_text(path)} RETURN {place}"


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
        lines.append(f"SEARCH AF{number} {order} PATH {_path_text(path)} IF SHIPS ATTACK")
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
    return [f"SEARCH AF{number} {launch} PATH {_path_text(path)} IF SHIPS CLOSE 2"]


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


def turn_orders(seat: str, report: Report) -> list[str]:
    """A game hour's orders (see the module docstring for the plan)."""
    carriers = [tf for _, tf in sorted(report.tfs.items()) if tf.carriers]
    first = carriers[0] if carriers else None
    target = target_for(report, first.hex) if first is not None else None
    flights = flight_orders(seat, report, target)
    numbers, launching, decks = set(report.air), set(), []
    for tf in carriers:
        decks += (deck := carrier_orders(seat, report, tf, numbers, flights))
        if any(line.startswith("SEARCH") for line in deck):
            launching.add(tf.number)
    # A carrier TF that launches holds its hex: its planes take off from there or from the hex
    # into the wind (standard 6.10), never from a hex its plot would reach first (reference A.7).
    return [DECEPTION[seat], *plot_orders(seat, report, plots(seat, report, launching)), *flights, *decks]


def turn_of(step_key: str) -> int:
    """The game turn of a step key ``T<n>.<kind>`` (0 when it has none)."""
    found = re.match(r"T(\d+)\.", step_key)
    return int(found[1]) if found else 0


def flattop_orders(seat: str, step_key: str, report_text: str, turn: int) -> list[str]:
    """Order lines for ``seat`` in step ``step_key`` (turn ``turn``) after reading its letter."""
    if seat not in SEARCH_PLANE:
        return ["HOLD"]
    report_text = unix_lines(report_text)
    if step_key.endswith(".strike"):
        return strike_orders(report_text)
    if step_key.endswith(".losses"):
        return rank_orders(seat, report_text)
    if not step_key.endswith(".orders"):
        return ["HOLD"]
    return turn_orders(seat, read_report(report_text))


def can_fly(ship: OwnShip) -> bool:
    """Whether the carrier's hits leave her a launch factor (reference A.12: each hit costs LF)."""
    data = CARRIERS.get(ship.name)
    return data is not None and data.launch - ship.hits * LF_LOSS[ship.type][0] > 0


def carriers_lost(seat: str, report: Report) -> int:
    """The side's carriers of the plan's order of battle sunk (gone from the letter) or that can
    launch nothing, their hits having taken their whole LF (there are no repairs in five days)."""
    flying = {ship.name for tf in report.tfs.values() for ship in tf.carriers if can_fly(ship)}
    return len(set(CARRIER_NAMES[seat]) - flying)


def carriers_sunk(seat: str, text: str) -> int:
    """The enemy carriers the side sank, as its letter's Victory points list scores them."""
    return len(re.findall(rf"\b{seat} \+\d+ (?:Allied|Japanese) CVL? sunk", " ".join(text.split())))


def concedes(seat: str, report: Report, text: str) -> bool:
    """The staff's review at nightfall (:func:`demo_plans.reviewed`): a side that has lost more
    carriers than it sank gives the game up by mail (CONCEDE), as a beaten admiral breaks off
    rather than play out days in which his ships can only be struck."""
    return reviewed(report) and carriers_lost(seat, report) > carriers_sunk(seat, text)


def _answer(seat: str, step: str, kind: str, n: int, text: str) -> str:
    if step.endswith(".orders") and kind == "orders" and concedes(seat, read_report(text), text):
        return "CONCEDE\n"
    extra = answer_step(seat, step, kind, text)  # surface battles, submarines, survivors (demo_steps)
    if extra is not None and ".surface" in step:
        return extra
    lines = flattop_orders(seat, step, text, turn_of(step) or n + 1)
    return orders(step, *lines, *(extra.splitlines() if extra else ()))


#: The whole battle, D1 0500 to D5 2400, or until a side concedes at a nightfall review (or an
#: automatic victory): the night hours after nightfall are played without mail (quiet hours,
#: ``quiet.py``), so each side gets fewer letters than hours.
DEMO = DemoScript("coral-sea", "Demo Flat Top: Coral Sea", _answer, stop_after=None)
