# SPDX-License-Identifier: GPL-3.0-or-later
"""Condition reports: what a side is told of what it saw (seed 003, 7.12.1-7.12.3).

:func:`record` composes the report of one :class:`~observe.Spotting` and adds
it to the observing side's knowledge; :func:`report_model` renders a side's
reports from its knowledge alone. Composition follows the seed:

- Condition 1: presence, and for aircraft whether they are high, low or both
  (7.12.1).
- Condition 2 (7.12.2): no count of AFs or TFs; the approximate number of
  planes or ships in the hex (+/-50%); the classes present, no numbers per
  class; the altitude band; and for ships with carriers or capital ships a
  2d6 roll, error on 10-12 (+1 if the searcher is high), on which up to two
  carriers may be reported as capital ships and up to two capital ships as
  carriers.
- Condition 3: each TF or AF with its exact counts by class and, only here,
  the ships' condition (damaged, crippled, in tow: 7.12.3), in the words of
  15 Limited Intelligence 3 (smoking, burning and listing heavily, dead in the
  water; :func:`observe.ship_state`). Names never.

Where the seed lets the TF owner choose ("may mis-report", "+/- 50%"), the
owner's standing DECEPTION policy chooses (design/flattop.md): ``truthful``,
``random`` (uniform over what is allowed, from the dice) or ``maximal``.

A report is fixed per observer, contact and turn: :func:`record` returns the
knowledge unchanged when it already holds one at that condition or better,
and its dice labels name observer, contact, turn and condition, so even a
fresh dice stream of the same step gives the same report again.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Hex, hex_id
from mailbot.games.flattop.observation.knowledge import (
    PLANES,
    SHIPS,
    ContactReport,
    Knowledge,
    Sighting,
    UnitReport,
)
from mailbot.games.flattop.observation.observe import INTACT, Spotting, Target
from mailbot.games.flattop.units import Altitude, ShipCategory, Side

SHIP_CLASSES = tuple(c.value for c in ShipCategory)  # carrier, capital, small, submarine
PLANE_CLASSES = ("armed", "unarmed")  # standard 7.12: bombers (armed) and interceptors (unarmed)


class Deception(StrEnum):
    TRUTHFUL = "truthful"
    RANDOM = "random"
    MAXIMAL = "maximal"


@dataclass(frozen=True)
class ReportRules:
    """7.12.2's numbers (``[reports]`` of ``observation.toml``) and the deception default."""

    error_min: int = 10  # 'The "error" range is 10-12.'
    high_searcher: int = 1  # "+1 if the searcher is at high altitude"
    swap_limit: int = 2  # "within a range of +/- 2"
    spread: Fraction = Fraction(1, 2)  # "(+/- 50%)"
    maximal_total: str = "high"  # design default: "maximal" inflates the total

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ReportRules:
        reports, deception = data.get("reports", {}), data.get("deception", {})
        try:
            rules = cls(
                error_min=int(reports.get("error_min", 10)),
                high_searcher=int(reports.get("high_searcher", 1)),
                swap_limit=int(reports.get("swap_limit", 2)),
                spread=Fraction(str(reports.get("spread", "0.5"))),
                maximal_total=str(deception.get("maximal_total", "high")),
            )
        except (TypeError, ValueError) as exc:
            raise GameError(f"report rules: {exc}") from exc
        if rules.maximal_total not in ("high", "low"):
            raise GameError(f"report rules: maximal_total must be high or low, not {rules.maximal_total!r}")
        return rules


# --- Condition 1 and 2 pieces --------------------------------------------------


def band(targets: Iterable[Target]) -> str | None:
    """7.12.2 item 2: "all high, all low, or some at each height"; no counts per level."""
    levels = {p.altitude for t in targets for p in t.planes}
    if not levels:
        return None
    return "both" if len(levels) > 1 else ("high" if Altitude.HIGH in levels else "low")


def total(targets: Iterable[Target], kind: str) -> int:
    if kind == SHIPS:
        return sum(len(t.ships) for t in targets)
    return sum(p.factors for t in targets for p in t.planes)


def total_bounds(true_total: int, spread: Fraction) -> tuple[int, int]:
    """The figures within +/-50% of the truth; never below 1, as presence is known."""
    low = math.ceil(true_total * (1 - spread))
    high = math.floor(true_total * (1 + spread))
    return max(low, 1), max(high, 1)


