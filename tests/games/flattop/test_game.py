# SPDX-License-Identifier: GPL-3.0-or-later
"""The Flat Top plugin against the game contract (mailbot/core/game.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from mailbot.core.game import Event, ProblemKind, StepKind
from mailbot.games.flattop import FlatTopGame
from mailbot.games.flattop.demo_flying import route
from mailbot.games.flattop.map.hexes import Hex, hex_id
from mailbot.games.flattop.map.weather import storm_hexes
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side
from mailbot.registry import find_game

from .play import GAME, game_data, new, parse, play

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return game_data()


# --- the contract --------------------------------------------------------------------


def test_the_registry_finds_the_plugin_by_name_and_alias() -> None:
    assert isinstance(find_game("flattop"), FlatTopGame)
    assert GAME.aliases == ("flat-top", "ft") and GAME.hidden_information


def test_seats_and_the_first_step(data: dict[str, Any]) -> None:
    assert GAME.seats("coral-sea-demo", data) == ("allied", "japanese")
    step = GAME.step(new(data))
    assert step is not None and step.key == "T1.orders" and step.kind is StepKind.ORDERS
    assert step.owing == {"allied", "japanese"} and step.title == "Turn 1 (0500, day 1)"
    assert GAME.default_orders(new(data), "allied") == ("HOLD",)


GOOD = [
    ("plot tf1 v-d26 v-d25", "PLOT TF1 V-D26 V-D25"),
    ("PLOT TF-1 v-d26, / hold / V-D25", "PLOT TF1 V-D26 / HOLD / V-D25"),
    ("plot tf1 hold", "PLOT TF1 HOLD"),
    ("srch af3 from tf1 2 wildcat path v-e25 v-e24@high v-f23+1 if sighted close 2 back 1 return tf1",
     "SEARCH AF3 FROM TF1 2 Wildcat PATH V-E25 V-E24@HIGH V-F23+1 IF SHIPS CLOSE 2 BACK 1 RETURN TF1"),
    ("search af4 from tf1 1 dauntless path v-e25 if ships attack low if planes continue join af3",
     "SEARCH AF4 FROM TF1 1 Dauntless PATH V-E25 IF SHIPS ATTACK LOW IF PLANES CONTINUE JOIN AF3"),
    ("search af5 from port moresby 1 catalina path v-c25", None),
    ("search af5 from port-moresby 1 catalina path v-c25",
     "SEARCH AF5 FROM Port-Moresby 1 Catalina PATH V-C25"),
    ("rdy tf1 2 devastator", "READY TF1 2 Devastator"),
    ("deception max  # be nasty", "DECEPTION MAXIMAL"),
    ("hold", "HOLD"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "normalised"), GOOD)
def test_good_lines_are_echoed_normalised_and_read_back_unchanged(
    data: dict[str, Any], text: str, normalised: str | None
) -> None:
    state = new(data)
    parsed = parse(state, "allied", text)
    if normalised is None:  # a base name with a space must be written with a hyphen
        assert parsed.problems and parsed.problems[0].kind is ProblemKind.INVALID
        return
    assert parsed.problems == () and parsed.normalised == (normalised,)
    again = parse(state, "allied", normalised)
    assert again.normalised == (normalised,) and again.orders == parsed.orders


BAD = [
    ("fire torpedoes", ProblemKind.INVALID),
    ("plot tf1 Z-A1", ProblemKind.INVALID),
    ("plot tf7 v-d26", ProblemKind.ILLEGAL),  # no such TF of ours
    ("plot tf1 v-d26 v-d25 v-d24", ProblemKind.ILLEGAL),  # three hexes at speed 2 (and land)
    ("search af1 from tf1 99 dauntless path v-e25", ProblemKind.ILLEGAL),
    ("search af1 from tf1 1 dauntless path v-e25@high", ProblemKind.ILLEGAL),  # armed: no climb (14.15)
    ("search af1 from tf1 1 zero path v-e25", ProblemKind.ILLEGAL),  # not an Allied plane
    ("search af1 from tf1 1 wildcat path v-e25 if ships attack", ProblemKind.ILLEGAL),  # unarmed
    ("search af1 from tf1 1 dauntless path v-g25", ProblemKind.ILLEGAL),  # not adjacent
    ("land af9 tf1", ProblemKind.ILLEGAL),
    ("shadow af1 i-g17", ProblemKind.ILLEGAL),
    ("deception sometimes", ProblemKind.INVALID),
]


@pytest.mark.parametrize(("text", "kind"), BAD)
def test_bad_lines_are_problems_with_line_text_and_kind(
    data: dict[str, Any], text: str, kind: ProblemKind
) -> None:
    parsed = parse(new(data), "allied", "hold", text)
    assert parsed.normalised == ("HOLD",)
    (problem,) = parsed.problems
    assert (problem.line, problem.text, problem.kind) == (2, text, kind)
    assert problem.reason


def test_a_second_order_for_one_unit_is_ambiguous(data: dict[str, Any]) -> None:
    parsed = parse(new(data), "allied", "plot tf1 hold", "plot tf1 v-d26")
    assert parsed.problems[0].kind is ProblemKind.AMBIGUOUS and "line 1" in parsed.problems[0].reason


def test_launches_share_the_launch_factor_within_a_letter(data: dict[str, Any]) -> None:
    state = new(data)
    parsed = parse(state, "allied", *(f"search af{n} from tf1 1 wildcat path v-e25" for n in (1, 2, 3, 4)))
    assert len(parsed.accepted) == 3 and parsed.problems[0].line == 4  # Yorktown: minimum LF 3
    assert "minimum launch" in parsed.problems[0].reason


def test_enemy_units_get_the_same_answer_as_units_that_do_not_exist(data: dict[str, Any]) -> None:
    state = new(data)
    assert any(tf.number == 1 for tf in state.own_tfs(Side.JAPANESE))
    japanese_only = parse(state, "japanese", "plot tf11 i-g18").problems[0].reason
    nothing = parse(state, "japanese", "plot tf12 i-g18").problems[0].reason
    assert japanese_only.replace("11", "12") == nothing  # TF11 is Allied, TF12 nobody's


def test_dump_and_load_round_trip_through_json(data: dict[str, Any]) -> None:
    state = new(data, "coral-sea-demo", clear=False)
    for _ in range(2):
        state = play(state, {"allied": ["hold"], "japanese": ["deception truthful"]}).state
    dumped = json.loads(json.dumps(GAME.dump(state)))
    loaded = FlatTopGame().load(dumped)  # a fresh plugin: read from the saved form, not remembered
    assert loaded == state
    assert json.dumps(GAME.dump(loaded), sort_keys=True) == json.dumps(dumped, sort_keys=True)


# --- a three-turn game ----------------------------------------------------------------


def scripted(state: FlatTopState, side: Side, goal: Hex) -> list[str]:
    """Search from the carrier TF toward ``goal`` on the first two turns, land on the third."""
    name = state.scenario.map
    storms = storm_hexes(state.weather, state.rules.weather)
    home = next(tf for tf in state.own_tfs(side) if tf.carriers)
    plane = next(s.plane for c in home.carriers for s in c.boxes.ready if s.armament is None)
    orders = []
    for af in state.own_air(side):
        assert af.hex is not None
        mf = state.rules.planes[af.stacks[0].plane].movement
        path = route(af.hex, goal, storms, mf) if state.turn < 3 else []
        orders.append(
            f"SEARCH AF{af.number} PATH {' '.join(name.hex_id(h) for h in path)}"
            if path
            else f"LAND AF{af.number} TF{home.number}"
        )
    if state.turn <= 2:
        path = route(home.hex, goal, storms, state.rules.planes[plane].movement)
        hexes = " ".join(name.hex_id(h) for h in path if name.on_board(h))
        orders.append(
            f"SEARCH AF{state.turn} FROM TF{home.number} 1 {plane} PATH {hexes} RETURN TF{home.number}"
        )
    return orders


def three_turns(state: FlatTopState) -> tuple[FlatTopState, tuple[Event, ...], list[list[str]]]:
    goals = {s: next(tf.hex for tf in state.own_tfs(s.opponent) if tf.carriers) for s in Side}
    events: tuple[Event, ...] = ()
    texts = []
    for _ in range(3):
        orders = {s.value: scripted(state, s, goals[s]) for s in Side}
        texts.append([line for side_orders in orders.values() for line in side_orders])
        outcome = play(state, orders)
        state, events = outcome.state, outcome.events
        assert not outcome.finished
    return state, events, texts


@pytest.mark.parametrize("scenario", ["test-small", "coral-sea-demo"])
def test_three_turns_both_sides_search_and_someone_gets_a_contact(
    data: dict[str, Any], scenario: str
) -> None:
    state, events, texts = three_turns(new(data, scenario))
    assert state.turn == 4 and state.last_initiative is not None
    assert any(line.startswith("SEARCH") for line in texts[0]) and len(texts[0]) >= 2
    sightings = {s.side: s.knowledge.sightings for s in state.sides}
    assert any(sightings.values())
    allied, japanese = (GAME.view(state, events, seat) for seat in ("allied", "japanese"))
    assert allied != japanese
    assert [f["side"] for f in allied["forces"]] == ["allied"]
    assert [f["side"] for f in GAME.view(state, events, None)["forces"]] == ["allied", "japanese"]


def test_a_side_hears_only_its_own_events_and_no_enemy_ship_names(data: dict[str, Any]) -> None:
    state, events, _ = three_turns(new(data))
    japanese_names = {s.name for tf in state.own_tfs(Side.JAPANESE) for s in tf.ships}
    view = json.dumps(GAME.view(state, events, "allied"))
    assert not any(name in view for name in japanese_names)
    assert all(e.audience in ({"allied"}, {"japanese"}, frozenset(), {"*"}) for e in events)
    assert "japanese TF1" not in view  # referee ids stay with the referee


# --- templates ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(ROOT / "mailbot" / "games")),
        undefined=StrictUndefined,
        autoescape=select_autoescape(["html", "html.j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )


@pytest.mark.parametrize("seat", ["allied", "japanese", None])
@pytest.mark.parametrize("kind", ["txt", "html"])
def test_templates_render_for_every_seat(
    env: Environment, data: dict[str, Any], seat: str | None, kind: str
) -> None:
    state = new(data)
    outcome = play(
        state, {"allied": ["search af1 from tf1 1 wildcat path v-e25 v-e24"], "japanese": ["hold"]}
    )
    text = env.get_template(f"flattop/templates/report.{kind}.j2").render(
        r=GAME.view(outcome.state, outcome.events, seat)
    )
    assert "Flat Top" in text and "Combat results table: curve-fitted" in text
    if seat == "allied":
        assert "AF1 at V-E24" in text
    if kind == "html":
        assert "<script>" not in text


def test_order_help_has_a_prefilled_template(data: dict[str, Any]) -> None:
    state = new(data)
    help_lines = GAME.order_help(state, "allied")
    assert "PLOT TF11 V-H26 / HOLD / V-G27" in help_lines
    template = GAME.view(state, (), "allied")["template"]
    live = [line for line in template if not line.startswith("#")]
    assert parse(state, "allied", *live).problems == ()
    assert hex_id(state.own_tfs(Side.ALLIED)[0].hex) == "V-E26"
