# SPDX-License-Identifier: GPL-3.0-or-later
"""Submarines by mail, hour after hour (seed 003, 27, with the game option ``submarines``;
``hour.sub_phase`` wiring ``combat.submarines`` into the turn, orders in ``orders.subs``).

The states are ``test-small`` at 0600 (day, clear) with a Japanese submarine TF20 (the SS I-21,
factors from the shipped ``ships.toml``) put beside the Allied TF1 (Yorktown, Astoria, Hammann and
three more DDs) with ``dataclasses.replace``. The dice are the real stream except the rolls a test
names (:class:`ScriptedDice`), so the sequence table's result and the misses are the test's choice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from mailbot.core.dice import DiceStream, FixedDice, Roll
from mailbot.core.game import Event, Line, Outcome, Setup
from mailbot.games.flattop import GAME
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.combat.crt import combat_table
from mailbot.games.flattop.combat.sub_moves import SubState, sub_state
from mailbot.games.flattop.combat.submarines import Depth
from mailbot.games.flattop.observation.knowledge import SHIPS
from mailbot.games.flattop.orders.subs import NOT_IN_PLAY
from mailbot.games.flattop.state import FlatTopState, Undersea, dump_state, load_state
from mailbot.games.flattop.units import Ship, ShipType, Side, TaskForce
from tests.differential.test_flattop_combat_no_leak import _base as _strike_base
from tests.games.flattop.conftest import load_tables

SUB = "I-21"
HEX = "V-E26"  # the Allied TF1's hex


class ScriptedDice(DiceStream):
    """The real stream of one step, but each roll named in ``script`` gives the faces listed there."""

    def __init__(self, key: str, script: Mapping[str, Sequence[int]] | None = None) -> None:
        super().__init__(b"submarines by mail".ljust(32, b"."), "digest", key)
        self.script = dict(script or {})

    def roll(
        self,
        label: str,
        sides: int,
        count: int = 1,
        *,
        rule: str = "",
        modifiers: Mapping[str, int] | None = None,
    ) -> Roll:
        if label not in self.script:
            return super().roll(label, sides, count, rule=rule, modifiers=modifiers)
        roll = FixedDice(self.script[label], step=self.step).roll(
            label, sides, count, rule=rule, modifiers=modifiers
        )
        self.log.append(roll)
        return roll


def new(options: Mapping[str, object]) -> FlatTopState:
    setup = Setup("test-small", fw.SEATS, options=dict(options), data=fw._data())
    state = GAME.new_game(setup, dice=DiceStream(b"submarines".ljust(32, b"."), "", "setup"))
    return replace(state, weather=replace(state.weather, clouds=()))


def submarine(name: str) -> Ship:
    """An SS as ``ships.toml`` gives it (27.9.1: four attack factors)."""
    line = load_tables()["ships"]["types"]["SS"]
    factors = {k: line[k] for k in ("gunnery", "aa", "torpedo", "movement", "damage", "ammo")}
    return Ship(name, ShipType.SS, **factors)


def at_sea(
    *, submarines: bool = True, where: str = HEX, depth: Depth = Depth.SURFACE, subs: int = 1
) -> FlatTopState:
    """Turn 2 (0600): no plots; the Allied TF1 with four DDs in all; Japanese submarine TF20 (and
    TF21.. with ``subs`` > 1, each one SS) at ``where``, at ``depth``."""
    state = fw._play(new({"submarines": submarines}), {})
    tf1 = next(t for t in state.own_tfs(Side.ALLIED) if t.number == 1)
    hammann = next(s for s in tf1.ships if s.name == "Hammann")
    dds = tuple(replace(hammann, name=n) for n in ("Anderson", "Russell", "Morris"))
    tfs = tuple(replace(t, plot=(), ships=t.ships + dds if t is tf1 else t.ships) for t in state.task_forces)
    names = [SUB, *(f"I-{22 + i}" for i in range(subs - 1))]
    boats = tuple(
        TaskForce(20 + i, Side.JAPANESE, fw._hex(state, where), (submarine(n),)) for i, n in enumerate(names)
    )
    kept = tuple(SubState(n, depth) for n in names) if submarines else ()
    return replace(state, task_forces=(*tfs, *boats), undersea=replace(state.undersea, subs=kept))


def play(
    state: FlatTopState,
    orders: Mapping[str, Sequence[str]],
    script: Mapping[str, Sequence[int]] | None = None,
) -> tuple[Outcome[FlatTopState], ScriptedDice]:
    step = GAME.step(state)
    assert step is not None
    parsed = {s: GAME.parse(state, s, [Line(i + 1, t) for i, t in enumerate(o)]) for s, o in orders.items()}
    assert all(not p.problems for p in parsed.values()), parsed
    dice = ScriptedDice(step.key, script)
    return GAME.resolve(state, {s: p.orders for s, p in parsed.items()}, dice=dice), dice


def told(outcome: Outcome[FlatTopState], side: Side) -> str:
    return "\n".join(e.text for e in outcome.events if e.audience == frozenset({side.value}))


def referee(outcome: Outcome[FlatTopState]) -> list[Event]:
    return [e for e in outcome.events if e.audience == frozenset()]


def label(turn: int, tf: int = 1) -> str:
    return f"ft.sub.t{turn}.japanese.{SUB}.vs.TF{tf}"


def faces(base: int) -> tuple[int, int]:
    return (base - 6, 6) if base > 7 else (1, base - 1)


def miss(bht: int, factors: int) -> tuple[int, int]:
    """2d6 faces that give no hit on the game's CRT (curve-fitted) at ``bht`` x ``factors``."""
    crt = combat_table(load_tables(), "curve-fitted")
    return faces(next(b for b in range(2, 13) if crt.result(bht, factors, b).hits == 0))


