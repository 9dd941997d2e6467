# SPDX-License-Identifier: GPL-3.0-or-later
"""The accepted Flat Top orders as values, and their normalised text (grammar: :mod:`orders.parse`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Literal

from mailbot.games.flattop.combat.submarines import Depth
from mailbot.games.flattop.map.hexes import Hex, HexMap
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.observation.search import Action, Leg, Reaction
from mailbot.games.flattop.units import AirFactors, Altitude, Armament, LaunchType

UNARMED: Literal["unarmed"] = "unarmed"
Load = Armament | Literal["unarmed"]  # what a factor carries, as orders name it


def load_of(stack: AirFactors) -> Load:
    return stack.armament or UNARMED


def load_word(load: Load) -> str:
    return "TORPEDO" if load is Armament.TORPEDO else load.upper()


@dataclass(frozen=True)
class Plot:
    tf: int
    legs: tuple[tuple[Hex, ...], ...]  # one leg per turn, this turn first; () holds


@dataclass(frozen=True)
class Launch:
    """Ready factors taking off as one new AF. ``more``: the parts after ``AND``, other plane
    names in the same AF (reference A.5.3: "An AF can hold several plane names"; A.6: a fighter
    in an AF with bombers is its escort), each with its own count and load, one place and kind."""

    place: str  # "TF1" or a base name as written in orders (hyphens for spaces)
    count: int
    plane: str
    load: Load | None = None  # None: whatever the Ready box holds of that plane (one load only)
    kind: LaunchType = LaunchType.MINIMUM  # standard 14.8
    more: tuple[Launch, ...] = ()
    via: str | None = None  # VIA: the entry hex label an off-board base's planes come by (A.3)

    @property
    def parts(self) -> tuple[Launch, ...]:
        """Each plane name of the launch as a launch of its own (same place and kind)."""
        return (replace(self, more=()), *(replace(p, place=self.place, kind=self.kind) for p in self.more))

    @property
    def total(self) -> int:
        return sum(p.count for p in self.parts)

    @property
    def planes(self) -> str:
        """What takes off, for letters: "6 Dauntless and 4 Wildcat"."""
        return " and ".join(f"{p.count} {p.plane}" for p in self.parts)


@dataclass(frozen=True)
class Search:
    af: int
    launch: Launch | None  # None: the AF is aloft already
    legs: tuple[Leg, ...]
    reactions: tuple[Reaction, ...] = ()
    join: int | None = None
    back: str | None = None  # RETURN: land here with the MP left


@dataclass(frozen=True)
class Fly:
    """Non-search movement (seed 003, 7): a path, or none (stay, e.g. after a maximum launch).

    ``rendezvous``: (hex, searcher): from that hex, where the path ends, the AF
    conforms to the searcher's movement for the rest of the move (7).
    """

    af: int
    launch: Launch | None
    legs: tuple[Leg, ...]
    rendezvous: tuple[Hex, int] | None = None
    back: str | None = None
    attack: bool = False  # ATTACK: an armed AF attacks what is in the hex where its path ends


@dataclass(frozen=True)
class Ready:
    """Readying -> Ready; arming happens on this move (reference A.5.4)."""

    place: str
    count: int
    plane: str
    arm: Armament | None = None


@dataclass(frozen=True)
class Unready:
    """Ready -> Readying (reference A.5.4: the way to change a load); the factors are disarmed."""

    place: str
    count: int
    plane: str
    load: Load | None = None


@dataclass(frozen=True)
class Land:
    af: int
    place: str
    via: str | None = None  # VIA: the entry hex by which it leaves for an off-board base (A.3)


@dataclass(frozen=True)
class Shadow:
    """Standard 11 with seed 003, 11.2: an AF or a TF (a TF of submarines: 27.3) shadows the
    ships contact the side saw last turn in ``hex``; ``af`` is the shadowing unit's number."""

    af: int
    hex: Hex  # the hex of a ships contact the side saw last turn
    by: Literal["AF", "TF"] = "AF"


@dataclass(frozen=True)
class Intercept:
    """Standard 14.13 with seed 003, 14.13.2: this AF tries to intercept an observed enemy AF
    that moves through its hex at its altitude (one attempt a turn)."""

    af: int


@dataclass(frozen=True)
class Jettison:
    """Standard 14.14 (reference A.6): "bombs may be dropped at any time during plane movement";
    this AF drops them at the end of its move, before it lands, so it lands unarmed."""

    af: int


