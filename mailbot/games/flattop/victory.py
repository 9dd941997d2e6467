# SPDX-License-Identifier: GPL-3.0-or-later
"""Victory points and the end of the game (standard 25, reference A.13; seed 003).

Reference A.13: a lost Air Factor is worth 2 VP to the enemy, or 10 VP if
lost "unnecessarily" (it could not land by its deadline through the owner's
error or choice); an AP unloads 3 VP a turn for 8 turns and "its value if
sunk falls from 24 by 3 each time"; at the end of a 2400 turn a VP
difference of at least the scenario's Automatic Victory Level ends the game;
otherwise "the side with the most VP wins, but only if it has >= 50 VP.
Otherwise the game is a draw"; ships that leave the map score VP for their
damage, not as sunk.

Seed 003: "VICTORY POINT CHANGE:  For each turn that Henderson or Rabaul
STARTS at 0 LF or below, score 4 points.  For all other bases, score 2
points." And (Survivors) "Each survivor factor rescued that is still carried
(or has been unloaded on friendly territory) at game’s end is worth 2 VP if
the same nationality as the player who rescued them, 1 VP if of the opposite
nationality."

The numbers live in ``data/tables/victory.toml``; the printed VP table was
not found, so ship values are design defaults and every :class:`Points`
(and every :class:`VpEntry`) carries the flag, for letters to say so.

The ledger is data in the state: an append-only tuple of :class:`VpEntry`
(:func:`record` appends and refuses a key scored twice). Who is told what
(seed 003, "Limited Intelligence"): an entry is *about* one side's unit
(``owner``: the side that lost it, or that unloaded or rescued). During the
game a side sees only the entries about its own units, in ``owner_reason``
words: it knows its own losses and gains, but not what its attacks achieved
(a delayed sinking must stay a secret; a running total would give it away).
At the end each side sees every entry: its own in ``owner_reason`` words,
the enemy's in ``public_reason`` words, which name no ship. ``reason`` is
referee-level and names everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from mailbot.errors import GameError
from mailbot.games.flattop.units import AirBoxes, AirFormation, Base, Ship, ShipType, Side, TaskForce

HIDDEN_NOTE = "Points for the losses you inflicted on the enemy are counted at the end of the game."

SIDE_NAMES = MappingProxyType({Side.ALLIED: "Allied", Side.JAPANESE: "Japanese"})

# What a scenario's [victory] table may hold (its sections mirror victory.toml).
_SCENARIO_KEYS = frozenset(
    {
        "automatic_level",
        "minimum_to_win",
        "ships",
        "damage",
        "air",
        "transports",
        "bases",
        "survivors",
        "unloaded",
    }
)


@dataclass(frozen=True)
class Points:
    """A value and where it comes from: ``default`` marks a design default."""

    value: int
    default: bool
    source: str


@dataclass(frozen=True)
class TroopAward:
    """A scenario condition: ``points`` VP per troop factor ``side`` unloads at ``place``."""

    place: str
    side: Side
    points: Points


@dataclass(frozen=True)
class VpEntry:
    """One line of the ledger: ``side`` scores ``points``; ``owner``'s unit is what it is about."""

    turn: int
    side: Side
    points: int
    reason: str  # referee-level: names everything
    key: str  # unique in the ledger: the same thing is never scored twice
    owner: Side
    owner_reason: str  # what the owner of the unit may read (its own unit's name)
    public_reason: str  # what anyone may read at the end: no ship names
    default: bool = False  # the points come from a design default
    cause: str = ""  # how it came about ("surface combat", "fuel", ...): the referee's ledger and archive


@dataclass(frozen=True)
class VpLine:
    """An entry as one side may read it."""

    turn: int
    side: Side
    points: int
    text: str
    default: bool


@dataclass(frozen=True)
class Verdict:
    winner: Side | None  # None: a draw
    totals: Mapping[Side, int]
    reason: str  # e.g. "Allied victory, 64 VP to 31"


