# SPDX-License-Identifier: GPL-3.0-or-later
"""Task-force organisation in the orders phase: SPLIT, MERGE, ANCHOR/WEIGH, UNLOAD (reference
A.5.1, A.13; orders in :mod:`orders.fleet`).

A new TF from SPLIT holds this turn (its PLOT comes with the next letter); MERGE keeps the
plot of the TF merged into. UNLOAD anchors the TF (an anchored TF holds, and 19.11 / 18's
"anchored" modifiers apply to it) and each AP or APD with cargo left unloads one turn's share,
scoring what its sunk value loses (``victory_scoring.unload_turn``; an AP 3 VP a turn for 8 turns) and, at
a base the scenario names in ``[[victory.unloaded]]``, the troop factor it lands that turn
(:data:`TROOPS_PER_TURN`, ``victory_scoring.troops_unloaded``).
"""

from __future__ import annotations

from dataclasses import replace

from mailbot.games.flattop.map.towing import TowingTable, may_tow, pair_hexes, start_tow
from mailbot.games.flattop.orders.types import Anchor, FtOrder, LoadCargo, Merge, Scuttle, Split, Tow, Unload
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirBoxes, Side, TaskForce
from mailbot.games.flattop.victory import VictoryRules, VpEntry
from mailbot.games.flattop.victory_scoring import air_lost, ship_sunk, troops_unloaded, unload_turn

FleetOrder = Split | Merge | Anchor | Unload | LoadCargo | Scuttle
SCUTTLED = "scuttled"  # the ledger's cause (``VpEntry.cause``)
#: Troop factors a transport lands in one unloading turn, for a scenario's ``[[victory.unloaded]]``
#: award (design default: reference A.13's Eastern Solomons example has "5 AP + 4 APD at 8 factors
#: each", and unloading runs 8 turns).
TROOPS_PER_TURN = 1


def organise(
    state: FlatTopState, side: Side, order: FtOrder, rules: VictoryRules
) -> tuple[FlatTopState, str, tuple[VpEntry, ...]]:
    """The state after one organisation order, what the side is told, and points scored."""
    tf = next((t for t in state.own_tfs(side) if t.number == getattr(order, "tf", None)), None)
    if tf is None or not isinstance(order, FleetOrder):
        return state, "", ()
    match order:
        case Split():
            return _split(state, tf, order), f"TF{order.new} formed from TF{tf.number}", ()
        case Merge():
            return _merge(state, tf, order), f"TF{tf.number} merged into TF{order.into}", ()
        case Anchor(_, down):
            word = "anchored" if down else "weighed anchor"
            return _replace(state, tf, _anchored(tf, down=down)), f"TF{tf.number} {word}", ()
        case Unload():
            return _unload(state, tf, rules)
        case LoadCargo():
            return _load(state, tf)
        case Scuttle():
            return _scuttle(state, tf, order, rules)
    return state, "", ()


def _scuttle(
    state: FlatTopState, tf: TaskForce, order: Scuttle, rules: VictoryRules
) -> tuple[FlatTopState, str, tuple[VpEntry, ...]]:
    """Reference A.5.1 (standard 12.9): "the enemy scores it as sunk"; she goes down at once (no
    delayed sinking: her own side opens her seacocks) with the planes aboard (reference A.12: "a
    sunk carrier takes its planes with it"), each scored as an air loss; a tow she was in ends."""
    ship = next((s for s in tf.afloat if s.name == order.ship), None)
    if ship is None:
        return state, f"SCUTTLE {order.ship}: she is no longer afloat", ()
    if ship.destroyed:  # sinking already (LI 4), and scored when her hits reached her Damage Factor
        sunk = replace(ship, sinking=0)
        state = _replace(state, tf, replace(tf, ships=tuple(sunk if s is ship else s for s in tf.ships)))
        return state, f"{ship.type} {ship.name}, sinking, was scuttled and went down", ()
    gone = replace(ship, hits=ship.damage, sinking=None, destroyed_turn=state.turn, boxes=AirBoxes())
    entries = [ship_sunk(gone, tf.side, state.turn, rules, unloaded_turns=ship.unloaded, cause=SCUTTLED)]
    aboard: dict[str, int] = {}
    for stack in (*ship.boxes.just_landed, *ship.boxes.readying, *ship.boxes.ready, *ship.boxes.dispersed):
        aboard[stack.plane] = aboard.get(stack.plane, 0) + stack.count
    entries += [
        air_lost(plane, n, tf.side, state.turn, rules, where=f"scuttled.{ship.name}", cause=SCUTTLED)
        for plane, n in sorted(aboard.items())
    ]
    state = _replace(state, tf, replace(tf, ships=tuple(gone if s is ship else s for s in tf.ships)))
    tows = tuple(p for p in state.tows if ship.name not in (p.tower, p.towed))
    planes = f" with {sum(aboard.values())} air factor(s) aboard" if aboard else ""
    return (
        replace(state, tows=tows),
        f"{ship.type} {ship.name} was scuttled{planes} (standard 12.9)",
        tuple(entries),
    )


