# SPDX-License-Identifier: GPL-3.0-or-later
"""Submarines in the game hour (seed 003, 27: "Optional, of course"), with the game option
``submarines`` on; the rules are :mod:`combat.submarines`, the orders :mod:`orders.subs`. With the
option off every function here leaves the turn as it is: an SS is then an ordinary ship.

A submarine TF is a TF whose ships afloat are all SS; its depth is its submarines' (the shallowest,
should two merged TFs differ). The hour, by the phases that call this module:

* before TF movement (:func:`before_movement`): the hour's orders are kept for the Combat Phase
  (:class:`orders.subs.SubHour`); each submarine TF moves by the depth it started at (27.2.1: "A
  submarine is moved based on its depth at the beginning of the movement phase"), 27.2's one hex on
  the surface, one every other hour at periscope depth, none deep, not the hour after combat, and
  27.2.3's "Up to one half (rounded up) of a player's submarines may move in a given turn; a
  minimum of three may always move" (lowest TF numbers first). A TF that may not move keeps its
  plot for a later hour;
* after TF movement (:func:`after_movement`): moves are recorded and DEPTH takes effect (27.2.2 "A
  submarine may change to any depth during movement");
* observation (:func:`visible_targets`, :func:`as_subs_see`, :func:`overhead`): 27.4 "A sub on the
  surface is subject to normal detection in its own hex only"; 27.5.1 "A sub at periscope depth is
  only observed if it attacks a ship or is in a hex with DDs which did not move that turn"; 27.5.2
  "A deep sub is only observed by a TF with at least 4 DDs which did not move that turn; and the sub
  is told only that there are ships overhead"; 27.3 caps what a submarine itself observes;
* after plane movement (:func:`air_sub_search`): 27.5.3 "Subs at periscope depth may also be
  observed by aircraft flying at low level. The aircraft must spend 3MP per "sub search" roll and
  can only spot a sub in the same hex." A low AF rolls once per 3 MP it spent in the hex of an
  enemy periscope submarine; a find is its side's contact, and lets a TF there attack the sub "as
  long as the aircraft remains in the hex to spot";
* at the declaration of an air strike (:func:`dive_under_air`): a surfaced submarine whose side
  ordered DIVE dives "upon receiving an attack" (27.6.4) and "cannot make an attack itself that
  turn" (27.6.5); planes attack surfaced submarines only, so the strike has no submarine left;
* the Combat Phase, after the air strikes (:func:`sub_combat`): one fight per submarine and enemy
  TF, when the sub attacks the TF (SUBATTACK) or the TF attacks a sub it observes (ASW). The
  SUBMARINE ATTACK SEQUENCE TABLE says who fires and in what order (27.6; a deep sub rolls nothing,
  27.6.2 "Deep subs may only receive ASW attacks. They may never attack."); DIVE takes the sub down
  on receiving the TF's attack (27.6.4), resolved at the depths of 27.6.6-27.6.8; damage goes
  through ``damage.hit_ship``; the reports follow 27.10, each side told only what it may know;
  then 27.9.2's reloads (:func:`reload_at_bases`).

Readings made here (beyond those of :data:`combat.submarines.READINGS`):

* a TF attacked by a submarine returns fire whenever the sequence table lets it (the attack reveals
  the sub, 27.5.1): no letter could answer in time;
* by day a submarine puts all its factors on one ship: the first of the enemy TF by the side's
  standing PRIORITY (else the default order), since the side names no ships it has not been told;
  the TF attacked is the one in the hex holding that ship (the lowest number on a tie);
* the sequence table's "+1 if the TF has been involved in other combat (air attack or surface)
  that turn" counts this hour's air strikes on the TF's hex: surface battles come after submarine
  combat in this moderator's hour (reference A.10 puts surface attack last);
* coastwatchers do not see submarines (27.4: "in its own hex only", and they watch from the shore);
* a deep submarine's own observation is the "ships overhead" line alone (27.5.2);
* a sub search find is a Condition 2 contact: a periscope glimpsed from low level, never the makeup;
  the AF that shadowed a submarine TF this hour counts as having spotted it (sequence table -2);
* a submarine dives under an air attack when an AF declares an attack on its hex (the last moment
  before the attack comes in), to the depth of its side's DIVE order; that is not "combat" for
  27.2.3's move the turn after;
* 27.9.2 "Submarine and ASW ordnance is reloaded at eligible bases": a friendly base handling sea
  planes (SP or LP+SP, the harbour; Expanded Ship Function 7's bases, ``supply.toml``), the TF
  in its hex the whole hour without moving, and not firing that ordnance this hour; the reload
  comes at the end of the Combat Phase.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.combat.battle import DEFAULT_PRIORITY, Battle
from mailbot.games.flattop.combat.damage import ShipHit, launch_note
from mailbot.games.flattop.combat.sub_attacks import (
    Aim,
    Combat,
    asw_attack,
    attack_report,
    attack_report_lines,
    fire_torpedoes,
    fire_torpedoes_at_night,
    gunnery_attack,
    report_for_sub,
)
from mailbot.games.flattop.combat.sub_moves import (
    AswState,
    SubState,
    asw_state,
    begin_movement,
    may_move,
    movers_allowed,
    observation_limit,
    put,
    record_move,
    set_depth,
    stationary_dds,
    sub_search,
    sub_state,
    sub_visible,
    tf_may_attack,
)
from mailbot.games.flattop.combat.sub_sequence import (
    Situation,
    asw_capacity,
    asw_problem,
    attack_problem,
    dive,
    firing_order,
    gunnery_problem,
    rearm_ship,
    rearm_sub,
    recently_attacked,
    record_sub_attack,
    resolution_depth,
    sequence_roll,
    tf_anchored,
    torpedoes_left,
)
from mailbot.games.flattop.combat.submarines import (
    SHIPS_OVERHEAD,
    AirPresence,
    AttackSequence,
    Depth,
    Firer,
    Observer,
    SubmarineRules,
    Weapon,
    submarine_rules,
)
from mailbot.games.flattop.hour.aftermath import ANTI_SUBMARINE, SUBMARINE, put_ships, score_planes
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.hour.supply import harbour
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.map.hexes import Hex, distance
from mailbot.games.flattop.map.weather import sky, storm_hexes
from mailbot.games.flattop.observation.knowledge import PLANES, SHIPS
from mailbot.games.flattop.observation.observe import (
    AF,
    TF,
    Spotting,
    Target,
    Watcher,
    surface_condition,
    tf_target,
)
from mailbot.games.flattop.orders.checks import is_submarine
from mailbot.games.flattop.orders.subs import SubHour
from mailbot.games.flattop.orders.types import Asw, Dive, SetDepth, SubAttack
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.tabledata import ConfigKey
from mailbot.games.flattop.units import Altitude, Base, Ship, Side, TaskForce

Moved = frozenset[tuple[Side, int]]
_WEAPON_WORDS = {Weapon.GUNNERY: "gunnery", Weapon.ASW: "ASW", Weapon.AIR: "air attack"}


# --- the rules and the submarine TFs ---------------------------------------------------------


@lru_cache(maxsize=16)  # bounded: every loaded state brings a new config (its key)
def _rules(key: ConfigKey) -> SubmarineRules:
    return submarine_rules(key.config["tables"])


def sub_rules(state: FlatTopState) -> SubmarineRules:
    """``submarines.toml`` of the game's own tables (GameError if missing: option on, no table)."""
    return _rules(ConfigKey(state.config))


