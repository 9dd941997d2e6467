# SPDX-License-Identifier: GPL-3.0-or-later
"""The scripted Flat Top player of the by-mail demo: it reads its letters, strikes and chooses by mail."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Event, Line, Setup
from mailbot.games.flattop import FlatTopGame
from mailbot.games.flattop.demo import DEMO, flattop_orders, turn_of
from mailbot.games.flattop.demo_launches import FIRST_STRIKE_AF
from mailbot.games.flattop.demo_plans import search_goal
from mailbot.games.flattop.demo_reading import Makeup, Stack, read_losses, read_makeups, read_report
from mailbot.games.flattop.demo_targets import (
    TypeDamage,
    choose_target,
    rank_orders,
    strike_orders,
    type_damage,
)
from mailbot.games.flattop.map.hexes import Direction, distance, neighbours, parse_hex_id
from mailbot.render.templates import wrap72
from tests.played import played

from .conftest import load_scenario_data, load_tables

GAME = FlatTopGame()
ROOT = Path(__file__).resolve().parents[3]
SEED = b"fletcher".ljust(32, b"-")  # with some seeds a storm holds TF 17 for hours (standard 6.8)
ENV = Environment(
    loader=FileSystemLoader(str(ROOT / "mailbot" / "games")),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)

# What the strike letters of a demo game said (taken from a game played by mail, wrapped as sent).
STRIKE_LETTER = """What happened:
  - 3 contact report(s) this turn: see Contacts
  - AF21 AF22 declared an attack at VII-E40.
    Precise makeup (seed 003, 15): TF A: 2 CV
    (one burning and listing heavily), 2 CA and 6 DD. Targets you may
    name: A-CV1 A-CV2 A-CA1 A-CA2 A-DD1 A-DD2 A-DD3 A-DD4 A-DD5 A-DD6

--- allied (deception policy random) ---
"""
LOSSES_LETTER = """What happened:
  - AF21: 12 Dauntless on A-CV1: burning and listing heavily
    aircraft were destroyed on the ground
  - A-CV2: enemy aircraft destroyed there;
    the types present were Val, Zero, Kate: send RANK A-CV2 <types in order>
  - BASE Port Moresby: enemy aircraft destroyed there; the types present
    were P-39, B-26: send RANK BASE Port Moresby <types in order>

--- japanese (deception policy maximal) ---
"""


def hour_orders(seat: str, step: str, text: str, turn: int) -> list[str]:
    """The script's orders for an hour without its PLOT lines (the staff plan's moves:
    ``test_demo_plans.py``), so a line's place in the list is that of the air orders."""
    return [line for line in flattop_orders(seat, step, text, turn) if not line.startswith("PLOT ")]


def letter(
    *,
    day: int = 1,
    hour: str = "0800",
    night: bool = False,
    storms: str = "none",
    planes: str = "readying: 8 Devastator; ready: 12 Wildcat, 24 Dauntless (GP)",
    air: str = "  none",
    contacts: str = "  none",
    ships: str = "CV Yorktown, CV Lexington, CA Minneapolis",
    vp: str = "",
) -> str:
    """An Allied report in the words of ``templates/report.txt.j2`` (unwrapped)."""
    return f"""== Flat Top: report for allied ==
Now: Turn 4 ({hour}, day {day}), game time D{day} {hour}{" (night)" if night else ""}.

What you must decide:
  Your orders for Turn 4.

The Battle of the Coral Sea, 4-8 May 1942 (approximate map)

What changed this hour:
  Nothing.

Winds: I NW, II NW, III NW, IV NW, V NW, VI NW, VII N, VIII NW.
Cloud markers (each covers 2 hexes around): none
Storms: {storms}

--- allied (deception policy random) ---
Task forces:
  TF1 at VI-N36, speed 2, plot HOLD
    ships: {ships}
    planes: {planes}
  TF10 at VI-B30, speed 2, plot HOLD
    ships: CA Australia, CA Chicago, CL Hobart, DD Perkins, DD Walke
Bases:
  Port Moresby at V-E24: readying: 4 B-26; ready: 6 P-39, 2 Catalina
  Australia at off board (entry 1A): ready: 6 B-17, 4 Hudson
Air formations aloft:
{air}
Contacts (last turns; condition 1-3, by kind of observer):
{contacts}

{vp}
Combat results table: curve-fitted (design default until the printed charts are at hand).
"""


