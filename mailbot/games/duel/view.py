# SPDX-License-Identifier: GPL-3.0-or-later
"""What the duel tells each seat: event texts with their audiences, the report model, the order help.

The rule of hidden information: a seat sees its own dice and its own split in
full; of the opponent it learns only public facts (bids, hit points, who
strikes first) and the outcome of each strike: how many hits it took, and
how many of its own hits were cancelled. The opponent's ATTACK/DEFEND split
and the opponent's dice are never in a seat's events or view. The referee
(seat ``None``) sees everything, through events addressed to nobody else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mailbot.core.game import EVERYONE, OBSERVERS, Event, public_events
from mailbot.games.duel.orders import DICE_PER_TURN, MAX_BID
from mailbot.games.duel.rules import CANCEL_ON, DEFAULT_BID, DEFAULT_SPLIT, HIT_ON
from mailbot.games.duel.state import DuelState, Phase, Split, Strike, TurnRecord

#: events for the referee alone: an audience no seat belongs to
REFEREE: frozenset[str] = frozenset()
SUGGESTED = Split(attack=2, defend=1)  # the pre-filled template: a middling, safe split


def _faces(faces: Sequence[int]) -> str:
    return " ".join(str(face) for face in faces) if faces else "none"


def _dice(count: int) -> str:
    return f"{count} die" if count == 1 else f"{count} dice"


def _hits(count: int) -> str:
    return f"{count} hit" if count == 1 else f"{count} hits"


def step_title(state: DuelState) -> str:
    if state.finished:
        return "The game is over"
    if state.phase is Phase.ORDERS:
        return f"Turn {state.turn} of {state.turns}: orders (ATTACK and DEFEND)"
    return f"Turn {state.turn} of {state.turns}: sealed initiative bids"


def _unspent(split: Split) -> str:
    left = DICE_PER_TURN - split.attack - split.defend
    return f" ({left} unspent {'die is' if left == 1 else 'dice are'} wasted)" if left else ""


def orders_events(state: DuelState, splits: dict[str, Split]) -> list[Event]:
    """After the orders step: each seat hears its own split, everyone hears that the bids are due."""
    events = [
        Event(
            "orders",
            f"Turn {state.turn}: your orders stand: {split.text}{_unspent(split)}.",
            audience=frozenset({seat}),
            data={"turn": state.turn, "seat": seat, "attack": split.attack, "defend": split.defend},
        )
        for seat, split in splits.items()
    ]
    events.append(
        Event(
            "orders-closed",
            f"Turn {state.turn}: the orders of both seats are in. Now seal your initiative bid, "
            f"0 to {MAX_BID} hit points: the highest bid strikes first.",
            data={"turn": state.turn},
        )
    )
    return events


def _initiative_text(record: TurnRecord) -> str:
    paid = ", ".join(
        f"{entry.seat} {entry.bid} (HP {entry.hp_start} -> {max(0, entry.hp_start - entry.bid)})"
        if entry.bid
        else f"{entry.seat} 0"
        for entry in record.seats
    )
    first = record.rounds[0]
    order = "both strike at once" if len(first) > 1 else f"{first[0]} strikes first"
    return f"Turn {record.turn} bids: {paid}; {order}."


def _attacker_event(turn: int, strike: Strike) -> Event:
    text = (
        f"Turn {turn}, your attack on {strike.defender}: {_dice(len(strike.attack_faces))} "
        f"{_faces(strike.attack_faces)} -> {_hits(strike.hits)} ({HIT_ON}+); "
        f"{strike.defender}'s defence cancelled {strike.cancelled}; "
        f"{strike.defender} loses {strike.damage} HP ({strike.hp_before} -> {strike.hp_after})."
    )
    data = {
        "turn": turn,
        "defender": strike.defender,
        "attack_faces": list(strike.attack_faces),
        "hits": strike.hits,
        "cancelled": strike.cancelled,
        "damage": strike.damage,
        "hp_after": strike.hp_after,
    }
    return Event("attack", text, frozenset({strike.attacker}), data)


def _defender_event(turn: int, strike: Strike) -> Event:
    if strike.defend_faces:
        defence = (
            f"your defence, {_dice(len(strike.defend_faces))} {_faces(strike.defend_faces)}, "
            f"cancelled {strike.cancelled} ({CANCEL_ON}+)"
        )
    else:
        defence = "you rolled no defence dice"
    text = (
        f"Turn {turn}, {strike.attacker}'s attack on you: {_hits(strike.hits)}; {defence}; "
        f"you lose {strike.damage} HP ({strike.hp_before} -> {strike.hp_after})."
    )
    data = {
        "turn": turn,
        "attacker": strike.attacker,
        "hits": strike.hits,
        "defend_faces": list(strike.defend_faces),
        "cancelled": strike.cancelled,
        "damage": strike.damage,
        "hp_after": strike.hp_after,
    }
    return Event("defence", text, frozenset({strike.defender}), data)


def _referee_event(record: TurnRecord, strike: Strike) -> Event:
    split, guard = record.entry(strike.attacker).split, record.entry(strike.defender).split
    text = (
        f"Turn {record.turn}, {strike.attacker} attacks {strike.defender}: ATTACK {split.attack} rolls "
        f"{_faces(strike.attack_faces)} = {_hits(strike.hits)}; DEFEND {guard.defend} rolls "
        f"{_faces(strike.defend_faces)}, cancels {strike.cancelled}; {strike.defender} "
        f"{strike.hp_before} -> {strike.hp_after} HP."
    )
    data = {
        "turn": record.turn,
        "attacker": strike.attacker,
        "defender": strike.defender,
        "attack": split.attack,
        "defend": guard.defend,
        "attack_faces": list(strike.attack_faces),
        "defend_faces": list(strike.defend_faces),
        "hits": strike.hits,
        "cancelled": strike.cancelled,
    }
    return Event("strike", text, REFEREE, data)


def _hp_text(state: DuelState) -> str:
    return ", ".join(f"{seat.name} {seat.hp} HP" for seat in state.seats)


def turn_events(after: DuelState, record: TurnRecord) -> list[Event]:
    """After the bid step: the public bids, each strike told three ways, the hit points."""
    bids = {entry.seat: entry.bid for entry in record.seats}
    events = [Event("initiative", _initiative_text(record), data={"turn": record.turn, "bids": bids})]
    for strike in record.strikes:
        events.extend(
            (
                _attacker_event(record.turn, strike),
                _defender_event(record.turn, strike),
                _referee_event(record, strike),
            )
        )
    events.extend(
        Event("silenced", f"{name} is down before its strike comes and does not strike.", data={"seat": name})
        for name in record.silenced
    )
    hp = {seat.name: seat.hp for seat in after.seats}
    events.append(Event("hit-points", f"After turn {record.turn}: {_hp_text(after)}.", data={"hp": hp}))
    return events


def next_turn_event(state: DuelState) -> Event:
    return Event(
        "turn-begins",
        f"Turn {state.turn} of {state.turns} begins: send your ATTACK and DEFEND orders.",
        data={"turn": state.turn},
    )


def template(state: DuelState, seat: str) -> list[str]:
    """The lines a seat could send as they stand, for the open step; empty when it owes nothing."""
    if state.finished or seat not in state.living():
        return []
    if state.phase is Phase.ORDERS:
        return ["ORDERS", f"ATTACK {SUGGESTED.attack}", f"DEFEND {SUGGESTED.defend}", "END"]
    return [f"SEAL bid {DEFAULT_BID}"]


def order_help(state: DuelState, seat: str) -> list[str]:
    if state.finished:
        return ["The game is over: no orders are needed."]
    if seat not in state.living():
        return [f"{step_title(state)}: the seats send their orders; nothing to send from you."]
    if state.phase is Phase.ORDERS:
        lines = [
            f"Send your orders for turn {state.turn} between ORDERS and END, one a line:",
            f"  ATTACK n   dice rolled at your opponent, 1 to 3: each d6 hits on {HIT_ON}+",
            f"  DEFEND n   dice that cancel hits, 0 to 3: each d6 cancels one hit on {CANCEL_ON}+",
            f"ATTACK + DEFEND is at most {DICE_PER_TURN}; unspent dice are wasted",
            "(ATTACK 2 alone is ATTACK 2, DEFEND 0).",
            f"If you send nothing: {DEFAULT_SPLIT.text}.",
        ]
    else:
        lines = [
            f"Seal your initiative bid for turn {state.turn} (a short step):",
            f"  SEAL bid n   0 to {MAX_BID} hit points: the highest bid strikes first, equal bids at once;",
            "               the bid is paid from your hit points, win or lose.",
            f"If you seal nothing: BID {DEFAULT_BID}.",
        ]
    return [*lines, "Template:", *template(state, seat)]


def _history_orders(record: TurnRecord, seat: str | None) -> str:
    """The splits of a past turn as this viewer may know them: its own, or all for the referee."""
    if seat is None:
        return "; ".join(f"{entry.seat} {entry.split.text}" for entry in record.seats)
    mine = [entry for entry in record.seats if entry.seat == seat]
    return mine[0].split.text if mine else ""


def _history_row(record: TurnRecord, seat: str | None) -> dict[str, Any]:
    first = record.rounds[0]
    return {
        "turn": record.turn,
        "bids": ", ".join(f"{entry.seat} {entry.bid}" for entry in record.seats),
        "initiative": "at once" if len(first) > 1 else f"{first[0]} first",
        "hp": ", ".join(f"{entry.seat} {entry.hp_end}" for entry in record.seats),
        "orders": _history_orders(record, seat),
    }


def _seat_summary(state: DuelState, name: str | None) -> dict[str, Any] | None:
    if name is None or name not in state.names:
        return None
    return {"name": name, "hp": state.seat(name).hp, "max_hp": state.max_hp}


def _as_seen(event: Event, seat: str | None) -> str:
    """The referee reads every seat's private events too: say whose they are ("your attack" is whose?)."""
    if seat is not None or event.audience == EVERYONE:
        return event.text
    return f"[{', '.join(sorted(event.audience)) or 'referee'} only] {event.text}"


