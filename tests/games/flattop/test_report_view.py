# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 18: Flat Top letters people want to read, and the map model of what each side knows.

The report leads with what changed this hour and what the side must decide; contacts are
merged per hex with the best condition and the kinds of observer that saw them; the weather is
summarised near the side's own units with every hex in an appendix; and ``r["map"]`` is the
side's map of the hour, built from its own knowledge only.
"""

from __future__ import annotations

import json
from dataclasses import replace
from html.parser import HTMLParser
from typing import Any

import pytest

from mailbot.core.game import Event, Step
from mailbot.games.flattop.map.hexes import Hex, distance
from mailbot.games.flattop.map.weather import Cloud, storm_hexes
from mailbot.games.flattop.observation.knowledge import ContactReport, Knowledge, Sighting, UnitReport
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side
from mailbot.games.flattop.view_weather import WEATHER_RADIUS
from mailbot.registry import Registry, builtin_modules
from mailbot.render.templates import wrap72
from mailbot.testing import contract
from tests.played import played

from .play import GAME, game_data, new, play

REGISTRY = Registry(builtin_modules())
PACKAGE = REGISTRY.find("flattop")
ENV = contract.report_env(REGISTRY)
#: the CSS classes the letter frame defines for fragments (common/letter.html.j2)
FRAME_CLASSES = {"muted", "warn", "orders", "cols"}


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


def text_of(view: Any) -> str:
    return wrap72(contract.render_report(ENV, PACKAGE, view, "txt"))


def hx(state: FlatTopState, name: str) -> Hex:
    found = state.scenario.map.parse(name)
    assert found is not None, name
    return found


def section(text: str, head: str, end: str) -> str:
    start = text.index(head)
    return text[start : text.index(end, start)]


# --- contacts merged per hex -------------------------------------------------------------------

C3 = ContactReport("ships", 3, units=(UnitReport(counts=(("carrier", 1), ("small", 3))),))


def seen(state: FlatTopState) -> FlatTopState:
    """Turn 5 (0900): the Allies hold five reports of the ships at V-C26 (turns 2 and 3, three
    observers), one of planes there, and one of ships at V-G25 from turn 1 (history by now)."""
    sightings = (
        Sighting(2, "AF", "AF2", "V-C26", C3),
        Sighting(3, "AF", "AF3", "V-C26", ContactReport("ships", 2, approx=6, classes=("carrier", "small"))),
        Sighting(3, "AF", "AF4", "V-C26", ContactReport("ships", 2, approx=3, classes=("carrier", "small"))),
        Sighting(3, "CW", "CW Tulagi", "V-C26", ContactReport("ships", 1)),
        Sighting(3, "TF", "TF1", "V-C26", ContactReport("planes", 1, altitude="low")),
        Sighting(1, "AF", "AF1", "V-G25", C3),
    )
    allied = state.side(Side.ALLIED)
    knowledge = Knowledge("allied", tuple(sorted(sightings, key=lambda s: (s.turn, s.hex, s.kind))))
    return replace(state.with_side(replace(allied, knowledge=knowledge)), turn=5)


def test_seed_003_7_12_contacts_are_merged_per_hex_with_the_best_condition_and_its_observers(
    data: dict[str, Any],
) -> None:
    """Seed 003, 7.12.2: reports name no enemy units; issue 18: "contacts merged per hex with the
    best condition and who saw them". Four reports of the ships at V-C26 make one row: the latest
    time (0700), the best condition (3, reached at 0600) and every kind of observer."""
    view = GAME.view(seen(new(data)), (), "allied")
    rows = view["forces"][0]["contacts"]
    assert [(c["hex"], c["kind"]) for c in rows] == [("V-C26", "planes"), ("V-C26", "ships")]
    ships = rows[1]
    assert (ships["time"], ships["condition"], ships["best_time"]) == ("D1 0700", 3, "D1 0600")
    assert ships["observer"] == "aircraft, coastwatcher" and ships["reports"] == 4
    assert ships["text"] == "TF: 1 carrier, 3 small"
    block = section(text_of(view), "Contacts (", "Combat results table")
    assert block.count("V-C26 ships") == 1 and "V-G25" not in block  # turn 1 is history now
    assert "by aircraft, coastwatcher: TF: 1 carrier, 3 small (condition 3 at D1 0600)" in " ".join(
        block.split()
    )
    assert not any(key in block for key in ("AF2", "AF3", "AF4", "CW Tulagi"))  # kinds, never keys


def test_two_reports_of_the_same_condition_give_one_estimate_and_the_other_as_also_reported(
    data: dict[str, Any],
) -> None:
    """Seed 003, 7.12.2 item 1: each Condition 2 total is "approximate ... (+/- 50%)", drawn per
    observer. Issue 32: "about 3 ships / about 4 ships" side by side read as two fleets: the row
    gives one estimate and the other observer's as "also reported"."""
    state = seen(new(data))
    allied = state.side(Side.ALLIED)
    kept = tuple(s for s in allied.knowledge.sightings if s.observer_key != "AF2")
    state = state.with_side(replace(allied, knowledge=replace(allied.knowledge, sightings=kept)))
    view = GAME.view(state, (), "allied")
    ships = view["forces"][0]["contacts"][1]
    assert ships["condition"] == 2 and ships["best_time"] == ""
    assert ships["text"] == "about 3 ships: carrier, small"
    assert ships["also"] == ["about 6 ships: carrier, small (aircraft)"]
    line = " ".join(section(text_of(view), "V-C26 ships", "\n\n").split())
    assert line.endswith(
        "about 3 ships: carrier, small; also reported: about 6 ships: carrier, small (aircraft)"
    )
    assert " / " not in line


