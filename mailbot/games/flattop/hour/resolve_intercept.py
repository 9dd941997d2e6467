# SPDX-License-Identifier: GPL-3.0-or-later
"""INTERCEPT orders in a turn: after each side's movement segment, the other side's
interceptors may roll against the AFs that moved through their hexes (``interception``).

Only an enemy AF the intercepting side observes passing through may be
intercepted (:func:`observed_passing`); an unobserved one passes unnoticed.
Who hears what: the intercepting side learns its own attempt's result. The
moving side hears of a successful interception (its AF meets the enemy), and
of a failed one only through 14.13.2's reveal (a spotting, so it enters that
side's knowledge like any other contact). A failed attempt that reveals
nothing tells the moving side nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mailbot.games.flattop.air.interception import combat_possible, roll_interception
from mailbot.games.flattop.hour.resolve_observe import standing_observation
from mailbot.games.flattop.hour.turn import Flight, Turn, own_af
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.observation.observe import af_target, interception_reveal
from mailbot.games.flattop.observation.shadowing import seen_refs
from mailbot.games.flattop.orders.checks import is_interceptor
from mailbot.games.flattop.orders.types import Intercept
from mailbot.games.flattop.units import AirFormation, Side


@dataclass(frozen=True)
class _Attempt:
    interceptor: AirFormation
    flight: Flight
    where: Hex


def run_intercepts(turn: Turn, mover: Side) -> None:
    """The non-moving side's INTERCEPT orders against ``mover``'s flights of this segment."""
    other = mover.opponent
    for order in turn.of(other, Intercept):
        assert isinstance(order, Intercept)
        if (other, order.af) in turn.intercepted or (other, order.af) in turn.blind:
            continue  # one attempt a turn for this side's AF (numbers are per side); a blind AF none
        attempt = _find(turn, other, order.af, mover)
        if attempt is not None:
            turn.intercepted.add((other, order.af))
            _attempt(turn, attempt)


def _find(turn: Turn, side: Side, number: int, mover: Side) -> _Attempt | None:
    interceptor = own_af(turn, side, number)
    if interceptor is None or interceptor.hex is None:
        return None
    if not any(is_interceptor(s, turn.state.rules.planes) for s in interceptor.stacks):
        return None
    altitude = interceptor.stacks[0].altitude
    for flight in turn.flights:
        passes = interceptor.hex in flight.path[1:]
        same = flight.side is mover and passes and flight.altitude is altitude
        if same and observed_passing(turn, side, flight, interceptor.hex):
            return _Attempt(interceptor, flight, interceptor.hex)
    return None


def observed_passing(turn: Turn, side: Side, flight: Flight, where: Hex) -> bool:
    """Standard 14.13 (reference A.7): the non-moving side may intercept only an enemy AF it
    observes passing through. An interceptor is no observer (only searchers roll, seed 003, 7.3):
    the AF must be among this turn's spottings of the side (its searchers, its shadowers), or be
    seen in ``where`` by the side's TFs, bases, radar or coastwatchers (7.5, 7.9.6, 7.12); that
    sighting is recorded like any other. Otherwise nothing happens and the side hears nothing,
    so an INTERCEPT order cannot serve as a roll-free detector.
    """
    ref = f"{flight.side.value} AF{flight.number}"
    if ref in seen_refs(turn.spottings.get(side, [])):
        return True
    formation = own_af(turn, flight.side, flight.number)
    if formation is None:
        return False
    spots = standing_observation(turn, side, [replace(af_target(formation), hex=where)])
    turn.spot(side, spots)
    return bool(spots)


def _attempt(turn: Turn, attempt: _Attempt) -> None:
    st = turn.state
    interceptor, flight, h = attempt.interceptor, attempt.flight, attempt.where
    side, mover = interceptor.side, flight.side
    altitude = interceptor.stacks[0].altitude
    radars = [t.hex for t in st.own_tfs(side) if any(s.radar for s in t.afloat)]
    radars += [b.hex for b in st.own_bases(side) if b.radar and b.hex is not None]
    units = [t.hex for t in st.task_forces] + [b.hex for b in st.bases if b.hex is not None]
    in_combat = combat_possible(h, altitude, units=units, radars=radars, table=st.rules.interception)
    label = f"ft.intercept.t{st.turn}.{side.value}.AF{interceptor.number}"
    success, roll = roll_interception(st.rules.interception, turn.dice, label, in_combat_hex=in_combat)
    name = st.scenario.map.hex_id(h)
    turn.referee("intercept.roll", f"{side} AF{interceptor.number} vs {mover} AF{flight.number}: {roll.text}")
    result = f"intercepted an enemy AF at {name}" if success else f"failed to intercept an enemy AF at {name}"
    turn.tell(side, "intercept", f"AF{interceptor.number} {result}")
    if success:
        turn.tell(mover, "intercepted", f"AF{flight.number} was intercepted at {name}")
        # 14.13.2: "interception now fought": air-to-air in the Combat Phase (combat.phase).
        turn.interceptions.append((side, interceptor.number, flight.number, h))
    target = af_target(interceptor)
    observed = target.ref in st.side(mover).seen | seen_refs(turn.spottings.get(mover, []))
    reveal = interception_reveal(
        target, f"AF{flight.number}", combat_possible=in_combat, already_observed=observed
    )
    if reveal is not None:
        turn.spot(mover, [reveal])
