# SPDX-License-Identifier: GPL-3.0-or-later
"""Victory points and the end of the game: standard 25 (reference A.13, B.13) and seed 003.

Every test reads the shipped ``data/tables/victory.toml`` (through ``load_tables``).
"""

from __future__ import annotations

from typing import Any

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop.map.hexes import Hex
from mailbot.games.flattop.units import (
    AirBoxes,
    AirFactors,
    AirFormation,
    Base,
    Handling,
    Ship,
    ShipType,
    Side,
    TaskForce,
    dump,
    load,
)
from mailbot.games.flattop.victory import (
    HIDDEN_NOTE,
    VictoryRules,
    VpEntry,
    record,
    totals,
    transport_value,
    visible,
)
from mailbot.games.flattop.victory_end import automatic, final, fleet, nothing_left
from mailbot.games.flattop.victory_scoring import (
    air_lost,
    bases_at_turn_start,
    damage_at_end,
    ship_sunk,
    survivors_rescued,
    troops_unloaded,
    unload_turn,
)
from tests.games.flattop.conftest import load_scenario_data, load_tables

A, J = Side.ALLIED, Side.JAPANESE
TABLE: dict[str, Any] = load_tables()["victory"]
RULES = VictoryRules.from_mapping(TABLE)


def ship(name: str, kind: ShipType, damage: int = 4, hits: int = 0, **kw: Any) -> Ship:
    return Ship(name, kind, gunnery=2, aa=2, torpedo=0, movement=2, damage=damage, hits=hits, **kw)


ON_BOARD = Hex(5, 5)


def base(name: str, launch: int, side: Side = J, *, at: Hex | None = ON_BOARD) -> Base:
    return Base(name, side, at, Handling.LP, None, launch=launch, launch_min=1, readying=4, aa=4)


def points(side: Side, value: int, key: str) -> VpEntry:
    return VpEntry(1, side, value, "test", key, side.opponent, "test", "test")


def with_victory(victory: dict[str, Any]) -> VictoryRules:
    return VictoryRules.from_mapping(TABLE, {"id": "t", "victory": victory})


# --- the shipped table ---------------------------------------------------------


def test_b13_ship_values_are_design_defaults() -> None:
    """Reference B.13: "VP table default (design default; replace with the printed table): CV 20,
    CVL 12, BB 15, CA 6, CL 4, DD 2, AV/CAV 4, AO 3, AP 24 (per the §25.5 example), APD 4"."""
    expected = {"CV": 20, "CVL": 12, "BB": 15, "CA": 6, "CL": 4, "DD": 2, "AV": 4, "CAV": 4}
    expected |= {"AO": 3, "AP": 24, "APD": 4, "PG": 1, "SS": 3}
    assert {t.value: p.value for t, p in RULES.ships.items()} == expected
    assert all(p.default and "B.13" in p.source for p in RULES.ships.values())
    entry = ship_sunk(ship("Shoho", ShipType.CVL), J, 7, RULES)
    assert (entry.side, entry.points, entry.default) == (A, 12, True)


def test_every_section_says_where_it_comes_from() -> None:
    """Common rules: every table the seed lacks is data marked ``default = true`` with a source line.

    Design defaults here are exactly the ship values, the damage rule and the APD's unloading.
    """
    sections = {name: TABLE[name] for name in ("end", "ships", "damage", "air", "bases", "survivors")}
    sections |= {f"transports.{t}": TABLE["transports"][t] for t in ("AP", "APD")}
    assert all(isinstance(s["default"], bool) and s["source"] for s in sections.values())
    assert {name for name, s in sections.items() if s["default"]} == {"ships", "damage", "transports.APD"}


def test_a13_air_factor_2_vp_or_10_if_lost_unnecessarily() -> None:
    """Reference A.13: "A lost Air Factor is worth 2 VP to the enemy, or 10 VP if lost
    "unnecessarily": it could not land by its deadline through the owner's error or choice."."""
    shot_down = air_lost("Val", 3, J, 9, RULES)
    out_of_fuel = air_lost("Val", 3, J, 9, RULES, unnecessary=True)
    assert (shot_down.side, shot_down.points, shot_down.default) == (A, 6, False)
    assert (out_of_fuel.side, out_of_fuel.points) == (A, 30)
    assert shot_down.key != out_of_fuel.key
    with pytest.raises(GameError):
        air_lost("Val", 0, J, 9, RULES)


