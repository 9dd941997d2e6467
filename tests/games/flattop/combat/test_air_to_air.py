# SPDX-License-Identifier: GPL-3.0-or-later
"""Air-to-air combat (standard 16 as reference A.10, A.11.4; seed 003, 15 LI 5 and 7, 15.2, 14.13.2).

Every CRT roll is a 2d6 base roll on the shipped curve-fitted table. A base
roll of 2 (faces 1+1) multiplies the cell by 0 there, so ``NO_HITS`` makes a
whole battle bloodless; single rolls are then set by their label.
"""

from __future__ import annotations

from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.combat import air_to_air as a2a
from mailbot.games.flattop.combat.air_to_air import AirBattle, Flight, fight
from mailbot.games.flattop.combat.bht import HitTables
from mailbot.games.flattop.combat.crt import CombatTable, combat_table
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.map.scenario import plane_types
from mailbot.games.flattop.observation.observe import interception_modifier
from mailbot.games.flattop.units import AirFactors, Altitude, Armament, PlaneType, Side

from ..conftest import load_tables

JAP, ALL = Side.JAPANESE, Side.ALLIED
HIGH, LOW = Altitude.HIGH, Altitude.LOW
NO_HITS = (1, 1) * 60  # every unlabelled base roll is a 2: no hits on the curve-fitted table
LABEL = "T5/hex"
Three = tuple[list[Flight], list[Flight], list[Flight]]  # interceptors, escorts, bombers


@pytest.fixture(scope="module")
def tables() -> dict[str, Any]:
    return load_tables()


@pytest.fixture(scope="module")
def planes(tables: dict[str, Any]) -> dict[str, PlaneType]:
    return plane_types(tables["planes"])


@pytest.fixture(scope="module")
def hit(tables: dict[str, Any]) -> HitTables:
    return HitTables.from_mapping(tables["air-attack"])


@pytest.fixture(scope="module")
def crt(tables: dict[str, Any]) -> CombatTable:
    return combat_table(tables, "curve-fitted")


def flight(
    side: Side,
    af: int,
    role: str,
    *stacks: tuple[str, int],
    altitude: Altitude = HIGH,
    rf: int = 3,
    **kw: Any,
) -> Flight:
    armament = Armament.GP if role == "bomber" else None
    factors = tuple(AirFactors(plane, count, armament=armament, altitude=altitude) for plane, count in stacks)
    return Flight(side, af, factors, altitude, role, rf, **kw)  # type: ignore[arg-type]


class Battle:
    """Runs :func:`fight` with the shipped tables; ``by_label`` sets single base rolls."""

    def __init__(self, planes: dict[str, PlaneType], hit: HitTables, crt: CombatTable) -> None:
        self.planes, self.hit, self.crt = planes, hit, crt
        self.dice = FixedDice()

    def __call__(
        self,
        interceptors: list[Flight],
        escorts: list[Flight],
        bombers: list[Flight],
        by_label: dict[str, tuple[int, int]] | None = None,
        **kw: Any,
    ) -> AirBattle:
        self.dice = FixedDice(NO_HITS, by_label={k: list(v) for k, v in (by_label or {}).items()})
        options: dict[str, Any] = {"cloud": False, "night": False} | kw
        return fight(
            interceptors, escorts, bombers,
            planes=self.planes, hit_tables=self.hit, table=self.crt, dice=self.dice, label=LABEL, **options,
        )  # fmt: skip


@pytest.fixture
def battle(planes: dict[str, PlaneType], hit: HitTables, crt: CombatTable) -> Battle:
    return Battle(planes, hit, crt)


def shots(result: AirBattle, stage: str, side: Side) -> list[a2a.Shot]:
    return [s for st in result.stages if st.name == stage for s in st.shots if s.side is side]


def label(stage: str, side: Side, plane: str, target: str, altitude: Altitude = HIGH) -> str:
    return f"{LABEL}/{altitude.value}/{stage}/{side.value}/{plane}>{target}"


