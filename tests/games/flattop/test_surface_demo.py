# SPDX-License-Identifier: GPL-3.0-or-later
"""The surface-demo scenario and the demo players' answers to surface battles, submarines and
survivors (``mailbot/games/flattop/demo_steps.py``), on sample letters and in a game played in
process as the moderator plays it (quiet hours on standing orders, every other step by letter)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from mailbot.core.dice import DiceStream, order_digest
from mailbot.core.game import Event, Setup, Step, StepKind
from mailbot.games.flattop import FlatTopGame
from mailbot.games.flattop.demo import DEMO
from mailbot.games.flattop.demo_steps import (
    BHT,
    RESCUERS,
    answer_step,
    contacts,
    extra_orders,
    own_tfs,
    survivor_hexes,
)
from mailbot.games.flattop.map.scenario import load_scenario, require_scenario
from mailbot.games.flattop.orders.fleet import RESCUERS as FLEET_RESCUERS
from mailbot.games.flattop.orders.surface import SurfaceContext, read_surface_line
from mailbot.games.flattop.orders.types import BhtNumber
from mailbot.games.flattop.quiet import quiet_turn
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import ShipType, Side
from mailbot.registry import Registry, builtin_modules
from mailbot.render.templates import Renderer
from mailbot.testing.contract import lines_of, numbered

from .conftest import load_scenario_data, load_tables

GAME = FlatTopGame()
NAME = "surface-demo"
SEED = b"savo island".ljust(32, b"-")


@cache
def game_data() -> dict[str, Any]:
    return {"tables": load_tables(), "scenarios": {NAME: load_scenario_data(NAME)}}


def new_game() -> FlatTopState:
    setup = Setup(NAME, ("allied", "japanese"), data=game_data())
    return GAME.new_game(setup, dice=DiceStream(SEED, order_digest({}), "setup"))


# --- the scenario --------------------------------------------------------------------------------


def test_the_surface_demo_scenario_loads_as_a_demo_with_submarines_on() -> None:
    raw = load_scenario_data(NAME)
    assert load_scenario(raw, load_tables()).problems == ()
    assert raw["id"] == NAME and raw["approximate"] is True and "demo" in raw["title"]
    assert new_game().options.submarines  # the scenario's [options] turn seed 003, 27 on


def test_the_night_hours_leave_a_letter_at_dawn_for_rescue_and_submarines() -> None:
    """Three night hours (tables/time.toml), the second and third quiet; dawn is not quiet, so the
    orders that read the survivors and the submarine's contact go out by mail."""
    state = new_game()
    scenario = state.scenario
    hours = [scenario.start.plus(n) for n in range(5)]
    assert [scenario.is_night(h) for h in hours] == [True, True, True, False, False]
    assert hours[-1] == scenario.end
    assert [quiet_turn(state, turn) for turn in range(1, 6)] == [False, True, True, False, False]


def test_the_cruisers_meet_in_the_first_hour() -> None:
    """Seed 003, 19: "Surface Attack combat": the forces share a hex after the first hour's movement."""
    state = new_game()
    orders = {seat: GAME.parse(state, seat, numbered(["HOLD"])).orders for seat in state.seats}
    after = GAME.resolve(state, orders, dice=DiceStream(SEED, order_digest({}), "T1.orders")).state
    step = GAME.step(after)
    assert step is not None and step.key == "T1.surface1.engage" and step.kind is StepKind.CHOICE
    assert after.scenario.map.hex_id(after.pending.surface.hexes[0]) == "V-C26"  # type: ignore[union-attr]


def test_seed_27_the_submarines_lie_in_the_hex_of_an_allied_tf() -> None:
    """Seed 003, 27.9.1: "A submarine has four attack factors" (SUBATTACK: the enemy ships in its
    hex); and the surface forces hold cruisers, since "DD's and AO's never leave survivors"."""
    scenario = require_scenario(load_scenario_data(NAME), load_tables())
    subs = [t for t in scenario.task_forces if all(s.type is ShipType.SS for s in t.ships)]
    assert [t.side for t in subs] == [Side.JAPANESE]
    allied = {t.hex for t in scenario.task_forces if t.side is Side.ALLIED}
    assert subs[0].hex in allied
    for side in Side:
        cruisers = [
            s for t in scenario.task_forces if t.side is side for s in t.ships if s.type is ShipType.CA
        ]
        assert len(cruisers) >= 3


