# SPDX-License-Identifier: GPL-3.0-or-later
"""Mail as players really write it (issue 13), through the whole bot with a fake SMTP sink.

Replies to the bot's own letters are known by their thread (In-Reply-To /
References) without a tag in the subject; a reply to a step letter is read as
orders; only the new orders of every reply layout in the corpus count; and
replies stay small whatever the letter.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

import pytest
from sqlmodel import Session, col, select

from mailbot.services.base import queries
from mailbot.store.game_tables import Game, GameStatus
from mailbot.store.models import Outbound
from tests.services.game_helpers import Harness, parse, tag_of, text, to
from tests.services.helpers import BOT, GM
from tests.unit.test_reply_corpus import EXPECTED, NEW, REPLIES, expand

NORTH, SOUTH = "north@players.test", "south@players.test"
TEXT_LAYOUTS = sorted(REPLIES.glob("*.txt"))
_ids = itertools.count(1)


@pytest.fixture
def h(db_url: str) -> Iterator[Harness]:
    harness = Harness(db_url)
    yield harness
    harness.bot.engine.dispose()


def _started(h: Harness) -> tuple[int, EmailMessage]:
    """A running duel; returns the game and north's opening report (which asks for T1 orders)."""
    game_id = h.create()
    h.invite(game_id, "north", NORTH)
    code = h.seat(game_id, "south").invite_code
    letters = h.mail(SOUTH, "joining", f"JOIN {game_id} south {code}\n")
    letters += h.flush()
    report = next(m for m in to(letters, NORTH) if "the game begins" in m["Subject"])
    return game_id, report