@dataclass(frozen=True)
class VictoryRules:
    """``victory.toml`` merged with a scenario's ``[victory]`` table."""

    ships: Mapping[ShipType, Points]
    damage_per_hit: Points
    damage_below_sunk: int
    air_lost: Points
    air_unnecessary: Points
    unload_turns: int
    unload_per_turn: Mapping[ShipType, Points]
    base_points: Points
    key_bases: Mapping[str, Points]  # by casefolded name
    survivors_same: Points
    survivors_other: Points
    minimum_to_win: Points
    automatic_level: Points | None  # None: the scenario sets no Automatic Victory Level
    automatic_hour: int
    unloaded: tuple[TroopAward, ...] = ()

    @classmethod
    def from_mapping(
        cls, table: Mapping[str, Any], scenario: Mapping[str, Any] | None = None
    ) -> VictoryRules:
        """``table`` is victory.toml; ``scenario`` the parsed scenario file (its ``victory`` table is read).

        GameError on malformed data, including an unknown key in the scenario's table (a typo
        there would silently leave the default in force).
        """
        try:
            return _Merge(table, scenario or {}).rules()
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise GameError(f"victory data is malformed ({error!r})") from error

    def sunk_value(self, ship_type: ShipType, unloaded_turns: int = 0) -> int:
        """VP for sinking a ship of this type after ``unloaded_turns`` unloading turns (A.13)."""
        initial = self.ships[ship_type].value
        per_turn = self.unload_per_turn.get(ship_type)
        if per_turn is None:
            return initial
        return transport_value(initial, min(unloaded_turns, self.unload_turns), per_turn.value)

    def base_value(self, name: str) -> Points:
        """Seed 003: Henderson and Rabaul score 4 a turn, "all other bases" 2."""
        return self.key_bases.get(name.strip().casefold(), self.base_points)


def transport_value(initial: int, unloaded_turns: int, per_turn: int) -> int:
    """A.13: an AP's "value if sunk falls from 24 by 3 each time" it unloads; never below 0."""
    return max(0, initial - unloaded_turns * per_turn)


# --- reading the tables -----------------------------------------------------------


class _Merge:
    """Reads victory.toml, letting the scenario's [victory] table override any value."""

    def __init__(self, table: Mapping[str, Any], scenario: Mapping[str, Any]) -> None:
        self.table = table
        self.over: Mapping[str, Any] = _mapping(scenario.get("victory", {}), "scenario [victory]")
        self.source = f"scenario {scenario.get('id', '?')} [victory]"
        unknown = set(self.over) - _SCENARIO_KEYS
        if unknown:
            raise GameError(f"{self.source}: unknown key(s) {sorted(unknown)}")

    def rules(self) -> VictoryRules:
        return VictoryRules(
            ships=self.ships(),
            damage_per_hit=self.points(("damage",), "per_hit"),
            damage_below_sunk=self.plain(("damage",), "below_sunk"),
            air_lost=self.points(("air",), "lost"),
            air_unnecessary=self.points(("air",), "unnecessary"),
            unload_turns=self.plain(("transports",), "turns"),
            unload_per_turn=self.transports(),
            base_points=self.points(("bases",), "points"),
            key_bases=self.key_bases(),
            survivors_same=self.points(("survivors",), "same"),
            survivors_other=self.points(("survivors",), "other"),
            minimum_to_win=self.top_level("minimum_to_win"),
            automatic_level=self.automatic_level(),
            automatic_hour=_count(self.table["end"]["automatic_hour"], "end.automatic_hour"),
            unloaded=self.unloaded(),
        )

    def points(self, path: tuple[str, ...], key: str, meta: tuple[str, ...] | None = None) -> Points:
        """The value at ``path``.``key``: the scenario's if it gives one, else the shipped one."""
        where = ".".join((*path, key))
        override = _dig(self.over, path)
        if key in override:
            return Points(_count(override[key], f"{self.source} {where}"), False, self.source)
        section = _dig(self.table, meta or path)
        return Points(_count(_dig(self.table, path)[key], where), _flag(section), _source(section))

    def plain(self, path: tuple[str, ...], key: str) -> int:
        """A number that is no VP award (a count of turns, a margin): no source of its own."""
        override = _dig(self.over, path)
        table = override if key in override else _dig(self.table, path)
        return _count(table[key], ".".join((*path, key)))

    def top_level(self, key: str) -> Points:
        """``end.<key>`` in victory.toml; a scenario writes it at the top of its [victory]."""
        if key in self.over:
            return Points(_count(self.over[key], f"{self.source} {key}"), False, self.source)
        end = self.table["end"]
        return Points(_count(end[key], f"end.{key}"), _flag(end), _source(end))

    def automatic_level(self) -> Points | None:
        if "automatic_level" not in self.over and "automatic_level" not in self.table["end"]:
            return None
        level = self.top_level("automatic_level")
        if level.value <= 0:
            raise GameError(f"{level.source}: automatic_level must be at least 1")
        return level

    def ships(self) -> Mapping[ShipType, Points]:
        unknown = set(_dig(self.over, ("ships",))) - {t.value for t in ShipType}
        if unknown:
            raise GameError(f"{self.source}: unknown ship type(s) {sorted(unknown)}")
        return MappingProxyType({t: self.points(("ships",), t.value) for t in ShipType})

    def transports(self) -> Mapping[ShipType, Points]:
        names = set(self.table["transports"]) | set(_dig(self.over, ("transports",)))
        types = sorted(ShipType(name) for name in names if name != "turns")
        for ship_type in types:
            if ship_type not in (ShipType.AP, ShipType.APD):
                raise GameError(f"victory transports: only AP and APD unload, not {ship_type}")
        return MappingProxyType({t: self.points(("transports", t.value), "per_turn") for t in types})

    def key_bases(self) -> Mapping[str, Points]:
        names = set(self.table["bases"].get("key", {})) | set(_dig(self.over, ("bases", "key")))
        found = {name.casefold(): self.points(("bases", "key"), name, meta=("bases",)) for name in names}
        return MappingProxyType(found)

    def unloaded(self) -> tuple[TroopAward, ...]:
        awards = self.over.get("unloaded", [])
        if not isinstance(awards, list):
            raise GameError(f"{self.source}: unloaded must be a list of tables")
        return tuple(self.award(_mapping(item, f"{self.source} unloaded")) for item in awards)

    def award(self, item: Mapping[str, Any]) -> TroopAward:
        where = f"{self.source} unloaded"
        place = item["place"]
        if not isinstance(place, str) or not place.strip():
            raise GameError(f"{where}: place must be a base or hex name")
        points = Points(_count(item["points"], f"{where} points"), False, self.source)
        return TroopAward(place.strip(), Side(item["side"]), points)