def sub_tfs(state: FlatTopState, side: Side) -> tuple[TaskForce, ...]:
    """The side's submarine TFs, by number."""
    return tuple(sorted((t for t in state.own_tfs(side) if is_submarine(t)), key=lambda t: t.number))


def tf_depth(state: FlatTopState, tf: TaskForce) -> Depth:
    """The TF's depth: its submarines' (the shallowest, should they differ)."""
    depths = [sub_state(state.subs, s.name).depth for s in tf.afloat]
    return min(depths, key=list(Depth).index, default=Depth.SURFACE)


def submerged(state: FlatTopState, tf: TaskForce) -> bool:
    """A submarine TF below the surface, with submarines in play (hidden from air strikes too)."""
    return state.submarines and is_submarine(tf) and tf_depth(state, tf) is not Depth.SURFACE


def _where(state: FlatTopState, tf: TaskForce) -> str:
    return state.scenario.map.hex_id(tf.hex)


def _own_tf(state: FlatTopState, side: Side, number: int) -> TaskForce | None:
    return next((t for t in state.own_tfs(side) if t.number == number), None)


def _with_subs(state: FlatTopState, tf: TaskForce, change: Any) -> FlatTopState:
    """Every submarine of ``tf`` changed by ``change(SubState) -> SubState``."""
    subs = state.subs
    for ship in tf.afloat:
        subs = put(subs, change(sub_state(subs, ship.name)))
    return replace(state, subs=subs)


