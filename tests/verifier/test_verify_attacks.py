# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 31's attacks played end to end where the other tests stop short of the attack itself.

The GM grinds NONCE letters with the bot's own resolution and the step's real seed (as he
can: he holds both); the GM drops a seat's letter before intake while the game runs, so its
reveal counts as withheld; the moderator changes a report's map, in the letter as sent or in
the archive. Each is shown impossible or flagged by the victim's ``verify``.
"""

from __future__ import annotations

import json
import mailbox
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from mailbot.store.game_tables import Game, StepRow
from mailbot.store.models import Inbound
from tests.services.game_helpers import Harness, parse
from tests.services.helpers import letter
from tests.services.test_dice_chains import (
    GRINDS,
    _failed,
    _honest,
    _open,
    _play,
    _resolved,
    _round,
    _started,
    _value,
)
from tests.services.test_games_by_mail import NORTH, SOUTH
from tests.verifier.test_verify_tampering import _export, _letters, _run, _summary_counts_every_problem


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/a.db")
    yield harness
    harness.bot.engine.dispose()


def _ground(h: Harness, step: StepRow, seat: str) -> set[tuple[tuple[int, ...], ...]]:
    """What the GM sees grinding: for each of GRINDS letters in ``seat``'s name (a NONCE and a
    Message-ID of his choice), the rolls the bot's own resolution gives with the step's real
    seed; each try is rolled back, never sent."""
    outcomes = set()
    for n in range(GRINDS):
        with Session(h.bot.engine) as session, session.begin():
            game, row = session.get_one(Game, step.game_id), session.get_one(StepRow, step.id)
            h.bot.games.note_entropy(session, game, row, seat, (f"grind-{n}@players.test", f"grind-{n}"))
            session.flush()  # as when the letter's transaction has committed before the deadline
            rolls = h.bot.turns.compute(session, game, row).rolls
            outcomes.add(tuple(tuple(roll["faces"]) for roll in rolls))
            session.rollback()
    return outcomes


def _at_the_first_bid(h: Harness, chained: bool) -> StepRow:
    """A duel at its first step that rolls dice (the bid, sealed), both bids in."""
    game_id, north_tag, south_tag = _started(h, north=chained, south=chained)
    for _ in range(2):
        step = _open(h, game_id)
        k = _round(h, step)
        if chained:
            _honest(h, game_id)(step, k, north_tag, south_tag)
        elif step.kind == "sealed":
            h.mail(NORTH, f"{north_tag} bid", "SEAL bid 2\n")
            h.mail(SOUTH, f"{south_tag} bid", "SEAL bid 1\n")
        else:
            h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
            h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 1\nDEFEND 2\nEND\n")
        if step.kind == "sealed":
            return step
        h.tick(2 * 24 * 3600)
    raise AssertionError("no sealed step")


@pytest.mark.parametrize("chained", [True, False])
@pytest.mark.parametrize("seat", ["north", "south"])
def test_grinding_letters_with_the_real_seed_steers_no_die_of_a_chained_game(
    h: Harness, chained: bool, seat: str
) -> None:
    """Attacks 1(a) and 1(b): once both bids are in, the GM tries 64 letters against the real
    seed, forged in north's name or handed to south, who writes last and colludes. With dice
    chains every try rolls the same dice; without them (the README says the GM can then choose
    among outcomes) the same grinding finds many: the attack is real, and the test can fail."""
    step = _at_the_first_bid(h, chained)
    outcomes = _ground(h, step, seat)
    assert all(outcomes) and (len(outcomes) == 1 if chained else len(outcomes) > 8), len(outcomes)


def test_a_letter_dropped_before_intake_while_the_game_runs_is_flagged(h: Harness, tmp_path: Path) -> None:
    """Attack 1(c): the GM deletes north's orders letter (with his reveal) from the mailbox
    before it is read. The step is rolled with north's reveal withheld and his orders defaulted;
    north's verify, given the letters he received and his Sent folder, names the letter."""
    tags = _started(h)
    game_id, north_tag, south_tag = tags
    step = _open(h, game_id)
    k = _round(h, step)
    h.clock.advance(3600)
    dropped = letter(
        sender=NORTH,
        subject=f"{north_tag} orders",
        body=f"ORDERS\nATTACK 2\nDEFEND 1\nEND\nREVEAL {k} {_value(game_id, 'north', k)}\n",
        message_id="dropped-orders@players.test",
        date=h.clock.now,
    )  # written and sent by north; never stored by the bot
    h.mail(SOUTH, f"{south_tag} orders", f"ORDERS\nATTACK 1\nEND\nREVEAL {k} {_value(game_id, 'south', k)}\n")
    h.tick(2 * 24 * 3600)
    assert _resolved(h, step)["withheld"] == ["north"]  # the drop changed the dice
    _play(h, tags)
    _export(h, game_id, tmp_path / "arch")
    received = _letters(h, NORTH, tmp_path / "in.mbox")
    box = mailbox.mbox(tmp_path / "sent.mbox")
    with Session(h.bot.engine) as session:
        for row in session.exec(select(Inbound).where(Inbound.sender == NORTH).order_by(col(Inbound.id))):
            box.add(row.raw)
    box.add(dropped)
    box.flush()
    box.close()
    done = _run(tmp_path / "arch", "--letters", str(received), "--sent", str(tmp_path / "sent.mbox"))
    _summary_counts_every_problem(done.stdout)
    failed = _failed(done.stdout)
    assert done.returncode == 1 and len(failed) == 1, done.stdout
    assert "is not in the chain and was never answered: dropped" in failed[0], failed
    assert parse(dropped)["Date"] in failed[0]