def _replace(state: FlatTopState, old: TaskForce, *new: TaskForce) -> FlatTopState:
    tfs: list[TaskForce] = []
    for tf in state.task_forces:
        tfs.extend(new if tf is old else (tf,))
    return replace(state, task_forces=tuple(tfs))


def _split(state: FlatTopState, tf: TaskForce, order: Split) -> FlatTopState:
    leaving = tuple(s for s in tf.ships if s.name in order.ships)
    staying = tuple(s for s in tf.ships if s.name not in order.ships)
    new = TaskForce(order.new, tf.side, tf.hex, leaving, hidden=tf.hidden)
    return _replace(state, tf, replace(tf, ships=staying), new)


def _merge(state: FlatTopState, tf: TaskForce, order: Merge) -> FlatTopState:
    into = next(t for t in state.own_tfs(tf.side) if t.number == order.into)
    merged = replace(into, ships=into.ships + tf.ships)
    state = _replace(state, into, merged)
    return replace(state, task_forces=tuple(t for t in state.task_forces if t is not tf))


def _anchored(tf: TaskForce, *, down: bool) -> TaskForce:
    return replace(tf, ships=tuple(replace(s, anchored=down) for s in tf.ships))


def _load(state: FlatTopState, tf: TaskForce) -> tuple[FlatTopState, str, tuple[VpEntry, ...]]:
    """A turn's cargo back aboard each transport that has unloaded (its sunk value rises again)."""
    loading = [s for s in tf.ships if s.unloaded > 0 and not s.sunk]
    ships = tuple(replace(s, unloaded=s.unloaded - 1, anchored=True) if s in loading else s for s in tf.ships)
    told = f"TF{tf.number} loaded cargo: {len(loading)} transport(s) this turn"
    return _replace(state, tf, replace(tf, ships=ships)), told, ()


def _unload(
    state: FlatTopState, tf: TaskForce, rules: VictoryRules
) -> tuple[FlatTopState, str, tuple[VpEntry, ...]]:
    entries: list[VpEntry] = []
    ships = []
    place = next((b.name for b in state.bases if b.hex == tf.hex), "")
    for ship in tf.ships:
        busy = ship.type in rules.unload_per_turn and not ship.sunk and ship.unloaded < rules.unload_turns
        if busy:
            entry = unload_turn(ship, tf.side, state.turn, ship.unloaded, rules)
            entries += [entry] if entry else []
            troops = troops_unloaded(place, TROOPS_PER_TURN, tf.side, state.turn, rules, where=ship.name)
            entries += [troops] if troops and place else []
            ship = replace(ship, unloaded=ship.unloaded + 1)  # noqa: PLW2901 - the ship after unloading
        ships.append(replace(ship, anchored=True))
    told = f"TF{tf.number} anchored and unloaded: {len(entries)} transport(s) this turn"
    return _replace(state, tf, replace(tf, ships=tuple(ships))), told, tuple(entries)


def tow(state: FlatTopState, side: Side, order: Tow, table: TowingTable) -> tuple[FlatTopState, str]:
    """Seed 003, Towing: take up a tow (checked with the ships as they are now) or cast it off."""
    if order.towed is None:
        kept = tuple(p for p in state.tows if p.tower != order.tower)
        return replace(state, tows=kept), f"{order.tower} cast off her tow"
    ships = {s.name: s for t in state.own_tfs(side) for s in t.afloat}
    tower, towed = ships.get(order.tower), ships.get(order.towed)
    if tower is None or towed is None:
        return state, f"TOW {order.tower} {order.towed}: a ship is no longer afloat"
    busy = {p.tower for p in state.tows} | {p.towed for p in state.tows}
    if tower.name in busy or towed.name in busy:
        return state, f"{tower.name} or {towed.name} is already in a tow"
    why = may_tow(tower, towed, turn=state.turn, table=table, movement=state.rules.movement)
    if why:
        return state, f"TOW {tower.name} {towed.name}: {why}"
    pair = start_tow(tower, towed, turn=state.turn, table=table, movement=state.rules.movement)
    every = f"one hex every {pair.interval} turns"
    return replace(state, tows=(*state.tows, pair)), f"{tower.name} took {towed.name} in tow ({every})"


def tow_holds(state: FlatTopState, tf: TaskForce) -> int | None:
    """The hexes a TF with a tow may move this turn (1 or 0), or None for a TF without one."""
    names = {s.name for s in tf.afloat}
    pairs = [p for p in state.tows if p.tower in names and p.towed in names]
    if not pairs:
        return None
    return min(pair_hexes(p, state.turn) for p in pairs)