def one_hit(bht: int, factors: int) -> tuple[int, int]:
    """2d6 faces that give exactly one hit (and no critical hit check)."""
    crt = combat_table(load_tables(), "curve-fitted")
    return faces(next(b for b in range(2, 13) if crt.result(bht, factors, b).hits == 1))


def gunnery(state: FlatTopState) -> int:
    return sum(s.gunnery for s in next(t for t in state.own_tfs(Side.ALLIED) if t.number == 1).afloat)


# --- whole hours --------------------------------------------------------------------------------


def test_27_6_9_fire_at_periscope_depth_then_dive_deep_and_only_deep_asw_next_hour() -> None:
    """27.6.9: "it would be possible for a sub on the surface to dive to periscope depth before
    combat, fire its torpedoes at periscope depth, then suffer gunnery and ASW attack at that depth,
    and then dive deep. If the ASW units remained overhead during the next turn and the sub elected
    not to rise, it would only suffer deep ASW attack that turn." With 27.2.3: "Submarines may not
    move the turn after engaging in combat."; 27.5.2: "the sub is told only that there are ships
    overhead"; 27.10: subs "that attack before the TF attacks and then dive, get normal
    "approximate" damage reports"."""
    state = at_sea()
    first = {
        f"{label(2)}/sequence": (2,),  # "2,3: The attack is resolved normally": periscope, sub first
        f"{label(2)}/salvo 1 at Yorktown": miss(15, 4),
        f"{label(2)}/gunnery at {SUB}": miss(7 - 2, gunnery(state)),  # 27.9 "(-2 BHT modifier)"
        f"{label(2)}/ASW at {SUB}": miss(8, 4),  # periscope: "ASW (no modifier)"
        f"{label(2)}/oil slick": (6,),
    }
    orders = {"japanese": ["DEPTH TF20 PERISCOPE", "SUBATTACK TF20", "DIVE TF20 DEEP"], "allied": []}
    hour, _ = play(state, orders, first)
    facts = [e.text for e in referee(hour) if e.kind in ("ft.sub-torpedo", "ft.sub-asw")]
    assert [f.split(" ")[0] for f in facts] == [SUB, label(2), label(2)], facts  # the sub fired first
    assert "gunnery at periscope" in facts[1] and "-2 sub at periscope depth (27.9)" in facts[1]
    assert "ASW at periscope" in facts[2]
    after = sub_state(hour.state.undersea.subs, SUB)
    assert (after.depth, after.fought_turn, after.factors_fired) == (Depth.DEEP, 2, 4)
    japanese, allied = told(hour, Side.JAPANESE), told(hour, Side.ALLIED)
    assert f"{SUB} attacked enemy ships: no hits observed" in japanese
    assert "TF1 at V-E26 was attacked by a submarine: no hits" in allied
    assert "TF1 attacked a submarine at V-E26: no sign of the submarine" in allied
    assert SUB not in allied and fw.GAME.tallies(hour.state)["submarine"] == 1

    second = {f"{label(3)}/ASW at {SUB}": miss(8 - 1, 4)}  # deep: "ASW (-1 BHT modifier.)"
    orders = {"japanese": ["PLOT TF20 V-E25"], "allied": ["ASW TF1"]}
    next_hour, dice = play(hour.state, orders, second)
    assert not any(r.label.endswith("/sequence") for r in dice.log), "a deep sub rolls no sequence"
    (asw,) = [e.text for e in referee(next_hour) if e.kind == "ft.sub-asw"]
    assert "ASW at deep" in asw and "-1 sub at deep depth (27.9)" in asw
    assert not any(e.kind == "ft.sub-asw" and "gunnery" in e.text for e in referee(next_hour))
    japanese = told(next_hour, Side.JAPANESE)
    assert "may not move the turn after engaging in combat (27.2.3)" in japanese
    assert "there are ships overhead" in japanese
    boat = next(t for t in next_hour.state.own_tfs(Side.JAPANESE) if t.number == 20)
    assert fw._name(state, boat.hex) == HEX and boat.plot == ((fw._hex(state, "V-E25"),),)
    assert "TF1 attacked a submarine at V-E26: no sign of the submarine" in told(next_hour, Side.ALLIED)


