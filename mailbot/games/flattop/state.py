# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flat Top game state: the referee's truth plus each side's knowledge.

The state holds the scenario's raw data (the parsed ``mailbot/games/flattop/data`` tree the
edge handed in through ``Setup.data``) so that :func:`load_state` can rebuild
the :class:`Rules` (scenario, tables) without touching a file: the plugin
contract gives ``load`` nothing else. Everything else is plain unit data
(:mod:`units`), dumped with :func:`units.dump`.

Turn ``n`` is the game hour ``scenario.start.plus(n - 1)`` (reference A.2).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from mailbot.core.dice import Dice
from mailbot.errors import GameError
from mailbot.games.flattop import units as units_json
from mailbot.games.flattop.air.interception import InterceptionTable
from mailbot.games.flattop.air.landing import LandingTable
from mailbot.games.flattop.combat.battle import Battle, SurfaceFight
from mailbot.games.flattop.combat.sub_moves import AswState, SubState
from mailbot.games.flattop.combat.submarines import submarine_rules
from mailbot.games.flattop.combat.surface import Firings
from mailbot.games.flattop.combat.survivors import Aboard, Landed, Stranded, Survivors
from mailbot.games.flattop.initiative import InitiativeRecord
from mailbot.games.flattop.map.movement import MovementRules, movement_rules
from mailbot.games.flattop.map.scenario import GameTime, Scenario, plane_types, require_scenario
from mailbot.games.flattop.map.towing import TowPair
from mailbot.games.flattop.map.weather import Weather, WeatherRules, initial_weather, weather_rules
from mailbot.games.flattop.observation import knowledge as knowledge_json
from mailbot.games.flattop.observation.knowledge import Knowledge
from mailbot.games.flattop.observation.reports import Deception, ReportRules
from mailbot.games.flattop.observation.search import SearchTable
from mailbot.games.flattop.observation.shadowing import ShadowTable
from mailbot.games.flattop.orders.subs import SubHour, submarines_option
from mailbot.games.flattop.units import AirFormation, Base, PlaneType, Side, TaskForce
from mailbot.games.flattop.victory import VpEntry, record

STATE_VERSION = 1


@dataclass(frozen=True)
class Rules:
    """The scenario and every table a turn needs, parsed once from the raw data."""

    scenario: Scenario
    movement: MovementRules
    weather: WeatherRules
    search: SearchTable
    reports: ReportRules
    shadowing: ShadowTable
    landing: LandingTable
    interception: InterceptionTable
    planes: Mapping[str, PlaneType]
    observation: Mapping[str, Any]
    coastwatchers: Mapping[str, Any]


def build_rules(scenario_data: Mapping[str, Any], tables: Mapping[str, Any]) -> Rules:
    """GameError if the scenario or a table is broken (they ship with the code or the group's data).

    Every saved state carries its raw data, and parsing it was nine tenths of loading a state.
    The same data gives the same Rules (immutable), so they are kept by the data's content
    (:class:`RulesKey`): a state saved from another game of the same scenario, or by another
    process, loads without parsing it again, and data that differs in any way is parsed anew.
    """
    key = RulesKey.of(scenario_data, tables)
    return parse_rules(scenario_data, tables) if key is None else _kept_rules(key)


def parse_rules(scenario_data: Mapping[str, Any], tables: Mapping[str, Any]) -> Rules:
    try:
        return Rules(
            scenario=require_scenario(scenario_data, tables),
            movement=movement_rules(tables["movement"]),
            weather=weather_rules(tables["weather"]),
            search=SearchTable.from_mapping(tables["search"]),
            reports=ReportRules.from_mapping(tables["observation"]),
            shadowing=ShadowTable.from_mapping(tables["observation-shadowing"]),
            landing=LandingTable.from_mapping(tables["landing"]),
            interception=InterceptionTable.from_mapping(tables["interception"]),
            planes=plane_types(tables["planes"]),
            observation=tables["observation"],
            coastwatchers=tables["observation-coastwatchers"],
        )
    except KeyError as exc:
        raise GameError(f"Flat Top data lacks the table {exc}") from exc


@dataclass(frozen=True)
class RulesKey:
    """Raw scenario data and tables, equal and hashed by the digest of their canonical JSON."""

    digest: bytes
    scenario_data: Mapping[str, Any] = field(compare=False, repr=False)
    tables: Mapping[str, Any] = field(compare=False, repr=False)

    @classmethod
    def of(cls, scenario_data: Mapping[str, Any], tables: Mapping[str, Any]) -> RulesKey | None:
        """None for data that has no canonical JSON (it is then parsed every time)."""
        try:
            text = json.dumps([scenario_data, tables], sort_keys=True, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):
            return None
        return cls(hashlib.sha256(text.encode("utf-8")).digest(), scenario_data, tables)