# --- seed 003, 15 Limited Intelligence 7 ---------------------------------------------------


def test_li7_only_three_bomber_factors_per_interceptor_fire_back(battle: Battle) -> None:
    """Seed 003, 15 LI 7: "Interceptors that attack bomber formations may only be attacked in
    that combat by a maximum number of bomber factors that is three times the number of
    interceptors. Example: 6 Zero factors attack 24 factors of B-26's. Only 18 of the B-26
    factors may fire back in defense." """
    result = battle(
        [flight(JAP, 1, "interceptor", ("Zero", 6))], [], [flight(ALL, 4, "bomber", ("B-26", 24))]
    )
    assert result.bombers_attacked
    assert result.bomber_fire_cap == 18
    assert "only 18 of the 24 bomber factors may fire back (15 LI 7)" in result.log
    (back,) = shots(result, a2a.BOMBER_STAGE, ALL)
    assert (back.plane, back.factors, back.target) == ("B-26", 18, "Zero")
    assert "x 18 factors" in back.text
    (zeros,) = shots(result, a2a.BOMBER_STAGE, JAP)
    assert (zeros.factors, zeros.target) == (6, "B-26")
    rolled = {roll.label: roll for roll in battle.dice.log}
    assert rolled[label(a2a.BOMBER_STAGE, ALL, "B-26+armed", "Zero")].count == 2  # one 2d6 base roll


def test_li7_cap_does_not_bind_when_interceptors_are_many(battle: Battle) -> None:
    """Seed 003, 15 LI 7: "a maximum number of bomber factors that is three times the number of
    interceptors": 8 Zeros against 24 B-26s let all 24 fire back."""
    result = battle(
        [flight(JAP, 1, "interceptor", ("Zero", 8))], [], [flight(ALL, 4, "bomber", ("B-26", 24))]
    )
    (back,) = shots(result, a2a.BOMBER_STAGE, ALL)
    assert back.factors == 24
    assert result.bomber_fire_cap == 24


def test_li7_cap_picks_the_best_bombers_first(battle: Battle) -> None:
    """Seed 003, 15 LI 7: "Only 18 of the B-26 factors may fire back"; which ones is a design
    default: the best air-to-air BHT (B-17 8 before B-26 4)."""
    bombers = [flight(ALL, 4, "bomber", ("B-26", 20)), flight(ALL, 5, "bomber", ("B-17", 4))]
    result = battle([flight(JAP, 1, "interceptor", ("Zero", 4))], [], bombers)
    fired = {s.plane: s.factors for s in shots(result, a2a.BOMBER_STAGE, ALL)}
    assert fired == {"B-17": 4, "B-26": 8}


# --- standard 16: the two stages and the 2:1 rules (reference A.11.4) -------------------------


def test_16_anti_escort_survivors_at_two_to_one_join_the_bombers(battle: Battle) -> None:
    """Reference A.11.4: "Surviving anti-escort interceptors at >=2:1 over the escorts may join
    the attack on the bombers." 8 Zeros split 4/4; 4 survivors against 2 Wildcats join."""
    result = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 8))],
        [flight(JAP, 3, "escort", ("Zero", 2))],
        [flight(JAP, 3, "bomber", ("Val", 6))],
    )
    assert (result.anti_escort, result.anti_bomber, result.joined) == (4, 4, 4)
    (attack,) = shots(result, a2a.BOMBER_STAGE, ALL)
    assert (attack.plane, attack.factors) == ("Wildcat", 8)


def test_16_anti_escort_short_of_two_to_one_stays(battle: Battle) -> None:
    """Reference A.11.4: "Otherwise only the anti-bomber group attacks." 3 survivors against
    4 escorts stay; the 3 anti-bomber Wildcats attack alone."""
    result = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 6))],
        [flight(JAP, 3, "escort", ("Zero", 4))],
        [flight(JAP, 3, "bomber", ("Val", 6))],
    )
    assert (result.anti_escort, result.joined) == (3, 0)
    (attack,) = shots(result, a2a.BOMBER_STAGE, ALL)
    assert attack.factors == 3
    assert result.bombers_attacked