CARRIERS_SEEN = "  D1 0700 VII-E34 ships condition 3 by aircraft: TF: 2 carrier, 2 capital, 6 small"


def hexes(*words: str) -> list[object]:
    return [parse_hex_id(w) for w in words]


# --- reading the letter ----------------------------------------------------------------------------


def test_the_report_reader_finds_own_units_boxes_contacts_storms_and_winds() -> None:
    air = "  AF2 at VII-D33, low, 2 Dauntless (GP), MF 9, range left 4 turn(s), from TF1"
    contacts = CARRIERS_SEEN + "\n  D1 0700 VI-O36 planes condition 2 by task force: about 3 air factors"
    report = read_report(letter(storms="VI-H33 VI-H34", air=air, contacts=contacts))
    assert report.when == (1, 8) and not report.night
    assert set(report.tfs) == {1, 10} and report.tfs[1].hex == parse_hex_id("VI-N36")
    boxes = report.tfs[1].boxes
    assert boxes["ready"] == (Stack(12, "Wildcat"), Stack(24, "Dauntless", "GP"))
    assert boxes["readying"] == (Stack(8, "Devastator"),)
    assert [s.name for s in report.tfs[1].carriers] == ["Yorktown", "Lexington"]
    assert [(af.number, af.hex, af.mf, af.range_left, af.armed) for af in report.air.values()] == [
        (2, parse_hex_id("VII-D33"), 9, 4, True)
    ]
    assert [(c.kind, c.hex, c.carriers) for c in report.contacts] == [
        ("ships", parse_hex_id("VII-E34"), True),
        ("planes", parse_hex_id("VI-O36"), False),
    ]
    assert report.storms == frozenset(hexes("VI-H33", "VI-H34"))
    assert report.winds[6] is Direction.NW and report.winds[7] is Direction.N
    assert report.bases == {"Port Moresby": parse_hex_id("V-E24")}  # off-board bases have no hex


def test_a_letter_reads_the_same_wrapped_at_72_columns_with_crlf_line_ends() -> None:
    """Mail wraps long lines with a hanging indent and ends lines with CRLF: the sections (storms
    up to the blank line) must not run on, nor the wrapped AF and TF lines be lost."""
    air = "  AF2 at VII-D33, low, 2 Dauntless (GP), 4 Wildcat, MF 8, range left 4 turn(s), from TF1"
    storms = " ".join(f"VI-{c}{r}" for c in "HIJK" for r in range(30, 38))  # wraps over several lines
    text = letter(storms=storms, air=air, contacts=CARRIERS_SEEN)
    mailed = wrap72(text).replace("\n", "\r\n")
    assert max(len(line) for line in mailed.split("\r\n")) <= 72 < max(len(line) for line in text.split("\n"))
    assert read_report(mailed) == read_report(text)
    assert parse_hex_id("VI-N36") not in read_report(mailed).storms  # the storm list ends at its blank line
    assert flattop_orders("allied", "T4.orders", mailed, 4) == flattop_orders("allied", "T4.orders", text, 4)


def test_seed_003_15_li1_the_precise_makeup_is_read_with_the_labels_it_gives() -> None:
    """Seed 003, 15 LI 1: "A player Air Attacking enemy TF's is told the precise makeup of the TF's in
    the hex (ship types and numbers of each type, plus visible damage, but never ship names)"."""
    (makeup,) = read_makeups(STRIKE_LETTER.replace("\n", "\r\n"))
    assert makeup.afs == (21, 22) and makeup.hex == "VII-E40"
    assert makeup.tfs == {"A": "2 CV (one burning and listing heavily), 2 CA and 6 DD"}
    assert makeup.labels[:3] == ("A-CV1", "A-CV2", "A-CA1") and len(makeup.labels) == 10


