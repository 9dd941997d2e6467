# SPDX-License-Identifier: GPL-3.0-or-later
"""Air-to-air combat in the Combat Phase where no strike is fought: enemy planes over a side's TF
or base while its fighters are there (its CAP), and fighter sweeps (``FLY AF8 PATH ... ATTACK`` by
an AF with fighters and no bombs).

Reference A.11.4 (standard 16): "Only interceptors can start it. The other side cannot avoid it
once started. If both sides have interceptors, either may start it, and then all interceptors in
the hex must fight"; "Interceptor-vs-interceptor works like the escort fight, but with no bomber
stage and with everyone committed"; "High and Low are fought separately". The e-mail game has no
order to start it, so (design default) a side's interceptors start it over its own TFs and bases
(a CAP is flown to meet what comes) and at the end of its sweep's path. The other side's fighters
there meet them as escorts would (reference A.6: the fighters of an AF with bombers escort them;
alone they fight back as interceptors) and its other planes as bombers. A hex where a strike is
fought is the strike's (its CAP meets the strike and its escorts there, ``combat.strike``).

Reports follow 15 LI 5: the side that started the fight rolls it and knows every loss; the other
is told its own losses exactly and the starter's within +/-50% (``intel.reported_losses``, by the
starter's DECEPTION policy), and plainly "none" when its fire downed nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import replace

from mailbot.games.flattop.combat import intel
from mailbot.games.flattop.combat.air_to_air import Flight
from mailbot.games.flattop.combat.kit import Kit, describe_counts
from mailbot.games.flattop.hour.aftermath import AIR_COMBAT, score_air
from mailbot.games.flattop.hour.air_phase import (
    Sky,
    air_battle,
    apply_air_losses,
    cap_flights,
    is_interceptor,
)
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.units import Altitude, Side

RULE = "reference A.11.4; design default: fighters start it over their own ships and bases"


def fighter_fights(
    turn: Turn, kit: Kit, struck: Collection[Hex], sweeps: Collection[tuple[Side, int]]
) -> None:
    """Every hex with planes of both sides, no strike fought and a side that starts the fight."""
    for h in _contested(turn):
        if h in struck:
            continue
        starter = _starter(turn, h, sweeps)
        if starter is not None:
            _fight(turn, kit, starter, h)


def _contested(turn: Turn) -> list[Hex]:
    hexes = {side: {a.hex for a in turn.state.own_air(side) if a.hex is not None} for side in Side}
    both = hexes[Side.ALLIED] & hexes[Side.JAPANESE]
    return sorted(both, key=lambda h: (h.col, h.row))


def _starter(turn: Turn, h: Hex, sweeps: Collection[tuple[Side, int]]) -> Side | None:
    """The side whose interceptors start the fight in ``h``: one defending its TF or base there, else
    one whose sweep ended there; both defending: the side with more interceptor factors there."""
    st = turn.state
    candidates: list[tuple[int, int, Side]] = []
    for side in Side:
        fighters = sum(sum(s.count for s in f.stacks) for f in cap_flights(turn, side, h))
        if not fighters or not _enemy_at(turn, side, h, cap_flights(turn, side, h)):
            continue
        home = any(tf.hex == h and tf.afloat for tf in st.own_tfs(side)) or any(
            b.hex == h for b in st.own_bases(side)
        )
        swept = any(a.hex == h and (side, a.number) in sweeps for a in st.own_air(side))
        if home or swept:
            candidates.append((0 if home else 1, -fighters, side))
    return min(candidates, key=lambda c: (c[0], c[1], c[2].value))[2] if candidates else None


def _enemy_at(turn: Turn, side: Side, h: Hex, mine: Iterable[Flight]) -> bool:
    altitudes = {f.altitude for f in mine}
    return any(f.altitude in altitudes for f in enemy_flights(turn, side.opponent, h))


def enemy_flights(turn: Turn, side: Side, h: Hex) -> list[Flight]:
    """``side``'s AFs in ``h`` as the interceptors meet them, altitude by altitude: its fighters as
    escorts (interceptors that fight back), every other factor as a bomber."""
    roles = {name: p.roles for name, p in turn.state.rules.planes.items()}
    flights: list[Flight] = []
    for af in turn.state.own_air(side):
        if af.hex != h:
            continue
        for altitude in (Altitude.HIGH, Altitude.LOW):
            here = [s for s in af.stacks if s.altitude is altitude]
            escorts = tuple(s for s in here if is_interceptor(s, roles))
            bombers = tuple(s for s in here if not is_interceptor(s, roles))
            flights += [Flight(side, af.number, escorts, altitude, "escort", 1)] if escorts else []
            flights += [Flight(side, af.number, bombers, altitude, "bomber", 1)] if bombers else []
    return flights


def _fight(turn: Turn, kit: Kit, side: Side, h: Hex) -> None:
    st = turn.state
    where = st.scenario.map.hex_id(h)
    mine, theirs = cap_flights(turn, side, h), enemy_flights(turn, side.opponent, h)
    sky = Sky({}, {}, {}, [])
    label = f"ft.fighters.t{st.turn}.{side.value}.{where}"
    air_battle(turn, kit, (mine, theirs), label, sky)
    if not sky.battles:
        return
    turn.state = replace(turn.state, score=turn.state.score.counted(air=1))
    apply_air_losses(turn, sky)
    ours = {pl: n for (s, _, pl), n in sky.lost.items() if s is side}
    lost = {pl: n for (s, _, pl), n in sky.lost.items() if s is not side}
    afs = " ".join(f"AF{n}" for n in dict.fromkeys(f.af for f in mine))
    enemy_afs = " ".join(f"AF{n}" for n in dict.fromkeys(f.af for f in theirs))
    turn.referee("fighters", f"{side} {afs} started air combat at {where} ({RULE})")
    turn.tell(
        side,
        "fighters",
        f"Your fighters {afs} fought enemy planes at {where} ({RULE}): you lost "
        f"{describe_counts(ours)}; the enemy lost {describe_counts(lost)}",
    )
    seen = told_losses(turn, side, sum(ours.values()), f"{label}.report")
    turn.tell(
        side.opponent,
        "fighters",
        f"{enemy_afs} at {where} met enemy fighters ({RULE}): you lost {describe_counts(lost)}; {seen}",
    )
    score_air(turn, side, ours, AIR_COMBAT, where="combat")
    score_air(turn, side.opponent, lost, AIR_COMBAT, where="combat")


def told_losses(turn: Turn, owner: Side, true: int, label: str) -> str:
    """What the other side hears of ``owner``'s fighter losses (15 LI 5): plainly none when its
    fire downed nothing, else the owner's figure within +/-50% (never 0 for a real loss, so a
    plain "none" is always true and "about" is never "about 0")."""
    if not true:
        return "your fire downed none of the enemy fighters"
    seen = max(1, intel.reported_losses(true, turn.state.side(owner).deception, turn.dice, label))
    return f"enemy fighters lost about {seen} factor(s) (the defender's report, +/-50%)"