def test_16_escort_losses_count_for_the_two_to_one(battle: Battle) -> None:
    """Reference A.11.4: "Surviving anti-escort interceptors at >=2:1 over the escorts" -
    survivors on both sides: 4 Wildcats shoot 3 Zeros down to 1 (base roll 12), then join."""
    at_escorts = label(a2a.ESCORT_STAGE, ALL, "Wildcat", "Zero")
    result = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 8))],
        [flight(JAP, 3, "escort", ("Zero", 3))],
        [flight(JAP, 3, "bomber", ("Val", 6))],
        by_label={at_escorts: (6, 6)},
    )
    assert result.lost(JAP, "Zero") == 2
    assert result.joined == 4
    (attack,) = shots(result, a2a.BOMBER_STAGE, ALL)
    assert attack.factors == 8


def test_16_escorts_at_two_to_one_stop_the_attack(battle: Battle) -> None:
    """Reference A.11.4: "Escorts at >=2:1 over those interceptors stop any attack on the
    bombers." 4 Zero escorts against 2 anti-bomber Wildcats (exactly 2:1)."""
    result = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 4))],
        [flight(JAP, 3, "escort", ("Zero", 4))],
        [flight(JAP, 3, "bomber", ("Val", 6))],
    )
    assert not result.bombers_attacked
    assert shots(result, a2a.BOMBER_STAGE, ALL) == []
    assert shots(result, a2a.BOMBER_STAGE, JAP) == []
    assert result.lost(JAP, "Val") == 0
    assert any("no attack on the bombers" in note for st in result.stages for note in st.notes)


def test_16_escorts_short_of_two_to_one_do_not_stop_the_attack(battle: Battle) -> None:
    """Reference A.11.4: escorts stop the attack only at ">=2:1": 3 Zeros against 2 Wildcats do not."""
    result = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 4))],
        [flight(JAP, 3, "escort", ("Zero", 3))],
        [flight(JAP, 3, "bomber", ("Val", 6))],
    )
    assert result.bombers_attacked
    assert [s.factors for s in shots(result, a2a.BOMBER_STAGE, ALL)] == [2]


def test_16_escort_fight_is_simultaneous_one_roll_per_plane_name(battle: Battle) -> None:
    """Reference A.11.4: "(1) interceptors vs escorts ... simultaneous fire, one roll per plane
    name": both sides fire even when the first roll wipes the other side out."""
    result = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 4)), flight(ALL, 2, "interceptor", ("Wildcat", 2))],
        [flight(JAP, 3, "escort", ("Zero", 1))],
        [],
        by_label={label(a2a.ESCORT_STAGE, ALL, "Wildcat", "Zero"): (6, 6)},
    )
    (wildcats,) = shots(result, a2a.ESCORT_STAGE, ALL)
    assert wildcats.factors == 6  # two AFs, one plane name: one roll
    assert [s.plane for s in shots(result, a2a.ESCORT_STAGE, JAP)] == ["Zero"]
    assert result.lost(JAP) == 1  # the hits beyond the one Zero are lost


def test_16_interceptors_against_interceptors(battle: Battle) -> None:
    """Reference A.11.4: "Interceptor-vs-interceptor works like the escort fight, but with no
    bomber stage": both sides fire, both AFs pay their RF."""
    result = battle(
        [flight(JAP, 1, "interceptor", ("Zero", 6))],
        [flight(ALL, 2, "interceptor", ("Wildcat", 6))],
        [],
        by_label={
            label(a2a.ESCORT_STAGE, JAP, "Zero", "Wildcat"): (6, 6),
            label(a2a.ESCORT_STAGE, ALL, "Wildcat", "Zero"): (5, 5),
        },
    )
    assert [st.name for st in result.stages] == [a2a.ESCORT_STAGE]
    assert result.lost(ALL, "Wildcat") > 0
    assert result.lost(JAP, "Zero") > 0
    assert result.rf_spent == {(JAP, 1), (ALL, 2)}
    assert not result.bombers_attacked