def _dig(data: Mapping[str, Any], path: tuple[str, ...]) -> Mapping[str, Any]:
    """The table at ``path``; an absent table is empty (a scenario overrides only what it names)."""
    for key in path:
        data = _mapping(data.get(key, {}), ".".join(path))
    return data


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise GameError(f"{where}: expected a table, got {value!r}")
    return value


def _count(value: Any, where: str) -> int:
    """A VP figure: a whole number, never negative (a loss never costs its owner points here)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GameError(f"{where}: expected a whole number >= 0, got {value!r}")
    return value


def _flag(section: Mapping[str, Any]) -> bool:
    flag = section["default"]
    if not isinstance(flag, bool):
        raise GameError(f"victory.toml: default must be true or false, got {flag!r}")
    return flag


def _source(section: Mapping[str, Any]) -> str:
    source = section["source"]
    if not isinstance(source, str) or not source:
        raise GameError("victory.toml: every section needs a source line")
    return source


# --- scoring ----------------------------------------------------------------------


def ship_sunk(
    ship: Ship, owner: Side, turn: int, rules: VictoryRules, *, unloaded_turns: int = 0, cause: str = ""
) -> VpEntry:
    """The enemy of ``owner`` scores the ship's value; a transport's falls as it unloads (A.13)."""
    points = rules.ships[ship.type]
    cargo = f" after {unloaded_turns} unloading turn(s)" if unloaded_turns else ""
    return VpEntry(
        turn=turn,
        side=owner.opponent,
        points=rules.sunk_value(ship.type, unloaded_turns),
        reason=f"{SIDE_NAMES[owner]} {ship.type} {ship.name} sunk{cargo}",
        key=f"sunk:{owner}:{ship.name}",
        owner=owner,
        owner_reason=f"{ship.type} {ship.name} sunk",
        public_reason=f"{SIDE_NAMES[owner]} {ship.type} sunk",
        default=points.default,
        cause=cause,
    )


def air_lost(
    plane: str,
    count: int,
    owner: Side,
    turn: int,
    rules: VictoryRules,
    *,
    unnecessary: bool = False,
    where: str = "",
    cause: str = "",
) -> VpEntry:
    """A.13: 2 VP a factor to the enemy, 10 if it could not land in time by its owner's error or choice.

    ``where`` tells apart two losses of the same plane name in one turn (e.g. the battle's hex).
    """
    if count < 1:
        raise GameError(f"air_lost: {count} factors of {plane} cannot be lost")
    each = rules.air_unnecessary if unnecessary else rules.air_lost
    why = " (could not land in time: lost unnecessarily)" if unnecessary else ""
    factors = f"{count} {plane} factor{'s' if count > 1 else ''}"
    return VpEntry(
        turn=turn,
        side=owner.opponent,
        points=count * each.value,
        reason=f"{SIDE_NAMES[owner]} {factors} lost{why}",
        key=f"air:{owner}:T{turn}:{plane}:{where}:{'unnecessary' if unnecessary else 'lost'}",
        owner=owner,
        owner_reason=f"{factors} lost{why}",
        # Night losses are never reported (seed 003, Limited Intelligence 3): no plane names here.
        public_reason=f"{count} {SIDE_NAMES[owner]} air factor{'s' if count > 1 else ''} lost{why}",
        default=each.default,
        cause=cause or ("fuel" if unnecessary else ""),
    )


def bases_at_turn_start(bases: Sequence[Base], turn: int, rules: VictoryRules) -> tuple[VpEntry, ...]:
    """Seed 003: each turn a base STARTS at 0 LF or below, its enemy scores (4 Henderson/Rabaul, else 2).

    ``base.launch`` is the base's current LF. An off-board base is never on the board to be
    bombed and never scores.
    """
    return tuple(_base_entry(base, turn, rules) for base in bases if not base.off_board and base.launch <= 0)


def _base_entry(base: Base, turn: int, rules: VictoryRules) -> VpEntry:
    points = rules.base_value(base.name)
    started = f"{base.name} started turn {turn} at LF {base.launch}"
    return VpEntry(
        turn=turn,
        side=base.side.opponent,
        points=points.value,
        reason=started,
        key=f"base:{base.name}:T{turn}",
        owner=base.side,
        owner_reason=started,
        public_reason=f"{base.name} started a turn at LF 0 or below",
        default=points.default,
        cause="base out of action",
    )


def damage_at_end(
    ships: Sequence[tuple[Ship, Side]],
    turn: int,
    rules: VictoryRules,
    *,
    unloaded: Mapping[str, int] | None = None,
) -> tuple[VpEntry, ...]:
    """Design default: each ship afloat (or gone off the map) scores its enemy per hit taken.

    Capped at its sunk value less ``below_sunk``: damaging a ship is never worth sinking it.
    ``unloaded`` gives the unloading turns done by transport name (their sunk value falls).
    Sunk ships are left out: :func:`ship_sunk` scored them.
    """
    done = unloaded or {}
    entries = (_damage_entry(ship, owner, turn, rules, done.get(ship.name, 0)) for ship, owner in ships)
    return tuple(entry for entry in entries if entry is not None)


def _damage_entry(ship: Ship, owner: Side, turn: int, rules: VictoryRules, unloaded: int) -> VpEntry | None:
    if ship.sunk or ship.hits <= 0:
        return None
    cap = max(0, rules.sunk_value(ship.type, unloaded) - rules.damage_below_sunk)
    points = min(ship.hits * rules.damage_per_hit.value, cap)
    if points <= 0:
        return None
    hits = f"{ship.hits} hit{'s' if ship.hits > 1 else ''}"
    return VpEntry(
        turn=turn,
        side=owner.opponent,
        points=points,
        reason=f"{SIDE_NAMES[owner]} {ship.type} {ship.name} damaged ({hits}) at the end",
        key=f"damage:{owner}:{ship.name}",
        owner=owner,
        owner_reason=f"{ship.type} {ship.name} damaged ({hits})",
        public_reason=f"{SIDE_NAMES[owner]} {ship.type} damaged",
        default=rules.damage_per_hit.default,
        cause="damage at the end",
    )


def unload_turn(ship: Ship, owner: Side, turn: int, done_before: int, rules: VictoryRules) -> VpEntry | None:
    """A.13: an unloading turn scores its side what the ship's sunk value loses; None if nothing.

    ``done_before`` counts the ship's earlier unloading turns (they need not be consecutive).
    """
    if ship.type not in rules.unload_per_turn:
        raise GameError(f"{ship.name} ({ship.type}) is no transport: only AP and APD unload")
    if not 0 <= done_before < rules.unload_turns:
        raise GameError(f"{ship.name} has already unloaded for {rules.unload_turns} turns")
    now = done_before + 1
    points = rules.sunk_value(ship.type, done_before) - rules.sunk_value(ship.type, now)
    if points <= 0:
        return None
    told = f"{ship.type} {ship.name} unloading, turn {now} of {rules.unload_turns}"
    return VpEntry(
        turn=turn,
        side=owner,
        points=points,
        reason=f"{SIDE_NAMES[owner]} {told}",
        key=f"unload:{owner}:{ship.name}:{now}:T{turn}",  # a ship that loads again unloads again
        owner=owner,
        owner_reason=told,
        public_reason=f"{SIDE_NAMES[owner]} {ship.type} unloading",
        default=rules.unload_per_turn[ship.type].default,
        cause="unloading",
    )


def troops_unloaded(
    place: str, factors: int, side: Side, turn: int, rules: VictoryRules, *, where: str = ""
) -> VpEntry | None:
    """A scenario's own condition: VP per troop factor ``side`` unloads at ``place``; None if it has none."""
    wanted = place.strip().casefold()
    award = next((a for a in rules.unloaded if a.side is side and a.place.casefold() == wanted), None)
    if award is None or factors < 1:
        return None
    told = f"{factors} troop factor{'s' if factors > 1 else ''} unloaded at {award.place}"
    return VpEntry(
        turn=turn,
        side=side,
        points=factors * award.points.value,
        reason=f"{SIDE_NAMES[side]} {told}",
        key=f"troops:{side}:{award.place}:T{turn}:{where}",
        owner=side,
        owner_reason=told,
        public_reason=f"{SIDE_NAMES[side]} {told}",
        cause="troops unloaded",
    )


def survivors_rescued(
    rescuer: Side, nationality: Side, factors: int, turn: int, rules: VictoryRules, *, where: str
) -> VpEntry | None:
    """Seed 003, Survivors: at game’s end 2 VP a factor of the rescuer's own nationality, 1 otherwise.

    ``where`` names the carrier (a ship, or the friendly territory they were landed on).
    """
    if factors < 1:
        return None
    each = rules.survivors_same if nationality is rescuer else rules.survivors_other
    told = f"{factors} {SIDE_NAMES[nationality]} survivor factor{'s' if factors > 1 else ''} rescued"
    return VpEntry(
        turn=turn,
        side=rescuer,
        points=factors * each.value,
        reason=f"{told} by the {SIDE_NAMES[rescuer]} side ({where})",
        key=f"survivors:{rescuer}:{nationality}:{where}",
        owner=rescuer,
        owner_reason=f"{told} ({where})",
        public_reason=f"{told} by the {SIDE_NAMES[rescuer]} side",
        default=each.default,
        cause="survivors rescued",
    )


def record(ledger: Sequence[VpEntry], entries: Iterable[VpEntry | None]) -> tuple[VpEntry, ...]:
    """The ledger with ``entries`` appended (None skipped); GameError if a key was scored already."""
    keys = {entry.key for entry in ledger}
    added: list[VpEntry] = []
    for entry in entries:
        if entry is None:
            continue
        if entry.key in keys:
            raise GameError(f"victory points scored twice for {entry.key!r}")
        keys.add(entry.key)
        added.append(entry)
    return (*ledger, *added)


# --- what each side is told -----------------------------------------------------


# A loss's line says what was lost, not how: the cause (the owner was told it) is added to it.
_LOSSES = ("sunk:", "air:")


def visible(ledger: Sequence[VpEntry], side: Side, *, game_over: bool = False) -> tuple[VpLine, ...]:
    """The entries ``side`` may read: during the game those about its own units, at the end all.

    During the game add :data:`HIDDEN_NOTE`: the points it scored against the enemy are not shown.
    """
    lines: list[VpLine] = []
    for entry in ledger:
        cause = f" [{entry.cause}]" if entry.key.startswith(_LOSSES) and entry.cause else ""
        if entry.owner is side:
            lines.append(
                VpLine(entry.turn, entry.side, entry.points, entry.owner_reason + cause, entry.default)
            )
        elif game_over:
            lines.append(
                VpLine(entry.turn, entry.side, entry.points, entry.public_reason + cause, entry.default)
            )
    return tuple(lines)


def totals(ledger: Sequence[VpEntry]) -> dict[Side, int]:
    scores = dict.fromkeys(Side, 0)
    for entry in ledger:
        scores[entry.side] += entry.points
    return scores


# --- the end ----------------------------------------------------------------------


def automatic(ledger: Sequence[VpEntry], rules: VictoryRules, *, hour: int) -> Verdict | None:
    """A.13: at the end of a 2400 turn (``GameTime.hour`` 24) a lead >= the Automatic Victory Level wins."""
    if hour != rules.automatic_hour or rules.automatic_level is None:
        return None
    scores = totals(ledger)
    leader, other = _ranked(scores)
    lead = scores[leader] - scores[other]
    level = rules.automatic_level.value
    if lead < level:
        return None
    reason = (
        f"Automatic {SIDE_NAMES[leader]} victory, {scores[leader]} VP to {scores[other]}: "
        f"a lead of {lead} (Automatic Victory Level {level})"
    )
    return Verdict(leader, MappingProxyType(scores), reason)


def final(ledger: Sequence[VpEntry], rules: VictoryRules) -> Verdict:
    """A.13: the side with the most VP wins if it has at least the minimum (50); otherwise a draw."""
    scores = totals(ledger)
    leader, other = _ranked(scores)
    minimum = rules.minimum_to_win.value
    board = MappingProxyType(scores)
    if scores[leader] == scores[other]:
        return Verdict(None, board, f"Draw, {scores[leader]} VP each")
    score = f"{scores[leader]} VP to {scores[other]}"
    if scores[leader] < minimum:
        return Verdict(
            None, board, f"Draw: {SIDE_NAMES[leader]} lead {score}, short of the {minimum} VP to win"
        )
    return Verdict(leader, board, f"{SIDE_NAMES[leader]} victory, {score}")


def _ranked(scores: Mapping[Side, int]) -> tuple[Side, Side]:
    """The leader first; on a tie the order does not matter (the callers check for it)."""
    if scores[Side.JAPANESE] > scores[Side.ALLIED]:
        return Side.JAPANESE, Side.ALLIED
    return Side.ALLIED, Side.JAPANESE


def fleet(task_forces: Sequence[TaskForce]) -> tuple[tuple[Ship, Side], ...]:
    """Every ship of these TFs with its side, as :func:`damage_at_end` and :func:`nothing_left` take them."""
    return tuple((ship, tf.side) for tf in task_forces for ship in tf.ships)


def nothing_left(
    side: Side,
    ships: Sequence[tuple[Ship, Side]],
    bases: Sequence[Base],
    formations: Sequence[AirFormation],
) -> bool:
    """Design default for "a side has nothing left to fight with": the game may end.

    True when ``side`` has no ship afloat that can move or fight, and no Air Factor
    anywhere: not in a box of its bases (on or off the board) or ships, not aloft.
    A crippled ship is dead in the water; it still fights if it has gunnery or unfired
    torpedoes. AA alone only defends, so it does not count.
    """
    if any(_can_fight(ship) for ship, owner in ships if owner is side):
        return False
    boxes = [base.boxes for base in bases if base.side is side]
    boxes += [ship.boxes for ship, owner in ships if owner is side and not ship.sunk]
    if any(_has_planes(box) for box in boxes):
        return False
    return not any(af.factors > 0 for af in formations if af.side is side)


def _can_fight(ship: Ship) -> bool:
    if ship.sunk:
        return False
    moves = ship.movement > 0 and not ship.crippled
    return moves or ship.gunnery > 0 or (ship.torpedo > 0 and not ship.torpedoes_fired)


def _has_planes(boxes: AirBoxes) -> bool:
    return boxes.total > 0
