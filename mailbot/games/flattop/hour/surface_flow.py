# SPDX-License-Identifier: GPL-3.0-or-later
"""A surface battle by mail: the sub-steps around ``combat.surface`` (seed 003, 19).

When enemy ships share a hex after movement (TFs always see each other there, so both sides
know of it), the hour goes on with one battle per such hex, each a sequence of sub-steps owed
by both sides, with a short deadline and a documented default:

1. ``engage``: ENGAGE or AVOID (standing ``SURFACE ENGAGE|AVOID``; default ENGAGE) and the
   ships' POSITIONs (default: ``surface.default_positions``); no battle unless a side engages;
2. ``bht``: each side's secret number 1-6, SEALED (``SEAL BHT n``; default 3); the letter holds
   the enemy's ship types, numbers, groups and damage (19); opened when both are in;
3. ``gunnery``: FIRE <ship> AT <number>; ships without a line fire by the default allocation;
4. ``torpedo``: TORPEDO <ship> AT <number> (only when the BHT allows torpedoes or a target is
   unescorted, and a ship may fire them);
5. ``breakthrough``: the side at 3:1 fires again (FIRE), answered by the enemy's screen.

After each round each side hears its own ships' damage exactly, the enemy's by number in Limited
Intelligence 3's words, and the enemy's surviving gunnery at +/-10% (exact when 3:1 could be).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from mailbot.games.flattop.combat import intel
from mailbot.games.flattop.combat.battle import BHT, BREAKTHROUGH, ENGAGE, GUNNERY, TORPEDO, SurfaceFight
from mailbot.games.flattop.combat.damage_ships import launch_note
from mailbot.games.flattop.combat.surface import (
    Combatant,
    Position,
    Stage,
    default_positions,
    disabled,
    disclosure,
    torpedoes_allowed,
)
from mailbot.games.flattop.combat.surface_battle import (
    Engagement,
    Fire,
    Round,
    RoundResult,
    check_allocation,
    default_allocation,
    firers,
    why_silent,
)
from mailbot.games.flattop.combat.surface_rounds import (
    breakthrough_possible,
    could_be_breakthrough,
    gunnery_round,
    reported_gunnery,
    surviving_gunnery,
    torpedo_round,
)
from mailbot.games.flattop.hour.aftermath import SURFACE, put_ships, score_planes
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.map.towing import tow_gunnery
from mailbot.games.flattop.orders.types import BhtNumber, Engage, FireAt, FtOrder, Placement
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Ship, ShipType, Side

DEFAULT_BHT = 3  # design default for a silent side's secret number (the middle of 1-6)


def encounters(state: FlatTopState) -> tuple[Hex, ...]:
    """Hexes where both sides have ships afloat (submarines aside: section 27)."""

    def ships_of(side: Side) -> set[Hex]:
        return {t.hex for t in state.own_tfs(side) if any(s.type is not ShipType.SS for s in t.afloat)}

    both = ships_of(Side.ALLIED) & ships_of(Side.JAPANESE)
    return tuple(sorted(both, key=lambda h: (h.col, h.row)))


def begin(state: FlatTopState) -> FlatTopState:
    """Open the hour's surface battles, if any (the state is returned unchanged otherwise)."""
    hexes = encounters(state)
    return (
        replace(state, pending=replace(state.pending, surface=SurfaceFight(state.turn, hexes)))
        if hexes
        else state
    )


def sides_in(state: FlatTopState, h: Hex) -> dict[Side, list[Ship]]:
    return {
        side: [s for t in state.own_tfs(side) if t.hex == h for s in t.afloat if s.type is not ShipType.SS]
        for side in Side
    }


def combatant(state: FlatTopState, fight: SurfaceFight, side: Side) -> Combatant:
    ships = tuple(sides_in(state, fight.hexes[0])[side])
    positions = {n: Position(p) for n, p in fight.positions if any(s.name == n for s in ships)}
    labels = {n: label for n, label in fight.labels if any(s.name == n for s in ships)} or None
    names = {s.name for s in ships}
    pairs = [p for p in state.tows if p.tower in names]
    # Seed 003, Towing: the pair is "treated as an anchored target"; the tow ship's gunnery is halved.
    towing = frozenset(n for p in pairs for n in (p.tower, p.towed))
    table = kit(state).towing
    limits = {s.name: tow_gunnery(s, table=table) for s in ships if s.name in {p.tower for p in pairs}}
    return Combatant(side, ships, positions, towing=towing, gunnery_limits=limits, labels=labels)


