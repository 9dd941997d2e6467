# SPDX-License-Identifier: GPL-3.0-or-later
"""verify.py misses nothing (issue 14, item 5): each tampering is caught, a rollback is not one.

Every case edits an exported archive of a finished duel and runs the archive's
own ``verify.py`` in a subprocess, as a player would; the last summary line
counts every FAILED line printed.
"""

from __future__ import annotations

import hashlib
import json
import mailbox
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from mailbot.core import dice
from mailbot.errors import GameError
from mailbot.services.archive.archive import export
from mailbot.store.game_tables import GameStatus, StepRow, StepState
from mailbot.verifier import rules
from mailbot.verifier.pages import page_text
from mailbot.verifier.rules import (
    GENESIS,
    canonical,
    dice_key,
    entry_hash,
    faces,
    player_entropy,
    salted,
)
from tests.services.game_helpers import Harness
from tests.services.helpers import GM
from tests.services.test_games_by_mail import NORTH, SOUTH, _started

Data = dict[str, Any]


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/v.db")
    yield harness
    harness.bot.engine.dispose()


Send = Callable[[StepRow, str, str], None]


def play_duel(h: Harness, send: Send, after: Callable[[StepRow], None] | None = None) -> int:
    """A duel played to its end: ``send(step, north_tag, south_tag)`` mails each open step's
    letters, its deadline passes, then ``after(step)`` may act on it."""
    game_id, north_tag, south_tag = _started(h)
    for _ in range(20):
        if h.game(game_id).status is GameStatus.FINISHED:
            return game_id
        step = next(s for s in h.steps(game_id) if s.state is StepState.OPEN)
        send(step, north_tag, south_tag)
        h.tick(2 * 24 * 3600)
        if after is not None:
            after(step)
    raise AssertionError("the duel did not end")


def _play(h: Harness, *, rollback: bool = False) -> int:
    def send(step: StepRow, north_tag: str, south_tag: str) -> None:
        if step.kind == "sealed":
            h.mail(NORTH, f"{north_tag} bid", "SEAL bid 2\nNONCE n-bid\n")
            h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
        else:
            h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
            h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")

    def roll_back(step: StepRow) -> None:
        if step.kind == "sealed" and step.attempt == 1 and step.turn == 1:
            gm = f"[DU-{step.game_id} {h.game(step.game_id).gm_secret}] gm"
            h.mail(GM, gm, f"ROLLBACK {step.key} a wrong table\n")
            h.mail(GM, gm, "FORCE go on\n")

    return play_duel(h, send, roll_back if rollback else None)


def _export(h: Harness, game_id: int, out: Path) -> Data:
    """The game.json exported, each report's text in it (as the step's page shows it): the edits
    below change game.json alone."""
    with Session(h.bot.engine) as session:
        export(session, game_id, out)
    data: Data = json.loads((out / "game.json").read_text())
    return with_texts(out, data)


def with_texts(out: Path, data: Data) -> Data:
    """``data`` with each report's text that game.json names on a step's page held in it."""
    for report in data["reports"]:
        if "text_file" in report:
            report["text"] = page_text(out, report.pop("text_file"))
    return data


def _letters(h: Harness, address: str, path: Path) -> Path:
    box = mailbox.mbox(path)
    for sent in h.sink.sent:
        if sent.recipient == address:
            box.add(sent.raw)
    box.flush()
    box.close()
    return path


def _run(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "verify.py", ".", *extra], cwd=folder, capture_output=True, text=True, check=False
    )


def _summary_counts_every_problem(out: str) -> None:
    failed = sum(1 for line in out.splitlines() if line.startswith("FAILED:"))
    assert out.strip().splitlines()[-1].endswith(f", {failed} failed"), out


# -- the edits ---------------------------------------------------------------------------------


def _sealed(data: Data) -> tuple[Data, dict[str, Any]]:
    step = next(s for s in data["steps"] if s["sealed"])
    return step, step["sealed"]["north"]["bid"]


def _last_with_rolls(data: Data) -> Data:
    return [s for s in data["steps"] if s["rolls"]][-1]


def sealed_value(data: Data) -> None:
    _sealed(data)[1]["value"] = "3"


def sealed_salt(data: Data) -> None:
    item = _sealed(data)[1]
    item["salt"] = "00" * 32


def sealed_receipt(data: Data) -> None:
    """A new value with a receipt that fits it: the chain logged the old receipt."""
    item = _sealed(data)[1]
    item["value"] = "3"
    item["receipt"] = hashlib.sha256(b"3" + bytes.fromhex(item["salt"])).hexdigest()


def hide_last_step(data: Data) -> None:
    data["steps"].pop()


def drop_last_roll(data: Data) -> None:
    _last_with_rolls(data)["rolls"].pop()