# --- 27.2: movement ----------------------------------------------------------------------------


def before_movement(turn: Turn) -> None:
    """Keep the hour's orders; start each submarine's movement phase; hold the TFs that may not move."""
    st = turn.state
    if not st.submarines:
        return
    turn.state = replace(st, sub_hour=_hour(turn))
    for side in turn.sides():
        tfs = sub_tfs(turn.state, side)
        count = sum(len(t.afloat) for t in tfs)
        allowed = movers_allowed(count, sub_rules(st))
        for tf in tfs:
            turn.state = _with_subs(turn.state, tf, lambda s: begin_movement(s, st.turn))
            if tf.plot and tf.plot[0]:
                allowed = _may_it_move(turn, tf, allowed, count)


def _hour(turn: Turn) -> SubHour:
    def of(kind: type[Any]) -> tuple[Any, ...]:
        return tuple((side, o) for side in turn.sides() for o in turn.of(side, kind))

    return SubHour(turn.state.turn, of(SubAttack), of(Asw), of(Dive))


def _may_it_move(turn: Turn, tf: TaskForce, allowed: int, count: int) -> int:
    """27.2, 27.2.1, 27.2.3 for one plotted submarine TF; the movers left after it."""
    st, rules = turn.state, sub_rules(turn.state)
    checks = [may_move(sub_state(st.subs, s.name), st.turn, rules) for s in tf.afloat]
    blocked = next((c for c in checks if not c.allowed), None)
    why = blocked.reason if blocked is not None else ""
    if not why and len(tf.afloat) > allowed:
        why = f"only {movers_allowed(count, rules)} of your {count} submarines may move an hour (27.2.3)"
    if why:
        # Held, the plot waits: this hour's leg is taken up next hour (its later legs after it).
        _set_plot(turn, tf, ((), *tf.plot))
        turn.tell(tf.side, "sub-hold", f"TF{tf.number} (submarine) holds at {_where(st, tf)}: {why}")
        return allowed
    hexes = min(c.hexes for c in checks)
    if len(tf.plot[0]) > hexes:
        _set_plot(turn, tf, (tf.plot[0][:hexes], *tf.plot[1:]))
    return allowed - len(tf.afloat)


def _set_plot(turn: Turn, tf: TaskForce, plot: tuple[tuple[Any, ...], ...]) -> None:
    tfs = tuple(
        replace(t, plot=plot) if (t.side, t.number) == (tf.side, tf.number) else t
        for t in turn.state.task_forces
    )
    turn.state = replace(turn.state, task_forces=tfs)


def after_movement(turn: Turn) -> None:
    """Record who moved (27.2.1) and the new depths of DEPTH orders (27.2.2)."""
    st = turn.state
    if not st.submarines or st.sub_hour is None:
        return
    moved = _moved_now(turn)
    for side in turn.sides():
        for tf in sub_tfs(turn.state, side):
            if (side, tf.number) in moved:
                turn.state = _with_subs(turn.state, tf, lambda s: record_move(s, st.turn))
        for order in turn.of(side, SetDepth):
            assert isinstance(order, SetDepth)
            _new_depth(turn, side, order)
    hour = replace(st.sub_hour, moved=tuple(sorted(moved)))
    turn.state = replace(turn.state, sub_hour=hour)


def _new_depth(turn: Turn, side: Side, order: SetDepth) -> None:
    st = turn.state
    tf = _own_tf(st, side, order.tf)
    if tf is None or not is_submarine(tf):
        return
    terrain = st.scenario.map.terrain_of(tf.hex)
    try:
        turn.state = _with_subs(st, tf, lambda s: set_depth(s, order.depth, terrain, st.turn, sub_rules(st)))
    except GameError as error:  # 27.1: the plot ended in a partial-land hex after all
        turn.tell(side, "sub-depth", f"TF{tf.number} stays at {tf_depth(st, tf)} depth: {error}")
        return
    turn.tell(side, "sub-depth", f"TF{tf.number} (submarine) is at {order.depth} depth at {_where(st, tf)}")


