# SPDX-License-Identifier: GPL-3.0-or-later
"""Basic Hit Tables and their modifiers: standard 16.10, 17, 18 (reference A.11.4-A.11.6, B.8) and
seed 003's Air Modifier Chart change, 16.10.4, 21.8.2 and Limited Intelligence 2."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop.combat.bht import (
    ARMED_FIGHTERS,
    AttackKind,
    HitTables,
    aa_factors,
    armed_mf_penalty,
)
from mailbot.games.flattop.map.scenario_reader import plane_types
from mailbot.games.flattop.units import Armament, PlaneType, Ship, ShipType

DIVE, HIGH, LOW, TORPEDO = AttackKind.DIVE, AttackKind.LEVEL_HIGH, AttackKind.LEVEL_LOW, AttackKind.TORPEDO
AP, GP, TORP = Armament.AP, Armament.GP, Armament.TORPEDO


@pytest.fixture(scope="module")
def hit(ft_tables: dict[str, Any]) -> HitTables:
    return HitTables.from_mapping(ft_tables["air-attack"])


@pytest.fixture(scope="module")
def planes(ft_tables: dict[str, Any]) -> dict[str, PlaneType]:
    return plane_types(ft_tables["planes"])


def raw(ft_tables: dict[str, Any], plane: str, entry: str, target: str) -> int:
    """A BHT as air-attack.toml writes it."""
    value = ft_tables["air-attack"]["planes"][plane][entry][target]
    assert isinstance(value, int)
    return value


def ship(name: str, kind: ShipType, aa: int, *, hits: int = 0, damage: int = 6) -> Ship:
    return Ship(name, kind, gunnery=3, aa=aa, torpedo=0, movement=2, damage=damage, hits=hits)


# --- the Air Hit Tables (design defaults) ---------------------------------------------------


def test_a_11_6_example_bhts(hit: HitTables) -> None:
    """Reference A.11.6: "Example BHTs: Dauntless dive-bombing a ship with AP -> 7. Avenger torpedo
    attack on a ship -> 6." """
    assert hit.attack("Dauntless", DIVE, AP, base_target=False).value == 7
    assert hit.attack("Avenger", TORPEDO, TORP, base_target=False).value == 6


def test_air_hit_tables_are_marked_design_defaults(hit: HitTables, ft_tables: dict[str, Any]) -> None:
    """The booklet's Air Hit Tables are not available: the data and every attack BHT must say so."""
    data = ft_tables["air-attack"]
    assert data["default"] is True
    assert data["planes"]["default"] is True
    assert "anchors reference A.11.6" in data["planes"]["source"]
    assert hit.default is True
    bht = hit.attack("Val", DIVE, AP, base_target=False)
    assert bht.default
    assert bht.text.endswith("(design default)")


def test_every_plane_that_may_bomb_has_a_table(hit: HitTables, planes: dict[str, PlaneType]) -> None:
    """Standard 8.12 roles (planes.toml): bombers ("B") and fighter-bombers ("F") have an Air Hit
    Table, interceptor/escort float planes ("E": Dave, Jake, Pete) none."""
    bombers = {name for name, plane in planes.items() if "bomber" in plane.roles}
    assert set(hit.planes) == bombers
    for name in ("Dave", "Jake", "Pete"):
        assert hit.kinds(name, GP) == ()
        with pytest.raises(GameError):
            hit.attack(name, LOW, GP, base_target=False)


def test_torpedo_attacks_match_the_torpedo_loads(hit: HitTables, planes: dict[str, PlaneType]) -> None:
    """planes.toml [loads]: "torpedoes only the torpedo bombers listed"; the same planes, and only
    they, have a torpedo line, against ships only."""
    torpedo_planes = {name for name, plane in planes.items() if TORP in plane.loads}
    assert {name for name in hit.planes if hit.kinds(name, TORP)} == torpedo_planes
    for name in torpedo_planes:
        assert hit.kinds(name, TORP) == (TORPEDO,)
        with pytest.raises(GameError):
            hit.attack(name, TORPEDO, TORP, base_target=True)
        with pytest.raises(GameError):
            hit.attack(name, TORPEDO, AP, base_target=False)