def test_a_contact_line_names_only_its_latest_hours_observers(data: dict[str, Any]) -> None:
    """Issue 32: "contact lines name observer kinds of earlier hours". A task force saw the ships
    at V-C26 at 0600 (turn 2); at 0700 aircraft and a coastwatcher did: the row names those two."""
    state = seen(new(data))
    allied = state.side(Side.ALLIED)
    early = Sighting(2, "TF", "TF1", "V-C26", ContactReport("ships", 1))
    sightings = tuple(sorted((*allied.knowledge.sightings, early), key=lambda s: (s.turn, s.hex, s.kind)))
    state = state.with_side(replace(allied, knowledge=replace(allied.knowledge, sightings=sightings)))
    ships = GAME.view(state, (), "allied")["forces"][0]["contacts"][1]
    assert ships["observer"] == "aircraft, coastwatcher" and ships["reports"] == 5


# --- the weather --------------------------------------------------------------------------------


def stormy(data: dict[str, Any]) -> FlatTopState:
    """Two cloud markers on V-A27 make a storm of every hex within 2 of it (standard 6.5); one
    more marker sits far away at I-H17."""
    state = new(data)
    clouds = tuple(Cloud(n, hx(state, h), 5) for n, h in ((1, "V-A27"), (2, "V-A27"), (3, "I-H17")))
    return replace(state, weather=replace(state.weather, clouds=clouds))


def test_standard_6_5_the_weather_summary_names_the_nearest_storm_and_the_appendix_every_hex(
    data: dict[str, Any],
) -> None:
    """Standard 6.5: where two cloud markers overlap there is a storm. The body says how many storm
    hexes lie near the side's units and names the nearest; the appendix lists them all."""
    state = stormy(data)
    storms = {h for h in storm_hexes(state.weather, state.rules.weather) if state.scenario.map.on_board(h)}
    units = {"TF1": hx(state, "V-E26"), "TF11": hx(state, "V-H25"), "Port Moresby": hx(state, "V-B24")}
    d, unit, nearest = min(
        (distance(u, s), name, state.scenario.map.hex_id(s)) for name, u in units.items() for s in storms
    )
    view = GAME.view(state, (), "allied")
    storm_line = view["weather"]["summary"][0]
    assert storm_line.startswith(f"Storm hexes: {len(storms)} on the board")
    assert f"the nearest is {nearest}, {d} hexes from {unit}." in storm_line
    text = text_of(view)
    body, appendix = text.split("Appendix: weather, every hex")
    listed = " ".join(appendix.split("Storms:")[1].split()).split(" ")
    assert set(listed) == {state.scenario.map.hex_id(h) for h in storms}
    assert not any(f" {h} " in f" {' '.join(body.split())} " for h in listed if h != nearest)
    assert "Cloud markers (each covers 2 hexes around): I-H17 V-A27" in " ".join(appendix.split())