def test_a13_ap_unloading_example() -> None:
    """Reference A.13: "an AP unloads 3 VP a turn for 8 turns, and its value if sunk falls from 24
    by 3 each time"."""
    assert [transport_value(24, k, 3) for k in range(9)] == [24, 21, 18, 15, 12, 9, 6, 3, 0]
    ap = ship("Azumasan Maru", ShipType.AP)
    scored = [unload_turn(ap, J, 20 + k, k, RULES) for k in range(8)]
    assert [e.points if e else 0 for e in scored] == [3] * 8
    assert all(e is not None and e.side is J and not e.default for e in scored)
    assert [ship_sunk(ap, J, 30, RULES, unloaded_turns=k).points for k in (0, 1, 5, 8)] == [24, 21, 9, 0]
    with pytest.raises(GameError):
        unload_turn(ap, J, 30, 8, RULES)  # "for 8 turns": there is no ninth
    with pytest.raises(GameError):
        unload_turn(ship("Yubari", ShipType.CL), J, 30, 0, RULES)


def test_apd_unloading_design_default_never_exceeds_its_value() -> None:
    """Reference A.5.1: "Each unloading turn scores VP and lowers the ship's sunk-value by the same
    amount"; the APD's share is a design default (1 VP a turn until its 4 VP are spent)."""
    apd = ship("Mochizuki", ShipType.APD)
    scored = [unload_turn(apd, J, 20 + k, k, RULES) for k in range(8)]
    assert [e.points if e else 0 for e in scored] == [1, 1, 1, 1, 0, 0, 0, 0]
    assert scored[0] is not None and scored[0].default
    assert ship_sunk(apd, J, 30, RULES, unloaded_turns=3).points == 1


def test_seed_003_victory_point_change_henderson_and_rabaul_4_other_bases_2() -> None:
    """Seed 003: "VICTORY POINT CHANGE:  For each turn that Henderson or Rabaul STARTS at 0 LF or
    below, score 4 points.  For all other bases, score 2 points." """
    bases = [
        base("Rabaul", 0),
        base("Henderson Field", -3, A),
        base("Henderson", -1, A),
        base("Lae", -2),
        base("Tulagi", 1),  # above 0 LF: nothing
        base("Truk", -5, at=None),  # off the board: never scores
    ]
    entries = bases_at_turn_start(bases, 14, RULES)
    assert [(e.owner_reason.split(" started")[0], e.side, e.points) for e in entries] == [
        ("Rabaul", A, 4),
        ("Henderson Field", J, 4),
        ("Henderson", J, 4),
        ("Lae", A, 2),
    ]
    assert not any(e.default for e in entries)
    # "For each turn": the next turn scores again, under its own key.
    again = bases_at_turn_start([base("Rabaul", 0)], 15, RULES)
    assert len(record(entries, again)) == 5


def test_seed_003_survivors_2_vp_same_nationality_1_opposite() -> None:
    """Seed 003, Survivors: "Each survivor factor rescued that is still carried (or has been unloaded
    on friendly territory) at game’s end is worth 2 VP if the same nationality as the player who
    rescued them, 1 VP if of the opposite nationality.  Thus US survivors are worth 1 VP to the
    Japanese, and vise versa." """
    own = survivors_rescued(A, A, 3, 48, RULES, where="Phelps")
    enemy = survivors_rescued(J, A, 3, 48, RULES, where="Ushio")
    assert own is not None and (own.side, own.points) == (A, 6)
    assert enemy is not None and (enemy.side, enemy.points) == (J, 3)
    assert survivors_rescued(J, J, 0, 48, RULES, where="Ushio") is None


# --- damage at the end --------------------------------------------------------


def test_damage_at_end_one_vp_a_hit_below_the_sunk_value() -> None:
    """Reference A.13: "Ships that leave the map score VP for the damage they took, not as sunk";
    design default (B.13 has none): 1 VP a hit, at most the sunk value less 1."""
    ships = [
        (ship("Chicago", ShipType.CA, damage=8, hits=2), A),  # 2 VP
        (ship("Lexington", ShipType.CV, damage=10, hits=9), A),  # crippled, 9 of at most 19
        (ship("Myoko", ShipType.CA, damage=8, hits=7), J),  # capped at 6 - 1
        (ship("Sims", ShipType.DD, damage=2, hits=2), A),  # sunk: ship_sunk scores it
        (ship("Hobart", ShipType.CL), A),  # no hits
        (ship("Asanagi", ShipType.AP, damage=3, hits=1), J),  # unloaded 8 turns: worth 0
    ]
    entries = damage_at_end(ships, 48, RULES, unloaded={"Asanagi": 8})
    assert [(e.key, e.side, e.points) for e in entries] == [
        ("damage:allied:Chicago", J, 2),
        ("damage:allied:Lexington", J, 9),
        ("damage:japanese:Myoko", A, 5),
    ]
    assert all(e.default for e in entries)