def test_which_attacks_each_kind_of_plane_may_make(hit: HitTables) -> None:
    """Design default: fighters carry GP and may only dive or level bomb Low; heavy and medium bombers
    level bomb only; dive bombers dive."""
    for fighter in ARMED_FIGHTERS:
        assert hit.kinds(fighter, AP) == ()
        assert set(hit.kinds(fighter, GP)) <= {DIVE, LOW}
        assert LOW in hit.kinds(fighter, GP)
    assert hit.kinds("Wildcat", GP) == (DIVE, LOW)
    for bomber in ("B-17", "B-25", "B-26", "Hudson", "Catalina", "Mavis", "Emily"):
        assert hit.kinds(bomber, GP) == (HIGH, LOW), bomber
    assert hit.kinds("A-20", AP) == (LOW,)
    for dive_bomber in ("Dauntless", "Val", "Judy"):
        assert hit.kinds(dive_bomber, AP) == (DIVE, LOW)
    with pytest.raises(GameError, match="not an attack"):
        hit.attack("B-17", DIVE, GP, base_target=False)
    with pytest.raises(GameError, match="not an attack"):
        hit.attack("Wildcat", DIVE, AP, base_target=False)


def test_design_default_shape(hit: HitTables, ft_tables: dict[str, Any]) -> None:
    """Design default: dive bombers do best diving on ships with AP; High level bombing rarely hits a
    ship but a heavy bomber hits a base well; Low is better than High against ships."""
    for dive_bomber in ("Dauntless", "Val", "Judy"):
        best = raw(ft_tables, dive_bomber, "dive-AP", "ship")
        assert best > raw(ft_tables, dive_bomber, "level-low-AP", "ship")
        assert best > raw(ft_tables, dive_bomber, "dive-AP", "base")
        assert raw(ft_tables, dive_bomber, "dive-GP", "base") > raw(ft_tables, dive_bomber, "dive-AP", "base")
    assert raw(ft_tables, "B-17", "level-high-GP", "base") >= 8
    assert raw(ft_tables, "B-17", "level-high-AP", "ship") <= 2
    for name, table in hit.planes.items():
        for load in (AP, GP):
            high, low = table.get((HIGH, load)), table.get((LOW, load))
            if high and low and high.ship is not None and low.ship is not None:
                assert high.ship <= low.ship, (name, load)


# --- air attack modifiers -----------------------------------------------------------------------


def test_standard_18_air_attack_modifiers(hit: HitTables) -> None:
    """Reference A.11.6: "Target ship crippled +2", "Target ship anchored +2", "Cloud hex -2",
    "Night -4"; cumulative (A.11.1: "Add all the modifiers ... they are cumulative")."""
    base = hit.attack("Dauntless", DIVE, AP, base_target=False).value
    assert hit.attack("Dauntless", DIVE, AP, base_target=False, crippled=True).value == base + 2
    assert hit.attack("Dauntless", DIVE, AP, base_target=False, anchored=True).value == base + 2
    assert hit.attack("Dauntless", DIVE, AP, base_target=False, cloud=True).value == base - 2
    assert hit.attack("Dauntless", DIVE, AP, base_target=False, night=True).value == base - 4
    every = hit.attack(
        "Dauntless", DIVE, AP, base_target=False, crippled=True, anchored=True, cloud=True, night=True
    )
    assert every.value == base + 2 + 2 - 2 - 4
    assert dict(every.modifiers) == {"target crippled": 2, "target anchored": 2, "cloud hex": -2, "night": -4}
    assert every.text == (
        "Dauntless dive AP vs ship: BHT 7 +2 target crippled +2 target anchored -2 cloud hex -4 night = 5"
        " (design default)"
    )


def test_seed_21_8_2_less_mobile_target(hit: HitTables) -> None:
    """Seed 003, 21.8.2: an AF "scores hits that reduce her to half speed ... another AF attacks &
    receives the "+1" modifier for attacking a less-mobile target." Not added to "crippled"."""
    base = hit.attack("Kate", TORPEDO, TORP, base_target=False).value
    assert hit.attack("Kate", TORPEDO, TORP, base_target=False, half_speed=True).value == base + 1
    assert (
        hit.attack("Kate", TORPEDO, TORP, base_target=False, half_speed=True, crippled=True).value == base + 2
    )


def test_ship_conditions_do_not_apply_to_bases(hit: HitTables, ft_tables: dict[str, Any]) -> None:
    assert hit.attack("B-17", HIGH, GP, base_target=True).value == raw(
        ft_tables, "B-17", "level-high-GP", "base"
    )
    assert hit.attack("B-17", HIGH, GP, base_target=True, night=True).value == 4
    with pytest.raises(GameError):
        hit.attack("B-17", HIGH, GP, base_target=True, anchored=True)