def occasion(fight: SurfaceFight) -> str:
    """The battle's label: the root of its roll labels and the occasion its DD firings count as (19.8)."""
    return f"ft.{fight.key.rsplit('.', 1)[0]}"


def engagement(state: FlatTopState, fight: SurfaceFight) -> Engagement:
    declared = {Side(side): n for side, n in fight.declared} or dict.fromkeys(Side, DEFAULT_BHT)
    return Engagement(
        combatant(state, fight, Side.ALLIED), combatant(state, fight, Side.JAPANESE), declared,
        night=state.scenario.is_night(state.time), turn=state.turn, label=occasion(fight),
    )  # fmt: skip


# --- the phases -------------------------------------------------------------------------------------


def resolve_phase(
    turn: Turn, fight: SurfaceFight, orders: Mapping[Side, Sequence[FtOrder]]
) -> SurfaceFight | None:
    """One sub-step; the fight as it goes on, or None when this hour's battles are over."""
    step = {ENGAGE: _engage, BHT: _bht, GUNNERY: _gunnery, TORPEDO: _torpedo, BREAKTHROUGH: _breakthrough}
    after = step[fight.phase](turn, fight, orders)
    if after is not None:
        return after
    if fight.phase != ENGAGE:  # a battle was fought (not both sides declining)
        turn.state = replace(turn.state, score=turn.state.score.counted(surface=1))
    return _next_hex(fight)


def _next_hex(fight: SurfaceFight) -> SurfaceFight | None:
    if len(fight.hexes) <= 1:
        return None
    return SurfaceFight(fight.turn, fight.hexes[1:], fight.index + 1)


def _engage(turn: Turn, fight: SurfaceFight, orders: Mapping[Side, Sequence[FtOrder]]) -> SurfaceFight | None:
    st = turn.state
    where = st.scenario.map.hex_id(fight.hexes[0])
    wants = {side: next((o.on for o in orders.get(side, ()) if isinstance(o, Engage)), True) for side in Side}
    if not any(wants.values()):
        for side in Side:
            turn.tell(side, "surface", f"Enemy ships at {where}: neither side opened surface combat")
        return None
    positions: dict[str, str] = {}
    labels: dict[str, str] = {}
    for side in Side:
        c = combatant(st, fight, side)
        chosen = default_positions(c, turn=st.turn, firings=st.firings, occasion=occasion(fight))
        for order in orders.get(side, ()):
            if isinstance(order, Placement) and order.ship in chosen:
                chosen[order.ship] = Position(order.position)
        placed = replace(c, positions=chosen)
        for ship in placed.afloat:  # crippled, anchored and towing ships must screen (A.11.7)
            if disabled(placed, ship, turn=st.turn):
                chosen[ship.name] = Position.SCREEN
        positions |= {n: p.value for n, p in chosen.items()}
        labels |= dict(placed.numbers)
    opened = replace(
        fight, phase=BHT, positions=tuple(sorted(positions.items())), labels=tuple(sorted(labels.items()))
    )
    battle = engagement(st, opened)
    for side in Side:
        mine, theirs = battle.side(side), battle.enemy(side)
        who = " and ".join(s.value for s in Side if wants[s])
        shows = "; ".join(disclosure(theirs, turn=st.turn))
        turn.tell(side, "surface", f"Surface battle at {where} (opened by {who}). The enemy shows: {shows}")
        known = "; ".join(
            f"{s.name} {mine.number(s.name)} ({mine.position(s.name).value})" for s in mine.afloat
        )
        turn.tell(side, "surface", f"Your ships as the enemy knows them: {known}")
    return opened


def _bht(turn: Turn, fight: SurfaceFight, orders: Mapping[Side, Sequence[FtOrder]]) -> SurfaceFight:
    numbers = {side: next((o.number for o in orders.get(side, ()) if isinstance(o, BhtNumber)), DEFAULT_BHT)
               for side in Side}  # fmt: skip
    opened = replace(fight, phase=GUNNERY, declared=tuple((s.value, n) for s, n in numbers.items()))
    battle = engagement(turn.state, opened)
    notes = [f"{s.value} is unescorted (19.11)" for s in Side if battle.unescorted(s)]
    text = (f"Sealed BHT numbers opened: Allied {numbers[Side.ALLIED]}, Japanese {numbers[Side.JAPANESE]}; "
            f"the round's BHT is {battle.bht()} (the sum, reference A.11.7)"
            + (f"; {', '.join(notes)}" if notes else ""))  # fmt: skip
    for side in Side:
        turn.tell(side, "surface-bht", text)
    return opened