def test_16_only_interceptors_start_air_to_air(battle: Battle) -> None:
    """Reference A.11.4: "only interceptors start air-to-air": escorts and bombers alone, no fight."""
    result = battle([], [flight(JAP, 3, "escort", ("Zero", 4))], [flight(JAP, 3, "bomber", ("Val", 6))])
    assert result.rolls == () and result.losses == () and result.rf_spent == frozenset()


def test_16_split_orders(battle: Battle) -> None:
    """Reference A.11.4: "the interceptor side may split its interceptors into an anti-escort and
    an anti-bomber group" - the defender's standing order, evenly by default."""
    args: Three = (
        [flight(ALL, 1, "interceptor", ("Wildcat", 5), ("P-39", 3))],
        [flight(JAP, 3, "escort", ("Zero", 1))],
        [flight(JAP, 3, "bomber", ("Val", 6))],
    )
    even = battle(*args)
    assert (even.anti_escort, even.anti_bomber) == (4, 4)  # Wildcat 3/2, then P-39 1/2
    to_escorts = battle(*args, split="escorts")
    assert (to_escorts.anti_escort, to_escorts.anti_bomber) == (8, 0)
    to_bombers = battle(*args, split="bombers")
    assert (to_bombers.anti_escort, to_bombers.anti_bomber) == (0, 8)
    assert shots(to_bombers, a2a.ESCORT_STAGE, JAP) == []
    with pytest.raises(GameError, match="split"):
        battle(*args, split="all")


def test_li5_escorts_shoot_at_the_types_they_prioritise(battle: Battle) -> None:
    """Seed 003, 15 LI 5: "If more than one type of interceptor is attacking the escorts, the player
    with the escorts must prioritize the types of interceptor he wishes to shoot at"."""
    args: Three = (
        [flight(JAP, 1, "interceptor", ("Zero", 6), ("Rufe", 2))],
        [flight(ALL, 3, "escort", ("Wildcat", 4))],
        [],
    )
    assert [s.target for s in shots(battle(*args, split="escorts"), a2a.ESCORT_STAGE, ALL)] == ["Zero"]
    chosen = battle(*args, split="escorts", escort_priority=["Rufe", "Zero"])
    assert [s.target for s in shots(chosen, a2a.ESCORT_STAGE, ALL)] == ["Rufe"]


def test_16_plane_names_fire_whole_biggest_at_biggest(battle: Battle) -> None:
    """Reference A.11.4: "a plane name's factors may be split between several enemy plane names";
    design default: each name fires whole, the biggest at the biggest enemy name, in turn."""
    result = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 6), ("P-39", 2))],
        [flight(JAP, 3, "escort", ("Zero", 5), ("Rufe", 2))],
        [],
    )
    fired = {(s.plane, s.factors, s.target) for s in shots(result, a2a.ESCORT_STAGE, ALL)}
    assert fired == {("Wildcat", 6, "Zero"), ("P-39", 2, "Rufe")}


def test_16_losses_spread_over_the_afs_of_a_plane_name(battle: Battle) -> None:
    """Reference A.11.4: "A hit = one air factor lost"; hits on one plane name fall on its AFs
    with the most factors left first."""
    result = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 8))],
        [flight(JAP, 3, "escort", ("Zero", 3)), flight(JAP, 4, "escort", ("Zero", 3))],
        [],
        by_label={label(a2a.ESCORT_STAGE, ALL, "Wildcat", "Zero"): (6, 6)},
    )
    assert sum(x.count for x in result.losses if x.side is JAP) == result.lost(JAP, "Zero") >= 2
    by_af = {x.af: x.count for x in result.losses if x.side is JAP}
    assert set(by_af) == {3, 4} and abs(by_af[3] - by_af[4]) <= 1