# --- sample letters ------------------------------------------------------------------------------


def letter(
    seat: str,
    *,
    night: bool = True,
    tfs: str = "",
    contact_lines: str = "  none",
    happened: Sequence[str] = (),
) -> str:
    """A report in the words of ``templates/report.txt.j2``, CRLF as mail brings it."""
    done = "".join(f"  - {line}\n" for line in happened)
    text = f"""== Flat Top: report for {seat} ==
Surface demo: a night action off Tulagi (demo, approximate map)
Now: Turn 4 (0600, day 1), game time D1 0600{" (night)" if night else ""}.
Winds: I SE, V NE.

What happened:
{done}
--- {seat} (deception policy random) ---
Task forces:
{tfs}Bases:
Air formations aloft:
  none
Contacts (last turns; condition 1-3, by kind of observer):
{contact_lines}

You owe orders for this step.
"""
    return text.replace("\n", "\r\n")


JAPANESE_TFS = """  TF10 at V-C26, speed 2, plot HOLD
    ships: CA Chokai, CA Aoba, CL Yubari, CL Tenryu
  TF20 at V-F26, speed 1, plot HOLD
    ships: SS I-21, SS I-24
"""
ALLIED_TFS = """  TF10 at V-C26, speed 2, plot HOLD
    ships: CA Chicago (2/6 hits), CL Hobart
  TF11 at V-F26, speed 1, plot HOLD
    ships: AO Neosho
  TF12 at V-F26, speed 2, plot HOLD
    ships: DD Sims
"""
CONTACTS = """  D1 0500 V-C26 ships condition 2 by task force: 4 ships
  D1 0500 V-F26 ships condition 1 by task force: ships"""


WRAPPED_TITLE = "Turn 3 (0500, day 1): surface battle (gunnery)"  # a letter after quiet hours


def test_seed_19_the_bht_number_is_sent_sealed_and_is_1_to_6() -> None:
    """Seed 003, 19: "each combatant will need to send his desired BHT number (1 through 6.) Since
    this is to be kept secret until both players are ready, it should be sent in a separate
    message"."""
    context = SurfaceContext("bht", {}, ())
    for seat in ("allied", "japanese"):
        body = answer_step(seat, "T1.surface1.bht", "sealed", letter(seat))
        assert body == f"SEAL BHT {BHT[seat]}\n"
        assert read_surface_line(context, body.strip()) == BhtNumber(BHT[seat])
        assert 1 <= BHT[seat] <= 6
    assert BHT["allied"] + BHT["japanese"] >= 7  # torpedoes count at night (reference A.11.7)


def test_engage_at_night_with_the_japanese_torpedo_group_and_avoid_by_day() -> None:
    night = letter("japanese", tfs=JAPANESE_TFS, contact_lines=CONTACTS)
    assert answer_step("japanese", "T1.surface1.engage", "choice", night) == (
        "ORDERS T1.surface1.engage\nENGAGE\nPOSITION Yubari TORPEDO\nPOSITION Tenryu TORPEDO\nEND\n"
    )
    allied = letter("allied", tfs=ALLIED_TFS, contact_lines=CONTACTS)
    assert (
        answer_step("allied", "T1.surface1.engage", "choice", allied)
        == "ORDERS T1.surface1.engage\nENGAGE\nEND\n"
    )
    day = letter("japanese", night=False, tfs=JAPANESE_TFS, contact_lines=CONTACTS)
    assert (
        answer_step("japanese", "T4.surface1.engage", "choice", day)
        == "ORDERS T4.surface1.engage\nAVOID\nEND\n"
    )


