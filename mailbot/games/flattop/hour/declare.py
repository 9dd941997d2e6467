# SPDX-License-Identifier: GPL-3.0-or-later
"""Attack declarations at the end of plane movement, and the precise makeup they earn.

Seed 003, 15 LI 1: "A player Air Attacking enemy TF's is told the precise makeup of
the TF's in the hex (ship types and numbers of each type, plus visible damage, but
never ship names) when he declares that he will be making an attack in that hex."
An AF declares by its orders (``turn.strikes``: FLY ... ATTACK, a search reaction
IF SHIPS ATTACK, or following such a searcher); it is a strike when it still carries
bombs or torpedoes and the hex holds enemy ships afloat or an enemy base on the map.
The makeup goes to the attacking side only, with the labels it may name
(:func:`battle.label_target`); the defender hears nothing until the attack happens.

Seed 003, 16.11 needs the "warning" each defending place had: the contiguous hexes
just before the target hex in which the defender's standing observers (TFs, bases,
radar, coastwatchers: ``observation.resolve_observe``) would see the AF.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop.combat.battle import STRIKE, Battle, Strike, Target, label_target
from mailbot.games.flattop.combat.cap import warning_hexes
from mailbot.games.flattop.combat.intel import makeup, makeup_sentence
from mailbot.games.flattop.hour.air_phase import is_interceptor
from mailbot.games.flattop.hour.resolve_observe import standing_observation
from mailbot.games.flattop.hour.sub_air import dive_under_air
from mailbot.games.flattop.hour.sub_phase import submerged
from mailbot.games.flattop.hour.turn import Turn, own_af
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.observation.observe import TF, af_target
from mailbot.games.flattop.units import AirFormation, Side


def declare(turn: Turn, shelled: frozenset[str] = frozenset()) -> Battle | None:
    """The turn's strikes (one per AF, at its final hex), or None when nobody attacks.
    ``shelled``: the bases bombarded this hour (their side knows the ships that did it)."""
    strikes: list[Strike] = []
    for side, number, _ in dict.fromkeys(turn.strikes):
        formation = own_af(turn, side, number)
        if formation is None or formation.hex is None:
            continue
        if not any(s.armament is not None for s in formation.stacks):
            _sweep(turn, formation)
            continue
        where = turn.state.scenario.map.hex_id(formation.hex)
        if dive_under_air(turn, side, formation.hex):  # seed 003, 27.6.4: DIVE on receiving the attack
            turn.tell(side, "attack", f"AF{number} at {where}: the submarine dived (seed 003, 27.6.4)")
        if not _enemy_in(turn, side, formation.hex, shelled):
            turn.tell(side, "attack", f"AF{number} found nothing to attack at {where}")
            continue
        altitude = formation.stacks[0].altitude
        strikes.append(Strike(side, number, formation.hex, altitude, _warning(turn, formation)))
    if not strikes:
        return None
    targets = tuple(_target(turn, side, h) for side, h in dict.fromkeys((s.side, s.hex) for s in strikes))
    return Battle(
        turn.state.turn,
        STRIKE,
        tuple(strikes),
        targets,
        sweeps=tuple(turn.sweeps),
        interceptions=tuple(turn.interceptions),
    )


def _sweep(turn: Turn, formation: AirFormation) -> None:
    """An AF without bombs told to ATTACK: with fighters it sweeps the hex (``combat.sweep``: they
    fight the enemy planes there in the Combat Phase); without, it says why it does nothing."""
    side, number = formation.side, formation.number
    roles = {name: p.roles for name, p in turn.state.rules.planes.items()}
    if not any(is_interceptor(s, roles) for s in formation.stacks):
        turn.tell(side, "attack", f"AF{number} has no bombs or torpedoes left to attack with")
        return
    turn.sweeps.append((side, number))
    where = turn.state.scenario.map.hex_id(formation.hex) if formation.hex else "?"
    turn.tell(
        side,
        "attack",
        f"AF{number} sweeps {where}: its fighters fight any enemy planes there at their altitude "
        "in the Combat Phase (reference A.11.4)",
    )


def _enemy_in(turn: Turn, side: Side, h: Hex, shelled: frozenset[str]) -> bool:
    """Whether the strike has something there it can see to attack: an enemy base, or enemy ships
    afloat that the strike sees in its own hex, that its side observed there this hour, or that
    bombarded its base there."""
    st = turn.state
    # Seed 003, 27.9 (submarines.toml [against.air]): planes attack surfaced submarines only.
    ships = any(tf.hex == h and tf.afloat and not submerged(st, tf) for tf in st.own_tfs(side.opponent))
    bombarded = any(b.hex == h and b.name in shelled for b in st.own_bases(side))
    if ships and not (_seen_in_own_hex(turn, h) or _observed_there(turn, side, h) or bombarded):
        # A blind ATTACK on a hex nobody has found must not act as a free, perfect search of it
        # (the precise makeup, LI 1): it finds nothing, as at an empty hex.
        ships = False
    return ships or any(b.hex == h for b in st.own_bases(side.opponent))


def _seen_in_own_hex(turn: Turn, h: Hex) -> bool:
    """Seed 003, 15 LI 1 and 7.12: planes "co-existing in a hex with enemy ships" are given the
    Condition 2 or 3 report "appropriate for that hex": in daylight, out of a storm (as TFs and
    bases see ships in their own hex, 7.12); at night or in a storm they see nothing there."""
    sky = turn.sky()
    return not sky.night and h not in sky.storms


def _observed_there(turn: Turn, side: Side, h: Hex) -> bool:
    """The side's spottings of enemy ships in ``h`` so far this hour (its searchers, shadowers)."""
    return any(s.hex == h and s.kind == TF for s in turn.spottings.get(side, ()))


