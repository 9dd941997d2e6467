# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo seed replays a game exactly by mail (``mailbot/demo/replay.py``)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mailbot.demo.replay import DEFAULT_SEED, message_ids, step_seeds
from mailbot.demo.run import DemoResult, play_demo
from tests.demo_plays import DemoPlays


def _dice(archive: Path) -> list[Any]:
    data = json.loads((archive / "game.json").read_text(encoding="utf-8"))
    return [(step["key"], step["seed"], step["rolls"]) for step in data["steps"]]


@pytest.fixture(scope="module")
def again(demo_plays: DemoPlays, tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoResult, DemoResult]:
    """The shared duel demo (the default seed), and the same seed played again in a copy of its
    folder: the first run's database, mailboxes and archive are there."""
    first = demo_plays("duel")
    work = tmp_path_factory.mktemp("again") / "work"
    shutil.copytree(first.work, work)
    return first.result, asyncio.run(play_demo(game="duel", workdir=work))


async def test_the_same_demo_seed_rolls_the_same_dice_and_another_does_not(
    again: tuple[DemoResult, DemoResult], tmp_path: Path
) -> None:
    """Two runs on one seed: the same step seeds and every roll the same, though the two players'
    letters reach the bot in whatever order the mail server delivers them (entropy v2 mixes them
    sorted). A third run on another seed rolls other dice."""
    first, second = again
    other = await play_demo(game="duel", workdir=tmp_path, seed="other-seed")
    runs = {}
    for name, played in (("a", first), ("b", second), ("c", other)):
        assert played.summary.endswith("finished") and played.archive is not None, played.summary
        runs[name] = _dice(played.archive)
    assert (first.seed, second.seed, other.seed) == (DEFAULT_SEED, DEFAULT_SEED, "other-seed")
    assert runs["a"] == runs["b"]
    assert any(rolls for _, _, rolls in runs["a"])  # there were rolls to compare
    assert [seed for _, seed, _ in runs["a"]] != [seed for _, seed, _ in runs["c"]]


def test_step_seeds_and_message_ids_are_a_fixed_sequence_per_seed() -> None:
    first, again, other = step_seeds("s"), step_seeds("s"), step_seeds("t")
    drawn = [first() for _ in range(3)]
    assert drawn == [again() for _ in range(3)] and len(set(drawn)) == 3
    assert other() not in drawn and all(len(seed) == 32 for seed in drawn)
    ids, same = message_ids("s", "player1@demo.localhost"), message_ids("s", "player1@demo.localhost")
    written = [ids(), ids()]
    assert written == [same(), same()] and written[0] != written[1]
    assert written[0].startswith("<1.player1.") and written[0].endswith("@demo.localhost>")
    assert message_ids("t", "player1@demo.localhost")() != written[0]


def test_a_rerun_in_the_same_workdir_starts_afresh(again: tuple[DemoResult, DemoResult]) -> None:
    """The same seed in the same folder: the replayed letters carry the first run's Message-IDs,
    so the first run's database must not be there to take them for duplicates."""
    first, second = again
    assert first.summary == second.summary and second.summary.endswith("game 1 finished")
