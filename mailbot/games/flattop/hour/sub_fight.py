# SPDX-License-Identifier: GPL-3.0-or-later
"""One submarine against one enemy TF (seed 003, 27.6-27.10), option ``submarines``.

The SUBMARINE ATTACK SEQUENCE TABLE says who fires and in what order (27.6; a deep sub rolls
nothing, 27.6.2 "Deep subs may only receive ASW attacks. They may never attack."); DIVE takes the
sub down on receiving the TF's attack (27.6.4), resolved at the depths of 27.6.6-27.6.8; damage goes
through ``damage.hit_ship``; the reports follow 27.10, each side told only what it may know.

Readings made here:

* a TF attacked by a submarine returns fire whenever the sequence table lets it (the attack reveals
  the sub, 27.5.1): no letter could answer in time;
* the sequence table's "+1 if the TF has been involved in other combat (air attack or surface)
  that turn" counts this hour's air strikes on the TF's hex: surface battles come after submarine
  combat in this moderator's hour (reference A.10 puts surface attack last).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from mailbot.errors import GameError
from mailbot.games.flattop.combat.battle import DEFAULT_PRIORITY, Battle
from mailbot.games.flattop.combat.damage import ShipHit
from mailbot.games.flattop.combat.damage_ships import launch_note
from mailbot.games.flattop.combat.sub_attacks import (
    Aim,
    Combat,
    Firing,
    Torpedoes,
    asw_attack,
    attack_report,
    attack_report_lines,
    fire_torpedoes,
    fire_torpedoes_at_night,
    gunnery_attack,
    report_for_sub,
)
from mailbot.games.flattop.combat.sub_moves import (
    SubState,
    asw_state,
    put,
    sub_state,
)
from mailbot.games.flattop.combat.sub_sequence import (
    Situation,
    asw_capacity,
    asw_problem,
    attack_problem,
    dive,
    firing_order,
    gunnery_problem,
    recently_attacked,
    record_sub_attack,
    resolution_depth,
    sequence_roll,
    tf_anchored,
    torpedoes_left,
)
from mailbot.games.flattop.combat.submarines import (
    AirPresence,
    AttackSequence,
    Depth,
    Firer,
    SubmarineRules,
    Weapon,
)
from mailbot.games.flattop.hour.aftermath import ANTI_SUBMARINE, SUBMARINE, put_ships, score_planes
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.hour.sub_air import air_spotted
from mailbot.games.flattop.hour.sub_phase import WEAPON_WORDS, own_tf, sub_rules, tf_hex_name
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.orders.subs import SubHour
from mailbot.games.flattop.orders.types import SubAttack
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Altitude, Ship, Side, TaskForce

# --- 27.6-27.10: the Combat Phase ------------------------------------------------------------------


@dataclass(frozen=True)
class Fight:
    """One submarine against one enemy TF in its hex."""

    side: Side  # the submarine's
    sub_tf: int
    sub: str  # the submarine's name
    tf: int  # the enemy TF's number
    attack: SubAttack | None  # the submarine attacks this TF (None: the TF's ASW order found it)


@dataclass
class _Told:
    """One fight as it goes: each side's lines, and what 27.10's reports depend on."""

    sub: list[str] = field(default_factory=list)
    tf: list[str] = field(default_factory=list)
    attacked: bool = False  # the submarine made its attack
    sub_first: bool = False  # ... before the TF fired (27.10 "attack before the TF attacks")
    tf_fired: bool = False
    dived_deep: bool = False
    hits: tuple[ShipHit, ...] = ()

    @property
    def fired(self) -> bool:
        return self.attacked or self.tf_fired


def side_priority(state: FlatTopState, side: Side) -> tuple[str, ...]:
    """The side's standing PRIORITY, else the default order of ship types."""
    return state.side(side).priority or DEFAULT_PRIORITY


