# SPDX-License-Identifier: GPL-3.0-or-later
"""The archive as a site to browse, and its mail.mbox: what is in it, what may not be, and when.

A duel played by mail on a real SQLite store; the export is read back from disk
the way a browser and a mail client would (html5lib, the stdlib mailbox).
"""

from __future__ import annotations

import email
import email.policy
import json
import mailbox
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from io import BytesIO
from pathlib import Path

import html5lib
import pytest
from PIL import Image
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from mailbot.cli import app
from mailbot.errors import ArchiveError
from mailbot.mail.compose import Attachment
from mailbot.services.archive.archive import export, export_seat
from mailbot.services.archive.archive_letters import REMOVED, Redactor
from mailbot.services.post.letters import Draft
from mailbot.store.game_tables import Game, OrderSet, Report, Seat, StepRow, StepState
from tests.services.game_helpers import Harness
from tests.services.test_archive import _play_to_the_end
from tests.services.test_games_by_mail import NORTH, SOUTH, _started

XHTML = "{http://www.w3.org/1999/xhtml}"


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(f"sqlite:///{tmp_path}/a.db")
    yield harness
    harness.bot.engine.dispose()


def _export(h: Harness, game_id: int, out: Path) -> Path:
    with Session(h.bot.engine) as session:
        export(session, game_id, out)
    return out


def _secrets(h: Harness, game_id: int) -> list[str]:
    with Session(h.bot.engine) as session:
        game = session.get_one(Game, game_id)
        seats = session.exec(select(Seat).where(Seat.game_id == game_id)).all()
        return [game.gm_secret, *(s.secret for s in seats), *(s.invite_code for s in seats)]


def _links(page: Path) -> list[str]:
    tree = html5lib.parse(page.read_bytes(), namespaceHTMLElements=True)
    return [
        element.get(attribute) or ""
        for element in tree.iter()
        for attribute in ("href", "src")
        if element.get(attribute) is not None
    ]


def _stylesheets(page: Path) -> list[str]:
    """The stylesheets a page links, as files from the site's root, and its inline style."""
    tree = html5lib.parse(page.read_bytes())
    linked = [
        (page.parent / str(link.get("href"))).resolve().as_posix()
        for link in tree.iter(f"{XHTML}link")
        if link.get("rel") == "stylesheet"
    ]
    return [*linked, "".join(style.text or "" for style in tree.iter(f"{XHTML}style"))]


def _messages(path: Path) -> list[EmailMessage]:
    box = mailbox.mbox(path, create=False)
    try:
        raws = [box.get_bytes(key) for key in box.iterkeys()]
    finally:
        box.close()
    parsed = [email.message_from_bytes(raw, policy=email.policy.default) for raw in raws]
    return [m for m in parsed if isinstance(m, EmailMessage)]


def _readable(message: EmailMessage) -> str:
    """Every header and every decoded text part of a letter: where a secret could hide."""
    texts = [f"{name}: {value}" for name, value in message.items()]
    for part in message.walk():
        if part.get_content_maintype() == "text":
            texts.append(str(part.get_content()))
    return "\n".join(texts)


def _everything(folder: Path) -> str:
    """The whole export as text: every file, and the mbox's letters decoded."""
    texts = [
        file.read_bytes().decode("utf-8", "replace")
        for file in folder.rglob("*")
        if file.is_file() and file.name != "mail.mbox"
    ]
    texts += [_readable(message) for message in _messages(folder / "mail.mbox")]
    return "\n".join(texts)