def test_seed_003_15_li1_the_attacker_declares_the_ships_he_attacks_from_the_makeup() -> None:
    """Seed 003, 15 LI 1: "After the precise report is given, he then declares what TF's/ships he will
    attack." Every AF that declared goes at the worst-hit carrier still afloat (labels number a
    type from the least hit up, combat.battle.label_target)."""
    assert strike_orders(STRIKE_LETTER) == ["TARGET AF21 A-CV2", "TARGET AF22 A-CV2"]
    intact = Makeup((3,), "VI-N36", {"A": "2 CV, 5 CA and 8 DD"}, ("A-CV1", "A-CV2", "A-CA1"))
    assert choose_target(intact) == "A-CV1"
    two_tfs = Makeup((3,), "V-E24", {"A": "2 CL and 3 DD", "B": "1 CVL and 1 DD"}, ("A-CL1", "B-CVL1"))
    assert choose_target(two_tfs) == "B-CVL1"  # the best type in any TF of the hex
    assert choose_target(Makeup((9,), "V-E24", {}, ("BASE",))) == "BASE"


def test_seed_003_15_li4_a_carrier_dead_in_the_water_is_finished_other_ships_are_not() -> None:
    """Seed 003, 15 LI 4: "Larger ships may take several hours to actually sink (possibly leading the
    opponent to waste more ordnance on a doomed ship.)" and "A ship that is officially destroyed but
    is delayed in sinking is reported to be crippled": the attacker cannot tell a doomed carrier from
    a crippled one, so the script finishes a carrier dead in the water before a smoking or intact
    ship, but spends nothing on a cruiser dead in the water while another ship still fights."""
    labels = ("A-CV1", "A-CV2", "A-CA1", "A-CA2")
    doomed = Makeup((3,), "x", {"A": "2 CV (one smoking, one dead in the water), 2 CA"}, labels)
    assert choose_target(doomed) == "A-CV2"  # CV2, the most hit, is the one dead in the water
    worse = "2 CV (one burning and listing heavily, one dead in the water)"
    burning = Makeup((3,), "x", {"A": worse}, labels)
    assert choose_target(burning) == "A-CV1"  # a ship still afloat and half sunk comes first
    cruiser = Makeup((3,), "x", {"A": "1 CV, 2 CA (one dead in the water)"}, labels)
    assert choose_target(cruiser) == "A-CV1"


def test_seed_003_15_li3_li4_the_strike_finishes_the_ship_burning_and_listing_heavily() -> None:
    """Seed 003, 15 LI 3: "Damage at least half of DF, but ship not crippled: Ship is burning and/or
    listing heavily." LI 4: "Note that ships with damage factors of 3 or greater will not sink
    immediately unless their hits exceed their damage factor by the required amount." Hits spread
    over ships sink none: the strike goes at the worst-hit ship afloat, burning before smoking before
    intact, whatever her type; a small ship (Damage Factor 2) only when nothing bigger is hit."""
    labels = ("A-CV1", "A-CA1", "A-CA2", "A-DD1", "A-DD2")
    burning = Makeup((3,), "x", {"A": "1 CV (one smoking), 2 CA (one burning and listing heavily)"}, labels)
    assert choose_target(burning) == "A-CA2"  # CA2 is the more hit of the two
    smoking = Makeup((3,), "x", {"A": "1 CV, 2 CA (one smoking)"}, labels)
    assert choose_target(smoking) == "A-CA2"
    small = Makeup((3,), "x", {"A": "1 CV, 2 DD (one burning and listing heavily)"}, labels)
    assert choose_target(small) == "A-CV1"
    mixed = "2 CA (one smoking, one burning and listing heavily), 2 DD"
    assert choose_target(Makeup((3,), "x", {"A": mixed}, labels)) == "A-CA2"
    both = Makeup((3,), "x", {"A": "2 CA (one smoking, one dead in the water)"}, labels)
    assert choose_target(both) == "A-CA1"  # CA2 is dead in the water: CA1 is the smoking one