# --- 27.3-27.5.2: observation ----------------------------------------------------------------------


def _moved_now(turn: Turn) -> Moved:
    return frozenset((side, n) for side, numbers in turn.moved.items() for n in numbers)


def _still_dds(state: FlatTopState, side: Side, tfs: Iterable[TaskForce], moved: Moved) -> int:
    ships = [s for t in tfs if t.side is side and (side, t.number) not in moved for s in t.afloat]
    return stationary_dds(ships, sub_rules(state))


def side_sees(state: FlatTopState, side: Side, sub_tf: TaskForce, moved: Moved) -> bool:
    """27.4-27.5.2: may ``side`` observe the enemy submarine TF at all (from its own hex)? True for a
    surfaced one: the normal rules then decide, in its own hex only."""
    rules = sub_rules(state)
    here = [t for t in state.own_tfs(side) if t.hex == sub_tf.hex]
    depth = tf_depth(state, sub_tf)
    attacked = any(sub_state(state.subs, s.name).attacked_turn == state.turn for s in sub_tf.afloat)
    most = max((_still_dds(state, side, [t], moved) for t in here), default=0)
    return sub_visible(
        depth, Observer.SHIPS, distance=0, rules=rules, attacked_ship=attacked,
        hex_dds=_still_dds(state, side, here, moved), tf_dds=most,
    )  # fmt: skip


def visible_targets(turn: Turn, side: Side, targets: Sequence[Target]) -> list[Target]:
    """The targets as ``side`` may observe them: enemy submarines it may not see are left out, the
    rest are seen from their own hex only (27.4, 27.5)."""
    st = turn.state
    if not st.submarines:
        return list(targets)
    subs = {tf_target(t).ref: t for t in st.task_forces if t.side is not side and is_submarine(t)}
    moved = _moved_now(turn)
    seen: list[Target] = []
    for target in targets:
        sub = subs.get(target.ref) if target.kind == TF else None
        if sub is None:
            seen.append(target)
        elif side_sees(st, side, sub, moved):
            seen.append(replace(target, own_hex_only=True))
    return seen


def as_subs_see(turn: Turn, side: Side, spots: Sequence[Spotting]) -> list[Spotting]:
    """27.3: what the side's submarine TFs observe, cut to their depth's limits."""
    st = turn.state
    if not st.submarines:
        return list(spots)
    subs = {f"TF{t.number}": t for t in sub_tfs(st, side)}
    kept: list[Spotting] = []
    for spot in spots:
        tf = subs.get(spot.observer_key) if spot.observer_kind in ("TF", "RADAR") else None
        capped = spot if tf is None else _capped(st, tf, spot)
        if capped is not None:
            kept.append(capped)
    return kept


def _capped(state: FlatTopState, tf: TaskForce, spot: Spotting) -> Spotting | None:
    """27.3: "A sub may observe up to condition three only in its own hex if it is on the surface
    (air units may be observed at condition one if one hex away and at HI and any sub with radar
    may observe normally); up to condition two in its own hex if at periscope depth"."""
    depth = tf_depth(state, tf)
    if depth is Depth.DEEP:
        return None  # 27.5.2: told only that there are ships overhead (:func:`overhead`)
    rng = distance(tf.hex, spot.hex)
    targets = spot.targets
    if spot.kind == PLANES and rng == 1:
        targets = tuple(_high_only(t) for t in targets if Altitude.HIGH in t.altitudes)
    radar = any(s.radar for s in tf.afloat)
    rules = sub_rules(state)
    limit = observation_limit(depth, distance=rng, high_air=bool(targets), radar=radar, rules=rules)
    if limit is None:
        return spot
    if limit == 0 or not targets:
        return None
    return replace(spot, condition=min(spot.condition, limit), targets=targets)


def _high_only(target: Target) -> Target:
    return replace(target, planes=tuple(p for p in target.planes if p.altitude is Altitude.HIGH))


