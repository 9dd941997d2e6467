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
* after plane movement, at the declaration of an air strike: :mod:`.sub_air` (27.5.3's sub search,
  27.6.4's dive under an air attack);
* the Combat Phase, after the air strikes: :mod:`.sub_combat` (who fights whom, the reloads) and
  :mod:`.sub_fight` (one fight: the sequence table, the dives, the damage and the reports).

Readings made here (beyond those of :data:`combat.submarines.READINGS`; the sub search, combat
and reload readings are in the modules named above):

* coastwatchers do not see submarines (27.4: "in its own hex only", and they watch from the shore);
* a deep submarine's own observation is the "ships overhead" line alone (27.5.2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.combat.sub_moves import (
    begin_movement,
    may_move,
    movers_allowed,
    observation_limit,
    put,
    record_move,
    set_depth,
    stationary_dds,
    sub_state,
    sub_visible,
)
from mailbot.games.flattop.combat.submarines import (
    SHIPS_OVERHEAD,
    Depth,
    Observer,
    SubmarineRules,
    Weapon,
    submarine_rules,
)
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.map.hexes import distance
from mailbot.games.flattop.observation.knowledge import PLANES
from mailbot.games.flattop.observation.observe import (
    TF,
    Spotting,
    Target,
    tf_target,
)
from mailbot.games.flattop.orders.checks import is_submarine
from mailbot.games.flattop.orders.subs import SubHour
from mailbot.games.flattop.orders.types import Asw, Dive, SetDepth, SubAttack
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.tabledata import ConfigKey
from mailbot.games.flattop.units import Altitude, Side, TaskForce

Moved = frozenset[tuple[Side, int]]
WEAPON_WORDS = {Weapon.GUNNERY: "gunnery", Weapon.ASW: "ASW", Weapon.AIR: "air attack"}


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
    depths = [sub_state(state.undersea.subs, s.name).depth for s in tf.afloat]
    return min(depths, key=list(Depth).index, default=Depth.SURFACE)


def submerged(state: FlatTopState, tf: TaskForce) -> bool:
    """A submarine TF below the surface, with submarines in play (hidden from air strikes too)."""
    return state.options.submarines and is_submarine(tf) and tf_depth(state, tf) is not Depth.SURFACE


def tf_hex_name(state: FlatTopState, tf: TaskForce) -> str:
    """The hex the TF is in, as the map names it."""
    return state.scenario.map.hex_id(tf.hex)


def own_tf(state: FlatTopState, side: Side, number: int) -> TaskForce | None:
    """The side's own TF of that number (None: it has none)."""
    return next((t for t in state.own_tfs(side) if t.number == number), None)


def with_subs(state: FlatTopState, tf: TaskForce, change: Any) -> FlatTopState:
    """Every submarine of ``tf`` changed by ``change(SubState) -> SubState``."""
    subs = state.undersea.subs
    for ship in tf.afloat:
        subs = put(subs, change(sub_state(subs, ship.name)))
    return replace(state, undersea=replace(state.undersea, subs=subs))


# --- 27.2: movement ----------------------------------------------------------------------------


def before_movement(turn: Turn) -> None:
    """Keep the hour's orders; start each submarine's movement phase; hold the TFs that may not move."""
    st = turn.state
    if not st.options.submarines:
        return
    turn.state = replace(st, pending=replace(st.pending, sub_hour=_hour(turn)))
    for side in turn.sides():
        tfs = sub_tfs(turn.state, side)
        count = sum(len(t.afloat) for t in tfs)
        allowed = movers_allowed(count, sub_rules(st))
        for tf in tfs:
            turn.state = with_subs(turn.state, tf, lambda s: begin_movement(s, st.turn))
            if tf.plot and tf.plot[0]:
                allowed = _may_it_move(turn, tf, allowed, count)


def _hour(turn: Turn) -> SubHour:
    def of(kind: type[Any]) -> tuple[Any, ...]:
        return tuple((side, o) for side in turn.sides() for o in turn.of(side, kind))

    return SubHour(turn.state.turn, of(SubAttack), of(Asw), of(Dive))


