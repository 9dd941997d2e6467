# SPDX-License-Identifier: GPL-3.0-or-later
"""The one way ships go back into their task forces after any fight, and what it scores; the one
way a base's or ship's air boxes change after an air fight.

Every fight ends with changed ships: an air strike (15-21), a surface round (19), a submarine
attack (27), a bombardment (A.11.8), the fires at the end of the Combat Phase (21.8.2). Each used
to write its ships back its own way, and the surface copy never scored (issue 36, error 1). Here a
ship newly destroyed always scores its value to the enemy (reference A.13: "ships sunk"), and every
Air Factor lost aboard (reference A.12, "a sunk carrier takes its planes with it") scores as an air
loss, each ledger entry naming its cause.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from mailbot.games.flattop.combat.damage import PlaneLoss, ShipHit
from mailbot.games.flattop.hour.rules import kit
from mailbot.games.flattop.hour.turn import Turn
from mailbot.games.flattop.units import AirBoxes, Ship, Side
from mailbot.games.flattop.victory import VpEntry
from mailbot.games.flattop.victory_scoring import air_lost, ship_sunk

# The causes the ledger names (``VpEntry.cause``).
AIR_STRIKE = "air strike"
AIR_COMBAT = "air combat"
SURFACE = "surface combat"
SUBMARINE = "submarine attack"
ANTI_SUBMARINE = "anti-submarine attack"
BOMBARDMENT = "bombardment"
FIRE = "fire"
SINKING = "went down with her ship"


def put_ships(turn: Turn, side: Side, ships: Iterable[Ship], cause: str) -> None:
    """``side``'s ships replaced by name in its TFs; each one newly destroyed is scored."""
    after = {s.name: s for s in ships}
    if not after:
        return
    st = turn.state
    rules = kit(st).victory
    entries: list[VpEntry | None] = []
    tfs = []
    for tf in st.task_forces:
        if tf.side is side and any(s.name in after for s in tf.ships):
            for ship in tf.ships:
                new = after.get(ship.name)
                if new is not None and new.destroyed and not ship.destroyed:
                    sunk = ship_sunk(new, side, st.turn, rules, unloaded_turns=new.unloaded, cause=cause)
                    entries.append(sunk)
            tf = replace(tf, ships=tuple(after.get(s.name, s) for s in tf.ships))  # noqa: PLW2901
        tfs.append(tf)
    turn.state = replace(st, task_forces=tuple(tfs), score=st.score.scored(entries))


def put_boxes(turn: Turn, side: Side, place: str, change: Callable[[AirBoxes], AirBoxes]) -> None:
    """The air boxes of ``side``'s base or ship named ``place`` after an air fight: the scrambled
    fighters back down, or the losses taken again as the attacker ranked them (15 LI 3)."""
    st = turn.state
    bases = tuple(
        replace(b, boxes=change(b.boxes)) if b.name == place and b.side is side else b for b in st.bases
    )
    tfs = tuple(
        replace(t, ships=tuple(replace(s, boxes=change(s.boxes)) if s.name == place else s for s in t.ships))
        if t.side is side
        else t
        for t in st.task_forces
    )
    turn.state = replace(st, bases=bases, task_forces=tfs)


def put_hits(
    turn: Turn, side: Side, hits: Sequence[ShipHit], cause: str, *, unscored: Sequence[PlaneLoss] = ()
) -> None:
    """The ships of ``hits`` put back (:func:`put_ships`) and every factor lost aboard scored, but
    ``unscored``: losses whose plane types the attacker has still to rank (15 LI 3)."""
    put_ships(turn, side, (h.after for h in hits), cause)
    for hit in hits:
        lost = [p for p in hit.planes if p not in unscored]
        score_planes(turn, side, lost, cause, where=hit.after.name)


def score_planes(turn: Turn, owner: Side, planes: Iterable[PlaneLoss], cause: str, *, where: str) -> None:
    """Each plane name's factors lost (any box, hidden from the enemy or not) as one air loss."""
    counts: dict[str, int] = {}
    for loss in planes:
        counts[loss.plane] = counts.get(loss.plane, 0) + loss.count
    score_air(turn, owner, counts, cause, where=where)


def score_air(turn: Turn, owner: Side, counts: dict[str, int], cause: str, *, where: str) -> None:
    """``owner``'s factors lost by plane name; ``where`` keeps two losses of one name apart."""
    if not any(counts.values()):
        return
    st = turn.state
    rules = kit(st).victory
    entries = [
        air_lost(plane, n, owner, st.turn, rules, where=f"{where}.{len(st.score.ledger)}.{i}", cause=cause)
        for i, (plane, n) in enumerate(sorted(counts.items()))
        if n
    ]
    turn.state = replace(st, score=st.score.scored(entries))