_STAGES = {GUNNERY: Stage.GUNNERY, TORPEDO: Stage.TORPEDO, BREAKTHROUGH: Stage.BREAKTHROUGH}


def silent_ships(state: FlatTopState, fight: SurfaceFight, side: Side) -> dict[str, str]:
    """In a fire step: the side's ships that may not fire in it, and why (empty in other steps)."""
    stage = _STAGES.get(fight.phase)
    if stage is None:
        return {}
    battle = engagement(state, fight)
    c, enemy = battle.side(side), battle.enemy(side)
    breaker = Side(fight.breaker) if fight.breaker else None
    at = Round(battle.turn, stage, breaker, state.firings, battle.label)
    out = {}
    for ship in c.ships:
        why = why_silent(ship, c, enemy, at)
        if why is not None:
            out[ship.name] = why
    return out


def _fires(
    turn: Turn, battle: Engagement, orders: Mapping[Side, Sequence[FtOrder]], side: Side, stage: Stage
) -> tuple[Fire, ...]:
    """The side's FIRE/TORPEDO lines that the rules allow, the default allocation for the rest."""
    c, enemy = battle.side(side), battle.enemy(side)
    fight = turn.state.pending.surface
    breaker = Side(fight.breaker) if fight and fight.breaker else None
    torpedo = stage is Stage.TORPEDO
    at = Round(battle.turn, stage, breaker, turn.state.firings, battle.label)
    chosen: list[Fire] = []
    refused: list[tuple[str, str]] = []
    for order in orders.get(side, ()):
        if not isinstance(order, FireAt) or order.torpedo != torpedo:
            continue
        ship = c.ship(order.ship)
        factors = (ship.torpedo if torpedo else c.gunnery(ship)) if ship else 0
        fire = Fire(order.ship, order.target, factors)
        problems = check_allocation([*chosen, fire], c, enemy, at)
        if problems:
            refused.append((order.ship, problems[0]))
        else:
            chosen.append(fire)
    named = {f.ship for f in chosen}
    # 19.8: a DD or APD that has fired twice since replenishing holds her fire (firings, occasion).
    rest = [f for f in default_allocation(c, enemy, at) if f.ship not in named]
    by_default = {f.ship for f in rest}
    for name, why in refused:  # say only what is true: she fires by the default, or not at all
        then = "she fires by the default" if name in by_default else "she does not fire"
        turn.tell(side, "surface", f"{name}: {why}; {then}")
    return tuple(chosen + rest)


def _gunnery(
    turn: Turn, fight: SurfaceFight, orders: Mapping[Side, Sequence[FtOrder]]
) -> SurfaceFight | None:
    battle = engagement(turn.state, fight)
    fires = {side: _fires(turn, battle, orders, side, Stage.GUNNERY) for side in Side}
    tools = kit(turn.state)
    result = gunnery_round(
        battle, fires, table=tools.crt, damage=tools.damage, dice=turn.dice, firings=turn.state.firings
    )
    turn.state = replace(turn.state, firings=result.firings)  # 19.8: DDs and APDs fire twice
    _land(turn, fight, battle, result, "gunnery")
    after = engagement(turn.state, fight)
    if _torpedoes_due(after):
        return replace(fight, phase=TORPEDO)
    return _breakthrough_or_end(turn, fight)


def _torpedoes_due(battle: Engagement) -> bool:
    ok = torpedoes_allowed(battle.bht(), night=battle.night) or any(battle.unescorted(s) for s in Side)
    return ok and any(
        firers(battle.side(s), battle.enemy(s), turn=battle.turn, stage=Stage.TORPEDO) for s in Side
    )


def _torpedo(
    turn: Turn, fight: SurfaceFight, orders: Mapping[Side, Sequence[FtOrder]]
) -> SurfaceFight | None:
    battle = engagement(turn.state, fight)
    fires = {side: _fires(turn, battle, orders, side, Stage.TORPEDO) for side in Side}
    tools = kit(turn.state)
    result = torpedo_round(battle, fires, table=tools.crt, damage=tools.damage, dice=turn.dice)
    _land(turn, fight, battle, result, "torpedo")
    return _breakthrough_or_end(turn, fight)