def test_27_10_a_sub_attacked_before_its_own_attack_is_told_only_it_hit_something() -> None:
    """27.10: "Subs that are attacked before they execute their own attack, and finish their attack
    submerged, are only told that they have hit something - no further details."; 27.6: "If a sub
    is on the surface and is involved in combat, the attack against the sub is resolved first.";
    27.6.6: "A sub which dives under a gunnery or ASW attack before making its own attack has the
    enemy attack resolved at its new depth." The next hour's roll has "-1 If the TF has been
    attacked by a sub in the last 12 hours"."""
    state = at_sea()
    script = {
        f"{label(2)}/sequence": (3,),  # normal, and the sub is on the surface: the TF first
        f"{label(2)}/gunnery at {SUB}": miss(7 - 2, gunnery(state)),  # resolved at periscope
        f"{label(2)}/ASW at {SUB}": miss(8, 4),
        f"{label(2)}/salvo 1 at Yorktown": one_hit(15, 4),
    }
    orders = {"japanese": ["SUBATTACK TF20 4", "DIVE TF20 PERISCOPE"], "allied": []}
    hour, _ = play(state, orders, script)
    facts = [e.text for e in referee(hour) if e.kind in ("ft.sub-torpedo", "ft.sub-asw")]
    assert [f.split(" ")[0] for f in facts] == [label(2), label(2), SUB], facts  # the TF fired first
    assert "gunnery at periscope" in facts[0]
    japanese, allied = told(hour, Side.JAPANESE), told(hour, Side.ALLIED)
    assert f"{SUB} attacked enemy ships: the attack hit something" in japanese
    assert "Yorktown" not in japanese and "CV" not in japanese
    assert "CV Yorktown took 1 hit(s) (1/8)" in allied
    assert sub_state(hour.state.undersea.subs, SUB).depth is Depth.PERISCOPE

    again = {f"{label(3)}/sequence": (1,), f"{label(3)}/gunnery at {SUB}": miss(5, gunnery(hour.state))}
    again[f"{label(3)}/ASW at {SUB}"] = miss(8, 4)
    later, dice = play(hour.state, {"japanese": ["SUBATTACK TF20"], "allied": []}, again)
    (rolled,) = [r for r in dice.log if r.label == f"{label(3)}/sequence"]
    assert dict(rolled.modifiers) == {"TF attacked by a sub in the last 12 hours": -1}
    assert f"{SUB} could not attack: The TF may attack the sub, but the sub may not fire back" in told(
        later, Side.JAPANESE
    )


