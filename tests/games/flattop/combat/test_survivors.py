# SPDX-License-Identifier: GPL-3.0-or-later
"""Survivors: seed 003, "Survivors", replayed with fixed dice on the shipped survivors.toml."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from mailbot.core.dice import FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.sinking import hours_pass
from mailbot.games.flattop.combat.survivor_rescue import (
    OffloadRequest,
    Rescuer,
    RescueRequest,
    crippled_offload,
    land,
    rescue,
    rescue_capacity,
    rescuers_of,
    survivor_points,
)
from mailbot.games.flattop.combat.survivors import (
    Aboard,
    Cargo,
    Carried,
    Landed,
    Stranded,
    Survivors,
    SurvivorTable,
    cargo_after,
    cripple_roll,
    decay,
    may_observe,
    survivor_factors,
    survivor_roll,
    survivors_in_water,
)
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.units import Ship, ShipType, Side, TaskForce, dump, load
from mailbot.games.flattop.victory import VictoryRules, record, totals

from ..conftest import load_tables

TABLES = load_tables()
TABLE = SurvivorTable.from_mapping(TABLES["survivors"])
VP = VictoryRules.from_mapping(TABLES["victory"])
NO_DICE = FixedDice()  # any roll raises: proves that nothing was rolled
HERE, THERE = Hex(4, 5), Hex(5, 5)
US, JP = Side.ALLIED, Side.JAPANESE
LABEL = "t7.combat"


def ship(name: str, kind: ShipType, damage: int = 4, movement: int = 2, **more: Any) -> Ship:
    return Ship(name, kind, 4, 4, 0, movement, damage, **more)


def sunk(name: str, kind: ShipType, turn: int, *, damage: int = 5, sinking: int | None = None) -> Ship:
    """A ship considered sunk in ``turn``: hits at her Damage Factor; ``sinking``: hours afloat left."""
    return ship(name, kind, damage, hits=damage, destroyed_turn=turn, sinking=sinking)


def group(factors: int, *, sunk_turn: int = 7, nationality: Side = US, name: str = "Astoria") -> Survivors:
    return Survivors(name, HERE, nationality, factors, ShipType.CA, sunk_turn, sunk_turn + 1)


def rescuer(name: str, kind: ShipType, side: Side = US, *, at: Hex = HERE, **aboard: Any) -> Rescuer:
    return Rescuer(ship(name, kind), at, Aboard(name, side, **aboard))


# --- the factors table ---------------------------------------------------------------------------

# The seed's words: "6: CV,BB 5: CA,CAV,fully loaded AP/APD 4: CL,AV" and "DD's and AO's never leave
# survivors; PG/SS never leave survivors".
SEED_FACTORS = {"CV": 6, "BB": 6, "CA": 5, "CAV": 5, "CL": 4, "AV": 4, "DD": 0, "AO": 0, "PG": 0, "SS": 0}


@pytest.mark.parametrize(("kind", "factors"), SEED_FACTORS.items())
def test_survivors_factors_by_ship_type_cell_by_cell(kind: str, factors: int) -> None:
    """Seed 003, Survivors: "Different ship types produce different factors of survivors: 6: CV,BB 5:
    CA,CAV,fully loaded AP/APD 4: CL,AV. ... DD's and AO's never leave survivors; PG/SS never leave
    survivors and cannot rescue survivors." """
    assert survivor_factors(ShipType(kind), table=TABLE) == factors
    assert not TABLE.factors_default(ShipType(kind))


@pytest.mark.parametrize("kind", [ShipType.AP, ShipType.APD])
def test_survivors_fully_loaded_ap_apd_produce_5(kind: ShipType) -> None:
    """Seed 003, Survivors: "5: CA,CAV,fully loaded AP/APD"."""
    assert survivor_factors(kind, loaded=True, table=TABLE) == 5
    assert not TABLE.factors_default(kind, loaded=True)
    # Not fully loaded: the seed is silent, a design default, flagged as such.
    assert survivor_factors(kind, table=TABLE) == 0
    assert TABLE.factors_default(kind)


