# SPDX-License-Identifier: GPL-3.0-or-later
"""What the Atlantic Storm moderator tells whom: event texts, report model, order help.

Public: the sheet, cards played, how many cards each seat draws or
discards, deck replacements by count. Private to one seat: the cards it
draws, discards and holds. The referee (seat ``None``) sees everything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mailbot.core.defaults import cite
from mailbot.core.game import Event
from mailbot.games.atlantic_storm.deck import Deal, Piles, Replacement
from mailbot.games.atlantic_storm.state import StormState
from mailbot.games.atlantic_storm.timeline import CONVOYS, SELECTS_FROM, SheetRow, hand_size, year_of


def _cards(cards: Sequence[str]) -> str:
    return ", ".join(cards) if cards else "nothing"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def convoy_label(convoy: int) -> str:
    """A convoy as the steps and the archive name it: "Convoy C4 (1940)"."""
    if not 1 <= convoy <= CONVOYS:
        return f"Convoy {convoy}"
    return f"Convoy C{convoy} ({year_of(convoy).year})"


def yes_no(row: SheetRow) -> str:
    return "YES" if row.selected else "NO"


def row_model(row: SheetRow) -> dict[str, Any]:
    """The six columns of the seed's sheet, plus the convoy and the unmodified roll."""
    return {
        "convoy": row.convoy,
        "year": year_of(row.convoy).year,
        "balance": row.balance,
        "remaining": row.remaining,
        "fraction": row.fraction,
        "modifier": row.modifier,
        "roll": row.roll,
        "modified": row.modified,
        "selected": yes_no(row),
        # a YES below seed 000's "3 to 10": a design default (defaults.toml, below_three)
        "below": row.selected and row.modified < SELECTS_FROM,
    }


def examination_event(row: SheetRow, enhanced: bool, faces: Sequence[int], note: str = "") -> Event:
    dice = "+".join(str(face) for face in faces)
    if enhanced:
        text = (
            f"C{row.convoy} ({year_of(row.convoy).year}): 2S-E {row.balance}, 40-E {row.remaining}, "
            f"{row.fraction} -> DR modif {row.modifier:+d}; 3d6 {dice} = {row.roll}, "
            f"{row.roll}{row.modifier:+d} = {row.modified}: {yes_no(row)}"
        )
    else:
        text = f"C{row.convoy} ({year_of(row.convoy).year}): 3d6 {dice} = {row.roll}: {yes_no(row)}"
    verdict = " (selected for play)" if row.selected else ""
    verdict += f" ({note})" if note else ""
    return Event("examination", text + verdict + ".", data=row_model(row))


def replacement_event(replaced: Replacement, draw_size: int, notes: Sequence[str] = ()) -> Event:
    removed = replaced.pool - replaced.kept
    why = f" ({'; '.join(notes)})" if notes else ""
    return Event(
        "deck-replaced",
        f"C{replaced.convoy} opens {replaced.part.year}: the {replaced.part.name} deck part "
        f"({_plural(len(replaced.part.cards), 'card')}) is shuffled together with half of the "
        f"{_plural(replaced.pool, 'unplayed and discarded card')} "
        f"({replaced.kept}; {removed} leave the game) "
        f"and replaces the draw pile: {_plural(draw_size, 'card')}{why}.",
        data={
            "convoy": replaced.convoy,
            "part": replaced.part.name,
            "pool": replaced.pool,
            "kept": replaced.kept,
        },
    )


def deal_events(
    seats: Sequence[str],
    dealt: Deal,
    piles: Piles,
    size: int,
    convoy: int,
    *,
    notes: Sequence[str] = ("", ""),
) -> list[Event]:
    """``notes``: the citations of the reshuffle and the dealing defaults ("" for none)."""
    counts = ", ".join(f"{seat} {len(dealt.drawn[seat])}" for seat in seats)
    events = []
    if dealt.reshuffled:
        why = f" ({notes[0]})" if notes[0] else ""
        events.append(
            Event(
                "reshuffle",
                f"The draw pile ran out: the {_plural(dealt.reshuffled, 'discarded card')} "
                f"are shuffled into a new one{why}.",
            )
        )
    dealing = f" ({notes[1]})" if notes[1] else ""
    events.append(
        Event("deal", f"Hands are filled to {size} cards for C{convoy}{dealing}; cards drawn: {counts}.")
    )
    events.extend(
        Event(
            "hand",
            f"You draw {_cards(dealt.drawn[seat])}. Your hand for C{convoy}: {_cards(piles.hand(seat))}.",
            audience=frozenset({seat}),
            data={"drawn": list(dealt.drawn[seat]), "hand": list(piles.hand(seat))},
        )
        for seat in seats
    )
    if dealt.short:
        short = ", ".join(f"{seat} {_plural(n, 'card')}" for seat, n in dealt.short.items())
        events.append(Event("deck-empty", f"No cards are left to draw: short of a full hand: {short}."))
    return events


