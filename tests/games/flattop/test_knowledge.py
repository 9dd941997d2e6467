# SPDX-License-Identifier: GPL-3.0-or-later
"""A side's knowledge as data (design/flattop.md, "Search and observation"; seed 003, 7)."""

from __future__ import annotations

import json

import pytest

from mailbot.errors import GameError
from mailbot.games.flattop.observation.knowledge import (
    PLANES,
    SHIPS,
    ContactReport,
    Knowledge,
    Sighting,
    UnitReport,
    dump,
    load,
)

C3 = ContactReport(
    SHIPS,
    3,
    units=(UnitReport((("carrier", 1), ("capital", 4), ("small", 5)), (("capital", "damaged", 1),)),),
)
C2 = ContactReport(PLANES, 2, altitude="both", approx=12, classes=("armed", "unarmed"))
C1 = ContactReport(SHIPS, 1)


def sighting(
    report: ContactReport, *, turn: int = 4, observer: str = "AF3", where: str = "V-F24"
) -> Sighting:
    return Sighting(turn, "AF", observer, where, report)


def test_knowledge_round_trips_through_json() -> None:
    """design/flattop.md: "A side's knowledge is data: sightings with turn, observer kind, hex,
    condition, and content." """
    knowledge = Knowledge("allied")
    for s in (sighting(C3), sighting(C2, where="I-G20"), sighting(C1, turn=3, observer="CW Guadalcanal")):
        knowledge = knowledge.with_sighting(s)
    text = json.dumps(dump(knowledge), sort_keys=True)
    assert load(json.loads(text)) == knowledge
    assert json.dumps(dump(load(json.loads(text))), sort_keys=True) == text


def test_updates_are_immutable_and_keep_the_better_report() -> None:
    """design/flattop.md: a report is "fixed for that observer, contact and turn"; only a better
    condition (7.3's example: Condition One, then Two one hex closer) replaces it."""
    empty = Knowledge("allied")
    one = empty.with_sighting(sighting(C1))
    assert empty.sightings == () and len(one.sightings) == 1
    three = one.with_sighting(sighting(C3))
    assert [s.condition for s in three.sightings] == [3]
    assert three.with_sighting(sighting(C1)) is three
    other_observer = three.with_sighting(sighting(C1, observer="AF4"))
    assert len(other_observer.sightings) == 2


def test_order_of_learning_does_not_matter() -> None:
    """Sightings are kept in one canonical order: equal knowledge dumps byte for byte the same."""
    items = [sighting(C3), sighting(C2, where="I-G20"), sighting(C1, turn=2)]
    forward, backward = Knowledge("japanese"), Knowledge("japanese")
    for s in items:
        forward = forward.with_sighting(s)
    for s in reversed(items):
        backward = backward.with_sighting(s)
    assert forward == backward


def test_queries() -> None:
    """The look-ups reports and shadowing (11.2) need."""
    knowledge = Knowledge("allied").with_sighting(sighting(C2, where="I-G20"))
    assert knowledge.find(4, "AF3", "I-G20", PLANES) is not None
    assert knowledge.find(4, "AF3", "I-G20", SHIPS) is None
    assert knowledge.saw(4, "I-G20", PLANES) and not knowledge.saw(5, "I-G20", PLANES)
    assert knowledge.of_turn(4) == knowledge.sightings and knowledge.of_turn(3) == ()


GOOD = dump(Knowledge("x", (sighting(C1),)))["sightings"][0]


@pytest.mark.parametrize(
    "broken",
    [
        {"side": "allied"},
        {"side": "allied", "sightings": [{"turn": 1}]},
        {
            "side": "allied",
            "sightings": [dump(Knowledge("x", (sighting(C1),)))["sightings"][0] | {"turn": "x"}],
        },
    ],
)
def test_malformed_data_is_a_game_error(broken: dict[str, object]) -> None:
    with pytest.raises(GameError):
        load(broken)
