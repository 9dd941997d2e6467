# SPDX-License-Identifier: GPL-3.0-or-later
"""Surface combat and bombardment: seed 003, 19, 19.8, 19.9.4, 19.10.3, 19.11; reference A.11.7.

The numbers of ``surface.toml`` the seed prints are checked against its words; the standard rules
underneath (reference A.11.7) are checked as design defaults. Every roll comes from FixedDice.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from mailbot.core.dice import DiceStream, FixedDice
from mailbot.errors import GameError
from mailbot.games.flattop.combat.bombardment import bombard, bombard_problems
from mailbot.games.flattop.combat.crt import CombatTable, combat_table
from mailbot.games.flattop.combat.damage import DamageRules
from mailbot.games.flattop.combat.surface import (
    DEFAULT_RULES,
    DESIGN_DEFAULTS,
    Combatant,
    Firing,
    Firings,
    Position,
    Stage,
    SurfaceRules,
    check_positions,
    default_positions,
    disclosure,
    effective_bhts,
    numbering,
    round_bht,
    surface_rules,
    torpedo_line_bht,
    torpedoes_allowed,
    unescorted,
)
from mailbot.games.flattop.combat.surface_battle import (
    Engagement,
    Fire,
    Round,
    check_allocation,
    default_allocation,
)
from mailbot.games.flattop.combat.surface_rounds import (
    breakthrough_possible,
    could_be_breakthrough,
    gun_factors,
    gunnery_bounds,
    gunnery_round,
    possible_totals,
    reported_gunnery,
    surviving_gunnery,
    torpedo_round,
)
from mailbot.games.flattop.observation.reports import Deception
from mailbot.games.flattop.units import Ship, ShipType, Side, dump, load

from ..conftest import load_tables

TABLES = load_tables()
RULES = surface_rules(TABLES)
CRT: CombatTable = combat_table(TABLES, "curve-fitted")
DAMAGE = DamageRules.from_mapping(TABLES["damage"])
ALLIED, JAPANESE = Side.ALLIED, Side.JAPANESE
GUN, TORP, SCREEN = Position.GUNNERY, Position.TORPEDO, Position.SCREEN
TURN = 5
NO_DICE = FixedDice()  # any roll raises: proves nothing was rolled


def ship(name: str, kind: str, gunnery: int = 0, *, torpedo: int = 0, ammo: int = 30, **more: Any) -> Ship:
    """A ship with a Damage Factor big enough that no hit below sinks or cripples her."""
    more.setdefault("damage", 12)
    return Ship(name, ShipType(kind), gunnery=gunnery, aa=2, torpedo=torpedo, movement=2, ammo=ammo, **more)


def side(who: Side, *placed: tuple[Ship, Position], **more: Any) -> Combatant:
    return Combatant(who, tuple(s for s, _ in placed), {s.name: p for s, p in placed}, **more)


def battle(
    a: Combatant, b: Combatant, declared: tuple[int, int] = (3, 4), *, night: bool = False
) -> Engagement:
    numbers = {a.side: declared[0], b.side: declared[1]}
    return Engagement.start(a, b, numbers, night=night, turn=TURN, label="T5.surface.V-B45")


def crt_label(who: Side, target: str, stage: str = "gunnery") -> str:
    return f"T5.surface.V-B45/{stage}/{who.value}/{target}"


# --- the table against the seed ---------------------------------------------------------------------


def test_shipped_table_is_the_rules_default() -> None:
    """surface.toml, parsed, equals SurfaceRules(): the defaults the functions use are the shipped file."""
    assert RULES == SurfaceRules() == DEFAULT_RULES
    assert RULES.sources  # the parsed table knows where each section comes from


def test_19_bht_number_1_through_6() -> None:
    """Seed 003, 19: "each combatant will need to send his desired BHT number (1 through 6.)" The
    round's BHT is the sum of the two (reference A.11.7)."""
    assert (RULES.declared_low, RULES.declared_high) == (1, 6)
    assert not RULES.sources["declared"].default
    assert round_bht(1, 1) == 2
    assert round_bht(6, 5) == 11
    for bad in (0, 7, -1):
        with pytest.raises(GameError, match="1 through 6"):
            round_bht(bad, 3)
        with pytest.raises(GameError, match="1 through 6"):
            round_bht(3, bad)


def test_19_surviving_gunnery_reported_at_10_percent_rounding_fractions_up() -> None:
    """Seed 003, 19: "each side may report its total surviving gunnery factor at +/- 10%, rounding
    fractions up.\""""
    assert (RULES.report_spread, RULES.report_rounding) == (Fraction(1, 10), "up")
    assert not RULES.sources["report"].default
    assert gunnery_bounds(20) == (18, 22)
    assert gunnery_bounds(21) == (18, 24)  # 2.1 rounds up to 3
    assert gunnery_bounds(5) == (4, 6)  # 0.5 rounds up to 1
    assert gunnery_bounds(1) == (0, 2)
    assert gunnery_bounds(0) == (0, 0)


def test_19_breakthrough_at_3_to_1() -> None:
    """Seed 003, 19: "If it appears that the ratio could possibly be 3-1, then exact factors must be
    reported to determine if a breakthrough occurs.\""""
    assert RULES.breakthrough_ratio == 3
    assert not RULES.sources["breakthrough"].default


def test_19_8_dds_and_apds_fire_twice_in_the_table() -> None:
    """Seed 003, 19.8: "DD's and APD's can fire twice before requiring replenishing.\""""
    assert RULES.counted_types == {ShipType.DD, ShipType.APD}
    assert RULES.firings_limit == 2
    assert not RULES.sources["ammunition.counted"].default


def test_19_9_4_dds_bombard_at_bht_4_in_the_table() -> None:
    """Seed 003, 19.9.4: "DDs may bombard but only with a BHT of 4.\""""
    assert RULES.bombard_bht[ShipType.DD] == 4
    assert not RULES.sources["bombardment.groups.destroyers"].default


def test_19_10_3_night_bombardment_modifier_in_the_table() -> None:
    """Seed 003, 19.10.3: "Bombardments on Night turns have a base BHT modifier of (-1.)\""""
    assert RULES.bombard_night == -1
    assert not RULES.sources["bombardment.night"].default


