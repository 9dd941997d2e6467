# SPDX-License-Identifier: GPL-3.0-or-later
"""What scores victory points: each entry of the ledger (standard 25, reference A.13; seed 003).

Reference A.13: a lost Air Factor is worth 2 VP to the enemy, or 10 VP if lost "unnecessarily"; an
AP unloads 3 VP a turn for 8 turns and "its value if sunk falls from 24 by 3 each time"; ships that
leave the map score VP for their damage, not as sunk. Seed 003: "For each turn that Henderson or
Rabaul STARTS at 0 LF or below, score 4 points. For all other bases, score 2 points." And
(Survivors) 2 VP a factor rescued of the same nationality, 1 VP of the other. Each function returns
:class:`~mailbot.games.flattop.victory.VpEntry` values for
:func:`~mailbot.games.flattop.victory.record` to append.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mailbot.errors import GameError
from mailbot.games.flattop.units import Base, Ship, Side
from mailbot.games.flattop.victory import SIDE_NAMES, VictoryRules, VpEntry

# --- scoring ----------------------------------------------------------------------


def ship_sunk(
    ship: Ship, owner: Side, turn: int, rules: VictoryRules, *, unloaded_turns: int = 0, cause: str = ""
) -> VpEntry:
    """The enemy of ``owner`` scores the ship's value; a transport's falls as it unloads (A.13)."""
    points = rules.ships[ship.type]
    cargo = f" after {unloaded_turns} unloading turn(s)" if unloaded_turns else ""
    return VpEntry(
        turn=turn,
        side=owner.opponent,
        points=rules.sunk_value(ship.type, unloaded_turns),
        reason=f"{SIDE_NAMES[owner]} {ship.type} {ship.name} sunk{cargo}",
        key=f"sunk:{owner}:{ship.name}",
        owner=owner,
        owner_reason=f"{ship.type} {ship.name} sunk",
        public_reason=f"{SIDE_NAMES[owner]} {ship.type} sunk",
        default=points.default,
        cause=cause,
    )


def air_lost(
    plane: str,
    count: int,
    owner: Side,
    turn: int,
    rules: VictoryRules,
    *,
    unnecessary: bool = False,
    where: str = "",
    cause: str = "",
) -> VpEntry:
    """A.13: 2 VP a factor to the enemy, 10 if it could not land in time by its owner's error or choice.

    ``where`` tells apart two losses of the same plane name in one turn (e.g. the battle's hex).
    """
    if count < 1:
        raise GameError(f"air_lost: {count} factors of {plane} cannot be lost")
    each = rules.air_unnecessary if unnecessary else rules.air_lost
    why = " (could not land in time: lost unnecessarily)" if unnecessary else ""
    factors = f"{count} {plane} factor{'s' if count > 1 else ''}"
    return VpEntry(
        turn=turn,
        side=owner.opponent,
        points=count * each.value,
        reason=f"{SIDE_NAMES[owner]} {factors} lost{why}",
        key=f"air:{owner}:T{turn}:{plane}:{where}:{'unnecessary' if unnecessary else 'lost'}",
        owner=owner,
        owner_reason=f"{factors} lost{why}",
        # Night losses are never reported (seed 003, Limited Intelligence 3): no plane names here.
        public_reason=f"{count} {SIDE_NAMES[owner]} air factor{'s' if count > 1 else ''} lost{why}",
        default=each.default,
        cause=cause or ("fuel" if unnecessary else ""),
    )


def bases_at_turn_start(bases: Sequence[Base], turn: int, rules: VictoryRules) -> tuple[VpEntry, ...]:
    """Seed 003: each turn a base STARTS at 0 LF or below, its enemy scores (4 Henderson/Rabaul, else 2).

    ``base.launch`` is the base's current LF. An off-board base is never on the board to be
    bombed and never scores.
    """
    return tuple(_base_entry(base, turn, rules) for base in bases if not base.off_board and base.launch <= 0)


def _base_entry(base: Base, turn: int, rules: VictoryRules) -> VpEntry:
    points = rules.base_value(base.name)
    started = f"{base.name} started turn {turn} at LF {base.launch}"
    return VpEntry(
        turn=turn,
        side=base.side.opponent,
        points=points.value,
        reason=started,
        key=f"base:{base.name}:T{turn}",
        owner=base.side,
        owner_reason=started,
        public_reason=f"{base.name} started a turn at LF 0 or below",
        default=points.default,
        cause="base out of action",
    )


def damage_at_end(
    ships: Sequence[tuple[Ship, Side]],
    turn: int,
    rules: VictoryRules,
    *,
    unloaded: Mapping[str, int] | None = None,
) -> tuple[VpEntry, ...]:
    """Design default: each ship afloat (or gone off the map) scores its enemy per hit taken.

    Capped at its sunk value less ``below_sunk``: damaging a ship is never worth sinking it.
    ``unloaded`` gives the unloading turns done by transport name (their sunk value falls).
    Sunk ships are left out: :func:`ship_sunk` scored them.
    """
    done = unloaded or {}
    entries = (_damage_entry(ship, owner, turn, rules, done.get(ship.name, 0)) for ship, owner in ships)
    return tuple(entry for entry in entries if entry is not None)


def _damage_entry(ship: Ship, owner: Side, turn: int, rules: VictoryRules, unloaded: int) -> VpEntry | None:
    if ship.sunk or ship.hits <= 0:
        return None
    cap = max(0, rules.sunk_value(ship.type, unloaded) - rules.damage_below_sunk)
    points = min(ship.hits * rules.damage_per_hit.value, cap)
    if points <= 0:
        return None
    hits = f"{ship.hits} hit{'s' if ship.hits > 1 else ''}"
    return VpEntry(
        turn=turn,
        side=owner.opponent,
        points=points,
        reason=f"{SIDE_NAMES[owner]} {ship.type} {ship.name} damaged ({hits}) at the end",
        key=f"damage:{owner}:{ship.name}",
        owner=owner,
        owner_reason=f"{ship.type} {ship.name} damaged ({hits})",
        public_reason=f"{SIDE_NAMES[owner]} {ship.type} damaged",
        default=rules.damage_per_hit.default,
        cause="damage at the end",
    )


def unload_turn(ship: Ship, owner: Side, turn: int, done_before: int, rules: VictoryRules) -> VpEntry | None:
    """A.13: an unloading turn scores its side what the ship's sunk value loses; None if nothing.

    ``done_before`` counts the ship's earlier unloading turns (they need not be consecutive).
    """
    if ship.type not in rules.unload_per_turn:
        raise GameError(f"{ship.name} ({ship.type}) is no transport: only AP and APD unload")
    if not 0 <= done_before < rules.unload_turns:
        raise GameError(f"{ship.name} has already unloaded for {rules.unload_turns} turns")
    now = done_before + 1
    points = rules.sunk_value(ship.type, done_before) - rules.sunk_value(ship.type, now)
    if points <= 0:
        return None
    told = f"{ship.type} {ship.name} unloading, turn {now} of {rules.unload_turns}"
    return VpEntry(
        turn=turn,
        side=owner,
        points=points,
        reason=f"{SIDE_NAMES[owner]} {told}",
        key=f"unload:{owner}:{ship.name}:{now}:T{turn}",  # a ship that loads again unloads again
        owner=owner,
        owner_reason=told,
        public_reason=f"{SIDE_NAMES[owner]} {ship.type} unloading",
        default=rules.unload_per_turn[ship.type].default,
        cause="unloading",
    )


def troops_unloaded(
    place: str, factors: int, side: Side, turn: int, rules: VictoryRules, *, where: str = ""
) -> VpEntry | None:
    """A scenario's own condition: VP per troop factor ``side`` unloads at ``place``; None if it has none."""
    wanted = place.strip().casefold()
    award = next((a for a in rules.unloaded if a.side is side and a.place.casefold() == wanted), None)
    if award is None or factors < 1:
        return None
    told = f"{factors} troop factor{'s' if factors > 1 else ''} unloaded at {award.place}"
    return VpEntry(
        turn=turn,
        side=side,
        points=factors * award.points.value,
        reason=f"{SIDE_NAMES[side]} {told}",
        key=f"troops:{side}:{award.place}:T{turn}:{where}",
        owner=side,
        owner_reason=told,
        public_reason=f"{SIDE_NAMES[side]} {told}",
        cause="troops unloaded",
    )


def survivors_rescued(
    rescuer: Side, nationality: Side, factors: int, turn: int, rules: VictoryRules, *, where: str
) -> VpEntry | None:
    """Seed 003, Survivors: at game’s end 2 VP a factor of the rescuer's own nationality, 1 otherwise.

    ``where`` names the carrier (a ship, or the friendly territory they were landed on).
    """
    if factors < 1:
        return None
    each = rules.survivors_same if nationality is rescuer else rules.survivors_other
    told = f"{factors} {SIDE_NAMES[nationality]} survivor factor{'s' if factors > 1 else ''} rescued"
    return VpEntry(
        turn=turn,
        side=rescuer,
        points=factors * each.value,
        reason=f"{told} by the {SIDE_NAMES[rescuer]} side ({where})",
        key=f"survivors:{rescuer}:{nationality}:{where}",
        owner=rescuer,
        owner_reason=f"{told} ({where})",
        public_reason=f"{told} by the {SIDE_NAMES[rescuer]} side",
        default=each.default,
        cause="survivors rescued",
    )
