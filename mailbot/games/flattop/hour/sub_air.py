# SPDX-License-Identifier: GPL-3.0-or-later
"""Aircraft and submarines in the game hour (seed 003, 27.5.3, 27.6.4, 27.6.5), option ``submarines``.

* after plane movement (:func:`air_sub_search`): 27.5.3 "Subs at periscope depth may also be
  observed by aircraft flying at low level. The aircraft must spend 3MP per "sub search" roll and
  can only spot a sub in the same hex." A low AF rolls once per 3 MP it spent in the hex of an
  enemy periscope submarine; a find is its side's contact, and lets a TF there attack the sub "as
  long as the aircraft remains in the hex to spot";
* at the declaration of an air strike (:func:`dive_under_air`): a surfaced submarine whose side
  ordered DIVE dives "upon receiving an attack" (27.6.4) and "cannot make an attack itself that
  turn" (27.6.5); planes attack surfaced submarines only, so the strike has no submarine left.

Readings made here:

* a sub search find is a Condition 2 contact: a periscope glimpsed from low level, never the makeup;
  the AF that shadowed a submarine TF this hour counts as having spotted it (sequence table -2);
* a submarine dives under an air attack when an AF declares an attack on its hex (the last moment
  before the attack comes in), to the depth of its side's DIVE order; that is not "combat" for
  27.2.3's move the turn after.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.errors import GameError
from mailbot.games.flattop.combat.sub_moves import (
    sub_search,
    sub_state,
)
from mailbot.games.flattop.combat.sub_sequence import (
    dive,
)
from mailbot.games.flattop.combat.submarines import (
    Depth,
    Weapon,
)
from mailbot.games.flattop.hour.sub_phase import own_tf, sub_rules, sub_tfs, tf_depth, tf_hex_name, with_subs
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.map.weather import sky
from mailbot.games.flattop.observation.knowledge import SHIPS
from mailbot.games.flattop.observation.observe import (
    AF,
    Spotting,
    tf_target,
)
from mailbot.games.flattop.orders.checks import is_submarine
from mailbot.games.flattop.orders.subs import SubHour
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Altitude, Side, TaskForce

# --- 27.5.3: low aircraft search for periscope submarines ------------------------------------------

SEARCH_CONDITION = 2  # a periscope glimpsed from low level: a contact, never the makeup (a reading)


def air_sub_search(turn: Turn) -> None:
    """27.5.3: "Subs at periscope depth may also be observed by aircraft flying at low level. The
    aircraft must spend 3MP per "sub search" roll and can only spot a sub in the same hex." After
    plane movement: each low AF rolls for each enemy periscope submarine TF in a hex of its flight,
    once per 3 MP it spent there, until it finds it. The AFs that shadowed a submarine TF this hour
    are kept too (the sequence table's "-2 if the AF has spotted or shadowed the sub")."""
    st = turn.state
    hour = st.pending.sub_hour
    if not st.options.submarines or hour is None or hour.turn != st.turn:
        return
    spotters = list(hour.spotters)
    for side, af, number in turn.shadows:
        shadowed = own_tf(st, side.opponent, number)
        if shadowed is not None and is_submarine(shadowed):
            spotters.append((side, af, number))
    for (side, af, h), mp in _low_mp(turn).items():
        for sub_tf in sub_tfs(turn.state, side.opponent):
            if sub_tf.hex == h and _search_for(turn, side, af, sub_tf, mp):
                spotters.append((side, af, sub_tf.number))
    spotted = replace(hour, spotters=tuple(dict.fromkeys(spotters)))
    turn.state = replace(turn.state, pending=replace(turn.state.pending, sub_hour=spotted))


def _low_mp(turn: Turn) -> dict[tuple[Side, int, Hex], int]:
    """MP each AF flying at low level spent in each hex of its flights this hour (in flight order)."""
    spent: dict[tuple[Side, int, Hex], int] = {}
    for flight in turn.flights:
        if flight.altitude is not Altitude.LOW:
            continue
        for h in dict.fromkeys(flight.path):
            key = (flight.side, flight.number, h)
            spent[key] = spent.get(key, 0) + flight.mp_in(h)
    return spent


def _search_for(turn: Turn, side: Side, af: int, sub_tf: TaskForce, mp: int) -> bool:
    """The AF's sub search rolls for one submarine TF in its hex (27.5.3); True: found."""
    st, rules = turn.state, sub_rules(turn.state)
    depth = tf_depth(st, sub_tf)
    if depth is not Depth.PERISCOPE:
        return False  # a surfaced sub is seen normally (27.4), a deep one never by planes
    where = tf_hex_name(st, sub_tf)
    label = f"ft.subsearch.t{st.turn}.{side.value}.AF{af}.{where}.TF{sub_tf.number}"
    weather = sky(st.weather, sub_tf.hex, st.rules.weather)
    night = st.scenario.is_night(st.time)
    for i in range(mp // rules.search_mp):
        found = sub_search(
            depth, Altitude.LOW, distance=0, sky=weather, night=night, rules=rules, dice=turn.dice,
            label=f"{label}/roll {i + 1}",
        )  # fmt: skip
        if found.roll is None:
            return False  # no chance (storm, night): nothing to roll again
        turn.referee("sub-search", f"{side} AF{af} at {where} on TF{sub_tf.number}: {found.text}")
        if found.found:
            target = replace(tf_target(sub_tf), own_hex_only=True)
            turn.spot(side, [Spotting(f"AF{af}", AF, sub_tf.hex, SHIPS, SEARCH_CONDITION, (target,))])
            turn.tell(
                side, "sub-search", f"AF{af} spotted a submarine at periscope depth at {where} (27.5.3)"
            )
            return True
    return False


def air_spotted(state: FlatTopState, hour: SubHour, side: Side, sub_tf: TaskForce) -> tuple[int, ...]:
    """The side's AFs that spotted or shadowed the submarine TF this hour and are still in its hex
    at low level ("as long as the aircraft remains in the hex to spot", 27.5.3)."""
    numbers = hour.spotters_of(side, sub_tf.number)
    return tuple(
        a.number
        for a in state.own_air(side)
        if a.number in numbers and a.hex == sub_tf.hex and any(s.altitude is Altitude.LOW for s in a.stacks)
    )


# --- 27.6.4, 27.6.5: diving under an air attack ------------------------------------------------------


def dive_under_air(turn: Turn, attacker: Side, h: Hex) -> bool:
    """27.6.4: "A sub may be ordered to dive upon receiving an attack (e.g. from surface to periscope
    depth for an air or surface attack ...)"; 27.6.5: "A sub which dives under an air attack cannot
    make an attack itself that turn." Called as ``attacker`` declares an air attack on hex ``h``:
    each surfaced enemy submarine TF there with a DIVE order dives. True when a submarine in ``h``
    dived under an air attack this hour (the attacker is told so)."""
    st = turn.state
    hour = st.pending.sub_hour
    if not st.options.submarines or hour is None or hour.turn != st.turn:
        return False
    for tf in sub_tfs(st, attacker.opponent):
        wanted = hour.dive_of(tf.side, tf.number)
        if tf.hex == h and wanted is not None and tf_depth(turn.state, tf) is Depth.SURFACE:
            _air_dive(turn, tf, wanted)
    return any(
        tf.hex == h
        and any(sub_state(turn.state.undersea.subs, s.name).air_dive_turn == st.turn for s in tf.afloat)
        for tf in sub_tfs(turn.state, attacker.opponent)
    )


def _air_dive(turn: Turn, tf: TaskForce, to: Depth) -> None:
    st = turn.state
    terrain = st.scenario.map.terrain_of(tf.hex)
    try:
        turn.state = with_subs(
            st, tf, lambda s: dive(s, to, terrain, st.turn, sub_rules(st), under=Weapon.AIR)
        )
    except GameError as error:  # 27.1: no deep dive in a partial-land hex
        turn.tell(tf.side, "sub-dive", f"TF{tf.number} could not dive under the air attack: {error}")
        return
    turn.tell(
        tf.side, "sub-dive",
        f"TF{tf.number} (submarine) at {tf_hex_name(st, tf)} dived to {to} depth under an air attack: "
        "it may not attack this hour (27.6.4, 27.6.5)",
    )  # fmt: skip
