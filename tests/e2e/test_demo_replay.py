# SPDX-License-Identifier: GPL-3.0-or-later
"""The demo seed replays a game exactly by mail (``mailbot/demo/replay.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mailbot.demo.replay import message_ids, step_seeds
from mailbot.demo.run import play_demo


def _dice(archive: Path) -> list[Any]:
    data = json.loads((archive / "game.json").read_text(encoding="utf-8"))
    return [(step["key"], step["seed"], step["rolls"]) for step in data["steps"]]


async def test_the_same_demo_seed_rolls_the_same_dice_and_another_does_not(tmp_path: Path) -> None:
    """Two runs on one seed: the same step seeds and every roll the same, though the two players'
    letters reach the bot in whatever order the mail server delivers them (entropy v2 mixes them
    sorted). A third run on another seed rolls other dice."""
    runs = {}
    for name, seed in (("a", "replay-test"), ("b", "replay-test"), ("c", "other-seed")):
        played = await play_demo(game="duel", workdir=tmp_path / name, seed=seed)
        assert played.summary.endswith("finished"), played.summary
        assert played.archive is not None and played.seed == seed
        runs[name] = _dice(played.archive)
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


async def test_a_rerun_in_the_same_workdir_starts_afresh(tmp_path: Path) -> None:
    """The same seed in the same folder: the replayed letters carry the first run's Message-IDs,
    so the first run's database must not be there to take them for duplicates."""
    first = await play_demo(game="duel", workdir=tmp_path)
    again = await play_demo(game="duel", workdir=tmp_path)
    assert first.summary == again.summary and again.summary.endswith("game 1 finished")