def extra_reroll(data: Data) -> None:
    """Append a roll that re-derives perfectly: a quiet re-roll the chain never committed to."""
    step = _last_with_rolls(data)
    contributions = [
        (p["seat"], p["message_id"], p["nonce"])
        for p in (e["payload"] for e in data["chain"] if e["kind"] == "entropy")
        if p["step"] == step["key"] and p["attempt"] == step["attempt"]
    ]
    key = dice_key(bytes.fromhex(step["seed"]), player_entropy(contributions))
    last = step["rolls"][-1]
    where = (step["key"], step["orders_digest"], last["label"])
    _, after = faces(key, where, last["sides"], last["count"], last["counter"])
    rolled, _ = faces(key, where, last["sides"], last["count"], after)
    step["rolls"].append({**last, "faces": rolled, "counter": after, "total": sum(rolled)})


def null_seed(data: Data) -> None:
    step = _last_with_rolls(data)
    roll = step["rolls"][0]
    roll["faces"][0] = roll["faces"][0] % roll["sides"] + 1
    roll["total"] = sum(roll["faces"]) + sum(roll["modifiers"].values())
    step["seed"] = None


def delete_report(data: Data) -> None:
    del data["reports"][2]


def rewrite(data: Data) -> None:
    """Edit a report, then rewrite the whole chain and every stated head so that all fits again."""
    reports = data["reports"]
    by_commitment = {salted(_text_hash(r), bytes.fromhex(r["salt"])): r for r in reports}
    target = reports[3]
    renamed: dict[str, str] = {GENESIS: GENESIS}
    prev = GENESIS
    for n, entry in enumerate(data["chain"]):
        report = (
            by_commitment.get(entry["payload"].get("commitment", "")) if entry["kind"] == "report" else None
        )
        if report is not None:
            report["text"] = report["text"].replace(report["chain_head"], prev)
            if report is target:
                report["text"] = report["text"].replace("hit points", "hitpoints")
            report["chain_head"] = prev
            entry["payload"]["commitment"] = salted(_text_hash(report), bytes.fromhex(report["salt"]))
        entry["prev_hash"] = prev
        new = entry_hash(n, entry["kind"], entry["payload"], prev)
        renamed[entry["hash"]] = new
        entry["hash"] = prev = new


def _text_hash(report: Data) -> str:
    return hashlib.sha256(report["text"].encode("utf-8")).hexdigest()


EDITS: dict[str, tuple[Callable[[Data], None], str]] = {
    "sealed-value": (sealed_value, "does not give its receipt"),
    "sealed-salt": (sealed_salt, "does not give its receipt"),
    "sealed-receipt": (sealed_receipt, "is not the one logged when sealed"),
    "hide-last-step": (hide_last_step, "missing from the archive"),
    "drop-last-roll": (drop_last_roll, "roll log is not the one committed"),
    "extra-reroll": (extra_reroll, "roll log is not the one committed"),
    "null-seed": (null_seed, "the game is over but its seed is withheld"),
    "delete-report": (delete_report, "that the archive lacks"),
}


@dataclass(frozen=True)
class Finished:
    """A duel played to its end once for a test module and its archive exported once, which
    verify.py checks clean. The tests read the game (``h.sink`` holds its letters) and edit
    copies of the archive: a copy is the very files a new export writes, and playing and
    exporting the game for each case had been most of these tests' time."""

    h: Harness
    game_id: int
    clean: Path  # never edited

    def archive(self, folder: Path) -> Data:
        """A copy of the clean archive at ``folder``: its game.json with each report's text."""
        shutil.copytree(self.clean, folder)
        return with_texts(folder, json.loads((folder / "game.json").read_text()))


@contextmanager
def finished_duel(folder: Path, play: Callable[[Harness], int] = _play) -> Iterator[Finished]:
    """``play``: how the duel is played (the letters the seats send), to its end."""
    harness = Harness(f"sqlite:///{folder}/finished.db")
    try:
        game_id = play(harness)
        _export(harness, game_id, folder / "clean")
        done = _run(folder / "clean")
        assert done.returncode == 0, done.stdout
        yield Finished(harness, game_id, folder / "clean")
    finally:
        harness.bot.engine.dispose()


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Finished]:
    with finished_duel(tmp_path_factory.mktemp("finished")) as done:
        yield done


@pytest.mark.parametrize("name", sorted(EDITS))
def test_each_tampering_is_caught(finished: Finished, tmp_path: Path, name: str) -> None:
    folder = tmp_path / name
    data = finished.archive(folder)
    edit, expected = EDITS[name]
    edit(data)
    (folder / "game.json").write_text(json.dumps(data))
    done = _run(folder)
    assert done.returncode == 1, done.stdout
    assert expected in done.stdout, done.stdout
    _summary_counts_every_problem(done.stdout)