@pytest.mark.parametrize(
    ("plane", "attack", "change"),
    [
        ("Mavis", (HIGH, GP), 1),
        ("Catalina", (LOW, AP), 1),
        ("Betty", (TORPEDO, TORP), 1),
        ("Nell", (TORPEDO, TORP), 1),
        ("Devastator", (TORPEDO, TORP), 1),
        ("Emily", (LOW, GP), -1),
        ("Kate", (TORPEDO, TORP), 0),
        ("Dauntless", (DIVE, AP), 0),
    ],
)
def test_seed_change_to_the_air_modifier_chart(
    hit: HitTables, ft_tables: dict[str, Any], plane: str, attack: tuple[AttackKind, Armament], change: int
) -> None:
    """Seed 003: "Change to the Air Modifier Chart: The following aircraft have modifiers added:
    Mavis, Catalina, Betty, Nell, Devastator (+1); Emily (-1.)" """
    kind, load = attack
    entry = "torpedo" if kind is TORPEDO else f"{kind.value}-{load.value}"
    bht = hit.attack(plane, kind, load, base_target=False)
    assert bht.value == raw(ft_tables, plane, entry, "ship") + change
    assert sum(bht.modifiers.values()) == change
    assert ("air modifier chart" in bht.text) is bool(change)


# --- air-to-air ----------------------------------------------------------------------------------


def test_air_to_air_bht_is_the_planes_value(hit: HitTables, planes: dict[str, PlaneType]) -> None:
    """Reference A.11.4: "Air-to-air BHTs from the examples: Zero 9, Wildcat 9, Beaufighter 6, Val 2,
    B-17 8, Hudson 3, A-20 3, B-26 4." """
    examples = {
        "Zero": 9,
        "Wildcat": 9,
        "Beaufighter": 6,
        "Val": 2,
        "B-17": 8,
        "Hudson": 3,
        "A-20": 3,
        "B-26": 4,
    }
    for name, value in examples.items():
        bht = hit.air_to_air(planes[name], armed=False, rf_spent=True, cloud=False, night=False)
        assert (bht.value, dict(bht.modifiers)) == (value, {}), name


def test_standard_16_10_air_to_air_modifiers(hit: HitTables, planes: dict[str, PlaneType]) -> None:
    """Standard 16.10 (reference A.11.4): "RF not spent -6", "Cloud hex -1", "Night -2",
    "Armed Wildcat, P-38, P-39, P-40, Beaufighter, Zero, Rufe -6"."""
    zero = planes["Zero"]
    assert hit.air_to_air(zero, armed=False, rf_spent=False, cloud=False, night=False).value == 3
    assert hit.air_to_air(zero, armed=False, rf_spent=True, cloud=True, night=False).value == 8
    assert hit.air_to_air(zero, armed=False, rf_spent=True, cloud=False, night=True).value == 7
    assert hit.air_to_air(zero, armed=True, rf_spent=True, cloud=False, night=False).value == 3
    everything = hit.air_to_air(zero, armed=True, rf_spent=False, cloud=True, night=True)
    assert everything.value == 9 - 6 - 1 - 2 - 6
    # An armed bomber is not in the list: no -6.
    assert hit.air_to_air(planes["Dauntless"], armed=True, rf_spent=True, cloud=False, night=False).value == 3


def test_armed_fighters_list_and_seed_16_10_4(planes: dict[str, PlaneType]) -> None:
    """Seed 003, 16.10.4: "(Addition): These same plane types have their MF reduced by 1 when armed."
    The types: standard 16.10's "Armed Wildcat, P-38, P-39, P-40, Beaufighter, Zero, Rufe"."""
    assert frozenset({"Wildcat", "P-38", "P-39", "P-40", "Beaufighter", "Zero", "Rufe"}) == ARMED_FIGHTERS
    assert set(planes) >= ARMED_FIGHTERS
    for name in planes:
        assert armed_mf_penalty(name) == (1 if name in ARMED_FIGHTERS else 0), name


# --- AA -----------------------------------------------------------------------------------------


def test_aa_bht_design_default(hit: HitTables) -> None:
    """Reference B.8 (design default): "BHT 4; clouds -1 ...; night -2"."""
    assert hit.aa_default is True
    assert hit.aa(cloud=False, night=False).value == 4
    assert hit.aa(cloud=True, night=False).value == 3
    assert hit.aa(cloud=True, night=True).value == 1
    assert hit.aa(cloud=False, night=False).text == "AA: BHT 4 = 4 (design default)"


TF = [
    ship("Pensacola", ShipType.CA, 4),
    ship("Atlanta", ShipType.CL, 3),
    ship("Hammann", ShipType.DD, 2),
    ship("Morris", ShipType.DD, 2),
]


