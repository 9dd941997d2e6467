# SPDX-License-Identifier: GPL-3.0-or-later
"""Who fires first at a submarine, from which depth, with what (seed 003, 27.6-27.9).

27.6's "normal" situation and the SUBMARINE ATTACK SEQUENCE TABLE; 27.6.2 "Deep subs may only
receive ASW attacks. They may never attack."; the dives of 27.6.4-27.6.8 (the readings of 27.6.7 and
27.6.8 are in :data:`~mailbot.games.flattop.combat.submarines.READINGS`); 27.6.55 "Submarines may
only use their AA factor if surfaced."; 27.9's weapons by depth; 27.9.1's four attack factors and
unescorted +2; 27.9.2's reloads; the hit tables (BHTs) of each weapon.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from mailbot.core.dice import Dice, Roll
from mailbot.errors import GameError
from mailbot.games.flattop.combat.bht import Bht
from mailbot.games.flattop.combat.sub_moves import AswState, SubState, asw_state, depth_problem, put
from mailbot.games.flattop.combat.submarines import (
    DEPTHS,
    RULE_SEQUENCE,
    AirPresence,
    AttackSequence,
    Depth,
    Firer,
    SubmarineRules,
    Weapon,
    deeper,
)
from mailbot.games.flattop.map.hexes import Terrain
from mailbot.games.flattop.units import Ship, ShipType, Side

# --- 27.6: the attack sequence ----------------------------------------------------------------


@dataclass(frozen=True)
class Situation:
    """The facts the sequence table's modifiers ask about."""

    night: bool = False
    storm: bool = False
    other_combat: bool = False  # the TF was in other combat (air attack or surface) this turn
    anchored: bool = False  # the TF is anchored (:func:`tf_anchored`)
    air: AirPresence = AirPresence.NONE
    sub_attacked_recently: bool = False  # :func:`recently_attacked`


_MODIFIER_NAMES = {
    "night": "night",
    "storm": "storm",
    "other_combat": "TF in other combat this turn",
    "anchored": "TF anchored",
    "low_air": "low enemy AF in the hex",
    "low_air_spotted": "low enemy AF spotted or shadowed the sub",
    "sub_attack": "TF attacked by a sub in the last {hours} hours",
}


def sequence_modifiers(situation: Situation, rules: SubmarineRules) -> dict[str, int]:
    """The sequence table's modifiers that apply, under short names (their printed lines: ``texts``)."""
    flags = {
        "night": situation.night,
        "storm": situation.storm,
        "other_combat": situation.other_combat,
        "anchored": situation.anchored,
        "low_air": situation.air is AirPresence.LOW,
        "low_air_spotted": situation.air is AirPresence.SPOTTED,
        "sub_attack": situation.sub_attacked_recently,
    }
    values, hours = rules.sequence.modifiers, rules.sequence.recent_hours
    return {_MODIFIER_NAMES[key].format(hours=hours): values[key] for key, on in flags.items() if on}


def sequence(total: int, rules: SubmarineRules) -> AttackSequence:
    """The table's result for a modified roll."""
    return rules.sequence.row(total).result


@dataclass(frozen=True)
class SequenceRoll:
    roll: Roll
    result: AttackSequence
    text: str  # the roll and the printed result


def sequence_roll(situation: Situation, rules: SubmarineRules, dice: Dice, label: str) -> SequenceRoll:
    """Roll the SUBMARINE ATTACK SEQUENCE TABLE for one sub and one TF."""
    mods = sequence_modifiers(situation, rules)
    roll = dice.dice(label, rules.sequence.die, rule=RULE_SEQUENCE, modifiers=mods)
    row = rules.sequence.row(roll.total)
    return SequenceRoll(roll, row.result, f"{roll.text}: {row.text}")


def firing_order(result: AttackSequence, depth: Depth) -> tuple[Firer, ...]:
    """Who fires, in order. 27.6: "If a sub is on the surface and is involved in combat, the attack
    against the sub is resolved first. If a sub is at periscope depth, the sub's attack is resolved
    first." 27.6.2: a deep sub "may only receive ASW attacks. They may never attack.\""""
    if depth is Depth.DEEP:
        return (Firer.TF,)  # nothing for the table to order: only the TF's ASW can fire
    if result is AttackSequence.TF_ONLY:
        return (Firer.TF,)
    if result is AttackSequence.SUB_ONLY:
        return (Firer.SUB,)
    if result is AttackSequence.NORMAL and depth is Depth.SURFACE:
        return (Firer.TF, Firer.SUB)
    return (Firer.SUB, Firer.TF)


def tf_anchored(ships: Iterable[Ship]) -> bool:
    """A TF is anchored when every ship of it afloat is."""
    afloat = [s for s in ships if not s.sunk]
    return bool(afloat) and all(s.anchored for s in afloat)