@dataclass(frozen=True)
class SetDeception:
    policy: Deception


@dataclass(frozen=True)
class Hold:
    pass


@dataclass(frozen=True)
class Priority:
    """Target types in order (seed 003, 15 LI 1; design/flattop.md "standing target priorities"):
    standing in the main orders, for this strike only in the strike sub-step."""

    types: tuple[str, ...]


@dataclass(frozen=True)
class Rank:
    """Seed 003, 15 LI 3: enemy plane types in order of elimination when this side chooses
    them, for one place (``label``, in the losses sub-step) or every place (standing)."""

    planes: tuple[str, ...]
    label: str | None = None


@dataclass(frozen=True)
class TargetOrder:
    af: int
    target: str  # a ship label such as A-CV1, or BASE
    count: int | None = None  # None: every armed factor not yet allocated
    plane: str | None = None
    kind: str | None = None  # dive | level | torpedo; None: the plane's first attack kind


@dataclass(frozen=True)
class First:
    afs: tuple[int, ...]


@dataclass(frozen=True)
class NoAttack:
    af: int


@dataclass(frozen=True)
class Split:
    """Reference A.5.1 / D.3 TFORG: ``ships`` (by name) leave TF ``tf`` as the new TF ``new``."""

    tf: int
    ships: tuple[str, ...]
    new: int


@dataclass(frozen=True)
class Merge:
    """TF ``tf`` joins TF ``into`` in the same hex."""

    tf: int
    into: int


@dataclass(frozen=True)
class Anchor:
    """Standard 12.7: every ship of the TF anchors (``down``) or weighs anchor."""

    tf: int
    down: bool = True


@dataclass(frozen=True)
class Unload:
    """Reference A.13: the TF's transports anchor and unload this turn at an unloading hex."""

    tf: int


@dataclass(frozen=True)
class Engage:
    """Seed 003, 19: fight the enemy ships in the hex (or, ``on`` False, do not start it);
    standing in the hour's orders as ``SURFACE ENGAGE|AVOID``."""

    on: bool
    standing: bool = False


@dataclass(frozen=True)
class Placement:
    """Reference A.11.7: one ship's group for the battle: gunnery, torpedo or screen."""

    ship: str
    position: str


@dataclass(frozen=True)
class BhtNumber:
    """Seed 003, 19: the secret BHT number 1-6 (sent sealed)."""

    number: int


@dataclass(frozen=True)
class FireAt:
    """Seed 003, 19: "19 factors fire at BB #2": one ship's gunnery (or torpedoes) at one target."""

    ship: str
    target: str
    torpedo: bool = False


@dataclass(frozen=True)
class Scuttle:
    """Reference A.5.1 (standard 12.9): "Scuttling is allowed during TF movement; the enemy scores
    it as sunk". ``ship`` of ``tf`` goes down by her own side's hand."""

    tf: int
    ship: str


@dataclass(frozen=True)
class Tow:
    """Seed 003, Towing: ``tower`` takes ``towed`` (same TF) in tow; ``towed`` None casts off."""

    tower: str
    towed: str | None


@dataclass(frozen=True)
class AirPolicy:
    """Standing air-combat choices: ``CAPDIVE YES|NO`` (16.12: "Diving is always voluntary") and
    ``ESCORTS <types>`` (15 LI 5: the interceptor types the escorts shoot at first)."""

    dive: bool | None = None
    escorts: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Offload:
    """Seed 003, Survivors: "Each cripple can offload one factor per turn to another ship in its TF"."""

    cripple: str
    rescuer: str


@dataclass(frozen=True)
class LoadCargo:
    """The TF's transports load one turn's cargo at a friendly base (the reverse of :class:`Unload`)."""

    tf: int


@dataclass(frozen=True)
class Disembark:
    """Seed 003, Survivors: the TF's survivors are "unloaded on friendly territory" (a friendly base)."""

    tf: int


@dataclass(frozen=True)
class Bombard:
    """Reference A.11.7: the TF's cruisers (and DDs, seed 003 19.9.4) shell the enemy base in its hex."""

    tf: int


@dataclass(frozen=True)
class Rescue:
    """Seed 003, Survivors: the TF's ships pick up survivors in their hex (anchored this turn)."""

    tf: int


@dataclass(frozen=True)
class SetDepth:
    """Seed 003, 27.2.2: the submarine TF goes to ``depth`` during this hour's movement (it stays
    there until told otherwise); it moves by the depth it started the hour at (27.2.1)."""

    tf: int
    depth: Depth
    word: ClassVar[str] = "DEPTH"