def test_seed_li_2_screening_ships_draw_half_the_aa() -> None:
    """Seed 003, Limited Intelligence 2: "If a TF contains CV's, CVL's, AV's, CA's, CAV's or BB's, and
    an AF does not send any planes to attack those ships but concentrates on ships of CL or smaller
    class instead, the AF only receives fire from one half (rounded down) of the AA factors in the TF."
    """
    assert aa_factors(TF, [TF[2]]) == 11 // 2 == 5
    assert aa_factors(TF, [TF[1], TF[2], TF[3]]) == 5
    assert aa_factors(TF, [TF[0]]) == 11
    assert aa_factors(TF, [TF[0], TF[2]]) == 11


@pytest.mark.parametrize("kind", [ShipType.CV, ShipType.CVL, ShipType.AV, ShipType.CAV, ShipType.BB])
def test_seed_li_2_every_listed_type_screens(kind: ShipType) -> None:
    """Seed 003, Limited Intelligence 2: "CV's, CVL's, AV's, CA's, CAV's or BB's"."""
    tf = [ship("Big", kind, 7), ship("Small", ShipType.DD, 2)]
    assert aa_factors(tf, [tf[1]]) == 4
    assert aa_factors(tf, [tf[0]]) == 9


def test_seed_li_2_tf_of_small_ships_fires_in_full() -> None:
    """Seed 003, Limited Intelligence 2 applies only "If a TF contains CV's, CVL's, AV's, CA's, CAV's
    or BB's": a TF of CL and smaller fires all its AA."""
    tf = [ship("Atlanta", ShipType.CL, 3), ship("Hammann", ShipType.DD, 2), ship("Neosho", ShipType.AO, 2)]
    assert aa_factors(tf, [tf[1]]) == 7


def test_aa_counts_ships_afloat_only() -> None:
    """Sunk ships fire no AA, and a sunk CA no longer makes the TF one with a CA (LI 2)."""
    sunk_ca = ship("Pensacola", ShipType.CA, 4, hits=6, damage=6)
    tf = [sunk_ca, ship("Atlanta", ShipType.CL, 3), ship("Hammann", ShipType.DD, 3)]
    assert aa_factors(tf, [tf[2]]) == 6
    worn = [ship("Astoria", ShipType.CA, -1), ship("Sims", ShipType.DD, 3)]
    assert aa_factors(worn, [worn[0]]) == 3


def test_aa_without_targets_or_with_strangers() -> None:
    """AA fires only at bombers that attack the TF (reference A.11.5): no target in it, no fire."""
    assert aa_factors(TF, []) == 0
    assert aa_factors(TF, [ship("Yorktown", ShipType.CV, 6)]) == 0
    # A stale copy of a target (hits taken since) is still that ship: matched by name.
    assert aa_factors(TF, [ship("Pensacola", ShipType.CA, 2, hits=2)]) == 11


def test_aa_target_sunk_by_an_earlier_af() -> None:
    """Seed 003, 21.8.2: "All direct and critical hit damage inflicted by a single AF takes effect
    immediately, before any attacks by additional AFs": a CA sunk by the first AF is no longer
    there, so a second AF aiming at it and a DD faces half the TF's AA only if a screen is left."""
    sunk = ship("Pensacola", ShipType.CA, 4, hits=6, damage=6)
    tf = [sunk, ship("Chester", ShipType.CA, 4), ship("Hammann", ShipType.DD, 2)]
    assert aa_factors(tf, [tf[0], tf[2]]) == 3  # (4 + 2) // 2: Chester is not attacked
    assert aa_factors(tf, [tf[0]]) == 0


# --- malformed data -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "breakage",
    [
        lambda d: d["planes"]["Dauntless"].__setitem__("dive-XX", {"ship": 3}),
        lambda d: d["planes"]["Dauntless"].__setitem__("glide-AP", {"ship": 3}),
        lambda d: d["planes"]["Dauntless"].__setitem__("dive-torpedo", {"ship": 3}),
        lambda d: d["planes"]["Dauntless"].__setitem__("dive-AP", {"sub": 3}),
        lambda d: d["planes"]["Dauntless"].__setitem__("dive-AP", {"ship": "7"}),
        lambda d: d["planes"].__setitem__("Jake", {}),
        lambda d: d["attack"].pop("night"),
        lambda d: d["air_to_air"].pop("armed_fighter"),
        lambda d: d["aa"].__setitem__("bht", 4.5),
        lambda d: d.pop("plane_modifiers"),
    ],
)
def test_malformed_air_attack_toml_is_a_game_error(ft_tables: dict[str, Any], breakage: Any) -> None:
    data = copy.deepcopy(ft_tables["air-attack"])
    HitTables.from_mapping(data)  # the shipped data reads
    breakage(data)
    with pytest.raises(GameError):
        HitTables.from_mapping(data)
