# SPDX-License-Identifier: GPL-3.0-or-later
"""Non-search air movement in a turn (seed 003, 7): LAND, FLY, and rendezvous.

"All non-searching movement is conducted before all search movement", except
an AF with a rendezvous: it moves right after its side's searches and, from
the rendezvous hex "listed" in its orders, conforms to the searcher's actual
path (reactions included) "for the remainder of the move"
(``observation.search.rendezvous_path``). If the searcher never passes that hex, the
connection is missed and the AF waits there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from mailbot.games.flattop.air import operations as air_ops
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.map.movement import plane_path
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.observation.search import SearchOutcome, rendezvous_path
from mailbot.games.flattop.orders.checks import path_steps
from mailbot.games.flattop.orders.types import Fly, Land
from mailbot.games.flattop.turn import Flight, Turn, land_af, own_af, put
from mailbot.games.flattop.units import Side


def run_non_search(turn: Turn, side: Side) -> None:
    """LAND and FLY without a rendezvous: "all non-searching movement is conducted before all
    search movement" (seed 003, 7)."""
    for order in turn.orders.get(side, ()):
        if isinstance(order, Land | Fly) and not turn.may_act(side, order.af):
            continue
        if isinstance(order, Land):
            land_af(turn, side, order.af, order.place, None)
        elif isinstance(order, Fly) and order.rendezvous is None:
            _fly(turn, side, order)


def _fly(turn: Turn, side: Side, order: Fly) -> tuple[tuple[Hex, ...], int] | None:
    """Fly the FLY path as far as storms and MP allow: (hexes from the start, MP left)."""
    st = turn.state
    formation = own_af(turn, side, order.af)
    if formation is None or formation.hex is None:
        return None
    altitude = formation.stacks[0].altitude
    mp = air_ops.mf(st, formation)
    flown = plane_path(
        formation.hex, altitude, path_steps(altitude, order.legs), mp,
        scenario=st.scenario, rules=st.rules.movement, storms=storm_hexes(st.weather, st.rules.weather),
        armed_takeoff=order.launch is not None and any(s.armament is not None for s in formation.stacks),
    )  # fmt: skip
    end, altitude = (flown.legs[-1].hex, flown.legs[-1].altitude) if flown.legs else (formation.hex, altitude)
    stacks = tuple(replace(s, altitude=altitude) for s in formation.stacks)
    put(turn, formation, replace(formation, hex=end, stacks=stacks, searching=False))
    hexes = (formation.hex, *(leg.hex for leg in flown.legs))
    left = mp - flown.spent
    turn.flights.append(Flight(side, order.af, hexes, altitude))
    if order.rendezvous is None:
        _tell_flight(turn, side, order, (hexes, left), flown.problem)
        if order.attack:
            turn.strikes.append((side, order.af, end))
        if order.back is not None:
            land_af(turn, side, order.af, order.back, left)
    return hexes, left


def _tell_flight(
    turn: Turn, side: Side, order: Fly, flown: tuple[tuple[Hex, ...], int], problem: str
) -> None:
    name = turn.state.scenario.map.hex_id
    hexes, left = flown
    route = " ".join(name(h) for h in hexes)
    stopped = f" (stopped: {problem})" if problem else ""
    turn.tell(side, "flight", f"AF{order.af} flew {route}, {left} MP left{stopped}")


def run_followers(turn: Turn, side: Side, outcomes: Mapping[str, SearchOutcome]) -> None:
    """After a side's searches: each FLY with a rendezvous follows its searcher."""
    for order in turn.orders.get(side, ()):
        if isinstance(order, Fly) and order.rendezvous is not None and turn.may_act(side, order.af):
            _follow(turn, side, order, outcomes)


def _follow(turn: Turn, side: Side, order: Fly, outcomes: Mapping[str, SearchOutcome]) -> None:
    """Seed 003, 7: to the rendezvous hex, then "conform to that of the searcher"."""
    assert order.rendezvous is not None
    flown = _fly(turn, side, order)
    formation = own_af(turn, side, order.af)
    if flown is None or formation is None:
        return
    own, left = flown
    meet, leader = order.rendezvous
    name = turn.state.scenario.map.hex_id
    searcher = outcomes.get(f"AF{leader}")
    if searcher is None or own[-1] != meet or meet not in searcher.path:
        turn.tell(side, "rendezvous", f"AF{order.af} missed its rendezvous with AF{leader} at {name(meet)}")
    else:
        path = rendezvous_path(own, meet, searcher, left + len(own) - 1)
        after = path[len(own) :]
        left -= len(after)
        stacks = tuple(replace(s, altitude=searcher.altitude) for s in formation.stacks)
        put(turn, formation, replace(formation, hex=path[-1], stacks=stacks))
        turn.flights.append(Flight(side, order.af, tuple(path), searcher.altitude))
        route = " ".join(name(h) for h in after) or "nowhere (it did not move on)"
        turn.tell(
            side, "rendezvous", f"AF{order.af} met AF{leader} at {name(meet)} and followed it to {route}"
        )
        if searcher.attack_hex is not None and path[-1] == searcher.attack_hex:
            turn.tell(side, "attack", f"AF{order.af} reached {name(path[-1])} with AF{leader} to attack")
            turn.strikes.append((side, order.af, path[-1]))
    if order.back is not None:
        land_af(turn, side, order.af, order.back, max(left, 0))