def test_type_damage_reads_every_damage_word_of_a_type() -> None:
    """Seed 003, 15 LI 1: "plus visible damage, but never ship names": "2 CA (one smoking)"."""
    entry = "3 CV (one smoking, two burning and listing heavily), 2 CA (one dead in the water) and 6 DD"
    assert type_damage(entry, "CV") == TypeDamage(3, 1, 2, 0)
    assert type_damage(entry, "CA") == TypeDamage(2, 0, 0, 1) and type_damage(entry, "CA").afloat == 1
    assert type_damage(entry, "DD") == TypeDamage(6) and type_damage(entry, "BB") == TypeDamage()


def test_torpedo_bombers_join_the_strike_and_take_the_lower_af_number() -> None:
    """The Ready box's dive and torpedo bombers take off together for one target, each type its own
    normal launch; the torpedo AF has the lower number so it attacks first (strikes go in AF order).
    Fewer than MIN_STRIKE factors in all stay home."""
    planes = "ready: 12 Wildcat, 4 Dauntless (GP), 6 Devastator (TORPEDO)"
    near = "  D1 0700 VI-Q36 ships condition 3 by aircraft: TF: 2 carrier, 2 capital, 6 small"
    lines = hour_orders("allied", "T4.orders", letter(planes=planes, contacts=near), 4)
    strikes = [line for line in lines if " NORMAL " in line]
    assert [line.split(" PATH ")[0] for line in strikes] == [
        f"SEARCH AF{FIRST_STRIKE_AF} FROM TF1 6 Devastator TORPEDO NORMAL",
        f"SEARCH AF{FIRST_STRIKE_AF + 1} FROM TF1 4 Dauntless GP NORMAL",
    ]
    few = "ready: 12 Wildcat, 2 Dauntless (GP), 3 Devastator (TORPEDO)"
    assert not any(
        " NORMAL " in line
        for line in hour_orders("allied", "T4.orders", letter(planes=few, contacts=near), 4)
    )


def test_a_strike_letter_without_a_makeup_gets_a_priority() -> None:
    assert strike_orders("What happened:\n  - nothing\n") == [
        "PRIORITY CV CVL BB CA CAV AV CL AP AO APD DD PG"
    ]


def test_seed_003_15_li3_the_attacker_ranks_the_types_present() -> None:
    """Seed 003, 15 LI 3: "the defender need only tell the attacker what type of aircraft are present,
    not the exact numbers.  The attacker then ranks them in desired order of elimination." Bombers
    first; a base's label has spaces, so its ranking goes out for every place."""
    assert read_losses(LOSSES_LETTER) == (
        ("A-CV2", ("Val", "Zero", "Kate")),
        ("BASE Port Moresby", ("P-39", "B-26")),
    )
    assert rank_orders("allied", LOSSES_LETTER) == ["RANK A-CV2 Kate Val Zero", "RANK B-26 P-39"]
    assert rank_orders("japanese", "nothing") == ["RANK Devastator Dauntless Wildcat"]


# --- composing the turn's orders ---------------------------------------------------------------------


def test_a_strike_takes_off_for_a_carrier_contact_within_reach() -> None:
    """17 Dauntless (the Readying Factor of Yorktown 9 + Lexington 8; launching spends it) take off in
    a normal launch and fly as an armed search at the contact, from the hex into the wind (VI is
    NW: into the wind is SE of VI-N36), while the searcher holds the contact."""
    air = "  AF1 at VII-D33, low, 2 Dauntless (GP), MF 9, range left 5 turn(s), from TF1"
    lines = hour_orders("allied", "T4.orders", letter(air=air, contacts=CARRIERS_SEEN), 4)
    assert lines[0] == "DECEPTION RANDOM"
    assert lines[1].startswith("SEARCH AF1 PATH VII-E34 ") and lines[1].endswith(" IF SHIPS CLOSE 3")
    strike = lines[2]
    assert strike.startswith(f"SEARCH AF{FIRST_STRIKE_AF} FROM TF1 17 Dauntless GP NORMAL PATH VI-O36 ")
    assert strike.endswith(" IF SHIPS ATTACK") and len(strike.split("PATH ")[1].split()) == 5 + 3
    assert len(lines) == 3  # the Readying Factor is spent: nothing else is readied