def test_the_finished_game_is_a_site_that_opens_from_disk(h: Harness, tmp_path: Path) -> None:
    game_id = _play_to_the_end(h)
    out = _export(h, game_id, tmp_path / "site")
    pages = sorted(out.rglob("*.html"))
    steps = [page for page in pages if page.parent.name == "steps"]
    assert len(steps) == len(h.steps(game_id)) >= 4
    index_links = _links(out / "index.html")
    for wanted in ("press.html", "gm.html", "mail.mbox", "game.json", "verify.py"):
        assert wanted in index_links
    assert {f"steps/{page.name}" for page in steps} <= set(index_links)
    style = (out / "style.css").read_text(encoding="utf-8")
    assert "prefers-color-scheme: dark" in style and "pre-wrap" in style
    for page in [p for p in pages if p.parent == out or p.parent.name == "steps"]:
        assert _stylesheets(page) == [(out / "style.css").resolve().as_posix(), ""], page  # one, shared
        for link in _links(page):
            assert "://" not in link and not link.startswith("/"), (page, link)  # relative, local
            target = (page.parent / link.split("#")[0]).resolve()
            assert target.exists(), (page, link)
    done = subprocess.run(
        [sys.executable, "verify.py", "."], cwd=out, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout


def test_an_export_replaces_an_earlier_one_and_refuses_a_folder_of_other_files(
    h: Harness, tmp_path: Path
) -> None:
    game_id = _play_to_the_end(h)
    out = _export(h, game_id, tmp_path / "site")
    first = sorted(p.relative_to(out) for p in out.rglob("*"))
    (out / "steps" / "stale-page.html").write_text("an older export's page")
    _export(h, game_id, out)  # exported again over itself: the same files, nothing stale
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == first
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "plan.txt").write_text("the GM's own file")
    with pytest.raises(ArchiveError, match="not an archive mailbot wrote"):
        _export(h, game_id, mine)
    assert [p.name for p in mine.iterdir()] == ["plan.txt"]  # refused, nothing removed


def test_after_the_end_each_step_shows_the_referee_view_rolls_and_seed(h: Harness, tmp_path: Path) -> None:
    game_id = _play_to_the_end(h)
    out = _export(h, game_id, tmp_path / "site")
    bids = [s for s in h.steps(game_id) if s.kind == "sealed" and s.state is StepState.RESOLVED]
    page = (out / "steps" / f"{bids[0].key}.html").read_text()
    assert "The referee&#39;s view" in page or "The referee's view" in page
    referee = out / "steps" / bids[0].key / "referee.html"
    assert f'href="../steps/{bids[0].key}/referee.html"' in page  # shown once, on its own page
    assert "report for referee" in referee.read_text() and "report for referee" not in page
    assert bids[0].seed in page and "<table>" in page  # the seed and the roll log
    data = json.loads((out / "game.json").read_text())
    rolls = next(s["rolls"] for s in data["steps"] if s["key"] == bids[0].key)
    assert rolls and all(roll["label"] in page for roll in rolls)
    dice = (out / "dice.html").read_text()
    assert all(step.seed in dice for step in h.steps(game_id))


def test_no_secret_is_in_any_file_of_the_archive(h: Harness, tmp_path: Path) -> None:
    game_id = _play_to_the_end(h)
    out = _export(h, game_id, tmp_path / "site")
    everything = _everything(out)
    for secret in _secrets(h, game_id):
        assert secret not in everything
    subjects = [str(m["Subject"]) for m in _messages(out / "mail.mbox")]
    assert f"[DU-{game_id}] Welcome to Test duel" in subjects  # the tag stays, the secret goes


def test_a_seats_void_secret_is_cut_like_its_live_one(h: Harness, tmp_path: Path) -> None:
    """Outside GM trial: after a REPLACE the earlier player's letters still carried his secret,
    void now but a seat secret all the same, in the whole game's mail.mbox and pages."""
    game_id, _, south_tag = _started(h)
    old = h.seat(game_id, "south").secret
    h.mail(SOUTH, f"{south_tag} orders", f"SECRET {old}\nORDERS\nATTACK 3\nEND\n")
    h.tick(2 * 24 * 3600)
    gm_tag = f"[DU-{game_id} {h.game(game_id).gm_secret}]"
    h.mail("gm@example.test", f"{gm_tag} seat", "REPLACE south carol@players.test\n")
    assert h.seat(game_id, "south").secret != old
    out = _export(h, game_id, tmp_path / "site")
    everything = _everything(out)
    assert old not in everything and not any(secret in everything for secret in _secrets(h, game_id))
    assert f"SECRET {REMOVED}" in everything  # the letters stay, their secrets go


def test_the_mbox_holds_every_letter_in_and_out_in_order(h: Harness, tmp_path: Path) -> None:
    game_id = _play_to_the_end(h)
    out = _export(h, game_id, tmp_path / "site")
    messages = _messages(out / "mail.mbox")
    senders = [str(m["From"]) for m in messages]
    # in: north's and south's letters (the JOIN letter too); out: every letter of the game
    with Session(h.bot.engine) as session:
        sets = session.exec(select(OrderSet).where(col(OrderSet.inbound_id).is_not(None))).all()
    letters_in = {held.inbound_id for held in sets} | {1}  # the JOIN letter was the first
    assert sum(NORTH in s or SOUTH in s for s in senders) >= len(letters_in)
    game_out = [row for row in h.outbox() if row.game_id == game_id or row.inbound_id is not None]
    assert len(messages) - sum(NORTH in s or SOUTH in s for s in senders) == len(game_out)
    box = mailbox.mbox(out / "mail.mbox", create=False)
    stamps = [datetime.strptime(m.get_from().split(" ", 1)[1], "%a %b %d %H:%M:%S %Y") for m in box]
    box.close()
    assert stamps == sorted(stamps)  # in the order the letters came and went