def test_a_force_already_in_action_keeps_its_light_cruisers_on_the_guns() -> None:
    fought = [
        "Turn 1 (0300, day 1): surface battle (torpedo): Surface torpedo round: CA #1: about 2 hit(s) seen"
    ]
    text = letter("japanese", tfs=JAPANESE_TFS, contact_lines=CONTACTS, happened=fought)
    assert (
        answer_step("japanese", "T2.surface1.engage", "choice", text)
        == "ORDERS T2.surface1.engage\nENGAGE\nEND\n"
    )
    tfs = JAPANESE_TFS.replace("CL Yubari", "CL Yubari (1/5 hits)")
    body = answer_step(
        "japanese", "T2.surface1.engage", "choice", letter("japanese", tfs=tfs, contact_lines=CONTACTS)
    )
    assert body == "ORDERS T2.surface1.engage\nENGAGE\nEND\n"


def test_the_fire_steps_are_left_to_the_default_allocation() -> None:
    for phase in ("gunnery", "torpedo", "breakthrough"):
        key = f"T1.surface1.{phase}"
        assert (
            answer_step("allied", key, "choice", letter("allied", tfs=ALLIED_TFS)) == f"ORDERS {key}\nEND\n"
        )


def test_seed_survivors_only_cruisers_destroyers_and_transports_rescue_where_they_are_seen() -> None:
    """Seed 003, Survivors: "Only CA's, CAV's, CL's, DD's and empty AP/APD's can pick up survivors."
    "Survivors are observed by ships in the same hex (exact number of factors reported)"."""
    assert frozenset(t.value for t in FLEET_RESCUERS) == RESCUERS
    seen = letter(
        "allied",
        night=False,
        tfs=ALLIED_TFS,
        happened=[f"{WRAPPED_TITLE}: 3 friendly survivor factor(s) in the\n    water at V-C26"],
    )
    assert survivor_hexes(seen) == {"V-C26"}
    assert extra_orders("allied", seen) == ["RESCUE TF10"]  # not the AO's TF11, nor TF12 elsewhere
    assert answer_step("allied", "T4.orders", "orders", seen) == "RESCUE TF10"
    elsewhere = seen.replace("V-C26\r\n\r\n--- allied", "V-F26\r\n\r\n--- allied")
    assert extra_orders("allied", elsewhere) == ["RESCUE TF12"]  # the DD may; the AO may not


def test_carriers_do_not_stop_to_pick_up_survivors() -> None:
    tfs = "  TF1 at V-C26, speed 2, plot HOLD\n    ships: CV Yorktown, CA Astoria\n"
    wet = letter("allied", tfs=tfs, happened=["2 enemy survivor factor(s) in the water at V-C26"])
    assert extra_orders("allied", wet) == []


def test_seed_27_6_the_submarines_attack_from_periscope_depth_what_their_letter_shows() -> None:
    """Seed 003, 27.6: "If a sub is at periscope depth, the sub's attack is resolved first.\""""
    seen = letter("japanese", night=False, tfs=JAPANESE_TFS, contact_lines=CONTACTS)
    assert extra_orders("japanese", seen) == ["DEPTH TF20 PERISCOPE", "SUBATTACK TF20"]
    nothing_there = letter("japanese", tfs=JAPANESE_TFS, contact_lines=CONTACTS.split("\n", maxsplit=1)[0])
    assert extra_orders("japanese", nothing_there) == []
    assert answer_step("japanese", "T4.orders", "orders", nothing_there) is None


def test_seed_27_9_a_tf_that_sees_a_submarine_attacks_it() -> None:
    """Seed 003, 27.9: "Surfaced subs may only be attacked by gunnery; periscope depth subs may be
    attacked by gunnery (-2 BHT modifier) or ASW": the DD's TF attacks, the oiler alone cannot."""
    sub = "  D1 0600 V-F26 ships condition 3 by task force: TF: 1\n    submarine"
    seen = letter("allied", night=False, tfs=ALLIED_TFS, contact_lines=sub)
    assert contacts("allied", seen)[0].text == "TF: 1 submarine"
    assert extra_orders("allied", seen) == ["ASW TF12"]