def test_no_strike_beyond_reach_nor_too_late_to_be_home_by_dark() -> None:
    far = "  D1 0700 VIII-K34 ships condition 3 by aircraft: TF: 2 carrier, 2 capital, 6 small"
    for text in (letter(contacts=far), letter(hour="1600", contacts=CARRIERS_SEEN)):
        lines = hour_orders("allied", "T4.orders", text, 4)
        assert not any(" NORMAL " in line for line in lines), lines


def test_seed_003_nothing_takes_off_at_night_or_from_carriers_in_a_storm() -> None:
    """Standard 6.6 (as the rules tables have it): no plane may enter a storm hex, so none could land
    on carriers sitting in one; at night no flight starts."""
    for text in (letter(night=True, contacts=CARRIERS_SEEN), letter(storms="VI-N36", contacts=CARRIERS_SEEN)):
        lines = hour_orders("allied", "T4.orders", text, 4)
        assert not any(" FROM " in line for line in lines), lines


def test_searchers_go_out_in_pairs_toward_the_staff_plans_search_hexes() -> None:
    lines = hour_orders("allied", "T4.orders", letter(), 4)
    # Fighters search: every dive bomber is kept for the strikes.
    assert lines[1].startswith("SEARCH AF1 FROM TF1 2 Wildcat PATH ") and "IF SHIPS CLOSE 2" in lines[1]
    assert search_goal("allied", (1, 8), 1) == parse_hex_id("VII-K23")  # 4 May: Tulagi
    one_out = "  AF1 at VII-K23, low, 2 Wildcat, MF 8, range left 5 turn(s), from TF1"
    second = hour_orders("allied", "T5.orders", letter(air=one_out), 5)
    assert second[2].startswith("SEARCH AF2 FROM TF1 2 Wildcat PATH ")  # no contact: a second pair
    # AF1 rounds its search hex VII-K23 (what was seen there may have moved a hex)
    assert second[1].startswith("SEARCH AF1 PATH ") and second[1].endswith(" IF SHIPS CLOSE 3")
    path = [parse_hex_id(word) for word in second[1].split()[3:-4]]
    assert len(path) == 7 and all(h in neighbours(parse_hex_id("VII-K23")) for h in path), second[1]


def test_searchers_look_for_the_carriers_while_a_base_s_ships_are_in_sight() -> None:
    """Tulagi's anchorage, reported every hour, does not hold the searchers: the second pair flies
    to the plan's next search hex (the Japanese carriers' road), as with no contact at all."""
    tulagi = "  D1 0700 VII-K23 ships condition 3 by coastwatcher: TF: 1 capital, 6 small"
    one_out = "  AF1 at VII-K23, low, 2 Wildcat, MF 8, range left 5 turn(s), from TF1"
    lines = hour_orders("allied", "T5.orders", letter(air=one_out, contacts=tulagi), 5)
    launch = next(line for line in lines if line.startswith("SEARCH AF2 FROM TF1 2 Wildcat PATH "))
    goal = search_goal("allied", (1, 8), 2)
    assert goal == parse_hex_id("IV-F17")
    path = [parse_hex_id(word) for word in launch.split(" PATH ")[1].split()[:-4]]
    start = parse_hex_id("VI-N36")
    assert distance(path[-1], goal) < distance(start, goal), launch
    # With the enemy carriers in sight one searcher keeps the contact and no second pair goes out.
    seen = hour_orders("allied", "T5.orders", letter(air=one_out, contacts=CARRIERS_SEEN), 5)
    assert not any(line.startswith("SEARCH AF2 FROM") for line in seen), seen


