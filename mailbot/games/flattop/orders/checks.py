# SPDX-License-Identifier: GPL-3.0-or-later
"""Checking orders against what the ordering side itself knows, and nothing more.

:class:`Own` is built from the side's own units, its own knowledge and the
public board (map, clouds, the clock). Because the checks see nothing else,
a refusal cannot depend on an enemy fact: "you have no TF3" reads the same
whether or not the enemy has a TF3 (design/flattop.md: reports come from the
side's knowledge only; orders are answered the same way).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from mailbot.core.game import ProblemKind
from mailbot.games.flattop.combat.submarines import SubmarineRules
from mailbot.games.flattop.map import movement
from mailbot.games.flattop.map.hexes import Direction, Hex
from mailbot.games.flattop.map.movement import MovementRules, PlaneStep, formation_movement, launch_movement
from mailbot.games.flattop.map.scenario import EntryHex, GameTime, Scenario
from mailbot.games.flattop.observation.knowledge import Knowledge
from mailbot.games.flattop.observation.search import Action, Leg
from mailbot.games.flattop.orders.decks import (
    RULE_6_10,
    RULE_6_10_VARIANT,
    RULE_DECK,
    RULE_GROUNDED,
    count,
    deck_open,
    grounded,
    into_the_wind,
    launch_factor,
    may_land,
    readying_factor,
    sum_boxes,
)
from mailbot.games.flattop.orders.types import (
    UNARMED,
    Anchor,
    Bombard,
    Disembark,
    Fly,
    FtOrder,
    Intercept,
    Jettison,
    Land,
    Launch,
    Load,
    LoadCargo,
    Merge,
    Offload,
    Plot,
    Ready,
    Rescue,
    Scuttle,
    Search,
    SetDeception,
    Shadow,
    Split,
    SubOrder,
    Tow,
    Unload,
    Unready,
    Wake,
    load_of,
    load_word,
)
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    AirFormation,
    Altitude,
    Armament,
    Base,
    LaunchType,
    PlaneCategory,
    PlaneType,
    ShipCategory,
    Side,
    TaskForce,
)

MAX_AF = 35  # standard 14: AFs are numbered 1-35 per side
Spend = tuple[int, int, str]  # amount, limit, the refusal's reason


class OrderError(Exception):
    def __init__(self, kind: ProblemKind, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


def tokens(text: str) -> list[str]:
    """Upper-cased words; commas and colons are noise, ``#`` starts a comment."""
    body = text.split("#", 1)[0].replace(",", " ").replace(":", " ")
    return body.upper().split()


def illegal(reason: str) -> OrderError:
    return OrderError(ProblemKind.ILLEGAL, reason)


def place_key(name: str) -> str:
    return name.replace(" ", "-").upper()


def base_word(base: Base) -> str:
    """A base as orders write it: spaces become hyphens (``Port-Moresby``)."""
    return base.name.replace(" ", "-")


