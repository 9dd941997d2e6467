# SPDX-License-Identifier: GPL-3.0-or-later
"""The report model for one side (or the referee), for ``mailbot/games/flattop/templates/report.*.j2``.

A side's model is built from its own units, its own knowledge, the public
board (clouds and winds are on the map for both players, standard 6) and the
events addressed to it: nothing else of the state is read, so nothing else
can leak (seed 003, 7.12.2: reports never name enemy units). Contacts come
from :func:`observation.reports.report_model` over the side's knowledge: hex, kind,
condition, turn and the KIND of observer, never a name or an enemy id.

The letter reads what matters first: ``changes`` (what changed this hour) and
``decide`` (what the side must decide now) from :mod:`view_news`; the side's
weather summarised near its own units (:mod:`view_weather`, the full lists in
the letter's appendix); contacts merged per hex (:mod:`view_contacts`); and
``map``, the side's map of the hour for the map drawer (:mod:`view_map`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from mailbot.core.game import Event
from mailbot.games.flattop.combat.battle import STRIKE
from mailbot.games.flattop.combat.surface import disclosure
from mailbot.games.flattop.hour import surface_flow
from mailbot.games.flattop.hour.air_ops import mf
from mailbot.games.flattop.map.movement import range_left, tf_allowance
from mailbot.games.flattop.orders.checks import base_word
from mailbot.games.flattop.orders.decks import deck_open, grounded, sum_boxes
from mailbot.games.flattop.orders.subs import HELP as SUB_HELP
from mailbot.games.flattop.orders.types import Plot, normalise
from mailbot.games.flattop.quiet import quiet_turn, run_length
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import AirBoxes, AirFactors, AirFormation, Base, Side, TaskForce
from mailbot.games.flattop.victory import HIDDEN_NOTE, totals, visible
from mailbot.games.flattop.view_contacts import CONTACT_TURNS, merged_contacts, new_contacts_line
from mailbot.games.flattop.view_map import build_map
from mailbot.games.flattop.view_news import changes, decision
from mailbot.games.flattop.view_weather import weather_view

__all__ = ["CONTACT_TURNS", "build_view", "order_help", "step_title", "template_lines"]
#: a hex id as a letter writes it (``VII-F28``): what the map must label wherever a letter names one
HEX_WORD = re.compile(r"\b[IVX]+-[A-Z]{1,2}\d+\b")
#: The whole order grammar: in the first letter, in HELP, and when a letter asks for it (issue 32:
#: repeated every hour it buried the news). One order or option group a line, the indented ones
#: within 72 columns, so the text part never wraps them (a wrapped two-column layout was
#: unreadable); a test holds every grammar block to it.
SYNTAX = (
    "Orders, one per line (any case; # starts a comment):",
    "  PLOT TF1 <hex> <hex> [/ <next turn's hexes> ...]   or   PLOT TF1 HOLD",
    "  SEARCH AF3 FROM <TF or base> <n> <plane>",
    "      [GP|AP|TORPEDO|UNARMED] [MIN|NORMAL|MAX]",
    "      [AND <n> <plane> [load] ...]   (more types: fighters escort)",
    "      PATH <hex>[@HIGH|@LOW][+extra MP] ...",
    "      [IF SHIPS|PLANES CLOSE <condition> [BACK <range>]",
    "        | ATTACK [HIGH|LOW] | CONTINUE]",
    "      [JOIN AF2] [RETURN <TF or base>]",
    "      (leave out FROM for an AF already aloft)",
    "  FLY AF4 [FROM ...] [PATH <hex> ...]",
    "      [RENDEZVOUS <last path hex> WITH AF3] [ATTACK]",
    "      [RETURN <TF or base>]",
    "      (ATTACK: armed AFs attack where the path ends, fighters sweep)",
    "      (RENDEZVOUS: AF4 follows AF3 from there; if it keeps up they",
    "       are one AF, its fighters escorting)",
    "  READY <TF or base> <n> <plane> [GP|AP|TORPEDO]",
    "  UNREADY <TF or base> <n> <plane> [load]",
    "  LAND AF3 <TF or base>",
    "  Off-board bases: FROM <base> ... VIA <entry hex>",
    "      and LAND AF3 <base> [VIA <entry hex>]     (entry hexes 1A ...)",
    "  SHADOW AF3|TF2 <contact hex>",
    "  INTERCEPT AF5                (unarmed fighters)",
    "  JETTISON AF4                 (drop bombs before landing, 14.14)",
    "  DECEPTION TRUTHFUL|RANDOM|MAXIMAL",
    "  HOLD",
    "  PRIORITY CV CVL BB ...       (standing target priority)",
    "  RANK Zero Val ...            (enemy planes to destroy first)",
    "  SPLIT TF1 <ship> ... AS TF5  MERGE TF5 INTO TF1",
    "  ANCHOR TF7   WEIGH TF7   UNLOAD TF7",
    "  LOAD TF7                     (take cargo aboard again at your base)",
    "  SCUTTLE <ship>",
    "  RESCUE TF3                   (pick up survivors)",
    "  DISEMBARK TF3                (put them ashore at your base in the hex)",
    "  TOW <ship> <ship>   CASTOFF <ship>   SURFACE ENGAGE|AVOID",
    "  BOMBARD TF9                  (shell the enemy base in its hex)",
    "  OFFLOAD <cripple> TO <ship>",
    "  CAPDIVE YES|NO               (CAP dives at low strikes, 16.12)",
    "  ESCORTS Zero ...             (what escorts shoot first)",
    "  WAKE 0300 0500 | WAKE ALL | WAKE NONE",
    "      (letters in night hours otherwise played without mail)",
    "Silent sides keep their plots and start no new flights.",
)
#: Seed 003: "OPTIONAL RULES AUTOMATICALLY USED: Critical Hits (with changes above); Expanded Plane
#: Functions (#'s 1, 2, 5, 6 and 7 only); Expanded Ship Functions (All except 1 & 4. The latter is
#: replaced by our "attacking screening ships" rule.)" What of them is played, in the rules help.
OPTIONAL_RULES = (
    "  Critical Hits (seed 003, 21.8): played; their table is a",
    "    design default (damage.toml).",
    "  Expanded Ship Function 4: replaced by seed 003's attacking",
    "    screening ships (LI 2), which is played.",
    "  Expanded Ship Function 7 (named in seed 003, 27.9.2): a ship",
    "    that ended the hour anchored at a friendly harbour (a base",
    "    handling sea planes) takes aboard her ammunition, torpedoes",
    "    and a DD's or APD's two firings (19.8) again; a design",
    "    default (supply.toml), as the rule's text was not found.",
    "  Expanded Plane Functions 1, 2, 5, 6, 7 and Expanded Ship",
    "    Functions 2, 3, 5, 6 (and any after 7) are not played: their",
    "    text was not found (the collection that holds them survives",
    "    only as a list of titles). Of the plane functions only seed",
    "    003's change to the Air Modifier Chart is played.",
)


def rules_help(state: FlatTopState) -> list[str]:
    """The rules in force beyond the grammar: the game's options and seed 003's optional rules."""
    if state.options.launch_wind == "variant":
        wind = (
            "  6.10 (game option launch_wind): variant: past its Minimum LF",
            "    a carrier TF moves only 0 or 1 hex, and that hex into the wind.",
        )
    else:
        wind = (
            "  6.10 (game option launch_wind): standard: past its Minimum LF",
            "    a carrier TF turns one hex into the wind.",
        )
    return ["Rules in play beyond the grammar:", *wind, *OPTIONAL_RULES]


#: what an hour's letter says instead of the grammar after the first one
GRAMMAR_POINTER = (
    "Every order and its options: your first letter, or send HELP (in a reply to this letter).",
)
STRIKE_SYNTAX = (
    "Your attack (seed 003, 15): name targets by the labels in the precise makeup above.",
    "  TARGET AF3 A-CV1          every armed factor of AF3 at CV1 of TF A",
    "  TARGET AF3 A-CV1 4 Dauntless DIVE",
    "                            some factors; DIVE, LEVEL or TORPEDO",
    "                            (else the usual attack)",
    "  TARGET AF9 BASE           the enemy base in the hex",
    "  FIRST AF5 AF3             the order the AFs attack in (18.2.1)",
    "  NOATTACK AF3              no attack: AF3 keeps its load",
    "  PRIORITY CV CVL BB        the rest by these types",
    "Silent: your standing PRIORITY (default CV CVL BB CA CAV AV CL AP AO APD DD PG) picks the",
    "first such ship in the hex for every armed factor; with no ship there, the base.",
)
SURFACE_SYNTAX = {
    "engage": (
        "Enemy ships share a hex with yours (seed 003, 19): ENGAGE or AVOID, and each ship's group:",
        "  POSITION <ship> GUNNERY|TORPEDO|SCREEN",
        "                            (crippled and anchored ships screen)",
        "Silent: your standing SURFACE order (ENGAGE unless you sent SURFACE AVOID); BB, CA, CAV, CL,",
        "DD and APD in the gunnery line, the rest screened.",
    ),
    "bht": (
        'Send your secret BHT number 1-6 sealed: SEAL BHT 4, or a letter headed "Surface BHT number"',
        "with the number as its body (the enemy sees only that it arrived; both are opened when both",
        "are in; the round's BHT is their sum). Silent: 3.",
    ),
    "gunnery": (
        "Gunnery (seed 003, 19: a ship never splits her fire): FIRE <your ship> AT <enemy number>,",
        "  e.g. FIRE Astoria AT BB#2",
        "Ships without a line fire at the biggest enemy ship they may.",
    ),
    "torpedo": (
        "Torpedoes: TORPEDO <your ship> AT <enemy number>, e.g. TORPEDO Hammann AT CA#1.",
        "Ships without a line fire at the biggest enemy ship they may.",
    ),
    "breakthrough": (
        "Breakthrough (3:1): FIRE <ship> AT <number> as in the gunnery round; the other side answers",
        "with its screen only. Ships without a line fire by the default.",
    ),
}
LOSSES_SYNTAX = (
    "Enemy aircraft were destroyed where you attacked (seed 003, 15 LI 3): rank the types present",
    "in the order you want them destroyed:",
    "  RANK A-CV1 Zero Val Kate  for one place",
    "  RANK Zero Val Kate        for all",
    "Silent: fighters first (the types with the best air-to-air rating).",
)


TEXT_WIDTH = 72  # the text part's width (issue 18; render.templates.wrap72)
CHANGED = "What changed this hour"
# A letter after hours played without mail (quiet.py) tells them all.
CHANGED_AFTER_QUIET = "What changed since your last letter (with the hours played without mail)"
QUIET_NOTE = (
    "Night: the hours after this one may be played without mail on standing orders (TFs follow"
    " their PLOTs, AFs aloft fly home and land), until dawn or the game's limit of quiet hours."
    " WAKE 0300 asks for letters at 0300 (both sides get one, and are told a side asked)."
)


def step_title(state: FlatTopState) -> str:
    t = state.time
    title = f"Turn {state.turn} ({t.hour:02d}00, day {t.day})"
    if state.pending.surface is not None:
        return f"{title}: surface battle ({state.pending.surface.phase})"
    if state.pending.battle is not None:
        # Seen by every seat: only "a combat choice", never whose or where.
        return (
            f"{title}: combat choice" if state.pending.battle.phase == STRIKE else f"{title}: aircraft losses"
        )
    return title


#: a surface battle's sub-step in a subject: a word a mail index shows in full after the tag and
#: the hour (``surface breakthrough`` put what is due past the 40th character); the letter's own
#: text names the step in full
SURFACE_BRIEF = {
    "engage": "engage",
    "bht": "BHT seal",
    "gunnery": "gunnery",
    "torpedo": "torpedoes",
    "breakthrough": "breakthru",
}


def brief(state: FlatTopState) -> str:
    """The hour in a few characters, for the subject of a letter (``reports.subject``):
    ``T4 0800 D1``, and the sub-step when one is open (``T4 0800 D1 strike``)."""
    t = state.time
    hour = f"T{state.turn} {t.hour:02d}00 D{t.day}"
    if state.score.finished:
        return hour
    if state.pending.surface is not None:
        return f"{hour} {SURFACE_BRIEF.get(state.pending.surface.phase, state.pending.surface.phase)}"
    if state.pending.battle is not None:
        return f"{hour} {'strike' if state.pending.battle.phase == STRIKE else 'losses'}"
    return hour


def stacks_text(stacks: Sequence[AirFactors]) -> str:
    counts: Counter[tuple[str, str]] = Counter()
    for s in stacks:
        counts[s.plane, f" ({s.armament.value})" if s.armament else ""] += s.count
    return ", ".join(f"{n} {plane}{arm}" for (plane, arm), n in counts.items())


def boxes_text(boxes: AirBoxes) -> str:
    named = (("just landed", boxes.just_landed), ("readying", boxes.readying), ("ready", boxes.ready))
    parts = [f"{name}: {stacks_text(stacks)}" for name, stacks in named if stacks]
    return "; ".join(parts) or "no planes"


def _tf(state: FlatTopState, tf: TaskForce) -> dict[str, Any]:
    name = state.scenario.map.hex_id
    plot = normalise(state.scenario.map, Plot(tf.number, tf.plot)).split(" ", 2)[2]
    ships = [{"name": s.name, "type": s.type.value, "hits": s.hits, "damage": s.damage} for s in tf.afloat]
    flying = [s for s in tf.plane_ships if deck_open(s, state.turn)]  # 21.2.3: planes fly from these
    return {
        "name": f"TF{tf.number}",
        "hex": name(tf.hex),
        "speed": tf_allowance(tf, state.time, state.rules.movement, turn=state.turn),
        "plot": plot,
        "ships": ships,
        "air": boxes_text(sum_boxes(s.boxes for s in flying)) if flying else "",
        "grounded": "; ".join(
            f"{s.name} ({'flight deck hit' if grounded(s, state.turn) else 'LF 0'}): {boxes_text(s.boxes)}"
            for s in tf.plane_ships
            if not deck_open(s, state.turn) and s.boxes.total
        ),
    }


def _base(state: FlatTopState, base: Base) -> dict[str, Any]:
    where = state.scenario.map.hex_id(base.hex) if base.hex else f"off board (entry {', '.join(base.entry)})"
    return {"name": base.name, "hex": where, "air": boxes_text(base.boxes)}


def _af(state: FlatTopState, af: AirFormation) -> dict[str, Any]:
    return {
        "name": f"AF{af.number}",
        "hex": state.scenario.map.hex_id(af.hex) if af.hex else "off the map",
        "altitude": af.stacks[0].altitude.value if af.stacks else "",
        "planes": stacks_text(af.stacks),
        "mf": mf(state, af),
        "range_left": range_left(af, state.rules.planes, state.scenario.start, state.time),
        "origin": af.origin,
        "searching": af.searching,
    }


def _forces(state: FlatTopState, side: Side) -> dict[str, Any]:
    own = state.side(side)
    return {
        "side": side.value,
        "deception": own.deception.value,
        "task_forces": [_tf(state, tf) for tf in state.own_tfs(side)],
        "bases": [_base(state, b) for b in state.own_bases(side)],
        "air": [_af(state, af) for af in state.own_air(side)],
        "contacts": merged_contacts(state, own),
    }


def _initiative(state: FlatTopState) -> str:
    note = state.last_initiative
    if note is None:
        return ""
    tie = " (tie)" if note.tie else ""
    return f"{note.winner.value} (Allied {note.allied}, Japanese {note.japanese}){tie}"


def build_view(
    title: str, state: FlatTopState, events: Sequence[Event], seat: str | None, help_lines: Sequence[str]
) -> Mapping[str, Any]:
    # At the end every seat gets the referee's full picture of both sides (issue 16's victory report).
    sides = [s.side for s in state.sides if seat is None or state.score.finished or s.side.value == seat]
    forces = [_forces(state, side) for side in sides]
    contacts = [c for f in forces for c in f["contacts"]]
    step = "" if state.score.finished else step_title(state)
    fresh = [_side_prefix(f, len(forces), new_contacts_line(f["contacts"])) for f in forces]
    weather = weather_view(state, sides)
    # Hexes the letter names besides units, contacts and paths: the map labels them too (issue 32).
    plots = [tf["plot"] for f in forces for tf in f["task_forces"]]
    news = changes(events, seat, [line for line in fresh if line])
    told = [e.text for e in events if e.visible_to(seat)]
    lines = [*plots, *weather["summary"], *(line for part in news for line in part["lines"]), *told]
    named = [word for line in lines for word in HEX_WORD.findall(str(line))]
    return {
        "title": title,
        "brief": brief(state),
        "scenario": state.scenario.title,
        # The label once: a title may say "approximate map" itself (coral-sea-demo.toml).
        "approximate": state.scenario.approximate and "approximate" not in state.scenario.title.lower(),
        "seat": seat or "referee",
        "referee": seat is None,
        "turn": state.turn,
        "time": state.time.label,
        "step": step,
        "finished": state.score.finished,
        "result": state.score.result,
        "changes": news,
        "changes_title": CHANGED_AFTER_QUIET if run_length(state) and not _in_combat(state) else CHANGED,
        "decide": decision(state, seat, step),
        "weather": weather,
        "initiative": _initiative(state),
        "happened": told,  # as told, in order (raw)
        "forces": forces,
        "vp": _victory(state, seat),
        "revealed": state.score.finished and seat is not None,
        "crt": state.options.crt,
        "help": list(help_lines)
        if _first_hour(state) or seat is None
        else order_help(state, seat, full=False),
        # The hour's order template belongs to the hour's letter, not to a combat sub-step's.
        "template": []
        if seat is None or state.score.finished or _in_combat(state)
        else template_lines(state, Side(seat)),
        "map": build_map(state, events, seat, sides, contacts, also=named),
    }


def _side_prefix(force: Mapping[str, Any], shown: int, line: str) -> str:
    """The referee's and the final letters show both sides: say whose contacts a line lists."""
    return f"{force['side']}: {line}" if shown > 1 and line else line