def _concedes(*letters: str) -> bool:
    assert DEMO.concedes is not None
    return DEMO.concedes("allied", "T63.orders", letters)


#: what the Allies' earlier letters told them of their strikes (the attacker's words, 15 LI 3 and 4)
STRIKES = "Strikes:\n  AF21: 6 Dauntless attacked A-CV1: hits seen:\n    she is {}\n"


def test_a_side_that_lost_more_carriers_than_it_put_out_concedes_at_the_nightfall_review() -> None:
    """From the third day's nightfall letter on, a side whose carriers are sunk (gone from its letter)
    or can launch nothing (hits took their whole LF) beyond the enemy carriers its strikes left dead
    in the water or saw sink (as its letters told it) sends CONCEDE."""
    crippled = "CV Yorktown (5/8 hits), CV Lexington, CA Minneapolis"  # LF 11 - 5 x 3: nothing flies
    assert _concedes(letter(day=3, hour="1900", night=True, ships=crippled))
    sunk = "CV Lexington, CA Minneapolis"  # Yorktown gone from the letter
    assert _concedes(letter(day=4, hour="1900", night=True, ships=sunk))
    # Not before the third day, not at another hour, not when its carriers still fly.
    for text in (
        letter(day=2, hour="1900", night=True, ships=crippled),
        letter(day=3, hour="1800", ships=crippled),
        letter(day=3, hour="2000", night=True, ships=crippled),
        letter(day=3, hour="1900", night=True, ships="CV Yorktown (2/8 hits), CV Lexington"),
    ):
        assert not _concedes(text), text
    nightfall = letter(day=3, hour="1900", night=True, ships=crippled)
    assert not DEMO.concedes("allied", "T63.strike", [nightfall])  # only instead of an hour's orders
    # An enemy carrier left dead in the water or seen to sink, in any earlier letter, evens it.
    assert not _concedes(STRIKES.format("dead in the water"), "no strikes", nightfall)
    assert not _concedes(STRIKES.format("seen to sink").replace("hits seen:\n    ", ""), nightfall)
    # Smoking or burning is not out of the battle, nor a hit on a carrier that was already.
    assert _concedes(STRIKES.format("burning and listing heavily"), nightfall)
    assert _concedes(
        "AF21: 6 Dauntless attacked A-CV1: no hits seen; she was dead in the water already", nightfall
    )
    # Two carriers lost against the same label put out twice: one carrier.
    both = "CA Minneapolis"
    assert _concedes(
        STRIKES.format("dead in the water"),
        STRIKES.format("dead in the water"),
        letter(day=4, hour="1900", night=True, ships=both),
    )
    assert not _concedes(
        STRIKES.format("dead in the water"),
        STRIKES.format("dead in the water").replace("A-CV1", "B-CVL1"),
        letter(day=4, hour="1900", night=True, ships=both),
    )


def test_planes_fly_home_around_storms_and_divert_when_their_carriers_are_stuck_in_one() -> None:
    """Standard 6.8: a TF that starts in a storm cannot move; an AF that must land and cannot reach
    its carriers there goes to a land base it can still reach."""
    low = "  AF21 at VI-M33, low, 12 Dauntless, MF 9, range left 2 turn(s), from TF1"
    home = hour_orders("allied", "T9.orders", letter(air=low, storms="VI-N35"), 9)
    assert home[1].startswith("FLY AF21 PATH ") and home[1].endswith(" RETURN TF1")
    assert "VI-N35" not in home[1]
    stuck = hour_orders("allied", "T9.orders", letter(air=low, storms="VI-N36 VI-N35"), 9)
    assert stuck[1].startswith("LAND AF21 TF1") or stuck[1].endswith(" RETURN TF1")  # waits: 2 turns left
    last = low.replace("range left 2", "range left 1").replace("VI-M33", "V-K26")
    diverted = hour_orders("allied", "T9.orders", letter(air=last, storms="VI-N36"), 9)
    assert diverted[1].endswith("RETURN Port-Moresby") or diverted[1] == "LAND AF21 Port-Moresby"