def test_19_11_plus_50_percent_and_half_in_the_table() -> None:
    """Seed 003, 19.11: "Attacker uses his own declared BHT plus 50%; the defender (if able to respond)
    does so with a BHT of half of the attacker's declaration\""""
    assert (RULES.attacker_bonus, RULES.defender_share) == (Fraction(1, 2), Fraction(1, 2))
    assert not RULES.sources["unescorted"].default


def test_standard_rules_are_marked_design_defaults() -> None:
    """Reference A.11.7 (standard 19) and this project's readings: default = true with a source."""
    defaults = set(RULES.design_defaults)
    assert {"aim", "modifiers", "torpedo", "ammunition", "bombardment", "unescorted.rounding"} <= defaults
    assert "bombardment.groups.apd" in defaults  # APDs bombarding: read from 19.8
    assert not defaults & {"declared", "report", "breakthrough", "ammunition.counted", "unescorted"}
    for name in defaults:
        assert RULES.sources[name].source.startswith(("reference A.11.7", "design default")), name
    assert RULES.big_guns == {ShipType.BB, ShipType.CA, ShipType.CAV}
    assert RULES.protected == {ShipType.BB}
    assert dict(RULES.torpedo_bht) == {JAPANESE: 15, ALLIED: 10}
    assert (RULES.torpedo_day_min, RULES.torpedo_night_min) == (10, 7)
    assert RULES.bombard_ammo == 8
    assert {t: RULES.bombard_bht[t] for t in (ShipType.CA, ShipType.CAV, ShipType.CL)} == dict.fromkeys(
        (ShipType.CA, ShipType.CAV, ShipType.CL), 8
    )
    assert "default_allocation" in DESIGN_DEFAULTS


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("declared", "lowest"), "one"),
        (("torpedo", "bht", "allied"), 1.5),
        (("report", "rounding"), "sideways"),
        (("bombardment", "groups", "cruisers", "types"), ["XX"]),
        (("unescorted", "rounding", "source"), None),
    ],
)
def test_malformed_table_is_a_game_error(path: tuple[str, ...], value: Any) -> None:
    data = copy.deepcopy(TABLES["surface"])
    section = data
    for key in path[:-1]:
        section = section[key]
    if value is None:
        del section[path[-1]]
    else:
        section[path[-1]] = value
    with pytest.raises(GameError, match=r"surface\.toml"):
        SurfaceRules.from_mapping(data)


def test_missing_table_is_a_game_error() -> None:
    with pytest.raises(GameError, match=r"surface\.toml"):
        surface_rules({})


# --- 19: numbering and disclosure -------------------------------------------------------------------------


def test_19_ships_numbered_per_type_names_never_shown() -> None:
    """Seed 003, 19: "Each participant reveals to his opponent the types of ships in his TF, but not
    the names, and secretly numbers each type (BB #1, BB #2, CA #1, etc.) He also reveals which group
    (gunnery, torpedo, screened) each ship is in, and gives an approximate damage report on any
    damaged ships in his group\""""
    washington = ship("Washington", "BB", 20, damage=12)
    south_dakota = ship("South Dakota", "BB", 20, damage=12, hits=2)
    pensacola = ship("Pensacola", "CA", 8, damage=6, hits=3)
    benham = ship("Benham", "DD", 3, damage=2)
    force = side(ALLIED, (south_dakota, GUN), (washington, GUN), (pensacola, TORP), (benham, SCREEN))
    assert numbering(force.ships) == {
        "Washington": "BB #1",
        "South Dakota": "BB #2",
        "Pensacola": "CA #1",
        "Benham": "DD #1",
    }
    told = disclosure(force, turn=TURN)
    assert told == (
        "BB #1 (gunnery)",
        "BB #2 (gunnery, smoking)",
        "CA #1 (torpedo, burning and listing heavily)",
        "DD #1 (screen)",
    )
    assert not any(name in line for line in told for name in ("Washington", "Dakota", "Pensacola", "Benham"))


def test_numbering_is_kept_through_the_battle() -> None:
    """A ship hit in the first round keeps her number: "BB #2" stays the same ship."""
    a = ship("Alpha", "BB", 20)
    b = ship("Bravo", "BB", 20)
    force = side(ALLIED, (a, GUN), (b, GUN))
    fight = battle(force, side(JAPANESE, (ship("Kongo", "BB", 20), GUN)))
    hit = replace(a, hits=5)  # unfrozen numbering would now put Bravo first
    later = fight.first.with_ships([hit])
    assert later.number("Alpha") == "BB #1"
    assert later.by_number("BB #1") == hit
    assert numbering(later.ships)["Alpha"] == "BB #2"


# --- positions and 19.11's condition ---------------------------------------------------------------------


def test_crippled_and_anchored_ships_must_screen() -> None:
    """Reference A.11.7: "Crippled and anchored ships must screen." A towing pair is "treated as an
    anchored target" (seed 003, Towing)."""
    crippled = ship("Cripple", "CA", 8, damage=6, hits=5)
    anchored = ship("Moored", "CL", 4, anchored=True)
    tower = ship("Tug", "DD", 3)
    fine = ship("Fine", "CA", 8)
    force = side(
        ALLIED, (crippled, GUN), (anchored, TORP), (tower, GUN), (fine, GUN), towing=frozenset({"Tug"})
    )
    problems = check_positions(force, turn=TURN)
    assert len(problems) == 3
    assert all("must screen" in p for p in problems)
    assert not any("Fine" in p for p in problems)
    assert default_positions(force, turn=TURN) == {
        "Cripple": SCREEN,
        "Moored": SCREEN,
        "Tug": SCREEN,
        "Fine": GUN,
    }


def test_19_11_unescorted_condition() -> None:
    """Seed 003, 19.11: "Surface combat against anchored or crippled ships that are unescorted by
    non-crippled, non-anchored ships\""""
    crippled = ship("Cripple", "CA", 8, damage=6, hits=5)
    anchored = ship("Moored", "CL", 4, anchored=True)
    escort = ship("Escort", "DD", 3)
    assert unescorted(side(ALLIED, (crippled, SCREEN), (anchored, SCREEN)), turn=TURN)
    assert not unescorted(side(ALLIED, (crippled, SCREEN), (escort, GUN)), turn=TURN)
    towed = side(ALLIED, (crippled, SCREEN), (escort, SCREEN), towing=frozenset({"Cripple", "Escort"}))
    assert unescorted(towed, turn=TURN)  # the towing pair is anchored: no escort left
    assert not unescorted(side(ALLIED, (escort, GUN)), turn=TURN)
    # 21.8.1: two half-speed restrictions at once cripple her for as long as they last.
    slowed = ship("Slowed", "CA", 8, damage=6, hits=3, half_speed_turns=(TURN,))
    assert unescorted(side(ALLIED, (slowed, SCREEN)), turn=TURN)
    assert not unescorted(side(ALLIED, (slowed, SCREEN)), turn=TURN + 1)