def test_survivors_cvl_figure_is_a_flagged_design_default() -> None:
    """Seed 003, Survivors lists "6: CV,BB 5: CA,CAV,fully loaded AP/APD 4: CL,AV": no CVL."""
    assert survivor_factors(ShipType.CVL, table=TABLE) == 4
    assert TABLE.factors_default(ShipType.CVL)
    assert "factors.defaults" in TABLE.design_defaults
    assert "factors" not in TABLE.design_defaults


# --- the percentage table ------------------------------------------------------------------------

# The seed's table, in its words: "Die Roll 1: None; 2: 1/4; 3: 1/3; 4: 1/2; 5: 2/3; 6+: All".
SEED_PERCENT = {1: "None", 2: "1/4", 3: "1/3", 4: "1/2", 5: "2/3", 6: "All"}


def seed_share(words: str) -> Fraction:
    named = {"None": Fraction(0), "All": Fraction(1)}
    return named[words] if words in named else Fraction(words)


@pytest.mark.parametrize("die", SEED_PERCENT)
@pytest.mark.parametrize("kind", [ShipType.CV, ShipType.CA, ShipType.CL])
def test_survivors_percentage_table_cell_by_cell(die: int, kind: ShipType) -> None:
    """Seed 003, Survivors: "Roll 1d6 on the following table to determine what percentage of
    survivors makes it to the water: Die Roll 1: None; 2: 1/4; 3: 1/3; 4: 1/2; 5: 2/3; 6+: All. Round
    fractions up." """
    assert TABLE.shares[die - 1] == seed_share(SEED_PERCENT[die])
    dice = FixedDice([die])
    factors, roll = survivor_roll(ship("Lost", kind), afloat_hours=0, dice=dice, label=LABEL, table=TABLE)
    expected = math.ceil(SEED_FACTORS[kind.value] * seed_share(SEED_PERCENT[die]))
    assert factors == expected
    assert roll is not None and roll.label == f"{LABEL}/survivors Lost" and dict(roll.modifiers) == {}


def test_survivors_round_fractions_up() -> None:
    """Seed 003, Survivors: "Round fractions up." A CA's 5 factors at 1/4 are 1.25: 2 reach the water."""
    factors, _ = survivor_roll(
        ship("Astoria", ShipType.CA), afloat_hours=0, dice=FixedDice([2]), label=LABEL, table=TABLE
    )
    assert factors == 2


@pytest.mark.parametrize(("die", "hours", "factors"), [(5, 2, 4), (5, 3, 6), (1, 3, 2), (6, 6, 6)])
def test_survivors_afloat_3_or_more_hours_adds_1(die: int, hours: int, factors: int) -> None:
    """Seed 003, Survivors: "If ship stays afloat 3 or more hours after it is considered sunk, add 1 to
    the die roll." (A 6 plus 1 still reads "6+: All".)"""
    cv = ship("Lexington", ShipType.CV)
    got, roll = survivor_roll(cv, afloat_hours=hours, dice=FixedDice([die]), label=LABEL, table=TABLE)
    assert got == factors
    assert roll is not None and sum(roll.modifiers.values()) == (1 if hours >= 3 else 0)


@pytest.mark.parametrize("kind", [ShipType.DD, ShipType.AO, ShipType.PG, ShipType.SS])
def test_survivors_dd_ao_pg_ss_never_leave_survivors(kind: ShipType) -> None:
    """Seed 003, Survivors: "DD's and AO's never leave survivors; PG/SS never leave survivors"."""
    lost = sunk("Sims", kind, 7, damage=2)
    result = survivors_in_water(
        lost, hex=HERE, nationality=US, afloat_hours=0, dice=NO_DICE, label=LABEL, table=TABLE
    )
    assert result == (None, None)