def test_before_the_end_no_seed_roll_or_referee_view_is_shown(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.tick(2 * 24 * 3600)  # T1 resolved on north's orders and south's defaults
    out = _export(h, game_id, tmp_path / "mid")
    everything = _everything(out)
    resolved = [s for s in h.steps(game_id) if s.state is StepState.RESOLVED]
    assert resolved and all(step.seed not in everything for step in h.steps(game_id))
    assert "report for referee" not in everything and "<h2>The referee" not in everything
    data = json.loads((out / "game.json").read_text())
    assert all(step["rolls"] == [] for step in data["steps"])  # no roll while its seed is secret
    page = (out / "steps" / "T1.orders.html").read_text()
    assert "shown when its seed is revealed" in page
    assert "ATTACK 2" in page  # a closed step's orders, as game.json has them


def test_orders_and_sealed_values_of_the_open_step_are_withheld(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.tick(2 * 24 * 3600)
    h.mail(NORTH, f"{north_tag} bid", "SEAL bid 3\n")  # the bid step is open: 3 is sealed
    out = _export(h, game_id, tmp_path / "sealed")
    messages = _messages(out / "mail.mbox")
    sealing = [m for m in messages if "bid" in str(m["Subject"]) and NORTH in str(m["From"])]
    assert sealing and all("SEAL bid 3" not in _readable(m) for m in sealing)
    assert any("withheld until" in _readable(m) for m in sealing)
    assert "ATTACK 2" in _readable(next(m for m in messages if "orders" in str(m["Subject"])))
    # north's own archive keeps his own letter as he wrote it
    with Session(h.bot.engine) as session:
        export_seat(session, game_id, "north", tmp_path / "north")
    own = _messages(tmp_path / "north" / "mail.mbox")
    assert any("SEAL bid 3" in _readable(m) for m in own)


def test_a_seats_archive_holds_only_its_own_letters(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, south_tag = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 1\nDEFEND 1\nEND\n")
    h.mail(SOUTH, f"{south_tag} orders", "ORDERS\nATTACK 3\nEND\n")
    h.tick(2 * 24 * 3600)
    assert "ATTACK 1\nDEFEND 1" in _everything(_export(h, game_id, tmp_path / "whole"))
    with Session(h.bot.engine) as session:
        index = export_seat(session, game_id, "south", tmp_path / "south")
    assert index == tmp_path / "south" / "index.html" and not (tmp_path / "south" / "game.json").exists()
    for message in _messages(tmp_path / "south" / "mail.mbox"):
        assert SOUTH in f"{message['From']} {message['To']}" and NORTH not in _readable(message)
    everything = _everything(tmp_path / "south")
    assert "report for south" in everything and "report for north" not in everything
    assert "ATTACK 3" in everything  # south's own orders
    assert "ATTACK 1\nDEFEND 1" not in everything and "ATTACK 1, DEFEND 1" not in everything  # not north's


def _img_sources(page: Path) -> list[str]:
    tree = html5lib.parse(page.read_bytes())
    return [str(img.get("src")) for img in tree.iter(f"{XHTML}img")]


def _map_letters(h: Harness, game_id: int, png: bytes, svg: str) -> None:
    """A map letter to each seat: north's with a PNG only, south's with a PNG and its report's SVG."""
    h.clock.advance(60)  # later than every earlier letter: a report is known by its seat and time
    with Session(h.bot.engine) as session, session.begin():
        for seat in session.exec(select(Seat).where(Seat.game_id == game_id)).all():
            letter = Draft(seat.address, f"[DU-{game_id} {seat.secret}] Your map")
            # as Reports sends a map: shown inside the HTML part by its Content-ID
            picture = Attachment("map.png", png, "image", "png", f"map.{seat.name}@mailbot")
            letter.section("Map", ["attached"], picture=picture)
            letter.attachments.append(picture)
            h.bot.postman.post(session, letter, kind="report", now=h.clock.now)
            if seat.name == "south":  # as Reports keeps it: same seat, same time as the letter
                session.add(
                    Report(
                        game_id=game_id,
                        seat="south",
                        turn=1,
                        step_key="T1.orders",
                        subject="Your map",
                        text="",
                        html="",
                        chain_head="",
                        created_at=h.clock.now,
                        map_svg=svg,
                    )
                )
    h.flush()


def _object_data(page: Path) -> list[str]:
    tree = html5lib.parse(page.read_bytes())
    return [str(shown.get("data")) for shown in tree.iter(f"{XHTML}object")]


def test_maps_stand_next_to_their_page_the_svg_shown_once(h: Harness, tmp_path: Path) -> None:
    game_id, _, _ = _started(h)
    buffer = BytesIO()
    Image.new("RGB", (40, 30), (20, 120, 200)).save(buffer, "PNG")
    png, svg = buffer.getvalue(), '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>'
    _map_letters(h, game_id, png, svg)
    out = _export(h, game_id, tmp_path / "maps")
    page = out / "steps" / "T1.orders.html"
    pictures, maps = _img_sources(page), _object_data(page)
    # North's PNG as a picture; south's map as its SVG alone (an <object>: it shows the board
    # layers an SVG refers to), the PNG painted from it left out of the pages.
    assert [Path(src).suffix for src in pictures] == [".png"] and [Path(m).suffix for m in maps] == [".svg"]
    assert (page.parent / pictures[0]).read_bytes() == png and (page.parent / maps[0]).read_text() == svg
    assert all(Path(src).parent.name == "T1.orders" for src in [*pictures, *maps])  # in the page's folder
    saved = sorted(p.suffix for p in (page.parent / "T1.orders").iterdir() if p.suffix in (".png", ".svg"))
    assert saved == [".png", ".svg"]
    # Each letter's HTML part beside the page shows its map from the file there, not from cid:.
    for seat, shown in (("north", _img_sources), ("south", _object_data)):
        letters = (page.parent / "T1.orders").glob(f"*-{seat}.html")
        (html,) = [path for path in letters if "Your map</title>" in path.read_text()]
        (source,) = shown(html)
        assert "cid:" not in html.read_text() and (html.parent / source).is_file(), (seat, source)
    # The whole game's mbox: the letters as text, their pictures and HTML parts on the pages.
    parts = [part for m in _messages(out / "mail.mbox") for part in m.walk()]
    assert parts and not any(part.get_content_maintype() == "image" for part in parts)
    assert not any(part.is_multipart() and not part.get_payload() for part in parts)  # no empty related
    # A seat's archive by mail: each map once, and no attachment in its mbox.
    with Session(h.bot.engine) as session:
        export_seat(session, game_id, "south", tmp_path / "south", compact=True)
    folder = tmp_path / "south" / "steps" / "T1.orders"
    assert [p.suffix for p in folder.iterdir() if p.suffix in (".png", ".svg")] == [".svg"]
    parts = [part for m in _messages(tmp_path / "south" / "mail.mbox") for part in m.walk()]
    assert parts and not any(part.get_content_maintype() == "image" for part in parts)


def test_the_redactor_cuts_secrets_but_keeps_game_tags() -> None:
    cut = Redactor(["k7Q2", "AbCdEf12", ""])
    assert cut("Re: [DU-3 k7Q2] orders") == "Re: [DU-3] orders"
    assert cut("[DU-3 GM] late list") == "[DU-3 GM] late list"
    assert cut("Your secret: k7Q2\nSECRET k7Q2\nJOIN 3 south AbCdEf12") == (
        f"Your secret: {REMOVED}\nSECRET {REMOVED}\nJOIN 3 south {REMOVED}"
    )
    assert cut("k7Q2x and xk7Q2 stay") == "k7Q2x and xk7Q2 stay"  # only whole tokens
    assert Redactor([])("[DU-3 k7Q2]") == "[DU-3 k7Q2]"


def test_a_rolled_back_step_has_a_page_per_attempt(h: Harness, tmp_path: Path) -> None:
    game_id, north_tag, _ = _started(h)
    h.mail(NORTH, f"{north_tag} orders", "ORDERS\nATTACK 2\nEND\n")
    h.tick(2 * 24 * 3600)
    with Session(h.bot.engine) as session, session.begin():
        game = session.get_one(Game, game_id)
        h.bot.gm.rollback(session, game, "T1.orders", "a test of rollback")
    out = _export(h, game_id, tmp_path / "rolled")
    keys = [(s.key, s.attempt) for s in h.steps(game_id)]
    assert ("T1.orders", 2) in keys
    assert (out / "steps" / "T1.orders.html").exists() and (
        out / "steps" / "T1.orders-attempt2.html"
    ).exists()
    gm = (out / "gm.html").read_text()
    assert "rollback" in gm and "a test of rollback" in gm
    with Session(h.bot.engine) as session:
        rolled = session.exec(select(StepRow).where(StepRow.key == "T1.orders", StepRow.attempt == 1)).one()
        assert rolled.state is StepState.ROLLED_BACK


def test_archive_serve_serves_the_folder_on_localhost(h: Harness, tmp_path: Path) -> None:
    game_id = _play_to_the_end(h)
    out = _export(h, game_id, tmp_path / "served")
    command = [sys.executable, "-m", "mailbot", "archive", "serve", str(out), "--port", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as server:
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            assert found, line
            with urllib.request.urlopen(f"{found.group(0)}index.html", timeout=10) as answer:
                assert answer.status == 200 and b"Test duel" in answer.read()
            with urllib.request.urlopen(f"{found.group(0)}steps/T1.orders.html", timeout=10) as answer:
                assert b"report for north" in answer.read()
        finally:
            server.terminate()  # the server this test started, by its own handle


def test_archive_serve_refuses_a_folder_without_an_index(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mailbot", "archive", "serve", str(tmp_path), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0 and "no index.html" in done.stderr


def test_archive_export_on_the_command_line_says_where_the_site_is(
    h: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = _play_to_the_end(h)
    monkeypatch.setenv("MAILBOT_STORE__URL", f"sqlite:///{tmp_path}/a.db")
    out = tmp_path / "cli"
    result = CliRunner().invoke(app, ["archive", "export", str(game_id), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"archive written: {out / 'game.json'}" in result.output
    assert f"browse it: {out / 'index.html'}" in result.output and (out / "index.html").is_file()
    assert f"mailbot archive serve {out}" in result.output


@pytest.mark.parametrize(
    ("view", "fragment"),
    [("", "#svgView(viewBox(16,32,24,18))"), ('<view id="inset" viewBox="16 32 24 18" />', "#inset")],
    ids=["window", "view"],
)
def test_a_maps_inset_is_shown_from_the_maps_svg_through_its_window(
    h: Harness, tmp_path: Path, view: str, fragment: str
) -> None:
    """A letter's zoomed inset (``map-<seat>-turn<n>-zoomed.png``) is its map's SVG through the
    window the SVG's root names (``data-inset``): the letter's page shows that file through the
    map's ``inset`` view (which also shows the labels placed for it), or an SVG view fragment
    (a map drawn without one), and the archive keeps no PNG nor SVG more for it."""
    game_id, _, _ = _started(h)
    buffer = BytesIO()
    Image.new("RGB", (40, 30), (20, 120, 200)).save(buffer, "PNG")
    png = buffer.getvalue()
    root = '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="72" data-inset="16 32 24 18">'
    svg = f"{root}{view}</svg>"
    h.clock.advance(60)
    with Session(h.bot.engine) as session, session.begin():
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.name == "south")).one()
        letter = Draft(seat.address, f"[DU-{game_id} {seat.secret}] Your map")
        for name in ("map-south-turn1", "map-south-turn1-zoomed"):
            picture = Attachment(f"{name}.png", png, "image", "png", f"{name}@mailbot")
            letter.section("Map", ["attached"], picture=picture)
            letter.attachments.append(picture)
        h.bot.postman.post(session, letter, kind="report", now=h.clock.now)
        session.add(
            Report(
                game_id=game_id, seat="south", turn=1, step_key="T1.orders", subject="Your map", text="",
                html="", chain_head="", created_at=h.clock.now, map_svg=svg,
            )
        )  # fmt: skip
    h.flush()
    out = _export(h, game_id, tmp_path / "maps")
    folder = out / "steps" / "T1.orders"
    (html,) = [p for p in folder.glob("*-south.html") if "Your map</title>" in p.read_text()]
    shown = _object_data(html)
    assert len(shown) == 2 and shown[1] == shown[0] + fragment, shown
    assert (folder / shown[0]).read_text() == svg
    assert sorted(p.suffix for p in folder.iterdir() if p.suffix in (".png", ".svg")) == [".svg"]