@dataclass(frozen=True)
class SubAttack:
    """Seed 003, 27.6 and 27.9.1: each submarine of the TF attacks enemy ships in its hex in this
    hour's Combat Phase with ``factors`` (None: four, or what it has left before a reload)."""

    tf: int
    factors: int | None = None
    word: ClassVar[str] = "SUBATTACK"


@dataclass(frozen=True)
class Asw:
    """Seed 003, 27.9: the TF's ships attack a submarine they observe in their hex (gunnery, and
    depth charges from ships with ASW gear)."""

    tf: int
    word: ClassVar[str] = "ASW"


@dataclass(frozen=True)
class Dive:
    """Seed 003, 27.6.4: for this hour, the submarine TF dives to ``depth`` upon receiving an attack."""

    tf: int
    depth: Depth
    word: ClassVar[str] = "DIVE"


SubOrder = SetDepth | SubAttack | Asw | Dive


@dataclass(frozen=True)
class Wake:
    """``WAKE``: the game turns the side asks letters for in the night (``orders.wake``); empty:
    none. ``words``: the hours as echoed (``0300 0500``, ``ALL``, ``NONE``)."""

    turns: tuple[int, ...]
    words: str


FtOrder = (
    Plot
    | Search
    | Fly
    | Ready
    | Unready
    | Land
    | Shadow
    | Intercept
    | Jettison
    | SetDeception
    | Hold
    | Priority
    | Rank
    | TargetOrder
    | First
    | NoAttack
    | Split
    | Merge
    | Anchor
    | Unload
    | Engage
    | Placement
    | BhtNumber
    | FireAt
    | Rescue
    | Bombard
    | Disembark
    | LoadCargo
    | Offload
    | AirPolicy
    | Tow
    | Scuttle
    | SetDepth
    | SubAttack
    | Asw
    | Dive
    | Wake
)


def _leg_text(hexmap: HexMap, leg: Leg) -> str:
    altitude = f"@{leg.altitude.value.upper()}" if leg.altitude else ""
    extra = f"+{leg.extra}" if leg.extra else ""
    return f"{hexmap.hex_id(leg.hex)}{altitude}{extra}"


def _reaction_text(reaction: Reaction) -> str:
    head = f"IF {reaction.on.upper()} {reaction.action.value.upper()}"
    if reaction.action is Action.CLOSE:
        back = f" BACK {reaction.back_off}" if reaction.back_off is not None else ""
        return f"{head} {reaction.condition}{back}"
    if reaction.action is Action.ATTACK and reaction.altitude is not None:
        return f"{head} {reaction.altitude.value.upper()}"
    return head


def launch_text(launch: Launch) -> str:
    kind = f" {launch.kind.value.upper()}" if launch.kind is not LaunchType.MINIMUM else ""
    parts = " AND ".join(
        f"{p.count} {p.plane}" + (f" {load_word(p.load)}" if p.load is not None else "") for p in launch.parts
    )
    via = f" VIA {launch.via}" if launch.via else ""
    return f"FROM {launch.place} {parts}{kind}{via}"


def _search_text(hexmap: HexMap, order: Search) -> str:
    parts = [f"SEARCH AF{order.af}"]
    if order.launch is not None:
        parts.append(launch_text(order.launch))
    parts.append("PATH " + " ".join(_leg_text(hexmap, leg) for leg in order.legs))
    parts.extend(_reaction_text(r) for r in order.reactions)
    if order.join is not None:
        parts.append(f"JOIN AF{order.join}")
    if order.back is not None:
        parts.append(f"RETURN {order.back}")
    return " ".join(parts)


def _fly_text(hexmap: HexMap, order: Fly) -> str:
    parts = [f"FLY AF{order.af}"]
    if order.launch is not None:
        parts.append(launch_text(order.launch))
    if order.legs:
        parts.append("PATH " + " ".join(_leg_text(hexmap, leg) for leg in order.legs))
    if order.rendezvous is not None:
        h, leader = order.rendezvous
        parts.append(f"RENDEZVOUS {hexmap.hex_id(h)} WITH AF{leader}")
    if order.attack:
        parts.append("ATTACK")
    if order.back is not None:
        parts.append(f"RETURN {order.back}")
    return " ".join(parts)


def _plot_text(hexmap: HexMap, order: Plot) -> str:
    if not order.legs:
        return f"PLOT TF{order.tf} HOLD"
    legs = (" ".join(hexmap.hex_id(h) for h in leg) or "HOLD" for leg in order.legs)
    return f"PLOT TF{order.tf} " + " / ".join(legs)