def test_survivors_only_a_sunk_ship_leaves_survivors_in_the_water() -> None:
    """Seed 003, Survivors: "When a ship is sunk, survivors may be rescued from the sea"."""
    with pytest.raises(GameError, match="not sunk"):
        survivors_in_water(
            ship("Astoria", ShipType.CA),
            hex=HERE,
            nationality=US,
            afloat_hours=0,
            dice=NO_DICE,
            label=LABEL,
            table=TABLE,
        )


# --- decay ---------------------------------------------------------------------------------------


def test_survivors_decay_two_cas_sunk_at_0700() -> None:
    """Seed 003, Survivors: "For example, if two CA's sink at 0700 and each deposits two survivor
    factors in the water, at 0900 each of those groups will reduce to one factor. If they are still in
    the water at the beginning of the 1100 turn, they will disappear altogether." """
    groups = []
    for name in ("Astoria", "Quincy"):
        lost = sunk(name, ShipType.CA, 7)
        made, _ = survivors_in_water(
            lost, hex=HERE, nationality=US, afloat_hours=0, dice=FixedDice([3]), label=LABEL, table=TABLE
        )
        assert made is not None and made.factors == 2  # 1/3 of 5, rounded up
        groups.append(made)
    for made in groups:
        at = {hour: decay(made, hour, table=TABLE) for hour in (8, 9)}
        assert at[8] is not None and at[8].factors == 2
        assert at[9] is not None and at[9].factors == 1
        at10 = decay(at[9], 10, table=TABLE)
        assert at10 is not None and at10.factors == 1
        assert decay(at10, 11, table=TABLE) is None


def test_survivors_decay_cv_destroyed_1100_sinking_at_1600() -> None:
    """Seed 003, Survivors: "In another example, a CV is destroyed at 1100 but does not sink until 1600;
    starting at 1300 its survivors will drop by one factor, even though the ship is still sinking. The
    delayed sinking just gave the CV a better chance at a high survivor percentage to start with." """
    cv = sunk("Lexington", ShipType.CV, 11, damage=7, sinking=5)
    made, roll = survivors_in_water(
        cv, hex=HERE, nationality=US, afloat_hours=5, dice=FixedDice([4]), label=LABEL, table=TABLE
    )
    assert roll is not None and roll.total == 5  # the better chance: +1 for 5 hours afloat
    assert made is not None and (made.factors, made.sunk_turn) == (4, 11)  # 2/3 of 6
    afloat = cv
    for hour in (11, 12):
        afloat = hours_pass(afloat, turn=hour)
    assert not afloat.sunk  # at the beginning of 1300 she is still sinking
    at12 = decay(made, 12, table=TABLE)
    assert at12 is not None and at12.factors == 4
    at13 = decay(at12, 13, table=TABLE)
    assert at13 is not None and at13.factors == 3
    at15 = decay(at13, 15, table=TABLE)
    assert at15 is not None and at15.factors == 2


def test_survivors_decay_counts_each_two_hours_once() -> None:
    """Seed 003, Survivors: "At the beginning of the turn every 2 hours after a ship has been considered
    sunk, survivors of that ship that are still in the water automatically lose one factor." A second
    look in the same turn loses nothing more; a late look catches up."""
    once = decay(group(4), 9, table=TABLE)
    assert once is not None and once.factors == 3
    again = decay(once, 9, table=TABLE)
    assert again is not None and again.factors == 3
    late = decay(group(4), 13, table=TABLE)
    assert late is not None and late.factors == 1


# --- observation ---------------------------------------------------------------------------------


