# SPDX-License-Identifier: GPL-3.0-or-later
"""The Combat Phase of a game hour (reference A.10; seed 003, 15-21) and its choice sub-steps.

``resolve.resolve_turn`` stops after movement and observation when AFs declared attacks
(``declare.declare``): the state keeps a :class:`battle.Battle` and the attacking side gets
the precise makeup and a ``T<n>.strike`` choice step. :func:`run_combat` then fights, in the
reference's order, the 14.13.2 interceptions (air-to-air only) and each side's strikes hex by
hex (``strike.strike_hex``); fires are assessed at the end of the phase (21.8.2). When the
attacker must rank the defender's plane types lost (15 LI 3) and has no standing RANK, the
planes are first taken by the default ranking and a ``T<n>.losses`` step lets him re-rank
them (:func:`apply_rankings`). Victory points for ships sunk and aircraft lost go to the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from mailbot.games.flattop.combat.air_to_air import Flight
from mailbot.games.flattop.combat.battle import LOSSES, Battle, LossChoice
from mailbot.games.flattop.combat.damage import ShipHit
from mailbot.games.flattop.combat.damage_ships import end_of_combat_phase, launch_note
from mailbot.games.flattop.combat.kit import Kit, describe_counts
from mailbot.games.flattop.hour.aftermath import AIR_COMBAT, AIR_STRIKE, FIRE, put_boxes, put_hits, score_air
from mailbot.games.flattop.hour.air_phase import Sky, air_battle, apply_air_losses, cap_flights
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.hour.strike import strike_hex
from mailbot.games.flattop.hour.sub_combat import sub_combat
from mailbot.games.flattop.hour.sweep import fighter_fights
from mailbot.games.flattop.hour.turn import Turn, own_af
from mailbot.games.flattop.orders.combat import CombatOrder
from mailbot.games.flattop.orders.types import Rank
from mailbot.games.flattop.units import AirBoxes, AirFactors, Side


def run_combat(
    turn: Turn, battle: Battle | None, orders: Mapping[Side, Sequence[CombatOrder]]
) -> Battle | None:
    """Fight the phase; the Battle left waiting for a loss ranking, or None."""
    tools = kit(turn.state)
    if battle is not None:  # the hour's movement was resolved in an earlier sub-step
        turn.interceptions, turn.sweeps = list(battle.interceptions), list(battle.sweeps)
    _interceptions(turn, tools)
    struck = {t.hex for t in battle.targets} if battle else set()
    fighter_fights(turn, tools, struck | {h for *_, h in turn.interceptions}, turn.sweeps)
    choices: list[LossChoice] = []
    for target in battle.targets if battle else ():
        strikes = (
            [s for s in battle.strikes if s.side is target.side and s.hex == target.hex] if battle else []
        )
        report = strike_hex(turn, tools, target, strikes, orders.get(target.side, ()))
        turn.state = replace(turn.state, score=turn.state.score.counted(air=1))
        choices += report.choices
        _score_air(turn, report.air_lost, AIR_STRIKE)
    sub_combat(turn, battle)  # seed 003, 27 (option submarines): after the air strikes
    _fires(turn, tools)
    _wiped_out(turn)
    if battle is not None and choices:
        for choice in choices:
            turn.tell(
                choice.side,
                "rank",
                f"{choice.label}: enemy aircraft destroyed there; the types "
                f"present were {', '.join(choice.planes)}: send RANK {choice.label} <types in order>",
            )
        return replace(battle, phase=LOSSES, losses=tuple(choices))
    return None


def _wiped_out(turn: Turn) -> None:
    """AFs with no factor left are gone (their losses are scored already)."""
    st = turn.state
    for formation in st.air:
        if not formation.stacks:
            turn.tell(formation.side, "destroyed", f"AF{formation.number} was destroyed")
    turn.state = replace(st, air=tuple(a for a in st.air if a.stacks))


def _interceptions(turn: Turn, tools: Kit) -> None:
    """14.13.2 "interception now fought": the interceptor AF against the intercepted AF, air-to-air."""
    for side, number, enemy_af, h in turn.interceptions:
        mine = [f for f in cap_flights(turn, side, h) if f.af == number]
        theirs = own_af(turn, side.opponent, enemy_af)
        if not mine or theirs is None or theirs.hex != h:
            continue
        altitude = mine[0].altitude
        escorts = tuple(s for s in theirs.stacks if s.armament is None and s.altitude is altitude)
        bombers = tuple(s for s in theirs.stacks if s.armament is not None and s.altitude is altitude)
        enemy = [Flight(side.opponent, enemy_af, escorts, altitude, "escort", 1)] if escorts else []
        enemy += [Flight(side.opponent, enemy_af, bombers, altitude, "bomber", 1)] if bombers else []
        sky = Sky({}, {}, {}, [])
        turn.state = replace(turn.state, score=turn.state.score.counted(air=1))
        where = turn.state.scenario.map.hex_id(h)
        air_battle(
            turn, tools, (mine, enemy), f"ft.intercept-combat.t{turn.state.turn}.{side.value}.AF{number}", sky
        )
        apply_air_losses(turn, sky)
        ours = {pl: n for (s, _, pl), n in sky.lost.items() if s is side}
        theirs_lost = {pl: n for (s, _, pl), n in sky.lost.items() if s is not side}
        turn.tell(
            side,
            "intercept-combat",
            f"AF{number} fought the enemy AF at {where}: you lost "
            f"{describe_counts(ours)}; the enemy lost {describe_counts(theirs_lost)}",
        )
        turn.tell(
            side.opponent,
            "intercept-combat",
            f"AF{enemy_af} fought enemy interceptors at {where}: "
            f"you lost {describe_counts(theirs_lost)}; they lost {describe_counts(ours)}",
        )
        _score_air(
            turn,
            {(side, p): n for p, n in ours.items()} | {(side.opponent, p): n for p, n in theirs_lost.items()},
        )


def _fires(turn: Turn, tools: Kit) -> None:
    """21.8.2: fire damage "is not assessed until the end of the Combat Phase"."""
    st = turn.state
    burnt: dict[Side, list[ShipHit]] = {side: [] for side in Side}
    for tf in st.task_forces:
        for ship in tf.ships:
            hit = end_of_combat_phase(
                ship,
                rules=tools.damage,
                dice=turn.dice,
                label=f"ft.fire.t{st.turn}.{tf.side.value}.{ship.name}",
                turn=st.turn,
            )
            if hit is None:
                continue
            burnt[tf.side].append(hit)
            for fact in hit.facts:
                turn.referee("fire", fact)
            turn.tell(
                tf.side,
                "fire",
                f"{ship.type.value} {ship.name}: fire damage, {hit.taken} hit(s) "
                f"({hit.after.hits}/{hit.after.damage}){launch_note(hit.before, hit.after)}",
            )
    for side, hits in burnt.items():
        put_hits(turn, side, hits, FIRE)


def _score_air(turn: Turn, lost: Mapping[tuple[Side, str], int], cause: str = AIR_COMBAT) -> None:
    for owner in Side:
        counts = {plane: n for (s, plane), n in lost.items() if s is owner}
        score_air(turn, owner, counts, cause, where="combat")


def rankings(
    battle: Battle, orders: Mapping[Side, Sequence[CombatOrder]]
) -> dict[tuple[Side, str], tuple[str, ...]]:
    out: dict[tuple[Side, str], tuple[str, ...]] = {}
    for side, lines in orders.items():
        for order in lines:
            if isinstance(order, Rank):
                for choice in battle.losses:
                    if choice.side is side and (order.label is None or order.label == choice.label):
                        out.setdefault((side, choice.label), order.planes)
    return out


def apply_rankings(turn: Turn, battle: Battle, orders: Mapping[Side, Sequence[CombatOrder]]) -> None:
    """15 LI 3: the attacker "ranks them in desired order of elimination": the losses taken by the
    default ranking are given back and taken again in his order, box by box. Only now are they
    scored and their types told to the defender (he was told the count only)."""
    ranked = rankings(battle, orders)
    for choice in battle.losses:
        ranking = ranked.get((choice.side, choice.label))
        lost = _rerank(turn, choice, ranking) if ranking else _counts(choice.taken)
        if ranking:
            turn.tell(choice.side, "rank", f"{choice.label}: losses taken in your order {' '.join(ranking)}")
        turn.tell(
            choice.owner,
            "rank",
            f"{choice.place}: the aircraft lost as the enemy ranked their types: {describe_counts(lost)}",
        )
        score_air(turn, choice.owner, lost, AIR_STRIKE, where=f"ranked.{choice.place}")


def _counts(taken: Sequence[tuple[str, str, int]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, plane, n in taken:
        counts[plane] = counts.get(plane, 0) + n
    return counts


def _rerank(turn: Turn, choice: LossChoice, ranking: Sequence[str]) -> dict[str, int]:
    """The choice's losses taken again in ``ranking`` order; the factors lost by plane name."""
    lost: dict[str, int] = {}

    def fix(boxes: AirBoxes) -> AirBoxes:
        for box in sorted({b for b, _, _ in choice.taken}):
            given = tuple(AirFactors(plane, n) for b, plane, n in choice.taken if b == box)
            held: tuple[AirFactors, ...] = getattr(boxes, box) + given
            left = _take_ranked(held, sum(g.count for g in given), ranking)
            for plane, n in _counts([(box, s.plane, s.count) for s in held]).items():
                gone = n - sum(s.count for s in left if s.plane == plane)
                lost[plane] = lost.get(plane, 0) + gone
            boxes = replace(boxes, **{box: left})
        return boxes

    put_boxes(turn, choice.owner, choice.place, fix)
    return {plane: n for plane, n in lost.items() if n}


def _take_ranked(
    stacks: tuple[AirFactors, ...], count: int, ranking: Sequence[str]
) -> tuple[AirFactors, ...]:
    """``stacks`` less ``count`` factors, taken by plane name in ``ranking`` order (others after)."""
    order = sorted(range(len(stacks)), key=lambda i: (_rank(ranking, stacks[i].plane), i))
    left, counts = count, [s.count for s in stacks]
    for i in order:
        n = min(counts[i], left)
        counts[i] -= n
        left -= n
    return tuple(replace(s, count=n) for s, n in zip(stacks, counts, strict=True) if n)


def _rank(ranking: Sequence[str], plane: str) -> int:
    return ranking.index(plane) if plane in ranking else len(ranking)
