# SPDX-License-Identifier: GPL-3.0-or-later
"""Reading a side's order lines for one game turn (flattop-reference PART D, simplified).

Lenient in what is read (any case, ``F.T.``-free abbreviations such as ``SRCH``,
``RDY``, commas and colons ignored, ``#`` starts a comment), exact in what is
echoed. The normalised forms::

    PLOT TF1 VI-M35 VI-L35 / HOLD / VI-K34  this turn's hexes, later turns after '/'
    PLOT TF1 HOLD                           stay put (clears any plot)
    SEARCH AF3 FROM TF1 2 Dauntless PATH VI-M35 VI-L34@HIGH VI-L33+1 [IF ...] [JOIN AF2] [RETURN TF1]
    SEARCH AF3 PATH VI-K30 VI-K29           an AF already aloft searches on
    FLY AF4 FROM TF1 6 Devastator TORPEDO NORMAL PATH VI-M35 VI-L34 RENDEZVOUS VI-L34 WITH AF3
                                            non-search movement; PATH may be left out (stay)
    FLY AF5 FROM TF1 6 Dauntless AP AND 4 Wildcat PATH VI-M35 ATTACK
                                            a mixed AF: the Wildcats escort the Dauntless
    READY TF1 4 Devastator TORPEDO          Readying box -> Ready box, arming (GP, AP, TORPEDO)
    UNREADY TF1 2 Dauntless GP              Ready box -> Readying box (to change a load)
    LAND AF3 TF1                            fly toward the base or TF and land when there
    LAND AF3 Australia VIA 1A               an off-board base: leave by that entry hex (A.3)
    SHADOW AF3 VI-K30                       shadow the ships contact seen last turn in that hex
    SHADOW TF2 VI-K30                       a TF (or submarine TF) shadows it: within 1 hex (sub: 0)
    INTERCEPT AF5                           try to intercept an enemy AF moving through AF5's hex
    JETTISON AF4                            drop bombs/torpedoes at the end of the move (14.14)
    DECEPTION TRUTHFUL|RANDOM|MAXIMAL       standing policy for reports the enemy gets of you
    PRIORITY CV CVL BB                      standing target priority: answers strike choices ahead
    RANK Zero Val Kate                      standing order of enemy plane types to destroy (15 LI 3)
    SPLIT TF1 Astoria Hammann AS TF5        task-force orders (``orders.fleet``): SPLIT, MERGE TF5
    ANCHOR TF7 / WEIGH TF7 / UNLOAD TF7     INTO TF1, anchoring and unloading transports,
    SCUTTLE Astoria                         scuttling (the enemy scores her as sunk)
    DEPTH TF12 DEEP / SUBATTACK TF12 3      submarines, with the game option on (``orders.subs``):
    ASW TF3 / DIVE TF12 DEEP                depth, torpedo attack, ASW attack, dive when attacked
    HOLD                                    nothing this turn
    WAKE 0300 0500 / WAKE ALL / WAKE NONE   letters in night hours played without mail (orders.wake)

Search paths (seed 003, 7 and 7.3): the hexes entered, each next to the one
before; ``@HIGH``/``@LOW`` changes altitude on entering (climbing costs 1 MP,
14.11), ``+n`` spends n more MP there for n more search rolls.

Launches (reference A.5.4, standard 14.8): ``FROM <base or TF> <n> <plane>``
takes Ready factors, then optionally their load (``GP``, ``AP``, ``TORPEDO``,
``UNARMED``; needed only when the Ready box holds that plane with several
loads); ``AND <n> <plane> [load]`` adds other plane names to the same AF (a
mixed AF: bombers with fighters, which are its escorts, reference A.6), and
the launch type: ``MIN`` (the default: full MF on the take-off
turn, up to the minimum LF), ``NORMAL`` (half MF, up to the normal LF) or
``MAX`` (no movement, up to twice the normal LF); last, for an off-board base,
``VIA <entry hex>``: the entry hex its planes appear in (reference A.3; by
default its first). All launches from one base
or TF in a turn share one type and its LF; launching, readying and unreadying
share the Readying Factor. Planes take off Low.
Reactions (7, "General Rule"), on what this searcher itself finds::

    IF SHIPS CLOSE 2 [BACK 2]   close until Condition 2, then back off to range 2
    IF SHIPS ATTACK [HIGH|LOW]  armed AFs only: the attack is declared and recorded
    IF PLANES CONTINUE          keep to the path (SIGHTED is read as SHIPS)

``JOIN AF2``: 7's join rule (join AF2 if it is found attacking a TF).
``ATTACK`` (FLY only): an armed AF attacks what is in the hex where its path ends
(seed 003, 15: the side then gets the precise makeup and chooses targets).
``RETURN TF1``: after the path, fly toward TF1 or a base with the MP left and land.
``RENDEZVOUS <hex> WITH AF3`` (FLY only): 7's rendezvous: the hex is where the
FLY path ends; from there the AF conforms to AF3's movement for the rest of
the move (AF3 searching in the same letter, flying in it, or aloft), and if
it keeps up to AF3's last hex the two become one AF: fighters that join a
strike are its escorts (``air.merge``). ``JOIN AF2`` merges the same way when
the searcher finds AF2 attacking. Other FLY orders move before every search.

A refusal says only what the side itself knows: an order naming a unit the
side does not have, or a hex not on the map, gets the same reason whatever
the enemy has. Orders that cannot be parsed cost nothing: no default orders
replace them (a silent side keeps its plots and starts no new flights).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

from mailbot.core.game import Accepted, Line, Parsed, Problem, ProblemKind
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.observation.search import Action, Leg, Reaction
from mailbot.games.flattop.orders import fleet, subs
from mailbot.games.flattop.orders.air_checks import (
    check_intercept,
    check_jettison,
    check_ready,
    check_shadow,
    check_unready,
)
from mailbot.games.flattop.orders.checks import (
    OrderError,
    Own,
    check_flight,
    check_fly,
    check_land,
    check_launch,
    check_plot,
    tokens,
)
from mailbot.games.flattop.orders.combat import read_priority, read_rank
from mailbot.games.flattop.orders.types import (
    UNARMED,
    AirPolicy,
    Engage,
    Fly,
    FtOrder,
    Hold,
    Intercept,
    Jettison,
    Land,
    Launch,
    Load,
    Plot,
    Priority,
    Rank,
    Ready,
    Search,
    SetDeception,
    Shadow,
    Unready,
    normalise,
)
from mailbot.games.flattop.orders.wake import read_wake
from mailbot.games.flattop.units import Altitude, Armament, LaunchType

__all__ = ["Own", "parse_lines"]

WORDS = {
    "PLOT": "PLOT", "MOVE": "PLOT",
    "SEARCH": "SEARCH", "SRCH": "SEARCH",
    "FLY": "FLY", "MOVE-AF": "FLY",
    "READY": "READY", "RDY": "READY", "ARM": "READY",
    "UNREADY": "UNREADY", "UNRDY": "UNREADY",
    "LAND": "LAND",
    "SHADOW": "SHADOW", "SHAD": "SHADOW",
    "INTERCEPT": "INTERCEPT", "INT": "INTERCEPT",
    "JETTISON": "JETTISON", "JETT": "JETTISON",
    "DECEPTION": "DECEPTION", "DECEIVE": "DECEPTION", "DEC": "DECEPTION",
    "HOLD": "HOLD", "PASS": "HOLD",
    "PRIORITY": "PRIORITY", "PRIO": "PRIORITY",
    "RANK": "RANK", "SURFACE": "SURFACE",
    "SPLIT": "SPLIT", "DETACH": "SPLIT", "MERGE": "MERGE", "JOIN-TF": "MERGE",
    "ANCHOR": "ANCHOR", "WEIGH": "WEIGH", "UNLOAD": "UNLOAD", "RESCUE": "RESCUE",
    "TOW": "TOW", "CASTOFF": "CASTOFF", "BOMBARD": "BOMBARD", "OFFLOAD": "OFFLOAD",
    "DISEMBARK": "DISEMBARK", "LOAD": "LOAD", "SCUTTLE": "SCUTTLE", "SCUTTLES": "SCUTTLE",
    "CAPDIVE": "CAPDIVE", "ESCORTS": "ESCORTS",
    "DEPTH": "DEPTH", "SUBATTACK": "SUBATTACK", "SUB-ATTACK": "SUBATTACK", "ASW": "ASW", "DIVE": "DIVE",
    "WAKE": "WAKE",
}  # fmt: skip
POLICIES = {"TRUTHFUL": Deception.TRUTHFUL, "TRUE": Deception.TRUTHFUL, "RANDOM": Deception.RANDOM}
POLICIES |= {"MAXIMAL": Deception.MAXIMAL, "MAX": Deception.MAXIMAL}
_UNIT = re.compile(r"^(TF|AF)-?(\d{1,2})$")
_LEG = re.compile(r"^(.+?)(?:@(HIGH|LOW|H|L))?(?:\+(\d))?$")
_ALTITUDES = {"HIGH": Altitude.HIGH, "H": Altitude.HIGH, "LOW": Altitude.LOW, "L": Altitude.LOW}
ARMS = {"GP": Armament.GP, "AP": Armament.AP, "TORPEDO": Armament.TORPEDO, "TORP": Armament.TORPEDO}
LOADS: dict[str, Load] = {**ARMS, "UNARMED": UNARMED, "NONE": UNARMED}
KINDS = {"MIN": LaunchType.MINIMUM, "MINIMUM": LaunchType.MINIMUM, "NORMAL": LaunchType.NORMAL}
KINDS |= {"MAX": LaunchType.MAXIMUM, "MAXIMUM": LaunchType.MAXIMUM}


def unit_number(word: str, kind: str) -> int:
    match = _UNIT.match(word)
    if match is None or match[1] != kind:
        raise OrderError(ProblemKind.INVALID, f"{word!r} is not a {kind} designation like {kind}1")
    return int(match[2])


def place_name(word: str) -> str:
    """A base or TF as written: ``TF1`` or a base name (spaces written as hyphens)."""
    match = _UNIT.match(word)
    return f"TF{int(match[2])}" if match and match[1] == "TF" else word


def count_of(word: str) -> int:
    if not word.isdigit() or not 1 <= int(word) <= 99:
        raise OrderError(ProblemKind.INVALID, f"{word!r} is not a number of air factors (1-99)")
    return int(word)


# --- one line per order word ---------------------------------------------------


def _plot(own: Own, words: list[str]) -> Plot:
    if not words:
        raise OrderError(ProblemKind.INVALID, "PLOT needs a TF and hexes, e.g. PLOT TF1 VI-M35 VI-L35")
    number = unit_number(words[0], "TF")
    rest = words[1:]
    if rest in ([], ["HOLD"]):
        return check_plot(own, Plot(number, ()))
    legs: list[tuple[Hex, ...]] = [()]
    for word in rest:
        if word == "/":
            legs.append(())
        elif word != "HOLD":  # HOLD stands for an empty leg: stay put that turn
            legs[-1] = (*legs[-1], own.hex(word))
    return check_plot(own, Plot(number, tuple(legs)))


def _launch(own: Own, number: int, rest: list[str]) -> tuple[Launch | None, list[str]]:
    """``FROM <place> <n> <plane> [load] [MIN|NORMAL|MAX]`` if the words start with FROM."""
    if not rest or rest[0] != "FROM":
        return None, rest
    if len(rest) < 4:
        raise OrderError(ProblemKind.INVALID, "FROM needs a base or TF, a number and a plane type")
    launch, rest = Launch(place_name(rest[1]), count_of(rest[2]), rest[3]), rest[4:]
    if rest and rest[0] in LOADS:
        launch, rest = replace(launch, load=LOADS[rest[0]]), rest[1:]
    if rest and rest[0] in KINDS:
        launch, rest = replace(launch, kind=KINDS[rest[0]]), rest[1:]
    while rest and rest[0] == "AND":  # a mixed AF: more plane names (reference A.5.3, A.6)
        if len(rest) < 3:
            raise OrderError(ProblemKind.INVALID, "AND needs a number and a plane type, e.g. AND 4 Wildcat")
        part, rest = Launch(launch.place, count_of(rest[1]), rest[2]), rest[3:]
        if rest and rest[0] in LOADS:
            part, rest = replace(part, load=LOADS[rest[0]]), rest[1:]
        if rest and rest[0] in KINDS:
            launch, rest = replace(launch, kind=KINDS[rest[0]]), rest[1:]
        launch = replace(launch, more=(*launch.more, part))
    if len(rest) >= 2 and rest[0] == "VIA":  # an off-board base's entry hex (reference A.3)
        launch, rest = replace(launch, via=rest[1]), rest[2:]
    return check_launch(own, number, launch), rest


def _search(own: Own, words: list[str]) -> Search:
    if len(words) < 3:
        raise OrderError(ProblemKind.INVALID, "SEARCH needs an AF and a PATH, e.g. SEARCH AF3 PATH VI-M35")
    number = unit_number(words[0], "AF")
    launch, rest = _launch(own, number, words[1:])
    if not rest or rest[0] != "PATH":
        raise OrderError(ProblemKind.INVALID, "SEARCH needs PATH followed by the hexes entered")
    legs, clauses = _split_clauses(rest[1:])
    order = Search(number, launch, tuple(_leg(own, w) for w in legs), *_clauses(clauses))
    return check_flight(own, order)


_CLAUSE_WORDS = ("IF", "JOIN", "RETURN")
_FLY_HELP = (
    "FLY reads FLY <AF> [FROM ...] [PATH <hexes>] [RENDEZVOUS <hex> WITH <AF>] [ATTACK] [RETURN <base or TF>]"
)


def _fly(own: Own, words: list[str]) -> Fly:
    if not words:
        raise OrderError(ProblemKind.INVALID, _FLY_HELP)
    number = unit_number(words[0], "AF")
    launch, rest = _launch(own, number, words[1:])
    parts: dict[str, list[str]] = {}
    for word in rest:
        if word in ("PATH", "RENDEZVOUS", "RETURN", "ATTACK"):
            if word in parts:
                raise OrderError(ProblemKind.INVALID, f"{word} appears twice: {_FLY_HELP}")
            parts[word] = []
        elif not parts:
            raise OrderError(ProblemKind.INVALID, f"{word!r} is out of place: {_FLY_HELP}")
        else:
            parts[list(parts)[-1]].append(word)
    legs = tuple(_leg(own, w) for w in parts.get("PATH", ()))
    if "PATH" in parts and not legs:
        raise OrderError(ProblemKind.INVALID, "PATH needs at least one hex")
    meet = parts.get("RENDEZVOUS")
    if meet is not None and (len(meet) != 3 or meet[1] != "WITH"):
        raise OrderError(ProblemKind.INVALID, "RENDEZVOUS reads RENDEZVOUS <hex> WITH <AF>")
    back = parts.get("RETURN")
    if back is not None and len(back) != 1:
        raise OrderError(ProblemKind.INVALID, "RETURN takes one base or TF")
    if parts.get("ATTACK"):
        raise OrderError(ProblemKind.INVALID, f"ATTACK stands alone: {_FLY_HELP}")
    rendezvous = (own.hex(meet[0]), unit_number(meet[2], "AF")) if meet else None
    order = Fly(number, launch, legs, rendezvous, place_name(back[0]) if back else None, "ATTACK" in parts)
    return check_fly(own, order)


def _split_clauses(words: list[str]) -> tuple[list[str], list[list[str]]]:
    legs: list[str] = []
    clauses: list[list[str]] = []
    for word in words:
        if word in _CLAUSE_WORDS:
            clauses.append([word])
        elif clauses:
            clauses[-1].append(word)
        else:
            legs.append(word)
    if not legs:
        raise OrderError(ProblemKind.INVALID, "PATH needs at least one hex")
    return legs, clauses


def _leg(own: Own, word: str) -> Leg:
    match = _LEG.match(word)
    if match is None:
        raise OrderError(
            ProblemKind.INVALID, f"{word!r} is not a path hex like VI-M35, VI-M35@HIGH or VI-M35+1"
        )
    altitude = _ALTITUDES[match[2]] if match[2] else None
    return Leg(own.hex(match[1]), altitude, int(match[3] or 0))


def _clauses(clauses: list[list[str]]) -> tuple[tuple[Reaction, ...], int | None, str | None]:
    reactions: list[Reaction] = []
    join: int | None = None
    back: str | None = None
    for clause in clauses:
        word, args = clause[0], clause[1:]
        if word == "IF":
            reactions.append(_reaction(args))
        elif word == "JOIN" and len(args) == 1 and join is None:
            join = unit_number(args[0], "AF")
        elif word == "RETURN" and len(args) == 1 and back is None:
            back = place_name(args[0])
        else:
            raise OrderError(
                ProblemKind.INVALID, f"{' '.join(clause)!r}: JOIN and RETURN take one unit, once"
            )
    if len({r.on for r in reactions}) != len(reactions):
        raise OrderError(ProblemKind.AMBIGUOUS, "one IF SHIPS and one IF PLANES at most")
    return tuple(reactions), join, back


_REACTION_HELP = "IF SHIPS|PLANES CLOSE n [BACK n], IF SHIPS|PLANES ATTACK [HIGH|LOW] or IF ... CONTINUE"


def _reaction(args: list[str]) -> Reaction:
    if len(args) < 2 or args[0] not in ("SHIPS", "SIGHTED", "PLANES"):
        raise OrderError(ProblemKind.INVALID, f"a reaction reads {_REACTION_HELP}")
    on = "planes" if args[0] == "PLANES" else "ships"
    action, more = args[1], args[2:]
    if action == "CONTINUE" and not more:
        return Reaction(on, Action.CONTINUE)
    if action == "ATTACK" and len(more) <= 1 and all(m in _ALTITUDES for m in more):
        return Reaction(on, Action.ATTACK, altitude=_ALTITUDES[more[0]] if more else None)
    plain = len(more) == 1 or (len(more) == 3 and more[1] == "BACK" and more[2] in ("1", "2", "3"))
    if action == "CLOSE" and more and more[0] in ("1", "2", "3") and plain:
        back = int(more[2]) if len(more) == 3 else None
        return Reaction(on, Action.CLOSE, condition=int(more[0]), back_off=back)
    raise OrderError(ProblemKind.INVALID, f"a reaction reads {_REACTION_HELP}")


def _ready(own: Own, words: list[str]) -> Ready:
    if len(words) not in (3, 4) or (len(words) == 4 and words[3] not in ARMS):
        raise OrderError(
            ProblemKind.INVALID, "READY reads READY <base or TF> <number> <plane type> [GP|AP|TORPEDO]"
        )
    arm = ARMS[words[3]] if len(words) == 4 else None
    return check_ready(own, Ready(place_name(words[0]), count_of(words[1]), words[2], arm))


def _unready(own: Own, words: list[str]) -> Unready:
    if len(words) not in (3, 4) or (len(words) == 4 and words[3] not in LOADS):
        raise OrderError(
            ProblemKind.INVALID,
            "UNREADY reads UNREADY <base or TF> <number> <plane type> [GP|AP|TORPEDO|UNARMED]",
        )
    load = LOADS[words[3]] if len(words) == 4 else None
    return check_unready(own, Unready(place_name(words[0]), count_of(words[1]), words[2], load))


def _land(own: Own, words: list[str]) -> Land:
    if len(words) not in (2, 4) or (len(words) == 4 and words[2] != "VIA"):
        raise OrderError(ProblemKind.INVALID, "LAND reads LAND <AF> <base or TF> [VIA <entry hex>]")
    via = words[3] if len(words) == 4 else None
    return check_land(own, Land(unit_number(words[0], "AF"), place_name(words[1]), via))


def _shadow(own: Own, words: list[str]) -> Shadow:
    if len(words) != 2 or not _UNIT.match(words[0]):
        raise OrderError(ProblemKind.INVALID, "SHADOW reads SHADOW <AF or TF> <hex of a ships contact>")
    by: Literal["AF", "TF"] = "TF" if words[0].startswith("TF") else "AF"
    return check_shadow(own, Shadow(unit_number(words[0], by), own.hex(words[1]), by))


def _intercept(own: Own, words: list[str]) -> Intercept:
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "INTERCEPT reads INTERCEPT <AF with fighters>")
    return check_intercept(own, Intercept(unit_number(words[0], "AF")))


def _jettison(own: Own, words: list[str]) -> Jettison:
    if len(words) != 1:
        raise OrderError(ProblemKind.INVALID, "JETTISON reads JETTISON <armed AF>")
    return check_jettison(own, Jettison(unit_number(words[0], "AF")))


def _deception(own: Own, words: list[str]) -> SetDeception:
    if len(words) != 1 or words[0] not in POLICIES:
        raise OrderError(ProblemKind.INVALID, "DECEPTION reads DECEPTION TRUTHFUL, RANDOM or MAXIMAL")
    return SetDeception(POLICIES[words[0]])


def _priority(own: Own, words: list[str]) -> Priority:
    return read_priority(words)


def _rank(own: Own, words: list[str]) -> Rank:
    return read_rank(words, tuple(own.planes))


def _surface_policy(own: Own, words: list[str]) -> Engage:
    if words not in (["ENGAGE"], ["AVOID"]):
        raise OrderError(ProblemKind.INVALID, "SURFACE reads SURFACE ENGAGE or SURFACE AVOID (standing)")
    return Engage(words[0] == "ENGAGE", standing=True)


def _cap_dive(own: Own, words: list[str]) -> AirPolicy:
    if words not in (["YES"], ["NO"]):
        raise OrderError(ProblemKind.INVALID, "CAPDIVE reads CAPDIVE YES or CAPDIVE NO (standing, 16.12)")
    return AirPolicy(dive=words[0] == "YES")


def _escorts(own: Own, words: list[str]) -> AirPolicy:
    """``ESCORTS Zero Rufe``: the interceptor types your escorts shoot at first (15 LI 5)."""
    return AirPolicy(escorts=read_rank(words, tuple(own.planes)).planes)


def _hold(own: Own, words: list[str]) -> Hold:
    if words:
        raise OrderError(ProblemKind.INVALID, "HOLD stands alone")
    return Hold()


_READERS: dict[str, Callable[[Own, list[str]], FtOrder]] = {
    "PLOT": _plot, "SEARCH": _search, "FLY": _fly, "READY": _ready, "UNREADY": _unready, "LAND": _land,
    "SHADOW": _shadow, "INTERCEPT": _intercept, "JETTISON": _jettison, "DECEPTION": _deception,
    "HOLD": _hold, "PRIORITY": _priority, "RANK": _rank,
    "SPLIT": fleet.read_split, "MERGE": fleet.read_merge, "UNLOAD": fleet.read_unload,
    "RESCUE": fleet.read_rescue, "SURFACE": _surface_policy, "TOW": fleet.read_tow,
    "CASTOFF": fleet.read_castoff, "BOMBARD": fleet.read_bombard,
    "OFFLOAD": fleet.read_offload, "CAPDIVE": _cap_dive, "ESCORTS": _escorts,
    "DISEMBARK": fleet.read_disembark,
    "LOAD": fleet.read_load, "SCUTTLE": fleet.read_scuttle,
    "DEPTH": subs.read_depth, "SUBATTACK": subs.read_subattack, "ASW": subs.read_asw, "DIVE": subs.read_dive,
    "WAKE": read_wake,
    "ANCHOR": lambda own, words: fleet.read_anchor(own, words, weigh=False),
    "WEIGH": lambda own, words: fleet.read_anchor(own, words, weigh=True),
}  # fmt: skip


def read_line(own: Own, text: str) -> FtOrder | None:
    """The order on one line; None for a blank or comment line; OrderError when refused."""
    words = tokens(text)
    if not words:
        return None
    word = WORDS.get(words[0])
    if word is None:
        known = ", ".join(sorted(set(WORDS.values())))
        raise OrderError(ProblemKind.INVALID, f"{words[0]!r} is not an order word ({known})")
    order: FtOrder = _READERS[word](own, words[1:])
    return order


# --- a whole letter ---------------------------------------------------------------


def parse_lines(own: Own, lines: Sequence[Line]) -> Parsed[FtOrder]:
    """Read every line; then refuse a second order for the same unit (ambiguous).

    PLOT lines are read first (a new AF takes off from its TF's hex after this turn's
    move, reference A.7), INTERCEPT and JETTISON lines last (they may name an AF this
    letter launches); the answer keeps the letter's order.
    """
    accepted: list[Accepted[FtOrder]] = []
    problems: list[Problem] = []
    taken: dict[str, int] = {}
    for line in sorted(lines, key=_reading_order):
        try:
            order = read_line(own, line.text)
            if order is None:
                continue
            own.claim(order, taken, line.number)
        except OrderError as error:
            problems.append(Problem(line.number, line.text, error.kind, error.reason))
            continue
        accepted.append(Accepted(line.number, normalise(own.scenario.map, order), order))
    accepted.sort(key=lambda a: a.line)
    return _rendezvous_leaders(own, accepted, problems, lines)


def _reading_order(line: Line) -> tuple[int, int]:
    words = tokens(line.text)
    word = WORDS.get(words[0]) if words else None
    return ({"PLOT": 0, "INTERCEPT": 2, "JETTISON": 2}.get(word or "", 1), line.number)


def _rendezvous_leaders(
    own: Own, accepted: list[Accepted[FtOrder]], problems: list[Problem], lines: Sequence[Line]
) -> Parsed[FtOrder]:
    """Seed 003, 7: a rendezvous is with an AF that flies this turn on a path of its own: one the
    letter sends searching or flying, or one aloft already; not one that lands, nor one that
    itself follows another (the meeting must be certain to the moderator, not a chain)."""
    orders = [a.order for a in accepted]
    followers = {o.af for o in orders if isinstance(o, Fly) and o.rendezvous}
    landing = {o.af for o in orders if isinstance(o, Land)}
    flying = {o.af for o in orders if isinstance(o, Search | Fly)}
    aloft = {n for n, af in own.air.items() if af.hex is not None}
    text = {line.number: line.text for line in lines}
    kept: list[Accepted[FtOrder]] = []
    for a in accepted:
        order = a.order
        leader = order.rendezvous[1] if isinstance(order, Fly) and order.rendezvous else None
        why = None
        if leader is not None and leader not in flying | aloft:
            why = f"AF{leader} is not aloft and this letter launches no AF{leader} to rendezvous with"
        elif leader is not None and leader in followers:
            why = f"AF{leader} itself follows another AF this turn: name the AF it follows"
        elif leader is not None and leader in landing:
            why = f"AF{leader} is ordered to LAND this turn"
        if why:
            problems.append(Problem(a.line, text[a.line], ProblemKind.ILLEGAL, f"{why} (seed 003, 7)"))
        else:
            kept.append(a)
    return Parsed(tuple(kept), tuple(sorted(problems, key=lambda p: p.line)))
