# SPDX-License-Identifier: GPL-3.0-or-later
"""A side's recent contacts merged per hex, for the report (``view``) and its map (``view_map``).

Each observer's report is kept apart in the side's knowledge (a report is fixed per observer,
contact and turn: ``observation.reports``), so the same ships seen by two search planes and a
coastwatcher are three reports. A player wants one line per place: here every (hex, kind) of
the last :data:`CONTACT_TURNS` turns becomes one row with the latest time it was seen, the best
condition any observer reached and ONE estimate: the best report's words (issue 32: "about 3
ships / about 4 ships" side by side read as two fleets); other observers' differing estimates
of the same standing follow as "also reported". The row names the KINDS of observer that saw
it in its latest hour only ("aircraft, coastwatcher"; an older hour's observers are history),
never a name or an enemy id (seed 003, 7.12.2). All of it comes from
:func:`observation.reports.report_model` over the side's own knowledge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mailbot.games.flattop.observation.reports import report_model
from mailbot.games.flattop.quiet import run_length
from mailbot.games.flattop.state import FlatTopState, SideState

CONTACT_TURNS = 3  # contacts of the last three turns are shown; older ones are history
#: which observer's words stand for a contact when several of the same condition differ: the
#: closest look first (a search plane flies over the hex; a TF or radar sees from a distance)
OBSERVER_RANK = ("aircraft", "submarine", "task force", "base", "coastwatcher", "radar")


def newest_turn(state: FlatTopState) -> int:
    """The turn whose reports are the freshest a letter can hold (age 0).

    After an hour is resolved the state already stands at the next hour; during the hour's
    combat sub-steps (a strike, a surface battle) it still stands at the hour being fought.
    """
    in_combat = state.pending.battle is not None or state.pending.surface is not None
    return state.turn if in_combat else state.turn - 1


def merged_contacts(state: FlatTopState, own: SideState) -> list[dict[str, Any]]:
    """One row per (hex, kind) seen in the last turns, newest first (module docstring)."""
    shown = report_model(own.knowledge)["contacts"]
    # A letter after quiet hours (quiet.py) covers them all: their contacts are recent too.
    first = state.turn - CONTACT_TURNS - run_length(state)
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for contact in shown:
        if contact["turn"] >= first:
            groups.setdefault((contact["hex"], contact["kind"]), []).append(contact)
    rows = [_merge(state, seen) for seen in groups.values()]
    return sorted(rows, key=lambda c: (-c["turn"], c["hex"], c["kind"]))


def _merge(state: FlatTopState, seen: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    latest = max(c["turn"] for c in seen)
    best = max(c["condition"] for c in seen)
    best_turn = max(c["turn"] for c in seen if c["condition"] == best)
    # Two observers at the same condition may be told different things (each C2 total is its
    # own +/-50% draw): the closest look's words stand for the contact, the others are "also".
    equal = sorted((c for c in seen if c["condition"] == best and c["turn"] == best_turn), key=_rank)
    text = equal[0]["text"]
    also = {f"{c['text']} ({c['observer']})": None for c in equal[1:] if c["text"] != text}
    observers = sorted({c["observer"] for c in seen if c["turn"] == latest}, key=_rank_of)
    label = state.scenario.start.plus
    return {
        "hex": seen[0]["hex"],
        "kind": seen[0]["kind"],
        "turn": latest,
        "time": label(latest - 1).label,
        "age": max(newest_turn(state) - latest, 0),
        "condition": best,
        "text": text,
        "also": list(also),
        # The best report is older than the last sighting: say when it was made.
        "best_time": "" if best_turn == latest else label(best_turn - 1).label,
        "observers": observers,
        "observer": ", ".join(observers),
        "reports": len(seen),
    }


def _rank_of(observer: str) -> tuple[int, str]:
    return (OBSERVER_RANK.index(observer) if observer in OBSERVER_RANK else len(OBSERVER_RANK), observer)


def _rank(contact: Mapping[str, Any]) -> tuple[tuple[int, str], str]:
    return _rank_of(contact["observer"]), contact["text"]


def new_contacts_line(rows: Sequence[Mapping[str, Any]]) -> str:
    """The contacts first seen or seen again in the newest turn, in one line for "What changed"."""
    fresh = [f"{c['hex']} {c['kind']} (condition {c['condition']})" for c in rows if c["age"] == 0]
    if not fresh:
        return ""
    return f"Contacts this hour: {', '.join(fresh)}; details under Contacts below."
