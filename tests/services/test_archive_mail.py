# SPDX-License-Identifier: GPL-3.0-or-later
"""ARCHIVE by mail: a seat gets its own archive as a .zip; nobody else gets anything new."""

from __future__ import annotations

import email
import email.policy
import io
import json
import mailbox
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import Session

from mailbot.services.archive.archive_holder import Span, spans_of
from mailbot.store.game_tables import Game
from tests.services.game_helpers import Harness, text, to
from tests.services.helpers import BOT, GM
from tests.services.test_games_by_mail import NORTH, SOUTH, _started


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/a.db")
    yield harness
    harness.bot.engine.dispose()


def _zips(letters: list[EmailMessage]) -> list[tuple[EmailMessage, bytes]]:
    found = []
    for message in letters:
        for part in message.iter_attachments():
            if part.get_content_type() == "application/zip":
                data = part.get_payload(decode=True)
                assert isinstance(data, bytes)
                found.append((message, data))
    return found


def _played_a_turn(h: Harness) -> tuple[int, str, str]:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 1\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.tick(2 * 24 * 3600)
    return game_id, north_tag, south_tag


def test_a_seated_player_gets_his_own_archive_as_a_zip(h: Harness, tmp_path: Path) -> None:
    game_id, _, south_tag = _played_a_turn(h)
    letters = h.mail(SOUTH, f"Re: {south_tag} archive please", "ARCHIVE\n")
    assert all(m["To"] == SOUTH for m in letters)  # nobody else hears of it
    (reply,) = [m for m in letters if m["Subject"].startswith("Re:")]
    assert "follows in a separate letter" in text(reply)
    ((carrier, data),) = _zips(letters)
    assert south_tag in carrier["Subject"]
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        assert f"du-{game_id}-south-archive/index.html" in names
        assert not any(name.endswith(("game.json", "verify.py")) for name in names)
        archive.extractall(tmp_path / "zip")
    folder = tmp_path / "zip" / f"du-{game_id}-south-archive"
    pages = "\n".join(page.read_text() for page in folder.rglob("*.html"))
    assert "report for south" in pages and "report for north" not in pages
    assert "ATTACK 3" in pages and "ATTACK 1, DEFEND 1" not in pages
    box = mailbox.mbox(folder / "mail.mbox", create=False)
    kept = [
        email.message_from_bytes(box.get_bytes(key), policy=email.policy.default) for key in box.iterkeys()
    ]
    box.close()
    assert kept and all(SOUTH in f"{m['From']} {m['To']}" for m in kept)
    secrets = [h.seat(game_id, "north").secret, h.seat(game_id, "south").secret, h.game(game_id).gm_secret]
    unpacked = "\n".join(f.read_bytes().decode("utf-8", "replace") for f in folder.rglob("*") if f.is_file())
    assert not any(secret in unpacked for secret in secrets)


def test_a_stranger_asking_for_an_archive_gets_the_plain_answer_only(h: Harness) -> None:
    game_id, _, _ = _played_a_turn(h)
    letters = h.mail("mallory@elsewhere.test", f"[DU-{game_id} guess] archive", "ARCHIVE\n")
    (reply,) = letters
    assert reply["To"] == "mallory@elsewhere.test" and not _zips(letters)
    assert "You are not playing in a game here" in text(reply)
    assert "report" not in text(reply).lower()


def test_a_seats_address_without_its_secret_is_refused(h: Harness) -> None:
    game_id, _, _ = _played_a_turn(h)
    letters = h.mail(NORTH, f"[DU-{game_id} wrong] archive", "ARCHIVE\n")
    assert not _zips(letters)
    assert any("refused" in text(m) for m in to(letters, NORTH))


def test_the_gm_is_told_how_to_export_the_whole_game(h: Harness) -> None:
    game_id, _, _ = _played_a_turn(h)
    gm_secret = h.game(game_id).gm_secret
    letters = h.mail(GM, f"[DU-{game_id} {gm_secret}] archive", "ARCHIVE\n")
    (reply,) = letters
    assert not _zips(letters) and f"mailbot archive export {game_id}" in text(reply)
    assert "it is written only with --private, as your own backup" in text(reply)  # not over yet


def test_help_lists_archive(h: Harness) -> None:
    (reply,) = h.mail("anyone@players.test", "HELP", "HELP\n")
    lines = [line for line in text(reply).splitlines() if line.startswith("ARCHIVE")]
    assert lines and "zip" in lines[0] and len(lines[0]) <= 72