# --- 19.11: BHTs ------------------------------------------------------------------------------------------


def test_19_11_attacker_plus_50_percent_defender_half_his_own_ignored() -> None:
    """Seed 003, 19.11: "Each side selects BHT normally. Attacker uses his own declared BHT plus 50%;
    the defender (if able to respond) does so with a BHT of half of the attacker's declaration, and
    his own BHT is ignored." Fractions: attacker up, defender down (design default)."""
    assert effective_bhts(4, 6, target_unescorted=True) == (6, 2)
    assert effective_bhts(4, 1, target_unescorted=True) == (6, 2)  # his own BHT is ignored
    assert effective_bhts(6, 3, target_unescorted=True) == (9, 3)
    assert effective_bhts(5, 3, target_unescorted=True) == (8, 2)  # 7.5 up, 2.5 down
    assert effective_bhts(1, 3, target_unescorted=True) == (2, 0)  # 0: the curve-fitted "*" row
    assert effective_bhts(4, 6, target_unescorted=False) == (10, 10)
    assert CRT.row_for(0) == "*"
    with pytest.raises(GameError):
        effective_bhts(7, 1, target_unescorted=True)


def test_19_11_average_of_the_two_bhts_against_the_torpedo_line() -> None:
    """Seed 003, 19.11: "If the target uses gunnery against the torpedo line, he uses the average of
    the two BHT's as per normal rules." The two declared numbers, averaged, fractions up."""
    assert torpedo_line_bht(5, 2) == 4
    assert torpedo_line_bht(6, 2) == 4
    attacker = side(
        JAPANESE, (ship("Chokai", "CA", 8, torpedo=2), GUN), (ship("Kagero", "DD", 3, torpedo=1), TORP)
    )
    helpless = side(ALLIED, (ship("Cripple", "CA", 8, damage=6, hits=5), SCREEN))
    fight = battle(attacker, helpless, (5, 2))
    chokai, kagero = fight.first.ships
    at_line = fight.fire_bht(ALLIED, kagero, stage=Stage.GUNNERY)
    at_guns = fight.fire_bht(ALLIED, chokai, stage=Stage.GUNNERY)
    assert (at_line.value, at_guns.value) == (4, 2)  # half of 5, down
    cripple = fight.second.ships[0]
    attack = fight.fire_bht(JAPANESE, cripple, stage=Stage.GUNNERY)
    assert attack.base == 8  # 5 plus 50%, up
    assert attack.value == 9  # target crippled +1 (A.11.7)


def test_19_11_torpedoes_always_against_unescorted_ships() -> None:
    """Seed 003, 19.11: "Torpedo attacks may always be made against such ships, regardless of BHT.\""""
    kagero = ship("Kagero", "DD", 3, torpedo=1)
    helpless = side(ALLIED, (ship("Moored", "CL", 4, anchored=True), SCREEN))
    fight = battle(side(JAPANESE, (kagero, TORP)), helpless, (1, 1))  # BHT 2: no torpedoes normally
    assert not torpedoes_allowed(fight.bht(), night=False)
    fires = {JAPANESE: [Fire("Kagero", "CL #1", 1)]}
    assert not check_allocation(
        fires[JAPANESE], fight.first, fight.second, Round(turn=TURN, stage=Stage.TORPEDO, torpedoes_ok=False)
    )
    label = crt_label(JAPANESE, "Moored", "torpedo")
    dice = FixedDice(by_label={label: [5, 5]})
    result = torpedo_round(fight, fires, table=CRT, damage=DAMAGE, dice=dice)
    assert [r.label for r in dice.log] == [label]
    # Japanese torpedo BHT 15 +1 anchored, 1 factor: E 0.7 x 1.5 -> 1 hit.
    assert result.hits == {"Moored": 1}
    assert next(s for s in result.ships if s.name == "Kagero").torpedoes_fired
    assert any("BHT 15 (" in line and "+1 target anchored = 16" in line for line in result.rolls)


def test_19_11_crippled_or_anchored_ships_launch_no_torpedoes() -> None:
    """Seed 003, 19.11: "Crippled or anchored ships may not launch torpedo attacks.\""""
    cripple = ship("Cripple", "DD", 1, torpedo=1, damage=3, hits=2)
    moored = ship("Moored", "DD", 3, torpedo=1, anchored=True)
    healthy = ship("Healthy", "DD", 3, torpedo=1)
    mine = side(ALLIED, (cripple, TORP), (moored, TORP), (healthy, TORP))
    enemy = side(JAPANESE, (ship("Kongo", "BB", 20), GUN))
    fires = [Fire("Cripple", "BB #1", 1), Fire("Moored", "BB #1", 1), Fire("Healthy", "BB #1", 1)]
    problems = check_allocation(fires, mine, enemy, Round(turn=TURN, stage=Stage.TORPEDO))
    assert len(problems) == 2
    assert all("no torpedo attack" in p for p in problems)
    assert any("Cripple" in p for p in problems) and any("Moored" in p for p in problems)
    # ... even when the enemy is the helpless one and may always be torpedoed.
    helpless = side(JAPANESE, (ship("Wreck", "BB", 20, hits=11), SCREEN))
    assert (
        len(
            check_allocation(
                fires[:2],
                side(ALLIED, (cripple, SCREEN), (moored, SCREEN)),
                helpless,
                Round(turn=TURN, stage=Stage.TORPEDO),
            )
        )
        == 2
    )


