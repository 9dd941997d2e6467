# SPDX-License-Identifier: GPL-3.0-or-later
"""Shadowing (standard 11 with seed 003, 11.2, 11.3 and 11.11).

- 11.2: "Shadowing may not be attempted unless the target was visible to the
  shadowing player (not necessarily the shadowing unit itself) in the
  previous turn." Visibility is the referee's record of which enemy units a
  side's spottings covered (:func:`seen_refs`), never the side's knowledge,
  which holds no unit ids.
- 11.3: the roll is secret: "The roll itself, and modifiers, are not
  revealed; only the result." :func:`shadow_events` tells the shadowing seat
  the result alone; the roll goes to the referee (and the dice log, opened
  when the game ends).
- 11.11: -1 if the shadowing TF has radar; +2 at night (submarine +1); -1 if
  the shadower is at Condition 3; the cloud modifier only for an AF.
  27.3 adds an automatic +1 for submarines.

The standard Shadowing Table itself was not found: its rows are a design
default in ``mailbot/games/flattop/data/tables/observation-shadowing.toml``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mailbot.core.dice import Dice, Roll
from mailbot.core.game import Event
from mailbot.errors import GameError
from mailbot.games.flattop.observation.observe import Spotting
from mailbot.games.flattop.units import Side

RULE = "standard 11 Shadowing Table; seed 003, 11.11"


class Shadower(StrEnum):
    AF = "AF"
    TF = "TF"
    SUB = "SUB"


class ShadowResult(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    BLIND = "failure: may not move or observe this turn"  # the table's '-' (standard 11.7)
    NOT_ALLOWED = "not allowed: target not seen last turn"  # 11.2


@dataclass(frozen=True)
class ShadowRow:
    success: int  # highest modified 1d6 that succeeds
    blind_from: int | None  # lowest that gives '-'; None: the row has no '-'


@dataclass(frozen=True)
class ShadowTable:
    rows: Mapping[Shadower, ShadowRow]
    night: Mapping[Shadower, int]
    radar: int
    condition_3: int
    cloud: int
    submarine: int
    storm_fails: frozenset[Shadower]
    default: bool = True

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ShadowTable:
        try:
            mods = data["modifiers"]
            rows = {
                Shadower(k): ShadowRow(int(v["success"]), _optional(v.get("blind_from")))
                for k, v in data["results"].items()
            }
            return cls(
                rows=rows,
                night={Shadower(k): int(v) for k, v in mods["night"].items()},
                radar=int(mods["radar"]),
                condition_3=int(mods["condition_3"]),
                cloud=int(mods["cloud"]),
                submarine=int(mods["submarine"]),
                storm_fails=frozenset(Shadower(k) for k in data.get("rules", {}).get("storm_fails", [])),
                default=bool(data.get("default", True)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise GameError(f"shadowing table: {exc!r}") from exc


def _optional(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True)
class ShadowAttempt:
    """One announced attempt (standard 11: announced at the start of the phase)."""

    shadower_key: str  # the owner's designation, e.g. "AF4" or "TF2"
    shadower: Shadower
    side: Side
    target_ref: str  # referee's id of the target TF
    visible_last_turn: bool  # 11.2, from seen_refs of the previous turn
    night: bool = False
    radar: bool = False  # the shadowing TF has radar
    at_condition_3: bool = False
    target_into_cloud: bool = False
    target_into_storm: bool = False


@dataclass(frozen=True)
class ShadowOutcome:
    attempt: ShadowAttempt
    result: ShadowResult
    roll: Roll | None = None  # referee only (11.3)


def seen_refs(spottings: Iterable[Spotting]) -> frozenset[str]:
    """The enemy units a side's spottings of one turn covered: 11.2's "visible to the shadowing player"."""
    return frozenset(t.ref for s in spottings for t in s.targets)


def may_shadow(target_ref: str, seen_last_turn: Collection[str]) -> bool:
    return target_ref in seen_last_turn


def shadow_modifiers(attempt: ShadowAttempt, table: ShadowTable) -> dict[str, int]:
    """Seed 003, 11.11 (and 27.3 for submarines), each named as printed."""
    mods: dict[str, int] = {}
    if attempt.shadower is Shadower.TF and attempt.radar:
        mods["shadowing TF has radar"] = table.radar
    if attempt.night:
        mods["night"] = table.night.get(attempt.shadower, 0)
    if attempt.at_condition_3:
        mods["shadower at Condition 3"] = table.condition_3
    # "Cloud modifier for shadowing only occurs if an AF is attempting to shadow."
    if attempt.shadower is Shadower.AF and attempt.target_into_cloud:
        mods["target moved into cloud"] = table.cloud
    if attempt.shadower is Shadower.SUB:
        mods["submarine"] = table.submarine
    return {name: value for name, value in mods.items() if value}


def resolve_shadow(attempt: ShadowAttempt, table: ShadowTable, dice: Dice, turn: int) -> ShadowOutcome:
    """Roll one attempt in secret (11.3)."""
    if not attempt.visible_last_turn:
        return ShadowOutcome(attempt, ShadowResult.NOT_ALLOWED)
    if attempt.target_into_storm and attempt.shadower in table.storm_fails:
        return ShadowOutcome(attempt, ShadowResult.FAILURE)  # standard 11: automatic failure
    row = table.rows[attempt.shadower]
    label = f"ft.shadow.t{turn}.{attempt.side.value}.{attempt.shadower_key}"
    roll = dice.roll(label, 6, rule=RULE, modifiers=shadow_modifiers(attempt, table))
    if roll.total <= row.success:
        result = ShadowResult.SUCCESS
    elif row.blind_from is not None and roll.total >= row.blind_from:
        result = ShadowResult.BLIND
    else:
        result = ShadowResult.FAILURE
    return ShadowOutcome(attempt, result, roll)


def shadow_events(outcome: ShadowOutcome, seat: str) -> tuple[Event, ...]:
    """The shadowing seat hears the result only; the roll and modifiers go to the referee alone.

    An Event with an empty audience is seen by the referee (seat None) and no one else.
    """
    key = outcome.attempt.shadower_key
    told = Event(
        kind="ft.shadow.result",
        text=f"Shadowing by {key}: {outcome.result.value}",
        audience=frozenset({seat}),
        data={"shadower": key, "result": outcome.result.value},
    )
    if outcome.roll is None:
        return (told,)
    secret = Event(
        kind="ft.shadow.roll",
        text=f"{key} shadowing {outcome.attempt.target_ref}: {outcome.roll.text}",
        audience=frozenset(),
        data={"roll": outcome.roll.as_dict(), "target": outcome.attempt.target_ref},
    )
    return (told, secret)
