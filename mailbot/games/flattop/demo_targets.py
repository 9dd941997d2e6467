# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flat Top demo's strike and losses steps (:mod:`mailbot.games.flattop.demo`): which ship
every attacking AF is aimed at, read from the precise makeup (seed 003, 15 LI 1), and the
order in which the enemy's plane types are destroyed (15 LI 3). Pure: the letter's text in,
order lines out."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mailbot.games.flattop.demo_reading import Makeup, read_losses, read_makeups

#: the enemy types to destroy first (15 LI 3): torpedo bombers, dive bombers, then fighters
RANK_FIRST = {"allied": ("Kate", "Val", "Zero"), "japanese": ("Devastator", "Dauntless", "Wildcat")}
#: ship types in the order the script aims at them (combat.battle.DEFAULT_PRIORITY)
TARGET_TYPES = ("CV", "CVL", "BB", "CA", "CAV", "AV", "CL", "AP", "AO", "APD", "DD", "PG")
DEAD = "dead in the water"
SMOKING = "smoking"
BURNING = "burning and listing heavily"
#: types whose Damage Factor is 1 or 2 (tables/ships.toml): they sink at once, never slowly (LI 4)
SMALL_SHIPS = frozenset({"DD", "APD", "PG"})
#: ship types a strike finishes when "dead in the water", by urgency (:func:`_picks`)
DEAD_URGENCY = {"CV": 1, "CVL": 1}


@dataclass(frozen=True)
class TypeDamage:
    """One type's entry in a TF's makeup: ``2 CV (one smoking, one burning and listing heavily)``."""

    ships: int = 0
    smoking: int = 0
    burning: int = 0
    dead: int = 0

    @property
    def afloat(self) -> int:
        """Ships not yet dead in the water: labels 1 .. afloat (labels number a type least hit first)."""
        return self.ships - self.dead


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def type_damage(entry: str, ship_type: str) -> TypeDamage:
    """The ships of one type in a TF's makeup and the damage words the makeup gives them (LI 3)."""
    found = re.search(rf"(\d+) {ship_type}(?: \(([^)]*)\))?(?:,| and|$)", entry)
    if found is None:
        return TypeDamage()
    counts = {w: n for n, w in enumerate(_WORDS)}
    states = {SMOKING: 0, BURNING: 0, DEAD: 0}
    for part in (found[2] or "").split(", "):
        number, _, state = part.partition(" ")
        if state in states:
            states[state] += counts.get(number, int(number) if number.isdigit() else 0)
    return TypeDamage(int(found[1]), states[SMOKING], states[BURNING], states[DEAD])


def _picks(letter: str, ship_type: str, damage: TypeDamage) -> list[tuple[int, str]]:
    """(urgency, label) of the ships of one type worth a strike: 0 the worst-hit ship "burning and
    listing heavily" (at least half her Damage Factor), 1 a carrier "dead in the water", 2 the
    worst-hit smoking one, 3 an intact one; small ships (Damage Factor 1 or 2) count as intact.
    A carrier dead in the water may be doomed already (LI 4: "possibly leading the opponent to waste
    more ordnance on a doomed ship") or only crippled, and a crippled carrier towed home fights again:
    the attacker cannot tell, so he finishes her (:data:`DEAD_URGENCY`). Other ships dead in the water
    are left alone: the ordnance is better spent on a ship still fighting.

    Labels number a TF's ships of one type from the least hit up (``combat.battle.label_target``):
    intact, smoking, burning, then dead in the water."""
    ships, dead, burning = damage.ships, damage.dead, damage.burning
    if ship_type in SMALL_SHIPS:  # Damage Factor 1 or 2: any hit that sinks her sinks her at once (LI 4)
        return [(3, f"{letter}-{ship_type}1")] if ships > dead else []
    picks = [(3, 1)] if ships > damage.smoking + burning + dead else []
    if damage.smoking:
        picks.append((2, ships - dead - burning))
    if burning:
        picks.append((0, ships - dead))
    if dead and ship_type in DEAD_URGENCY:
        picks.append((DEAD_URGENCY[ship_type], ships))
    return [(urgency, f"{letter}-{ship_type}{number}") for urgency, number in picks]


def choose_target(makeup: Makeup) -> str:
    """The label to aim every AF of ``makeup`` at. Hits spread over several ships sink none, so the
    whole strike goes at one ship, the one nearest to going down (:func:`_picks`); among equals the
    first type of :data:`TARGET_TYPES`, then the first TF."""
    found = []
    for rank, ship_type in enumerate(TARGET_TYPES):
        for letter, entry in sorted(makeup.tfs.items()):
            for urgency, label in _picks(letter, ship_type, type_damage(entry, ship_type)):
                if label in makeup.labels:
                    found.append((urgency, rank, letter, label))
    return min(found)[-1] if found else (makeup.labels[0] if makeup.labels else "BASE")


def strike_orders(text: str) -> list[str]:
    """TARGET lines for every AF that declared an attack; PRIORITY if the letter names none."""
    lines = [f"TARGET AF{af} {choose_target(m)}" for m in read_makeups(text) for af in m.afs]
    return lines or ["PRIORITY " + " ".join(TARGET_TYPES)]


def rank_orders(seat: str, text: str) -> list[str]:
    """RANK lines: the enemy types present, bombers first (15 LI 3)."""
    first = RANK_FIRST.get(seat, ())
    lines = []
    for label, planes in read_losses(text):
        ranked = sorted(planes, key=lambda p: (first.index(p) if p in first else len(first), p))
        # A base's label has spaces: its ranking is sent for every place (RANK <types>).
        lines.append(" ".join(["RANK", *([label] if " " not in label else []), *ranked]))
    return list(dict.fromkeys(lines)) or ["RANK " + " ".join(first)]