def _breakthrough_or_end(turn: Turn, fight: SurfaceFight) -> SurfaceFight | None:
    battle = engagement(turn.state, fight)
    _report_gunnery(turn, fight, battle)
    breaker = breakthrough_possible(battle.first, battle.second)
    if breaker is None or fight.breaker is not None:
        return None
    for side in Side:
        turn.tell(side, "surface", f"The {breaker.value} side breaks through (3:1): another gunnery round, "
                  "answered only by the other side's screen (reference A.11.7)")  # fmt: skip
    return replace(fight, phase=BREAKTHROUGH, breaker=breaker.value)


def _breakthrough(
    turn: Turn, fight: SurfaceFight, orders: Mapping[Side, Sequence[FtOrder]]
) -> SurfaceFight | None:
    battle = engagement(turn.state, fight)
    breaker = Side(fight.breaker) if fight.breaker else None
    fires = {side: _fires(turn, battle, orders, side, Stage.BREAKTHROUGH) for side in Side}
    tools = kit(turn.state)
    result = gunnery_round(
        battle, fires, table=tools.crt, damage=tools.damage, dice=turn.dice, breaker=breaker,
        firings=turn.state.firings,
    )  # fmt: skip
    turn.state = replace(turn.state, firings=result.firings)
    _land(turn, fight, battle, result, "breakthrough")
    return None


def _land(turn: Turn, fight: SurfaceFight, battle: Engagement, result: RoundResult, stage: str) -> None:
    """The round's ships into the TFs, the log, and each side's report of it."""
    for side in Side:
        ours = [s for s in result.ships if battle.side(side).ship(s.name) is not None]
        put_ships(turn, side, ours, SURFACE)
        for one in (h for h in result.ship_hits if battle.side(side).ship(h.after.name) is not None):
            score_planes(turn, side, one.planes, SURFACE, where=one.after.name)
    for line in result.rolls:
        turn.referee("surface.roll", line)
    for side in Side:
        lines = []
        for hit in result.ship_hits:
            ship = hit.after
            if battle.side(side).ship(ship.name) is not None:
                state = (
                    " and is sinking"
                    if ship.destroyed and not ship.sunk
                    else (" and sank" if ship.sunk else "")
                )
                tally = f"({ship.hits}/{ship.damage})"
                note = launch_note(hit.before, ship)
                lines.append(f"{ship.type.value} {ship.name} took {hit.taken} hit(s){state} {tally}{note}")
            else:
                lines.append(
                    f"{battle.enemy(side).number(ship.name)}: {_seen(turn, battle, side, hit.taken, ship)}"
                )
        turn.tell(side, "surface", f"Surface {stage} round: " + ("; ".join(lines) or "no hits"))


def _seen(turn: Turn, battle: Engagement, side: Side, hits: int, ship: Ship) -> str:
    """Limited Intelligence 3: day words; at night "gunfire hits can be reported at +/- 50%"."""
    if battle.night:
        policy = turn.state.side(side.opponent).deception
        n = intel.night_ship_hits(hits, policy, turn.dice, f"{battle.label}/report/{ship.name}")
        return f"about {n} hit(s) seen"
    return intel.ship_words(ship, turn=battle.turn) or "no damage seen"


def _report_gunnery(turn: Turn, fight: SurfaceFight, battle: Engagement) -> None:
    """19: "each side may report its total surviving gunnery factor at +/- 10% ... If it appears that
    the ratio could possibly be 3-1, then exact factors must be reported"."""
    st = turn.state
    true = {s: surviving_gunnery(battle.side(s)) for s in Side}
    shown = {
        s: reported_gunnery(
            true[s], st.side(s).deception, turn.dice, f"{battle.label}/gunnery/{s.value}", exact=False
        )
        for s in Side
    }
    exact = could_be_breakthrough(shown[Side.ALLIED], shown[Side.JAPANESE])
    for side in Side:
        enemy = side.opponent
        figure = true[enemy] if exact else shown[enemy]
        how = "exact, a 3:1 breakthrough could be possible" if exact else "as reported, +/-10%"
        turn.tell(side, "surface", f"Enemy surviving gunnery: {figure} factor(s) ({how})")