def build_view(
    title: str, state: DuelState, events: Sequence[Event], seat: str | None, help_lines: Sequence[str]
) -> dict[str, Any]:
    """The report model; every value is plain JSON (the tests compare views as JSON text)."""
    me = _seat_summary(state, seat)
    pending = state.seat(seat).pending if me is not None and seat is not None else None
    return {
        "title": title,
        "seat": seat or "referee",
        "referee": seat is None,
        "turn": state.turn,
        "turns": state.turns,
        "step": step_title(state),
        "finished": state.finished,
        "result": state.result,
        "you": me,
        "opponent": _seat_summary(state, state.opponent(seat)) if me is not None and seat else None,
        "seats": [{"name": s.name, "hp": s.hp, "you": s.name == seat} for s in state.seats],
        "max_hp": state.max_hp,
        "your_orders": pending.text if pending else "",
        # The referee alone sees both seats' splits between the orders and the bid step.
        "pending": [f"{s.name}: {s.pending.text}" for s in state.seats if s.pending] if seat is None else [],
        "happened": [_as_seen(event, seat) for event in events if event.visible_to(seat)],
        "history": [_history_row(record, seat) for record in state.log],
        "help": list(help_lines),
        "template": template(state, seat) if seat else [],
        # The bid step takes a SEAL line, not an ORDERS block: the letter says how to send it.
        "sealing": state.phase is not Phase.ORDERS and not state.finished,
    }


def public_view(title: str, state: DuelState, events: Sequence[Event]) -> dict[str, Any]:
    """The report of a name that is no seat (observers), from the step's public events only."""
    return build_view(title, state, public_events(events), OBSERVERS, ())