@dataclass
class Own:
    """One side's view for reading orders; the letter's running totals are kept here too."""

    side: Side
    scenario: Scenario
    rules: MovementRules
    planes: Mapping[str, PlaneType]
    tfs: Mapping[int, TaskForce]
    bases: Mapping[str, Base]  # by place_key
    air: Mapping[int, AirFormation]
    knowledge: Knowledge
    storms: frozenset[Hex]
    time: GameTime
    turn: int
    used: dict[tuple[str, str], int] = field(default_factory=dict)
    winds: Mapping[int, Direction] = field(default_factory=dict)  # by section numeral
    plots: dict[int, Plot] = field(default_factory=dict)  # this letter's PLOTs (read first)
    launched: dict[int, Launch] = field(default_factory=dict)  # this letter's new AFs
    launch_types: dict[str, tuple[LaunchType, int]] = field(default_factory=dict)  # place -> (type, line)
    submarines: SubmarineRules | None = None  # seed 003, 27 in play (a game option): its rules
    towed: frozenset[str] = frozenset()  # own ships in tow (seed 003, Towing)
    towers: frozenset[str] = frozenset()  # own ships towing
    wind_variant: bool = False  # the game option launch_wind = variant (6.10's [RW] variant)
    shadowed: dict[Hex, tuple[str, int]] = field(default_factory=dict)  # contact hex -> (shadower, line)

    def hex(self, word: str) -> Hex:
        h = self.scenario.map.parse(word)
        if h is None:
            raise OrderError(ProblemKind.INVALID, f"{word!r} is not a hex on this map (e.g. V-F24)")
        return h

    def tf(self, number: int) -> TaskForce:
        if number not in self.tfs:
            raise illegal(f"you have no task force TF{number}")
        return self.tfs[number]

    def aloft(self, number: int) -> AirFormation:
        af = self.air.get(number)
        if af is None:
            raise illegal(f"you have no AF{number} in the air")
        if af.hex is None:
            raise illegal(f"AF{number} is off the map")
        return af

    def place(self, word: str) -> tuple[str, Hex, AirBoxes, TaskForce | Base]:
        """A base or TF of this side: its order name, hex, summed air boxes and the unit."""
        if word.startswith("TF") and word[2:].isdigit() and int(word[2:]) in self.tfs:
            tf = self.tfs[int(word[2:])]
            return f"TF{tf.number}", tf.hex, sum_boxes(s.boxes for s in tf.plane_ships), tf
        base = self.bases.get(place_key(word))
        if base is None:
            raise illegal(f"no base or task force of yours is called {word}")
        if base.hex is None:  # off board: its planes come and go by its entry hex (reference A.3)
            entry = next((e for e in self.scenario.entry_hexes if e.label in base.entry), None)
            if entry is None:
                raise illegal(f"{base_word(base)} is off the board and has no entry hex")
            return base_word(base), entry.hex, base.boxes, base
        return base_word(base), base.hex, base.boxes, base

    def takeoff_hex(self, launch: Launch) -> Hex:
        """Where a new AF starts: a TF's hex after this turn's plotted move (the letter's PLOT,
        else the standing one), since new AFs take off after TF movement (reference A.7), or
        where the TF steams instead when the letter's launches exceed its carriers' Minimum LF
        (standard 6.10 or its variant, ``air.resolve_wind``); a base's hex."""
        _, h, _, unit = self.place(launch.place)
        if not isinstance(unit, TaskForce):
            return h
        turned = self.wind_turn(launch)
        leg = self._leg(unit) if turned is None else turned
        return leg[-1] if leg else h

    def wind_turn(self, launch: Launch) -> tuple[Hex, ...] | None:
        """Standard 6.10 (or the variant, game option ``launch_wind``): the leg the launching TF
        steams instead of its plot, or None (its plot stands)."""
        name, _, _, unit = self.place(launch.place)
        if not isinstance(unit, TaskForce):
            return None
        launching = self.used.get((name, "launch"), 0) + launch.total
        turned = into_the_wind(
            unit, self._leg(unit), launching, self.scenario, self.winds, variant=self.wind_variant
        )
        if turned is not None and launching <= launch_factor(unit, launch.kind, self.turn):  # else refused
            return turned
        return None

    def _leg(self, tf: TaskForce) -> tuple[Hex, ...]:
        """This turn's plotted hexes: the letter's PLOT, else the standing one."""
        plot = self.plots.get(tf.number)
        legs = plot.legs if plot is not None else tf.plot
        return legs[0] if legs else ()

    def plane(self, word: str) -> PlaneType:
        found = next((p for name, p in self.planes.items() if name.upper() == word.upper()), None)
        if found is None or found.side is not self.side:
            raise illegal(f"{word!r} is not a plane type of your side")
        return found

    def claim(self, order: FtOrder, taken: dict[str, int], line: int) -> None:
        """One order per unit per letter; launches and readying within the letter's totals."""
        key = _unit_key(order)
        if key and key in taken:
            raise OrderError(ProblemKind.AMBIGUOUS, f"{key} already has an order on line {taken[key]}")
        launch = order.launch if isinstance(order, Search | Fly) else None
        if launch is not None:
            self._claim_launch_type(launch, line)
        if isinstance(order, Shadow):
            self._claim_shadow(order, line)
        budget = self._budget(order)
        for spend_key, (amount, limit, why) in budget.items():
            if self.used.get(spend_key, 0) + amount > limit:
                raise illegal(why)
        for spend_key, (amount, _, _) in budget.items():
            self.used[spend_key] = self.used.get(spend_key, 0) + amount
        if launch is not None:
            self.launch_types.setdefault(launch.place, (launch.kind, line))
        if isinstance(order, Search | Fly) and order.launch is not None:
            self.launched[order.af] = order.launch
        if isinstance(order, Plot):
            self.plots[order.tf] = order
        if isinstance(order, Shadow):
            self.shadowed.setdefault(order.hex, (f"{order.by}{order.af}", line))
        if key:
            taken[key] = line

    def _claim_shadow(self, order: Shadow, line: int) -> None:
        """Standard 11.4: "Only one unit (one Air Formation or one TF) may attempt to shadow each
        TF each turn." A side names its target by the contact's hex (it is never told how many
        TFs a contact holds, seed 003, 7.12.2), so a second shadower of the same contact is
        refused, whatever the hex holds."""
        first = self.shadowed.get(order.hex)
        if first is None:
            return
        where = self.scenario.map.hex_id(order.hex)
        raise illegal(
            f"{first[0]} already shadows the contact in {where} (line {first[1]}): standard 11.4, "
            f'"Only one unit (one Air Formation or one TF) may attempt to shadow each TF each turn"'
        )

    def _claim_launch_type(self, launch: Launch, line: int) -> None:
        kind, first = self.launch_types.get(launch.place, (launch.kind, line))
        if kind is not launch.kind:
            raise OrderError(
                ProblemKind.AMBIGUOUS,
                f"{launch.place} launches once a turn: line {first} made it a {kind.value} launch",
            )

    def _budget(self, order: FtOrder) -> dict[tuple[str, str], Spend]:
        launch = order.launch if isinstance(order, Search | Fly) else None
        if launch is not None:
            name, _, boxes, unit = self.place(launch.place)
            closed = ""
            if isinstance(unit, TaskForce):  # 21.2.3: planes aboard a ship at LF 0 cannot take off
                boxes = sum_boxes(s.boxes for s in unit.plane_ships if deck_open(s, self.turn))
                shut = [s.name for s in unit.plane_ships if not deck_open(s, self.turn) and s.boxes.ready]
                closed = f" that may take off ({', '.join(shut)}: {RULE_DECK})" if shut else ""
            lf = launch_factor(unit, launch.kind, self.turn)
            budget = {
                (name, "launch"): (launch.total, lf, f"{name} may launch {lf} air factors a turn "
                                   f"({launch.kind.value} launch){_grounded_note(unit, self.turn)}"),
                **self._readying(name, unit, launch.total),
            }  # fmt: skip
            for part in launch.parts:
                lines = _from_box(name, boxes.ready, "Ready", (part.plane, part.load, part.count))
                budget |= {key: (n, have, why + closed) for key, (n, have, why) in lines.items()}
            return budget
        if isinstance(order, Ready):
            name, _, boxes, unit = self.place(order.place)
            return {
                **self._readying(name, unit, order.count),
                **_from_box(name, boxes.readying, "Readying", (order.plane, None, order.count)),
            }
        if isinstance(order, Unready):
            name, _, boxes, unit = self.place(order.place)
            return {
                **self._readying(name, unit, order.count),
                **_from_box(name, boxes.ready, "Ready", (order.plane, order.load, order.count)),
            }
        return {}

    def _readying(
        self, name: str, unit: TaskForce | Base, n: int
    ) -> dict[tuple[str, str], tuple[int, int, str]]:
        """Reference A.5.4: readying, launching and unreadying each move a factor one box."""
        rf = readying_factor(unit)
        why = f"{name} may move {rf} air factors between boxes a turn (its Readying Factor)"
        return {(name, "readying"): (n, rf, why)}