def _victory(state: FlatTopState, seat: str | None) -> dict[str, Any]:
    """The ledger as this seat may read it (``victory.visible``); totals only at the end. The
    referee reads every entry whole, with its cause: the ledger the archive keeps."""
    if seat is None:
        lines = [
            _vp_line(e.turn, e.side, e.points, f"{e.reason}{_cause(e.cause)}", e.default)
            for e in state.score.ledger
        ]
    else:
        lines = [
            _vp_line(line.turn, line.side, line.points, line.text, line.default)
            for line in visible(state.score.ledger, Side(seat), game_over=state.score.finished)
        ]
    unique = list({(x["turn"], x["side"], x["points"], x["text"]): x for x in lines}.values())
    scores = totals(state.score.ledger) if state.score.finished or seat is None else {}
    return {"lines": unique, "totals": {k.value: v for k, v in scores.items()}, "hidden": HIDDEN_NOTE}


def _cause(cause: str) -> str:
    return f" [{cause}]" if cause else ""


def _vp_line(turn: int, side: Side, points: int, text: str, default: bool) -> dict[str, Any]:
    return {"turn": turn, "side": side.value, "points": points, "text": text, "default": default}


def _enemy_numbers(state: FlatTopState, side: Side) -> list[str]:
    """In a fire step, the enemy's ships as the side was told them (19: type, number, group, damage)."""
    fight = state.pending.surface
    if fight is None or fight.phase in ("engage", "bht"):
        return []
    enemy = surface_flow.engagement(state, fight).enemy(side)
    return ["Enemy ships: " + "; ".join(disclosure(enemy, turn=state.turn))]