def test_survivors_not_visible_in_the_turn_the_ship_takes_fatal_damage() -> None:
    """Seed 003, Survivors: "Survivors may not be observed in the turn that their ship has taken enough
    hits to sink it, but are visible afterwards. (In other words, in the case of delayed sinking, they
    are not visible in the turn in which the ship takes the fatal damage but are visible in the
    following turns in which the "sunken" ship remains afloat.)" """
    cv = sunk("Lexington", ShipType.CV, 11, damage=7, sinking=5)
    made, _ = survivors_in_water(
        cv, hex=HERE, nationality=US, afloat_hours=5, dice=FixedDice([6]), label=LABEL, table=TABLE
    )
    assert made is not None and made.visible_from == 12
    assert may_observe(made, 11, observer="ship-in-hex", table=TABLE) is None
    for hour in (12, 13, 14):
        assert may_observe(made, hour, observer="ship-in-hex", table=TABLE) == "exact"


def test_survivors_observed_by_ships_in_hex_exact_and_low_aircraft_presence() -> None:
    """Seed 003, Survivors: "Survivors are observed by ships in the same hex (exact number of factors
    reported) or by aircraft at low altitude that spend half of their MP (rounded down) in the hex
    (number of survivors not reported, merely their presence.)" """
    seen = group(3)
    assert may_observe(seen, 8, observer="ship-in-hex", table=TABLE) == "exact"
    assert may_observe(seen, 8, observer="low-air", mp_spent=4, mp=8, table=TABLE) == "presence"
    assert may_observe(seen, 8, observer="high-air", mp_spent=8, mp=8, table=TABLE) is None


@pytest.mark.parametrize(
    ("mp", "spent", "seen"), [(5, 2, True), (5, 1, False), (4, 2, True), (4, 1, False), (7, 3, True)]
)
def test_survivors_low_aircraft_half_mp_rounded_down(mp: int, spent: int, seen: bool) -> None:
    """Seed 003, Survivors: "by aircraft at low altitude that spend half of their MP (rounded down) in
    the hex": an AF of 5 MP needs 2 MP in the hex, one of 7 needs 3."""
    found = may_observe(group(3), 8, observer="low-air", mp_spent=spent, mp=mp, table=TABLE)
    assert found == ("presence" if seen else None)


@pytest.mark.parametrize("observer", ["ship-in-hex", "low-air"])
def test_survivors_never_visible_to_a_failed_shadower(observer: Any) -> None:
    """Seed 003, Survivors: "Survivors are never visible to a TF or AF that has failed in a shadowing
    attempt and is thus unable to observe per 11.7." """
    seen = group(3)
    assert may_observe(seen, 8, observer=observer, mp_spent=8, mp=8, table=TABLE) is not None
    assert may_observe(seen, 8, observer=observer, mp_spent=8, mp=8, failed_shadow=True, table=TABLE) is None


# --- rescue --------------------------------------------------------------------------------------

# The seed's words: "Only CA's, CAV's, CL's, DD's and empty AP/APD's can pick up survivors. CA/CAV's
# can pick up 4 factors, CL/AP/APD's 3 and DD's 2."
SEED_CAPACITY = {"CA": 4, "CAV": 4, "CL": 3, "AP": 3, "APD": 3, "DD": 2}


@pytest.mark.parametrize("kind", list(ShipType))
def test_survivors_rescue_capacity_cell_by_cell(kind: ShipType) -> None:
    """Seed 003, Survivors: "Only CA's, CAV's, CL's, DD's and empty AP/APD's can pick up survivors.
    CA/CAV's can pick up 4 factors, CL/AP/APD's 3 and DD's 2. ... PG/SS never leave survivors and
    cannot rescue survivors." """
    assert rescue_capacity(ship("Any", kind), table=TABLE) == SEED_CAPACITY.get(kind.value, 0)


