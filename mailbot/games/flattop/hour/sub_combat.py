# SPDX-License-Identifier: GPL-3.0-or-later
"""The submarines' Combat Phase (seed 003, 27.6-27.10), option ``submarines``: who fights whom.

After the air strikes (:func:`sub_combat`): one fight per submarine and enemy TF, when the sub
attacks the TF (SUBATTACK) or the TF attacks a sub it observes (ASW); each fight is resolved by
:mod:`.sub_fight`; then 27.9.2's reloads (:func:`reload_at_bases`).

Readings made here:

* by day a submarine puts all its factors on one ship: the first of the enemy TF by the side's
  standing PRIORITY (else the default order), since the side names no ships it has not been told;
  the TF attacked is the one in the hex holding that ship (the lowest number on a tie);
* 27.9.2 "Submarine and ASW ordnance is reloaded at eligible bases": a friendly base handling sea
  planes (SP or LP+SP, the harbour; Expanded Ship Function 7's bases, ``supply.toml``), the TF
  in its hex the whole hour without moving, and not firing that ordnance this hour; the reload
  comes at the end of the Combat Phase.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mailbot.games.flattop.combat.battle import Battle
from mailbot.games.flattop.combat.sub_moves import (
    AswState,
    asw_state,
    put,
    sub_state,
    tf_may_attack,
)
from mailbot.games.flattop.combat.sub_sequence import (
    rearm_ship,
    rearm_sub,
)
from mailbot.games.flattop.combat.submarines import (
    Depth,
)
from mailbot.games.flattop.hour.sub_air import air_spotted
from mailbot.games.flattop.hour.sub_fight import Fight, first_by_priority, resolve_fight, side_priority
from mailbot.games.flattop.hour.sub_phase import (
    Moved,
    own_tf,
    side_sees,
    still_dds,
    sub_rules,
    sub_tfs,
    tf_depth,
    tf_hex_name,
)
from mailbot.games.flattop.hour.supply import harbour
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.observation.observe import (
    Watcher,
    surface_condition,
    tf_target,
)
from mailbot.games.flattop.orders.checks import is_submarine
from mailbot.games.flattop.orders.subs import SubHour
from mailbot.games.flattop.orders.types import Asw
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Base, Side, TaskForce


def sub_combat(turn: Turn, battle: Battle | None) -> None:
    """The hour's submarine fights (after the air strikes; ``battle``: those strikes, for the
    sequence table's "+1 if the TF has been involved in other combat")."""
    st = turn.state
    hour = st.pending.sub_hour
    if not st.options.submarines or hour is None or hour.turn != st.turn:
        return
    turn.state = replace(st, pending=replace(st.pending, sub_hour=None))
    before = st.undersea.asw
    done: set[tuple[str, Side, int]] = set()
    for fight in _attacks(turn, hour):
        done.add((fight.sub, fight.side.opponent, fight.tf))
        resolve_fight(turn, fight, hour, battle)
    for side, order in sorted(hour.asw, key=lambda pair: (pair[0], pair[1].tf)):
        _asw_order(turn, side, order, hour=hour, battle=battle, done=done)
    reload_at_bases(turn, hour, before)


# --- 27.9.2: reloads -----------------------------------------------------------------------------------


def reload_at_bases(turn: Turn, hour: SubHour, before: Sequence[AswState]) -> None:
    """27.9.2: "Submarine and ASW ordnance is reloaded at eligible bases like gunnery and torpedo
    supplies": a TF that spent the whole hour without moving in the hex of a friendly base handling
    sea planes (SP or LP+SP) reloads its submarines' torpedoes and its ships' depth charges, but not
    ordnance it fired this hour (``before``: the ships' records as the Combat Phase began)."""
    st = turn.state
    for tf in st.task_forces:
        base = _harbour(st, tf)
        if base is None or hour.has_moved(tf.side, tf.number) or not tf.afloat:
            continue
        if is_submarine(tf):
            _reload_subs(turn, tf, base)
        else:
            _reload_asw(turn, tf, base, before)


def _harbour(state: FlatTopState, tf: TaskForce) -> Base | None:
    """The friendly base in the TF's hex that may reload it: an eligible base "like gunnery and
    torpedo supplies" (Expanded Ship Function 7's bases, ``supply.toml``: a harbour)."""
    return harbour(state, tf)


def _reload_subs(turn: Turn, tf: TaskForce, base: Base) -> None:
    st = turn.state
    names = [
        s.name
        for s in tf.afloat
        if (sub := sub_state(st.undersea.subs, s.name)).factors_fired and sub.attacked_turn != st.turn
    ]
    subs = st.undersea.subs
    for name in names:
        subs = put(subs, rearm_sub(sub_state(subs, name)))
    if names:
        turn.state = replace(st, undersea=replace(st.undersea, subs=subs))
        text = f"TF{tf.number} reloaded torpedoes at {base.name} (27.9.2): {', '.join(names)}"
        turn.tell(tf.side, "sub-reload", text)


