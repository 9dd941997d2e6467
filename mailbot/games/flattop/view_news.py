# SPDX-License-Identifier: GPL-3.0-or-later
"""The head of a report: "What changed this hour" and "What you must decide".

What changed is the hour's events the seat may see (``Event.visible_to``), grouped so the
news that costs ships and planes comes first: combat and losses, the contacts of the hour
(from the side's own knowledge, ``view_contacts``), the air (launches, searches, flights,
landings), the ships, then the rest. Nothing else of the state is read.

What to decide names the step owed now in plain words: the hour's orders, the strike or
losses choice of a combat sub-step (seed 003, 15 LI 1 and 3), a surface battle's step (19),
or that nothing is owed. The deadline and the owing seats are the moderator's: the report
template reads them from ``due`` (``services.play.reports.due``) and puts them first, with
these lines; without it (a letter rendered outside the moderator) they point to "Now open".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mailbot.core.game import EVERYONE, Event
from mailbot.games.flattop.combat.battle import STRIKE
from mailbot.games.flattop.hour.surface_flow import DEFAULT_BHT
from mailbot.games.flattop.state import FlatTopState


def _kinds(words: str) -> frozenset[str]:
    return frozenset(f"ft.{word}" for word in words.split())


#: event kinds by group, in the order a player reads them; kinds not listed go to "Other news"
GROUPS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "Combat and losses",
        _kinds(
            "strike makeup rank sunk destroyed intercepted intercept surface surface-bht bombard"
            " sub-attack sub-combat sub-asw sub-overhead survivors rescue game-over fighters intercept-combat"
        ),
    ),
    (
        "Air",
        _kinds(
            "launch landed search flight flying rendezvous attack jettison ready unready shadowing"
            " shadow.result blind"
        ),
    ),
    ("Ships", _kinds("tf-moved wind fleet tow arrival sub-depth sub-dive sub-hold sub-reload")),
)
OTHER = "Other news"
CONTACTS = "Contacts"
#: told elsewhere in the letter: the initiative in the head line, the contacts by hex below
LEFT_OUT = frozenset({"ft.initiative", "ft.contacts"})

DEADLINE = 'Deadline: under "Now open" at the end of this letter.'
NOTHING = "Nothing is owed by your side in this step."
ORDERS = (
    "Your orders for {step}: edit the block from ORDERS to END near the end of this letter and"
    " reply with it. Silent: your TFs keep their plots, no new flights start."
)
STRIKE_CHOICE = (
    "Your attack (seed 003, 15): name the targets of the AFs that declared an attack above"
    " (TARGET lines, see the end of this letter). Silent: your standing PRIORITY picks them."
)
LOSSES_CHOICE = (
    "Enemy aircraft were destroyed where you attacked (15 LI 3): rank the types present"
    " (RANK lines, see the end of this letter). Silent: fighters first."
)
SURFACE_CHOICE = {
    "engage": "Enemy ships share a hex with yours (seed 003, 19): ENGAGE or AVOID, and place each ship"
    " (POSITION). Silent: your standing SURFACE order.",
    "bht": f"Send your secret BHT number 1-6, sealed (SEAL BHT <n>). Silent: {DEFAULT_BHT}.",
    "gunnery": "Gunnery: FIRE <your ship> AT <enemy number>. Silent: each ship fires at the biggest"
    " enemy ship she may.",
    "torpedo": "Torpedoes: TORPEDO <your ship> AT <enemy number>. Silent: each ship fires at the"
    " biggest enemy ship she may.",
    "breakthrough": "Breakthrough: FIRE <ship> AT <number>; the other side answers with its screen only."
    " Silent: the default fire.",
}


def changes(events: Sequence[Event], seat: str | None, contacts_line: Sequence[str]) -> list[dict[str, Any]]:
    """The seat's news of the hour as ``[{"title", "lines"}]``, in reading order (module docstring)."""
    # After quiet hours the events are several hours' (each titled "Turn 16 (2000, day 1): ..."), and
    # the head line gives only the last hour's initiative: every hour's is news then.
    hours = sum(1 for e in events if e.kind == "ft.initiative")
    left_out = LEFT_OUT if hours <= 1 else LEFT_OUT - {"ft.initiative"}
    told = [e for e in events if e.visible_to(seat) and e.kind not in left_out]
    groups: dict[str, list[str]] = {title: [] for title, _ in GROUPS}
    groups[CONTACTS] = [line for line in contacts_line if line]
    groups[OTHER] = []
    for event in told:
        title = next((t for t, kinds in GROUPS if event.kind in kinds), OTHER)
        text = _with_nil_fire(event)
        groups[title].append(text if seat is not None else _whose(event) + text)
    order = [GROUPS[0][0], CONTACTS, *(t for t, _ in GROUPS[1:]), OTHER]
    return [{"title": t, "lines": groups[t]} for t in order if groups[t]]


#: the head of the defender's account of an air strike and its AA line (hour/strike.py, strike_attack.py)
ENEMY_STRIKE, AA_LINE = "Enemy air strike at ", "Your AA shot down "
AA_NOTHING = "  Your AA shot down no planes"


def _with_nil_fire(event: Event) -> str:
    """A side is told when its fire scored nothing (issue 32). The strike's account names the
    defender's AA only when it downed a plane; the attacker hears "no hits seen", fighters "shot
    down none": the defender's AA that downed nothing gets its line here, from the account alone
    (the account is the rules' text; this adds no fact beyond "your AA got none")."""
    if event.kind == "ft.strike" and event.text.startswith(ENEMY_STRIKE) and AA_LINE not in event.text:
        return f"{event.text}\n{AA_NOTHING}"
    return event.text


def _whose(event: Event) -> str:
    """The referee reads both sides' news: say whose each line is ("allied: AF1 took off ...")."""
    if event.audience == EVERYONE:
        return ""
    return f"{', '.join(sorted(event.audience)) or 'referee only'}: "


def decision(state: FlatTopState, seat: str | None, step: str) -> dict[str, Any]:
    """What the seat must decide now: ``{"owed": bool, "lines": [...]}`` (module docstring)."""
    if state.score.finished:
        return {"owed": False, "lines": ["Nothing: the game is over."]}
    if seat is None:
        return {"owed": False, "lines": [f"Referee's copy. Now open: {step}; owed by {_owing(state)}."]}
    if state.pending.surface is not None:
        return _owed(SURFACE_CHOICE[state.pending.surface.phase])
    if state.pending.battle is not None:
        if seat not in state.pending.battle.choosers():
            return {"owed": False, "lines": [NOTHING]}
        return _owed(STRIKE_CHOICE if state.pending.battle.phase == STRIKE else LOSSES_CHOICE)
    return _owed(ORDERS.format(step=step))


def _owed(text: str) -> dict[str, Any]:
    return {"owed": True, "lines": [text, DEADLINE]}


def _owing(state: FlatTopState) -> str:
    if state.pending.battle is not None and state.pending.surface is None:
        return ", ".join(sorted(state.pending.battle.choosers()))
    return ", ".join(state.seats)