# --- RF and modifiers (reference A.10; seed 003, 16.10.4, 16.12) -----------------------------


def test_a10_rf_spent_or_minus_six(battle: Battle) -> None:
    """Reference A.10: "Interceptors and escorts spend 1 RF per turn of air-to-air combat. They may
    refuse to spend it, but then take BHT -6"; "Bombers spend nothing in air-to-air combat"."""
    result = battle(
        [flight(JAP, 1, "interceptor", ("Zero", 4), rf=0)],
        [flight(ALL, 2, "escort", ("Wildcat", 4), rf=1)],
        [flight(ALL, 2, "bomber", ("Dauntless", 2), rf=0)],
        split="escorts",
    )
    assert result.rf_spent == {(ALL, 2)}
    bht = {s.plane: s.bht for st in result.stages for s in st.shots}
    assert bht["Zero"] == 9 - 6
    assert bht["Wildcat"] == 9


def test_a10_rf_paid_once_per_turn_for_both_altitudes(battle: Battle) -> None:
    """Reference A.10: "1 RF per turn of air-to-air combat": an AF that paid at High pays nothing
    more at Low and fights there without the -6."""
    result = battle(
        [flight(JAP, 1, "interceptor", ("Zero", 4), altitude=LOW, rf=0)],
        [flight(ALL, 2, "escort", ("Wildcat", 4), altitude=LOW)],
        [],
        rf_paid={(JAP, 1)},
    )
    assert result.rf_spent == {(ALL, 2)}
    assert {s.plane: s.bht for s in result.stages[0].shots}["Zero"] == 9


def test_16_12_diving_cap_must_spend_rf(battle: Battle) -> None:
    """Seed 003, 16.12: "Factors that elect to dive MUST expend an RF for the combat; they may not
    take the -6 modifier." """
    divers = flight(ALL, 1, "interceptor", ("Wildcat", 3), altitude=LOW, rf=0, dived=True)
    with pytest.raises(GameError, match=r"16\.12"):
        battle([divers], [], [flight(JAP, 3, "bomber", ("Kate", 6), altitude=LOW)])
    paying = flight(ALL, 1, "interceptor", ("Wildcat", 3), altitude=LOW, rf=1, dived=True)
    assert battle([paying], [], [flight(JAP, 3, "bomber", ("Kate", 6), altitude=LOW)]).rf_spent == {(ALL, 1)}


def test_16_10_armed_fighters_fire_back_at_minus_six(battle: Battle) -> None:
    """Standard 16.10 (reference A.11.4: "Armed Wildcat, P-38, P-39, P-40, Beaufighter, Zero, Rufe
    -6"); seed 003, 16.10.4: "These same plane types have their MF reduced by 1 when armed." An
    armed Zero bomber fires back at 9 - 6; a Val, not on the list, at its own BHT."""
    result = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 6))],
        [],
        [flight(JAP, 3, "bomber", ("Zero", 2), ("Val", 3))],
    )
    bht = {s.plane: s.bht for s in shots(result, a2a.BOMBER_STAGE, JAP)}
    assert bht == {"Zero": 3, "Val": 2}


def test_16_10_cloud_and_night_reach_the_bht(battle: Battle) -> None:
    """Reference A.11.4 (standard 16.10): "Cloud hex -1", "Night -2"."""
    args: Three = (
        [flight(ALL, 1, "interceptor", ("Wildcat", 4))],
        [],
        [flight(JAP, 3, "bomber", ("Val", 3))],
    )
    bht = {s.plane: s.bht for st in battle(*args, cloud=True, night=True).stages for s in st.shots}
    assert bht == {"Wildcat": 9 - 3, "Val": 2 - 3}