def test_19_11_gunnery_round_helpless_side_answers_at_half_and_average() -> None:
    """Seed 003, 19.11: "the defender (if able to respond) does so with a BHT of half of the attacker's
    declaration ... If the target uses gunnery against the torpedo line, he uses the average of the two
    BHT's as per normal rules." The anchored ship, screened, still answers and is fired on."""
    chokai = ship("Chokai", "CA", 8, ammo=24)
    kagero = ship("Kagero", "DD", 3, torpedo=1)
    moored = ship("Moored", "CL", 4, ammo=18, anchored=True)
    fight = battle(side(JAPANESE, (chokai, GUN), (kagero, TORP)), side(ALLIED, (moored, SCREEN)), (5, 2))
    fires = {JAPANESE: [Fire("Chokai", "CL #1", 8)], ALLIED: [Fire("Moored", "DD #1", 4)]}
    dice = FixedDice(by_label={crt_label(JAPANESE, "Moored"): [4, 4], crt_label(ALLIED, "Kagero"): [4, 4]})
    result = gunnery_round(fight, fires, table=CRT, damage=DAMAGE, dice=dice)
    # Japanese: 5 plus 50% = 8, +1 anchored = 9; 8 factors E 2.2 -> 2 hits.
    # Allied at the torpedo line: (5 + 2) / 2 = 4; 4 factors E 0.5 -> 1 hit (0.5 rounds half up).
    assert result.hits == {"Moored": 2, "Kagero": 1}
    assert any("BHT 8 (declared 5 plus 50%" in r and "= 9" in r for r in result.rolls)
    assert any("BHT 4 (average of 5 and 2 at the torpedo line" in r for r in result.rolls)
    assert dict(result.ammo_used) == {"Chokai": 8, "Moored": 4}  # each pays the BHT it fires at


def test_first_round_refuses_crippled_ships_outside_the_screen() -> None:
    """Reference A.11.7: "Crippled and anchored ships must screen": a round with such positions is refused."""
    cripple = ship("Cripple", "CA", 2, damage=6, hits=5)
    escort = ship("Escort", "DD", 3)
    fight = battle(
        side(ALLIED, (cripple, GUN), (escort, GUN)), side(JAPANESE, (ship("Chokai", "CA", 8), GUN))
    )
    with pytest.raises(GameError, match="must screen"):
        gunnery_round(fight, {}, table=CRT, damage=DAMAGE, dice=NO_DICE)


def test_towing_pair_is_an_anchored_target_and_tow_ship_fires_half() -> None:
    """Seed 003, Towing: "Tow ships may not fire any weaponry except AA (full strength) and gunnery
    (half strength, rounded up.) ... If attacked, the towing "pair" is treated as an anchored target."
    The halving is map.towing's: it comes in as a gunnery limit."""
    tug = ship("Tug", "DD", 3, torpedo=1)
    hulk = ship("Hulk", "CA", 2, damage=6, hits=5)
    pair = side(
        ALLIED, (tug, SCREEN), (hulk, SCREEN), towing=frozenset({"Tug", "Hulk"}), gunnery_limits={"Tug": 2}
    )
    assert pair.gunnery(tug) == 2
    enemy = side(JAPANESE, (ship("Chokai", "CA", 8), GUN))
    fight = battle(enemy, pair, (4, 6))
    assert fight.fire_bht(JAPANESE, tug, stage=Stage.GUNNERY).modifiers == {
        "target a towing pair (Towing)": 1
    }
    assert fight.fire_bht(JAPANESE, tug, stage=Stage.GUNNERY).value == 6 + 1  # 4 plus 50%, +1
    assert (
        "has 2 gunnery factors, not 3"
        in check_allocation([Fire("Tug", "CA #1", 3)], fight.second, fight.first, Round(turn=TURN))[0]
    )
    assert check_allocation([Fire("Tug", "CA #1", 2)], fight.second, fight.first, Round(turn=TURN)) == ()


# --- torpedoes (A.11.7) -----------------------------------------------------------------------------------


def test_torpedo_thresholds_day_and_night() -> None:
    """Reference A.11.7: torpedoes "Allowed only if the BHT (dice sum) is ≥10 by day or ≥7 at night.
    Otherwise the torpedoes are spent with no effect.\""""
    assert torpedoes_allowed(10, night=False)
    assert not torpedoes_allowed(9, night=False)
    assert torpedoes_allowed(7, night=True)
    assert not torpedoes_allowed(6, night=True)
    kagero = ship("Kagero", "DD", 3, torpedo=1)
    enemy = side(ALLIED, (ship("Astoria", "CA", 8), GUN))
    fires = {JAPANESE: [Fire("Kagero", "CA #1", 1)]}
    day = battle(side(JAPANESE, (kagero, TORP)), enemy, (4, 5))  # 9 by day: no
    problems = check_allocation(
        fires[JAPANESE], day.first, day.second, Round(turn=TURN, stage=Stage.TORPEDO, torpedoes_ok=False)
    )
    assert any("allows no torpedoes" in p for p in problems)
    with pytest.raises(GameError, match="allows no torpedoes"):
        torpedo_round(day, fires, table=CRT, damage=DAMAGE, dice=NO_DICE)
    spent = torpedo_round(day, {}, table=CRT, damage=DAMAGE, dice=NO_DICE)
    assert next(s for s in spent.ships if s.name == "Kagero").torpedoes_fired  # spent with no effect
    assert spent.hits == {}
    assert any("spend them with no effect" in r for r in spent.rolls)
    night = battle(side(JAPANESE, (kagero, TORP)), enemy, (3, 4), night=True)  # 7 at night: yes
    dice = FixedDice(by_label={crt_label(JAPANESE, "Astoria", "torpedo"): [4, 4]})
    result = torpedo_round(night, fires, table=CRT, damage=DAMAGE, dice=dice)
    assert len(dice.log) == 1
    assert result.hits == {"Astoria": 1}  # BHT 15 x 1: E 0.7 -> 1