def overhead(turn: Turn) -> None:
    """27.5.2: a deep submarine "is told only that there are ships overhead"."""
    st = turn.state
    if not st.submarines:
        return
    for side in turn.sides():
        for tf in sub_tfs(st, side):
            if tf_depth(st, tf) is not Depth.DEEP:
                continue
            enemy = st.own_tfs(side.opponent)
            if any(t.hex == tf.hex and t.afloat and not submerged(st, t) for t in enemy):
                turn.tell(side, "sub-overhead", f"TF{tf.number} (deep) at {_where(st, tf)}: {SHIPS_OVERHEAD}")


# --- 27.5.3: low aircraft search for periscope submarines ------------------------------------------

SEARCH_CONDITION = 2  # a periscope glimpsed from low level: a contact, never the makeup (a reading)


def air_sub_search(turn: Turn) -> None:
    """27.5.3: "Subs at periscope depth may also be observed by aircraft flying at low level. The
    aircraft must spend 3MP per "sub search" roll and can only spot a sub in the same hex." After
    plane movement: each low AF rolls for each enemy periscope submarine TF in a hex of its flight,
    once per 3 MP it spent there, until it finds it. The AFs that shadowed a submarine TF this hour
    are kept too (the sequence table's "-2 if the AF has spotted or shadowed the sub")."""
    st = turn.state
    hour = st.sub_hour
    if not st.submarines or hour is None or hour.turn != st.turn:
        return
    spotters = list(hour.spotters)
    for side, af, number in turn.shadows:
        shadowed = _own_tf(st, side.opponent, number)
        if shadowed is not None and is_submarine(shadowed):
            spotters.append((side, af, number))
    for (side, af, h), mp in _low_mp(turn).items():
        for sub_tf in sub_tfs(turn.state, side.opponent):
            if sub_tf.hex == h and _search_for(turn, side, af, sub_tf, mp):
                spotters.append((side, af, sub_tf.number))
    turn.state = replace(turn.state, sub_hour=replace(hour, spotters=tuple(dict.fromkeys(spotters))))


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
    where = _where(st, sub_tf)
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


def _air_spotted(state: FlatTopState, hour: SubHour, side: Side, sub_tf: TaskForce) -> tuple[int, ...]:
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
    hour = st.sub_hour
    if not st.submarines or hour is None or hour.turn != st.turn:
        return False
    for tf in sub_tfs(st, attacker.opponent):
        wanted = hour.dive_of(tf.side, tf.number)
        if tf.hex == h and wanted is not None and tf_depth(turn.state, tf) is Depth.SURFACE:
            _air_dive(turn, tf, wanted)
    return any(
        tf.hex == h and any(sub_state(turn.state.subs, s.name).air_dive_turn == st.turn for s in tf.afloat)
        for tf in sub_tfs(turn.state, attacker.opponent)
    )


def _air_dive(turn: Turn, tf: TaskForce, to: Depth) -> None:
    st = turn.state
    terrain = st.scenario.map.terrain_of(tf.hex)
    try:
        turn.state = _with_subs(
            st, tf, lambda s: dive(s, to, terrain, st.turn, sub_rules(st), under=Weapon.AIR)
        )
    except GameError as error:  # 27.1: no deep dive in a partial-land hex
        turn.tell(tf.side, "sub-dive", f"TF{tf.number} could not dive under the air attack: {error}")
        return
    turn.tell(
        tf.side, "sub-dive",
        f"TF{tf.number} (submarine) at {_where(st, tf)} dived to {to} depth under an air attack: "
        "it may not attack this hour (27.6.4, 27.6.5)",
    )  # fmt: skip


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


def sub_combat(turn: Turn, battle: Battle | None) -> None:
    """The hour's submarine fights (after the air strikes; ``battle``: those strikes, for the
    sequence table's "+1 if the TF has been involved in other combat")."""
    st = turn.state
    hour = st.sub_hour
    if not st.submarines or hour is None or hour.turn != st.turn:
        return
    turn.state = replace(st, sub_hour=None)
    before = st.asw
    done: set[tuple[str, Side, int]] = set()
    for fight in _attacks(turn, hour):
        done.add((fight.sub, fight.side.opponent, fight.tf))
        _fight(turn, fight, hour, battle)
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
        if (sub := sub_state(st.subs, s.name)).factors_fired and sub.attacked_turn != st.turn
    ]
    subs = st.subs
    for name in names:
        subs = put(subs, rearm_sub(sub_state(subs, name)))
    if names:
        turn.state = replace(st, subs=subs)
        text = f"TF{tf.number} reloaded torpedoes at {base.name} (27.9.2): {', '.join(names)}"
        turn.tell(tf.side, "sub-reload", text)