def first_by_priority(tf: TaskForce, priority: tuple[str, ...]) -> Ship:
    """The TF's ship first by ``priority`` (types not listed last; then as the TF lists them)."""
    ships = tf.afloat

    def rank(i: int) -> tuple[int, int]:
        kind = ships[i].type.value
        return (priority.index(kind) if kind in priority else len(priority), i)

    return ships[min(range(len(ships)), key=rank)]


# --- one fight -----------------------------------------------------------------------------------------


def resolve_fight(turn: Turn, fight: Fight, hour: SubHour, battle: Battle | None) -> None:
    st = turn.state
    sub_tf, tf = own_tf(st, fight.side, fight.sub_tf), own_tf(st, fight.side.opponent, fight.tf)
    if sub_tf is None or tf is None or not any(s.name == fight.sub for s in sub_tf.afloat) or not tf.afloat:
        return
    label = f"ft.sub.t{st.turn}.{fight.side.value}.{fight.sub}.vs.TF{fight.tf}"
    depth = sub_state(st.undersea.subs, fight.sub).depth
    result: AttackSequence | None = None
    if depth is Depth.DEEP:
        order: tuple[Firer, ...] = (Firer.TF,)  # 27.6.2: nothing for the table to order
    else:
        situation = _situation(turn, tf, battle, spotters=air_spotted(st, hour, tf.side, sub_tf))
        rolled = sequence_roll(situation, sub_rules(st), turn.dice, f"{label}/sequence")
        turn.referee("sub-sequence", f"{label}: {rolled.text}")
        result, order = rolled.result, firing_order(rolled.result, depth)
    told = _Told()
    for firer in order:
        if firer is Firer.SUB and fight.attack is not None:
            _sub_fires(turn, fight, result, told, label)
        elif firer is Firer.TF:
            _tf_fires(turn, fight, hour, told, label)
    _not_fired(turn, fight, result, order, told)
    _report(turn, fight, told, label)


def _situation(turn: Turn, tf: TaskForce, battle: Battle | None, *, spotters: Sequence[int]) -> Situation:
    """The facts of the sequence table's modifiers, for this TF now: "-1 if there is a low level
    enemy air formation in the hex (-2 if the AF has spotted or shadowed the sub in the current
    turn.)" (``spotters``: the TF's side's low AFs in the hex that did, :func:`air_spotted`)."""
    st = turn.state
    low = any(
        a.side is tf.side and a.hex == tf.hex and any(s.altitude is Altitude.LOW for s in a.stacks)
        for a in st.air
    )
    air = AirPresence.SPOTTED if spotters else AirPresence.LOW if low else AirPresence.NONE
    struck = battle is not None and any(
        t.side is tf.side.opponent and t.hex == tf.hex and any(n == tf.number for _, n in t.tfs)
        for t in battle.targets
    )
    return Situation(
        night=st.scenario.is_night(st.time),
        storm=tf.hex in storm_hexes(st.weather, st.rules.weather),
        other_combat=struck,
        anchored=tf_anchored(tf.afloat),
        air=air,
        sub_attacked_recently=recently_attacked(tf.afloat, st.undersea.asw, st.turn, sub_rules(st)),
    )


def _combat(state: FlatTopState) -> Combat:
    tools = kit(state)
    return Combat(sub_rules(state), tools.crt, tools.damage)


def _ships(state: FlatTopState, side: Side, tf: TaskForce) -> tuple[Ship, ...]:
    """The side's ships afloat in the TF's hex (27.9.1's escorts), the TF's own first."""
    others = [t for t in state.own_tfs(side) if t.hex == tf.hex and t.number != tf.number]
    return tuple(s for t in (tf, *others) for s in t.afloat)