def test_units_under_cloud_and_in_a_storm_are_named(data: dict[str, Any]) -> None:
    """Standard 6.5: one marker covering a hex makes cloud, two make a storm."""
    state = new(data)
    clouds = (
        Cloud(1, hx(state, "V-E26"), 5),
        Cloud(2, hx(state, "V-H25"), 5),
        Cloud(3, hx(state, "V-H25"), 5),
    )
    state = replace(state, weather=replace(state.weather, clouds=clouds))
    line = GAME.view(state, (), "allied")["weather"]["summary"][1]
    assert line.endswith("under cloud: TF1; in a storm: TF11.")
    assert f"3 on the board, 3 within {WEATHER_RADIUS} hexes of your units" in line


# --- what changed, what to decide -----------------------------------------------------------------


def test_the_letter_leads_with_what_changed_and_what_to_decide(data: dict[str, Any]) -> None:
    """Issue 18: "Flat Top reports lead with what changed this hour and what the side must decide";
    issue 32: what to decide first (here, rendered without the moderator's deadline, it points to
    "Now open"; the mail tests in tests/e2e/test_flattop_letters.py read it with the deadline);
    the full weather list closes the letter, after the order block."""
    out = play(
        new(data), {"allied": ["search af1 from tf1 1 wildcat path v-e25 v-e24"], "japanese": ["hold"]}
    )
    text = text_of(GAME.view(out.state, out.events, "allied"))
    heads = [
        "What you must decide:",
        "What changed this hour:",
        "Weather near your units",
        "--- allied (deception policy",
        "Contacts (",
        "ORDERS\n",
        "END\n",
        "Appendix: weather, every hex",
    ]
    places = [text.index(h) for h in heads]
    assert places == sorted(places), list(zip(heads, places, strict=True))
    changed = section(text, "What changed this hour:", "Weather near")
    assert "AF1 searched V-E26 V-E25 V-E24" in " ".join(changed.split())
    decide = " ".join(section(text, "What you must decide:", "What changed").split())
    assert decide.startswith("What you must decide: Your orders for Turn 2 (0600, day 1): edit the block")
    assert 'Deadline: under "Now open" at the end of this letter.' in decide
    outside = text[: text.index("ORDERS\n")] + text[text.index("END\n") :]  # the block stays exact
    assert all(len(line) <= 72 or " " not in line.strip() for line in outside.splitlines())


def test_the_news_of_the_hour_are_grouped_losses_first(data: dict[str, Any]) -> None:
    """Losses and combat come before the air and the ships; events of the other side never show."""
    told = [
        Event("ft.deception", "Deception policy: random", frozenset({"allied"})),
        Event("ft.launch", "AF1 took off from TF1: 2 Wildcat", frozenset({"allied"})),
        Event("ft.tf-moved", "TF1 moved V-E26 V-E25", frozenset({"allied"})),
        Event("ft.sunk", "DD Sims sank", frozenset({"allied"})),
        Event("ft.sunk", "CV Shoho sank", frozenset({"japanese"})),
    ]
    groups = GAME.view(new(data), told, "allied")["changes"]
    assert [(g["title"], g["lines"]) for g in groups] == [
        ("Combat and losses", ["DD Sims sank"]),
        ("Air", ["AF1 took off from TF1: 2 Wildcat"]),
        ("Ships", ["TF1 moved V-E26 V-E25"]),
        ("Other news", ["Deception policy: random"]),
    ]


def _strike_step() -> tuple[FlatTopState, Step]:
    record = next(r for r in played("flattop").steps if r.step.key.endswith(".strike"))
    return GAME.load(record.before), record.step


