# SPDX-License-Identifier: GPL-3.0-or-later
"""Bombardment in a game hour (reference A.11.7; seed 003, 19.8, 19.9.4, 19.10.3; the rules in
``combat.surface``): ``BOMBARD TF<n>`` in the hour's orders; the TF's CAV, CA, CL (at BHT 8) and
DDs (at BHT 4, 19.9.4) that may fire shell the enemy base in their hex after movement, their CRT
numbers added up and read with one roll, at -1 by night; the hits land on the base at once.

The bombarding side is told what it can see of the base (15 LI 3: light or heavy damage, at
night "installations burning"); the base's owner its exact hits. DDs and APDs count a firing
(19.8: twice before replenishing), kept in the state with the surface battles' firings.
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop.combat import intel
from mailbot.games.flattop.combat.bombardment import bombard, bombard_problems
from mailbot.games.flattop.combat.damage import Attack, HitKind
from mailbot.games.flattop.combat.damage_bases import hit_base
from mailbot.games.flattop.combat.surface import surface_rules
from mailbot.games.flattop.hour.aftermath import BOMBARDMENT, put_ships, score_planes
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.orders.types import Bombard
from mailbot.games.flattop.units import Side


def bombardments(turn: Turn) -> frozenset[str]:
    """Every side's BOMBARD orders of this hour; the bases bombarded (they repair nothing this hour)."""
    hit: set[str] = set()
    for side in turn.sides():
        for order in turn.orders.get(side, ()):
            if isinstance(order, Bombard):
                name = _bombard(turn, side, order.tf)
                hit |= {name} if name else set()
    return frozenset(hit)


def _bombard(turn: Turn, side: Side, number: int) -> str:
    st = turn.state
    tf = next((t for t in st.own_tfs(side) if t.number == number), None)
    base = next((b for b in st.own_bases(side.opponent) if tf is not None and b.hex == tf.hex), None)
    if tf is None or base is None:
        turn.tell(side, "bombard", f"TF{number} has no enemy base in its hex to bombard")
        return ""
    rules = surface_rules(st.config["tables"])
    label = f"ft.bombard.t{st.turn}.{side.value}.TF{number}"
    ships = [s for s in tf.afloat if s.type in rules.bombard_bht and s.gunnery > 0]
    problems = bombard_problems(ships, firings=st.firings, occasion=label, rules=rules)
    able = [s for s in ships if not bombard_problems([s], firings=st.firings, occasion=label, rules=rules)]
    if not able:
        turn.tell(side, "bombard", f"TF{number} cannot bombard: {'; '.join(problems) or 'no ship may'}")
        return ""
    night = st.scenario.is_night(st.time)
    tools = kit(st)
    done = bombard(
        able, night=night, table=tools.crt, dice=turn.dice, label=label, firings=st.firings, rules=rules
    )
    for line in done.lines:
        turn.referee("bombard.roll", line)
    checks = int(done.result.critical_check)
    attack = Attack(done.result.hits, HitKind.GUNNERY, None, checks, label)
    result = hit_base(base, attack, rules=tools.damage, dice=turn.dice, turn=st.turn)
    bases = tuple(result.after if b is base else b for b in st.bases)
    turn.state = replace(st, bases=bases, firings=done.firings)
    put_ships(turn, side, done.ships, BOMBARDMENT)
    score_planes(turn, base.side, result.planes, BOMBARDMENT, where=base.name)
    for fact in result.facts:
        turn.referee("damage", fact)
    seen = intel.base_words(
        result.taken,
        night=night,
        policy=st.side(side.opponent).deception,
        dice=turn.dice,
        label=f"{label}.report",
    )
    turn.tell(side, "bombard", f"TF{number} bombarded {base.name}: {seen}")
    turn.tell(side.opponent, "bombard", f"Enemy ships bombarded {base.name}: {result.taken} hit(s)")
    return base.name