def _reload_asw(turn: Turn, tf: TaskForce, base: Base, before: Sequence[AswState]) -> None:
    st = turn.state
    names = [
        s.name
        for s in tf.afloat
        if (kept := asw_state(st.undersea.asw, s.name)).asw_attacks and kept == asw_state(before, s.name)
    ]
    states = st.undersea.asw
    for name in names:
        states = put(states, rearm_ship(asw_state(states, name)))
    if names:
        turn.state = replace(st, undersea=replace(st.undersea, asw=states))
        text = f"TF{tf.number} reloaded ASW ordnance at {base.name} (27.9.2): {', '.join(names)}"
        turn.tell(tf.side, "sub-reload", text)


def _attacks(turn: Turn, hour: SubHour) -> list[Fight]:
    """One fight per submarine of each SUBATTACK TF, against the TF its attack goes to."""
    st = turn.state
    fights: list[Fight] = []
    for side, order in sorted(hour.attacks, key=lambda pair: (pair[0], pair[1].tf)):
        tf = own_tf(st, side, order.tf)
        if tf is None or not is_submarine(tf):
            continue
        if tf_depth(st, tf) is Depth.DEEP:
            turn.tell(side, "sub-attack", f"TF{tf.number} is deep: deep subs may never attack (27.6.2)")
            continue
        target = _target_tf(st, side, tf)
        if target is None:
            turn.tell(
                side, "sub-attack", f"TF{tf.number} found no enemy ships to attack at {tf_hex_name(st, tf)}"
            )
            continue
        # 27.6.5: a sub that dived under an air attack this hour makes no attack, so no fight either.
        boats = [s for s in tf.afloat if sub_state(st.undersea.subs, s.name).air_dive_turn != st.turn]
        if not boats:
            turn.tell(
                side, "sub-attack", f"TF{tf.number} dived under an air attack: it may not attack (27.6.5)"
            )
        fights += [Fight(side, tf.number, s.name, target.number, order) for s in boats]
    return fights


def _target_tf(state: FlatTopState, side: Side, sub_tf: TaskForce) -> TaskForce | None:
    """The enemy surface TF in the hex holding the first ship by the side's priority."""
    priority = side_priority(state, side)
    enemy = [
        t for t in state.own_tfs(side.opponent) if t.hex == sub_tf.hex and t.afloat and not is_submarine(t)
    ]

    def rank(tf: TaskForce) -> tuple[int, int]:
        kind = first_by_priority(tf, priority).type.value
        return (priority.index(kind) if kind in priority else len(priority), tf.number)

    return min(enemy, key=rank, default=None)


def _asw_order(
    turn: Turn,
    side: Side,
    order: Asw,
    *,
    hour: SubHour,
    battle: Battle | None,
    done: set[tuple[str, Side, int]],
) -> None:
    """ASW TF<n>: the TF attacks each enemy submarine it observes in its hex (27.5, 27.9)."""
    st = turn.state
    tf = own_tf(st, side, order.tf)
    if tf is None:
        return
    found = any(key[1:] == (side, tf.number) for key in done)  # it fought one already this hour
    for sub_tf in sub_tfs(st, side.opponent):
        if sub_tf.hex != tf.hex or not _tf_sees(turn, tf, sub_tf, hour):
            continue
        found = True
        for ship in sub_tf.afloat:
            if (ship.name, side, tf.number) not in done:
                done.add((ship.name, side, tf.number))
                resolve_fight(
                    turn, Fight(side.opponent, sub_tf.number, ship.name, tf.number, None), hour, battle
                )
    if not found:
        turn.tell(side, "sub-asw", f"TF{tf.number} found no submarine to attack at {tf_hex_name(st, tf)}")


def _tf_sees(turn: Turn, tf: TaskForce, sub_tf: TaskForce, hour: SubHour) -> bool:
    """The TF may attack the submarine TF: it observes it, or 27.5.3 "A TF whose plotted move takes
    it into the sub's hex may attack the sub as long as the aircraft remains in the hex to spot"."""
    spotters = air_spotted(turn.state, hour, tf.side, sub_tf)
    seen = _tf_observes(turn, tf, sub_tf, frozenset(hour.moved))
    return tf_may_attack(seen_by_tf=seen, spotted_by_air=bool(spotters), spotter_in_hex=bool(spotters))


def _tf_observes(turn: Turn, tf: TaskForce, sub_tf: TaskForce, moved: Moved) -> bool:
    """The TF observes the submarine TF now: a surfaced one by the normal rules in its own hex
    (27.4), a submerged one per 27.5.1-27.5.2 (or once it has attacked a ship)."""
    st = turn.state
    if not side_sees(st, tf.side, sub_tf, moved):
        return False
    if tf_depth(st, sub_tf) is Depth.DEEP:
        return still_dds(st, tf.side, [tf], moved) >= sub_rules(st).deep_detection_dds
    if tf_depth(st, sub_tf) is Depth.PERISCOPE:
        return True
    watcher = Watcher(f"TF{tf.number}", "TF", tf.side, tf.hex)
    target = replace(tf_target(sub_tf), own_hex_only=True)
    return surface_condition(watcher, target, turn.sky(), st.rules.observation) > 0