def _reply(
    h: Harness,
    sender: str,
    to_letter: EmailMessage,
    body: str,
    subject: str | None = None,
    *,
    headers: dict[str, str] | None = None,
) -> list[EmailMessage]:
    """A reply to one of the bot's letters, without its tag unless ``subject`` says otherwise."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = BOT
    untagged = to_letter["Subject"].split("] ", 1)[-1]
    msg["Subject"] = subject if subject is not None else f"Re: {untagged}"
    msg["Date"] = format_datetime(h.clock.now)
    msg["Message-ID"] = f"<reply-{next(_ids)}@players.test>"
    msg["In-Reply-To"] = to_letter["Message-ID"]
    msg["References"] = to_letter["Message-ID"]
    for name, value in (headers or {}).items():
        msg[name] = value
    msg.set_content(body)
    h.clock.advance(1)
    h.bot.inject(msg.as_bytes())
    h.bot.processor.process_pending()
    return h.flush()


def _orders(h: Harness, game_id: int, seat: str) -> list[str] | None:
    with Session(h.bot.engine) as session:
        step = queries.open_step(session, game_id)
        assert step is not None
        held = queries.current_orders(session, int(step.id or 0)).get(seat)
        return list(held.lines) if held else None


def _answer(letters: list[EmailMessage], address: str) -> str:
    (answer,) = [m for m in to(letters, address) if m["Subject"].startswith("Re:")]
    return text(answer)


# On SQLite only: a layout is read from the letter's text before any store is asked, and what is
# stored then (the new orders, replacing none) is the same for every layout; this file's other
# tests run on PostgreSQL as well.
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("path", TEXT_LAYOUTS, ids=[p.stem for p in TEXT_LAYOUTS])
def test_every_layout_as_a_reply_to_the_report_gives_only_the_new_orders(h: Harness, path: Path) -> None:
    game_id, report = _started(h)
    quoted = text(report).splitlines()
    answer = _answer(
        _reply(h, NORTH, report, expand(path.read_text("utf-8"), NEW, quoted, as_html=False)), NORTH
    )
    assert "Orders accepted for" in answer, answer
    assert _orders(h, game_id, "north") == ["ATTACK 3", "DEFEND 0"]
    prose = EXPECTED.get(path.stem, {}).get("prose", [])
    if not prose:
        assert "Lines I could not use" not in answer, answer


def test_the_report_says_how_to_send_it_back_and_holds_an_orders_block(h: Harness) -> None:
    _, report = _started(h)
    body = text(report)
    assert "reply to this letter: edit the lines between ORDERS and END" in body
    lines = [line.strip() for line in body.splitlines()]
    assert "ORDERS" in lines and "END" in lines[lines.index("ORDERS") :]


def test_a_reply_with_the_template_edited_inside_the_quote_is_the_orders(h: Harness) -> None:
    game_id, report = _started(h)
    quoted = [f"> {line}" for line in text(report).splitlines()]
    start = quoted.index("> ORDERS")
    end = quoted.index("> END", start)
    quoted[start + 1 : end] = ["> ATTACK 3", "> DEFEND 0"]
    body = "\n".join(["On Mon, 23 Nov 2026 at 14:05, mailbot <bot@example.test> wrote:", *quoted])
    answer = _answer(_reply(h, NORTH, report, body), NORTH)
    assert "Orders accepted for" in answer, answer
    assert _orders(h, game_id, "north") == ["ATTACK 3", "DEFEND 0"]


def test_loose_order_lines_in_a_reply_to_the_report_are_orders(h: Harness) -> None:
    game_id, report = _started(h)
    quoted = "\n".join(f"> {line}" for line in text(report).splitlines())
    answer = _answer(_reply(h, NORTH, report, f"attack 3\ndefend 0\n\nmailbot wrote:\n{quoted}"), NORTH)
    assert "Orders accepted for" in answer, answer
    assert _orders(h, game_id, "north") == ["ATTACK 3", "DEFEND 0"]


def test_an_unedited_quoted_template_alone_is_no_orders(h: Harness) -> None:
    game_id, report = _started(h)
    quoted = "\n".join(f"> {line}" for line in text(report).splitlines())
    answer = _answer(_reply(h, NORTH, report, f"mailbot wrote:\n{quoted}"), NORTH)
    assert "No commands found" in answer
    assert _orders(h, game_id, "north") is None


def test_two_order_blocks_in_one_letter_use_neither(h: Harness) -> None:
    game_id, report = _started(h)
    tag = tag_of(report)
    letters = h.mail(NORTH, f"{tag} orders", "ORDERS\nATTACK 3\nEND\n\nORDERS\nATTACK 1\nDEFEND 2\nEND\n")
    answer = _answer(letters, NORTH)
    assert "2 ORDERS blocks (lines 1, 5): none was used" in answer
    assert "Orders accepted" not in answer
    assert _orders(h, game_id, "north") is None


def test_the_reply_to_a_threaded_letter_keeps_the_tag_and_its_thread(h: Harness) -> None:
    game_id, report = _started(h)
    letters = _reply(h, NORTH, report, "STATUS")
    (answer,) = to(letters, NORTH)
    assert tag_of(answer) == tag_of(report)
    row = next(r for r in h.outbox() if r.message_id == answer["Message-ID"].strip("<>"))
    assert (row.game_id, row.seat) == (game_id, "north")


def test_a_reply_to_a_history_letter_is_identified_without_a_tag(h: Harness) -> None:
    _, report = _started(h)
    letters = h.mail(NORTH, f"{tag_of(report)} history", "HISTORY")
    history = next(m for m in to(letters, NORTH) if "History:" in m["Subject"])
    assert tag_of(history) == tag_of(report)
    answer = _answer(_reply(h, NORTH, history, "STATUS"), NORTH)
    assert "Game status: running" in answer, answer


def test_a_reply_to_a_reminder_is_identified_and_read_as_orders(h: Harness) -> None:
    game_id, _ = _started(h)
    letters = h.tick(37 * 3600)
    reminder = next(m for m in to(letters, NORTH) if "Reminder" in m["Subject"])
    answer = _answer(_reply(h, NORTH, reminder, "ORDERS\nATTACK 2\nDEFEND 1\nEND"), NORTH)
    assert "Orders accepted for" in answer, answer
    assert _orders(h, game_id, "north") == ["ATTACK 2", "DEFEND 1"]


def test_the_gm_resumes_by_replying_to_a_gm_notice(h: Harness) -> None:
    game_id, _ = _started(h)
    with Session(h.bot.engine) as session, session.begin():
        game = session.get_one(Game, game_id)
        h.bot.gm.pause(session, game, "testing")
        h.bot.reports.gm(session, game, "Game paused", ["The game is paused."])
    notice = next(m for m in to(h.flush(), GM) if "Game paused" in m["Subject"])
    answer = _answer(_reply(h, GM, notice, "RESUME back again"), GM)
    assert "not playing" not in answer, answer
    assert h.game(game_id).status is GameStatus.RUNNING


def test_the_gm_status_by_mail_is_answered(h: Harness) -> None:
    game_id, _ = _started(h)
    secret = h.game(game_id).gm_secret
    answer = _answer(h.mail(GM, f"[DU-{game_id} {secret}] status", "STATUS"), GM)
    assert "Game status: running" in answer and "Still to send: north, south" in answer, answer


def test_a_stranger_replying_to_someone_elses_letter_is_not_let_in(h: Harness) -> None:
    game_id, report = _started(h)
    answer = _answer(
        _reply(h, "mallory@players.test", report, "ORDERS\nATTACK 3\nEND"), "mallory@players.test"
    )
    assert "not playing in a game here" in answer
    assert _orders(h, game_id, "north") is None


def test_a_player_in_two_games_without_tag_or_thread_is_asked_which(h: Harness) -> None:
    _started(h)
    second = h.create()
    h.invite(second, "north", NORTH)
    answer = _answer(h.mail(NORTH, "status please", "STATUS"), NORTH)
    assert "more than one game" in answer, answer


@pytest.mark.parametrize("line", ["ATTACK 1", "X{n}"])
def test_a_letter_of_6000_order_lines_gets_a_small_reply_quickly(h: Harness, line: str) -> None:
    _, report = _started(h)
    body = "ORDERS\n" + "\n".join(line.format(n=n) for n in range(6000)) + "\nEND\n"
    started = time.perf_counter()
    letters = h.mail(NORTH, f"{tag_of(report)} orders", body)
    elapsed = time.perf_counter() - started
    (answer,) = [s.raw for s in h.sink.sent if parse(s.raw)["Message-ID"] == letters[0]["Message-ID"]]
    assert len(answer) < 100_000, len(answer)
    assert elapsed < 2.0, elapsed
    assert "more" in text(letters[0])


def test_outbound_rows_of_game_letters_carry_game_seat_and_step(h: Harness) -> None:
    game_id, report = _started(h)
    with Session(h.bot.engine) as session:
        rows = session.exec(select(Outbound).where(col(Outbound.kind) == "report")).all()
        found = {(r.recipient, r.game_id, r.seat, r.step_key) for r in rows}
        ids = {r.message_id for r in rows}
    assert (NORTH, game_id, "north", "T1.orders") in found
    assert report["Message-ID"].strip("<>") in ids


def test_an_outlook_html_reply_with_the_report_copied_unquoted_gives_only_the_new_orders(h: Harness) -> None:
    game_id, report = _started(h)
    html_part = report.get_body(preferencelist=("html",))
    assert html_part is not None
    original = str(html_part.get_content())
    inner = original.split("<body", 1)[1].split(">", 1)[1].rsplit("</body>", 1)[0]
    body = (
        "<html><body><div>ORDERS<br>ATTACK 3<br>DEFEND 0<br>END</div><hr>"
        "<div><b>From:</b> mailbot &lt;bot@example.test&gt;<br><b>Sent:</b> Monday, November 23, 2026 2:05 PM"
        "<br><b>To:</b> north@players.test<br><b>Subject:</b> Test duel: the game begins</div>"
        f"<div>{inner}</div></body></html>"
    )
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = NORTH, BOT, "Re: Test duel: the game begins"
    msg["Message-ID"], msg["In-Reply-To"] = "<outlook-html@players.test>", report["Message-ID"]
    msg.set_content(body, subtype="html")
    h.clock.advance(1)
    h.bot.inject(msg.as_bytes())
    h.bot.processor.process_pending()
    answer = _answer(h.flush(), NORTH)
    assert "Orders accepted for" in answer and "Lines I could not use" not in answer, answer
    assert _orders(h, game_id, "north") == ["ATTACK 3", "DEFEND 0"]


def _gmail_html_reply(h: Harness, report: EmailMessage, edit: bool) -> list[EmailMessage]:
    """Gmail's HTML reply: the report's HTML inside its blockquote, the template edited or not."""
    html_part = report.get_body(preferencelist=("html",))
    assert html_part is not None
    inner = str(html_part.get_content()).split("<body", 1)[1].split(">", 1)[1].rsplit("</body>", 1)[0]
    assert "<h3>Orders</h3>" in inner  # the heading that must not open the block
    edited = re.sub(r"ATTACK 2(\r?\n)DEFEND 1", r"ATTACK 3\1DEFEND 0", inner)
    assert edited != inner
    body = (
        '<div dir="ltr"><br></div><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        f"On Mon, Nov 23, 2026 at 2:05 PM mailbot &lt;{BOT}&gt; wrote:<br></div>"
        '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid '
        f'rgb(204,204,204);padding-left:1ex">{edited if edit else inner}</blockquote></div>'
    )
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = NORTH, BOT, "Re: Test duel: the game begins"
    msg["Message-ID"], msg["In-Reply-To"] = f"<gmail-html-{next(_ids)}@players.test>", report["Message-ID"]
    msg.set_content(body, subtype="html")
    h.clock.advance(1)
    h.bot.inject(msg.as_bytes())
    h.bot.processor.process_pending()
    return h.flush()


def test_a_gmail_html_reply_with_the_template_edited_inside_the_quote_is_the_orders(h: Harness) -> None:
    game_id, report = _started(h)
    answer = _answer(_gmail_html_reply(h, report, edit=True), NORTH)
    assert "Orders accepted for" in answer and "Lines I could not use" not in answer, answer
    assert _orders(h, game_id, "north") == ["ATTACK 3", "DEFEND 0"]


def test_a_gmail_html_reply_quoting_the_template_unchanged_is_no_orders(h: Harness) -> None:
    game_id, report = _started(h)
    answer = _answer(_gmail_html_reply(h, report, edit=False), NORTH)
    assert "No commands found" in answer and "Lines I could not use" not in answer, answer
    assert _orders(h, game_id, "north") is None


def test_a_flat_top_report_sent_back_with_its_template_edited_is_the_orders(h: Harness) -> None:
    game_id = h.create_flattop()
    h.invite(game_id, "allied", NORTH)
    letters = h.flush()
    h.invite(game_id, "japanese", SOUTH)
    letters += h.flush()
    report = next(m for m in to(letters, NORTH) if "] T1 0500 D1: orders due " in m["Subject"])
    quoted = [f"> {line}" for line in text(report).splitlines()]
    deception = next(i for i, line in enumerate(quoted) if line.startswith("> DECEPTION "))
    quoted[deception] = "> DECEPTION MAXIMAL"
    answer = _answer(_reply(h, NORTH, report, "\n".join(["mailbot wrote:", *quoted])), NORTH)
    assert "Orders accepted for" in answer and "Lines I could not use" not in answer, answer
    held = _orders(h, game_id, "allied")
    assert held is not None and "DECEPTION MAXIMAL" in held