def test_wrapped_ship_lists_are_read_whole() -> None:
    tfs = (
        "  TF10 at V-C26, speed 2, plot HOLD\n    ships: CA Chokai (3/6 hits), CA Aoba, CA Kako,\n"
        "      CA Kinugasa, CL Yubari, CL Tenryu\n"
    )
    (tf,) = own_tfs("japanese", letter("japanese", tfs=tfs))
    assert [(s.type, s.name, s.hits) for s in tf.ships][-3:] == [
        ("CA", "Kinugasa", 0),
        ("CL", "Yubari", 0),
        ("CL", "Tenryu", 0),
    ]
    assert tf.ships[0].hits == 3


def test_other_steps_are_left_to_the_carrier_admiral() -> None:
    assert answer_step("allied", "T4.strike", "choice", letter("allied", tfs=ALLIED_TFS)) is None


# --- a game played in process, letter by letter ---------------------------------------------------


@cache
def renderer() -> Renderer:
    return Renderer(registry=Registry(builtin_modules()))


def report(state: FlatTopState, events: Sequence[Event], seat: str, step: Step) -> str:
    """The seat's letter: its report and the step it owes, wrapped and CRLF as mail brings it."""
    text = renderer().render("flattop/report", {"r": GAME.view(state, events, seat)}).text
    verb = f"SEAL <label> <value> for {step.key}" if step.kind is StepKind.SEALED else f"ORDERS {step.key}"
    text += f"\nNow open: {step.title}\nYou owe orders for this step.\nSend: {verb}\n"
    return text.replace("\n", "\r\n")


@cache
def played() -> tuple[FlatTopState, dict[str, list[str]], dict[str, list[list[str]]]]:
    """The demo script (``demo.DEMO``, which asks ``demo_steps`` first) plays the scenario: a quiet
    hour on the standing orders, every other step answered from the seat's own letter, the dice
    fixed by the step key. Returns the end state, each seat's letters and its accepted lines."""
    state, events = new_game(), list[Event]()
    letters: dict[str, list[str]] = {seat: [] for seat in state.seats}
    sent: dict[str, list[list[str]]] = {seat: [] for seat in state.seats}
    while (step := GAME.step(state)) is not None:
        orders = {}
        for seat in sorted(step.owing):
            if step.quiet:
                orders[seat] = list(GAME.default_orders(state, seat))
                continue
            text = report(state, events, seat, step)
            letters[seat].append(text)
            lines = lines_of(DEMO.answer(seat, step.key, step.kind.value, len(sent[seat]), text), step)
            parsed = GAME.parse(state, seat, numbered(lines))
            assert parsed.problems == (), (step.key, seat, lines, parsed.problems)
            orders[seat] = list(parsed.normalised) or list(GAME.default_orders(state, seat))
            sent[seat].append(orders[seat])
        events = [] if not step.quiet else events
        dice = DiceStream(SEED, order_digest(orders), step.key)
        outcome = GAME.resolve(
            state, {s: GAME.parse(state, s, numbered(o)).orders for s, o in orders.items()}, dice=dice
        )
        state, events = outcome.state, [*events, *outcome.events]
        if outcome.finished:
            break
    for seat in state.seats:
        letters[seat].append(renderer().render("flattop/report", {"r": GAME.view(state, events, seat)}).text)
    return state, letters, sent


def test_the_demo_plays_a_night_surface_battle_to_the_end() -> None:
    state, letters, sent = played()
    assert state.score.finished and state.score.surface_battles >= 1
    bht = [lines for seat in sent for lines in sent[seat] if lines and lines[0].startswith("BHT ")]
    assert len(bht) >= 2  # both sides sealed a number
    assert any("Sealed BHT numbers opened" in text for text in letters["allied"])


def test_the_demo_submarines_attack_and_survivors_are_picked_up() -> None:
    state, letters, sent = played()
    assert state.score.sub_battles >= 1
    assert any("SUBATTACK TF20" in lines for lines in sent["japanese"])
    told = " ".join(" ".join(text.split()) for seat in letters for text in letters[seat])
    assert "in the water at V-C26" in told and "picked up" in told
    assert any(line.startswith("RESCUE ") for seat in sent for lines in sent[seat] for line in lines)