def approximate(true_total: int, policy: Deception, rules: ReportRules, dice: Dice, label: str) -> int:
    """7.12.2 item 1: "the approximate number of planes/ships ... (+/- 50%)"."""
    low, high = total_bounds(true_total, rules.spread)
    if policy is Deception.TRUTHFUL or low == high:
        return min(max(true_total, low), high)
    if policy is Deception.MAXIMAL:
        return high if rules.maximal_total == "high" else low
    return low + dice.roll(label, high - low + 1, rule="seed 003, 7.12.2 item 1 (+/-50%)").total - 1


def classes_present(targets: Iterable[Target], kind: str) -> tuple[str, ...]:
    if kind == SHIPS:
        present = {s.category.value for t in targets for s in t.ships}
        return tuple(c for c in SHIP_CLASSES if c in present)
    armed = {"armed" if p.armed else "unarmed" for t in targets for p in t.planes}
    return tuple(c for c in PLANE_CLASSES if c in armed)


def carrier_options(carriers: int, capitals: int, limit: int = 2) -> tuple[tuple[bool, bool], ...]:
    """Every (carriers shown, capital ships shown) an error lets the owner report (7.12.2 item 3).

    "up to two carriers may be reported as capital ships instead, and up to two
    capital ships may be reported as carriers instead. (Thus in the unlikely
    event that a hex contains three carriers, the presence of carriers must
    still be reported.)"
    """
    options = {
        (carriers - hidden + posed > 0, capitals - posed + hidden > 0)
        for hidden in range(min(limit, carriers) + 1)
        for posed in range(min(limit, capitals) + 1)
    }
    return tuple(sorted(options))


def choose_option(
    options: tuple[tuple[bool, bool], ...],
    truth: tuple[bool, bool],
    policy: Deception,
    dice: Dice,
    label: str,
) -> tuple[bool, bool]:
    if policy is Deception.TRUTHFUL or len(options) == 1:
        return truth
    if policy is Deception.MAXIMAL:
        # Most flags flipped; on a tie hide the carriers, the thing the enemy hunts for.
        return max(options, key=lambda o: ((o[0] != truth[0]) + (o[1] != truth[1]), not o[0]))
    pick = dice.roll(label, len(options), rule="seed 003, 7.12.2 item 3 (owner's choice)")
    return options[pick.total - 1]


def misreport(
    spotting: Spotting,
    classes: tuple[str, ...],
    *,
    policy: Deception,
    rules: ReportRules,
    dice: Dice,
    label: str,
) -> tuple[str, ...]:
    """7.12.2 item 3: roll 2d6 for a Condition 2 report on ships with carriers and/or capital ships."""
    count = Counter(s.category for t in spotting.targets for s in t.ships)
    carriers, capitals = count[ShipCategory.CARRIER], count[ShipCategory.CAPITAL]
    if not carriers and not capitals:
        return classes
    mods = {"searcher high": rules.high_searcher} if spotting.observer_high else {}
    roll = dice.roll(label, 6, 2, rule="seed 003, 7.12.2 item 3 carrier error", modifiers=mods)
    if roll.total < rules.error_min:
        return classes
    truth = (carriers > 0, capitals > 0)
    options = carrier_options(carriers, capitals, rules.swap_limit)
    shown = choose_option(options, truth, policy, dice, label + ".choice")
    flags = {ShipCategory.CARRIER.value: shown[0], ShipCategory.CAPITAL.value: shown[1]}
    kept = {c for c in classes if flags.get(c, True)} | {c for c, on in flags.items() if on}
    return tuple(c for c in SHIP_CLASSES if c in kept)


# --- Condition 3 -----------------------------------------------------------------


def unit_report(target: Target) -> UnitReport:
    """One TF or AF exactly by class (15.1's "one carrier, 4 capital and 5 small ships").

    Damaged ships are counted by class and condition: "(one capital ship is smoking)".
    """
    if target.ships:
        counts = Counter(s.category.value for s in target.ships)
        states = Counter((s.category.value, s.state) for s in target.ships if s.state != INTACT)
        return UnitReport(
            counts=tuple((c, counts[c]) for c in SHIP_CLASSES if counts[c]),
            states=tuple((c, st, n) for (c, st), n in sorted(states.items(), key=_state_order)),
        )
    armed = Counter("armed" if p.armed else "unarmed" for p in target.planes for _ in range(p.factors))
    return UnitReport(counts=tuple((c, armed[c]) for c in PLANE_CLASSES if armed[c]), altitude=band([target]))


def _state_order(item: tuple[tuple[str, str], int]) -> tuple[int, str]:
    return SHIP_CLASSES.index(item[0][0]), item[0][1]


def _unit_order(u: UnitReport) -> tuple[Any, ...]:
    return (u.counts, u.states, u.altitude or "")


# --- composing and recording -----------------------------------------------------