def _sub_fires(turn: Turn, fight: Fight, result: AttackSequence | None, told: _Told, label: str) -> None:
    """27.8, 27.9.1: the submarine's torpedo attack on the TF."""
    st, rules = turn.state, sub_rules(turn.state)
    sub_tf, tf = own_tf(st, fight.side, fight.sub_tf), own_tf(st, fight.side.opponent, fight.tf)
    assert sub_tf is not None and tf is not None and fight.attack is not None
    ship = next(s for s in sub_tf.afloat if s.name == fight.sub)
    sub = sub_state(st.undersea.subs, fight.sub)
    factors = min(fight.attack.factors or rules.attack_factors, torpedoes_left(sub, rules))
    why = "no torpedoes left: it must reload (27.9.2)" if factors <= 0 else None
    why = why or attack_problem(sub, factors, st.turn, rules, result=result)
    if why or ship.destroyed or not tf.afloat:
        told.sub.append(f"{fight.sub} did not attack: {why or 'nothing to attack'}")
        return
    enemy = tf.side
    torpedoes = Torpedoes(fight.side, _ships(st, tf.side, tf), result)
    firing = Firing(st.turn, _combat(st), turn.dice, label)
    if st.scenario.is_night(st.time):
        fired = fire_torpedoes_at_night(ship, sub, factors, tf.afloat, torpedoes, firing=firing)
    else:
        aims = (Aim(first_by_priority(tf, side_priority(st, fight.side)).name, factors),)
        fired = fire_torpedoes(ship, sub, aims, torpedoes, firing=firing)
    attacked = record_sub_attack(st.undersea.asw, tf.afloat, st.turn)
    turn.state = replace(
        st, undersea=replace(st.undersea, subs=put(st.undersea.subs, fired.sub), asw=attacked)
    )
    put_ships(turn, enemy, fired.ships, SUBMARINE)
    for hit in fired.hits:
        score_planes(turn, enemy, hit.planes, SUBMARINE, where=hit.after.name)
    for strike in fired.strikes:
        turn.referee("sub-torpedo", f"{fight.sub} at {strike.target}: {strike.bht.text}; {strike.crt.text}")
    for hit in fired.hits:
        for fact in hit.facts:
            turn.referee("sub-damage", fact)
    told.attacked, told.sub_first, told.hits = True, not told.tf_fired, told.hits + fired.hits
    where = tf_hex_name(st, tf)
    told.tf.append(f"TF{tf.number} at {where} was attacked by a submarine: {_own_damage(fired.hits)}")


def _own_damage(hits: Iterable[ShipHit]) -> str:
    """The owner's own ships, exactly (LI 3 tells a side its own damage)."""
    taken: dict[str, ShipHit] = {}
    total: dict[str, int] = {}
    first: dict[str, Ship] = {}
    for hit in hits:
        taken[hit.after.name] = hit
        first.setdefault(hit.after.name, hit.before)
        total[hit.after.name] = total.get(hit.after.name, 0) + hit.taken
    lines = []
    for name, hit in taken.items():
        if not total[name]:
            continue
        ship = hit.after
        end = ", destroyed" if ship.destroyed else ""
        note = launch_note(first[name], ship)
        lines.append(
            f"{ship.type.value} {name} took {total[name]} hit(s) ({ship.hits}/{ship.damage}{end}){note}"
        )
    return "; ".join(lines) or "no hits"