def recently_attacked(
    ships: Iterable[Ship], states: Iterable[AswState], turn: int, rules: SubmarineRules
) -> bool:
    """The sequence table's "-1 If the TF has been attacked by a sub in the last 12 hours": any ship
    of the TF was in a TF a sub attacked this turn or in the 12 turns before."""
    by_name = {s.name: s for s in states}
    for ship in ships:
        state = by_name.get(ship.name)
        last = None if state is None else state.sub_attacked_turn
        if last is not None and 0 <= turn - last <= rules.sequence.recent_hours:
            return True
    return False


def record_sub_attack(states: Iterable[AswState], ships: Iterable[Ship], turn: int) -> tuple[AswState, ...]:
    """Every ship of a TF a sub attacked remembers it (for :func:`recently_attacked`)."""
    result = tuple(states)
    for ship in ships:
        result = put(result, replace(asw_state(result, ship.name), sub_attacked_turn=turn))
    return result


# --- 27.6.2-27.6.9, 27.9: depths in combat ------------------------------------------------------


def depth_modifier(weapon: Weapon, depth: Depth, rules: SubmarineRules) -> int | None:
    """27.9 (and ``[against.air]``): the BHT modifier of ``weapon`` against a sub at ``depth``;
    None: that weapon cannot attack it there."""
    return rules.against[weapon].get(depth)


def may_fire_aa(depth: Depth) -> bool:
    """27.6.55: "Submarines may only use their AA factor if surfaced.\""""
    return depth is Depth.SURFACE


def dive(
    sub: SubState,
    to: Depth,
    terrain: Terrain,
    turn: int,
    rules: SubmarineRules,
    *,
    under: Weapon | None = None,
) -> SubState:
    """27.6.4: a sub "may be ordered to dive upon receiving an attack"; during the combat phase, and
    its new depth is the one the next movement phase goes by (27.2.1). ``under`` AIR: 27.6.5, it may
    not attack this turn."""
    if DEPTHS.index(to) <= DEPTHS.index(sub.depth):
        raise GameError(f"{sub.name} cannot dive from {sub.depth} to {to}")
    problem = depth_problem(to, terrain, rules)
    if problem:
        raise GameError(f"{sub.name}: {problem}")
    air_dive = turn if under is Weapon.AIR else sub.air_dive_turn
    return replace(sub, depth=to, air_dive_turn=air_dive)


def resolution_depth(
    weapon: Weapon,
    *,
    depth: Depth,
    rules: SubmarineRules,
    dive_to: Depth | None = None,
    after_own_attack: bool = False,
    movement_depths: tuple[Depth, ...] = (),
) -> Depth | None:
    """The depth an enemy attack on a sub is resolved at; None: ``weapon`` cannot reach it.

    ``depth``: the sub's depth when the attack comes in; ``dive_to``: the depth it dives to on
    receiving it; ``after_own_attack``: it made its own attack before this one; ``movement_depths``:
    the depths it was at during movement, given when it "begins and ends a turn in the same hex with
    ASW units" (27.6.8; :func:`depths_during_movement`).

    27.6.6 "A sub which dives under a gunnery or ASW attack before making its own attack has the
    enemy attack resolved at its new depth." (27.6.5: planes too.) 27.6.7 "A sub which dives after
    making an attack has the surface attack resolved at surface level and the ASW attack resolved at
    periscope depth." 27.6.8 "... has the ASW attack resolved at the most favorable depth to the ASW
    combat which the sub was at during movement."
    """
    if dive_to is not None and DEPTHS.index(dive_to) <= DEPTHS.index(depth):
        raise GameError(f"a dive from {depth} to {dive_to} is no dive")
    lingering = _best_for(weapon, movement_depths, rules) if weapon is Weapon.ASW else None
    if lingering is not None:
        return lingering
    resolved = depth
    if dive_to is not None and not after_own_attack:
        resolved = dive_to
    elif dive_to is not None and weapon is Weapon.ASW:
        resolved = deeper(depth, Depth.PERISCOPE)
    return resolved if depth_modifier(weapon, resolved, rules) is not None else None


def _best_for(weapon: Weapon, depths: tuple[Depth, ...], rules: SubmarineRules) -> Depth | None:
    reachable = [d for d in depths if depth_modifier(weapon, d, rules) is not None]
    return max(reachable, key=lambda d: rules.against[weapon][d], default=None)


def depths_during_movement(sub: SubState, turn: int) -> tuple[Depth, ...]:
    """The depths of this turn's movement phase, for 27.6.8 (:func:`begin_movement` must have run)."""
    if sub.movement_turn != turn:
        raise GameError(f"{sub.name}: no movement phase recorded for turn {turn}")
    return sub.movement_depths


def engaged(sub: SubState, turn: int) -> SubState:
    """The sub was in combat this turn: 27.2.3, it may not move next turn."""
    return replace(sub, fought_turn=turn)


# --- 27.9-27.9.2: ammunition ------------------------------------------------------------------


def torpedoes_left(sub: SubState, rules: SubmarineRules) -> int:
    """27.9.2: 12 attack factors between reloads."""
    return max(0, rules.torpedo_capacity - sub.factors_fired)