def _reload_asw(turn: Turn, tf: TaskForce, base: Base, before: Sequence[AswState]) -> None:
    st = turn.state
    names = [
        s.name
        for s in tf.afloat
        if (kept := asw_state(st.asw, s.name)).asw_attacks and kept == asw_state(before, s.name)
    ]
    states = st.asw
    for name in names:
        states = put(states, rearm_ship(asw_state(states, name)))
    if names:
        turn.state = replace(st, asw=states)
        text = f"TF{tf.number} reloaded ASW ordnance at {base.name} (27.9.2): {', '.join(names)}"
        turn.tell(tf.side, "sub-reload", text)


def _attacks(turn: Turn, hour: SubHour) -> list[Fight]:
    """One fight per submarine of each SUBATTACK TF, against the TF its attack goes to."""
    st = turn.state
    fights: list[Fight] = []
    for side, order in sorted(hour.attacks, key=lambda pair: (pair[0], pair[1].tf)):
        tf = _own_tf(st, side, order.tf)
        if tf is None or not is_submarine(tf):
            continue
        if tf_depth(st, tf) is Depth.DEEP:
            turn.tell(side, "sub-attack", f"TF{tf.number} is deep: deep subs may never attack (27.6.2)")
            continue
        target = _target_tf(st, side, tf)
        if target is None:
            turn.tell(side, "sub-attack", f"TF{tf.number} found no enemy ships to attack at {_where(st, tf)}")
            continue
        # 27.6.5: a sub that dived under an air attack this hour makes no attack, so no fight either.
        boats = [s for s in tf.afloat if sub_state(st.subs, s.name).air_dive_turn != st.turn]
        if not boats:
            turn.tell(
                side, "sub-attack", f"TF{tf.number} dived under an air attack: it may not attack (27.6.5)"
            )
        fights += [Fight(side, tf.number, s.name, target.number, order) for s in boats]
    return fights


def _priority(state: FlatTopState, side: Side) -> tuple[str, ...]:
    return state.side(side).priority or DEFAULT_PRIORITY


def _aim(tf: TaskForce, priority: tuple[str, ...]) -> Ship:
    """The TF's ship first by ``priority`` (types not listed last; then as the TF lists them)."""
    ships = tf.afloat

    def rank(i: int) -> tuple[int, int]:
        kind = ships[i].type.value
        return (priority.index(kind) if kind in priority else len(priority), i)

    return ships[min(range(len(ships)), key=rank)]


def _target_tf(state: FlatTopState, side: Side, sub_tf: TaskForce) -> TaskForce | None:
    """The enemy surface TF in the hex holding the first ship by the side's priority."""
    priority = _priority(state, side)
    enemy = [
        t for t in state.own_tfs(side.opponent) if t.hex == sub_tf.hex and t.afloat and not is_submarine(t)
    ]

    def rank(tf: TaskForce) -> tuple[int, int]:
        kind = _aim(tf, priority).type.value
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
    tf = _own_tf(st, side, order.tf)
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
                _fight(turn, Fight(side.opponent, sub_tf.number, ship.name, tf.number, None), hour, battle)
    if not found:
        turn.tell(side, "sub-asw", f"TF{tf.number} found no submarine to attack at {_where(st, tf)}")


def _tf_sees(turn: Turn, tf: TaskForce, sub_tf: TaskForce, hour: SubHour) -> bool:
    """The TF may attack the submarine TF: it observes it, or 27.5.3 "A TF whose plotted move takes
    it into the sub's hex may attack the sub as long as the aircraft remains in the hex to spot"."""
    spotters = _air_spotted(turn.state, hour, tf.side, sub_tf)
    seen = _tf_observes(turn, tf, sub_tf, frozenset(hour.moved))
    return tf_may_attack(seen_by_tf=seen, spotted_by_air=bool(spotters), spotter_in_hex=bool(spotters))