def test_torpedo_bht_fixed_japanese_15_allied_10() -> None:
    """Reference A.11.7: "Torpedo BHT is fixed: Japanese 15, Allied 10.\""""
    kagero = ship("Kagero", "DD", 3, torpedo=1)
    fletcher = ship("Fletcher", "DD", 3, torpedo=1)
    fight = battle(side(JAPANESE, (kagero, TORP)), side(ALLIED, (fletcher, TORP)), (6, 6))
    assert fight.fire_bht(JAPANESE, fletcher, stage=Stage.TORPEDO).value == 15
    assert fight.fire_bht(ALLIED, kagero, stage=Stage.TORPEDO).value == 10
    fires = {JAPANESE: [Fire("Kagero", "DD #1", 1)], ALLIED: [Fire("Fletcher", "DD #1", 1)]}
    dice = FixedDice(
        by_label={
            crt_label(JAPANESE, "Fletcher", "torpedo"): [6, 6],
            crt_label(ALLIED, "Kagero", "torpedo"): [6, 6],
        }
    )
    result = torpedo_round(fight, fires, table=CRT, damage=DAMAGE, dice=dice)
    # 12 doubles E: 0.7 x 2 -> 1 hit at BHT 15; 0.5 x 2 -> 1 hit at BHT 10. Simultaneous.
    assert result.hits == {"Fletcher": 1, "Kagero": 1}
    assert any("E 0.7" in r for r in result.rolls) and any("E 0.5" in r for r in result.rolls)


# --- allocation (19, A.11.7) ---------------------------------------------------------------------------


def test_19_individual_ships_may_not_split_fire() -> None:
    """Seed 003, 19: "Individual ships may not split their gunnery factors among different targets.\""""
    mine = side(ALLIED, (ship("Washington", "BB", 20), GUN))
    enemy = side(JAPANESE, (ship("Kongo", "BB", 20), GUN), (ship("Chokai", "CA", 8), GUN))
    split = [Fire("Washington", "BB #1", 10), Fire("Washington", "CA #1", 10)]
    problems = check_allocation(split, mine, enemy, Round(turn=TURN))
    assert any("splits her fire" in p for p in problems)
    assert not check_allocation([Fire("Washington", "BB #1", 20)], mine, enemy, Round(turn=TURN))


def test_only_bb_ca_cav_gunnery_at_enemy_bbs() -> None:
    """Reference A.11.7: "Only BB, CA and CAV gunnery may be aimed at enemy BBs." Torpedoes may."""
    mine = side(
        ALLIED,
        (ship("Atlanta", "CL", 4), GUN),
        (ship("Astoria", "CA", 8), GUN),
        (ship("Fletcher", "DD", 3, torpedo=1), TORP),
    )
    enemy = side(JAPANESE, (ship("Kongo", "BB", 20), GUN), (ship("Jintsu", "CL", 4), GUN))
    problems = check_allocation([Fire("Atlanta", "BB #1", 4)], mine, enemy, Round(turn=TURN))
    assert problems and "only BB, CA, CAV gunnery may be aimed at BB #1" in problems[0]
    assert not check_allocation(
        [Fire("Astoria", "BB #1", 8), Fire("Atlanta", "CL #1", 4)], mine, enemy, Round(turn=TURN)
    )
    assert not check_allocation(
        [Fire("Fletcher", "BB #1", 1)], mine, enemy, Round(turn=TURN, stage=Stage.TORPEDO)
    )


def test_allocation_problems_screens_factors_and_positions() -> None:
    """Screened ships neither fire nor are fired on (A.11.7); no more factors than she has."""
    mine = side(
        ALLIED,
        (ship("Astoria", "CA", 8), GUN),
        (ship("Fletcher", "DD", 3, torpedo=1), TORP),
        (ship("Yorktown", "CV", 2), SCREEN),
    )
    enemy = side(JAPANESE, (ship("Chokai", "CA", 8), GUN), (ship("Shokaku", "CV", 2), SCREEN))
    assert (
        "CV #1 is screened"
        in check_allocation([Fire("Astoria", "CV #1", 8)], mine, enemy, Round(turn=TURN))[0]
    )
    assert (
        "fires no guns" in check_allocation([Fire("Yorktown", "CA #1", 2)], mine, enemy, Round(turn=TURN))[0]
    )
    assert (
        "fires no guns" in check_allocation([Fire("Fletcher", "CA #1", 3)], mine, enemy, Round(turn=TURN))[0]
    )
    assert (
        "has 8 gunnery factors, not 9"
        in check_allocation([Fire("Astoria", "CA #1", 9)], mine, enemy, Round(turn=TURN))[0]
    )
    assert (
        "no such enemy ship"
        in check_allocation([Fire("Astoria", "BB #1", 8)], mine, enemy, Round(turn=TURN))[0]
    )
    fired = side(ALLIED, (ship("Fletcher", "DD", 3, torpedo=1, torpedoes_fired=True), TORP))
    assert (
        "fired her torpedoes"
        in check_allocation(
            [Fire("Fletcher", "CA #1", 1)], fired, enemy, Round(turn=TURN, stage=Stage.TORPEDO)
        )[0]
    )


def test_default_allocation_biggest_guns_at_biggest_allowed_target() -> None:
    """DESIGN_DEFAULTS: a silent side fires each ship at the biggest enemy ship she may aim at."""
    mine = side(
        JAPANESE,
        (ship("Atago", "CA", 8), GUN),
        (ship("Jintsu", "CL", 4), GUN),
        (ship("Kagero", "DD", 3, torpedo=1), TORP),
    )
    enemy = side(
        ALLIED,
        (ship("Washington", "BB", 20), GUN),
        (ship("Atlanta", "CL", 4), GUN),
        (ship("Fletcher", "DD", 3), TORP),
        (ship("Yorktown", "CV", 2), SCREEN),
    )
    fires = default_allocation(mine, enemy, Round(turn=TURN))
    assert fires == (Fire("Atago", "BB #1", 8), Fire("Jintsu", "CL #1", 4))
    assert not check_allocation(fires, mine, enemy, Round(turn=TURN))
    torps = default_allocation(mine, enemy, Round(turn=TURN, stage=Stage.TORPEDO))
    assert torps == (Fire("Kagero", "BB #1", 1),)
    assert default_allocation(mine, enemy, Round(turn=TURN, stage=Stage.TORPEDO, torpedoes_ok=False)) == ()


# --- the gunnery round ------------------------------------------------------------------------------------