def test_the_readying_box_is_readied_within_the_readying_factor() -> None:
    """Reference A.5.4: READY moves factors Readying -> Ready and arms them, within the Readying
    Factor (17 for Yorktown and Lexington); torpedo planes get torpedoes, fighters no load."""
    planes = "just landed: 4 Dauntless (GP); readying: 12 Wildcat, 8 Devastator; ready: 2 Dauntless (GP)"
    lines = hour_orders("allied", "T2.orders", letter(hour="0500", night=True, planes=planes), 2)
    assert lines[1:] == ["READY TF1 8 Devastator TORPEDO", "READY TF1 9 Wildcat"]


def test_other_steps_and_seats_hold() -> None:
    assert flattop_orders("referee", "T1.orders", "", 1) == ["HOLD"]
    assert flattop_orders("allied", "setup", "", 1) == ["HOLD"]
    assert turn_of("T12.strike") == 12 and turn_of("setup") == 0


# --- in the game ---------------------------------------------------------------------------------------


def test_three_scripted_turns_parse_cleanly_and_give_contacts() -> None:
    """The demo's scenario, the full Coral Sea: the staff plans' PLOT lines parse as well."""
    data = {"tables": load_tables(), "scenarios": {"coral-sea": load_scenario_data("coral-sea")}}
    setup = Setup("coral-sea", ("allied", "japanese"), data=data)
    state = GAME.new_game(setup, dice=DiceStream(SEED, "", "s"))
    events: tuple[Event, ...] = ()
    for turn in (1, 2, 3):
        step = GAME.step(state)
        assert step is not None and step.key == f"T{turn}.orders"
        parsed = {}
        searched: set[str] = set()
        for seat in ("allied", "japanese"):
            report = ENV.get_template("flattop/templates/report.txt.j2").render(
                r=GAME.view(state, events, seat)
            )
            texts = flattop_orders(seat, step.key, wrap72(report), turn)
            parsed[seat] = GAME.parse(state, seat, [Line(i + 1, t) for i, t in enumerate(texts)])
            assert parsed[seat].problems == (), parsed[seat].problems
            assert list(parsed[seat].normalised) == texts  # the script writes the normalised syntax
            searched.update(seat for t in texts if t.startswith("SEARCH"))
        # 0500 is night: nothing flies; at dawn the searchers go out (from carriers not in a storm).
        assert bool(searched) is (turn != 1), (turn, searched)
        digest = order_digest({seat: list(p.normalised) for seat, p in parsed.items()})
        outcome = GAME.resolve(
            state, {s: p.orders for s, p in parsed.items()}, dice=DiceStream(SEED, digest, step.key)
        )
        state, events = outcome.state, outcome.events
    views = {seat: GAME.view(state, events, seat) for seat in ("allied", "japanese")}
    assert any(f["contacts"] for v in views.values() for f in v["forces"])
    assert views["allied"] != views["japanese"]


def test_the_demo_strikes_both_ways_and_chooses_its_targets_by_mail() -> None:
    """Issue 16: the demo game is played to its end with air strikes each way; each strike step is
    answered by TARGET lines naming labels its own letter gave, each losses step by RANK lines."""
    log = played("flattop")
    assert log.finished
    strikes = [r for r in log.steps if r.step.key.endswith(".strike")]
    sides = {seat for r in strikes for seat in r.step.owing}
    assert sides == {"allied", "japanese"}, [r.step.key for r in strikes]
    for record in strikes:
        for seat, lines in record.sent.items():
            assert lines and all(line.startswith("TARGET AF") for line in lines), lines
            assert record.parsed[seat].problems == ()
    for record in (r for r in log.steps if r.step.key.endswith(".losses")):
        for seat, lines in record.sent.items():
            assert lines and all(line.startswith("RANK ") for line in lines), lines
            assert record.parsed[seat].problems == ()
    told = [e.text for r in log.steps for e in r.outcome.events if e.audience]
    assert any(t.startswith("Air strike at") for t in told)
    assert any(t.startswith("Enemy air strike at") for t in told)
