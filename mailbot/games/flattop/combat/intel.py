# SPDX-License-Identifier: GPL-3.0-or-later
"""What each side is told about combat (seed 003, 15 "Limited Intelligence" 1, 3-6).

"Combat is resolved by the defender, so intelligence is limited as below". In
mailbot the moderator resolves combat; this module turns the true outcome
into the words the seed lets the other side hear:

- LI 1, the precise makeup: "A player Air Attacking enemy TF's is told the
  precise makeup of the TF's in the hex (ship types and numbers of each type,
  plus visible damage, but never ship names) when he declares that he will be
  making an attack in that hex." (:func:`makeup`, :func:`makeup_sentence`).
- LI 3, damage by day: ships "smoking", "burning and/or listing heavily",
  "dead in water" (:func:`ship_words`, shared with the Condition 3 report
  through :func:`observe.ship_state`); bases "1-3 hits can be reported as
  light damage, 4 or more as heavy damage" (:func:`base_words`); and "the
  defender need only tell the attacker what type of aircraft are present, not
  the exact numbers" (:func:`types_present`).
- LI 3, damage at night: ship "Gunfire hits can be reported at +/- 50%,
  listing a total number of hits instead of the terms above. Cripples are not
  reported." (:func:`night_ship_hits`, :func:`night_ship_words`); bases
  "installations burning", "0 hits can be reported as damage, and up to two
  hits can be reported as no damage"; "Aircraft losses at night due to attacks
  on bases or aircraft-carrying ships are never reported" (:func:`ground_loss_words`).
- LI 5 and 6: a side "can report his own losses with an error of +/- 50%. (In
  cases where 50% is less than 1, such as a case where the loss is 1 or 0, use
  +/- 1 instead.)" (:func:`reported_losses`).

Where the seed lets the reporting side choose, its standing DECEPTION policy
(:class:`reports.Deception`) chooses; every figure is fixed by the dice label
the caller passes (naming battle, unit and turn), so asking again gives the
same report. What ``maximal`` (the most misleading allowed figure) means here:

- own losses (ship hits at night, air factors in LI 5/6): the smallest figure
  allowed, i.e. the side looks stronger than it is, as Condition 2's
  ``maximal`` inflates a total (reports.ReportRules.maximal_total);
- bases at night: the opposite of the truth whenever allowed: 0 hits reported
  as "installations burning", 1-2 hits as "no damage observed".

The thresholds are the seed's own words, not a table it prints; they are
constants here. Choices the seed leaves open are listed in :data:`DESIGN_DEFAULTS`
so a letter can say "design default".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType

from mailbot.core.dice import Dice
from mailbot.games.flattop.combat.damage import reported_dead_in_water
from mailbot.games.flattop.observation.observe import (
    BURNING,
    DEAD_IN_WATER,
    INTACT,
    SMOKING,
    SUNK,
    ship_state,
    tf_target,
)
from mailbot.games.flattop.observation.reports import Deception, total_bounds, unit_report
from mailbot.games.flattop.units import AirBoxes, Ship, ShipType, TaskForce

RULE = "seed 003, 15 Limited Intelligence"
#: LI 3 and 5: "+/- 50%".
SPREAD = Fraction(1, 2)
#: LI 3: "1-3 hits can be reported as light damage, 4 or more as heavy damage."
LIGHT_MAX = 3
#: LI 3, night: "up to two hits can be reported as no damage."
NIGHT_HIDDEN_MAX = 2

NO_DAMAGE, LIGHT, HEAVY = "no damage", "light damage", "heavy damage"
BURNING_BASE, NOTHING_SEEN = "installations burning", "no damage observed"
GROUND_LOSSES = "aircraft were destroyed on the ground"

#: The seed's type order for the precise makeup (LI 1: "1 BB, 2 CA (one smoking), 3 DD and 2 AP").
TYPE_ORDER = (
    ShipType.CV,
    ShipType.CVL,
    ShipType.AV,
    ShipType.CAV,
    ShipType.BB,
    ShipType.CA,
    ShipType.CL,
    ShipType.DD,
    ShipType.APD,
    ShipType.AP,
    ShipType.AO,
    ShipType.PG,
    ShipType.SS,
)

#: Readings of the seed this module makes where the seed is silent (function name: why).
DESIGN_DEFAULTS: Mapping[str, str] = MappingProxyType(
    {
        "night_ship_hits": "below 2 hits the +/-50% becomes +/-1, as LI 5 says for losses of 1 or 0",
        "maximal": "most misleading = smallest own-loss figure; for night bases the opposite of the truth",
        "types_present": "Ready and Just Landed only: Readying is never visible (21.7.1), Dispersed hidden",
    }
)

_SEVERITY = (SMOKING, BURNING, DEAD_IN_WATER, SUNK)  # the order damage is listed in: "(one smoking, one ...)"
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


# --- ships by day: LI 1 and 3 ---------------------------------------------------------


def ship_words(ship: Ship, *, turn: int) -> str:
    """LI 3's day wording for one ship: "" (intact), "smoking", "burning and listing heavily" or
    "dead in the water" (crippled; LI 4: destroyed but delayed in sinking).

    ``turn`` is for 21.8.1 ("Such a ship is reported as "dead in the water""): a ship stopped this
    turn or the next by two half-speed restrictions (``combat.damage.reported_dead_in_water``).
    """
    state = ship_state(ship, stopped=reported_dead_in_water(ship, turn))
    return "" if state == INTACT else state


def _number_word(n: int) -> str:
    return _WORDS[n] if n < len(_WORDS) else str(n)


def _ordinal(i: int) -> str:
    return _ORDINALS[i] if i < len(_ORDINALS) else f"{i + 1}th"


def _and_list(items: Sequence[str]) -> str:
    """``a, b and c``: the seed's "1 BB, 2 CA (one smoking), 3 DD and 2 AP"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _type_entry(ships: Sequence[Ship], turn: int) -> str:
    """``2 CA (one smoking)``: the count of one type and the visible damage among them."""
    words = [ship_words(s, turn=turn) for s in ships]
    damage = ", ".join(f"{_number_word(words.count(w))} {w}" for w in _SEVERITY if w in words)
    return f"{len(ships)} {ships[0].type.value}" + (f" ({damage})" if damage else "")