def test_seed_003_15_li1_the_strike_step_says_who_chooses_and_who_owes_nothing() -> None:
    """Seed 003, 15 LI 1: the attacker names targets from the precise makeup; the other side owes
    nothing in that sub-step, and its letter says so plainly."""
    state, step = _strike_step()
    for seat in state.seats:
        decide = GAME.view(state, (), seat)["decide"]
        if seat in step.owing:
            assert decide["owed"] and decide["lines"][0].startswith("Your attack (seed 003, 15)")
        else:
            assert decide == {"owed": False, "lines": ["Nothing is owed by your side in this step."]}
    assert GAME.view(state, (), None)["decide"]["lines"][0].endswith(
        f"owed by {', '.join(sorted(step.owing))}."
    )


# --- the HTML fragment -----------------------------------------------------------------------------


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.seen: set[str] = set()
        self.classes: set[str] = set()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.add(tag)
        self.classes.update(v or "" for k, v in attrs if k == "class")
        if tag not in ("br", "meta"):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open.pop() != tag:
            self.problems.append(tag)

    def handle_decl(self, decl: str) -> None:
        self.problems.append(decl)


@pytest.mark.parametrize("seat", ["allied", "japanese", None])
def test_the_html_part_is_a_fragment_with_the_frame_classes(data: dict[str, Any], seat: str | None) -> None:
    """Issue 18: the game's report.html.j2 is a fragment the letter frame places (no document)."""
    out = play(
        new(data), {"allied": ["search af1 from tf1 1 wildcat path v-e25 v-e24"], "japanese": ["hold"]}
    )
    html = contract.render_report(ENV, PACKAGE, GAME.view(out.state, out.events, seat), "html")
    parser = Tags()
    parser.feed(html)
    parser.close()
    assert parser.problems == [] and parser.open == []
    assert not parser.seen & {"html", "head", "body", "title", "style", "script"}
    assert parser.classes <= FRAME_CLASSES
    assert ("orders" in parser.classes) is (seat is not None)  # the referee gets no order block
    assert html.index("What you must decide") < html.index("What changed this hour") < html.index("Appendix")


# --- the map -----------------------------------------------------------------------------------------


def ids_used(model: dict[str, Any]) -> set[str]:
    found = {c["hex"] for c in model["contacts"]} | set(model["clouds"]) | set(model["storms"])
    for force in model["forces"]:
        found |= {u["hex"] for group in ("task_forces", "bases", "air") for u in force[group]}
    return found | {h for path in model["searches"] + model["strikes"] for h in path}


@pytest.mark.parametrize("seat", ["allied", "japanese", None])
def test_the_map_schema_every_hex_has_coordinates(data: dict[str, Any], seat: str | None) -> None:
    """The map drawer reads only ``r["map"]``: JSON-like values, every hex id with its global
    ``[col, row]`` (map.hexes.Hex), the demo board's clouds and storms included."""
    state = new(data, "coral-sea-demo", clear=False)
    model = GAME.view(state, (), seat)["map"]
    assert json.loads(json.dumps(model)) == model
    assert set(model) == {
        "side", "time", "hexes", "board_hexes", "bounds", "forces", "contacts", "clouds", "cloud_radius",
        "storms",
        "searches", "strikes", "land", "partial", "islands", "hexsides", "board_bases", "sections",
        "grid_ids", "named",
    }  # fmt: skip
    assert model["side"] == ("referee" if seat is None else seat.capitalize()) and model["time"] == "D1 0500"
    used = ids_used(model)
    assert used <= set(model["hexes"]) and model["storms"] and model["clouds"]
    for name in used - set(model["clouds"]):  # a cloud marker may stand off the board
        assert Hex(*model["hexes"][name]) == hx(state, name)
    sides = [f["side"] for f in model["forces"]]
    assert sides == (["Allied", "Japanese"] if seat is None else [seat.capitalize()])
    tf = model["forces"][0]["task_forces"][0]
    assert set(tf) == {"name", "hex", "ships", "carriers"} and isinstance(tf["carriers"], bool)