def test_gunnery_round_is_simultaneous_one_roll_per_target() -> None:
    """Reference A.11.7: "Fire is simultaneous." Seed 003, 19: "19 factors fire at BB #2": the factors
    aimed at one ship are one roll. A ship sunk in the round still fires."""
    astoria = ship("Astoria", "CA", 8, ammo=24)
    quincy = ship("Quincy", "CA", 8, ammo=24)
    kagero = ship("Kagero", "DD", 3, damage=1)
    chokai = ship("Chokai", "CA", 8, ammo=24)
    fight = battle(side(ALLIED, (astoria, GUN), (quincy, GUN)), side(JAPANESE, (chokai, GUN), (kagero, GUN)))
    fires = {
        ALLIED: [Fire("Astoria", "DD #1", 8), Fire("Quincy", "DD #1", 8)],
        JAPANESE: [Fire("Chokai", "CA #1", 8), Fire("Kagero", "CA #1", 3)],
    }
    dice = FixedDice(by_label={crt_label(ALLIED, "Kagero"): [4, 4], crt_label(JAPANESE, "Astoria"): [4, 4]})
    result = gunnery_round(fight, fires, table=CRT, damage=DAMAGE, dice=dice)
    assert sorted(r.label for r in dice.log) == sorted(
        [crt_label(ALLIED, "Kagero"), crt_label(JAPANESE, "Astoria")]
    )
    # BHT 3 + 4 = 7; 16 factors (16-20) E 4.2 -> 4 hits; 11 factors (11-12) E 2.7 -> 3 hits.
    assert result.hits == {"Kagero": 4, "Astoria": 3}
    after = {s.name: s for s in result.ships}
    assert after["Kagero"].sunk
    assert after["Astoria"].hits == 3
    assert dict(result.ammo_used) == {"Astoria": 7, "Quincy": 7, "Chokai": 7, "Kagero": 0}
    assert after["Astoria"].ammo == 17


def test_ammunition_short_halves_gunnery_and_empties() -> None:
    """Reference A.11.7: "Each gunnery round costs Ammunition Factors equal to the BHT. If a ship has
    less ammunition left than the BHT, its Gunnery is halved (rounded up) for that round and its
    ammunition drops to 0.\""""
    ca = ship("Astoria", "CA", 7, ammo=5)
    assert gun_factors(ca, declared=7, gunnery=7, bht=7, counted=False) == (
        4,
        5,
        "Astoria has 5 Ammunition Factors for BHT 7: gunnery 7 halved to 4, fires 4, ammunition -> 0"
        " (reference A.11.7 (standard 19))",
    )
    # Her Gunnery is halved, not what she declared: 3 of 7 declared still fire 3.
    assert gun_factors(ca, declared=3, gunnery=7, bht=7, counted=False)[:2] == (3, 5)
    assert gun_factors(replace(ca, ammo=7), declared=7, gunnery=7, bht=7, counted=False)[:2] == (7, 7)
    assert gun_factors(replace(ca, ammo=0), declared=7, gunnery=7, bht=7, counted=False)[:2] == (4, 0)
    assert gun_factors(ship("Fletcher", "DD", 3, ammo=0), declared=3, gunnery=3, bht=7, counted=True) == (
        3,
        0,
        "",
    )
    fight = battle(side(ALLIED, (ca, GUN)), side(JAPANESE, (ship("Chokai", "CA", 8), GUN)))
    dice = FixedDice(by_label={crt_label(ALLIED, "Chokai"): [4, 4]})
    result = gunnery_round(
        fight, {ALLIED: [Fire("Astoria", "CA #1", 7)]}, table=CRT, damage=DAMAGE, dice=dice
    )
    assert dict(result.ammo_used) == {"Astoria": 5}
    assert next(s for s in result.ships if s.name == "Astoria").ammo == 0
    assert any("x 4 factors" in line for line in result.rolls)  # halved: the 3-4 column
    assert result.rolls[0].startswith("Astoria has 5 Ammunition Factors")


def test_19_8_dds_fire_twice_before_replenishing() -> None:
    """Seed 003, 19.8: "DD's and APD's can fire twice before requiring replenishing. This can be one
    surface combat and one bombardment, or two of either.\""""
    dd, apd, ca = (
        ship("Fletcher", "DD", 3, ammo=0),
        ship("Stringham", "APD", 1, ammo=0),
        ship("Astoria", "CA", 8),
    )
    firings = Firings().record(["Fletcher", "Stringham"], "T3.surface").record(["Fletcher"], "T4.bombard")
    assert firings.count("Fletcher") == 2
    assert not firings.may_fire(dd, "T6.surface")
    assert firings.may_fire(dd, "T4.bombard")  # the same occasion counts once (rounds of one battle)
    assert firings.may_fire(apd, "T6.surface")  # one firing so far
    assert firings.may_fire(ca, "T6.surface")  # ships with an ammunition record are not counted
    assert firings.replenish("Fletcher").may_fire(dd, "T6.surface")
    # In a battle: the DD may not fire a third time; the firing of a round is recorded.
    enemy = side(JAPANESE, (ship("Kagero", "DD", 3), GUN))
    fight = battle(side(ALLIED, (dd, GUN), (apd, GUN)), enemy)
    fires = [Fire("Fletcher", "DD #1", 3)]
    problems = check_allocation(
        fires, fight.first, fight.second, Round(turn=TURN, firings=firings, occasion=fight.label)
    )
    assert problems and "must replenish" in problems[0]
    with pytest.raises(GameError, match="must replenish"):
        gunnery_round(fight, {ALLIED: fires}, table=CRT, damage=DAMAGE, dice=NO_DICE, firings=firings)
    dice = FixedDice(by_label={crt_label(ALLIED, "Kagero"): [2, 2]})
    result = gunnery_round(
        fight, {ALLIED: [Fire("Stringham", "DD #1", 1)]}, table=CRT, damage=DAMAGE, dice=dice, firings=firings
    )
    assert result.firings.count("Stringham") == 2
    with pytest.raises(GameError, match="bombardment: Stringham has fired 2 times"):
        bombard([apd], night=False, table=CRT, dice=NO_DICE, label="T6.bombard", firings=result.firings)


def test_firings_round_trip_through_the_state() -> None:
    """The game state holds Firings: units.dump/load must carry it."""
    firings = Firings((Firing("Fletcher", "T3.surface"), Firing("Fletcher", "T4.bombard")))
    assert load(Firings, dump(firings)) == firings


# --- breakthrough -------------------------------------------------------------------------------------------


