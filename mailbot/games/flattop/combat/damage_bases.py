# SPDX-License-Identifier: GPL-3.0-or-later
"""Damage to a base and its repair (standard 21; seed 003, 21.3 rows 1 and 2).

A base loses LF, SF and an Air Factor a hit (Dispersed factors take 2 hits each) and repairs a hit a
turn; its AA is "reduced by 1 for each FOUR hits received in a given attack; round fractions up" and
"still repairs at one factor per turn". Call :func:`hit_base` once per AF attack on a base with the
attack's total hits. The rules are :mod:`.damage`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.damage import (
    RULE_21_3,
    RULE_SHIPS,
    Attack,
    BaseHit,
    DamageRules,
    HitKind,
    PlaneLoss,
    RepairRules,
)
from mailbot.games.flattop.combat.damage_planes import (
    allocate_losses,
    caught_check,
    hits_with_planes,
    lost_per,
    roll_criticals,
)
from mailbot.games.flattop.units import (
    AirFactors,
    Base,
    BaseFactors,
    Handling,
)

# --- bases --------------------------------------------------------------------------------------


def _start(base: Base) -> BaseFactors:
    if base.start is not None:
        return base.start
    return BaseFactors(base.launch, base.launch_min, base.aa, base.surface)


def _base_damage(
    base: Base,
    hits: int,
    aa: int,
    rules: DamageRules,
    *,
    caught: tuple[AirFactors, ...],
    ranking: Sequence[str],
    readying_ranking: Sequence[str],
) -> tuple[Base, tuple[PlaneLoss, ...], str]:
    """Reference A.12 per hit (factors may go below 0); ``aa``: the 21.3 row 2 loss, from the caller."""
    table = rules.bases
    normal, minimum = table.launch_loss_sp if base.handling is Handling.SP else table.launch_loss
    losses = allocate_losses(
        hits * table.planes_per_hit,
        base.boxes,
        caught=caught,
        ranking=ranking,
        readying_ranking=readying_ranking,
        dispersed_cost=table.dispersed_hits_per_factor,
    )
    after = replace(
        base,
        start=_start(base),
        hits=base.hits + hits,
        launch=base.launch - hits * normal,
        launch_min=base.launch_min - hits * minimum,
        # A base without a Surface Factor has none to lose (issue 36: "SF 0->-2").
        surface=base.surface - hits * table.surface_per_hit if base.surface > 0 else base.surface,
        aa=base.aa - aa,
        boxes=losses.boxes,
    )
    text = f"{base.name} takes {hits} hit(s): LF {base.launch}/{base.launch_min}"
    text += f"->{after.launch}/{after.launch_min}"
    text += f", SF {base.surface}->{after.surface}" if base.surface > 0 else ""
    text += f", AA {base.aa}->{after.aa} ({RULE_SHIPS}; {RULE_21_3})"
    return after, losses.planes, text


def hit_base(base: Base, attack: Attack, *, rules: DamageRules, dice: Dice, turn: int) -> BaseHit:
    """One attack's hits on a base (as :func:`.damage_ships.hit_ship` on a ship); AA -1 per four hits
    of the attack, fractions up (21.3 row 2), critical hits included."""
    hits, kind, label = attack.hits, attack.kind, attack.label
    if kind is HitKind.TORPEDO:
        raise GameError(f"{base.name}: bases cannot be attacked by torpedo (reference B.14 ruling)")
    if hits < 0:
        raise GameError(f"{base.name}: {hits} hits")
    caught, facts = caught_check(
        attack.launching, eligible=True, rolled=hits, rules=rules, dice=dice, label=label
    )
    facts.insert(0, f"{base.name}: {hits} hit(s) rolled ({kind})")
    taken, said = hits_with_planes(hits, kind, base.boxes, caught, rules)
    criticals, said_crit = roll_criticals(
        int(attack.critical_check), hits, attack.armament, ship=False, rules=rules, dice=dice, label=label
    )
    extra = sum(c.extra_hits for c in criticals)
    total = taken + extra
    aa = lost_per(0, total, rules.hits.base_aa_per_hits, rules.hits.base_aa_rounding)
    aa += sum(c.aa for c in criticals)
    after, planes, sentence = _base_damage(
        base,
        total,
        aa,
        rules,
        caught=caught,
        ranking=attack.ranking,
        readying_ranking=attack.readying_ranking,
    )
    after = replace(after, attacked_turn=turn)  # A.12: no repair in a turn it was attacked
    if any(c.no_flight_ops_next_turn for c in criticals):
        after = replace(after, no_flight_ops_turns=(*after.no_flight_ops_turns, turn + 1))
    facts += [*said, *said_crit, sentence]
    names = tuple(c.name for c in criticals)
    return BaseHit(base, after, hits, taken, kind, planes, tuple(facts), names, extra, bool(caught))


def repair_base(
    base: Base, *, attacked: bool, rules: DamageRules | None = None, turn: int | None = None
) -> Base:
    """The Repair Phase (reference A.12; 21.3 note c): a base not air-attacked or bombarded this turn
    repairs a hit (LF +2/+1, +1/+1 if SP-only; SF +1) and gets back an AA factor while below its start
    ("no more than one" a turn); nothing climbs above the factors it had before its first hit.
    ``turn``: the turn ending; a base hit in it (``Base.attacked_turn``: by an air attack or a
    bombardment, in whichever sub-step of the hour) does not repair, whatever ``attacked`` says.

    ``rules`` defaults to :data:`DEFAULT_REPAIR`, ``damage.toml``'s ``[repair]`` (a test holds them equal).
    """
    if attacked or base.start is None or base.attacked_turn == turn:
        return base
    table = rules.repair if rules is not None else DEFAULT_REPAIR
    start = base.start
    fixed = min(table.hits_per_turn, max(0, base.hits))
    normal, minimum = table.launch_sp if base.handling is Handling.SP else table.launch
    return replace(
        base,
        hits=base.hits - fixed,
        launch=_up(base.launch, fixed * normal, start.launch),
        launch_min=_up(base.launch_min, fixed * minimum, start.launch_min),
        surface=_up(base.surface, fixed * table.surface, start.surface),
        aa=_up(base.aa, table.aa, start.aa),
    )


def _up(value: int, gain: int, ceiling: int) -> int:
    return value if value >= ceiling else min(ceiling, value + gain)


# repair_base is called without the table by callers that have none at hand: these are damage.toml's
# [repair] numbers, and test_damage holds them equal to the shipped file.
DEFAULT_REPAIR = RepairRules(hits_per_turn=1, launch=(2, 1), launch_sp=(1, 1), surface=1, aa=1)