def _grounded_note(unit: TaskForce | Base, turn: int) -> str:
    ships = (unit,) if isinstance(unit, Base) else unit.plane_ships
    names = [s.name for s in ships if grounded(s, turn)]
    return f": {', '.join(names)} may not fly this turn ({RULE_GROUNDED})" if names else ""


def _from_box(
    name: str, stacks: tuple[AirFactors, ...], box: str, taking: tuple[str, Load | None, int]
) -> dict[tuple[str, str], Spend]:
    """Budget lines for taking ``n`` factors out of one box: of the plane, and of the load if named."""
    plane, load, n = taking
    have = count(stacks, plane)
    lines = {(name, f"{box} {plane}"): (n, have, f"{name} has only {have} {plane} in its {box} box")}
    if load is not None:
        loaded = count(stacks, plane, load)
        why = f"{name} has only {loaded} {plane} {load_word(load)} in its {box} box"
        lines[(name, f"{box} {plane} {load}")] = (n, loaded, why)
    return lines


def _unit_key(order: FtOrder) -> str:
    if isinstance(order, Plot):
        return f"TF{order.tf}"
    if isinstance(order, Shadow):
        return f"{order.by}{order.af}"  # a shadowing TF's move is the shadowing: no PLOT besides
    if isinstance(order, Search | Fly | Land):
        return f"AF{order.af}"
    if isinstance(order, Intercept | Jettison):
        word = "INTERCEPT" if isinstance(order, Intercept) else "JETTISON"
        return f"{word} AF{order.af}"  # besides the AF's own movement order
    if isinstance(order, Split | Merge | Anchor | Unload | Rescue | Bombard | Disembark | LoadCargo):
        return f"{type(order).__name__.upper()} TF{order.tf}"  # one organisation order of a kind per TF
    if isinstance(order, Tow):
        return f"TOW {order.tower}"
    if isinstance(order, Scuttle):
        return f"SCUTTLE {order.ship}"
    if isinstance(order, Offload):
        return f"OFFLOAD {order.cripple}"
    if isinstance(order, SubOrder):
        return f"{order.word} TF{order.tf}"  # one submarine order of a kind per TF (orders.subs)
    if isinstance(order, Wake):
        return "WAKE"
    return "DECEPTION" if isinstance(order, SetDeception) else ""