def test_27_8_at_night_every_factor_fires_alone_at_a_random_ship() -> None:
    """27.8: "For night attacks, submarines cannot combine their attack factors. During night
    attacks, targets will be chosen at random." The sequence table: "+1 if at night." """
    state = replace(at_sea(depth=Depth.PERISCOPE), turn=15)  # 1900: night
    assert state.scenario.is_night(state.time)
    turn = label(15)
    script: dict[str, Sequence[int]] = {
        f"{turn}/sequence": (
            4,
        ),  # +1 at night: 5, "The sub may attack first and then the TF may return fire"
        **{f"{turn}/night target {i + 1}": (face,) for i, face in enumerate((6, 1, 6, 2))},
        f"{turn}/gunnery at {SUB}": miss(5, gunnery(state)),
        f"{turn}/ASW at {SUB}": miss(8, 4),
    }
    # The six ships by name: Anderson, Astoria, Hammann, Morris, Russell, Yorktown.
    tubes = ["Yorktown", "Anderson", "Yorktown", "Astoria"]
    script |= {f"{turn}/tube {i + 1} at {ship}": miss(15, 1) for i, ship in enumerate(tubes)}
    hour, dice = play(state, {"japanese": ["SUBATTACK TF20"], "allied": []}, script)
    (rolled,) = [r for r in dice.log if r.label == f"{turn}/sequence"]
    assert dict(rolled.modifiers) == {"night": 1}
    fired = [r.label.removeprefix(f"{turn}/") for r in dice.log if "/tube " in r.label]
    assert fired == [f"tube {i + 1} at {ship}" for i, ship in enumerate(tubes)]
    assert sub_state(hour.state.undersea.subs, SUB).factors_fired == 4
    assert f"{SUB} attacked enemy ships: no hits observed" in told(hour, Side.JAPANESE)


def test_the_sub_fight_waits_for_the_strike_choice_and_counts_the_air_attack() -> None:
    """The hour's submarine orders outlast a strike's choice sub-step (and a save between steps);
    the sequence table's "+1 if the TF has been involved in other combat (air attack or surface)
    that turn" counts the strike on the TF the sub attacks."""
    state = _strike_base()  # the Allied AF7 next to the Japanese TF1 at V-E24
    state = replace(state, options=replace(state.options, submarines=True))
    japanese = next(t for t in state.own_tfs(Side.JAPANESE) if t.number == 1)
    gato = TaskForce(30, Side.ALLIED, japanese.hex, (submarine("Gato"),))
    undersea = replace(state.undersea, subs=(SubState("Gato", Depth.PERISCOPE),))
    state = replace(state, task_forces=(*state.task_forces, gato), undersea=undersea)
    orders = {"allied": ["FLY AF7 PATH V-E24 ATTACK", "SUBATTACK TF30"], "japanese": []}
    declared, _ = play(state, orders)
    waiting = load_state(dump_state(declared.state))
    step = GAME.step(waiting)
    assert step is not None and step.key == "T2.strike"
    assert waiting.pending.sub_hour is not None
    assert not any(e.kind == "ft.sub-combat" for e in declared.events)
    struck, dice = play(waiting, {"allied": ["TARGET AF7 A-CV1"]})
    (rolled,) = [r for r in dice.log if r.label == "ft.sub.t2.allied.Gato.vs.TF1/sequence"]
    assert dict(rolled.modifiers) == {"TF in other combat this turn": 1}
    assert struck.state.pending.sub_hour is None and any(e.kind == "ft.sub-combat" for e in struck.events)