def makeup_line(tf: TaskForce, *, turn: int) -> str:
    """One TF's precise makeup (LI 1): "1 BB, 2 CA (one smoking), 3 DD and 2 AP". Names never."""
    # ``afloat`` is every ship still on the board, a destroyed ship delayed in sinking (LI 4) too.
    by_type = [[s for s in tf.afloat if s.type is t] for t in TYPE_ORDER]
    return _and_list([_type_entry(ships, turn) for ships in by_type if ships])


def makeup(tfs: Sequence[TaskForce], *, turn: int) -> tuple[str, ...]:
    """LI 1: one precise-makeup line per TF, in the order given (see :func:`report_order`)."""
    return tuple(makeup_line(tf, turn=turn) for tf in tfs)


def report_order(tfs: Sequence[TaskForce], *, turn: int) -> tuple[TaskForce, ...]:
    """The TFs in the order their Condition 3 report lists them, so "one TF ... the other" of the
    makeup follows the report the attacker already holds; never by TF number, which is hidden.
    """

    def key(tf: TaskForce) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, str, int], ...], str]:
        unit = unit_report(tf_target(tf))  # the Condition 3 rows, sorted as reports.compose sorts them
        return (unit.counts, unit.states, makeup_line(tf, turn=turn))

    return tuple(sorted(tfs, key=key))


def makeup_sentence(lines: Sequence[str]) -> str:
    """LI 1's sentence: "one TF consists of ..., and the other consists of ..."."""
    if not lines:
        return "there are no enemy TFs in the hex"
    if len(lines) == 1:
        return f"the TF consists of {lines[0]}"
    if len(lines) == 2:  # the seed's own two-TF form
        return f"one TF consists of {lines[0]}, and the other consists of {lines[1]}"
    parts = [f"the {_ordinal(i)} TF consists of {line}" for i, line in enumerate(lines)]
    return f"{'; '.join(parts[:-1])}; and {parts[-1]}"