def test_breakthrough_at_3_to_1_in_surviving_gunnery_and_torpedo_lines() -> None:
    """Reference A.11.7: "a side whose surviving Gunnery + Torpedo-position gunnery is at ≥3:1 over the
    enemy's may fire another gunnery round at the same BHT"; seed 003, 19 "3-1"."""
    strong = side(
        ALLIED,
        (ship("Washington", "BB", 20), GUN),
        (ship("Fletcher", "DD", 10, torpedo=1), TORP),
        (ship("Yorktown", "CV", 50), SCREEN),
    )
    assert surviving_gunnery(strong) == 30  # the screen does not count
    assert breakthrough_possible(strong, side(JAPANESE, (ship("Chokai", "CA", 10), GUN))) is ALLIED
    assert breakthrough_possible(strong, side(JAPANESE, (ship("Chokai", "CA", 11), GUN))) is None
    assert breakthrough_possible(side(JAPANESE, (ship("Chokai", "CA", 10), GUN)), strong) is ALLIED
    sunk = ship("Chokai", "CA", 10, damage=6, hits=6, sinking=0)
    assert breakthrough_possible(strong, side(JAPANESE, (sunk, GUN))) is ALLIED
    nothing = side(JAPANESE, (ship("Wreck", "CA", 0), GUN))
    assert breakthrough_possible(nothing, side(ALLIED, (ship("Other", "CA", 0), GUN))) is None


def test_breakthrough_round_screen_answers_and_is_exposed() -> None:
    """Reference A.11.7: "The defender answers only with his Screen ships' gunnery; all his screened
    ships are then exposed." Seed 003, 19: "Breakthroughs are handled in the same manner (minus
    torpedo rounds, of course) as the initial battle.\""""
    washington = ship("Washington", "BB", 20, ammo=40)
    wreck = ship("Chokai", "CA", 2, hits=6)
    mogami = ship("Mogami", "CA", 8)
    zuikaku = ship("Zuikaku", "CV", 2)
    japanese_side = side(JAPANESE, (wreck, GUN), (mogami, SCREEN), (zuikaku, SCREEN))
    fight = battle(side(ALLIED, (washington, GUN)), japanese_side)
    allied, japanese = fight.first, fight.second
    assert breakthrough_possible(allied, japanese) is ALLIED  # 20 against 2
    stage = Stage.BREAKTHROUGH
    at_cv = [Fire("Washington", "CV #1", 20)]
    assert check_allocation(at_cv, allied, japanese, Round(turn=TURN))  # screened in a normal round
    assert not check_allocation(at_cv, allied, japanese, Round(turn=TURN, stage=stage, breaker=ALLIED))
    line = check_allocation(
        [Fire("Chokai", "BB #1", 2)], japanese, allied, Round(turn=TURN, stage=stage, breaker=ALLIED)
    )
    assert line and "does not fire in this breakthrough round" in line[0]
    answer = [Fire("Mogami", "BB #1", 8)]
    assert not check_allocation(answer, japanese, allied, Round(turn=TURN, stage=stage, breaker=ALLIED))
    dice = FixedDice(
        by_label={
            crt_label(ALLIED, "Zuikaku", "breakthrough"): [4, 4],
            crt_label(JAPANESE, "Washington", "breakthrough"): [4, 4],
        }
    )
    result = gunnery_round(
        fight, {ALLIED: at_cv, JAPANESE: answer}, table=CRT, damage=DAMAGE, dice=dice, breaker=ALLIED
    )
    # The same BHT 3 + 4 = 7: 20 factors E 4.2 -> 4 hits; 8 factors E 1.7 -> 2 hits.
    assert result.hits == {"Zuikaku": 4, "Washington": 2}
    assert dict(result.ammo_used)["Washington"] == 7  # each gunnery round costs ammunition again
    with pytest.raises(GameError, match="only BB, CA, CAV"):
        gunnery_round(
            fight,
            {JAPANESE: [Fire("Zuikaku", "BB #1", 2)]},
            table=CRT,
            damage=DAMAGE,
            dice=NO_DICE,
            breaker=ALLIED,
        )


# --- 19: the +/-10% report ----------------------------------------------------------------------------------


def test_19_reported_gunnery_within_10_percent_by_policy() -> None:
    """Seed 003, 19: "each side may report its total surviving gunnery factor at +/- 10%, rounding
    fractions up." DECEPTION: truthful exact, maximal the highest, random uniform within."""
    assert reported_gunnery(21, Deception.TRUTHFUL, NO_DICE, "x", exact=False) == 21
    assert reported_gunnery(21, Deception.MAXIMAL, NO_DICE, "x", exact=False) == 24
    stream = DiceStream(b"s" * 32, "digest", "T5.surface")
    seen = {reported_gunnery(21, Deception.RANDOM, stream, f"T5.report.{i}", exact=False) for i in range(200)}
    assert seen == set(range(18, 25))
    again = DiceStream(b"s" * 32, "digest", "T5.surface")
    assert reported_gunnery(21, Deception.RANDOM, again, "T5.report.7", exact=False) == reported_gunnery(
        21, Deception.RANDOM, DiceStream(b"s" * 32, "digest", "T5.surface"), "T5.report.7", exact=False
    )
    with pytest.raises(GameError):
        reported_gunnery(-1, Deception.TRUTHFUL, NO_DICE, "x", exact=False)


def test_19_exact_report_when_3_to_1_could_be_possible() -> None:
    """Seed 003, 19: "If it appears that the ratio could possibly be 3-1, then exact factors must be
    reported to determine if a breakthrough occurs.\""""
    assert reported_gunnery(21, Deception.MAXIMAL, NO_DICE, "x", exact=True) == 21
    assert reported_gunnery(21, Deception.RANDOM, NO_DICE, "x", exact=True) == 21  # no roll
    assert possible_totals(20) == (18, 23)
    assert possible_totals(10) == (9, 12)
    assert possible_totals(25) == (22, 28)
    assert not could_be_breakthrough(20, 10)  # at most 23 against at least 9
    assert could_be_breakthrough(25, 10)  # 2.5 reported, yet 28 against 9 would be over 3-1
    assert could_be_breakthrough(10, 25)
    assert could_be_breakthrough(3, 0)
    assert could_be_breakthrough(0, 0)  # a reported 0 may be a true 1 (10% of 1 rounds up to 1)
    assert not could_be_breakthrough(10, 10)


# --- bombardment ------------------------------------------------------------------------------------------