def _first_roll(data: Data) -> Data:
    roll: Data = _last_with_rolls(data)["rolls"][0]
    return roll


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("count", 10**9, "its count 1000000000 is out of range (0 to 1000)"),
        ("sides", 2**40, "its sides 1099511627776 is out of range (1 to 4294967296)"),
        ("counter", 2**64, "its counter 18446744073709551616 is out of range (0 to 18446744073709551615)"),
        ("count", 1000, "face(s) for a count of 1000: not derived"),
    ],
)
def test_a_roll_beyond_what_the_dice_roll_is_refused_at_once(
    finished: Finished, tmp_path: Path, field: str, value: int, said: str
) -> None:
    """Outside players' trial: a hand-edited count of 10**9 kept verify.py busy for hours (2**40
    sides: for ever). A roll is held to what the moderator's dice can roll (``core.dice``) before
    it is derived, and to as many faces as its count."""
    folder = tmp_path / f"{field}-{value}"
    data = finished.archive(folder)
    roll = _first_roll(data)
    roll[field] = value
    (folder / "game.json").write_text(json.dumps(data))
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "verify.py", "."],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert time.monotonic() - started < 30 and done.returncode == 1, done.stdout
    (line,) = [line for line in done.stdout.splitlines() if said in line]
    assert line.startswith("FAILED: ") and roll["label"] in line, done.stdout
    _summary_counts_every_problem(done.stdout)


def test_the_checkers_dice_bounds_are_the_dices() -> None:
    assert (rules.MAX_COUNT, rules.MAX_SIDES) == (dice.MAX_COUNT, dice.MAX_SIDES)
    stream = dice.DiceStream(bytes(32), "", "T1.orders")
    assert len(stream.roll("many", 6, dice.MAX_COUNT).faces) == dice.MAX_COUNT
    with pytest.raises(GameError, match="at most 1000 dice a roll, not 1001"):
        stream.roll("too many", 6, dice.MAX_COUNT + 1)


def test_a_consistent_chain_rewrite_is_caught_by_the_players_letters(
    finished: Finished, tmp_path: Path
) -> None:
    folder = tmp_path / "rewrite"
    data = finished.archive(folder)
    rewrite(data)
    (folder / "game.json").write_text(json.dumps(data))
    alone = _run(folder)
    # the archive's own mail.mbox holds the reports as sent, at the heads of the true chain...
    assert alone.returncode == 1 and "is not in the chain" in alone.stdout, alone.stdout
    (folder / "mail.mbox").unlink()
    alone = _run(folder)
    assert alone.stdout.startswith("FAILED: mail.mbox is missing\n"), alone.stdout
    assert alone.stdout.count("FAILED") == 1  # ...and without it the archive is self-consistent...
    mbox = _letters(finished.h, NORTH, tmp_path / "north.mbox")
    done = _run(folder, "--letters", str(mbox))
    assert done.returncode == 1, done.stdout  # ...but not with what north was sent
    assert "is not in the archive's chain" in done.stdout
    assert "final chain head and length you were sent" in done.stdout
    _summary_counts_every_problem(done.stdout)
    cli = subprocess.run(
        [sys.executable, "-m", "mailbot", "verify", str(folder), "--letters", str(mbox)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert cli.returncode == 1 and cli.stdout == done.stdout


def test_the_players_letters_check_clean_and_a_foreign_report_is_named(
    finished: Finished, tmp_path: Path
) -> None:
    h = finished.h
    folder = tmp_path / "letters"
    data = finished.archive(folder)
    maildir = mailbox.Maildir(tmp_path / "south-maildir")
    for sent in h.sink.sent:
        if sent.recipient == SOUTH:
            maildir.add(sent.raw)
    done = _run(folder, "--letters", str(tmp_path / "south-maildir"))
    assert done.returncode == 0, done.stdout
    checked = next(line for line in done.stdout.splitlines() if line.startswith("letters:"))
    assert int(checked.split()[1]) > 3
    # A report the archive does not hold (deleted from it, chain entry and all) is named.
    gone = data["reports"].pop(1)
    data["chain"] = [e for e in data["chain"] if e["payload"].get("commitment") != _commitment(gone)]
    (folder / "game.json").write_text(json.dumps(data))
    mbox = _letters(h, NORTH if gone["seat"] == "north" else SOUTH, tmp_path / "own.mbox")
    done = _run(folder, "--letters", str(mbox))
    assert done.returncode == 1 and "does not account for this report" in done.stdout


def _commitment(report: Data) -> str:
    return salted(_text_hash(report), bytes.fromhex(report["salt"]))


def test_a_game_with_a_rollback_verifies_clean(h: Harness, tmp_path: Path) -> None:
    game_id = _play(h, rollback=True)
    assert any(s.attempt == 2 for s in h.steps(game_id))
    data = _export(h, game_id, tmp_path / "rb")
    assert [s["attempt"] for s in data["steps"]].count(2) >= 1
    mbox = _letters(h, NORTH, tmp_path / "north.mbox")
    done = _run(tmp_path / "rb", "--letters", str(mbox))
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip().splitlines()[-1].endswith(" 0 failed")
    rolls = sum(len(s["rolls"]) for s in data["steps"])
    assert f"verify: {rolls} rolls, {rolls} ok" in done.stdout
    assert canonical([1]) == "[1]"