# -- the map -----------------------------------------------------------------------------------


def _flattop(h: Harness) -> int:
    game_id = h.create_flattop()
    h.invite(game_id, "allied", NORTH)
    h.invite(game_id, "japanese", SOUTH)
    h.flush()
    return game_id


def _with_map(h: Harness) -> list[bytes]:
    return [s.raw for s in h.sink.sent if s.recipient == NORTH and b"image/png" in s.raw]


def _png_edited(raw: bytes) -> bytes:
    msg = parse(raw)
    for part in msg.walk():
        if part.get_content_type() == "image/png":
            data = part.get_payload(decode=True)
            assert isinstance(data, bytes)
            part.set_content(data + b"\0", "image", "png", filename=part.get_filename())
            return msg.as_bytes()
    raise AssertionError("no map in the letter")


def test_a_map_changed_in_the_letter_or_in_the_archive_is_flagged(h: Harness, tmp_path: Path) -> None:
    """Attack 7: the report letter's PNG map is changed on its way (or the moderator's outbox
    sends another), and the SVG map kept in the archive is edited: both are FAILED lines."""
    game_id = _flattop(h)
    maps = _with_map(h)
    assert maps, "the Flat Top opening report carries a map"
    data = _export(h, game_id, tmp_path / "arch")
    received = _letters(h, NORTH, tmp_path / "in.mbox")
    assert _run(tmp_path / "arch", "--letters", str(received)).returncode == 0

    box = mailbox.mbox(tmp_path / "edited.mbox")
    for sent in h.sink.sent:
        if sent.recipient == NORTH:
            box.add(_png_edited(sent.raw) if sent.raw == maps[0] else sent.raw)
    box.flush()
    box.close()
    done = _run(tmp_path / "arch", "--letters", str(tmp_path / "edited.mbox"))
    _summary_counts_every_problem(done.stdout)
    edited = re.search(r"its part map-allied-turn1\.png is not the one the chain logged", done.stdout)
    assert done.returncode == 1 and edited, done.stdout

    report = next(r for r in data["reports"] if r.get("map_file") or r.get("map_svg"))
    if report.get("map_file"):
        path = tmp_path / "arch" / report["map_file"]
        path.write_text(path.read_text().replace("</svg>", "<text>moved</text></svg>"))
    else:
        report["map_svg"] = report["map_svg"].replace("</svg>", "<text>moved</text></svg>")
        (tmp_path / "arch" / "game.json").write_text(json.dumps(data))
    done = _run(tmp_path / "arch")
    _summary_counts_every_problem(done.stdout)
    assert done.returncode == 1 and "map.svg is not the one logged when sent" in done.stdout, done.stdout