#: distinct scenario data kept parsed (a server runs a handful of scenarios; each Rules is small)
RULES_KEPT = 16


@lru_cache(maxsize=RULES_KEPT)
def _kept_rules(key: RulesKey) -> Rules:
    return parse_rules(key.scenario_data, key.tables)


@dataclass(frozen=True)
class SideState:
    """One side: what it knows (reports only) and its standing DECEPTION policy.

    ``seen`` is referee data: the enemy units this side's observers covered last
    turn, for seed 003, 11.2 ("visible to the shadowing player ... in the
    previous turn"). It never reaches the side's view.
    """

    side: Side
    knowledge: Knowledge
    deception: Deception = Deception.RANDOM
    seen: frozenset[str] = frozenset()
    priority: tuple[str, ...] = ()  # standing target priority (PRIORITY); () = the default order
    ranking: tuple[str, ...] = ()  # standing order of enemy plane types to destroy (RANK)
    engage: bool = True  # standing SURFACE ENGAGE|AVOID (seed 003, 19)
    cap_dive: bool = True  # standing CAPDIVE YES|NO: CAP dives at low strikes when it may (16.12)
    escort_priority: tuple[str, ...] = ()  # standing ESCORTS: interceptor types to shoot first (LI 5)
    wake: tuple[int, ...] = ()  # turns it asked letters for (WAKE, ``orders.wake``), past ones kept


@dataclass(frozen=True)
class InitiativeNote:
    """Last turn's initiative, as both sides are told it (initiative.py: both rolls)."""

    winner: Side
    allied: int
    japanese: int
    tie: bool = False


@dataclass(frozen=True)
class Options:
    """The game options chosen when the game was created (``game create -o``), fixed for the game."""

    crt: str = "curve-fitted"  # the combat results table the game uses (recorded with it)
    strike_hours: int = 12  # how long a combat choice sub-step stays open
    submarines: bool = False  # seed 003, 27 in play (the game option ``submarines``)
    launch_wind: str = "standard"  # 6.10 as printed, or its [RW] variant (the game option launch_wind)


@dataclass(frozen=True)
class Score:
    """The victory points as scored (``victory``), the end once it is reached, the battles fought."""

    ledger: tuple[VpEntry, ...] = ()
    finished: bool = False
    result: str = ""  # the verdict, once finished
    air_battles: int = 0  # strikes on a hex and interceptions fought, for the game's tallies
    surface_battles: int = 0
    sub_battles: int = 0  # submarine fights (a sub and a TF)

    def scored(self, entries: Iterable[VpEntry | None]) -> Score:
        """With ``entries`` in the ledger (None skipped; GameError if a key was scored already)."""
        return replace(self, ledger=record(self.ledger, entries))

    def counted(self, *, air: int = 0, surface: int = 0, sub: int = 0) -> Score:
        """With more battles fought: the game's tallies."""
        return replace(
            self,
            air_battles=self.air_battles + air,
            surface_battles=self.surface_battles + surface,
            sub_battles=self.sub_battles + sub,
        )

    def ended(self, verdict: str) -> Score:
        return replace(self, finished=True, result=verdict)


@dataclass(frozen=True)
class Water:
    """Survivors of sunk and crippled ships (seed 003, "Survivors"; rules in ``combat.survivors``)."""

    survivors: tuple[Survivors, ...] = ()  # groups in the water
    aboard: tuple[Aboard, ...] = ()  # survivors carried, per rescuing ship
    landed: tuple[Landed, ...] = ()  # survivors put ashore on friendly territory
    stranded: tuple[Stranded, ...] = ()  # survivors still aboard crippled ships (rolled at the first offload)
    rescuing: frozenset[str] = frozenset()  # ships anchored this turn by a rescue


@dataclass(frozen=True)
class Undersea:
    """The submarines' war (seed 003, 27, with the option ``submarines``), hour after hour."""

    subs: tuple[SubState, ...] = ()  # each submarine's depth, moves, torpedoes (27), by name
    asw: tuple[AswState, ...] = ()  # surface ships' ASW attacks and sub attacks suffered (27.9)


@dataclass(frozen=True)
class Pending:
    """What the hour under way carries from one sub-step to the next: ``hour.phases.pending``
    reads from it which sub-step the game waits for (no battle, no surface fight: the orders)."""

    battle: Battle | None = None  # the Combat Phase waiting for a choice sub-step
    surface: SurfaceFight | None = None  # this hour's surface battles under way (seed 003, 19)
    sub_hour: SubHour | None = None  # this hour's submarine orders, kept for the Combat Phase