def test_19_9_4_ca_and_six_dds_bombard_for_2_2() -> None:
    """Seed 003, 19.9.4: "DDs may bombard but only with a BHT of 4. Their CRT number is added to the
    CRT number of the other ships (for example, if a CA with a 5 gunnery factor and 6 DD's are
    bombarding, add the CA's 1.5 and the DDs' 0.7 to make a 2.2 overall.)" The shipped curve-fitted
    table gives exactly these numbers (the example's DDs have 1 gunnery factor each)."""
    ca = ship("Chikuma", "CA", 5, ammo=24)
    dds = [ship(f"DD-{i}", "DD", 1, ammo=0) for i in range(6)]
    assert CRT.cell(8, 5) == Fraction("1.5")
    assert CRT.cell(4, 6) == Fraction("0.7")
    dice = FixedDice(by_label={"T5.bombard.V-B45": [3, 4]})
    done = bombard([ca, *dds], night=False, table=CRT, dice=dice, label="T5.bombard.V-B45")
    assert [(g.bht, g.factors, g.cell) for g in done.groups] == [
        (8, 5, Fraction("1.5")),
        (4, 6, Fraction("0.7")),
    ]
    assert done.expected == Fraction("2.2")
    # 7: E x 1 = 2.2 -> 2 hits; 2 hits on a base roll of 7: critical check (21.8).
    assert (done.result.hits, done.result.base, done.result.critical_check) == (2, 7, True)
    assert "CRT number 2.2" in done.result.text
    assert dict(done.ammo_used) == {"Chikuma": 8} | {d.name: 0 for d in dds}
    assert done.ships[0].ammo == 16
    assert all(done.firings.count(d.name) == 1 for d in dds)
    # The same sum with a 10 (x 1.5): 3.3 -> 3 hits.
    again = bombard([ca, *dds], night=False, table=CRT, dice=FixedDice([5, 5]), label="T5.bombard.V-B45")
    assert again.result.hits == 3


def test_19_10_3_night_bombardment_bht_minus_1() -> None:
    """Seed 003, 19.10.3: "Bombardments on Night turns have a base BHT modifier of (-1.)\""""
    ca = ship("Chikuma", "CA", 5, ammo=24)
    dds = [ship(f"DD-{i}", "DD", 1, ammo=0) for i in range(6)]
    done = bombard([ca, *dds], night=True, table=CRT, dice=FixedDice([3, 4]), label="T5.bombard")
    assert [(g.bht, g.cell) for g in done.groups] == [(7, Fraction("1.3")), (3, Fraction("0.5"))]
    assert done.expected == Fraction("1.8")
    assert done.result.hits == 2


def test_bombardment_eligibility() -> None:
    """Reference A.11.7: "Only CAV, CA and CL ... At most one bombardment per turn ... Ships that took
    part in other surface combat cannot bombard"; 19.9.4 adds DDs."""
    bb = ship("Kongo", "BB", 20)
    ca = ship("Chikuma", "CA", 5)
    assert "only" in bombard_problems([bb], firings=Firings(), occasion="b")[0]
    assert not bombard_problems([ca], firings=Firings(), occasion="b")
    assert (
        "fought a surface battle"
        in bombard_problems([ca], firings=Firings(), occasion="b", fought={"Chikuma"})[0]
    )
    assert (
        "one bombardment a turn" in bombard_problems([ca], firings=Firings(), occasion="b", bombarded=True)[0]
    )
    with pytest.raises(GameError, match="only"):
        bombard([bb], night=False, table=CRT, dice=NO_DICE, label="b")


def test_bombardment_short_of_ammunition_and_dash_rule() -> None:
    """A CA with fewer than 8 Ammunition Factors fires half (DESIGN_DEFAULTS bombard_ammo); a lone '-'
    cell resolves by the seed's 15 rule: 'a "2" or "12" on a 2d6 will result in one hit'."""
    short = ship("Chikuma", "CA", 8, ammo=3)
    done = bombard([short], night=False, table=CRT, dice=FixedDice([4, 4]), label="b")
    assert done.groups[0].factors == 4 and done.ammo_used == {"Chikuma": 3}
    assert done.groups[0].cell == CRT.cell(8, 4)
    lone = ship("Fletcher", "DD", 1, ammo=0)
    standard = combat_table(TABLES, "standard")
    assert standard.cell(4, 1) is None
    dash = bombard([lone], night=False, table=standard, dice=FixedDice([6, 6]), label="b")
    assert dash.expected is None and dash.result.dash and dash.result.hits == 1
    miss = bombard([lone], night=False, table=standard, dice=FixedDice([3, 4]), label="b")
    assert miss.result.hits == 0
    empty = bombard([ship("Empty", "CL", 0)], night=False, table=CRT, dice=NO_DICE, label="b")
    assert empty.result.hits == 0 and empty.result.base == 0


def test_a11_7_fire_for_a_ship_in_the_torpedo_position_is_refused_when_read() -> None:
    """Reference A.11.7: in the gunnery round "Gunnery-position ships fire"; torpedo-position ships
    fire their torpedoes. A FIRE line for a torpedo-position ship is refused with the reason, not
    accepted and then ignored (issue 36, error 6: "she fires no guns ...; she fires by the default")."""
    from mailbot.games.flattop.combat.surface_battle import Round, why_silent
    from mailbot.games.flattop.orders.checks import OrderError
    from mailbot.games.flattop.orders.surface import SurfaceContext, read_surface_line

    mine = side(ALLIED, (ship("Astoria", "CA", 8), GUN), (ship("Fletcher", "DD", 3, torpedo=1), TORP))
    enemy = side(JAPANESE, (ship("Chokai", "CA", 8), GUN))
    why = why_silent(ship("Fletcher", "DD", 3, torpedo=1), mine, enemy, Round(turn=TURN, stage=Stage.GUNNERY))
    assert why is not None and "torpedo position: she fires no guns" in why
    assert why_silent(ship("Astoria", "CA", 8), mine, enemy, Round(turn=TURN, stage=Stage.GUNNERY)) is None
    context = SurfaceContext(
        "gunnery", {"FLETCHER": "Fletcher", "ASTORIA": "Astoria"}, ("CA #1",), {"Fletcher": why}
    )
    with pytest.raises(
        OrderError, match=r"torpedo position: she fires no guns .*: her FIRE line cannot be used"
    ):
        read_surface_line(context, "FIRE Fletcher AT CA#1")
    assert read_surface_line(context, "FIRE Astoria AT CA#1") is not None