def _tf_observes(turn: Turn, tf: TaskForce, sub_tf: TaskForce, moved: Moved) -> bool:
    """The TF observes the submarine TF now: a surfaced one by the normal rules in its own hex
    (27.4), a submerged one per 27.5.1-27.5.2 (or once it has attacked a ship)."""
    st = turn.state
    if not side_sees(st, tf.side, sub_tf, moved):
        return False
    if tf_depth(st, sub_tf) is Depth.DEEP:
        return _still_dds(st, tf.side, [tf], moved) >= sub_rules(st).deep_detection_dds
    if tf_depth(st, sub_tf) is Depth.PERISCOPE:
        return True
    watcher = Watcher(f"TF{tf.number}", "TF", tf.side, tf.hex)
    target = replace(tf_target(sub_tf), own_hex_only=True)
    return surface_condition(watcher, target, turn.sky(), st.rules.observation) > 0


# --- one fight -----------------------------------------------------------------------------------------


def _fight(turn: Turn, fight: Fight, hour: SubHour, battle: Battle | None) -> None:
    st = turn.state
    sub_tf, tf = _own_tf(st, fight.side, fight.sub_tf), _own_tf(st, fight.side.opponent, fight.tf)
    if sub_tf is None or tf is None or not any(s.name == fight.sub for s in sub_tf.afloat) or not tf.afloat:
        return
    label = f"ft.sub.t{st.turn}.{fight.side.value}.{fight.sub}.vs.TF{fight.tf}"
    depth = sub_state(st.subs, fight.sub).depth
    result: AttackSequence | None = None
    if depth is Depth.DEEP:
        order: tuple[Firer, ...] = (Firer.TF,)  # 27.6.2: nothing for the table to order
    else:
        situation = _situation(turn, tf, battle, spotters=_air_spotted(st, hour, tf.side, sub_tf))
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
    turn.)" (``spotters``: the TF's side's low AFs in the hex that did, :func:`_air_spotted`)."""
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
        sub_attacked_recently=recently_attacked(tf.afloat, st.asw, st.turn, sub_rules(st)),
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
    sub_tf, tf = _own_tf(st, fight.side, fight.sub_tf), _own_tf(st, fight.side.opponent, fight.tf)
    assert sub_tf is not None and tf is not None and fight.attack is not None
    ship = next(s for s in sub_tf.afloat if s.name == fight.sub)
    sub = sub_state(st.subs, fight.sub)
    factors = min(fight.attack.factors or rules.attack_factors, torpedoes_left(sub, rules))
    why = "no torpedoes left: it must reload (27.9.2)" if factors <= 0 else None
    why = why or attack_problem(sub, factors, st.turn, rules, result=result)
    if why or ship.destroyed or not tf.afloat:
        told.sub.append(f"{fight.sub} did not attack: {why or 'nothing to attack'}")
        return
    hex_ships, enemy = _ships(st, tf.side, tf), tf.side
    if st.scenario.is_night(st.time):
        fired = fire_torpedoes_at_night(
            ship, sub, factors, tf.afloat, hex_ships, side=fight.side, turn=st.turn,
            combat=_combat(st), dice=turn.dice, label=label, result=result,
        )  # fmt: skip
    else:
        aims = (Aim(_aim(tf, _priority(st, fight.side)).name, factors),)
        fired = fire_torpedoes(
            ship, sub, aims, hex_ships, side=fight.side, turn=st.turn, combat=_combat(st),
            dice=turn.dice, label=label, result=result,
        )  # fmt: skip
    turn.state = replace(st, subs=put(st.subs, fired.sub), asw=record_sub_attack(st.asw, tf.afloat, st.turn))
    put_ships(turn, enemy, fired.ships, SUBMARINE)
    for hit in fired.hits:
        score_planes(turn, enemy, hit.planes, SUBMARINE, where=hit.after.name)
    for strike in fired.strikes:
        turn.referee("sub-torpedo", f"{fight.sub} at {strike.target}: {strike.bht.text}; {strike.crt.text}")
    for hit in fired.hits:
        for fact in hit.facts:
            turn.referee("sub-damage", fact)
    told.attacked, told.sub_first, told.hits = True, not told.tf_fired, told.hits + fired.hits
    where = _where(st, tf)
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
    sub_tf, tf = _own_tf(st, fight.side, fight.sub_tf), _own_tf(st, fight.side.opponent, fight.tf)
    assert sub_tf is not None and tf is not None
    ship = next((s for s in sub_tf.afloat if s.name == fight.sub), None)
    if ship is None or ship.destroyed:
        return
    sub = sub_state(st.subs, fight.sub)
    dive_to = _dive_to(turn, fight, hour, sub_tf, sub)
    lingered = _lingered(fight, hour, tf, sub, rules)
    depths = {
        w: _depth_for(w, sub, dive_to=dive_to, lingered=lingered, now=st.turn, rules=rules)
        for w in (Weapon.GUNNERY, Weapon.ASW)
    }
    attackers = {w: _able(st, tf, w, depths[w]) for w in depths}
    if not any(attackers.values()):
        told.tf.append(f"TF{tf.number} at {_where(st, tf)} has no weapon that can reach the submarine (27.9)")
        return
    if dive_to is not None:
        under = Weapon.GUNNERY if attackers[Weapon.GUNNERY] else Weapon.ASW
        sub = dive(sub, dive_to, st.scenario.map.terrain_of(sub_tf.hex), st.turn, rules, under=under)
        told.dived_deep = dive_to is Depth.DEEP
        told.sub.append(f"{fight.sub} dived to {dive_to} depth as the attack came in (27.6.4)")
    told.tf_fired = True
    combat, states, lines = _combat(st), st.asw, []
    for weapon, ships in attackers.items():
        depth = depths[weapon]
        if not ships or depth is None or ship.destroyed:
            continue
        attack = gunnery_attack if weapon is Weapon.GUNNERY else asw_attack
        done = attack(
            ship, sub, ships, states, depth=depth, turn=st.turn, combat=combat, dice=turn.dice, label=label
        )
        ship, sub, states = done.sub_ship, done.sub, done.states
        hit = done.strike.hit
        strike = done.strike
        word = _WEAPON_WORDS[weapon]
        turn.referee("sub-asw", f"{label} {word} at {depth}: {strike.bht.text}; {strike.crt.text}")
        for fact in hit.facts if hit else ():
            turn.referee("sub-damage", fact)
        lines.append(f"{word} at {depth} depth, {hit.taken if hit else 0} hit(s)")
    turn.state = replace(turn.state, subs=put(turn.state.subs, sub), asw=states)
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
        kept = asw_state(state.asw, ship.name)
        if weapon is Weapon.GUNNERY:
            return gunnery_problem(ship, kept, state.turn)
        return asw_problem(ship, kept, rules)

    return tuple(s for s in tf.afloat if problem(s) is None)