def test_anonymous_press_keeps_its_author_out_of_every_archive(h: Harness, tmp_path: Path) -> None:
    """An anonymous PRESS is relayed without its author, and the event chain, which every archive
    carries (a seat's own zip and the GM's export), says "anonymous" instead of the seat."""
    from sqlmodel import Session

    from mailbot.services.archive.archive import export
    from mailbot.store.game_tables import Game

    game_id, north_tag, south_tag = _started(h)
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Game, game_id).anonymous_press = True
    letters = h.mail(NORTH, f"Re: {north_tag} press", "PRESS SOUTH ANON\nYour left flank is open.\nEND\n")
    (relayed,) = [m for m in letters if m["To"] == SOUTH]
    assert "Press from an anonymous player" in relayed["Subject"] and "north" not in text(relayed)
    with Session(h.bot.engine) as session:
        export(session, game_id, tmp_path / "gm")
    chain = json.loads((tmp_path / "gm" / "game.json").read_text(encoding="utf-8"))["chain"]
    (press,) = [entry for entry in chain if entry["kind"] == "press"]
    assert press["payload"] == {"from": "anonymous", "to": ["south"]}
    named = h.mail(SOUTH, f"Re: {south_tag} press", "PRESS NORTH\nWe shall see.\nEND\n")
    assert any(m["To"] == NORTH and "Press from south" in m["Subject"] for m in named)


CAROL = "carol@players.test"


def _unpacked(data: bytes, out: Path) -> Path:
    """The zip unpacked into ``out``: the folder of the archive inside it."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        (folder,) = {name.split("/", 1)[0] for name in archive.namelist()}
        archive.extractall(out)
    return out / folder


@pytest.mark.parametrize(
    "handover",
    [(f"REPLACE south {CAROL} gone quiet",), ("EJECT south gone quiet", f"REPLACE south {CAROL}")],
    ids=["replace", "eject-then-replace"],
)
def test_a_new_players_archive_holds_nothing_of_the_seats_earlier_player(
    h: Harness, tmp_path: Path, handover: tuple[str, ...]
) -> None:
    """Outside GM trial: carol, given south, asked for her archive and got the earlier player's
    letters (his press, his orders letter), his orders on the step pages and his void secret."""
    game_id, north_tag, south_tag = _started(h)
    with Session(h.bot.engine) as session, session.begin():
        session.get_one(Game, game_id).reveal_at_end = True  # T1's seed stays secret: its orders too
    old_secret = h.seat(game_id, "south").secret
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 1\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.mail(SOUTH, f"Re: {south_tag} press", "PRESS NORTH\nOnly for north, from the first south.\nEND\n")
    h.tick(2 * 24 * 3600)
    for line in handover:
        h.mail(GM, f"[DU-{game_id} {h.game(game_id).gm_secret}] seat", f"{line}\n")
    carol_tag = f"[DU-{game_id} {h.seat(game_id, 'south').secret}]"
    h.mail(CAROL, f"{carol_tag} bid", "SEAL bid 2\n")
    ((_, data),) = _zips(h.mail(CAROL, f"{carol_tag} archive", "ARCHIVE\n"))
    folder = _unpacked(data, tmp_path / "zip")
    everything = "\n".join(
        f.read_text(encoding="utf-8", errors="replace") for f in folder.rglob("*") if f.is_file()
    )
    assert old_secret not in everything and SOUTH not in everything
    assert "from the first south" not in everything
    assert "<h3>Orders" not in (folder / "steps" / "T1.orders.html").read_text()  # the first south's
    box = mailbox.mbox(folder / "mail.mbox", create=False)
    ends = [{str(m["From"]), str(m["To"])} for m in box]
    box.close()
    assert ends and all(CAROL in " ".join(pair) for pair in ends), ends
    assert {CAROL, BOT} in [{e.split("<")[-1].strip(">") for e in pair} for pair in ends]
    assert "History: Test duel: Turn 1 of 3" in everything  # the seat's reports, as she was given them


def test_a_seat_is_a_players_from_his_welcome_until_another_players() -> None:
    """A player given his seat back (ejected, another player, then him again) held it twice; the
    player between them held it between."""
    t = [datetime(2026, 11, 1, tzinfo=UTC) + timedelta(days=n) for n in range(4)]
    welcomes = [(t[0], "a@x.test"), (t[1], "b@x.test"), (t[2], "a@x.test"), (t[3], "a@x.test")]
    assert spans_of(welcomes, "a@x.test") == (Span(t[0], t[1]), Span(t[2], None), Span(t[3], None))
    assert spans_of(welcomes, "b@x.test") == (Span(t[1], t[2]),)
    assert spans_of([], "a@x.test") == (Span(None, None),)  # no welcome kept: the whole game