def normalise(hexmap: HexMap, order: FtOrder) -> str:
    """The exact echo; :func:`orders.parse.parse_lines` reads it back to the same order."""
    match order:
        case Plot():
            return _plot_text(hexmap, order)
        case Search():
            return _search_text(hexmap, order)
        case Fly():
            return _fly_text(hexmap, order)
        case Ready(place, count, plane, arm):
            return f"READY {place} {count} {plane}" + (f" {load_word(arm)}" if arm else "")
        case Unready(place, count, plane, load):
            return f"UNREADY {place} {count} {plane}" + (f" {load_word(load)}" if load else "")
        case Land(af, place, via):
            return f"LAND AF{af} {place}" + (f" VIA {via}" if via else "")
        case Intercept(af):
            return f"INTERCEPT AF{af}"
        case Jettison(af):
            return f"JETTISON AF{af}"
        case Shadow(number, h, by):
            return f"SHADOW {by}{number} {hexmap.hex_id(h)}"
        case SetDeception(policy):
            return f"DECEPTION {policy.value.upper()}"
        case Wake(_, words):
            return f"WAKE {words}"
    return _standing_text(order)


_TF_WORDS: dict[type, str] = {
    Unload: "UNLOAD",
    Rescue: "RESCUE",
    Bombard: "BOMBARD",
    Disembark: "DISEMBARK",
    LoadCargo: "LOAD",
}


def _standing_text(order: FtOrder) -> str:
    """Task-force organisation and standing combat orders (the rest of :func:`normalise`)."""
    if isinstance(order, Unload | Rescue | Bombard | Disembark | LoadCargo):
        return f"{_TF_WORDS[type(order)]} TF{order.tf}"  # one word and the TF
    match order:
        case Split(tf, ships, new):
            return f"SPLIT TF{tf} " + " ".join(n.replace(" ", "-") for n in ships) + f" AS TF{new}"
        case Merge(tf, into):
            return f"MERGE TF{tf} INTO TF{into}"
        case Anchor(tf, down):
            return f"{'ANCHOR' if down else 'WEIGH'} TF{tf}"
        case AirPolicy(dive, escorts):
            return (
                f"CAPDIVE {'YES' if dive else 'NO'}"
                if dive is not None
                else "ESCORTS " + " ".join(escorts or ())
            )
        case Offload(cripple, rescuer):
            return f"OFFLOAD {cripple.replace(' ', '-')} TO {rescuer.replace(' ', '-')}"
        case Scuttle(_, ship):
            return f"SCUTTLE {ship.replace(' ', '-')}"
        case Tow(tower, towed):
            name = tower.replace(" ", "-")
            return f"TOW {name} {towed.replace(' ', '-')}" if towed else f"CASTOFF {name}"
        case Priority():
            return priority_text(order)
        case Rank():
            return rank_text(order)
    return surface_text(order)


def surface_text(order: FtOrder) -> str:
    match order:
        case Engage(on, standing):
            word = "ENGAGE" if on else "AVOID"
            return f"SURFACE {word}" if standing else word
        case Placement(ship, position):
            return f"POSITION {ship.replace(' ', '-')} {position.upper()}"
        case BhtNumber(number):
            return f"BHT {number}"
        case FireAt(ship, target, torpedo):
            label = target.replace(" ", "").replace("#", "")  # "CA #1" as CA1: '#' starts a comment
            return f"{'TORPEDO' if torpedo else 'FIRE'} {ship.replace(' ', '-')} AT {label}"
    return sub_text(order)


def sub_text(order: FtOrder) -> str:
    """Submarine orders (seed 003, 27; ``orders.subs``)."""
    match order:
        case SetDepth(tf, depth) | Dive(tf, depth):
            return f"{order.word} TF{tf} {depth.value.upper()}"
        case SubAttack(tf, factors):
            return f"SUBATTACK TF{tf}" + ("" if factors is None else f" {factors}")
        case Asw(tf):
            return f"ASW TF{tf}"
    return "HOLD"


def priority_text(order: Priority) -> str:
    return "PRIORITY " + (" ".join(order.types) or "NONE")


def rank_text(order: Rank) -> str:
    return "RANK " + (f"{order.label} " if order.label else "") + " ".join(order.planes)


def altitude_word(altitude: Altitude) -> str:
    return altitude.value.upper()
