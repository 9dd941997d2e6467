# SPDX-License-Identifier: GPL-3.0-or-later
"""What the turn-end game tells the players: event texts, the report model and the order help.

Nothing in this game is hidden, so every event goes to everyone and every
seat's view shows the same state; only the order help differs (the moving
side gets a template).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mailbot.core.game import OBSERVERS, Event, public_events
from mailbot.games.wif.orders import Status
from mailbot.games.wif.rules import LAST_DIE_CONTINUES, PASS_BONUS
from mailbot.games.wif.state import ImpulseRecord, WifState


def _dice_text(record: ImpulseRecord) -> str:
    return "+".join(str(face) for face in record.roll.faces)


def _passing_text(record: ImpulseRecord, neutral: Sequence[str]) -> str:
    parts = [
        f"{power} passes (neutral: adds nothing)"
        if power in neutral
        else f"{power} passes (+{PASS_BONUS[power]})"
        for power in record.passed
    ]
    return "; ".join(parts) + "; " if parts else "no power passes; "


def _last_die_text(record: ImpulseRecord, unnamed: str) -> str:
    """The last die's face as rolled (seed 002: the plusses of passing "do not affect the reading of
    the 'last die'") and which of the dice it was: "last die: 8 (die 2 of 2)". ``unnamed``: the
    design default's citation when the side nominated none."""
    count = len(record.roll.faces)
    if count == 1:
        return f"last die: {record.roll.last_face}"
    which = [f"die {record.roll.last_position} of {count}", *([unnamed] if unnamed else [])]
    return f"last die: {record.roll.last_face} ({'; '.join(which)})"


def roll_event(state: WifState, record: ImpulseRecord, unsent: Mapping[str, str] | None = None) -> Event:
    """``unsent``: the design defaults that stood in for orders not sent (key -> citation)."""
    roll, unsent = record.roll, unsent or {}
    bonus = f", +{roll.bonus_per_die} on each die" if roll.bonus_per_die else ""
    text = (
        f"Turn {record.turn}, impulse {record.impulse}, {record.side}: {_passing_text(record, state.neutral)}"
        f"{len(roll.faces)}d10 {_dice_text(record)}{bonus} = +{roll.addition}; "
        f"turn-end number {roll.before} -> {roll.after} (the turn can end at {state.threshold}); "
        f"{_last_die_text(record, unsent.get('last_die', ''))}."
    )
    if "weather" in unsent:
        text += f" No WEATHER sent: {record.weather} d10 ({unsent['weather']})."
    data = {
        "turn": record.turn,
        "impulse": record.impulse,
        "side": record.side,
        "faces": list(roll.faces),
        "passed": list(record.passed),
        "bonus_per_die": roll.bonus_per_die,
        "last_position": roll.last_position,
        "last_face": roll.last_face,
        "before": roll.before,
        "after": roll.after,
        "threshold": state.threshold,
        "ends_turn": roll.ends_turn,
    }
    return Event("turn-end-roll", text, data=data)


def status_event(state: WifState, order: Status) -> Event:
    powers = ", ".join(order.powers)
    if order.neutral:
        text = f"The {state.mover.name} declare {powers} neutral: a neutral power's pass adds nothing."
    else:
        text = f"The {state.mover.name} declare {powers} at war."
    return Event("status", text, data={"powers": list(order.powers), "neutral": order.neutral})


def continue_events(after: WifState, record: ImpulseRecord) -> list[Event]:
    events = []
    roll = record.roll
    if roll.after >= after.threshold:
        # seed 002: "if the 'last die' reads 1, 2, or 3, you keep on playing that turn, period."
        events.append(
            Event(
                "turn-continues",
                f"The turn-end number {roll.after} reaches {after.threshold}, but the last die is an "
                f"unmodified {roll.last_face} (1 to {LAST_DIE_CONTINUES}): the turn continues.",
            )
        )
    upcoming = after.sides[(after.first + after.impulse) % len(after.sides)].name
    events.append(
        Event("next-impulse", f"Impulse {after.impulse + 1} of turn {after.turn}: the {upcoming} move.")
    )
    return events


def turn_end_event(state: WifState) -> Event:
    roll = state.log[-1].roll
    return Event(
        "turn-ends",
        f"The turn-end number {roll.after} reaches {state.threshold} and the last die is a {roll.last_face}: "
        f"turn {state.turn} ends after {state.impulse} impulses.",
        data={"turn": state.turn, "impulses": state.impulse, "total": roll.after},
    )


def _opponents(state: WifState, index: int) -> str:
    if len(state.sides) == 2:
        return f"the {state.sides[1 - index].name}'"
    return "its opponents'"


def initiative_event(state: WifState) -> Event:
    """``state``: the turn just ended, with the marker already moved."""
    index = state.first
    return Event(
        "initiative",
        f"The {state.sides[index].name} had both the first and the last impulse of turn {state.turn}: "
        f"the initiative marker moves 1 space towards {_opponents(state, index)} end of the track. "
        f"{marker_text(state)}",
        data={"side": state.sides[index].name, "turn": state.turn, "moves": list(state.initiative)},
    )