# --- the checks -------------------------------------------------------------------


def check_plot(own: Own, order: Plot) -> Plot:
    tf = own.tf(order.tf)
    if own.towed:  # seed 003, Towing: the pair's pace is kept at movement; plot as the TF could sail
        tf = replace(tf, ships=tuple(s for s in tf.ships if s.name not in own.towed))
    problems = movement.check_plot(tf, order.legs, own.scenario, own.time, own.rules, turn=own.turn)
    if problems:
        raise illegal("; ".join(problems))
    return order


def check_launch(own: Own, af: int, launch: Launch) -> Launch:
    if not 1 <= af <= MAX_AF:
        raise illegal(f"AFs are numbered 1 to {MAX_AF}")
    if af in own.air:
        raise illegal(f"AF{af} is in the air already: leave out FROM to fly it on")
    name, _, boxes, unit = own.place(launch.place)
    if isinstance(unit, TaskForce) and any(ship.name in own.towers for ship in unit.plane_ships):
        # Seed 003, Towing: "Tow ships may not launch or recover aircraft" (ruling: the whole TF,
        # since its boxes are one for orders).
        raise illegal(f"{name} has a plane-carrying ship towing: tow ships may not launch aircraft")
    parts = [_launch_part(name, boxes, own.plane(part.plane).name, part) for part in launch.parts]
    names = [p.plane for p in parts]
    if len(set(names)) < len(names):
        raise OrderError(ProblemKind.AMBIGUOUS, f"AF{af}: name each plane type once in a launch")
    first, *more = parts
    return replace(first, place=name, more=tuple(more), via=entry_label(own, unit, launch.via))


def entry_label(own: Own, unit: TaskForce | Base, via: str | None) -> str | None:
    """Reference A.3: an off-board base's planes "enter and leave through Entry Hexes"; VIA names
    one of them (by label, e.g. 1A, or by hex). None: the moderator's choice (see hour.air_ops)."""
    if via is None:
        return None
    if not (isinstance(unit, Base) and unit.off_board):
        raise illegal(f"VIA {via}: only an off-board base's planes come and go by an entry hex")
    h = own.scenario.map.parse(via)
    for e in own.scenario.entry_hexes:
        if e.label in unit.entry and (e.label.upper() == via.upper() or e.hex == h):
            return e.label
    labels = ", ".join(f"{e.label} ({own.scenario.map.hex_id(e.hex)})" for e in entries_of(own, unit))
    raise illegal(f"{base_word(unit)} has no entry hex {via}: its entry hexes are {labels}")


def entries_of(own: Own, base: Base) -> list[EntryHex]:
    return [e for e in own.scenario.entry_hexes if e.label in base.entry]