def _tf_fires(turn: Turn, fight: Fight, hour: SubHour, told: _Told, label: str) -> None:
    """27.9: the TF's gunnery and ASW at the depths 27.6.6-27.6.8 give; DIVE takes the sub down as
    the attack comes in (27.6.4)."""
    st, rules = turn.state, sub_rules(turn.state)
    sub_tf, tf = own_tf(st, fight.side, fight.sub_tf), own_tf(st, fight.side.opponent, fight.tf)
    assert sub_tf is not None and tf is not None
    ship = next((s for s in sub_tf.afloat if s.name == fight.sub), None)
    if ship is None or ship.destroyed:
        return
    sub = sub_state(st.undersea.subs, fight.sub)
    dive_to = _dive_to(turn, fight, hour, sub_tf, sub)
    lingered = _lingered(fight, hour, tf, sub, rules)
    depths = {
        w: _depth_for(w, sub, dive_to=dive_to, lingered=lingered, now=st.turn, rules=rules)
        for w in (Weapon.GUNNERY, Weapon.ASW)
    }
    attackers = {w: _able(st, tf, w, depths[w]) for w in depths}
    if not any(attackers.values()):
        told.tf.append(
            f"TF{tf.number} at {tf_hex_name(st, tf)} has no weapon that can reach the submarine (27.9)"
        )
        return
    if dive_to is not None:
        under = Weapon.GUNNERY if attackers[Weapon.GUNNERY] else Weapon.ASW
        sub = dive(sub, dive_to, st.scenario.map.terrain_of(sub_tf.hex), st.turn, rules, under=under)
        told.dived_deep = dive_to is Depth.DEEP
        told.sub.append(f"{fight.sub} dived to {dive_to} depth as the attack came in (27.6.4)")
    told.tf_fired = True
    firing, states, lines = Firing(st.turn, _combat(st), turn.dice, label), st.undersea.asw, []
    for weapon, ships in attackers.items():
        depth = depths[weapon]
        if not ships or depth is None or ship.destroyed:
            continue
        attack = gunnery_attack if weapon is Weapon.GUNNERY else asw_attack
        done = attack(ship, sub, ships, states, depth=depth, firing=firing)
        ship, sub, states = done.sub_ship, done.sub, done.states
        hit = done.strike.hit
        strike = done.strike
        word = WEAPON_WORDS[weapon]
        turn.referee("sub-asw", f"{label} {word} at {depth}: {strike.bht.text}; {strike.crt.text}")
        for fact in hit.facts if hit else ():
            turn.referee("sub-damage", fact)
        lines.append(f"{word} at {depth} depth, {hit.taken if hit else 0} hit(s)")
    turn.state = replace(
        turn.state, undersea=replace(turn.state.undersea, subs=put(turn.state.undersea.subs, sub), asw=states)
    )
    put_ships(turn, fight.side, [ship], ANTI_SUBMARINE)
    told.sub.append(f"{fight.sub} was attacked ({'; '.join(lines)}): {_sub_damage(ship)}")
    _tf_report(turn, fight, ship, told, label)


def _sub_damage(ship: Ship) -> str:
    if ship.destroyed:
        return "she is sunk"
    return f"{ship.hits}/{ship.damage} hits" if ship.hits else "no damage"


def _dive_to(turn: Turn, fight: Fight, hour: SubHour, sub_tf: TaskForce, sub: SubState) -> Depth | None:
    """DIVE for this hour, if deeper than the sub is and allowed in its hex (27.1)."""
    st = turn.state
    wanted = hour.dive_of(fight.side, fight.sub_tf)
    if wanted is None or list(Depth).index(wanted) <= list(Depth).index(sub.depth):
        return None
    try:
        dive(sub, wanted, st.scenario.map.terrain_of(sub_tf.hex), st.turn, sub_rules(st))
    except GameError as error:
        turn.tell(fight.side, "sub-dive", f"TF{fight.sub_tf} could not dive: {error}")
        return None
    return wanted


def _lingered(fight: Fight, hour: SubHour, tf: TaskForce, sub: SubState, rules: SubmarineRules) -> bool:
    """27.6.8: "A sub which begins and ends a turn in the same hex with ASW units": neither the sub
    nor the TF moved this hour, and the TF has ASW ships."""
    still = not hour.has_moved(fight.side, fight.sub_tf) and not hour.has_moved(tf.side, tf.number)
    asw = any(asw_capacity(s.type, rules) for s in tf.afloat)
    return still and asw and sub.movement_turn == hour.turn


