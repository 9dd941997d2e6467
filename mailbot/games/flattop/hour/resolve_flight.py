# SPDX-License-Identifier: GPL-3.0-or-later
"""Non-search air movement in a turn (seed 003, 7): LAND, FLY, and rendezvous.

"All non-searching movement is conducted before all search movement", except
an AF with a rendezvous with a searcher: it moves right after its side's
searches and, from the rendezvous hex "listed" in its orders, conforms to the
searcher's actual path (reactions included) "for the remainder of the move"
(``observation.search.rendezvous_path``). A rendezvous with a non-searching AF
(a strike already aloft, or one launched in the same letter) is flown after
the other non-search movement, on the path that AF flew. If the leader never
passes that hex, the connection is missed and the AF waits there; if the
follower keeps up to the leader's last hex, the two become one AF
(``air.merge``), so fighters that join a strike are its escorts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from mailbot.games.flattop.hour import air_ops
from mailbot.games.flattop.hour.merge import RULE as MERGE_RULE
from mailbot.games.flattop.hour.merge import merge_into
from mailbot.games.flattop.hour.turn import Flight, Turn, land_af, own_af, put
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.map.movement import plane_path
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.observation.search import SearchOutcome, rendezvous_path
from mailbot.games.flattop.orders.checks import path_steps
from mailbot.games.flattop.orders.types import Fly, Land, Search
from mailbot.games.flattop.units import Altitude, Side


def run_non_search(turn: Turn, side: Side) -> None:
    """LAND and FLY: "all non-searching movement is conducted before all search movement" (seed
    003, 7); a FLY with a rendezvous with a searcher waits for it (:func:`run_followers`)."""
    for order in turn.orders.get(side, ()):
        if isinstance(order, Land | Fly) and not turn.may_act(side, order.af):
            continue
        if isinstance(order, Land):
            land_af(turn, side, order.af, order.place, None, via=order.via)
        elif isinstance(order, Fly) and order.rendezvous is None:
            _fly(turn, side, order)
    run_joins_in_flight(turn, side)


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


@dataclass(frozen=True)
class Leader:
    """What a follower conforms to: the leader's path this turn, its altitude at the end, and the
    hex it attacks there (None: no attack)."""

    path: tuple[Hex, ...]
    altitude: Altitude
    attack_hex: Hex | None


def run_followers(turn: Turn, side: Side, outcomes: Mapping[str, SearchOutcome]) -> None:
    """After a side's searches: each FLY with a rendezvous with a searcher follows it; a searcher
    that joined a friendly AF seen attacking (7's join rule) becomes part of it."""
    searchers = _searchers(turn, side)
    for order, number in _followers(turn, side):
        if number in searchers:
            o = outcomes.get(f"AF{number}")
            _follow(turn, side, order, None if o is None else Leader(o.path, o.altitude, o.attack_hex))
    for search in turn.of(side, Search):
        outcome = outcomes.get(f"AF{search.af}") if isinstance(search, Search) else None
        if outcome is not None and outcome.joined and isinstance(search, Search) and search.join is not None:
            _join_attack(turn, side, search.af, search.join)


def _searchers(turn: Turn, side: Side) -> set[int]:
    return {o.af for o in turn.of(side, Search) if isinstance(o, Search)}


def _followers(turn: Turn, side: Side) -> list[tuple[Fly, int]]:
    """The side's FLY orders with a rendezvous, each with the AF it is to meet."""
    return [
        (o, o.rendezvous[1])
        for o in turn.orders.get(side, ())
        if isinstance(o, Fly) and o.rendezvous is not None and turn.may_act(side, o.af)
    ]


def run_joins_in_flight(turn: Turn, side: Side) -> None:
    """After the side's other non-search movement: a FLY with a rendezvous with an AF that is not
    searching meets it on the path it flew (planned in advance, like its own)."""
    searchers = _searchers(turn, side)
    for order, number in _followers(turn, side):
        if number not in searchers:
            _follow(turn, side, order, _flown(turn, side, number))


def _flown(turn: Turn, side: Side, number: int) -> Leader | None:
    """A non-searching leader's movement this turn, from its flights (None: not aloft)."""
    formation = own_af(turn, side, number)
    if formation is None or formation.hex is None:
        return None
    path: tuple[Hex, ...] = ()
    for flight in turn.flights:
        if (flight.side, flight.number) == (side, number):
            path = flight.path if not path else (*path, *flight.path[1:])
    attack = formation.hex if (side, number, formation.hex) in turn.strikes else None
    return Leader(path or (formation.hex,), formation.stacks[0].altitude, attack)


def _follow(turn: Turn, side: Side, order: Fly, leader: Leader | None) -> None:
    """Seed 003, 7: to the rendezvous hex, then "conform to that of the searcher"; where it keeps
    up to the leader's last hex, it joins it (``air.merge``)."""
    assert order.rendezvous is not None
    flown = _fly(turn, side, order)
    formation = own_af(turn, side, order.af)
    if flown is None or formation is None:
        return
    own, left = flown
    meet, number = order.rendezvous
    name = turn.state.scenario.map.hex_id
    if leader is None or own[-1] != meet or meet not in leader.path:
        turn.tell(side, "rendezvous", f"AF{order.af} missed its rendezvous with AF{number} at {name(meet)}")
    else:
        path = rendezvous_path(own, meet, leader.path, left + len(own) - 1)
        after = path[len(own) :]
        left -= len(after)
        stacks = tuple(replace(s, altitude=leader.altitude) for s in formation.stacks)
        put(turn, formation, replace(formation, hex=path[-1], stacks=stacks))
        turn.flights.append(Flight(side, order.af, tuple(path), leader.altitude))
        route = " ".join(name(h) for h in after) or "nowhere (it did not move on)"
        turn.tell(
            side, "rendezvous", f"AF{order.af} met AF{number} at {name(meet)} and followed it to {route}"
        )
        if path[-1] == leader.path[-1] and _joined(turn, side, order.af, number):
            return  # one AF now: the leader's orders (its landing too) govern it
        if leader.attack_hex is not None and path[-1] == leader.attack_hex:
            turn.tell(side, "attack", f"AF{order.af} reached {name(path[-1])} with AF{number} to attack")
            turn.strikes.append((side, order.af, path[-1]))
    if order.back is not None:
        land_af(turn, side, order.af, order.back, max(left, 0))


def _joined(turn: Turn, side: Side, follower: int, leader: int) -> bool:
    joined = merge_into(turn, side, follower, leader)
    if joined is None:
        return False
    where = turn.state.scenario.map.hex_id(joined.hex) if joined.hex else "?"
    turn.tell(
        side,
        "joined",
        f"AF{follower} joined AF{leader} at {where}: one AF of {joined.factors} factors from now on, "
        f"its fighters escorts of its bombers ({MERGE_RULE})",
    )
    return True


def _join_attack(turn: Turn, side: Side, searcher: int, leader: int) -> None:
    """7's join rule carried out: the searcher found its friend attacking and flew to it."""
    _joined(turn, side, searcher, leader)