@dataclass(frozen=True)
class FlatTopState:
    """The referee's truth. First the board: the hour, the weather, the units and what each side
    knows; then the game's options, its score, the survivors, the submarines, and what the hour
    under way carries between its sub-steps. Saved flat (:func:`dump_state`)."""

    config: Mapping[str, Any]  # {"scenario": raw scenario, "tables": raw tables}
    rules: Rules = field(compare=False, repr=False)
    turn: int
    weather: Weather
    task_forces: tuple[TaskForce, ...]
    bases: tuple[Base, ...]
    air: tuple[AirFormation, ...]
    sides: tuple[SideState, ...]
    initiative: InitiativeRecord = field(default_factory=InitiativeRecord)
    last_initiative: InitiativeNote | None = None
    tows: tuple[TowPair, ...] = ()  # tows in force (seed 003, Towing)
    firings: Firings = field(default_factory=Firings)  # 19.8: DD/APD firings since replenishing
    options: Options = Options()
    score: Score = Score()
    water: Water = Water()
    undersea: Undersea = Undersea()
    pending: Pending = Pending()

    @property
    def scenario(self) -> Scenario:
        return self.rules.scenario

    @property
    def time(self) -> GameTime:
        return self.scenario.start.plus(self.turn - 1)

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(s.side.value for s in self.sides)

    def side(self, side: Side) -> SideState:
        return next(s for s in self.sides if s.side is side)

    def with_side(self, updated: SideState) -> FlatTopState:
        return replace(self, sides=tuple(updated if s.side is updated.side else s for s in self.sides))

    def own_tfs(self, side: Side) -> tuple[TaskForce, ...]:
        return tuple(tf for tf in self.task_forces if tf.side is side)

    def own_bases(self, side: Side) -> tuple[Base, ...]:
        return tuple(b for b in self.bases if b.side is side)

    def own_air(self, side: Side) -> tuple[AirFormation, ...]:
        return tuple(af for af in self.air if af.side is side)


def scenario_sides(scenario: Scenario) -> tuple[Side, ...]:
    """The sides with units in the scenario, Allied first (the seats of the game)."""
    present = {tf.side for tf in scenario.task_forces} | {b.side for b in scenario.bases}
    return tuple(s for s in Side if s in present)


def new_state(
    scenario_data: Mapping[str, Any],
    tables: Mapping[str, Any],
    dice: Dice,
    options: Mapping[str, Any] | None = None,
) -> FlatTopState:
    rules = build_rules(scenario_data, tables)
    options = options or {}
    submarines = submarines_option(options)
    if submarines:
        submarine_rules(tables)  # GameError now rather than in the first hour with submarines
    weather, _ = initial_weather(rules.scenario, rules.weather, dice)
    sides = tuple(SideState(s, Knowledge(s.value)) for s in scenario_sides(rules.scenario))
    return FlatTopState(
        config={"scenario": scenario_data, "tables": tables},
        rules=rules,
        turn=1,
        weather=weather,
        task_forces=rules.scenario.task_forces,
        bases=rules.scenario.bases,
        air=(),
        sides=sides,
        options=Options(
            crt=str(options.get("crt", "curve-fitted")),
            strike_hours=int(options.get("strike_hours", 12)),
            submarines=submarines,
            launch_wind=str(options.get("launch_wind", "standard")),
        ),
    )


# --- JSON ------------------------------------------------------------------------


def dump_state(state: FlatTopState) -> dict[str, Any]:
    """The saved form is flat, one key a field as before the state had sub-records (version 1)."""
    options, score, water, pending = state.options, state.score, state.water, state.pending
    return {
        "version": STATE_VERSION,
        "config": state.config,
        "turn": state.turn,
        "weather": units_json.dump(state.weather),
        "task_forces": units_json.dump(state.task_forces),
        "bases": units_json.dump(state.bases),
        "air": units_json.dump(state.air),
        "sides": [_dump_side(s) for s in state.sides],
        "initiative": units_json.dump(state.initiative),
        "last_initiative": units_json.dump(state.last_initiative),
        "finished": score.finished,
        "result": score.result,
        "battle": units_json.dump(pending.battle),
        "surface": units_json.dump(pending.surface),
        "crt": options.crt,
        "strike_hours": options.strike_hours,
        "ledger": units_json.dump(score.ledger),
        "battles": [score.air_battles, score.surface_battles],
        "survivors": units_json.dump(water.survivors),
        "aboard": units_json.dump(water.aboard),
        "landed": units_json.dump(water.landed),
        "stranded": units_json.dump(water.stranded),
        "rescuing": sorted(water.rescuing),
        "tows": units_json.dump(state.tows),
        "firings": units_json.dump(state.firings),
        "submarines": options.submarines,
        "subs": units_json.dump(state.undersea.subs),
        "asw": units_json.dump(state.undersea.asw),
        "sub_hour": units_json.dump(pending.sub_hour),
        "sub_battles": score.sub_battles,
        "launch_wind": options.launch_wind,
    }