# --- the ledger and who sees it ----------------------------------------------


def test_record_refuses_scoring_the_same_thing_twice() -> None:
    """The ledger is append-only; a ship is sunk once, so its key may appear once."""
    sunk = ship_sunk(ship("Shoho", ShipType.CVL), J, 7, RULES)
    ledger = record((), [sunk, None, air_lost("Zero", 2, J, 7, RULES, where="V-F20")])
    assert totals(ledger) == {A: 16, J: 0}
    with pytest.raises(GameError, match="twice"):
        record(ledger, [ship_sunk(ship("Shoho", ShipType.CVL), J, 8, RULES)])


def test_ledger_round_trips_as_json_data() -> None:
    """The ledger is data in the state: units.dump / units.load restore it exactly."""
    entry = air_lost("Kate", 2, J, 3, RULES, unnecessary=True)
    assert load(VpEntry, dump(entry)) == entry


def test_visible_during_the_game_only_own_units_then_all_without_enemy_names() -> None:
    """Seed 003, Limited Intelligence: hits on ships "are reported abstractly" and a "ship that is
    officially destroyed but is delayed in sinking is reported to Be crippled": the attacker is not
    told what it scored until the end, and never the enemy's ship names."""
    ledger = record(
        (),
        [
            ship_sunk(ship("Shoho", ShipType.CVL), J, 7, RULES),
            ship_sunk(ship("Sims", ShipType.DD), A, 7, RULES),
            *bases_at_turn_start([base("Port Moresby", 0, A)], 8, RULES),
        ],
    )
    allied = visible(ledger, A)
    assert [line.text for line in allied] == ["DD Sims sunk", "Port Moresby started turn 8 at LF 0"]
    assert all(line.side is J for line in allied)  # only what the enemy scored from its losses
    at_end = visible(ledger, A, game_over=True)
    assert [line.text for line in at_end] == [
        "Japanese CVL sunk",
        "DD Sims sunk",
        "Port Moresby started turn 8 at LF 0",
    ]
    assert not any("Sims" in line.text for line in visible(ledger, J, game_over=True))
    assert "end of the game" in HIDDEN_NOTE


# --- the end --------------------------------------------------------------------


def test_a13_automatic_victory_only_at_the_end_of_the_2400_turn() -> None:
    """Reference A.13: "Automatic victory: if, at the end of a 2400 turn, the VP difference is at
    least the scenario's Automatic Victory Level, the game ends." GameTime names it hour 24."""
    rules = with_victory({"automatic_level": 30})
    ledger = (points(A, 40, "a"), points(J, 10, "b"))
    assert automatic(ledger, rules, hour=23) is None
    assert automatic(ledger, rules, hour=1) is None
    verdict = automatic(ledger, rules, hour=24)
    assert verdict is not None and verdict.winner is A
    assert verdict.totals == {A: 40, J: 10}
    assert "Automatic Allied victory, 40 VP to 10" in verdict.reason
    assert automatic((points(A, 39, "a"), points(J, 10, "b")), rules, hour=24) is None
    assert automatic(ledger, RULES, hour=24) is None  # no level: no automatic victory


def test_a13_most_vp_wins_only_with_50_else_draw() -> None:
    """Reference A.13: "Otherwise the side with the most VP wins, but only if it has ≥50 VP.
    Otherwise the game is a draw."."""
    win = final((points(J, 50, "a"), points(A, 49, "b")), RULES)
    assert (win.winner, win.reason) == (J, "Japanese victory, 50 VP to 49")
    short = final((points(A, 49, "a"), points(J, 10, "b")), RULES)
    assert short.winner is None and "short of the 50 VP" in short.reason
    tie = final((points(A, 60, "a"), points(J, 60, "b")), RULES)
    assert (tie.winner, tie.reason) == (None, "Draw, 60 VP each")