def marker_text(state: WifState) -> str:
    """Where the initiative marker stands, counted from its starting space (a design default)."""
    why = state.cite("initiative_track")
    if len(state.sides) == 2:
        net = state.initiative[0] - state.initiative[1]
        if net == 0:
            return f"Initiative marker: on its starting space ({why})."
        towards = state.sides[1 if net > 0 else 0].name
        space = "space" if abs(net) == 1 else "spaces"
        where = f"{abs(net)} {space} from its starting space towards the {towards}' end"
        return f"Initiative marker: {where} ({why})."
    moves = ", ".join(f"the {side.name} {n}" for side, n in zip(state.sides, state.initiative, strict=True))
    return f"Initiative marker moves towards the opponents' end so far: {moves} ({why})."


def turn_begins_event(state: WifState) -> Event:
    text = f"Turn {state.turn} begins: the {state.mover.name} move first ({state.first_from})."
    return Event("turn-begins", text, data={"turn": state.turn, "first": state.mover.name})


def result_line(state: WifState) -> str:
    counts = [str(r.impulse) for r in state.log if r.roll.ends_turn]
    if len(counts) == 1:
        return f"Turn {state.turn} ended after {counts[0]} impulses (turn-end number {state.total})."
    return f"{len(counts)} turns played, impulses per turn: {', '.join(counts)}."


def order_help(state: WifState, seat: str) -> list[str]:
    if state.finished:
        return ["The game is over: no orders are needed."]
    if seat != state.mover.name:
        return [f"No orders from you now: the {state.mover.name} end impulse {state.impulse}."]
    dice = state.weather
    return [
        "Send the end of your impulse between ORDERS and END, one order a line:",
        f"  WEATHER n       the circled weather number, 1 to 4: how many d10s (now {dice})",
        "  PASS powers     the major powers that passed, e.g. PASS GER ITA",
        "                  (+2 a die: Germany, Japan, USA, CW, USSR; +1: Italy, France, NC, CC)",
        "  LAST n          which die is the last die, 1 to n (default: the last one rolled)",
        "  NEUTRAL powers  a power is neutral from now on: its pass adds nothing",
        "  WAR powers      a neutral power is at war again",
        f"Your major powers: {', '.join(state.mover.powers)}.",
        "Template:",
        "ORDERS",
        f"WEATHER {dice}",
        "END",
    ]


def _row(record: ImpulseRecord) -> dict[str, Any]:
    roll = record.roll
    return {
        "impulse": record.impulse,
        "side": record.side,
        "weather": record.weather,
        "passed": ", ".join(record.passed) or "-",
        "dice": _dice_text(record),
        "bonus": roll.bonus_per_die,
        "last": roll.last_face,
        "added": roll.addition,
        "total": roll.after,
        "ends": roll.ends_turn,
    }


def _table_turn(state: WifState) -> int:
    """This turn's table, or the one just ended while the new turn has no impulse yet."""
    if any(record.turn == state.turn for record in state.log) or not state.log:
        return state.turn
    return state.log[-1].turn


def _sides(state: WifState) -> list[dict[str, Any]]:
    return [
        {
            "name": side.name,
            "powers": [
                {"name": power, "neutral": power in state.neutral, "bonus": PASS_BONUS[power]}
                for power in side.powers
            ],
            "initiative_moves": moves,
        }
        for side, moves in zip(state.sides, state.initiative, strict=True)
    ]


def _defaults(state: WifState) -> list[str]:
    """The design defaults in force (data/defaults.toml), for the letters."""
    named = [side for side in state.first_by_turn[1:] if side]
    skip = set()
    if state.first_rule != "alternate" or len(named) >= state.turns - 1:
        skip.add("first_rule")
    if state.needed or len(state.sides) == 2:
        skip.add("threshold")
    if state.turns_from != "set by the scenario":
        skip.add("turns")  # the GM chose (or an old game): no default decides the length
    notes = []
    for entry in state.defaults:
        if entry.key in skip:
            continue
        line = entry.line
        if entry.key == "threshold":
            line += f": turn-end number {state.threshold}"
        notes.append(line)
    return notes


def build_view(
    title: str, state: WifState, events: Sequence[Event], seat: str | None, help_lines: Sequence[str]
) -> dict[str, Any]:
    table_turn = _table_turn(state)
    return {
        "title": title,
        "seat": seat or "referee",
        "turn": state.turn,
        "turns": state.turns,
        "impulse": state.impulse,
        "moving": "" if state.finished else state.mover.name,
        "your_move": not state.finished and seat == state.mover.name,
        "total": state.total,
        "threshold": state.threshold,
        "threshold_source": state.threshold_source,
        "first": state.sides[state.first].name,
        "first_source": state.first_from,
        "defaults": _defaults(state),
        "turns_from": state.turns_from,
        "marker": marker_text(state),
        "weather": state.weather,
        "finished": state.finished,
        "result": state.result,
        "happened": [event.text for event in events if event.visible_to(seat)],
        "table_turn": table_turn,
        "impulses": [_row(record) for record in state.log if record.turn == table_turn],
        "sides": _sides(state),
        "help": list(help_lines),
    }


def public_view(title: str, state: WifState, events: Sequence[Event]) -> dict[str, Any]:
    """The report of a name that is no seat (observers), from the step's public events only."""
    return build_view(title, state, public_events(events), OBSERVERS, ())