def test_the_map_shows_the_hours_own_search_and_strike_paths(data: dict[str, Any]) -> None:
    """Own AFs' paths are own knowledge: a search path is a search, a flight that declared an
    attack (15) is a strike; the enemy's flights are not told to the side and never drawn."""
    state = new(data)
    told = [
        Event("ft.search", "AF1 searched V-E26 V-E25 V-E25 V-E24 (low, 3 MP left): nothing sighted",
              frozenset({"allied"})),
        Event("ft.flight", "AF4 flew V-B24 V-C24 V-D25, 2 MP left", frozenset({"allied"})),
        Event("ft.attack", "AF4 reached V-D25 to attack", frozenset({"allied"})),
        Event("ft.flight", "AF5 flew I-B18 I-C18 I-D19, 2 MP left", frozenset({"japanese"})),
    ]  # fmt: skip
    model = GAME.view(state, told, "allied")["map"]
    assert model["searches"] == [["V-E26", "V-E25", "V-E24"]]
    assert model["strikes"] == [["V-B24", "V-C24", "V-D25"]]
    referee = GAME.view(state, told, None)["map"]
    assert ["I-B18", "I-C18", "I-D19"] not in referee["strikes"]  # unarmed and no attack: no strike
    assert {"V-E26", "V-E25", "V-E24", "V-B24", "V-C24", "V-D25"} <= set(model["named"])
    assert "I-B18" not in model["named"]


def test_the_map_frame_is_the_whole_theatre_every_hour_and_for_every_side(data: dict[str, Any]) -> None:
    """One frame for a whole game: the board's sections, whatever the side knows of; a
    contact far north changes the contacts and the hexes named, never the frame."""
    state = new(data)
    sectors = state.scenario.map.layout.sectors
    whole = [
        min(s.west for s in sectors),
        min(s.north for s in sectors),
        max(s.west + s.cols - 1 for s in sectors),
        max(s.north + s.rows - 1 for s in sectors),
    ]
    before = GAME.view(state, (), "allied")["map"]
    assert before["bounds"] == whole == GAME.view(state, (), "japanese")["map"]["bounds"]
    allied = state.side(Side.ALLIED)
    knowledge = Knowledge("allied", (Sighting(1, "AF", "AF1", "I-D17", C3),))
    state = replace(state.with_side(replace(allied, knowledge=knowledge)), turn=2)
    model = GAME.view(state, (), "allied")["map"]
    assert model["bounds"] == whole
    assert "I-D17" in model["named"] and "I-D17" not in before["named"]
    assert model["contacts"] == [
        {"hex": "I-D17", "kind": "ships", "condition": 3, "age": 0, "label": "ships C3 carriers 0500"}
    ]


def test_an_unseen_enemy_tf_changes_nothing_on_the_map(data: dict[str, Any]) -> None:
    """Seed 003, 7.12.2 and the no-leak rule: two worlds that differ only in where an enemy TF the
    Allies never saw stands give the Allies the same map, bounds included, before and after an
    hour with an Allied search."""
    first = new(data)
    moved = tuple(
        replace(t, hex=hx(first, "I-A17")) if t.side is Side.JAPANESE else t for t in first.task_forces
    )
    second = replace(first, task_forces=moved)
    assert GAME.view(first, (), "allied")["map"] == GAME.view(second, (), "allied")["map"]
    orders = {"allied": ["search af1 from tf1 1 wildcat path v-e25 v-e24"], "japanese": ["hold"]}
    one, two = play(first, orders), play(second, orders)
    assert one.state.side(Side.ALLIED).knowledge == two.state.side(Side.ALLIED).knowledge  # still unseen
    maps = [GAME.view(o.state, o.events, "allied")["map"] for o in (one, two)]
    assert maps[0] == maps[1] and maps[0]["searches"] == [["V-E26", "V-E25", "V-E24"]]
    referee = [GAME.view(o.state, o.events, None)["map"] for o in (one, two)]
    assert referee[0]["forces"] != referee[1]["forces"]  # the worlds do differ: the referee sees it