def compose(
    spotting: Spotting, *, policy: Deception, rules: ReportRules, dice: Dice, label: str
) -> ContactReport:
    """The report one spotting earns (module docstring); ``policy`` is the TARGET owner's."""
    kind, condition, targets = spotting.kind, spotting.condition, spotting.targets
    altitude = band(targets) if kind == PLANES else None
    if spotting.radar and condition < 3:
        # Standard 7.13 (reference A.8.5): below Condition 3 radar says only "planes at high altitude".
        return ContactReport(PLANES, condition, altitude="high", radar=True)
    if condition == 1:
        return ContactReport(kind, 1, altitude)
    if condition == 2:
        approx = approximate(total(targets, kind), policy, rules, dice, label + ".total")
        classes = classes_present(targets, kind)
        if kind == SHIPS:
            label += ".carriers"
            classes = misreport(spotting, classes, policy=policy, rules=rules, dice=dice, label=label)
        return ContactReport(kind, 2, altitude, approx=approx, classes=classes)
    units = tuple(sorted((unit_report(t) for t in targets), key=_unit_order))
    return ContactReport(kind, 3, altitude, units=units)


def record(
    knowledge: Knowledge,
    spotting: Spotting,
    *,
    turn: int,
    dice: Dice,
    policies: Mapping[Side, Deception],
    rules: ReportRules,
    name: Callable[[Hex], str] = hex_id,
) -> Knowledge:
    """Add the report of ``spotting`` unless this observer already holds one as good this turn."""
    hex_name = name(spotting.hex)
    old = knowledge.find(turn, spotting.observer_key, hex_name, spotting.kind)
    if old is not None and old.condition >= spotting.condition:
        return knowledge
    owner = spotting.targets[0].side if spotting.targets else None
    policy = policies.get(owner, Deception.RANDOM) if owner is not None else Deception.RANDOM
    label = f"ft.report.t{turn}.{knowledge.side}.{spotting.observer_key}.{hex_name}.{spotting.kind}"
    report = compose(spotting, policy=policy, rules=rules, dice=dice, label=f"{label}.c{spotting.condition}")
    sighting = Sighting(turn, spotting.observer_kind, spotting.observer_key, hex_name, report)
    return knowledge.with_sighting(sighting)


def record_all(knowledge: Knowledge, spottings: Iterable[Spotting], **kwargs: Any) -> Knowledge:
    for spotting in spottings:
        knowledge = record(knowledge, spotting, **kwargs)
    return knowledge


# --- rendering from knowledge only ------------------------------------------------

OBSERVER_WORDS = {
    "AF": "aircraft",
    "TF": "task force",
    "BASE": "base",
    "CW": "coastwatcher",
    "RADAR": "radar",
    "SUB": "submarine",
}


def describe(report: ContactReport) -> str:
    """One line of plain English for a report, e.g. ``about 10 ships: carrier, capital, small``."""
    if report.radar:
        return "planes at high altitude"
    altitude = f", {_band_words(report.altitude)}" if report.altitude else ""
    if report.condition == 1:
        return f"{report.kind}{altitude}"
    if report.condition == 2:
        unit = "ships" if report.kind == SHIPS else "air factors"
        return f"about {report.approx} {unit}: {', '.join(report.classes)}{altitude}"
    return "; ".join(_describe_unit(report.kind, u) for u in report.units)


def _band_words(altitude: str) -> str:
    return "at high and low altitude" if altitude == "both" else f"at {altitude} altitude"


def _describe_unit(kind: str, unit: UnitReport) -> str:
    what = "TF" if kind == SHIPS else "AF"
    counts = ", ".join(f"{n} {c}" for c, n in unit.counts)
    # 15.1's example: "3 capital and 5 small ships (one capital ship is smoking)".
    states = ", ".join(f"{n} {c} {'ship' if n == 1 else 'ships'} {state}" for c, state, n in unit.states)
    altitude = f", {_band_words(unit.altitude)}" if unit.altitude else ""
    return f"{what}: {counts}{f' ({states})' if states else ''}{altitude}"


def report_model(knowledge: Knowledge, turn: int | None = None) -> dict[str, Any]:
    """The side's contacts as plain data for the templates, from its knowledge alone."""
    sightings = knowledge.sightings if turn is None else knowledge.of_turn(turn)
    contacts = [
        {
            "turn": s.turn,
            "hex": s.hex,
            "kind": s.kind,
            "condition": s.condition,
            "observer": OBSERVER_WORDS.get(s.observer_kind, s.observer_kind),
            "text": describe(s.report),
        }
        for s in sightings
    ]
    return {"side": knowledge.side, "contacts": contacts}