def _launch_part(name: str, boxes: AirBoxes, plane: str, launch: Launch) -> Launch:
    """One plane name of a launch, checked against the Ready box."""
    loads = {load_of(s) for s in boxes.ready if s.plane == plane}
    if launch.load is None and len(loads) > 1:
        words = " or ".join(sorted(load_word(load) for load in loads))
        raise OrderError(
            ProblemKind.AMBIGUOUS, f"{name} has {plane} loaded {words} in its Ready box: say which"
        )
    if count(boxes.ready, plane, launch.load) < launch.count:
        what = plane if launch.load is None else f"{plane} {load_word(launch.load)}"
        raise illegal(f"{name} has only {count(boxes.ready, plane, launch.load)} {what} in its Ready box")
    return replace(launch, place=name, plane=plane)


def flight_start(own: Own, order: Search | Fly) -> tuple[Hex, Altitude, int, bool, set[PlaneCategory]]:
    """Start hex, altitude, MP, armed, plane categories of the AF a SEARCH flies."""
    if order.launch is None:
        af = own.aloft(order.af)
        assert af.hex is not None  # own.aloft refuses off-map AFs
        armed = any(s.armament is not None for s in af.stacks)
        categories = {own.planes[s.plane].category for s in af.stacks}
        return af.hex, af.stacks[0].altitude, formation_movement(af, own.planes), armed, categories
    launch = order.launch
    _, _, boxes, _ = own.place(launch.place)
    h = own.takeoff_hex(launch)
    planes = [own.planes[p.plane] for p in launch.parts]
    taken = [
        s for p in launch.parts for s in boxes.ready if s.plane == p.plane and p.load in (None, load_of(s))
    ]
    armed = any(s.armament is not None for s in taken)
    mf = min(p.movement for p in planes)  # standard 14.4: an AF moves at its slowest plane's MF
    return h, Altitude.LOW, launch_movement(mf, launch.kind, own.rules), armed, {p.category for p in planes}


def _wind_note(own: Own, order: Search | Fly) -> str:
    """Why the AF starts where it does when its carriers turn into the wind (issue 36, error 7)."""
    launch = order.launch
    turned = own.wind_turn(launch) if launch is not None else None
    if launch is None or turned is None:
        return ""
    if not turned:  # the variant: the TF holds
        where = own.scenario.map.hex_id(own.place(launch.place)[1])
        return (
            f" (launching more than its carriers' Minimum Launch Factor, {launch.place} may move "
            f"only 0 or 1 hex, into the wind: it holds at {where} and the AF takes off there: "
            f"{RULE_6_10_VARIANT})"
        )
    where = own.scenario.map.hex_id(turned[-1])
    rule = RULE_6_10_VARIANT if own.wind_variant else RULE_6_10
    return (
        f" (launching more than its carriers' Minimum Launch Factor, {launch.place} turns into "
        f"the wind to {where} first and the AF takes off there: {rule})"
    )


def path_steps(start_altitude: Altitude, legs: tuple[Leg, ...]) -> list[PlaneStep]:
    """The legs as movement.py steps: a hex, then one step in place per extra MP (seed 003, 7.3)."""
    steps, altitude = [], start_altitude
    for leg in legs:
        altitude = leg.altitude or altitude
        steps.append(PlaneStep(leg.hex, altitude))
        steps.extend(PlaneStep(leg.hex, altitude) for _ in range(leg.extra))
    return steps


def _fly_path(own: Own, order: Search | Fly) -> tuple[bool, set[PlaneCategory]]:
    """Refuse a path the rules forbid from what the side knows; (armed, plane categories)."""
    _off_board_take_off(own, order)
    start, altitude, mp, armed, categories = flight_start(own, order)
    flown = movement.plane_path(
        start, altitude, path_steps(altitude, order.legs), mp,
        scenario=own.scenario, rules=own.rules, storms=own.storms,
        armed_takeoff=armed and order.launch is not None,
    )  # fmt: skip
    if flown.problem:
        raise illegal(f"AF{order.af}: {flown.problem}{_wind_note(own, order)}")
    if any(not own.scenario.map.on_board(leg.hex) for leg in order.legs):
        raise illegal(f"AF{order.af}: the path leaves the board")
    return armed, categories