@pytest.mark.parametrize("kind", [ShipType.AP, ShipType.APD])
def test_survivors_only_empty_transports_rescue(kind: ShipType) -> None:
    """Seed 003, Survivors: "Only ... empty AP/APD's can pick up survivors." """
    assert rescue_capacity(ship("Any", kind), table=TABLE, empty=False) == 0
    assert (cargo_after(0, 8), cargo_after(3, 8), cargo_after(8, 8)) == (
        Cargo.FULL,
        Cargo.PARTIAL,
        Cargo.EMPTY,
    )
    loaded = rescuer("McCawley", kind, cargo=Cargo.PARTIAL)
    result = rescue([group(3)], [loaded], [RescueRequest("McCawley")], turn=8, table=TABLE)
    assert result.groups == (group(3),)
    assert result.problems == (f"{kind} McCawley cannot pick up survivors with troops aboard",)


def test_survivors_rescue_respects_capacity_and_anchors_the_rescuer() -> None:
    """Seed 003, Survivors: "DD's 2" factors; "Ships that load survivors are considered to be anchored
    if attacked in that turn." """
    dd = rescuer("Sims", ShipType.DD)
    result = rescue([group(4)], [dd], [RescueRequest("Sims", 3)], turn=8, table=TABLE)
    assert result.rescuers == (Aboard("Sims", US, survivors=(Carried(US, 2),)),)
    assert [g.factors for g in result.groups] == [2]
    assert result.anchored == frozenset({"Sims"})
    assert result.problems == ("Sims picked up 2 of the 3 survivor factors ordered (she is full)",)
    # Full: a second order that turn is refused, and nothing changes.
    again = rescue(
        result.groups, [replace(dd, aboard=result.rescuers[0])], [RescueRequest("Sims")], turn=8, table=TABLE
    )
    assert again.groups == result.groups and again.problems == ("Sims has no room for more survivors",)
    assert again.anchored == frozenset()


def test_survivors_pg_and_ss_cannot_rescue() -> None:
    """Seed 003, Survivors: "PG/SS never leave survivors and cannot rescue survivors." """
    ships = [rescuer("Gunboat", ShipType.PG), rescuer("S-44", ShipType.SS)]
    requests = [RescueRequest("Gunboat"), RescueRequest("S-44")]
    result = rescue([group(3)], ships, requests, turn=8, table=TABLE)
    assert result.groups == (group(3),) and result.anchored == frozenset()
    assert result.problems == ("PG Gunboat cannot pick up survivors", "SS S-44 cannot pick up survivors")


def test_survivors_rescued_only_in_their_hex_and_once_visible() -> None:
    """Seed 003, Survivors: "survivors may be rescued from the sea in the hex where the sinking took
    place"; not in the turn of the fatal damage, when no one may observe them."""
    far = rescuer("Chicago", ShipType.CA, at=THERE)
    assert rescue([group(3)], [far], [RescueRequest("Chicago")], turn=8, table=TABLE).groups == (group(3),)
    near = rescuer("Chicago", ShipType.CA)
    assert rescue([group(3)], [near], [RescueRequest("Chicago")], turn=7, table=TABLE).groups == (group(3),)
    done = rescue([group(3)], [near], [RescueRequest("Chicago")], turn=8, table=TABLE)
    assert done.groups == () and done.rescuers[0].factors == 3 and done.problems == ()


def test_survivors_rescue_takes_own_side_first_and_keeps_nationality() -> None:
    """Seed 003, Survivors: factors are worth "2 VP if the same nationality as the player who rescued
    them, 1 VP if of the opposite nationality": a rescuer keeps the count of each."""
    ours, theirs = group(2, name="Astoria"), group(3, nationality=JP, name="Furutaka", sunk_turn=6)
    ca = rescuer("Chicago", ShipType.CA)
    result = rescue([theirs, ours], [ca], [RescueRequest("Chicago")], turn=8, table=TABLE)
    assert result.rescuers[0].survivors == (Carried(US, 2), Carried(JP, 2))
    assert result.groups == (replace(theirs, factors=1),)
    only_jp = rescue([theirs, ours], [ca], [RescueRequest("Chicago", 1, JP)], turn=8, table=TABLE)
    assert only_jp.rescuers[0].survivors == (Carried(JP, 1),)