def test_a_tf_may_attack_only_a_sub_it_observes() -> None:
    """27.5.2: "A deep sub is only observed by a TF with at least 4 DDs which did not move that
    turn"; with only Hammann the Allied TF1 finds nothing, and is told so whatever is there."""
    state = at_sea(depth=Depth.DEEP)
    tf1 = next(t for t in state.own_tfs(Side.ALLIED) if t.number == 1)
    few = replace(tf1, ships=tuple(s for s in tf1.ships if s.name not in ("Anderson", "Russell", "Morris")))
    state = replace(state, task_forces=tuple(few if t is tf1 else t for t in state.task_forces))
    hour, _ = play(state, {"allied": ["ASW TF1"]})
    assert "TF1 found no submarine to attack at V-E26" in told(hour, Side.ALLIED)
    assert not any(e.kind == "ft.sub-asw" and e.text.startswith("ft.sub") for e in referee(hour))
    assert fw.GAME.tallies(hour.state)["submarine"] == 0


# --- movement and observation -----------------------------------------------------------------


def test_27_2_3_half_the_submarines_rounded_up_and_never_fewer_than_three_move() -> None:
    """27.2.3: "Up to one half (rounded up) of a player's submarines may move in a given turn; a
    minimum of three may always move as long as the player has at least three." 27.2: "one hex
    every other hour at periscope depth"."""
    state = at_sea(where="V-C26", subs=4)
    plots = [f"PLOT TF{20 + i} V-C27" for i in range(4)]
    hour, _ = play(state, {"japanese": [*plots, "DEPTH TF20 PERISCOPE"]})
    boats = {t.number: t for t in hour.state.own_tfs(Side.JAPANESE) if t.number >= 20}
    assert [fw._name(state, boats[n].hex) for n in (20, 21, 22, 23)] == ["V-C27"] * 3 + ["V-C26"]
    assert boats[23].plot == ((fw._hex(state, "V-C27"),),)  # its plot waits for a later hour
    assert "TF23 (submarine) holds at V-C26: only 3 of your 4 submarines may move" in told(
        hour, Side.JAPANESE
    )
    onward, _ = play(hour.state, {"japanese": ["PLOT TF20 V-C28", "PLOT TF21 V-C28"]})
    boats = {t.number: t for t in onward.state.own_tfs(Side.JAPANESE) if t.number >= 20}
    assert fw._name(state, boats[20].hex) == "V-C27" and fw._name(state, boats[21].hex) == "V-C28"
    assert "at periscope depth a submarine moves one hex every 2 hours" in told(onward, Side.JAPANESE)


def test_27_4_a_surfaced_sub_is_not_visible_from_adjacent_hexes() -> None:
    """27.4: "A sub on the surface is subject to normal detection in its own hex only. It is not
    visible from adjacent hexes." With the option off an SS TF is seen like any TF, one hex away."""
    on, off = at_sea(where="V-E25"), at_sea(where="V-E25", submarines=False)
    seen = [play(s, {})[0].state.side(Side.ALLIED).knowledge.saw(2, "V-E25", SHIPS) for s in (on, off)]
    assert seen == [False, True]


def test_27_5_1_a_periscope_sub_is_seen_by_dds_that_did_not_move() -> None:
    """27.5.1: "A sub at periscope depth is only observed if it attacks a ship or is in a hex with
    DDs which did not move that turn." """
    still, _ = play(at_sea(depth=Depth.PERISCOPE), {})
    moving, _ = play(at_sea(where="V-E25", depth=Depth.PERISCOPE), {"allied": ["PLOT TF1 V-E25"]})
    assert still.state.side(Side.ALLIED).knowledge.saw(2, HEX, SHIPS)
    assert not moving.state.side(Side.ALLIED).knowledge.saw(2, "V-E25", SHIPS)


def test_27_3_what_a_sub_observes_depends_on_its_depth() -> None:
    """27.3: "A sub may observe up to condition three only in its own hex if it is on the surface
    ...; up to condition two in its own hex if at periscope depth; and only condition 1 if deep."
    27.5.2: "the sub is told only that there are ships overhead"."""

    def sub_sightings(depth: Depth) -> tuple[list[int], str]:
        hour, _ = play(at_sea(depth=depth), {})
        known = hour.state.side(Side.JAPANESE).knowledge.of_turn(2)
        return [s.condition for s in known if s.observer_key == "TF20"], told(hour, Side.JAPANESE)

    surface, periscope, deep = (sub_sightings(d) for d in (Depth.SURFACE, Depth.PERISCOPE, Depth.DEEP))
    assert surface[0] == [3] and periscope[0] == [2] and deep[0] == []
    assert "TF20 (deep) at V-E26: there are ships overhead" in deep[1]
    assert "ships overhead" not in periscope[1]