def _dump_side(s: SideState) -> dict[str, Any]:
    return {
        "side": s.side.value,
        "knowledge": knowledge_json.dump(s.knowledge),
        "deception": s.deception.value,
        "seen": sorted(s.seen),
        "priority": list(s.priority),
        "ranking": list(s.ranking),
        "engage": s.engage,
        "cap_dive": s.cap_dive,
        "escort_priority": list(s.escort_priority),
        "wake": list(s.wake),
    }


def _load_side(data: Mapping[str, Any]) -> SideState:
    return SideState(
        side=Side(data["side"]),
        knowledge=knowledge_json.load(data["knowledge"]),
        deception=Deception(data["deception"]),
        seen=frozenset(str(ref) for ref in data["seen"]),
        priority=tuple(str(t) for t in data.get("priority", ())),
        ranking=tuple(str(p) for p in data.get("ranking", ())),
        engage=bool(data.get("engage", True)),
        cap_dive=bool(data.get("cap_dive", True)),
        escort_priority=tuple(str(p) for p in data.get("escort_priority", ())),
        wake=tuple(int(t) for t in data.get("wake", ())),
    )


def load_state(data: Mapping[str, Any]) -> FlatTopState:
    """Inverse of :func:`dump_state`; malformed data is a stored-state bug: GameError."""
    try:
        if data["version"] != STATE_VERSION:
            raise GameError(f"Flat Top state version {data['version']!r} is not {STATE_VERSION}")
        config = data["config"]
        note = data["last_initiative"]
        return FlatTopState(
            config=config,
            rules=build_rules(config["scenario"], config["tables"]),
            turn=int(data["turn"]),
            weather=units_json.load(Weather, data["weather"]),
            task_forces=tuple(units_json.load(TaskForce, t) for t in data["task_forces"]),
            bases=tuple(units_json.load(Base, b) for b in data["bases"]),
            air=tuple(units_json.load(AirFormation, a) for a in data["air"]),
            sides=tuple(_load_side(s) for s in data["sides"]),
            initiative=units_json.load(InitiativeRecord, data["initiative"]),
            last_initiative=None if note is None else units_json.load(InitiativeNote, note),
            tows=tuple(units_json.load(TowPair, p) for p in data.get("tows", ())),
            firings=units_json.load(Firings, data.get("firings", {"fired": []})),
            options=_load_options(data),
            score=_load_score(data),
            water=_load_water(data),
            undersea=Undersea(
                subs=tuple(units_json.load(SubState, x) for x in data.get("subs", ())),
                asw=tuple(units_json.load(AswState, x) for x in data.get("asw", ())),
            ),
            pending=_load_pending(data),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise GameError(f"malformed Flat Top state: {exc!r}") from exc


# Keys added after the first saved games have defaults: a state saved before them loads as a game
# without them (no submarines, no survivors, nothing scored yet).


def _load_options(data: Mapping[str, Any]) -> Options:
    return Options(
        crt=str(data.get("crt", "curve-fitted")),
        strike_hours=int(data.get("strike_hours", 12)),
        submarines=bool(data.get("submarines", False)),
        launch_wind=str(data.get("launch_wind", "standard")),
    )


def _load_score(data: Mapping[str, Any]) -> Score:
    air, surface = data.get("battles", (0, 0))
    return Score(
        ledger=tuple(units_json.load(VpEntry, e) for e in data.get("ledger", ())),
        finished=bool(data["finished"]),
        result=str(data["result"]),
        air_battles=int(air),
        surface_battles=int(surface),
        sub_battles=int(data.get("sub_battles", 0)),
    )


def _load_water(data: Mapping[str, Any]) -> Water:
    return Water(
        survivors=tuple(units_json.load(Survivors, g) for g in data.get("survivors", ())),
        aboard=tuple(units_json.load(Aboard, a) for a in data.get("aboard", ())),
        landed=tuple(units_json.load(Landed, x) for x in data.get("landed", ())),
        stranded=tuple(units_json.load(Stranded, x) for x in data.get("stranded", ())),
        rescuing=frozenset(str(n) for n in data.get("rescuing", ())),
    )


def _load_pending(data: Mapping[str, Any]) -> Pending:
    battle, surface, sub_hour = data.get("battle"), data.get("surface"), data.get("sub_hour")
    return Pending(
        battle=None if battle is None else units_json.load(Battle, battle),
        surface=None if surface is None else units_json.load(SurfaceFight, surface),
        sub_hour=None if sub_hour is None else units_json.load(SubHour, sub_hour),
    )