# --- crippled ships ------------------------------------------------------------------------------


def cripple_tf(*more: Ship) -> TaskForce:
    crippled = ship("Portland", ShipType.CA, damage=5, hits=4)
    assert crippled.crippled
    return TaskForce(3, US, HERE, (crippled, ship("Sims", ShipType.DD), ship("Hughes", ShipType.DD), *more))


def test_survivors_cripple_offloads_one_factor_a_turn_with_plus_1_roll() -> None:
    """Seed 003, Survivors: "Survivors may also be taken from crippled ships. Each cripple can offload one
    factor per turn to another ship in its TF. The rescue ship is considered as anchored for that turn.
    Roll for available survivors on each crippled ship, with a modifier of +1 to the die roll. Only one
    factor per turn may be offloaded, regardless of how many eligible rescue ships are in the TF." """
    tf = cripple_tf()
    dice = FixedDice(by_label={f"{LABEL}/survivors aboard Portland": [4]})
    requests = [OffloadRequest("Portland", "Sims"), OffloadRequest("Portland", "Hughes")]
    first = crippled_offload(tf, (), (), requests, turn=7, dice=dice, label=LABEL, table=TABLE)
    assert [r.total for r in first.rolls] == [5]  # 4 +1: 2/3 of 5, rounded up, is 4
    assert first.stranded == (Stranded("Portland", US, 3, 1, 7),)
    assert [a.factors for a in first.rescuers if a.ship in ("Sims", "Hughes")] == [1, 0]
    assert first.anchored == frozenset({"Sims"})
    assert first.problems == ("Portland: only one survivor factor a turn may be offloaded",)
    # Next turn: no new roll (NO_DICE), one more factor.
    second = crippled_offload(
        tf, first.stranded, first.rescuers, requests[1:], turn=8, dice=NO_DICE, label=LABEL, table=TABLE
    )
    assert second.stranded == (Stranded("Portland", US, 2, 2, 8),) and second.anchored == frozenset(
        {"Hughes"}
    )


def test_survivors_crippled_offload_once_per_tf_per_turn() -> None:
    """Seed 003, Survivors: "Each cripple can offload one factor per turn to another ship in its TF. ...
    Only one factor per turn may be offloaded, regardless of how many eligible rescue ships are in the
    TF." The shipped ruling reads the limit per cripple; ``limit_per = "task_force"`` caps the TF."""
    second = ship("Minneapolis", ShipType.CA, damage=5, hits=4)
    tf = cripple_tf(second)
    requests = [OffloadRequest("Portland", "Sims"), OffloadRequest("Minneapolis", "Hughes")]
    dice = FixedDice([6, 6])
    each = crippled_offload(tf, (), (), requests, turn=7, dice=dice, label=LABEL, table=TABLE)
    assert TABLE.offload_limit == "cripple"
    assert sorted(p.rescuer for p in each.pickups) == ["Hughes", "Sims"] and each.problems == ()
    per_tf = replace(TABLE, offload_limit="task_force")
    one = crippled_offload(tf, (), (), requests, turn=7, dice=FixedDice([6]), label=LABEL, table=per_tf)
    assert [p.rescuer for p in one.pickups] == ["Sims"]
    assert one.problems == ("Minneapolis: only one survivor factor a turn may be offloaded",)


def test_survivors_offload_needs_a_cripple_and_a_ship_that_can_rescue() -> None:
    """Seed 003, Survivors: "Survivors may also be taken from crippled ships" to a ship that "can pick up
    survivors" ("Only CA's, CAV's, CL's, DD's and empty AP/APD's")."""
    tf = cripple_tf(ship("Neosho", ShipType.AO))
    requests = [OffloadRequest("Sims", "Hughes"), OffloadRequest("Portland", "Neosho")]
    result = crippled_offload(tf, (), (), requests, turn=7, dice=NO_DICE, label=LABEL, table=TABLE)
    assert result.pickups == () and result.rolls == ()
    assert result.problems == (
        "Sims is not a crippled ship afloat: nothing to offload",
        "AO Neosho cannot pick up survivors",
    )