def asw_capacity(ship_type: ShipType, rules: SubmarineRules) -> int:
    """27.9.2: DD class three ASW attacks, PG two; 0 for ships without ASW gear."""
    reloads = rules.asw_reloads.get(ship_type)
    return 0 if reloads is None else 1 + reloads


def asw_attacks_left(ship: Ship, state: AswState, rules: SubmarineRules) -> int:
    return max(0, asw_capacity(ship.type, rules) - state.asw_attacks)


def rearm_sub(sub: SubState) -> SubState:
    """27.9.2: reloaded "at eligible bases like gunnery and torpedo supplies"."""
    return replace(sub, factors_fired=0)


def rearm_ship(state: AswState) -> AswState:
    return replace(state, asw_attacks=0)


def attack_problem(
    sub: SubState, factors: int, turn: int, rules: SubmarineRules, *, result: AttackSequence | None = None
) -> str | None:
    """Why the sub may not make this torpedo attack now; None if it may (27.6.2, 27.6.5, 27.9.1,
    27.9.2, and the sequence table's result when rolled)."""
    if sub.depth is Depth.DEEP:
        return "deep subs may never attack (27.6.2)"
    if sub.air_dive_turn == turn:
        return "a sub which dives under an air attack cannot make an attack itself that turn (27.6.5)"
    if sub.attacked_turn == turn:
        return "a sub may only make one attack per combat phase (27.9.1)"
    if result is AttackSequence.TF_ONLY:
        return "the sub may not fire back (attack sequence table)"
    if not 1 <= factors <= rules.attack_factors:
        return f"a sub fires 1 to {rules.attack_factors} attack factors in an attack (27.9.1), not {factors}"
    if factors > torpedoes_left(sub, rules):
        return f"only {torpedoes_left(sub, rules)} attack factors left before a reload (27.9.2)"
    return None


def gunnery_problem(ship: Ship, state: AswState, turn: int) -> str | None:
    """27.9: "Ships may not attack subs by gunnery if they have used their gunnery factor in the
    current turn.\""""
    if ship.sunk or ship.gunnery <= 0:
        return f"{ship.name} has no gunnery factor"
    if state.gunnery_turn == turn:
        return f"{ship.name} used its gunnery factor this turn (27.9)"
    return None


def asw_problem(ship: Ship, state: AswState, rules: SubmarineRules) -> str | None:
    if ship.sunk or asw_capacity(ship.type, rules) == 0:
        return f"{ship.name} carries no ASW weapons (design default, submarines.toml [asw.ships])"
    if asw_attacks_left(ship, state, rules) <= 0:
        return f"{ship.name} has used its ASW attacks; it must reload (27.9.2)"
    return None


# --- 27.9: BHTs ---------------------------------------------------------------------------------


def _make_bht(what: str, base: int, mods: Mapping[str, int], default: bool) -> Bht:
    value = base + sum(mods.values())
    shown = "".join(f" {amount:+d} {name}" for name, amount in mods.items())
    flag = " (design default)" if default else ""
    return Bht(value, MappingProxyType(dict(mods)), f"{what}: BHT {base}{shown} = {value}{flag}", default)


def sub_bht(weapon: Weapon, depth: Depth, rules: SubmarineRules) -> Bht:
    """Gunnery or ASW against a sub at ``depth``: the design default BHT plus 27.9's modifier."""
    modifier = depth_modifier(weapon, depth, rules)
    if modifier is None:
        raise GameError(f"27.9: {weapon} cannot attack a sub at {depth}")
    if weapon is Weapon.ASW:
        base, section = rules.asw_bht, "asw.bht"
    elif weapon is Weapon.GUNNERY:
        base, section = rules.gunnery_bht, "gunnery"
    else:
        raise GameError("planes attack subs with their Air Hit Table (combat/bht.py)")
    mods = {f"sub at {depth} depth (27.9)": modifier} if modifier else {}
    return _make_bht(f"{weapon} vs submarine", base, mods, rules.is_default(section))


def unescorted(target: Ship, hex_ships: Iterable[Ship]) -> bool:
    """27.9.1: the target is crippled or anchored and "no friendly non-crippled/non-anchored ships
    are in the hex" (``hex_ships``: the target side's ships in the hex)."""
    if not (target.crippled or target.anchored):
        return False
    others = [s for s in hex_ships if s.name != target.name and not s.sunk]
    return all(s.crippled or s.anchored for s in others)


def torpedo_bht(side: Side, target: Ship, hex_ships: Iterable[Ship], rules: SubmarineRules) -> Bht:
    """A sub's torpedo BHT (design default: the side's torpedo BHT) with 27.9.1's +2."""
    mods = {"crippled/anchored target, unescorted (27.9.1)": rules.unescorted_bonus}
    mods = mods if unescorted(target, hex_ships) else {}
    default = rules.is_default("attack.torpedo_bht")
    return _make_bht(f"{side} submarine torpedoes", rules.torpedo_bht[side], mods, default)
