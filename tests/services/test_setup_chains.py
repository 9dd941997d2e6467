# SPDX-License-Identifier: GPL-3.0-or-later
"""The set-up's dice and a handed-over seat's chain (issue 31): nobody steers round 1 either.

The set-up opens when the game is created and is rolled when every seat has joined. Its dice
count the anchors logged by then and the round-1 reveals taken only after that, so the last
seat to join cannot choose his chain knowing another's reveal; a seat handed to a new player
(REPLACE) gets the new player's chain from the next step. Each on SQLite and PostgreSQL.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.core import hashchain
from mailbot.services.base import chainlog
from mailbot.store.game_tables import GameStatus, StepRow
from mailbot.verifier.rules import seat_root
from tests.services.game_helpers import Harness, parse, tag_of, text, to
from tests.services.test_dice_chains import (
    _chain,
    _chain_line,
    _check,
    _faces,
    _failed,
    _open,
    _play,
    _predicted,
    _resolved,
    _round,
    _started,
    _value,
)
from tests.services.test_games_by_mail import NORTH, SOUTH
from tests.verifier.test_verify_tampering import _export, _run

CAROL = "carol@players.test"
CAROL_PHRASE = "carol brings a chain of her own"


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _setup(h: Harness, game_id: int) -> StepRow:
    return next(s for s in h.steps(game_id) if s.key == "setup")


def _joined(h: Harness, *, north_chain: bool = True) -> tuple[int, str, list[EmailMessage]]:
    """North invited (with a CHAIN letter, or none), south joins last with CHAIN and REVEAL 1."""
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    if north_chain:
        h.mail(NORTH, f"{north_tag} chain", _chain_line(game_id, "north") + "\n")
    code = h.seat(game_id, "south").invite_code
    reveal = f"REVEAL 1 {_value(game_id, 'south', 1)}"
    body = f"JOIN {game_id} south {code}\n{_chain_line(game_id, 'south')}\n{reveal}\n"
    return game_id, north_tag, list(h.mail(SOUTH, "joining", body))


def test_the_set_up_is_rolled_with_the_round_1_reveals_and_checks_clean(h: Harness, tmp_path: Path) -> None:
    tags = _started(h)
    game_id = tags[0]
    setup = _setup(h, game_id)
    resolved = _resolved(h, setup)
    reveals = {seat: _value(game_id, seat, 1) for seat in ("north", "south")}
    assert resolved["dice"] == 3 and resolved["withheld"] == []
    assert resolved["entropy"] == hashchain.reveals_digest(reveals)
    assert _faces(h, setup) == _predicted(h, setup, reveals)
    kinds = [r.kind for r in _chain(h, game_id)]
    # The anchors closed when the last seat joined; every set-up reveal came after.
    closed = kinds.index("setup-reveals")
    assert kinds.index("dice-chain") < closed < kinds.index("reveal") < kinds.index("game-started")
    _play(h, tags)
    assert _failed(_check(h, game_id, tmp_path)) == []


def test_a_set_up_reveal_before_every_seat_joined_is_refused(h: Harness) -> None:
    """The last joiner, told it by the GM, could choose his passphrase until the set-up suits
    him: so no round-1 reveal is taken until his anchor is in."""
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    north_tag = f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"
    body = f"{_chain_line(game_id, 'north')}\nREVEAL 1 {_value(game_id, 'north', 1)}\n"
    answer = _flat(to(h.mail(NORTH, f"{north_tag} chain", body), NORTH)[-1])
    assert "it counts for the set-up" in answer
    assert "the set-up's reveals are taken once every seat has joined" in answer
    assert not [r for r in _chain(h, game_id) if r.kind == "reveal"]


def test_a_withheld_set_up_reveal_waits_for_the_deadline_and_shows(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, replies = _joined(h)
    asked = next(m for m in to(replies, NORTH) if "set-up dice" in m["Subject"])
    assert "your reveal counted as withheld" in " ".join(text(asked).split())
    south = next(m for m in to(replies, SOUTH) if "set-up dice" in m["Subject"])
    assert "have sent their round-1 reveal" not in text(south)  # south is chained: asked as well
    assert h.game(game_id).status is GameStatus.SETUP
    h.tick(3600)
    assert h.game(game_id).status is GameStatus.SETUP  # waiting, not stuck: its deadline is later
    assert h.bot.deadlines.wake_times(), "the set-up's deadline wakes the bot"
    h.tick(3 * 24 * 3600)
    assert h.game(game_id).status is GameStatus.RUNNING
    setup = _setup(h, game_id)
    resolved = _resolved(h, setup)
    only_south = {"north": "", "south": _value(game_id, "south", 1)}
    assert resolved["withheld"] == ["north"]
    assert resolved["entropy"] == hashchain.reveals_digest(only_south)
    south_tag = tag_of(next(m for m in to(replies, SOUTH) if "Welcome" in m["Subject"]))
    _play(h, (game_id, north_tag, south_tag))
    assert _failed(_check(h, game_id, tmp_path)) == []


def test_an_anchor_after_the_last_join_counts_from_the_next_step(h: Harness, tmp_path: Path) -> None:
    """North sends no CHAIN before south joins: the set-up counts south alone, and north's
    CHAIN sent while it waits counts from the first step after it."""
    game_id, north_tag, replies = _joined(h, north_chain=False)
    assert h.game(game_id).status is GameStatus.RUNNING  # south's reveal was the only one owed
    setup = _setup(h, game_id)
    assert _resolved(h, setup)["entropy"] == hashchain.reveals_digest({"south": _value(game_id, "south", 1)})
    h.mail(NORTH, f"{north_tag} chain", _chain_line(game_id, "north") + "\n")
    south_tag = tag_of(next(m for m in to(replies, SOUTH) if "Welcome" in m["Subject"]))
    first = _open(h, game_id)
    answer = h.mail(NORTH, f"{north_tag} reveal", f"REVEAL 2 {_value(game_id, 'north', 2)}\n")
    assert "your seat has no dice chain for this step" in text(to(answer, NORTH)[-1])
    _play(h, (game_id, north_tag, south_tag))
    assert _resolved(h, first)["withheld"] == []  # south alone was chained there
    later = [s for s in h.steps(game_id) if s.id > first.id]
    assert all(_resolved(h, s)["entropy"] != "" for s in later)
    assert _failed(_check(h, game_id, tmp_path)) == []


@functools.cache
def _carol_kept(game_id: int) -> tuple[bytes, ...]:
    return tuple(hashchain.checkpoints(seat_root(CAROL_PHRASE, str(game_id), "north")))


def _carol_value(game_id: int, k: int) -> str:
    return hashchain.element_from(_carol_kept(game_id), k).hex()


def _replace_north(h: Harness, game_id: int) -> str:
    gm_tag = f"[DU-{game_id} {h.game(game_id).gm_secret}] replace"
    h.mail("gm@example.test", gm_tag, f"REPLACE north {CAROL} moved away\n")
    return f"[DU-{game_id} {h.seat(game_id, 'north').secret}]"


def test_replace_ends_the_old_anchor_and_takes_the_new_players_chain(h: Harness, tmp_path: Path) -> None:
    tags = _started(h)
    game_id, _, south_tag = tags
    step = _open(h, game_id)
    k = _round(h, step)
    before = len(h.sink.sent)
    carol_tag = _replace_north(h, game_id)
    welcome = next(m for m in to(_sent_since(h, before), CAROL) if "Welcome" in m["Subject"])
    assert f"python3 verify.py chain {game_id} <your seat>" in text(welcome)
    assert "he can know the dice before they are rolled" in " ".join(text(welcome).split())
    # The open step still counts the old chain: carol cannot reveal for it, and may anchor hers.
    refused = h.mail(CAROL, f"{carol_tag} reveal", f"REVEAL {k} {_carol_value(game_id, k)}\n")
    assert "does not link" in text(to(refused, CAROL)[-1])
    anchor = hashchain.anchor(seat_root(CAROL_PHRASE, str(game_id), "north"))
    taken = h.mail(CAROL, f"{carol_tag} chain", f"CHAIN {anchor}\n")
    assert "is logged; it counts from the next step" in _flat(to(taken, CAROL)[-1])
    again = h.mail(CAROL, f"{carol_tag} chain", f"CHAIN {anchor}\n")
    assert "your dice chain is set (the same one)" in text(to(again, CAROL)[-1])
    h.mail(SOUTH, f"{south_tag} orders", f"ORDERS\nATTACK 1\nEND\nREVEAL {k} {_value(game_id, 'south', k)}\n")
    h.tick(2 * 24 * 3600)
    assert _resolved(h, step)["withheld"] == ["north"]  # the old chain's value never came

    # From the next step on north's chain is carol's: her reveals count.
    def send(st: StepRow, r: int, _north: str, south: str) -> None:
        mine, hers = f"REVEAL {r} {_carol_value(game_id, r)}", f"REVEAL {r} {_value(game_id, 'south', r)}"
        if st.kind == "sealed":
            h.mail(CAROL, f"{carol_tag} bid", f"SEAL bid 2\n{mine}\n")
            h.mail(SOUTH, f"{south} bid", f"SEAL bid 1\n{hers}\n")
        else:
            h.mail(CAROL, f"{carol_tag} orders", f"ORDERS\nATTACK 2\nEND\n{mine}\n")
            h.mail(SOUTH, f"{south} orders", f"ORDERS\nATTACK 1\nEND\n{hers}\n")

    _play(h, (game_id, carol_tag, south_tag), send)
    later = [s for s in h.steps(game_id) if s.id > step.id]
    assert later and all(_resolved(h, s)["withheld"] == [] for s in later)
    assert [r.kind for r in _chain(h, game_id)].count("dice-chain-ended") == 1
    _export(h, game_id, tmp_path / "arch")
    done = _run(tmp_path / "arch")
    assert "FAILED" not in done.stdout, done.stdout


def _flat(msg: EmailMessage) -> str:
    return " ".join(text(msg).split())


def _sent_since(h: Harness, before: int) -> list[EmailMessage]:
    return [parse(sent.raw) for sent in h.sink.sent[before:]]


def test_a_chain_ended_without_a_replace_is_flagged(h: Harness, tmp_path: Path) -> None:
    """The GM ends north's chain in his database (north's reveals would no longer count):
    no REPLACE came before it, and verify says so."""
    tags = _started(h)
    game_id = tags[0]
    with Session(h.bot.engine) as session, session.begin():
        anchor = next(r.payload["anchor"] for r in _chain(h, game_id) if r.kind == "dice-chain")
        chainlog.append(
            session, game_id, "dice-chain-ended", {"seat": "north", "anchor": anchor}, h.clock.now
        )
    _play(h, tags)
    _export(h, game_id, tmp_path / "arch")
    out = _run(tmp_path / "arch").stdout
    assert "FAILED: north's dice chain was ended" in out and "without the seat being handed over" in out, out


def test_a_replace_while_the_set_up_waits_keeps_its_anchors_closed(h: Harness, tmp_path: Path) -> None:
    """North's chain ends with the REPLACE; the set-up's chained seats stay those of the
    closing, so north's reveal can no longer come: it is rolled at its deadline, withheld."""
    game_id, _, replies = _joined(h)
    carol_tag = _replace_north(h, game_id)
    assert h.game(game_id).status is GameStatus.SETUP
    assert [r.kind for r in _chain(h, game_id)].count("setup-reveals") == 1
    h.tick(3 * 24 * 3600)
    assert h.game(game_id).status is GameStatus.RUNNING
    assert _resolved(h, _setup(h, game_id))["withheld"] == ["north"]
    south_tag = tag_of(next(m for m in to(replies, SOUTH) if "Welcome" in m["Subject"]))

    def send(st: StepRow, r: int, _north: str, south: str) -> None:
        hers = f"REVEAL {r} {_value(game_id, 'south', r)}"
        if st.kind == "sealed":
            h.mail(CAROL, f"{carol_tag} bid", "SEAL bid 2\n")
            h.mail(SOUTH, f"{south} bid", f"SEAL bid 1\n{hers}\n")
        else:
            h.mail(CAROL, f"{carol_tag} orders", "ORDERS\nATTACK 2\nEND\n")
            h.mail(SOUTH, f"{south} orders", f"ORDERS\nATTACK 1\nEND\n{hers}\n")

    _play(h, (game_id, carol_tag, south_tag), send)
    _export(h, game_id, tmp_path / "arch")
    assert "FAILED" not in _run(tmp_path / "arch").stdout
