# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo staffs' plans for the full Coral Sea (``coral-sea.toml``, 4-8 May 1942): where each side's
task forces steam and where its searchers look, as the two staffs of 1942 knew the situation.

What a staff knows is the public situation of May 1942 and its own orders, never the enemy's true
positions: the plans name sea hexes of the board (the scenario's islands, bases and start hexes,
which the players read from the map and their own letters), and the carrier admirals strike only
what their letters report (:mod:`mailbot.games.flattop.demo`).

- The Allies (Fletcher): Yorktown's TF stays south of Guadalcanal on 4 May to strike the new
  anchorage at Tulagi, then meets Lexington's TF south of the Solomons and both steam west toward
  the Louisiades, across the invasion convoy's road to Port Moresby (the Jomard passage). Crace's
  cruisers go ahead to the passage's southern mouth. Their searchers look where the Japanese can
  come from: Tulagi and, from the first day, the carriers' road round the Solomons (the staff
  expected the carriers from the north-east), the sea east and south of the Solomons, the
  Solomon Sea between Rabaul and the passage (the convoy's).
- The Japanese (Inoue, Takagi): the carriers come round the east of the Solomons into the Coral Sea
  to catch the American carriers the convoy will draw; the Covering Group (Shoho) and the seaplane
  tender's group cover the convoy toward Deboyne; the convoy sails from Rabaul through the Jomard
  passage to Port Moresby and unloads there. Their searchers look where the American carriers can be:
  south of Guadalcanal and across the Coral Sea.

Each staff reviews the battle at nightfall from the third day on (:func:`reviewed`): the side that
has lost the carrier battle gives the game up then (``demo.concedes``).

A task force follows its route hex by hex, its speed a turn (the letter's "speed"); a leg does not
start before its hour. Once a carrier TF's letter shows enemy ships within :data:`STAND_OFF` hexes it
holds there: its planes fight, its escorts are not thrown into a gun battle by daylight. The plans
are data (:data:`ROUTES`, :data:`SEARCH`); ``tests/games/flattop/test_demo_plans.py`` checks every
route against the scenario's board (sea or partial-land hexes only).

Pure: no I/O; the inputs are the side, the game time and the side's own letter as read by
:mod:`mailbot.games.flattop.demo_reading`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from mailbot.games.flattop.demo_reading import Report
from mailbot.games.flattop.map.hexes import Hex, distance, hex_id, line, parse_hex_id


@dataclass(frozen=True)
class Leg:
    """Steam to ``to`` (a hex ID), not before ``after`` (day, hour) of the game."""

    to: str
    after: tuple[int, int] = (1, 0)


#: the invasion convoy's road: it waits north of the Louisiades for the carriers to clear the way
CONVOY = (
    *(Leg(h) for h in ("II-C7", "II-F11", "II-H19")),
    Leg("VI-D25", (3, 12)),
    *(Leg(h) for h in ("VI-A28", "V-M28", "V-F25", "V-E24")),
)

#: (side, TF number) -> its legs, the first its start hex (coral-sea.toml's task forces and arrivals)
ROUTES: Mapping[tuple[str, int], tuple[Leg, ...]] = {
    # Yorktown: strikes Tulagi on D1 from south of Guadalcanal, then meets Lexington and goes west.
    ("allied", 1): (Leg("VII-F28"), Leg("VII-I36", (1, 16)), Leg("VI-P36", (2, 5)), Leg("VI-K33", (3, 5))),
    # Lexington (and the oiler Neosho behind her): to the meeting point, then west.
    ("allied", 2): (Leg("VII-O41"), Leg("VII-I36"), Leg("VI-P36", (2, 5)), Leg("VI-K33", (3, 5))),
    ("allied", 11): (
        Leg("VII-O41"),
        Leg("VII-I36"),
    ),
    # Crace's cruisers (enter D1 1200): to the southern mouth of the Jomard passage.
    ("allied", 10): (Leg("VII-M45"), Leg("VII-I36"), Leg("VI-H32", (2, 5)), Leg("V-N28", (3, 18))),
    # The carriers: round the east of the Solomons and into the Coral Sea.
    ("japanese", 1): (Leg("III-K5"), Leg("IV-F17"), Leg("VIII-F29"), Leg("VII-M34"), Leg("VII-C34")),
    # Shoho's Covering Group and the seaplane tender's group: toward Deboyne, over the convoy.
    ("japanese", 2): (Leg("II-Q17"), Leg("II-J21"), Leg("VI-E25", (2, 5))),
    ("japanese", 3): (Leg("II-O16"), Leg("II-J21"), Leg("VI-D26")),
    # The invasion convoy (enters at Rabaul D1 1600): the Jomard passage, then Port Moresby.
    ("japanese", 10): CONVOY,
    ("japanese", 11): CONVOY,
}

#: where each side's searchers look with no ships contact, from a day on: (first day, hexes); a
#: searcher takes the hex its AF number picks, so a pair and the next pair look at different places
SEARCH: Mapping[str, tuple[tuple[int, tuple[str, ...]], ...]] = {
    # Tulagi (the D1 raid), the carriers' road east and south of the Solomons, the convoy's road.
    "allied": (
        (1, ("VII-K23", "IV-F17", "VII-K23", "VIII-D25")),
        (2, ("VIII-F29", "VII-L30", "II-H19", "VI-D25")),
        (3, ("VI-D25", "VII-C34", "II-J21", "VI-A28")),
    ),
    # South of Guadalcanal and across the Coral Sea, where the American carriers can be.
    "japanese": (
        (1, ("VII-F28", "VII-K30")),
        (2, ("VII-I36", "VII-F28", "VI-P36")),
        (3, ("VI-P36", "VII-E34", "VI-K32")),
    ),
}

#: each side's carriers in the scenario's order of battle (its letters name them)
CARRIER_NAMES: Mapping[str, tuple[str, ...]] = {
    "allied": ("Yorktown", "Lexington"),
    "japanese": ("Shokaku", "Zuikaku", "Shoho"),
}
#: from this day on each staff reviews the carrier battle at nightfall (:func:`reviewed`)
REVIEW_DAY = 3
#: the first night hour (tables/time.toml): the nightfall letter
NIGHTFALL = 19

#: the plans are for this scenario only (its title as the letters give it); others get none
TITLE = "The Battle of the Coral Sea, 4-8 May 1942"

#: a carrier TF that sees enemy ships this near holds its hex (its planes do the fighting)
STAND_OFF = 10
#: the hex where the invasion convoy unloads (coral-sea.toml ``unloading``: Port Moresby)
UNLOADING = "V-E24"
TRANSPORTS = frozenset({"AP", "APD"})


def _hex(text: str) -> Hex:
    found = parse_hex_id(text)
    if found is None:
        raise ValueError(f"not a hex ID: {text}")
    return found


def planned(report: Report) -> bool:
    """Whether the letter is of the scenario these plans are for."""
    return report.title.startswith(TITLE)


def reviewed(report: Report) -> bool:
    """Whether the letter is the nightfall letter of a day on which the staff reviews the battle.
    Both staffs planned for the carriers to meet on the first days (the routes above); by the
    third evening the carrier battle is fought, and a side that has lost it breaks off
    (:func:`mailbot.games.flattop.demo_review.concedes`) instead of playing out the remaining days."""
    day, hour = report.when
    return planned(report) and report.night and hour == NIGHTFALL and day >= REVIEW_DAY


def search_goal(seat: str, when: tuple[int, int], number: int) -> Hex | None:
    """Where searcher AF ``number`` looks when its side has no ships contact (None: no plan)."""
    areas = [hexes for first, hexes in SEARCH.get(seat, ()) if first <= when[0]]
    if not areas:
        return None
    return _hex(areas[-1][(number - 1) % len(areas[-1])])


def course(legs: Sequence[Leg]) -> list[tuple[Hex, Leg]]:
    """The route hex by hex, each hex with the leg that reaches it (the start hex first)."""
    path: list[tuple[Hex, Leg]] = [(_hex(legs[0].to), legs[0])]
    for leg in legs[1:]:
        here = path[-1][0]
        path += [(h, leg) for h in line(here, _hex(leg.to))[1:]]
    return path


def next_hexes(here: Hex, path: Sequence[tuple[Hex, Leg]], when: tuple[int, int], speed: int) -> list[Hex]:
    """This turn's hexes along ``path`` from ``here``: the nearest route hex (the later one of
    equals) is where the TF stands; a hex off the route (a turn into the wind) rejoins it."""
    if speed < 1 or len(path) < 2:
        return []
    at = min(range(len(path)), key=lambda i: (distance(here, path[i][0]), -i))
    ahead = [h for h, leg in path[at + 1 : at + 1 + speed] if leg.after <= when]
    if not ahead:
        return []
    if here == path[at][0]:
        return ahead
    return line(here, ahead[-1])[1 : speed + 1]


def _enemy_near(report: Report, here: Hex) -> bool:
    newest = max((c.when for c in report.contacts if c.kind == "ships"), default=None)
    return any(
        c.kind == "ships" and c.when == newest and distance(here, c.hex) <= STAND_OFF for c in report.contacts
    )


def plots(seat: str, report: Report, hold: Collection[int] = ()) -> dict[int, list[Hex]]:
    """This turn's hexes for each of the side's TFs ([] holds it; so do the TFs in ``hold``)."""
    moves: dict[int, list[Hex]] = {}
    if not planned(report):
        return moves
    for number, tf in sorted(report.tfs.items()):
        legs = ROUTES.get((seat, number))
        if legs is None or number in hold or (tf.carriers and _enemy_near(report, tf.hex)):
            moves[number] = []
        else:
            moves[number] = next_hexes(tf.hex, course(legs), report.when, tf.speed)
    return moves


def plot_orders(seat: str, report: Report, moves: Mapping[int, Sequence[Hex]]) -> list[str]:
    """PLOT lines for ``moves`` (:func:`plots`), and UNLOAD for transports at Port Moresby."""
    lines = []
    for number, hexes in sorted(moves.items()):
        tf = report.tfs[number]
        if tf.hex == _hex(UNLOADING) and any(s.type in TRANSPORTS for s in tf.ships):
            lines.append(f"UNLOAD TF{number}")
        elif (seat, number) in ROUTES:
            lines.append(f"PLOT TF{number} " + (" ".join(hex_id(h) for h in hexes) or "HOLD"))
    return lines