def _depth_for(
    weapon: Weapon, sub: SubState, *, dive_to: Depth | None, lingered: bool, now: int, rules: SubmarineRules
) -> Depth | None:
    """27.6.6-27.6.8: where this weapon's attack is resolved; None: it cannot reach the sub."""
    return resolution_depth(
        weapon, depth=sub.depth, rules=rules, dive_to=dive_to, after_own_attack=sub.attacked_turn == now,
        movement_depths=sub.movement_depths if weapon is Weapon.ASW and lingered else (),
    )  # fmt: skip


def _able(state: FlatTopState, tf: TaskForce, weapon: Weapon, depth: Depth | None) -> tuple[Ship, ...]:
    """The TF's ships that may fire ``weapon`` now (27.9, 27.9.2); none if it cannot reach the sub."""
    if depth is None:
        return ()
    rules = sub_rules(state)

    def problem(ship: Ship) -> str | None:
        kept = asw_state(state.undersea.asw, ship.name)
        if weapon is Weapon.GUNNERY:
            return gunnery_problem(ship, kept, state.turn)
        return asw_problem(ship, kept, rules)

    return tuple(s for s in tf.afloat if problem(s) is None)


def _tf_report(turn: Turn, fight: Fight, ship: Ship, told: _Told, label: str) -> None:
    """27.10: what the TF's side is told of the submarine it attacked."""
    st = turn.state
    depth = sub_state(st.undersea.subs, fight.sub).depth
    report = report_for_sub(
        ship, surfaced=depth is Depth.SURFACE, dived_deep_after_attack=told.dived_deep,
        night=st.scenario.is_night(st.time), turn=st.turn, rules=sub_rules(st), dice=turn.dice, label=label,
    )  # fmt: skip
    if report.roll is not None:
        flip = sub_rules(st).flip_max
        turn.referee("sub-slick", f"{label}: {report.roll.text} (the report flipped on {flip} or less)")
    tf = own_tf(st, fight.side.opponent, fight.tf)
    where = f" at {tf_hex_name(st, tf)}" if tf is not None else ""
    told.tf.append(f"TF{fight.tf} attacked a submarine{where}: {report.text}")


def _not_fired(
    turn: Turn, fight: Fight, result: AttackSequence | None, order: tuple[Firer, ...], told: _Told
) -> None:
    """The sequence table kept a side from firing that meant to: that side hears why. The TF's side
    hears it only when it knows of the sub: the sub attacked it, or its ASW order found the sub."""
    if result is None:
        return
    text = next(r.text for r in sub_rules(turn.state).sequence.rows if r.result is result)
    if fight.attack is not None and Firer.SUB not in order:
        told.sub.append(f"{fight.sub} could not attack: {text}")
    if Firer.TF not in order and (told.attacked or fight.attack is None):
        told.tf.append(f"TF{fight.tf} could not fire on the submarine: {text}")


def _report(turn: Turn, fight: Fight, told: _Told, label: str) -> None:
    """Both sides' lines, the sub's 27.10 report of its own attack first; the battle tallied."""
    st = turn.state
    if told.fired:
        turn.state = replace(st, score=st.score.counted(sub=1))
    if told.attacked:
        depth = sub_state(st.undersea.subs, fight.sub).depth
        kind = attack_report(attacked_first=told.sub_first, ended_surfaced=depth is Depth.SURFACE)
        policy = st.side(fight.side.opponent).deception
        lines = attack_report_lines(
            kind, told.hits, night=st.scenario.is_night(st.time), turn=st.turn, policy=policy,
            dice=turn.dice, label=f"{label}/report",
        )  # fmt: skip
        told.sub.insert(0, f"{fight.sub} attacked enemy ships: {'; '.join(lines)}")
    if told.sub:
        sub_tf = own_tf(st, fight.side, fight.sub_tf)
        where = f" at {tf_hex_name(st, sub_tf)}" if sub_tf is not None else ""
        turn.tell(fight.side, "sub-combat", f"TF{fight.sub_tf}{where}: " + ". ".join(told.sub))
    for line in told.tf:
        turn.tell(fight.side.opponent, "sub-combat", line)