def _first_hour(state: FlatTopState) -> bool:
    """The opening letter's hour: its letter carries the whole order grammar (issue 32)."""
    return state.turn == 1 and not _in_combat(state)


def _in_combat(state: FlatTopState) -> bool:
    return state.pending.battle is not None or state.pending.surface is not None


def template_lines(state: FlatTopState, side: Side) -> list[str]:
    """A pre-filled order block: live lines for plots and policy, commented examples for flights."""
    own = state.side(side)
    lines = [f"DECEPTION {own.deception.value.upper()}"]
    lines += [normalise(state.scenario.map, Plot(tf.number, tf.plot)) for tf in state.own_tfs(side)]
    lines += [f"# LAND AF{af.number} {af.origin}" for af in state.own_air(side)]
    armed = (af for af in state.own_air(side) if af.hex and any(s.armament for s in af.stacks))
    lines += [f"# JETTISON AF{af.number}" for af in armed]
    free = (n for n in range(1, 36) if n not in {af.number for af in state.own_air(side)})
    for place, boxes in _places(state, side):
        if boxes.ready:
            lines.append(_search_example(next(free, 35), place, boxes.ready[0].plane))
        if boxes.readying:
            lines.append(f"# READY {place} {boxes.readying[0].count} {boxes.readying[0].plane}")
    return lines