def _tf_report(turn: Turn, fight: Fight, ship: Ship, told: _Told, label: str) -> None:
    """27.10: what the TF's side is told of the submarine it attacked."""
    st = turn.state
    depth = sub_state(st.subs, fight.sub).depth
    report = report_for_sub(
        ship, surfaced=depth is Depth.SURFACE, dived_deep_after_attack=told.dived_deep,
        night=st.scenario.is_night(st.time), turn=st.turn, rules=sub_rules(st), dice=turn.dice, label=label,
    )  # fmt: skip
    if report.roll is not None:
        flip = sub_rules(st).flip_max
        turn.referee("sub-slick", f"{label}: {report.roll.text} (the report flipped on {flip} or less)")
    tf = _own_tf(st, fight.side.opponent, fight.tf)
    where = f" at {_where(st, tf)}" if tf is not None else ""
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
        turn.state = replace(st, sub_battles=st.sub_battles + 1)
    if told.attacked:
        depth = sub_state(st.subs, fight.sub).depth
        kind = attack_report(attacked_first=told.sub_first, ended_surfaced=depth is Depth.SURFACE)
        policy = st.side(fight.side.opponent).deception
        lines = attack_report_lines(
            kind, told.hits, night=st.scenario.is_night(st.time), turn=st.turn, policy=policy,
            dice=turn.dice, label=f"{label}/report",
        )  # fmt: skip
        told.sub.insert(0, f"{fight.sub} attacked enemy ships: {'; '.join(lines)}")
    if told.sub:
        sub_tf = _own_tf(st, fight.side, fight.sub_tf)
        where = f" at {_where(st, sub_tf)}" if sub_tf is not None else ""
        turn.tell(fight.side, "sub-combat", f"TF{fight.sub_tf}{where}: " + ". ".join(told.sub))
    for line in told.tf:
        turn.tell(fight.side.opponent, "sub-combat", line)