def test_16_high_and_low_are_fought_separately(battle: Battle) -> None:
    """Reference A.11.4: "High and Low are fought separately." One fight, one altitude; each
    altitude's rolls have their own labels."""
    with pytest.raises(GameError, match="separately"):
        battle(
            [flight(ALL, 1, "interceptor", ("Wildcat", 4))],
            [],
            [flight(JAP, 3, "bomber", ("Val", 3), altitude=LOW)],
        )
    high = battle([flight(ALL, 1, "interceptor", ("Wildcat", 4))], [], [flight(JAP, 3, "bomber", ("Val", 3))])
    high_labels = {roll.label for roll in battle.dice.log}
    low = battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 4), altitude=LOW)],
        [],
        [flight(JAP, 4, "bomber", ("Kate", 3), altitude=LOW)],
    )
    low_labels = {roll.label for roll in battle.dice.log}
    assert (high.altitude, low.altitude) == (HIGH, LOW)
    assert all("/high/" in x for x in high_labels) and all("/low/" in x for x in low_labels)
    assert all(s.target == "Kate" for st in low.stages for s in st.shots if s.side is ALL)


def test_16_every_roll_has_its_own_label(battle: Battle) -> None:
    """Seed 003, 15: "Combat is resolved by the defender" - here by labelled dice, each once."""
    battle(
        [flight(ALL, 1, "interceptor", ("Wildcat", 6), ("P-39", 4))],
        [flight(JAP, 3, "escort", ("Zero", 2))],
        [flight(JAP, 3, "bomber", ("Val", 6), ("Kate", 4))],
    )
    labels = [roll.label for roll in battle.dice.log]
    assert len(labels) == len(set(labels)) >= 6


def test_sides_are_checked(battle: Battle) -> None:
    """Reference A.11.4: interceptors of one side fight the other side's escorts and bombers."""
    with pytest.raises(GameError, match="side"):
        battle(
            [flight(ALL, 1, "interceptor", ("Wildcat", 4))], [], [flight(ALL, 3, "bomber", ("Dauntless", 3))]
        )


# --- where air-to-air combat may happen --------------------------------------------------------

SPOT = Hex(5, 10)


def test_a10_air_to_air_near_plane_places_or_with_ships() -> None:
    """Reference A.10: "Air-to-air: only within 2 hexes of a plane-carrying ship or base, or in any
    hex containing any ship, and only between observed units." """

    def allowed(**kw: Any) -> bool:
        options: dict[str, Any] = {"ships_in_hex": False, "plane_places": (), "radar_places": ()} | kw
        return a2a.air_combat_allowed(SPOT, LOW, **options)

    assert allowed(ships_in_hex=True)
    assert allowed(plane_places=[Hex(5, 12)])
    assert not allowed(plane_places=[Hex(5, 13)])
    assert not allowed()


def test_15_2_radar_three_hexes_high_only() -> None:
    """Seed 003, 15.2: "Air-To-Air Combat is also allowed three hexes from a base or TF that is radar
    equipped, but only at High altitude." """
    radar = [Hex(5, 13)]
    kw: dict[str, Any] = {"ships_in_hex": False, "plane_places": ()}
    assert a2a.air_combat_allowed(SPOT, HIGH, radar_places=radar, **kw)
    assert not a2a.air_combat_allowed(SPOT, LOW, radar_places=radar, **kw)
    assert not a2a.air_combat_allowed(SPOT, HIGH, radar_places=[Hex(5, 14)], **kw)


def test_14_13_2_interception_outside_combat_hexes() -> None:
    """Seed 003, 14.13.2: "This type (only) of Special Interception is allowed in any hex on the map.
    If the attempt is made in a hex where combat cannot usually occur, subtract one from the die roll." """
    assert interception_modifier(True) == 0
    assert interception_modifier(False) == -1