def test_survivors_a_cripple_that_sinks_leaves_no_factor_twice() -> None:
    """Seed 003, Survivors: "These numbers are the maximum survivor counts that can be produced." Factors
    already offloaded from a cripple are not in the water again when she sinks (design default)."""
    factors, _ = cripple_roll(ship("Portland", ShipType.CA), dice=FixedDice([6]), label=LABEL, table=TABLE)
    assert factors == 5
    lost = sunk("Portland", ShipType.CA, 9)
    made, _ = survivors_in_water(
        lost,
        hex=HERE,
        nationality=US,
        afloat_hours=0,
        dice=FixedDice([6]),
        label=LABEL,
        table=TABLE,
        taken_off=2,
    )
    assert made is not None and made.factors == 3


# --- victory points ------------------------------------------------------------------------------


def test_survivors_vp_2_same_nationality_1_opposite() -> None:
    """Seed 003, Survivors: "Each survivor factor rescued that is still carried (or has been unloaded on
    friendly territory) at game's end is worth 2 VP if the same nationality as the player who rescued
    them, 1 VP if of the opposite nationality." """
    chicago = Aboard("Chicago", US, survivors=(Carried(US, 2), Carried(JP, 1)))
    emptied, ashore = land(Aboard("Sims", US, survivors=(Carried(US, 1),)), "Tulagi")
    assert emptied.survivors == () and ashore == (Landed(US, US, 1, "Tulagi"),)
    more = Landed(US, US, 2, "Tulagi")
    ledger = record((), survivor_points([chicago], [*ashore, more], 30, VP))
    assert totals(ledger) == {US: 2 * 2 + 1 * 1 + 3 * 2, JP: 0}
    assert len(ledger) == 3  # the two landings at Tulagi score once, together


# --- state and data ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        Survivors("Astoria", HERE, US, 2, ShipType.CA, 7, 8, decayed_through=9),
        Aboard("Chicago", US, Cargo.PARTIAL, (Carried(US, 2), Carried(JP, 1))),
        Stranded("Portland", US, 3, 1, 7),
        Landed(US, JP, 2, "Tulagi"),
    ],
)
def test_survivor_state_round_trips_through_units_dump_and_load(value: Any) -> None:
    """The game state holds these records: ``units.dump`` and ``units.load`` must round-trip them."""
    assert load(type(value), dump(value)) == value


def test_survivor_table_is_checked() -> None:
    """A malformed survivors.toml is a GameError, never a silent default."""
    broken = {**TABLES["survivors"], "roll": {**TABLES["survivors"]["roll"], "shares": [[1, 2]]}}
    with pytest.raises(GameError, match=r"survivors\.toml"):
        SurvivorTable.from_mapping(broken)
    with pytest.raises(GameError, match=r"survivors\.toml"):
        SurvivorTable.from_mapping({k: v for k, v in TABLES["survivors"].items() if k != "decay"})
    unsourced = {**TABLES["survivors"], "decay": {"every_hours": 2, "factors": 1}}
    with pytest.raises(GameError, match="source"):
        SurvivorTable.from_mapping(unsourced)


def test_rescuers_of_reads_task_forces_and_records() -> None:
    """Each ship afloat, in her TF's hex, with her record (none: empty, carrying nothing)."""
    tf = TaskForce(2, JP, THERE, (ship("Kinugasa", ShipType.CA), ship("Gone", ShipType.DD, damage=1, hits=1)))
    record_ = Aboard("Kinugasa", JP, survivors=(Carried(JP, 1),))
    assert rescuers_of([tf], [record_]) == (Rescuer(tf.ships[0], THERE, record_),)
    with pytest.raises(GameError):
        Rescuer(tf.ships[0], THERE, Aboard("Chokai", JP))
