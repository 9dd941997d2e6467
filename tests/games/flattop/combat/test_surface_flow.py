# SPDX-License-Identifier: GPL-3.0-or-later
"""A surface battle by mail, sub-step by sub-step (seed 003, 19; ``combat.surface_flow``).

Enemy ships share a hex after movement: both sides owe ``engage`` (ENGAGE/AVOID, positions), then
``bht`` SEALED ("it should be sent in a separate message with "Surface BHT number" as the header,
so the opponent will know not to open it until he has selected his BHT number"), then the
gunnery round, the torpedo round when the BHT allows it, and the hour ends."""

from __future__ import annotations

from dataclasses import replace

from mailbot.core.dice import DiceStream
from mailbot.core.game import Line, Outcome, StepKind
from mailbot.games.flattop import GAME
from mailbot.games.flattop import worlds as fw
from mailbot.games.flattop.state import FlatTopState
from mailbot.games.flattop.units import Side


def meeting() -> FlatTopState:
    """Turn 2: the Japanese TF1 (Shokaku, Myoko, Ushio) in the Allied TF1's hex, no plots."""
    state = fw._play(fw._new(), {})
    allied = next(t for t in state.own_tfs(Side.ALLIED) if t.number == 1)
    tfs = tuple(
        replace(t, hex=allied.hex, plot=())
        if t.side is Side.JAPANESE and t.number == 1
        else replace(t, plot=())
        for t in state.task_forces
    )
    return replace(state, task_forces=tfs)


def play(state: FlatTopState, orders: dict[str, list[str]]) -> Outcome[FlatTopState]:
    step = GAME.step(state)
    assert step is not None
    parsed = {s: GAME.parse(state, s, [Line(i + 1, t) for i, t in enumerate(o)]) for s, o in orders.items()}
    assert all(not p.problems for p in parsed.values()), parsed
    dice = DiceStream(b"surface flow".ljust(32, b"."), "digest", step.key)
    return GAME.resolve(state, {s: p.orders for s, p in parsed.items()}, dice=dice)


def told(outcome: Outcome[FlatTopState], side: Side) -> str:
    return "\n".join(e.text for e in outcome.events if e.visible_to(side.value))


def test_a_surface_battle_runs_its_sub_steps_with_a_sealed_bht() -> None:
    hour = play(meeting(), {})
    step = GAME.step(hour.state)
    assert step is not None and step.key == "T2.surface1.engage" and step.kind is StepKind.CHOICE
    assert step.owing == frozenset({"allied", "japanese"})
    engaged = play(hour.state, {"allied": ["ENGAGE", "POSITION Astoria GUNNERY"], "japanese": []})
    assert "The enemy shows:" in told(engaged, Side.ALLIED) and "CA #1" in told(engaged, Side.ALLIED)
    assert "Myoko" not in told(engaged, Side.ALLIED) and "Astoria" not in told(engaged, Side.JAPANESE)
    sealed = GAME.step(engaged.state)
    assert sealed is not None and sealed.kind is StepKind.SEALED and sealed.seal_labels == ("BHT",)
    (bad,) = GAME.parse(engaged.state, "allied", [Line(1, "SEAL BHT 7")]).problems
    assert bad.reason == "the BHT number is 1 to 6 (SEAL BHT 4)"
    opened = play(engaged.state, {"allied": ["SEAL BHT 5"], "japanese": ["BHT 6"]})
    assert "Sealed BHT numbers opened: Allied 5, Japanese 6; the round's BHT is 11" in told(
        opened, Side.JAPANESE
    )
    gunnery = GAME.step(opened.state)
    assert gunnery is not None and gunnery.key == "T2.surface1.gunnery"
    fired = play(opened.state, {"allied": ["FIRE Astoria AT CA#1"], "japanese": []})
    assert "Surface gunnery round:" in told(fired, Side.ALLIED)
    assert "Enemy surviving gunnery:" in told(fired, Side.JAPANESE)
    state, rounds = fired.state, 0
    # the torpedo round (BHT 11 by day), a breakthrough
    while state.pending.surface is not None and rounds < 3:
        state, rounds = play(state, {}).state, rounds + 1
    assert state.pending.surface is None and GAME.tallies(state)["surface"] == 1
    after = GAME.step(state)
    assert after is not None and after.key == "T3.orders"


def test_neither_side_engaging_means_no_battle() -> None:
    hour = play(meeting(), {"allied": ["SURFACE AVOID"], "japanese": ["SURFACE AVOID"]})
    assert list(GAME.default_orders(hour.state, "allied")) == ["AVOID"]
    declined = play(hour.state, {"allied": ["AVOID"], "japanese": ["AVOID"]})
    assert "neither side opened surface combat" in told(declined, Side.ALLIED)
    assert declined.state.pending.surface is None and GAME.tallies(declined.state)["surface"] == 0


def test_the_state_round_trips_while_a_surface_battle_waits() -> None:
    engaged = play(play(meeting(), {}).state, {"allied": ["ENGAGE"]})
    again = GAME.load(GAME.dump(engaged.state))
    assert again.pending == engaged.state.pending and GAME.step(again) == GAME.step(engaged.state)