def test_nothing_left_to_fight_with() -> None:
    """Design: a side has nothing left when no ship afloat can move or fight and it has no Air
    Factor anywhere (boxes of its bases and ships, and aloft)."""
    cripple = Ship("Neosho", ShipType.AO, gunnery=0, aa=1, torpedo=0, movement=2, damage=4, hits=3)
    sunk = ship("Sims", ShipType.DD, damage=2, hits=2)
    empty = base("Port Moresby", -2, A)
    assert nothing_left(A, [(cripple, A), (sunk, A)], [empty], [])
    assert not nothing_left(A, [(ship("Hobart", ShipType.CL), A)], [empty], [])
    planes = AirBoxes(ready=(AirFactors("P-39", 1),))
    australia = Base("Australia", A, None, Handling.LP, None, 4, 1, 4, 2, boxes=planes)  # off the board
    assert not nothing_left(A, [(cripple, A)], [australia], [])
    aloft = AirFormation(3, A, Hex(1, 1), (AirFactors("B-17", 2),), "Australia", 5)
    assert not nothing_left(A, [(cripple, A)], [empty], [aloft])
    assert nothing_left(
        A, [(cripple, A)], [empty], [AirFormation(3, J, Hex(1, 1), aloft.stacks, "Rabaul", 5)]
    )
    tf = TaskForce(1, J, Hex(2, 2), (ship("Yubari", ShipType.CL),))
    assert nothing_left(A, fleet([tf]), [empty], [])
    assert not nothing_left(J, fleet([tf]), [], [])


# --- the scenario's own [victory] table ---------------------------------------


def test_scenario_victory_table_overrides_and_adds() -> None:
    """Reference B.13: per scenario "VP table, Automatic Victory Level"; A.13's Eastern Solomons
    example: "the Japanese need to land 50 troop factors at Henderson Field"."""
    rules = with_victory(
        {
            "automatic_level": 40,
            "minimum_to_win": 30,
            "ships": {"CV": 25},
            "bases": {"key": {"Port Moresby": 4, "Rabaul": 3}},
            "unloaded": [{"place": "Port Moresby", "side": "japanese", "points": 2}],
        }
    )
    assert rules.automatic_level is not None and rules.automatic_level.value == 40
    assert rules.minimum_to_win.value == 30
    assert (rules.ships[ShipType.CV].value, rules.ships[ShipType.CV].default) == (25, False)
    assert rules.ships[ShipType.CV].source == "scenario t [victory]"
    assert rules.ships[ShipType.CA].value == 6  # the rest stays
    assert [rules.base_value(n).value for n in ("port moresby", "Rabaul", "Henderson", "Lae")] == [4, 3, 4, 2]
    troops = troops_unloaded("Port Moresby", 5, J, 20, rules)
    assert troops is not None and (troops.side, troops.points) == (J, 10)
    assert troops_unloaded("Port Moresby", 5, A, 20, rules) is None
    assert troops_unloaded("Lae", 5, J, 20, rules) is None


@pytest.mark.parametrize(
    "victory",
    [
        {"automatic_levle": 40},  # a typo must not leave the default silently in force
        {"ships": {"XX": 3}},
        {"minimum_to_win": -1},
        {"automatic_level": 0},
        {"air": {"lost": True}},
        {"transports": {"CA": {"per_turn": 1}}},
        {"unloaded": [{"place": "", "side": "japanese", "points": 1}]},
        {"unloaded": [{"place": "Lae", "side": "dutch", "points": 1}]},
    ],
)
def test_malformed_scenario_victory_table_is_a_game_error(victory: dict[str, Any]) -> None:
    """A scenario's [victory] table is checked like the shipped data."""
    with pytest.raises(GameError):
        with_victory(victory)


def test_malformed_shipped_table_is_a_game_error() -> None:
    broken = {key: value for key, value in TABLE.items() if key != "air"}
    with pytest.raises(GameError):
        VictoryRules.from_mapping(broken)
    no_cv = TABLE | {"ships": {k: v for k, v in TABLE["ships"].items() if k != "CV"}}
    with pytest.raises(GameError):
        VictoryRules.from_mapping(no_cv)


def test_shipped_scenarios_load_with_the_victory_table() -> None:
    """The scenarios as shipped read with victory.toml (today neither has a [victory] table)."""
    for name in ("coral-sea-demo", "test-small"):
        rules = VictoryRules.from_mapping(TABLE, load_scenario_data(name))
        assert rules.minimum_to_win.value == 50