def _search_example(number: int, place: str, plane: str) -> str:
    """A commented SEARCH line that fits 72 columns: the ORDERS block is mailed unwrapped (a
    wrapped order would not parse), so a long place or plane name shortens the example."""
    head = f"# SEARCH AF{number} FROM {place} 1 {plane} PATH"
    tails = (f"<hex> <hex> ... RETURN {place}", f"<hex> ... RETURN {place}", "<hex> <hex> ...")
    return next((f"{head} {t}" for t in tails if len(head) + 1 + len(t) <= TEXT_WIDTH), f"{head} <hex>")


def _places(state: FlatTopState, side: Side) -> list[tuple[str, AirBoxes]]:
    tfs = [
        (f"TF{t.number}", sum_boxes(s.boxes for s in t.plane_ships if deck_open(s, state.turn)))
        for t in state.own_tfs(side)
        if t.plane_ships
    ]
    bases = [(base_word(b), b.boxes) for b in state.own_bases(side) if b.hex is not None and b.launch_min]
    return tfs + bases


def order_help(state: FlatTopState, seat: str, *, full: bool = True) -> list[str]:
    """What to send now: the whole grammar (HELP, the first letter) or, with ``full`` False (the
    later hours' letters), a one-line pointer to it; then the hour's pre-filled order block."""
    side = next((s.side for s in state.sides if s.side.value == seat), None)
    if side is None or state.score.finished:
        return list(SYNTAX)
    if state.pending.surface is not None:
        return list(SURFACE_SYNTAX[state.pending.surface.phase]) + _enemy_numbers(state, side)
    if state.pending.battle is not None:
        if seat not in state.pending.battle.choosers():
            return ["Nothing is owed by your side in this step."]
        return list(STRIKE_SYNTAX if state.pending.battle.phase == STRIKE else LOSSES_SYNTAX)
    night = [QUIET_NOTE] if quiet_turn(state, state.turn + 1) else []
    subs = list(SUB_HELP) if state.options.submarines else []
    return [
        *(SYNTAX if full else GRAMMAR_POINTER),
        *(subs if full else ()),
        *(rules_help(state) if full else ()),
        *night,
        "",
        f"Your orders for {step_title(state)} (edit and send back):",
        *template_lines(state, side),
    ]