# --- the option, orders, state ------------------------------------------------------------------


def test_option_off_the_orders_are_refused_and_nothing_is_kept() -> None:
    """27: "Optional, of course": without the option an SS is an ordinary ship, the orders are
    refused, the state keeps no submarine records and the tallies no submarine battles."""
    state = at_sea(submarines=False)
    parsed = GAME.parse(state, "japanese", [Line(1, "DEPTH TF20 DEEP"), Line(2, "SUBATTACK TF20")])
    assert [p.reason for p in parsed.problems] == [NOT_IN_PLAY, NOT_IN_PLAY]
    hour, _ = play(state, {"japanese": [], "allied": []})
    assert (hour.state.undersea.subs, hour.state.undersea.asw, hour.state.pending.sub_hour) == ((), (), None)
    assert fw.GAME.tallies(hour.state) == {"air": 0, "surface": 0}
    assert not any(e.kind.startswith("ft.sub") for e in hour.events)


def test_sub_orders_are_read_normalised_and_refused_by_own_units_only() -> None:
    """Refusals speak only of the side's own units; 27.1 "The deep level may not be used in partial
    land hexes"; 27.9.1 "A submarine has four attack factors"."""
    state = at_sea(where="V-E24")  # a partial-land hex
    lines = [
        "depth tf20 periscope", "subattack tf20 3 factors", "dive tf20 periscope", "DEPTH TF20 SURFACE",
        "DEPTH TF7 DEEP", "DEPTH TF1 DEEP", "SUBATTACK TF20 5", "ASW TF20",
    ]  # fmt: skip
    parsed = GAME.parse(state, "japanese", [Line(i + 1, t) for i, t in enumerate(lines)])
    assert list(parsed.normalised) == ["DEPTH TF20 PERISCOPE", "SUBATTACK TF20 3", "DIVE TF20 PERISCOPE"]
    assert [p.reason for p in parsed.problems] == [
        "DEPTH TF20 already has an order on line 1",
        "you have no task force TF7",
        "TF1 is not a submarine TF (every ship afloat an SS)",
        "a submarine fires 1 to 4 attack factors in an attack (27.9.1)",
        "TF20 is a submarine TF: submarines attack with SUBATTACK",
    ]
    deep = GAME.parse(state, "japanese", [Line(1, "DIVE TF20 DEEP")])
    assert [p.reason for p in deep.problems] == [
        "TF20: the deep level may not be used in partial land hexes (27.1)"
    ]
    allied = GAME.parse(state, "allied", [Line(1, "ASW TF1"), Line(2, "ASW TF11")])
    assert list(allied.normalised) == ["ASW TF1", "ASW TF11"]


def test_the_submarine_records_survive_a_save_and_old_saves_load() -> None:
    """The per-sub and per-ship records of 27 (depth, moves, torpedoes, ASW attacks) are state."""
    hour, _ = play(at_sea(), {"japanese": ["DEPTH TF20 PERISCOPE", "SUBATTACK TF20"], "allied": []})
    again = load_state(dump_state(hour.state))
    kept = (again.options.submarines, again.undersea, again.pending.sub_hour, again.score.sub_battles)
    assert kept == (True, hour.state.undersea, None, hour.state.score.sub_battles)
    assert again.undersea.subs and again.undersea.asw
    old = {
        k: v for k, v in dump_state(hour.state).items() if k not in ("submarines", "subs", "asw", "sub_hour")
    }
    plain = load_state({k: v for k, v in old.items() if k != "sub_battles"})
    assert (plain.options.submarines, plain.undersea, plain.score.sub_battles) == (False, Undersea(), 0)