def _target(turn: Turn, side: Side, h: Hex) -> Target:
    st = turn.state
    tfs = [tf for tf in st.own_tfs(side.opponent) if tf.hex == h and tf.afloat and not submerged(st, tf)]
    lines = [makeup([tf], turn=st.turn)[0] for tf in tfs]
    base = next((b.name for b in st.own_bases(side.opponent) if b.hex == h), None)
    return label_target(side, h, tfs, base, lines)


def _warning(turn: Turn, formation: AirFormation) -> int:
    """16.11: the contiguous observed approach hexes (the AF's flight this turn, target excluded)."""
    flight = next(
        (f for f in reversed(turn.flights) if f.side is formation.side and f.number == formation.number), None
    )
    if flight is None or len(flight.path) < 2:
        return 0
    approach = flight.path[:-1]
    enemy = formation.side.opponent
    seen = {h for h in approach if standing_observation(turn, enemy, [af_target(replace(formation, hex=h))])}
    return warning_hexes(approach, seen)


def brief(turn: Turn, battle: Battle) -> None:
    """Tell each attacking side the precise makeup in each hex it attacks, with the labels."""
    st = turn.state
    for target in battle.targets:
        where = st.scenario.map.hex_id(target.hex)
        afs = " ".join(f"AF{s.af}" for s in battle.strikes if s.side is target.side and s.hex == target.hex)
        tfs = [
            next(tf for tf in st.task_forces if tf.number == n and tf.side is target.side.opponent)
            for _, n in target.tfs
        ]
        lines = makeup(tfs, turn=st.turn) if tfs else ()
        parts = [f"TF {letter}: {line}" for (letter, _), line in zip(target.tfs, lines, strict=True)]
        if target.base:
            parts.append(f"the enemy base {target.base}")
        labels = " ".join(s.label for s in target.ships) + (" BASE" if target.base else "")
        text = (
            f"{afs} declared an attack at {where}. Precise makeup (seed 003, 15): "
            + ("; ".join(parts) or "nothing")
            + f". Targets you may name: {labels.strip()}"
        )
        turn.tell(target.side, "makeup", text, hex=where, makeup=makeup_sentence(lines) if lines else "")