# --- ships at night: LI 3 ---------------------------------------------------------------


def loss_bounds(true: int) -> tuple[int, int]:
    """LI 5: "+/- 50%. (In cases where 50% is less than 1, such as a case where the loss is 1 or 0,
    use +/- 1 instead.)" Never below 0."""
    if true * SPREAD < 1:
        return max(true - 1, 0), true + 1
    # From 2 up the floor of 1 in total_bounds (Condition 2's "presence is known") never bites.
    return total_bounds(true, SPREAD)


def _own_figure(true: int, policy: Deception, dice: Dice, label: str, rule: str) -> int:
    """A figure of one's own losses: truthful exact; maximal the smallest allowed; random uniform."""
    low, high = loss_bounds(true)
    if policy is Deception.TRUTHFUL:
        return true
    if policy is Deception.MAXIMAL:
        return low
    return low + dice.roll(label, high - low + 1, rule=rule).total - 1


def night_ship_hits(true_hits: int, policy: Deception, dice: Dice, label: str) -> int:
    """LI 3, night: "Gunfire hits can be reported at +/- 50%, listing a total number of hits instead
    of the terms above." ``true_hits``: the hits of this engagement; +/-1 below 2 (DESIGN_DEFAULTS).
    """
    return _own_figure(true_hits, policy, dice, label, f"{RULE} 3 (night ship hits +/-50%)")


def night_ship_words(reported_hits: int) -> str:
    """The night report of one ship: a number of hits only; "Cripples are not reported."."""
    if reported_hits <= 0:
        return "no hits observed"
    return f"{reported_hits} {'hit' if reported_hits == 1 else 'hits'} observed"


# --- bases: LI 3 --------------------------------------------------------------------------


def base_words(hits: int, *, night: bool, policy: Deception, dice: Dice, label: str) -> str:
    """LI 3: "1-3 hits can be reported as light damage, 4 or more as heavy damage." At night:
    "Damage of any kind is reported simply as "installations burning." In addition, 0 hits can be
    reported as damage, and up to two hits can be reported as no damage."
    """
    if not night:
        return NO_DAMAGE if hits <= 0 else (LIGHT if hits <= LIGHT_MAX else HEAVY)
    truth = BURNING_BASE if hits > 0 else NOTHING_SEEN
    if hits > NIGHT_HIDDEN_MAX or policy is Deception.TRUTHFUL:
        return truth
    lie = NOTHING_SEEN if truth == BURNING_BASE else BURNING_BASE
    if policy is Deception.MAXIMAL:
        return lie
    roll = dice.roll(label, 2, rule=f"{RULE} 3 (night base report, owner's choice)")
    return truth if roll.total == 1 else lie


# --- aircraft: LI 3, 5, 6 -----------------------------------------------------------------


def reported_losses(true: int, policy: Deception, dice: Dice, label: str) -> int:
    """LI 5: the interceptors' owner "can report his own losses with an error of +/- 50%. (In cases
    where 50% is less than 1, such as a case where the loss is 1 or 0, use +/- 1 instead.)" LI 6:
    "he may report the same 50% error in planes the attacker's bombers may have downed"."""
    return _own_figure(true, policy, dice, label, f"{RULE} 5-6 (own air losses +/-50%)")


def types_present(boxes: AirBoxes) -> tuple[str, ...]:
    """LI 3: "the defender need only tell the attacker what type of aircraft are present, not the
    exact numbers." Ready and Just Landed only: 21.7.1 "factors in the "readying" box are not
    visible to the attackers"."""
    return tuple(sorted({s.plane for s in (*boxes.ready, *boxes.just_landed) if s.count > 0}))


def ground_loss_words(visible_lost: int, *, night: bool) -> str:
    """LI 6: "If planes are lost on the ground from air attack, nothing need be said apart from that
    fact"; LI 3: "Aircraft losses at night due to attacks on bases or aircraft-carrying ships are
    never reported." ``visible_lost``: factors lost outside Readying (21.7.1: "need not be
    disclosed"). "" when nothing is said."""
    return GROUND_LOSSES if visible_lost > 0 and not night else ""