def _may_it_move(turn: Turn, tf: TaskForce, allowed: int, count: int) -> int:
    """27.2, 27.2.1, 27.2.3 for one plotted submarine TF; the movers left after it."""
    st, rules = turn.state, sub_rules(turn.state)
    checks = [may_move(sub_state(st.undersea.subs, s.name), st.turn, rules) for s in tf.afloat]
    blocked = next((c for c in checks if not c.allowed), None)
    why = blocked.reason if blocked is not None else ""
    if not why and len(tf.afloat) > allowed:
        why = f"only {movers_allowed(count, rules)} of your {count} submarines may move an hour (27.2.3)"
    if why:
        # Held, the plot waits: this hour's leg is taken up next hour (its later legs after it).
        _set_plot(turn, tf, ((), *tf.plot))
        turn.tell(tf.side, "sub-hold", f"TF{tf.number} (submarine) holds at {tf_hex_name(st, tf)}: {why}")
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
    if not st.options.submarines or st.pending.sub_hour is None:
        return
    moved = _moved_now(turn)
    for side in turn.sides():
        for tf in sub_tfs(turn.state, side):
            if (side, tf.number) in moved:
                turn.state = with_subs(turn.state, tf, lambda s: record_move(s, st.turn))
        for order in turn.of(side, SetDepth):
            assert isinstance(order, SetDepth)
            _new_depth(turn, side, order)
    hour = replace(st.pending.sub_hour, moved=tuple(sorted(moved)))
    turn.state = replace(turn.state, pending=replace(turn.state.pending, sub_hour=hour))


def _new_depth(turn: Turn, side: Side, order: SetDepth) -> None:
    st = turn.state
    tf = own_tf(st, side, order.tf)
    if tf is None or not is_submarine(tf):
        return
    terrain = st.scenario.map.terrain_of(tf.hex)
    try:
        turn.state = with_subs(st, tf, lambda s: set_depth(s, order.depth, terrain, st.turn, sub_rules(st)))
    except GameError as error:  # 27.1: the plot ended in a partial-land hex after all
        turn.tell(side, "sub-depth", f"TF{tf.number} stays at {tf_depth(st, tf)} depth: {error}")
        return
    turn.tell(
        side, "sub-depth", f"TF{tf.number} (submarine) is at {order.depth} depth at {tf_hex_name(st, tf)}"
    )


# --- 27.3-27.5.2: observation ----------------------------------------------------------------------


def _moved_now(turn: Turn) -> Moved:
    return frozenset((side, n) for side, numbers in turn.moved.items() for n in numbers)


def still_dds(state: FlatTopState, side: Side, tfs: Iterable[TaskForce], moved: Moved) -> int:
    """The side's DDs that did not move this hour, in those TFs (27.5.1, 27.5.2)."""
    ships = [s for t in tfs if t.side is side and (side, t.number) not in moved for s in t.afloat]
    return stationary_dds(ships, sub_rules(state))


def side_sees(state: FlatTopState, side: Side, sub_tf: TaskForce, moved: Moved) -> bool:
    """27.4-27.5.2: may ``side`` observe the enemy submarine TF at all (from its own hex)? True for a
    surfaced one: the normal rules then decide, in its own hex only."""
    rules = sub_rules(state)
    here = [t for t in state.own_tfs(side) if t.hex == sub_tf.hex]
    depth = tf_depth(state, sub_tf)
    attacked = any(sub_state(state.undersea.subs, s.name).attacked_turn == state.turn for s in sub_tf.afloat)
    most = max((still_dds(state, side, [t], moved) for t in here), default=0)
    return sub_visible(
        depth, Observer.SHIPS, distance=0, rules=rules, attacked_ship=attacked,
        hex_dds=still_dds(state, side, here, moved), tf_dds=most,
    )  # fmt: skip


def visible_targets(turn: Turn, side: Side, targets: Sequence[Target]) -> list[Target]:
    """The targets as ``side`` may observe them: enemy submarines it may not see are left out, the
    rest are seen from their own hex only (27.4, 27.5)."""
    st = turn.state
    if not st.options.submarines:
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
    if not st.options.submarines:
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
    if not st.options.submarines:
        return
    for side in turn.sides():
        for tf in sub_tfs(st, side):
            if tf_depth(st, tf) is not Depth.DEEP:
                continue
            enemy = st.own_tfs(side.opponent)
            if any(t.hex == tf.hex and t.afloat and not submerged(st, t) for t in enemy):
                turn.tell(
                    side, "sub-overhead", f"TF{tf.number} (deep) at {tf_hex_name(st, tf)}: {SHIPS_OVERHEAD}"
                )