def pass_event(seats: Sequence[str], convoy: int, note: str) -> Event:
    """One line for every seat that played and discarded nothing, not one a seat."""
    who = ", ".join(seats)
    verb = "passes" if len(seats) == 1 else "pass"
    text = f"C{convoy}: {who} {verb}, playing and discarding nothing ({note})."
    return Event("pass", text, data={"seats": list(seats), "convoy": convoy})


def play_events(seat: str, played: Sequence[str], discarded: Sequence[str]) -> list[Event]:
    if not played and not discarded:
        return []  # said once for every such seat by pass_event
    text = f"{seat} plays {_cards(played)}" + (
        f" and discards {_plural(len(discarded), 'card')}." if discarded else "."
    )
    events = [Event("play", text, data={"seat": seat, "played": list(played), "discarded": len(discarded)})]
    if discarded:
        events.append(Event("discard", f"You discard {_cards(discarded)}.", audience=frozenset({seat})))
    return events


def order_help(state: StormState, seat: str) -> list[str]:
    if state.finished:
        return ["The timeline is done: no orders are needed."]
    if seat not in state.seats:
        return ["You hold no seat in this game."]
    return [
        f"Convoy C{state.current} ({year_of(state.current).year}) is selected. Play it out as usual,",
        "starting with suit selection, then report between ORDERS and END, one card a line:",
        "  PLAY card      a card you played",
        "  DISCARD card   a card you discarded",
        "  PASS           you played and discarded nothing (sent for you if you are silent)",
        "A card as in your hand, any case; HMS-, USS- and the like may be left out.",
        f"Your hand: {_cards(state.piles.hand(seat))}.",
        "Template:",
        "ORDERS",
        "PASS",
        "END",
    ]


def _passes(state: StormState) -> list[dict[str, Any]]:
    """Each seat's passes (nothing played or discarded) on one line, not one line a convoy."""
    passes: dict[str, list[str]] = {seat: [] for seat in state.seats}
    for record in state.plays:
        if not record.played and not record.discarded:
            passes.setdefault(record.seat, []).append(f"C{record.convoy}")
    return [{"seat": seat, "convoys": " ".join(convoys)} for seat, convoys in passes.items() if convoys]


def _plays(state: StormState, seat: str | None) -> list[dict[str, Any]]:
    """Every seat's plays; discarded cards by name only to their owner (and the referee)."""
    return [
        {
            "convoy": record.convoy,
            "seat": record.seat,
            "played": _cards(record.played),
            "discarded": _cards(record.discarded)
            if seat is None or seat == record.seat or not record.discarded
            else _plural(len(record.discarded), "card"),
        }
        for record in state.plays
        if record.played or record.discarded
    ]


def _hands(state: StormState, seat: str | None) -> list[dict[str, Any]]:
    return [
        {
            "seat": owner,
            "count": len(state.piles.hand(owner)),
            "cards": list(state.piles.hand(owner)) if seat is None or seat == owner else [],
        }
        for owner in state.seats
    ]


def build_view(
    title: str, state: StormState, events: Sequence[Event], seat: str | None, help_lines: Sequence[str]
) -> dict[str, Any]:
    convoy = state.current
    return {
        "title": title,
        "seat": seat or "referee",
        "enhanced": state.enhanced,
        "finished": state.finished,
        "result": state.result() if state.finished else "",
        "convoy": convoy,
        "year": year_of(convoy).year if convoy else 0,
        "hand_size": hand_size(convoy) if convoy else 0,
        "happened": [event.text for event in events if event.visible_to(seat)],
        "sheet": [row_model(row) for row in state.sheet],
        "examined": len(state.sheet),
        "convoys": CONVOYS,
        "selected": [f"C{n}" for n in state.selected],
        "hand": list(state.piles.hand(seat)) if seat else [],
        "hands": _hands(state, seat),
        "plays": _plays(state, seat),
        "passes": _passes(state),
        "draw_count": len(state.piles.draw),
        "discard_count": len(state.piles.discard),
        "removed_count": len(state.piles.removed),
        "defaults": [entry.line for entry in state.defaults],
        "below_note": cite(state.defaults, "below_three"),
        "help": list(help_lines),
    }