def _off_board_take_off(own: Own, order: Search | Fly) -> None:
    """Reference A.3: planes of an off-board base go to its In Flight box and appear in its entry
    hex after the entry's delay; they fly on from there in a later letter."""
    if order.launch is None:
        return
    name, h, _, unit = own.place(order.launch.place)
    if isinstance(unit, Base) and unit.off_board and (order.legs or order.back or isinstance(order, Search)):
        entry = next(e for e in own.scenario.entry_hexes if e.hex == h and e.label in unit.entry)
        raise illegal(
            f"AF{order.af} from {name} flies off the board to entry hex {entry.label} "
            f"({own.scenario.map.hex_id(h)}), where it appears after {entry.delay} turn(s): "
            f"launch it with FLY AF{order.af} FROM {name} ... and no PATH or RETURN"
        )


def _return_to(own: Own, af: int, back: str | None, categories: set[PlaneCategory]) -> str | None:
    if back is None:
        return None
    name, _, _, unit = own.place(back)
    if not may_land(unit, categories):
        raise illegal(f"AF{af} cannot land at {name} (standard 8.9)")
    return name


def check_flight(own: Own, order: Search) -> Search:
    armed, categories = _fly_path(own, order)
    if any(r.action is Action.ATTACK for r in order.reactions) and not armed:
        raise illegal(f"AF{order.af} carries no bombs or torpedoes: it cannot ATTACK")
    if order.join == order.af:
        raise illegal(f"AF{order.af} cannot join itself")
    return replace(order, back=_return_to(own, order.af, order.back, categories))


def check_fly(own: Own, order: Fly) -> Fly:
    if order.launch is None and not order.legs and order.rendezvous is None:
        raise illegal(f"AF{order.af} is aloft already: FLY needs a PATH or a RENDEZVOUS")
    armed, categories = _fly_path(own, order)
    if order.attack and not armed and not _has_fighters(own, order):
        raise illegal(
            f"AF{order.af} carries no bombs or torpedoes and no fighters: it cannot ATTACK "
            "(fighters sweep the hex, reference A.11.4)"
        )
    if order.rendezvous is not None:
        h, leader = order.rendezvous
        end = order.legs[-1].hex if order.legs else flight_start(own, order)[0]
        if h != end:
            raise illegal(f"AF{order.af}: the rendezvous hex must be where its PATH ends (seed 003, 7)")
        if leader == order.af:
            raise illegal(f"AF{order.af} cannot rendezvous with itself")
    return replace(order, back=_return_to(own, order.af, order.back, categories))


def _has_fighters(own: Own, order: Fly) -> bool:
    """The AF holds unarmed fighters (a sweep: ATTACK makes them fight the enemy planes there)."""
    if order.launch is not None:
        stacks = tuple(AirFactors(p.plane, p.count, armament=armament_of(own, p)) for p in order.launch.parts)
    else:
        stacks = own.aloft(order.af).stacks
    return any(is_interceptor(s, own.planes) for s in stacks)


def check_land(own: Own, order: Land) -> Land:
    af = own.aloft(order.af)
    name, _, _, unit = own.place(order.place)
    if not may_land(unit, {own.planes[s.plane].category for s in af.stacks}):
        raise illegal(f"AF{order.af} cannot land at {name} (standard 8.9)")
    return Land(order.af, name, entry_label(own, unit, order.via))


def is_submarine(tf: TaskForce) -> bool:
    return bool(tf.afloat) and all(s.type.category is ShipCategory.SUBMARINE for s in tf.afloat)


def is_interceptor(stack: AirFactors, planes: Mapping[str, PlaneType]) -> bool:
    """Unarmed and fighter-capable; a factor that dropped its load stays a bomber until it lands
    (reference A.6)."""
    return stack.armament is None and not stack.expended and "interceptor" in planes[stack.plane].roles


def armament_of(own: Own, launch: Launch) -> Armament | None:
    """What a launch takes off carrying: its named load, else the Ready box's one load."""
    if launch.load is not None:
        return None if launch.load == UNARMED else Armament(launch.load)
    _, _, boxes, _ = own.place(launch.place)
    return next((s.armament for s in boxes.ready if s.plane == launch.plane), None)
